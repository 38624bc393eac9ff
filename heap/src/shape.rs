//! Degree metrics, after ShapeUp (Jump & McKinley, "Dynamic Shape Analysis via Degree
//! Metrics"): for each class of a recursive backbone, how many of its objects have each in- and
//! out-degree over the backbone, learned from good runs and checked on later ones.
//!
//! The backbone of a class is the references between objects of its recursive type (the
//! classes on one cycle of the observed class graph, [`crate::graph::recursive_types`]; the
//! paper takes one class, which misses heterogeneous structures): a list node's `next`, not its
//! payload. Each snapshot is a sample: per class, its object count `n` and its histograms.
//!
//! A metric is one bin of a histogram (`in 1`: objects with in-degree 1; `in >3`: above the
//! last bin). Learning keeps, for each bin, the expressions among `0, 1, 2, n, n-1, n-2` that
//! gave its count in every sample: a *fixed* metric (several when samples cannot tell them
//! apart: with n = 2, a count of 2 is `2 | n`); when none did, a *range* of the share of the
//! class's objects, widened outward to hundredths of a percent. Checking a sample: a fixed
//! metric that no expression of it matches is broken (a hard failure); a share outside a range
//! is a warning, as the paper found range metrics tolerant and fixed ones sensitive.
//!
//! The file keeps every sample learned from (so learning again adds samples and recomputes
//! the metrics) and the metrics, which `check` reads as written: a metric edited by hand is the
//! one enforced.

use crate::error::{Error, Result};
use crate::graph::recursive_types;
use crate::scope::{RootSelection, reachable};
use crate::snapshot::{ObjectIndex, Snapshot};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The first line of a metrics file.
pub const FORMAT: &str = "membound-shape 1";
/// Histograms have at least the bins 0..=3, as in the paper's tables.
const MIN_LAST_BIN: usize = 3;

/// One class in one snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    pub objects: u64,
    /// `in_degree[k]`: objects with backbone in-degree k.
    #[serde(rename = "in")]
    pub in_degree: Vec<u64>,
    #[serde(rename = "out")]
    pub out_degree: Vec<u64>,
}

/// What is learned about one class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassShape {
    /// Per bin (`0`, `1`, …, `>3`): `n-1`, `1 | n`, or `12.50%..25.00%`.
    #[serde(rename = "in")]
    pub in_degree: BTreeMap<String, String>,
    #[serde(rename = "out")]
    pub out_degree: BTreeMap<String, String>,
    pub samples: Vec<Sample>,
}

/// A metrics file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShapeFile {
    pub format: String,
    pub classes: BTreeMap<String, ClassShape>,
}

/// The samples of one snapshot, per backbone class.
pub fn samples(snapshot: &Snapshot, selection: RootSelection) -> BTreeMap<String, Sample> {
    let in_scope = reachable(snapshot, selection);
    let types = recursive_types(snapshot, &in_scope);
    let mut in_degree = vec![0u64; snapshot.objects().len()];
    let mut out_degree = vec![0u64; snapshot.objects().len()];
    for from in 0..snapshot.objects().len() as ObjectIndex {
        let kind = types[snapshot.object(from).class as usize];
        if kind.is_none() || !in_scope[from as usize] {
            continue;
        }
        for reference in snapshot.references(from) {
            if types[snapshot.object(reference.target).class as usize] == kind {
                out_degree[from as usize] += 1;
                in_degree[reference.target as usize] += 1;
            }
        }
    }
    let mut by_class: BTreeMap<String, Sample> = BTreeMap::new();
    for (index, object) in snapshot.objects().iter().enumerate() {
        if !in_scope[index] || types[object.class as usize].is_none() {
            continue;
        }
        let sample = by_class
            .entry(snapshot.class(object.class).name.clone())
            .or_insert_with(|| Sample {
                objects: 0,
                in_degree: Vec::new(),
                out_degree: Vec::new(),
            });
        sample.objects += 1;
        bump(&mut sample.in_degree, in_degree[index]);
        bump(&mut sample.out_degree, out_degree[index]);
    }
    by_class
}

fn bump(histogram: &mut Vec<u64>, degree: u64) {
    let degree = usize::try_from(degree).unwrap_or(usize::MAX - 1);
    if histogram.len() <= degree {
        histogram.resize(degree + 1, 0);
    }
    histogram[degree] += 1;
}

/// The expressions a fixed metric may be.
const EXPRESSIONS: [&str; 6] = ["0", "1", "2", "n", "n-1", "n-2"];

fn evaluate(expression: &str, n: u64) -> Option<u64> {
    match expression {
        "0" => Some(0),
        "1" => Some(1),
        "2" => Some(2),
        "n" => Some(n),
        "n-1" => n.checked_sub(1),
        "n-2" => n.checked_sub(2),
        _ => None,
    }
}

/// A bin's count in a histogram: bin `k`, or everything above the last bin `>k`.
fn count_in(histogram: &[u64], bin: &Bin) -> u64 {
    match *bin {
        Bin::Exactly(k) => histogram.get(k).copied().unwrap_or(0),
        Bin::Above(k) => histogram.iter().skip(k + 1).sum(),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bin {
    Exactly(usize),
    Above(usize),
}

impl Bin {
    fn parse(text: &str) -> Option<Bin> {
        match text.strip_prefix('>') {
            Some(k) => k.parse().ok().map(Bin::Above),
            None => text.parse().ok().map(Bin::Exactly),
        }
    }

    fn name(self) -> String {
        match self {
            Bin::Exactly(k) => k.to_string(),
            Bin::Above(k) => format!(">{k}"),
        }
    }
}

/// A metric as the file writes it.
#[derive(Debug, Clone, PartialEq)]
enum Metric {
    Fixed(Vec<String>),
    /// Shares in percent.
    Range(f64, f64),
}

impl Metric {
    fn parse(text: &str) -> Option<Metric> {
        if let Some((low, high)) = text.split_once("..") {
            let percent = |t: &str| t.trim().strip_suffix('%')?.parse::<f64>().ok();
            return Some(Metric::Range(percent(low)?, percent(high)?));
        }
        let expressions: Vec<String> = text.split('|').map(|e| e.trim().to_owned()).collect();
        expressions
            .iter()
            .all(|e| EXPRESSIONS.contains(&e.as_str()))
            .then_some(Metric::Fixed(expressions))
    }

    fn text(&self) -> String {
        match self {
            Metric::Fixed(expressions) => expressions.join(" | "),
            Metric::Range(low, high) => format!("{low:.2}%..{high:.2}%"),
        }
    }
}

/// The metrics of one histogram over the samples (`histogram` picks in or out).
fn learn_metrics(samples: &[Sample], histogram: fn(&Sample) -> &[u64]) -> BTreeMap<String, String> {
    let last = samples
        .iter()
        .map(|s| histogram(s).len().saturating_sub(1))
        .max()
        .unwrap_or(0)
        .max(MIN_LAST_BIN);
    let bins = (0..=last).map(Bin::Exactly).chain([Bin::Above(last)]);
    bins.map(|bin| {
        let counts: Vec<(u64, u64)> = samples
            .iter()
            .map(|s| (count_in(histogram(s), &bin), s.objects))
            .collect();
        let fixed: Vec<String> = EXPRESSIONS
            .iter()
            .filter(|e| counts.iter().all(|&(c, n)| evaluate(e, n) == Some(c)))
            .map(|e| (*e).to_owned())
            .collect();
        let metric = if fixed.is_empty() {
            let shares = counts
                .iter()
                .map(|&(c, n)| 100.0 * c as f64 / n.max(1) as f64);
            let low = shares.clone().fold(f64::INFINITY, f64::min);
            let high = shares.fold(f64::NEG_INFINITY, f64::max);
            Metric::Range((low * 100.0).floor() / 100.0, (high * 100.0).ceil() / 100.0)
        } else {
            Metric::Fixed(fixed)
        };
        (bin.name(), metric.text())
    })
    .collect()
}

impl ShapeFile {
    pub fn new() -> ShapeFile {
        ShapeFile {
            format: FORMAT.to_owned(),
            classes: BTreeMap::new(),
        }
    }

    /// Adds one snapshot's samples and recomputes the metrics of the classes it has.
    pub fn learn(&mut self, samples: BTreeMap<String, Sample>) {
        for (class, sample) in samples {
            let entry = self.classes.entry(class).or_insert_with(|| ClassShape {
                in_degree: BTreeMap::new(),
                out_degree: BTreeMap::new(),
                samples: Vec::new(),
            });
            entry.samples.push(sample);
            entry.in_degree = learn_metrics(&entry.samples, |s| &s.in_degree);
            entry.out_degree = learn_metrics(&entry.samples, |s| &s.out_degree);
        }
    }

    /// Reads a metrics file's text.
    pub fn parse(text: &str, origin: &str) -> Result<ShapeFile> {
        let file: ShapeFile = serde_norway::from_str(text)
            .map_err(|e| Error::Input(format!("{origin} is not a shape metrics file: {e}")))?;
        if file.format != FORMAT {
            return Err(Error::Input(format!(
                "{origin} is of format `{}`, this membound reads `{FORMAT}`",
                file.format
            )));
        }
        for (class, shape) in &file.classes {
            for (bin, metric) in shape.in_degree.iter().chain(&shape.out_degree) {
                if Bin::parse(bin).is_none() || Metric::parse(metric).is_none() {
                    return Err(Error::Input(format!(
                        "{origin}: class {class}: bad metric `{bin}: {metric}` (a bin is 0, 1, … or >k; a metric is 0, 1, 2, n, n-1, n-2 joined by |, or low%..high%)"
                    )));
                }
            }
        }
        Ok(file)
    }

    pub fn to_yaml(&self) -> String {
        let body = serde_norway::to_string(self).unwrap_or_default();
        format!(
            "# Degree metrics per class of a recursive backbone (membound heap shape learn).\n# `in`/`out`: per degree bin, a fixed count (0, 1, 2, n, n-1, n-2; n the class's objects)\n# or a range of shares; `check` enforces the metrics as written here.\n{body}"
        )
    }

    /// Checks one snapshot's samples.
    pub fn check(&self, moment: &str, samples: &BTreeMap<String, Sample>) -> Vec<Finding> {
        let mut findings = Vec::new();
        for (class, sample) in samples {
            let Some(shape) = self.classes.get(class) else {
                continue;
            };
            for (direction, metrics, histogram) in [
                ("in", &shape.in_degree, &sample.in_degree),
                ("out", &shape.out_degree, &sample.out_degree),
            ] {
                for (bin, metric) in metrics {
                    let (Some(bin), Some(metric)) = (Bin::parse(bin), Metric::parse(metric)) else {
                        continue;
                    };
                    if let Some(finding) =
                        check_metric(class, direction, bin, &metric, histogram, sample.objects)
                    {
                        findings.push(Finding {
                            moment: moment.to_owned(),
                            ..finding
                        });
                    }
                }
            }
        }
        findings
    }
}

impl Default for ShapeFile {
    fn default() -> Self {
        ShapeFile::new()
    }
}

/// A broken fixed metric, or a share out of its range.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub moment: String,
    pub class: String,
    /// `in-degree 1`, `out-degree >3`.
    pub metric: String,
    /// What was learned: `n-1`, `10.00%..20.00%`.
    pub expected: String,
    /// How many objects of the class are in the bin, of how many.
    pub value: u64,
    pub objects: u64,
    /// True for a fixed metric (exit 1), false for a range (a warning).
    pub fixed: bool,
}

fn check_metric(
    class: &str,
    direction: &str,
    bin: Bin,
    metric: &Metric,
    histogram: &[u64],
    objects: u64,
) -> Option<Finding> {
    let value = count_in(histogram, &bin);
    let (holds, fixed) = match metric {
        Metric::Fixed(expressions) => (
            expressions
                .iter()
                .any(|e| evaluate(e, objects) == Some(value)),
            true,
        ),
        Metric::Range(low, high) => {
            let share = 100.0 * value as f64 / objects.max(1) as f64;
            (share >= *low - 1e-9 && share <= *high + 1e-9, false)
        }
    };
    (!holds).then(|| Finding {
        moment: String::new(),
        class: class.to_owned(),
        metric: format!("{direction}-degree {}", bin.name()),
        expected: metric.text(),
        value,
        objects,
        fixed,
    })
}

impl Finding {
    pub fn text(&self) -> String {
        let kind = if self.fixed { "BROKEN" } else { "warning" };
        format!(
            "{kind}: {} at {}: {} = {} of {} objects, learned {}",
            self.class, self.moment, self.metric, self.value, self.objects, self.expected
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::tests::tiny;

    fn list(length: u64, back_to: Option<u64>) -> Snapshot {
        let objects: Vec<(&str, Vec<(&str, u64)>)> = (1..=length)
            .map(|i| {
                let next = match (i < length, back_to) {
                    (true, _) => vec![("next", i + 1), ("data", 100)],
                    (false, Some(target)) => vec![("next", target)],
                    (false, None) => vec![],
                };
                ("Node", next)
            })
            .collect();
        let borrowed: Vec<(&str, &[(&str, u64)])> =
            objects.iter().map(|(c, f)| (*c, f.as_slice())).collect();
        tiny(&borrowed, &[("Main.head", 1)])
    }

    #[test]
    fn a_list_learns_the_papers_metrics() {
        let mut file = ShapeFile::new();
        for length in [5, 9, 12] {
            file.learn(samples(&list(length, None), RootSelection::All));
        }
        let node = &file.classes["Node"];
        assert_eq!(node.in_degree["0"], "1");
        assert_eq!(node.in_degree["1"], "n-1");
        assert_eq!(node.in_degree["2"], "0");
        assert_eq!(node.out_degree["0"], "1");
        assert_eq!(node.out_degree[">3"], "0");
        assert!(
            file.check("ok", &samples(&list(30, None), RootSelection::All))
                .is_empty()
        );
    }

    #[test]
    fn a_list_spoiled_into_a_cycle_breaks_fixed_metrics() {
        let mut file = ShapeFile::new();
        file.learn(samples(&list(6, None), RootSelection::All));
        file.learn(samples(&list(10, None), RootSelection::All));
        let findings = file.check("gc 1", &samples(&list(8, Some(4)), RootSelection::All));
        let broken: Vec<String> = findings
            .iter()
            .filter(|f| f.fixed)
            .map(|f| format!("{} {} {}", f.metric, f.value, f.expected))
            .collect();
        assert!(
            broken.contains(&"in-degree 1 6 n-1".to_owned()),
            "{broken:?}"
        );
        assert!(broken.contains(&"in-degree 2 1 0".to_owned()), "{broken:?}");
        assert!(
            broken.contains(&"out-degree 0 0 1".to_owned()),
            "{broken:?}"
        );
    }

    #[test]
    fn samples_that_cannot_tell_expressions_apart_keep_them_all() {
        let mut file = ShapeFile::new();
        file.learn(samples(&list(2, None), RootSelection::All));
        assert_eq!(file.classes["Node"].in_degree["0"], "1 | n-1");
        // A later sample decides.
        file.learn(samples(&list(7, None), RootSelection::All));
        assert_eq!(file.classes["Node"].in_degree["0"], "1");
    }

    #[test]
    fn ranges_warn_and_the_file_reads_back() {
        let tree = |leaves: &[(&str, &[(&str, u64)])]| tiny(leaves, &[("M.t", 1)]);
        let mut file = ShapeFile::new();
        file.learn(samples(
            &tree(&[("T", &[("l", 2), ("r", 3)]), ("T", &[]), ("T", &[])]),
            RootSelection::All,
        ));
        file.learn(samples(
            &tree(&[
                ("T", &[("l", 2), ("r", 3)]),
                ("T", &[("l", 4)]),
                ("T", &[]),
                ("T", &[]),
            ]),
            RootSelection::All,
        ));
        // Two leaves each time: fixed; one inner node with one child once: a range.
        assert_eq!(file.classes["T"].out_degree["0"], "2");
        assert_eq!(file.classes["T"].out_degree["1"], "0.00%..25.00%");
        let text = file.to_yaml();
        let back = ShapeFile::parse(&text, "metrics.yaml").expect("reads back");
        assert_eq!(back, file);
        assert!(ShapeFile::parse("format: other\nclasses: {}\n", "x").is_err());
        let edited = text.replace("0.00%..25.00%", "fifty");
        assert!(ShapeFile::parse(&edited, "x").is_err());
    }
}

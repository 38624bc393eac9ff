//! The performance table of issue 18: whole programs from `main` (the JOlden-style programs,
//! whose mains parse their arguments as the originals do, with a `usage()` that calls
//! `System.exit`, `static Random` fields, Enumeration loops and `throw new …`) and listed methods
//! of the Debian library jars. Each row is analyzed in a child process ([`crate::analysis`]) and
//! shows its time, the child's peak resident memory, its creation sites, whether the bound is
//! finite or why it is ∞, and the targets (≤ 5 s and ≤ 500 MB on two cores) met or missed. Every
//! analyzed row is also validated against one real run under the agent, as the suite's rows are:
//! a main runs its program, a library method runs a driver of `drivers/` that calls it.

use std::fmt::Write;
use std::path::Path;

use crate::analysis::{self, Analysis, Limits};
use crate::check::{self, Checked};
use crate::report::{INFINITY, cell, infinity_reasons};
use crate::setup::WorkDir;

/// The jars the library rows and the sample come from (installed by Debian's packages).
pub const JARS: &[&str] = &[
    "/usr/share/java/commons-lang3.jar",
    "/usr/share/java/commons-collections4.jar",
    "/usr/share/java/guava.jar",
];

/// The targets of issue 18 for every main and listed method.
pub const TARGET_SECONDS: f64 = 5.0;
pub const TARGET_MB: u64 = 500;

/// Where a row's classes are: the compiled programs, or the drivers beside the unpacked jars.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    Programs,
    Drivers,
}

/// One analyzed method and the run that validates it.
#[derive(Debug)]
pub struct Row {
    pub input: Input,
    /// The selector the analysis is given (overloads by Java parameter types).
    pub method: &'static str,
    /// The class whose main runs, and its arguments.
    pub main: &'static str,
    pub args: &'static [&'static str],
}

const fn row(
    input: Input,
    method: &'static str,
    main: &'static str,
    args: &'static [&'static str],
) -> Row {
    Row {
        input,
        method,
        main,
        args,
    }
}

const fn program(main: &'static str, method: &'static str, args: &'static [&'static str]) -> Row {
    row(Input::Programs, method, main, args)
}

const fn library(method: &'static str, driver: &'static str, args: &'static [&'static str]) -> Row {
    row(Input::Drivers, method, driver, args)
}

/// The rows: each JOlden-style program's main, then StringUtils.join/split/repeat and three
/// representative methods each of commons-collections4 and guava (a union of lists, adding an
/// array to a collection, draining an iterator; repeating a string, a list from varargs, joining
/// an iterable).
pub const ROWS: &[Row] = &[
    program("bh.BH", "bh.BH.main", &["-b", "20", "-s", "2"]),
    program("bisort.BiSort", "bisort.BiSort.main", &["-s", "64"]),
    program("em3d.Em3d", "em3d.Em3d.main", &["-n", "20", "-d", "6"]),
    program(
        "health.Health",
        "health.Health.main",
        &["-l", "3", "-t", "30"],
    ),
    program("mst.MST", "mst.MST.main", &["-v", "20"]),
    program(
        "perimeter.Perimeter",
        "perimeter.Perimeter.main",
        &["-l", "4"],
    ),
    program(
        "power.Power",
        "power.Power.main",
        &["-f", "2", "-l", "3", "-b", "4", "-n", "5", "-i", "2"],
    ),
    program("treeadd.TreeAdd", "treeadd.TreeAdd.main", &["-l", "6"]),
    program("tsp.TSP", "tsp.TSP.main", &["-c", "50"]),
    program("voronoi.Voronoi", "voronoi.Voronoi.main", &["-n", "30"]),
    library(
        "org.apache.commons.lang3.StringUtils.join(Object[],String)",
        "drivers.Lang3",
        &["join", "20"],
    ),
    library(
        "org.apache.commons.lang3.StringUtils.split(String,String)",
        "drivers.Lang3",
        &["split", "20"],
    ),
    library(
        "org.apache.commons.lang3.StringUtils.repeat(String,int)",
        "drivers.Lang3",
        &["repeat", "20"],
    ),
    library(
        "org.apache.commons.collections4.ListUtils.union(List,List)",
        "drivers.Collections4",
        &["union", "20"],
    ),
    library(
        "org.apache.commons.collections4.CollectionUtils.addAll(Collection,Object[])",
        "drivers.Collections4",
        &["addAll", "20"],
    ),
    library(
        "org.apache.commons.collections4.IteratorUtils.toList(Iterator)",
        "drivers.Collections4",
        &["toList", "20"],
    ),
    library(
        "com.google.common.base.Strings.repeat(String,int)",
        "drivers.Guava",
        &["repeat", "20"],
    ),
    library(
        "com.google.common.collect.Lists.newArrayList(Object[])",
        "drivers.Guava",
        &["newArrayList", "20"],
    ),
    library(
        "com.google.common.base.Joiner.join(Iterable)",
        "drivers.Guava",
        &["join", "20"],
    ),
];

/// What the harness found for one row.
pub struct RowResult {
    pub row: &'static Row,
    pub analysis: Analysis,
    /// The validating run, when the analysis finished.
    pub run: Option<Result<Checked, String>>,
}

impl RowResult {
    /// A run with a prediction below what it allocated.
    pub fn unsound(&self) -> bool {
        matches!(&self.run, Some(Ok(c)) if c.validation.broken().next().is_some())
    }

    /// An analysis or a run that failed (a limit reached is not a failure).
    pub fn error(&self) -> bool {
        matches!(self.analysis, Analysis::Failed(_)) || matches!(self.run, Some(Err(_)))
    }
}

/// Analyzes and validates every row whose method contains one of `only` (all when empty).
pub fn measure(work: &WorkDir, agent: &Path, limits: Limits, only: &[String]) -> Vec<RowResult> {
    let rows: Vec<&'static Row> = ROWS
        .iter()
        .filter(|r| only.is_empty() || only.iter().any(|o| r.method.contains(o.as_str())))
        .collect();
    let mut results = Vec::new();
    for (index, row) in rows.iter().enumerate() {
        eprint!("[programs {}/{}] {}: ", index + 1, rows.len(), row.method);
        let input = match row.input {
            Input::Programs => work.classes(),
            Input::Drivers => work.drivers(),
        };
        let (out, messages) = work.certificate(row.method);
        let analysis = analysis::analyze_input(&input, row.method, (&out, &messages), limits);
        let run = match &analysis {
            Analysis::Done { certificate, .. } => {
                let args = row.args.iter().map(|a| (*a).to_string()).collect();
                Some(check::check(certificate, &input, agent, row.main, args))
            }
            Analysis::Stopped { .. } | Analysis::Failed(_) => None,
        };
        eprintln!("{}", outcome(&analysis));
        results.push(RowResult { row, analysis, run });
    }
    results
}

/// The table in Markdown, with the targets and how many rows meet them; `load` is the load
/// average of the machine before and after the rows were measured.
pub fn render(results: &[RowResult], load: &(String, String)) -> String {
    let met = results
        .iter()
        .filter(|r| targets(&r.analysis).is_none())
        .count();
    let finite = results.iter().filter(|r| is_finite(&r.analysis)).count();
    let mut out = format!(
        "Targets (issue 18): each row analyzed in ≤ {TARGET_SECONDS} s and ≤ {TARGET_MB} MB of \
         peak resident memory (the analysis's child process, `VmHWM`). Met by {met} of {} rows; \
         {finite} finite, {} ∞ or not finished. Each analyzed row is validated against the run \
         shown (a main runs its program, a library method a driver of `drivers/` that calls it). \
         1-minute load average of the machine (2 cores) before and after: {} and {}.\n\n\
         | Method | Time | Peak memory | #CS | Bound | Run | #Objs | Estim | Targets |\n\
         |---|---|---|---|---|---|---|---|---|\n",
        results.len(),
        results.len() - finite,
        load.0,
        load.1,
    );
    for result in results {
        let (observed, estimate) = match &result.run {
            Some(Ok(checked)) if checked.validation.unchecked.is_some() => (
                format!(
                    "not checked: {}",
                    cell(checked.validation.unchecked.as_deref().unwrap_or_default())
                ),
                String::new(),
            ),
            Some(Ok(checked)) => checked.total("objects").map_or_else(
                || ("—".to_string(), String::new()),
                |c| {
                    (
                        c.observed.to_string(),
                        membound_certificate::value_text(&c.predicted),
                    )
                },
            ),
            Some(Err(message)) => (format!("error: {}", cell(message)), String::new()),
            None => (String::new(), String::new()),
        };
        let unsound = if result.unsound() { " UNSOUND" } else { "" };
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | `{} {}` | {observed} | {estimate}{unsound} | {} |",
            result.row.method,
            seconds_text(&result.analysis),
            peak_text(result.analysis.peak_kb()),
            sites_text(&result.analysis),
            bound_text(&result.analysis),
            result.row.main,
            result.row.args.join(" "),
            targets(&result.analysis).unwrap_or_else(|| "met".to_string()),
        );
    }
    out
}

/// One line of progress for an analysis.
pub fn outcome(analysis: &Analysis) -> String {
    format!(
        "{} ({}), {}",
        seconds_text(analysis),
        peak_text(analysis.peak_kb()),
        bound_text(analysis)
    )
}

/// Whether the analysis finished with a finite memAlloc, in objects and in bytes.
pub fn is_finite(analysis: &Analysis) -> bool {
    let Analysis::Done { certificate, .. } = analysis else {
        return false;
    };
    certificate
        .method(&certificate.entry.method)
        .is_ok_and(|e| e.mem_alloc.objects != INFINITY && e.mem_alloc.bytes != INFINITY)
}

/// "finite", or ∞ with its reasons (the first three, and how many more), or how the analysis
/// ended when it did not finish.
pub fn bound_text(analysis: &Analysis) -> String {
    match analysis {
        Analysis::Stopped { why, .. } => format!("not finished: {}", cell(why)),
        Analysis::Failed(message) => format!("analysis error: {}", cell(message)),
        Analysis::Done { .. } if is_finite(analysis) => "finite".to_string(),
        Analysis::Done { certificate, .. } => {
            let reasons: Vec<String> = certificate
                .method(&certificate.entry.method)
                .map(infinity_reasons)
                .unwrap_or_default()
                .into_iter()
                .map(|(reason, _)| shortened(&cell(&reason)))
                .collect();
            let shown = reasons
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ");
            match reasons.len() {
                0 => "∞ (no reason given)".to_string(),
                1..=3 => format!("∞: {shown}"),
                n => format!("∞: {shown}; and {} more", n - 3),
            }
        }
    }
}

/// A reason cut to [`REASON_CHARS`] characters: a table cell names the cause, the certificate
/// keeps the whole text.
fn shortened(reason: &str) -> String {
    match reason.char_indices().nth(REASON_CHARS) {
        Some((end, _)) => format!("{}…", &reason[..end]),
        None => reason.to_string(),
    }
}

const REASON_CHARS: usize = 160;

/// Which targets the analysis missed, or None when it met both.
fn targets(analysis: &Analysis) -> Option<String> {
    let mut missed = Vec::new();
    match analysis {
        Analysis::Failed(_) => return Some("miss: no analysis".to_string()),
        Analysis::Stopped { seconds, .. } | Analysis::Done { seconds, .. } => {
            if matches!(analysis, Analysis::Stopped { .. }) || *seconds > TARGET_SECONDS {
                missed.push(format!("time > {TARGET_SECONDS} s"));
            }
        }
    }
    match analysis.peak_kb() {
        Some(kb) if kb > TARGET_MB * 1024 => missed.push(format!("memory > {TARGET_MB} MB")),
        Some(_) => {}
        None => missed.push("memory unknown".to_string()),
    }
    (!missed.is_empty()).then(|| format!("miss: {}", missed.join(", ")))
}

pub fn seconds_text(analysis: &Analysis) -> String {
    match analysis {
        Analysis::Done { seconds, .. } => format!("{seconds:.2} s"),
        Analysis::Stopped { seconds, .. } => format!("> {seconds:.0} s"),
        Analysis::Failed(_) => String::new(),
    }
}

pub fn peak_text(peak_kb: Option<u64>) -> String {
    peak_kb.map_or_else(|| "?".to_string(), |kb| format!("{} MB", kb.div_ceil(1024)))
}

fn sites_text(analysis: &Analysis) -> String {
    match analysis {
        Analysis::Done { certificate, .. } => certificate
            .method(&certificate.entry.method)
            .map_or_else(|_| String::new(), |e| e.sites.len().to_string()),
        Analysis::Stopped { .. } | Analysis::Failed(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_named_once_and_runs_with_arguments() {
        let mut methods: Vec<_> = ROWS.iter().map(|r| r.method).collect();
        methods.sort_unstable();
        methods.dedup();
        assert_eq!(methods.len(), ROWS.len());
        assert!(ROWS.iter().all(|r| !r.args.is_empty()));
        let mains = ROWS.iter().filter(|r| r.input == Input::Programs).count();
        assert_eq!(mains, 10, "one main per JOlden-style program");
    }

    #[test]
    fn a_limit_reached_misses_the_time_target_and_a_large_peak_the_memory_one() {
        let stopped = Analysis::Stopped {
            why: "timeout after 30 s".to_string(),
            seconds: 30.1,
            peak_kb: Some(200 * 1024),
        };
        assert_eq!(targets(&stopped).as_deref(), Some("miss: time > 5 s"));
        assert_eq!(bound_text(&stopped), "not finished: timeout after 30 s");
        let heavy = Analysis::Stopped {
            why: "over 4000 MB of memory".to_string(),
            seconds: 3.0,
            peak_kb: Some(4001 * 1024),
        };
        assert_eq!(
            targets(&heavy).as_deref(),
            Some("miss: time > 5 s, memory > 500 MB")
        );
    }
}

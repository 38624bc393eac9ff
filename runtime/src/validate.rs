//! `membound validate`: a certificate against a real run. The program runs under the agent
//! ([`crate::measure`]); the certificate is evaluated at the parameter values the agent recorded
//! at each entry of the watched method (or at values the user gives), summed over the entries;
//! each parameter is bound by its origin (a declared parameter, an array's or string's length, a
//! collection's size, a field of `this`, a static field, a static or a local the method fixes
//! itself, recorded after the instruction that fixes it: [`Binding`]); a parameter the run has
//! no value for (unless the user gives it) leaves the predictions that mention it not
//! compared, and the run not checked when the method's total is one of them;
//! and every prediction — per creation site, and the method's total — must be at least what the
//! run allocated. Objects are always compared; bytes only when the certificate's object model
//! is a HotSpot one (the `count` model's units are not bytes).
//!
//! It does not analyze: the certificate is taken as written, which is how an edited or stale
//! certificate is caught.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write;

use membound_polyhedra::{Int, Rat, Value};
use serde_json::{Value as Json, json};

use crate::measure::{
    self, Allocation, ChainLength, EntryRecording, EntryValues, MeasureOptions, Measurement,
    Placement, SiteCount,
};
use membound_certificate::{Certificate, MethodEntry, SiteEntry, value_of, value_text};
use membound_jvm::error::{Error, Result};

/// Observed against predicted, for one site or one method total.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// `total` or the site's chain and type.
    pub what: String,
    pub quantity: &'static str,
    pub observed: u64,
    pub predicted: Value,
}

impl Comparison {
    /// A prediction below the observation: the certificate is unsound for this run.
    pub fn is_broken(&self) -> bool {
        match &self.predicted {
            Value::Infinite => false,
            Value::Finite(bound) => *bound < Rat::from(Int::from(self.observed)),
        }
    }
}

/// The outcome of a validation.
#[derive(Clone, Debug)]
pub struct Validation {
    pub method: String,
    /// The parameter values of each entry the predictions were evaluated at.
    pub points: Vec<BTreeMap<String, Rat>>,
    pub comparisons: Vec<Comparison>,
    /// Predictions not compared (`what quantity`): they need a parameter the run does not
    /// record, which `missing` names.
    pub not_compared: Vec<String>,
    /// Why some parameter has no value, when one has none (its total still compared).
    pub missing: Option<String>,
    pub warnings: Vec<String>,
    /// Why nothing could be compared: a parameter whose value the run does not record (an
    /// origin of no known form, a fixed value whose instruction the run never got past) and
    /// that was not given, or a broken assumption.
    /// There are then no comparisons.
    pub unchecked: Option<String>,
    /// Assumptions of the certificate the run breaks (a chain it takes to be acyclic found
    /// cyclic at an entry), naming the root: the bounds do not apply to this run, which is
    /// `unchecked` too.
    pub broken_assumptions: Vec<String>,
    /// With `--check-regions`: objects of the certificate's regions still reachable when
    /// their region's activation had returned.
    pub regions: Option<measure::RegionCheckReport>,
}

impl Validation {
    pub fn broken(&self) -> impl Iterator<Item = &Comparison> {
        self.comparisons.iter().filter(|c| c.is_broken())
    }

    /// Whether the run shows the certificate wrong: a prediction below it, an assumption it
    /// breaks, or a region whose objects outlive it.
    pub fn failed(&self) -> bool {
        self.broken().next().is_some()
            || !self.broken_assumptions.is_empty()
            || self.regions.as_ref().is_some_and(|r| !r.broken.is_empty())
    }
}

/// Compares `measurement` of `method` with `certificate`. `given` values override recorded ones.
pub fn validate(
    certificate: &Certificate,
    method: &str,
    measurement: &Measurement,
    given: &BTreeMap<String, Rat>,
) -> Result<Validation> {
    let entry = certificate.method(method)?;
    let nothing_compared = |unchecked, broken_assumptions| Validation {
        method: entry.method.clone(),
        points: Vec::new(),
        comparisons: Vec::new(),
        not_compared: Vec::new(),
        missing: None,
        warnings: measurement.warnings.clone(),
        unchecked,
        broken_assumptions,
        regions: measurement.region_check.clone(),
    };
    let broken = broken_assumptions(entry, measurement);
    if !broken.is_empty() {
        let reason =
            "the run breaks an assumption of the certificate: the bounds do not apply to this run";
        return Ok(nothing_compared(Some(reason.to_string()), broken));
    }
    let points = entry_points(entry, measurement, given);
    let bytes_compared = certificate.tool.object_model != "count";
    let mut compared = Compared {
        entry,
        points: &points,
        comparisons: Vec::new(),
        not_compared: Vec::new(),
    };
    // The total is the certificate's claim: without it, nothing is checked.
    if !compared.predicts(&entry.mem_alloc.objects)? {
        let why = points.why.clone().unwrap_or_default();
        return Ok(nothing_compared(Some(why), Vec::new()));
    }
    compared.against_text(
        "total",
        "objects",
        measurement.total.objects,
        &entry.mem_alloc.objects,
    )?;
    if bytes_compared {
        compared.against_text(
            "total",
            "bytes",
            measurement.total.bytes,
            &entry.mem_alloc.bytes,
        )?;
    }
    let specs = SpecMethods::of(certificate);
    let sight = Sight::of(certificate);
    let (under_specs, direct): (Vec<&SiteCount>, Vec<&SiteCount>) =
        measurement.sites.iter().partition(|site| {
            let chain = &site.chain[..sight.ends.end(frames(&site.chain))];
            specs
                .first_on(chain.iter().map(|f| f.method.as_str()))
                .is_some()
        });
    // What a spec calls back (a stream stage's function, which the terminal operation runs)
    // allocates under the spec'd call that runs it, while the certificate counts it through
    // the call that handed the function over: compared per allocating instruction.
    let (called_back, under_specs): (Vec<&SiteCount>, Vec<&SiteCount>) =
        under_specs.into_iter().partition(|site| {
            let chain = &site.chain[..sight.ends.end(frames(&site.chain))];
            let methods: Vec<&str> = chain.iter().map(|f| f.method.as_str()).collect();
            calls_back(&methods, &specs, &sight.methods)
        });
    if let Some(group) = spec_group(entry, &specs, &under_specs) {
        compared.group(group, bytes_compared)?;
    }
    for (at, observed) in by_instruction(called_back, &sight.ends) {
        let predicted = entry
            .sites
            .iter()
            .filter(|site| *site.at.method == *at.0 && i64::from(site.at.offset) == at.1)
            .collect();
        let group = Group {
            what: format!(
                "{} {} (called back from a library spec)",
                membound_jvm::chain::step(&at.0, at.1, None),
                types(&observed)
            ),
            observed: &observed,
            predicted: Prediction::Sites(predicted),
        };
        compared.group(group, bytes_compared)?;
    }
    for (key, observed) in by_key(direct, &sight.ends) {
        let matching: Vec<_> = entry.sites.iter().filter(|s| key.names(s)).collect();
        let mut callee = None;
        let (unseen, seen): (Vec<&SiteCount>, Vec<&SiteCount>) =
            observed.iter().partition(|site| {
                let unseen_call = sight.unseen_call(&site.chain);
                callee = callee.or(unseen_call);
                unseen_call.is_some()
            });
        if !seen.is_empty() {
            let group = Group {
                what: format!("{} {}", key.text(), types(&seen)),
                observed: &seen,
                predicted: Prediction::Sites(matching),
            };
            compared.group(group, bytes_compared)?;
        }
        if let Some(callee) = callee {
            let group = Group {
                what: format!(
                    "{} {} (through {callee}, code the certificate does not see and counts as ∞)",
                    key.text(),
                    types(&unseen)
                ),
                observed: &unseen,
                predicted: Prediction::Unseen,
            };
            compared.group(group, bytes_compared)?;
        }
    }
    if let Some(mem_rq) = &entry.mem_rq {
        let peaks = points.values.iter().zip(&measurement.region_peaks);
        for (index, (point, entry_peak)) in peaks.enumerate() {
            let what = format!("memRq (entry {})", index + 1);
            let at_entry = |text: &str| -> Result<Option<Value>> {
                if points.misses(&entry.method, text)? {
                    return Ok(None);
                }
                value_of(&entry.method, text, point).map(Some)
            };
            let peak = &entry_peak.peak;
            compared.against(&what, "objects", peak.objects, at_entry(&mem_rq.objects)?);
            if bytes_compared {
                compared.against(&what, "bytes", peak.bytes, at_entry(&mem_rq.bytes)?);
            }
        }
    }
    let Compared {
        comparisons,
        not_compared,
        ..
    } = compared;
    Ok(Validation {
        method: entry.method.clone(),
        points: points.values.clone(),
        comparisons,
        not_compared,
        missing: (!points.missing.is_empty()).then(|| points.why.clone().unwrap_or_default()),
        warnings: measurement.warnings.clone(),
        unchecked: None,
        broken_assumptions: Vec::new(),
        regions: measurement.region_check.clone(),
    })
}

/// The comparisons of a validation as they are made: a prediction that needs a value the run
/// does not record is listed as not compared instead.
struct Compared<'a> {
    entry: &'a MethodEntry,
    points: &'a Points,
    comparisons: Vec<Comparison>,
    /// What could not be compared (`what`, `quantity`).
    not_compared: Vec<String>,
}

impl Compared<'_> {
    /// Whether the expression can be evaluated at every entry.
    fn predicts(&self, text: &str) -> Result<bool> {
        Ok(!self.points.misses(&self.entry.method, text)?)
    }

    fn against_text(
        &mut self,
        what: &str,
        quantity: &'static str,
        observed: u64,
        text: &str,
    ) -> Result<()> {
        let predicted = predict(self.entry, self.points, text)?;
        self.against(what, quantity, observed, predicted);
        Ok(())
    }

    fn against(
        &mut self,
        what: &str,
        quantity: &'static str,
        observed: u64,
        predicted: Option<Value>,
    ) {
        match predicted {
            Some(predicted) => self.comparisons.push(Comparison {
                what: what.to_string(),
                quantity,
                observed,
                predicted,
            }),
            None => self.not_compared.push(format!("{what} {quantity}")),
        }
    }

    /// Objects and, when compared, bytes: what the run allocated in the group against the
    /// predictions summed over the entries.
    fn group(&mut self, group: Group<'_>, bytes_compared: bool) -> Result<()> {
        let sum = |pick: fn(&SiteEntry) -> &String| -> Result<Option<Value>> {
            let Prediction::Sites(sites) = &group.predicted else {
                return Ok(Some(Value::Infinite));
            };
            let mut total = Value::Finite(Rat::from(0));
            for site in sites {
                match predict(self.entry, self.points, pick(site))? {
                    Some(value) => total = total + value,
                    None => return Ok(None),
                }
            }
            Ok(Some(total))
        };
        let objects = sum(|s| &s.objects)?;
        let bytes = bytes_compared.then(|| sum(|s| &s.bytes)).transpose()?;
        let observed = |pick: fn(&SiteCount) -> u64| group.observed.iter().map(|s| pick(s)).sum();
        self.against(&group.what, "objects", observed(|s| s.count), objects);
        if let Some(bytes) = bytes {
            self.against(&group.what, "bytes", observed(|s| s.bytes), bytes);
        }
        Ok(())
    }
}

/// Runs the program under the agent for validating `entry` of `certificate`: recording the
/// static fields its parameters come from and, when the certificate has memRq, replaying the
/// run into its regions; with `check_regions` (and regions in the certificate), the agent also
/// walks the heap at the exits of the methods whose regions hold objects, for the region check.
pub fn measure_for(
    certificate: &Certificate,
    entry: &MethodEntry,
    options: &MeasureOptions,
    check_regions: bool,
) -> Result<Measurement> {
    let recorded = || entry.params.iter().map(|param| binding(&param.origin));
    let statics: Vec<String> = recorded()
        .filter_map(|binding| match binding {
            Binding::Recorded(Recorded::Static { class, name }) => Some(format!("{class}.{name}")),
            Binding::Recorded(Recorded::StaticAfter { class, name, pc }) => {
                Some(format!("{class}.{name}@{pc}"))
            }
            Binding::Recorded(Recorded::StaticAt { class, name, pc }) => {
                Some(format!("{class}.{name}@at:{pc}"))
            }
            _ => None,
        })
        .collect();
    let locals: Vec<String> = recorded()
        .filter_map(|binding| match binding {
            Binding::Recorded(Recorded::LocalAfter { name, pc }) => Some(format!("{name}@{pc}")),
            _ => None,
        })
        .collect();
    if check_regions && entry.mem_rq.is_none() {
        return Err(Error::Input(format!(
            "the certificate has no regions for {}: nothing for --check-regions to check (analyze it again with this membound)",
            entry.method
        )));
    }
    let recording = EntryRecording {
        statics,
        locals,
        chains: recorded_chains(entry),
        regions: if check_regions {
            region_methods(certificate)
        } else {
            Vec::new()
        },
    };
    let regions = entry.mem_rq.is_some().then(|| measure::Regions {
        place: placement(certificate, entry, Freed::Earliest),
        check: check_regions.then(|| placement(certificate, entry, Freed::Certainly)),
    });
    measure::measure_recording(options, &recording, regions)
}

/// The methods at whose exits the region check walks the heap: those of the certificate whose
/// regions hold some site's objects, library specs left out (their objects are checked at the
/// exit of a caller, whose region ends later).
fn region_methods(certificate: &Certificate) -> Vec<String> {
    certificate
        .methods
        .iter()
        .filter(|m| m.spec.is_none())
        .filter(|m| {
            m.sites
                .iter()
                .any(|site| site.places(&m.method).is_some_and(|p| !p.escapes))
        })
        .map(|m| m.method.clone())
        .collect()
}

/// How a certificate parameter gets its value from a run, read from its origin.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Binding<'a> {
    /// A value the agent records at each entry of the method.
    Recorded(Recorded<'a>),
    /// An origin of no known form: bound by the parameter's name, as the run names values.
    ByName,
}

/// A value the agent records at an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Recorded<'a> {
    /// Declared parameter `i` (from 0), an integer.
    Parameter(usize),
    /// The length of array or `String` parameter `i`.
    Length(usize),
    /// `size()` of collection or map parameter `i`.
    Size(usize),
    /// The value of box parameter `i` (an `Integer`, …).
    Boxed(usize),
    /// The integer field `this.f`.
    ThisField(&'a str),
    /// The static integer field `class.name`, `class` the declaring class.
    Static { class: &'a str, name: &'a str },
    /// The static integer field `class.name` once the instruction at offset `pc` of the
    /// method (the store or the call that fixes it) completed: the agent records it there.
    StaticAfter {
        class: &'a str,
        name: &'a str,
        pc: u32,
    },
    /// The static integer field `class.name` when the method reaches offset `pc` (the exit of
    /// the loop that fixes it): the agent records it there.
    StaticAt {
        class: &'a str,
        name: &'a str,
        pc: u32,
    },
    /// The integer local `name` once the call (or store) at offset `pc` of the method set it.
    LocalAfter { name: &'a str, pc: u32 },
    /// The length of a chain, as the agent names it: `0/next`, `this.head/next`, `0.first/next`;
    /// or the size of a tree, its fields joined by `+`: `0/p.T.left+p.T.right`.
    Chain(String),
}

/// The binding an origin says, as `memalloc` and `lowering::fields` write origins:
/// `parameter 0 (int n)`, `length of parameter 1 (a)`, `size of parameter 2 (c)`, `value of
/// parameter 3 (java.lang.Integer b)`,
/// `field n of this`, `static field p.C.size`; fixed inside the method, and recorded once the
/// instruction that fixes them completed, are `static field p.C.size, written at main@12`,
/// `static field p.C.size, written by the call at main@1`, `static field p.C.size, once the
/// loop at main@2 exits to main@37` (recorded at the exit) and `local n set from a call's
/// result at main@3`.
fn binding(origin: &str) -> Binding<'_> {
    // `analyze --param NEW=OLD` appends `; named NEW by --param`.
    let origin = origin.split(';').next().unwrap_or(origin);
    let index = |rest: &str| rest.split(' ').next().and_then(|i| i.parse().ok());
    let recorded = if let Some(rest) = origin.strip_prefix("parameter ") {
        index(rest).map(Recorded::Parameter)
    } else if let Some(rest) = origin.strip_prefix("length of parameter ") {
        index(rest).map(Recorded::Length)
    } else if let Some(rest) = origin.strip_prefix("size of parameter ") {
        index(rest).map(Recorded::Size)
    } else if let Some(rest) = origin.strip_prefix("value of parameter ") {
        index(rest).map(Recorded::Boxed)
    } else if let Some(rest) = origin.strip_prefix("field ") {
        rest.strip_suffix(" of this")
            .filter(|name| !name.contains(' '))
            .map(Recorded::ThisField)
    } else if let Some(rest) = origin.strip_prefix("static field ") {
        if let Some((field, written)) = rest.split_once(", written ") {
            return static_after(field, written).map_or(Binding::ByName, Binding::Recorded);
        }
        if let Some((field, left)) = rest.split_once(", once the loop at ") {
            return static_at_exit(field, left).map_or(Binding::ByName, Binding::Recorded);
        }
        rest.rsplit_once('.')
            .filter(|(class, name)| !class.is_empty() && !name.is_empty() && !rest.contains(' '))
            .map(|(class, name)| Recorded::Static { class, name })
    } else if let Some(rest) = origin.strip_prefix("length of the chain from ") {
        chain_name(rest).map(Recorded::Chain)
    } else if let Some(rest) = origin.strip_prefix("size of the tree from ") {
        chain_name(rest).map(Recorded::Chain)
    } else if let Some(rest) = origin.strip_prefix("local ") {
        let (name, at) = rest
            .split_once(" set from a call's result at ")
            .unwrap_or_default();
        let pc = at.rsplit_once('@').and_then(|(_, pc)| pc.parse().ok());
        pc.filter(|_| !name.is_empty() && !name.contains(' '))
            .map(|pc| Recorded::LocalAfter { name, pc })
    } else {
        None
    };
    recorded.map_or(Binding::ByName, Binding::Recorded)
}

/// The static field `p.C.size` as `written` says it is fixed: `at main@12` (a store) or `by the
/// call at main@1`, in the method the origin belongs to.
fn static_after<'a>(field: &'a str, written: &str) -> Option<Recorded<'a>> {
    let at = written
        .strip_prefix("at ")
        .or_else(|| written.strip_prefix("by the call at "))?;
    let pc = at.rsplit_once('@')?.1.parse().ok()?;
    let (class, name) = class_and_field(field)?;
    Some(Recorded::StaticAfter { class, name, pc })
}

/// The static field `p.C.size` as the loop that fixes it leaves it: `main@4 exits to main@37`,
/// recorded when the method reaches the exit.
fn static_at_exit<'a>(field: &'a str, left: &str) -> Option<Recorded<'a>> {
    let (_, exit) = left.split_once(" exits to ")?;
    let pc = exit.rsplit_once('@')?.1.parse().ok()?;
    let (class, name) = class_and_field(field)?;
    Some(Recorded::StaticAt { class, name, pc })
}

/// `p.C.size` as its class and its name.
fn class_and_field(field: &str) -> Option<(&str, &str)> {
    field
        .rsplit_once('.')
        .filter(|(class, name)| !class.is_empty() && !name.is_empty() && !field.contains(' '))
}

/// The agent's name of the chain an origin's `length of the chain from <rest>` describes (the
/// field as the walk's instruction names it, `p.Node.next`), as `lowering::chains` writes it: `parameter 0 (first) along p.Node.next`, `field head of this
/// along …`, `field first of parameter 0 (list) along …`; or of the tree `size of the tree from
/// <rest>` does, its fields `along p.T.left, p.T.right` joined by `+`.
fn chain_name(rest: &str) -> Option<String> {
    let (root, field) = rest.rsplit_once(" along ")?;
    let param = |text: &str| -> Option<usize> {
        text.strip_prefix("parameter ")?
            .split(' ')
            .next()?
            .parse()
            .ok()
    };
    let root = match root.strip_prefix("field ") {
        Some(held) => {
            let (name, holder) = held.split_once(" of ")?;
            if holder == "this" {
                format!("this.{name}")
            } else {
                format!("{}.{name}", param(holder)?)
            }
        }
        None if root == "this" => root.to_string(),
        None => param(root)?.to_string(),
    };
    Some(format!("{root}/{}", field.replace(", ", "+")))
}

/// The chains the certificate's parameters of `entry` are lengths of, as the agent names them.
pub fn recorded_chains(entry: &MethodEntry) -> Vec<String> {
    entry
        .params
        .iter()
        .filter_map(|param| match binding(&param.origin) {
            Binding::Recorded(Recorded::Chain(chain)) => Some(chain),
            _ => None,
        })
        .collect()
}

/// The value `wanted` had at the entry `values` recorded; None when the run did not record it
/// (or recorded a null array, string or collection).
fn recorded_value(values: &EntryValues, wanted: &Recorded<'_>) -> Option<i64> {
    let parameter = |index: usize, kinds: &[&str]| {
        values
            .parameters
            .iter()
            .find(|p| p.index == index && kinds.contains(&p.kind.as_str()))
            .and_then(|p| p.value)
    };
    let field = |fields: &[measure::FieldValue], class: Option<&str>, name: &str| {
        // Fields of `this` come in resolution order: the first of a name is the one read.
        fields
            .iter()
            .find(|f| f.name == name && class.is_none_or(|c| c == f.class))
            .map(|f| f.value)
    };
    match *wanted {
        Recorded::Parameter(index) => parameter(index, &["int", "long"]),
        Recorded::Length(index) => parameter(index, &["array", "string"]),
        Recorded::Size(index) => parameter(index, &["collection", "map"]),
        Recorded::Boxed(index) => parameter(index, &["boxed"]),
        Recorded::ThisField(name) => field(&values.this_fields, None, name),
        Recorded::Static { class, name } => field(&values.statics, Some(class), name),
        // The stream names both by the offset the option gave.
        Recorded::StaticAfter { class, name, pc } | Recorded::StaticAt { class, name, pc } => {
            values
                .statics_after
                .iter()
                .find(|(at, f)| *at == pc && f.class == class && f.name == name)
                .map(|(_, f)| f.value)
        }
        Recorded::LocalAfter { name, pc } => values
            .locals_after
            .iter()
            .find(|local| local.pc == pc && local.name == name)
            .map(|local| local.value),
        Recorded::Chain(ref chain) => {
            values
                .chains
                .iter()
                .find(|c| c.chain == *chain)
                .and_then(|c| match c.length {
                    ChainLength::Nodes(count) => Some(count),
                    ChainLength::Cycle | ChainLength::Long | ChainLength::Shared => None,
                })
        }
    }
}

/// The parameter values the run gives at each entry of the watched method.
struct Points {
    /// Per entry, the values of the parameters it has one for.
    values: Vec<BTreeMap<String, Rat>>,
    /// The parameters some entry has no value for, not given with `--param`.
    missing: std::collections::BTreeSet<String>,
    /// Why, for the first of them.
    why: Option<String>,
}

impl Points {
    /// Whether the expression of `method` mentions a parameter without a value.
    fn misses(&self, method: &str, text: &str) -> Result<bool> {
        if self.missing.is_empty() {
            return Ok(false);
        }
        Ok(membound_certificate::params_of(method, text)?
            .iter()
            .any(|p| self.missing.contains(p)))
    }
}

/// The parameter values of each recorded entry, bound by origin ([`binding`]), with `given`
/// values taking precedence; the ones missing, and why.
fn entry_points(
    entry: &MethodEntry,
    measurement: &Measurement,
    given: &BTreeMap<String, Rat>,
) -> Points {
    let mut points = Points {
        values: Vec::new(),
        missing: Default::default(),
        why: None,
    };
    for values in &measurement.entries {
        let named = measure::named_values(values);
        let mut point = BTreeMap::new();
        for param in &entry.params {
            let recorded = match binding(&param.origin) {
                Binding::Recorded(wanted) => recorded_value(values, &wanted),
                // `a.length` is named `a_length` in a certificate.
                Binding::ByName => named
                    .iter()
                    .find(|(name, _)| name.replace('.', "_") == param.name)
                    .and_then(|(_, v)| *v),
            };
            let value = given
                .get(&param.name)
                .cloned()
                .or_else(|| recorded.map(Rat::from));
            let Some(value) = value else {
                points.missing.insert(param.name.clone());
                points.why.get_or_insert_with(|| {
                    format!(
                        "no value for parameter {} ({}) of {}: the run records {}; give --param {}=…",
                        param.name,
                        param.origin,
                        entry.method,
                        if named.is_empty() {
                            "no parameter".to_string()
                        } else {
                            named.keys().cloned().collect::<Vec<_>>().join(", ")
                        },
                        param.name
                    )
                });
                continue;
            };
            point.insert(param.name.clone(), value);
        }
        points.values.push(point);
    }
    points
}

/// The assumptions of `entry`'s parameters the run breaks at some entry: `ACYCLIC_CHAINS`,
/// when a chain a parameter is the length of is cyclic there (the agent's Floyd test at the
/// entry), or longer than the agent follows; `TREE_SHAPED`, when the walk of a tree a
/// parameter is the size of reaches a node twice, or more nodes than the agent follows. Each
/// names the entry, the root and the fields.
fn broken_assumptions(entry: &MethodEntry, measurement: &Measurement) -> Vec<String> {
    let mut broken = Vec::new();
    for (index, values) in measurement.entries.iter().enumerate() {
        for param in &entry.params {
            let Binding::Recorded(Recorded::Chain(chain)) = binding(&param.origin) else {
                continue;
            };
            let found = values.chains.iter().find(|c| c.chain == chain);
            let origin = param.origin.split(';').next().unwrap_or(&param.origin);
            let tree = origin.strip_prefix("size of ");
            let what = match found.map(|c| c.length) {
                Some(ChainLength::Cycle) => "is cyclic",
                Some(ChainLength::Shared) => "reaches a node twice (a shared subtree or a cycle)",
                Some(ChainLength::Long) if tree.is_some() => {
                    "has more nodes than the agent follows (2^24)"
                }
                Some(ChainLength::Long) => {
                    "is longer than the agent follows (2^24 nodes: a cycle, or too long)"
                }
                _ => continue,
            };
            let (assumption, chain) = match tree {
                Some(tree) => ("TREE_SHAPED", tree),
                None => (
                    "ACYCLIC_CHAINS",
                    origin.strip_prefix("length of ").unwrap_or(origin),
                ),
            };
            broken.push(format!(
                "{assumption} at entry {} of {}: {chain} {what} (parameter {})",
                index + 1,
                entry.method,
                param.name
            ));
        }
    }
    broken
}

/// The sum over the entries of the expression `text` of `entry`; None when it needs a value
/// the run does not give.
fn predict(entry: &MethodEntry, points: &Points, text: &str) -> Result<Option<Value>> {
    if points.misses(&entry.method, text)? {
        return Ok(None);
    }
    let mut total = Value::Finite(Rat::from(0));
    for point in &points.values {
        total = total + value_of(&entry.method, text, point)?;
    }
    Ok(Some(total))
}

/// Which region of the certificate [`placement`] puts an object in, when its site's objects
/// may go to several places.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Freed {
    /// The innermost region that may hold it: the method-region replay never frees later than
    /// the certificate does.
    Earliest,
    /// The innermost region that holds every object of its site (none when they may escape
    /// the watched method): the region check never calls an object captured that may escape.
    /// Only an allocation of the site's very type counts: a method handle's linkage objects,
    /// made (and cached) inside an `invokedynamic`, are not the instruction's objects.
    Certainly,
}

/// Where the certificate's regions put each object of a run of `entry`'s method: walking the
/// allocation's chain upwards, the first frame whose method's site (through that frame's call)
/// keeps the objects in its own region ([`Freed::Earliest`]: or in a callee's, then the
/// innermost frame below), or escaping. A site whose objects go to several places (some
/// captured, some escaping) is placed as `freed` says. An allocation no site of a frame names
/// escapes, the placement that frees it last.
pub fn placement<'c>(
    certificate: &'c Certificate,
    entry: &'c MethodEntry,
    freed: Freed,
) -> impl Fn(&Allocation) -> Placement + 'c {
    let specs = SpecMethods::of(certificate);
    let methods = Sight::of(certificate).methods;
    let ends = ChainEnds::of(certificate);
    let _ = entry;
    move |allocation| {
        let chain = &allocation.chain;
        let end = ends.end(chain.iter().map(|f| (&*f.method, f.offset)));
        let in_method_handles = chain
            .get(end)
            .is_some_and(|f| f.method.starts_with("java.lang.invoke."));
        if freed == Freed::Certainly && in_method_handles {
            return Placement::Escapes;
        }
        let frames = frames_in_sight(&chain[..end], &specs, &methods);
        let Some(last) = frames.last().map(|f| &chain[f.index]) else {
            return Placement::Escapes;
        };
        let under_spec = specs.contains(&last.method);
        for position in (0..frames.len()).rev() {
            let SeenFrame { index, calls_back } = frames[position];
            let frame = &chain[index];
            let Some(method) = methods.get(&*frame.method) else {
                return Placement::Escapes;
            };
            let via = (position + 1 < frames.len()).then_some(frame.offset);
            let site = method
                .sites
                .iter()
                .filter(|site| {
                    let site_via = site.via.as_ref().map(|v| i64::from(v.offset));
                    *site.at.method == *last.method
                        && (under_spec || i64::from(site.at.offset) == last.offset)
                        && (site_via == via || calls_back && site_via.is_some())
                        && (freed == Freed::Earliest || site.ty == allocation.type_name)
                })
                .max_by_key(|site| site.ty == allocation.type_name);
            let Some(places) = site.and_then(|site| site.places(&method.method)) else {
                return Placement::Escapes;
            };
            let below = frames.get(position + 1).map_or(index, |f| f.index);
            match freed {
                Freed::Earliest if places.here => return Placement::Frame(index),
                // Only callees' regions: the innermost frame below this one.
                Freed::Earliest if !places.escapes => return Placement::Frame(below),
                // Here or in callees' regions: gone when this frame returns.
                Freed::Certainly if !places.escapes => return Placement::Frame(index),
                Freed::Earliest | Freed::Certainly => {}
            }
        }
        Placement::Escapes
    }
}

/// A frame of an allocation's chain that the certificate describes: its index in the chain, and
/// whether it is a spec'd method's frame whose chain goes on in a call back into the program.
#[derive(Clone, Copy)]
struct SeenFrame {
    index: usize,
    calls_back: bool,
}

/// The frames of `chain` the certificate has sites for: a spec'd method's own code is not
/// analyzed, so below its frame the chain is the spec's (its allocations: the chain ends
/// there), unless it goes on in a method the certificate describes, one of the spec's calls
/// back into the program (`Arrays.sort` → `TimSort.binarySort` → a comparator's `compare`):
/// the spec's frame is then followed by that call's frame, its frames in between skipped (the
/// certificate names the call by the spec's own offset for it, not the library's).
fn frames_in_sight(
    chain: &[measure::Frame],
    specs: &SpecMethods<'_>,
    methods: &HashMap<&str, &MethodEntry>,
) -> Vec<SeenFrame> {
    let mut seen = Vec::new();
    let mut index = 0;
    while index < chain.len() {
        if !specs.contains(&chain[index].method) {
            seen.push(SeenFrame {
                index,
                calls_back: false,
            });
            index += 1;
            continue;
        }
        let callback = (index + 1..chain.len()).find(|&i| {
            let method = &*chain[i].method;
            !specs.contains(method) && methods.contains_key(method)
        });
        seen.push(SeenFrame {
            index,
            calls_back: callback.is_some(),
        });
        match callback {
            Some(callback) => index = callback,
            None => break,
        }
    }
    seen
}

/// An observed allocation's place in a certificate of the watched method: the call of the
/// method it went through (none for the method's own allocation) and the allocating
/// instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct SiteKey<'s> {
    via: Option<(&'s str, i64)>,
    at: (&'s str, i64),
}

impl SiteKey<'_> {
    /// Whether `site` is the certificate's site of this key.
    fn names(&self, site: &SiteEntry) -> bool {
        let step = |entry: &membound_certificate::ChainEntry, (method, offset): (&str, i64)| {
            entry.method == method && i64::from(entry.offset) == offset
        };
        step(&site.at, self.at)
            && match (&site.via, self.via) {
                (Some(via), Some(key)) => step(via, key),
                (None, None) => true,
                _ => false,
            }
    }

    /// `m@pc -> m2@pc2`.
    fn text(&self) -> String {
        membound_jvm::chain::join(
            self.via
                .iter()
                .chain(std::iter::once(&self.at))
                .map(|(method, offset)| membound_jvm::chain::step(method, *offset, None)),
        )
    }
}

/// The observed sites grouped by their key (one allocating instruction through one call of the
/// method: a multi-dimensional array's levels are observed as one site per type, but the
/// certificate predicts them together), in the order of the measurement.
fn by_key<'s>(
    sites: Vec<&'s SiteCount>,
    ends: &ChainEnds<'_>,
) -> Vec<(SiteKey<'s>, Vec<&'s SiteCount>)> {
    let mut groups: Vec<(SiteKey<'s>, Vec<&'s SiteCount>)> = Vec::new();
    let mut index: HashMap<SiteKey<'s>, usize> = HashMap::new();
    for site in sites {
        let chain = &site.chain[..ends.end(frames(&site.chain))];
        let (Some(first), Some(last)) = (chain.first(), chain.last()) else {
            continue;
        };
        let key = SiteKey {
            via: (chain.len() > 1).then_some((first.method.as_str(), first.offset)),
            at: (last.method.as_str(), last.offset),
        };
        match index.get(&key) {
            Some(&group) => groups[group].1.push(site),
            None => {
                index.insert(key.clone(), groups.len());
                groups.push((key, vec![site]));
            }
        }
    }
    groups
}

/// Whether a chain (its frames' methods) goes on past its last spec'd frame in a method the
/// certificate describes: its object is made by the program's code a spec called back (not by
/// a spec'd method that code calls in turn).
fn calls_back(
    methods: &[&str],
    specs: &SpecMethods<'_>,
    described: &HashMap<&str, &MethodEntry>,
) -> bool {
    methods
        .iter()
        .rposition(|m| specs.contains(m))
        .is_some_and(|last| {
            methods[last + 1..]
                .iter()
                .any(|m| !specs.contains(m) && described.contains_key(m))
        })
}

/// The observed sites grouped by their allocating instruction, whatever call of the method ran
/// them.
fn by_instruction<'s>(
    sites: Vec<&'s SiteCount>,
    ends: &ChainEnds<'_>,
) -> Vec<((&'s str, i64), Vec<&'s SiteCount>)> {
    let mut groups: Vec<((&'s str, i64), Vec<&'s SiteCount>)> = Vec::new();
    for site in sites {
        let chain = &site.chain[..ends.end(frames(&site.chain))];
        let Some(last) = chain.last() else { continue };
        let at = (last.method.as_str(), last.offset);
        match groups.iter_mut().find(|(key, _)| *key == at) {
            Some((_, group)) => group.push(site),
            None => groups.push((at, vec![site])),
        }
    }
    groups
}

/// The observed types of a group of sites, as its comparison names them: each once (a
/// recursion observes one site per depth).
fn types(sites: &[&SiteCount]) -> String {
    let mut types: Vec<&str> = Vec::new();
    for site in sites {
        if !types.contains(&site.type_name.as_str()) {
            types.push(&site.type_name);
        }
    }
    types.join(" + ")
}

/// What code a certificate saw: its methods, and which of them admit code they cannot see (a
/// call graph cut by its budget, an unresolved virtual call, a native method), which their
/// `unbounded` reasons name and which makes their bounds ∞.
struct Sight<'c> {
    methods: HashMap<&'c str, &'c MethodEntry>,
    ends: ChainEnds<'c>,
}

impl<'c> Sight<'c> {
    fn of(certificate: &'c Certificate) -> Sight<'c> {
        Sight {
            methods: certificate
                .methods
                .iter()
                .map(|m| (m.method.as_str(), m))
                .collect(),
            ends: ChainEnds::of(certificate),
        }
    }

    /// The first method of an observed chain the certificate has no entry for, when the frame
    /// calling it belongs to a method that admits unseen code: what the run allocated below it
    /// is that method's ∞, not a site the certificate predicts 0 for. An allocation below a
    /// method missing from a certificate whose caller claims to see everything stays compared
    /// with 0 (the analysis missed a callee).
    fn unseen_call<'s>(&self, chain: &'s [measure::ChainFrame]) -> Option<&'s str> {
        let chain = &chain[..self.ends.end(frames(chain))];
        let missing = chain
            .iter()
            .position(|frame| !self.methods.contains_key(frame.method.as_str()))?;
        let caller = self
            .methods
            .get(chain.get(missing.checked_sub(1)?)?.method.as_str())?;
        (!caller.unbounded.is_empty()).then_some(chain[missing].method.as_str())
    }
}

/// The methods of a certificate that a library spec stands for. What a run allocates under one
/// is the spec's to bound, and only in sum: an amortized spec charges one call (a constructor,
/// earlier adds) for the growth another call performs, so a per-call comparison would be wrong.
struct SpecMethods<'c>(std::collections::BTreeSet<&'c str>);

impl<'c> SpecMethods<'c> {
    fn of(certificate: &'c Certificate) -> SpecMethods<'c> {
        SpecMethods(
            certificate
                .methods
                .iter()
                .filter(|m| m.spec.is_some())
                .map(|m| m.method.as_str())
                .collect(),
        )
    }

    /// The position of the first method of a chain (given as its frames' methods) that is
    /// spec'd.
    fn first_on<'m>(&self, mut methods: impl Iterator<Item = &'m str>) -> Option<usize> {
        methods.position(|m| self.0.contains(m))
    }

    fn contains(&self, method: &str) -> bool {
        self.0.contains(method)
    }
}

/// Everything the run allocated under spec'd methods, to compare with the sum of the spec
/// sites' predictions; None when there is neither.
fn spec_group<'a>(
    entry: &'a MethodEntry,
    specs: &SpecMethods<'_>,
    observed: &'a [&'a SiteCount],
) -> Option<Group<'a>> {
    let predicted: Vec<&SiteEntry> = entry
        .sites
        .iter()
        .filter(|site| specs.contains(&site.at.method))
        .collect();
    if predicted.is_empty() && observed.is_empty() {
        return None;
    }
    let mut methods: Vec<&str> = specs.0.iter().copied().collect();
    methods.retain(|m| {
        predicted.iter().any(|site| site.at.method == *m)
            || observed
                .iter()
                .any(|site| site.chain.iter().any(|f| f.method == *m))
    });
    Some(Group {
        what: format!("under library specs ({})", methods.join(", ")),
        observed,
        predicted: Prediction::Sites(predicted),
    })
}

/// Observed sites and what predicts them, compared in sum ([`Compared::group`]).
struct Group<'a> {
    what: String,
    observed: &'a [&'a SiteCount],
    predicted: Prediction<'a>,
}

/// What a group of observed sites is compared with.
enum Prediction<'a> {
    /// The certificate's sites that name them (none: a prediction of 0).
    Sites(Vec<&'a SiteEntry>),
    /// Nothing the certificate saw: they were allocated below a call into code it does not
    /// see, which its bounds count as ∞ ([`Sight::unseen_call`]).
    Unseen,
}

/// Where a chain (given as its frames' methods and offsets) stops belonging to the program:
/// at the first frame of the method-handle machinery (`java.lang.invoke`) an `invokedynamic`
/// runs, whose allocations (a string concatenation's String and bytes) are the instruction's
/// own, at the native `Object.clone` whose copy is the cloning instruction's, or inside a
/// `String.format` whose call the certificate counts as an allocation of its own (a site at
/// the call: a format with a literal text).
struct ChainEnds<'c> {
    /// The (method, offset) of every site the certificate names where it allocates.
    sites: HashSet<(&'c str, i64)>,
}

impl<'c> ChainEnds<'c> {
    fn of(certificate: &'c Certificate) -> ChainEnds<'c> {
        let sites = certificate
            .methods
            .iter()
            .flat_map(|method| &method.sites)
            .map(|site| (site.at.method.as_str(), i64::from(site.at.offset)))
            .collect();
        ChainEnds { sites }
    }

    /// How many frames of the chain are the program's.
    fn end<'m>(&self, frames: impl Iterator<Item = (&'m str, i64)>) -> usize {
        let mut count = 0;
        let mut caller: Option<(&str, i64)> = None;
        for (index, (method, offset)) in frames.enumerate() {
            let cut = method.starts_with("java.lang.invoke.")
                || method == NATIVE_CLONE
                || (FORMAT_METHODS.contains(&method)
                    && caller.is_some_and(|call| self.sites.contains(&call)));
            if index > 0 && cut {
                return index;
            }
            caller = Some((method, offset));
            count = index + 1;
        }
        count
    }
}

/// The `String.format` and `printf` methods whose calls with a literal format are sites of
/// their own.
const FORMAT_METHODS: [&str; 4] = [
    "java.lang.String.format(Ljava/lang/String;[Ljava/lang/Object;)Ljava/lang/String;",
    "java.lang.String.formatted([Ljava/lang/Object;)Ljava/lang/String;",
    "java.io.PrintStream.printf(Ljava/lang/String;[Ljava/lang/Object;)Ljava/io/PrintStream;",
    "java.io.PrintStream.format(Ljava/lang/String;[Ljava/lang/Object;)Ljava/io/PrintStream;",
];

/// An observed chain's frames as (method, offset).
fn frames(chain: &[measure::ChainFrame]) -> impl Iterator<Item = (&str, i64)> {
    chain.iter().map(|f| (f.method.as_str(), f.offset))
}

/// The native method that copies an array (or an object) for `clone()`.
const NATIVE_CLONE: &str = "java.lang.Object.clone()Ljava/lang/Object;";

/// Observed / predicted as a ratio, when both are finite and the prediction is not 0.
fn ratio(comparison: &Comparison) -> Option<f64> {
    match &comparison.predicted {
        // Floating point only for the printed ratio; the verdict is exact.
        Value::Finite(bound) if !bound.is_zero() => {
            Some(comparison.observed as f64 / bound.to_f64_lossy())
        }
        _ => None,
    }
}

impl Validation {
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} ({} entr{})",
            self.method,
            self.points.len(),
            if self.points.len() == 1 { "y" } else { "ies" }
        );
        for point in &self.points {
            let values: Vec<String> = point.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let _ = writeln!(out, "  at {}", values.join(", "));
        }
        for c in &self.comparisons {
            let verdict = if c.is_broken() { "BROKEN" } else { "ok" };
            let ratio =
                ratio(c).map_or_else(String::new, |r| format!("  observed/predicted {r:.3}"));
            let _ = writeln!(
                out,
                "{verdict:6} {} {}: observed {}, predicted {}{ratio}",
                c.what,
                c.quantity,
                c.observed,
                value_text(&c.predicted)
            );
        }
        for what in &self.not_compared {
            let _ = writeln!(out, "not compared: {what}");
        }
        for assumption in &self.broken_assumptions {
            let _ = writeln!(out, "BROKEN assumption {assumption}");
        }
        if let Some(regions) = &self.regions {
            for broken in &regions.broken {
                let _ = writeln!(
                    out,
                    "BROKEN region of {}: {} object(s) {} still reachable after it returned, held by {}",
                    broken.region,
                    broken.objects,
                    broken.site,
                    broken.held_by.join(" or ")
                );
            }
            let _ = writeln!(out, "regions checked at {} exit(s)", regions.exits_walked);
        }
        for warning in &self.warnings {
            let _ = writeln!(out, "warning: {warning}");
        }
        if let Some(reason) = &self.unchecked {
            let _ = writeln!(out, "not checked: {reason}");
            return out;
        }
        let _ = writeln!(out, "{}", self.verdict());
        out
    }

    /// The last line of the text report.
    fn verdict(&self) -> String {
        let broken = self.broken().count();
        let regions = self.regions.as_ref().map_or(0, |r| r.broken.len());
        let mut problems = Vec::new();
        if broken > 0 {
            problems.push(format!(
                "{broken} prediction(s) below what the run allocated: the certificate is unsound for this run"
            ));
        }
        if regions > 0 {
            problems.push(format!(
                "{regions} site(s) whose objects outlive the region the certificate puts them in"
            ));
        }
        match (problems.is_empty(), &self.missing) {
            (true, None) => "the certificate holds for this run".to_string(),
            // The value missing was not needed by any prediction.
            (true, Some(_)) if self.not_compared.is_empty() => {
                "the certificate holds for this run".to_string()
            }
            (true, Some(why)) => format!(
                "the certificate holds for this run where it was compared ({} prediction(s) not compared: {why})",
                self.not_compared.len()
            ),
            (false, _) => problems.join("; "),
        }
    }

    pub fn to_json(&self) -> Json {
        let comparisons: Vec<Json> = self
            .comparisons
            .iter()
            .map(|c| {
                json!({
                    "what": c.what,
                    "quantity": c.quantity,
                    "observed": c.observed,
                    "predicted": membound_certificate::value_json(&c.predicted),
                    "ratio": ratio(c),
                    "broken": c.is_broken(),
                })
            })
            .collect();
        json!({
            "method": self.method,
            "comparisons": comparisons,
            "not_compared": self.not_compared,
            "missing": self.missing,
            "broken": self.broken().count(),
            "broken_assumptions": self.broken_assumptions,
            "regions": self.regions,
            "warnings": self.warnings,
            "unchecked": self.unchecked,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{ChainFrame, ChainValue};

    fn frame(method: &str, offset: i64) -> ChainFrame {
        ChainFrame {
            method: method.to_string(),
            offset,
            line: None,
        }
    }

    fn no_ends() -> ChainEnds<'static> {
        ChainEnds {
            sites: HashSet::new(),
        }
    }

    #[test]
    fn a_format_call_the_certificate_counts_as_a_site_ends_the_chain() {
        let chain = [
            frame("p.M.run()V", 20),
            frame(FORMAT_METHODS[0], 9),
            frame(
                "java.util.Formatter.parse(Ljava/lang/String;)Ljava/util/List;",
                0,
            ),
        ];
        // A site at the call: the formatter's objects are that site's.
        let ends = ChainEnds {
            sites: HashSet::from([("p.M.run()V", 20)]),
        };
        assert_eq!(ends.end(frames(&chain)), 1);
        // Without one (a format that is no literal: the spec'd method), the chain goes on.
        assert_eq!(no_ends().end(frames(&chain)), 3);
        // The method-handle machinery ends a chain either way.
        let concat = [frame("p.M.run()V", 4), frame("java.lang.invoke.X.y()V", 1)];
        assert_eq!(no_ends().end(frames(&concat)), 1);
    }

    #[test]
    fn origins_say_where_a_run_records_the_value() {
        use Recorded::*;
        let cases = [
            ("parameter 0 (int n)", Binding::Recorded(Parameter(0))),
            ("length of parameter 2 (a)", Binding::Recorded(Length(2))),
            ("length of parameter 1 (s)", Binding::Recorded(Length(1))),
            ("size of parameter 3 (c)", Binding::Recorded(Size(3))),
            (
                "value of parameter 1 (java.lang.Integer n)",
                Binding::Recorded(Boxed(1)),
            ),
            (
                "length of the chain from parameter 0 (first) along p.Node.next",
                Binding::Recorded(Chain("0/p.Node.next".to_string())),
            ),
            (
                "length of the chain from field head of this along p.Node.next",
                Binding::Recorded(Chain("this.head/p.Node.next".to_string())),
            ),
            (
                "length of the chain from field first of parameter 1 (list) along p.Node.link",
                Binding::Recorded(Chain("1.first/p.Node.link".to_string())),
            ),
            (
                "size of the tree from parameter 0 (t) along p.T.left, p.T.right",
                Binding::Recorded(Chain("0/p.T.left+p.T.right".to_string())),
            ),
            (
                "size of the tree from field left of parameter 0 (t) along p.T.left, p.T.right",
                Binding::Recorded(Chain("0.left/p.T.left+p.T.right".to_string())),
            ),
            (
                "size of the tree from this along p.T.left, p.T.right",
                Binding::Recorded(Chain("this/p.T.left+p.T.right".to_string())),
            ),
            (
                "field fromCount of this",
                Binding::Recorded(ThisField("fromCount")),
            ),
            (
                "static field p.C$D.size",
                Binding::Recorded(Static {
                    class: "p.C$D",
                    name: "size",
                }),
            ),
            (
                "static field fields.Views.size; named rows by --param",
                Binding::Recorded(Static {
                    class: "fields.Views",
                    name: "size",
                }),
            ),
            (
                "static field p.C.size, written at main@12",
                Binding::Recorded(StaticAfter {
                    class: "p.C",
                    name: "size",
                    pc: 12,
                }),
            ),
            (
                "static field p.C.size, written by the call at main@1",
                Binding::Recorded(StaticAfter {
                    class: "p.C",
                    name: "size",
                    pc: 1,
                }),
            ),
            ("static field p.C.size, written somewhere", Binding::ByName),
            (
                "static field p.C.size, once the loop at main@2 exits to main@37",
                Binding::Recorded(StaticAt {
                    class: "p.C",
                    name: "size",
                    pc: 37,
                }),
            ),
            (
                "local count set from a call's result at main@3",
                Binding::Recorded(LocalAfter {
                    name: "count",
                    pc: 3,
                }),
            ),
            ("local count set somewhere", Binding::ByName),
            ("parameter x (int n)", Binding::ByName),
            ("something else", Binding::ByName),
        ];
        for (origin, expected) in cases {
            assert_eq!(binding(origin), expected, "{origin}");
        }
    }

    #[test]
    fn recorded_values_are_found_by_kind_and_resolution_order() {
        let parameter = |index, kind: &str, value| measure::Parameter {
            index,
            name: format!("p{index}"),
            kind: kind.to_string(),
            value,
        };
        let field = |class: &str, name: &str, value| measure::FieldValue {
            class: class.to_string(),
            name: name.to_string(),
            value,
        };
        let values = EntryValues {
            activation: 1,
            parameters: vec![
                parameter(0, "int", Some(4)),
                parameter(1, "string", Some(11)),
                parameter(2, "map", Some(3)),
                parameter(3, "array", None),
            ],
            this_fields: vec![field("p.Sub", "n", 5), field("p.Base", "n", 9)],
            statics: vec![field("p.C", "size", 7)],
            chains: vec![
                ChainValue {
                    chain: "0/next".to_string(),
                    length: ChainLength::Nodes(6),
                },
                ChainValue {
                    chain: "this.head/next".to_string(),
                    length: ChainLength::Cycle,
                },
            ],
            statics_after: vec![(1, field("p.C", "size", 64))],
            locals_after: vec![measure::LocalValue {
                pc: 3,
                name: "count".to_string(),
                value: 12,
            }],
        };
        let found = |wanted| recorded_value(&values, &wanted);
        assert_eq!(found(Recorded::Chain("0/next".to_string())), Some(6));
        // A cycle has no length, nor a chain the run did not record.
        assert_eq!(found(Recorded::Chain("this.head/next".to_string())), None);
        assert_eq!(found(Recorded::Chain("1/next".to_string())), None);
        assert_eq!(found(Recorded::Parameter(0)), Some(4));
        assert_eq!(found(Recorded::Length(1)), Some(11));
        assert_eq!(found(Recorded::Size(2)), Some(3));
        // A parameter of another kind is not the value an origin means.
        assert_eq!(found(Recorded::Length(0)), None);
        assert_eq!(found(Recorded::Size(1)), None);
        // A null array has no length.
        assert_eq!(found(Recorded::Length(3)), None);
        // The subclass's `n` hides the superclass's.
        assert_eq!(found(Recorded::ThisField("n")), Some(5));
        let size = |class| Recorded::Static {
            class,
            name: "size",
        };
        assert_eq!(found(size("p.C")), Some(7));
        assert_eq!(found(size("q.C")), None);
        // After the instruction that fixes it, not at the entry.
        let after = |pc| Recorded::StaticAfter {
            class: "p.C",
            name: "size",
            pc,
        };
        assert_eq!(found(after(1)), Some(64));
        assert_eq!(found(after(4)), None);
        let local = |name, pc| Recorded::LocalAfter { name, pc };
        assert_eq!(found(local("count", 3)), Some(12));
        assert_eq!(found(local("count", 4)), None);
        assert_eq!(found(local("n", 3)), None);
    }

    #[test]
    fn observed_allocations_are_keyed_by_the_first_call_and_the_allocation() {
        let site = |chain: Vec<ChainFrame>| SiteCount {
            chain,
            type_name: "T".to_string(),
            count: 1,
            bytes: 16,
        };
        let key_of = |chain: Vec<ChainFrame>| {
            let observed = [site(chain)];
            let groups = by_key(observed.iter().collect(), &no_ends());
            groups[0].0.text()
        };
        // Recursion between the first call and the allocation does not matter.
        let recursive = vec![frame("simulate", 11), frame("step", 31), frame("step", 113)];
        assert_eq!(key_of(recursive), "simulate@11 -> step@113");
        // The method's own allocation has no call.
        assert_eq!(key_of(vec![frame("run", 4)]), "run@4");
        // Two chains through the same call to the same allocation are one key.
        let one = site(vec![frame("a", 1), frame("b", 2), frame("c", 9)]);
        let two = site(vec![frame("a", 1), frame("d", 5), frame("c", 9)]);
        let observed = [one, two];
        assert_eq!(by_key(observed.iter().collect(), &no_ends()).len(), 1);
    }
}

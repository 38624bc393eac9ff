//! Heap invariants inferred at garbage collections, after Microsoft's US patent 7,912,877
//! (Chilimbi, Shankar: "Using garbage collection to infer heap invariants dynamically"): per
//! application class, the properties every one of its objects had in every snapshot of a run
//! (the agent snapshots after each collection), and a later run checked against them with
//! the allocation site of an object that breaks one.
//!
//! As in the patent, every candidate starts satisfied and a snapshot can only falsify it.
//! The candidates (the patent's own lists were lost from its text; these are its surviving
//! examples and the kinds its claims name):
//! - `never_shared`: no object is referenced by more than one heap object (roots not counted);
//! - `acyclic`: no object lies on a cycle of references;
//! - `field_never_null` (per reference field): the field is never null;
//! - `field_type` (per reference field): the objects it references are all of one class;
//! - `field_constant` (per reference field): an object's field keeps referencing the same
//!   object in every snapshot that sees both (agent snapshots only: HPROF addresses change
//!   between dumps); only claimed when some object was seen in two snapshots;
//! - `max_instances`: the most objects of the class a snapshot held.
//!
//! Only objects the program's roots reach (or all, by choice) and only application classes
//! are considered: the JDK's own classes would drown the program's in invariants.

use crate::error::{Error, Result};
use crate::graph::strongly_connected;
use crate::scope::{RootSelection, is_application_class, reachable};
use crate::snapshot::{ObjectIndex, Snapshot, Source};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    NeverShared,
    Acyclic,
    FieldNeverNull,
    FieldType,
    FieldConstant,
    MaxInstances,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::NeverShared => "never_shared",
            Kind::Acyclic => "acyclic",
            Kind::FieldNeverNull => "field_never_null",
            Kind::FieldType => "field_type",
            Kind::FieldConstant => "field_constant",
            Kind::MaxInstances => "max_instances",
        }
    }
}

/// How much observation an invariant rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// Objects the invariant held for, summed over snapshots (for `field_constant`: objects
    /// seen in two snapshots or more).
    pub objects: u64,
    pub snapshots: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invariant {
    pub class: String,
    pub kind: Kind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// `field_type`: the class; `max_instances`: the count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    pub evidence: Evidence,
}

impl Invariant {
    /// `never_shared`, `field_type next = pkg.Node`.
    pub fn statement(&self) -> String {
        let field = self
            .field
            .as_deref()
            .map_or_else(String::new, |f| format!(" {f}"));
        let value = self
            .value
            .as_deref()
            .map_or_else(String::new, |v| format!(" = {v}"));
        format!("{}{field}{value}", self.kind.name())
    }
}

/// The invariants of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub snapshots: Vec<String>,
    pub invariants: Vec<Invariant>,
}

/// What one snapshot says of each object the analysis looks at.
struct Facts<'s> {
    snapshot: &'s Snapshot,
    /// Application objects in scope.
    considered: Vec<bool>,
    /// References from objects in scope.
    in_degree: Vec<u32>,
    on_cycle: Vec<bool>,
}

fn facts(snapshot: &Snapshot, selection: RootSelection) -> Facts<'_> {
    let in_scope = reachable(snapshot, selection);
    let count = snapshot.objects().len();
    let mut in_degree = vec![0u32; count];
    let mut successors: Vec<Vec<u32>> = vec![Vec::new(); count];
    for from in 0..count as ObjectIndex {
        if !in_scope[from as usize] {
            continue;
        }
        for reference in snapshot.references(from) {
            in_degree[reference.target as usize] += 1;
            successors[from as usize].push(reference.target);
        }
    }
    let components = strongly_connected(&successors);
    let mut sizes: FxHashMap<u32, u32> = FxHashMap::default();
    for &c in &components {
        *sizes.entry(c).or_default() += 1;
    }
    let on_cycle = (0..count)
        .map(|o| sizes[&components[o]] > 1 || successors[o].contains(&(o as u32)))
        .collect();
    let considered = (0..count)
        .map(|o| in_scope[o] && is_application_class(&snapshot.class_of(o as u32).name))
        .collect();
    Facts {
        snapshot,
        considered,
        in_degree,
        on_cycle,
    }
}

impl Facts<'_> {
    fn objects(&self) -> impl Iterator<Item = ObjectIndex> + '_ {
        (0..self.snapshot.objects().len() as ObjectIndex).filter(|&o| self.considered[o as usize])
    }

    fn class(&self, object: ObjectIndex) -> &str {
        &self.snapshot.class_of(object).name
    }

    /// The reference fields of the object's class with their targets (None: null).
    fn fields(&self, object: ObjectIndex) -> Vec<(&str, Option<ObjectIndex>)> {
        let snapshot = self.snapshot;
        let references = snapshot.references(object);
        snapshot
            .class_of(object)
            .reference_fields
            .iter()
            .map(|&label| {
                let target = references
                    .iter()
                    .find(|r| r.label.field_name() == Some(label))
                    .map(|r| r.target);
                (snapshot.labels()[label as usize].as_str(), target)
            })
            .collect()
    }

    fn site(&self, object: ObjectIndex) -> String {
        self.snapshot
            .site_of(object)
            .map_or_else(|| "an unknown site".to_owned(), |s| s.to_string())
    }
}

/// Per class, which candidates still hold and their evidence.
#[derive(Default)]
struct Candidates {
    never_shared: Option<u64>,
    acyclic: Option<u64>,
    /// field → objects it held for; removed when falsified.
    never_null: BTreeMap<String, u64>,
    field_type: BTreeMap<String, (Option<String>, u64)>,
    falsified: BTreeSet<(Kind, String)>,
    max_instances: u64,
    snapshots: u64,
}

impl Candidates {
    fn holds(&self, kind: Kind, field: &str) -> bool {
        !self.falsified.contains(&(kind, field.to_owned()))
    }

    fn falsify(&mut self, kind: Kind, field: &str) {
        self.falsified.insert((kind, field.to_owned()));
    }
}

/// The invariants that held in every snapshot.
pub fn infer(snapshots: &[Snapshot], selection: RootSelection) -> Report {
    let mut classes: BTreeMap<String, Candidates> = BTreeMap::new();
    let mut constant = ConstantFields::default();
    for snapshot in snapshots {
        let facts = facts(snapshot, selection);
        let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
        for object in facts.objects() {
            let class = facts.class(object);
            *counts.entry(class).or_default() += 1;
            let candidates = classes.entry(class.to_owned()).or_default();
            observe_object(&facts, object, candidates);
            constant.observe(&facts, object);
        }
        for (class, count) in counts {
            let candidates = classes.entry(class.to_owned()).or_default();
            candidates.snapshots += 1;
            candidates.max_instances = candidates.max_instances.max(count);
        }
    }
    let invariants = classes
        .iter()
        .flat_map(|(class, candidates)| held(class, candidates, &constant, snapshots))
        .collect();
    Report {
        snapshots: snapshots.iter().map(|s| s.moment.clone()).collect(),
        invariants,
    }
}

fn observe_object(facts: &Facts, object: ObjectIndex, candidates: &mut Candidates) {
    let shared = facts.in_degree[object as usize] > 1;
    for (kind, falsified) in [
        (Kind::NeverShared, shared),
        (Kind::Acyclic, facts.on_cycle[object as usize]),
    ] {
        if falsified {
            candidates.falsify(kind, "");
        }
    }
    *candidates.never_shared.get_or_insert(0) += 1;
    *candidates.acyclic.get_or_insert(0) += 1;
    for (field, target) in facts.fields(object) {
        match target {
            None => candidates.falsify(Kind::FieldNeverNull, field),
            Some(target) => {
                *candidates.never_null.entry(field.to_owned()).or_default() += 1;
                let class = facts.snapshot.class_of(target).name.clone();
                let entry = candidates
                    .field_type
                    .entry(field.to_owned())
                    .or_insert((Some(class.clone()), 0));
                if entry.0.as_deref() != Some(class.as_str()) {
                    entry.0 = None;
                }
                entry.1 += 1;
            }
        }
    }
}

/// One object's field over the snapshots that saw it.
struct FieldHistory {
    /// The identity of the object the field first referenced (None: null).
    first: Option<u64>,
    snapshots: u32,
    changed: bool,
}

/// The targets of each (class, field, object identity) over agent snapshots.
#[derive(Default)]
struct ConstantFields {
    seen: BTreeMap<(String, String), FxHashMap<u64, FieldHistory>>,
}

impl ConstantFields {
    fn observe(&mut self, facts: &Facts, object: ObjectIndex) {
        if facts.snapshot.source != Source::Agent {
            return;
        }
        let identity = facts.snapshot.object(object).identity;
        for (field, target) in facts.fields(object) {
            let target = target.map(|t| facts.snapshot.object(t).identity);
            let key = (facts.class(object).to_owned(), field.to_owned());
            let history =
                self.seen
                    .entry(key)
                    .or_default()
                    .entry(identity)
                    .or_insert(FieldHistory {
                        first: target,
                        snapshots: 0,
                        changed: false,
                    });
            history.snapshots += 1;
            history.changed |= history.first != target;
        }
    }

    /// Objects seen twice or more, if none of them changed the field.
    fn held(&self, class: &str, field: &str) -> Option<u64> {
        let objects = self.seen.get(&(class.to_owned(), field.to_owned()))?;
        if objects.values().any(|h| h.changed) {
            return None;
        }
        let repeated = objects.values().filter(|h| h.snapshots > 1).count() as u64;
        (repeated > 0).then_some(repeated)
    }
}

fn held(
    class: &str,
    candidates: &Candidates,
    constant: &ConstantFields,
    snapshots: &[Snapshot],
) -> Vec<Invariant> {
    let evidence = |objects| Evidence {
        objects,
        snapshots: candidates.snapshots,
    };
    let invariant = |kind, field: Option<&str>, value: Option<String>, objects| Invariant {
        class: class.to_owned(),
        kind,
        field: field.map(str::to_owned),
        value,
        evidence: evidence(objects),
    };
    let mut found = Vec::new();
    for (kind, objects) in [
        (Kind::NeverShared, candidates.never_shared),
        (Kind::Acyclic, candidates.acyclic),
    ] {
        if let Some(objects) = objects.filter(|_| candidates.holds(kind, "")) {
            found.push(invariant(kind, None, None, objects));
        }
    }
    for (field, &objects) in &candidates.never_null {
        if candidates.holds(Kind::FieldNeverNull, field) {
            found.push(invariant(Kind::FieldNeverNull, Some(field), None, objects));
        }
    }
    for (field, (only, objects)) in &candidates.field_type {
        if let Some(only) = only {
            found.push(invariant(
                Kind::FieldType,
                Some(field),
                Some(only.clone()),
                *objects,
            ));
        }
    }
    let fields: BTreeSet<&String> = candidates
        .never_null
        .keys()
        .chain(candidates.field_type.keys())
        .collect();
    if snapshots.iter().all(|s| s.source == Source::Agent) {
        for field in fields {
            if let Some(objects) = constant.held(class, field) {
                found.push(invariant(Kind::FieldConstant, Some(field), None, objects));
            }
        }
    }
    found.push(invariant(
        Kind::MaxInstances,
        None,
        Some(candidates.max_instances.to_string()),
        candidates.max_instances,
    ));
    found
}

/// An invariant a run broke, with the object that broke it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub class: String,
    pub kind: Kind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    pub moment: String,
    /// Where the violating object was allocated (None for a count, which no one object
    /// breaks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    pub detail: String,
}

impl Violation {
    pub fn text(&self) -> String {
        let field = self
            .field
            .as_deref()
            .map_or_else(String::new, |f| format!(" {f}"));
        let site = self.site.as_deref().map_or_else(String::new, |s| {
            format!("; the object was allocated at {s}")
        });
        format!(
            "VIOLATED: {} {}{field} at {}: {}{site}",
            self.class,
            self.kind.name(),
            self.moment,
            self.detail,
        )
    }
}

/// Checks a run's snapshots against saved invariants: the first violating object of each
/// invariant in each snapshot.
pub fn check(saved: &Report, snapshots: &[Snapshot], selection: RootSelection) -> Vec<Violation> {
    let mut violations = Vec::new();
    let mut firsts: FxHashMap<(String, String), FxHashMap<u64, Option<u64>>> = FxHashMap::default();
    for snapshot in snapshots {
        let facts = facts(snapshot, selection);
        let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
        for object in facts.objects() {
            *counts.entry(facts.class(object)).or_default() += 1;
        }
        for invariant in &saved.invariants {
            let found = match invariant.kind {
                Kind::MaxInstances => check_count(invariant, &counts),
                Kind::FieldConstant => check_constant(invariant, &facts, &mut firsts),
                _ => facts
                    .objects()
                    .filter(|&o| facts.class(o) == invariant.class)
                    .find_map(|o| {
                        object_violation(invariant, &facts, o).map(|d| (d, Some(facts.site(o))))
                    }),
            };
            if let Some((detail, site)) = found {
                violations.push(Violation {
                    class: invariant.class.clone(),
                    kind: invariant.kind,
                    field: invariant.field.clone(),
                    moment: snapshot.moment.clone(),
                    site,
                    detail,
                });
            }
        }
    }
    violations
}

fn check_count(
    invariant: &Invariant,
    counts: &BTreeMap<&str, u64>,
) -> Option<(String, Option<String>)> {
    let limit: u64 = invariant.value.as_deref()?.parse().ok()?;
    let count = counts.get(invariant.class.as_str()).copied().unwrap_or(0);
    (count > limit).then(|| (format!("{count} objects, at most {limit} before"), None))
}

fn check_constant(
    invariant: &Invariant,
    facts: &Facts,
    firsts: &mut FxHashMap<(String, String), FxHashMap<u64, Option<u64>>>,
) -> Option<(String, Option<String>)> {
    let field = invariant.field.as_deref()?;
    if facts.snapshot.source != Source::Agent {
        return None;
    }
    let seen = firsts
        .entry((invariant.class.clone(), field.to_owned()))
        .or_default();
    for object in facts
        .objects()
        .filter(|&o| facts.class(o) == invariant.class)
    {
        let target = facts
            .fields(object)
            .into_iter()
            .find(|(name, _)| *name == field)
            .and_then(|(_, t)| t)
            .map(|t| facts.snapshot.object(t).identity);
        let identity = facts.snapshot.object(object).identity;
        match seen.get(&identity) {
            Some(first) if *first != target => {
                return Some((
                    "the field now references another object".to_owned(),
                    Some(facts.site(object)),
                ));
            }
            Some(_) => {}
            None => {
                seen.insert(identity, target);
            }
        }
    }
    None
}

/// Why `object` breaks `invariant`, if it does.
fn object_violation(invariant: &Invariant, facts: &Facts, object: ObjectIndex) -> Option<String> {
    let field = invariant.field.as_deref();
    let target = || {
        facts
            .fields(object)
            .into_iter()
            .find(|(name, _)| Some(*name) == field)
            .and_then(|(_, t)| t)
    };
    match invariant.kind {
        Kind::NeverShared => {
            let degree = facts.in_degree[object as usize];
            (degree > 1).then(|| format!("an object is referenced by {degree} objects"))
        }
        Kind::Acyclic => {
            facts.on_cycle[object as usize].then(|| "an object lies on a cycle".to_owned())
        }
        Kind::FieldNeverNull => {
            let declared = facts
                .fields(object)
                .iter()
                .any(|(name, _)| Some(*name) == field);
            (declared && target().is_none()).then(|| "an object has it null".to_owned())
        }
        Kind::FieldType => {
            let class = &facts.snapshot.class_of(target()?).name;
            (Some(class) != invariant.value.as_ref())
                .then(|| format!("an object's field references a {class}"))
        }
        Kind::FieldConstant | Kind::MaxInstances => None,
    }
}

impl Report {
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "invariants that held in every one of {} snapshot(s) ({}):",
            self.snapshots.len(),
            self.snapshots.join(", ")
        );
        let mut by_class: BTreeMap<&str, Vec<&Invariant>> = BTreeMap::new();
        for invariant in &self.invariants {
            by_class
                .entry(&invariant.class)
                .or_default()
                .push(invariant);
        }
        for (class, invariants) in by_class {
            let _ = writeln!(out, "  {class}:");
            for i in invariants {
                let _ = writeln!(
                    out,
                    "    {}  ({} objects, {} snapshots)",
                    i.statement(),
                    i.evidence.objects,
                    i.evidence.snapshots
                );
            }
        }
        out
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// Reads invariants saved with `--format json`.
    pub fn parse(text: &str, origin: &str) -> Result<Report> {
        serde_json::from_str(text).map_err(|e| {
            Error::Input(format!(
                "{origin} is not a saved invariants file (membound heap invariants --format json): {e}"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::tests::tiny;

    fn kinds(report: &Report, class: &str) -> Vec<String> {
        report
            .invariants
            .iter()
            .filter(|i| i.class == class)
            .map(Invariant::statement)
            .collect()
    }

    #[test]
    fn a_list_keeps_its_invariants_until_it_is_spoiled() {
        let list = |back: bool| -> Snapshot {
            let last: &[(&str, u64)] = if back { &[("next", 2)] } else { &[] };
            tiny(
                &[
                    ("Node", &[("next", 2), ("data", 4)]),
                    ("Node", &[("next", 3), ("data", 4)]),
                    ("Node", last),
                    ("Data", &[]),
                ],
                &[("Main.head", 1)],
            )
        };
        let report = infer(&[list(false), list(false)], RootSelection::All);
        let found = kinds(&report, "Node");
        assert!(found.contains(&"never_shared".to_owned()), "{found:?}");
        assert!(found.contains(&"acyclic".to_owned()), "{found:?}");
        assert!(found.contains(&"max_instances = 3".to_owned()), "{found:?}");
        assert!(
            found.contains(&"field_type data = Data".to_owned()),
            "{found:?}"
        );
        assert!(
            found.contains(&"field_type next = Node".to_owned()),
            "{found:?}"
        );
        // The last node has neither field; the data object is shared.
        assert!(
            !found.iter().any(|f| f.starts_with("field_never_null")),
            "{found:?}"
        );
        assert!(!kinds(&report, "Data").contains(&"never_shared".to_owned()));
        // tiny snapshots come from the agent: identities are stable, fields constant.
        assert!(
            found.contains(&"field_constant next".to_owned()),
            "{found:?}"
        );
        let violations = check(&report, &[list(true)], RootSelection::All);
        let broken: Vec<Kind> = violations.iter().map(|v| v.kind).collect();
        assert!(broken.contains(&Kind::Acyclic), "{violations:?}");
        assert!(broken.contains(&Kind::NeverShared), "{violations:?}");
        assert!(
            violations[0]
                .text()
                .contains("allocated at an unknown site")
        );
        // The saved form reads back.
        let saved = Report::parse(&report.to_json().to_string(), "saved").expect("reads back");
        assert_eq!(saved, report);
    }

    #[test]
    fn more_objects_than_ever_before_break_the_count() {
        let one = tiny(&[("Node", &[])], &[("Main.a", 1)]);
        let two = tiny(
            &[("Node", &[]), ("Node", &[])],
            &[("Main.a", 1), ("Main.b", 2)],
        );
        let report = infer(&[one], RootSelection::All);
        let violations = check(&report, &[two], RootSelection::All);
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].kind, Kind::MaxInstances);
    }
}

//! `membound advise`: where clearing a reference (`x = null`) lets the garbage collector free
//! memory before a later allocation, and how much lower the method's peak would be — after
//! Shaham, Yahav, Kolodner and Sagiv's assign-null analysis (../shared/notes/
//! seeds-heap-systems.md part D), on the allocations and bounds the summaries already give.
//!
//! The method's own allocations whose objects only its variables and private static fields
//! can reach are tracked ([`holders`]); a forward analysis says which places may hold them at
//! each point ([`holding`]) and a backward one which places are read again ([`references`]).
//! An advice clears a place at the start of the source line of an allocating point, where the
//! place is not live (no path reads it again before writing it, exception paths included), so
//! it never introduces a NullPointerException. Its effect is measured on the peak under
//! garbage-collection semantics ([`peak`]); only advice that lowers that peak is kept, the
//! best place per reference, ranked by what it saves.

mod holders;
mod holding;
mod peak;
mod references;
mod render;

use std::collections::{BTreeMap, BTreeSet};

use membound_front::callgraph::CallGraph;
use membound_front::ir::{Body, Expr, StmtKind, VarId, VarOrigin};
use membound_front::program::Program;
use membound_front::sizes::ObjectModel;
use membound_jvm::MethodRef;
use membound_jvm::error::{Error, Result};
use membound_polyhedra::{Rat, Value};

use crate::memalloc::{Amount, Quantity};
use crate::memrq::{self, Summarized};
use holders::Tracked;
use holding::{Holding, Nulling};
use peak::{Entry, Timeline};
use references::{Liveness, Location, Point, points, predecessors, stmt_at};

pub use render::{to_json, to_sarif, to_text};

/// One advice: clear `target` at the start of `line`.
#[derive(Clone, Debug)]
pub struct Advice {
    pub line: u32,
    /// A local variable's name, or `Class.field` for a static field.
    pub target: String,
    /// What the advice lets the collector free before the allocation that follows.
    pub frees: Amount,
    /// The method's peak with the advice applied.
    pub mem_rq_after: Amount,
    /// How much lower the peak's bytes are (at `--at`, else at the sample point where the
    /// difference is largest), for ranking.
    pub saving: Rat,
}

/// The advice for one method.
#[derive(Clone, Debug)]
pub struct Report {
    pub method: MethodRef,
    /// memRq as `analyze` reports it.
    pub mem_rq_before: Amount,
    /// The peak under garbage-collection semantics without any advice (at most memRq).
    pub gc_peak_before: Amount,
    /// Best first.
    pub advice: Vec<Advice>,
    /// Why no advice could be looked for, when that is so.
    pub notes: Vec<String>,
}

/// The values of every parameter at which, without `--at`, an advice must lower the peak at
/// least once to be listed.
const SAMPLES: [i64; 8] = [1, 2, 4, 8, 16, 64, 256, 1024];

/// The advice for the entry of `graph`: with `at`, an advice is kept when it lowers the peak
/// there; without, when it lowers it at one of the sample points.
pub fn advise(
    program: &Program,
    graph: &CallGraph,
    model: ObjectModel,
    options: memrq::Options,
    at: Option<&BTreeMap<String, Rat>>,
) -> Result<Report> {
    let entry_calls = |regions: &memrq::Regions<'_>| memrq::call_stacks(graph, regions, 0);
    let (bounds, summarized, stacks) =
        memrq::analyze_keeping(program, graph, model, options, &|_| {}, entry_calls)?;
    let method = graph.methods[0].method.clone();
    if let (Some(point), Some(entry)) = (at, bounds.methods.first()) {
        check_point_names(point, entry)?;
    }
    let mem_rq_before = bounds
        .methods
        .first()
        .and_then(|m| m.regions.as_ref())
        .map_or_else(Amount::zero, |r| r.mem_rq.clone());
    let mut report = Report {
        method: method.clone(),
        gc_peak_before: mem_rq_before.clone(),
        mem_rq_before,
        advice: Vec::new(),
        notes: Vec::new(),
    };
    if let Some(why) = not_advisable(&report, &summarized) {
        report.notes.push(why);
        return Ok(report);
    }
    let body = program.body(&method)?;
    let Some(method_advice) = MethodAdvice::new(program, &summarized, stacks, &body) else {
        report.notes.push(format!(
            "{method}: an allocation's statement was not found in its body"
        ));
        return Ok(report);
    };
    report.gc_peak_before = method_advice.peak_without();
    report.advice = method_advice.advice(program, &report.gc_peak_before, at)?;
    Ok(report)
}

/// An `--at` naming something that is not a parameter of the method is an input error.
fn check_point_names(
    point: &BTreeMap<String, Rat>,
    entry: &crate::memalloc::MethodBound,
) -> Result<()> {
    let names: Vec<&str> = entry.params.iter().map(|p| p.name.as_str()).collect();
    match point.keys().find(|name| !names.contains(&name.as_str())) {
        Some(unknown) => Err(Error::Input(format!(
            "--at: {} has no parameter `{unknown}` (its parameters: {})",
            entry.method,
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ))),
        None => Ok(()),
    }
}

/// Why the method gets no advice before looking: no allocation, a recursion, an infinite
/// memRq.
fn not_advisable(report: &Report, summarized: &Summarized) -> Option<String> {
    let method = &report.method;
    let Some(summary) = summarized.summaries.of(0) else {
        return Some(format!("{method} allocates nothing"));
    };
    if summary.recursion.is_some() {
        return Some(format!("{method} is recursive: no advice is looked for"));
    }
    if report.mem_rq_before.bytes.may_be_infinite() {
        return Some(format!(
            "{method}'s memRq is unbounded: no advice can lower it"
        ));
    }
    None
}

/// The facts about one method the advice is computed from.
struct MethodAdvice<'a> {
    body: &'a Body,
    tracked: Vec<Tracked>,
    timeline: Timeline<'a>,
    liveness: Liveness,
    without: Holding,
}

impl<'a> MethodAdvice<'a> {
    /// `stacks`: per call offset of the method, the stack of regions the call holds.
    fn new(
        program: &Program,
        summarized: &'a Summarized,
        stacks: BTreeMap<u32, Amount>,
        body: &'a Body,
    ) -> Option<MethodAdvice<'a>> {
        let summary = summarized.summaries.of(0)?;
        let local = &summarized.local;
        let mut located = Vec::new();
        for (index, site) in summary.sites.iter().enumerate() {
            let at = match site.via {
                None => allocation_point(body, local.sites[site.site].pc)?,
                Some(pc) => call_point(body, pc)?,
            };
            located.push((index, site, at));
        }
        let own: Vec<(usize, Point)> = located
            .iter()
            .filter(|(_, site, _)| site.via.is_none())
            .map(|(_, site, at)| (site.site, *at))
            .collect();
        let tracked = holders::tracked(program, body, &own);
        let entries = located
            .iter()
            .map(|(index, site, at)| Entry {
                index: *index,
                at: *at,
                tracked: site
                    .via
                    .is_none()
                    .then(|| tracked.iter().position(|t| t.site == site.site))
                    .flatten(),
            })
            .collect::<Vec<_>>();
        let mut allocating: BTreeMap<Point, Amount> = BTreeMap::new();
        for entry in &entries {
            allocating.entry(entry.at).or_insert_with(Amount::zero);
        }
        for (pc, stack) in stacks {
            allocating.insert(call_point(body, pc)?, stack);
        }
        let timeline = Timeline::new(body, summary, entries, allocating.into_iter().collect());
        let liveness = liveness(body, &tracked);
        let without = Holding::of(body, &tracked, None);
        Some(MethodAdvice {
            body,
            tracked,
            timeline,
            liveness,
            without,
        })
    }

    fn peak_without(&self) -> Amount {
        let freed = |t: usize, p: Point| !self.without.holds(self.body, &self.liveness, t, p);
        self.timeline.peak(&freed)
    }

    /// The advice that lowers `before` (the peak without advice), the best one per place.
    fn advice(
        &self,
        program: &Program,
        before: &Amount,
        at: Option<&BTreeMap<String, Rat>>,
    ) -> Result<Vec<Advice>> {
        let places: BTreeSet<&Location> = self.tracked.iter().flat_map(|t| &t.holders).collect();
        let preds = predecessors(self.body);
        let scopes = Scopes::of(program, &self.body.method);
        let mut best: BTreeMap<&Location, Advice> = BTreeMap::new();
        for (point, _) in &self.timeline.points {
            let Some((start, line)) = line_start(self.body, &preds, *point) else {
                continue;
            };
            for &place in &places {
                if self.liveness.live(start).contains(place) || !self.without.holds_at(place, start)
                {
                    continue;
                }
                let Some(target) = scopes.name(self.body, place, start) else {
                    continue;
                };
                let nulling = Nulling {
                    point: start,
                    location: place.clone(),
                };
                let with = Holding::of(self.body, &self.tracked, Some(&nulling));
                let freed_with = |t: usize, p: Point| !with.holds(self.body, &self.liveness, t, p);
                let after = self.timeline.peak(&freed_with);
                let Some(saving) = saving(before, &after, at)? else {
                    continue;
                };
                let freed_without =
                    |t: usize, p: Point| !self.without.holds(self.body, &self.liveness, t, p);
                let advice = Advice {
                    line,
                    target,
                    frees: self.timeline.freed_by(*point, &freed_without, &freed_with),
                    mem_rq_after: after,
                    saving,
                };
                let better = best
                    .get(place)
                    .is_none_or(|kept| (&advice.saving, kept.line) > (&kept.saving, advice.line));
                if better {
                    best.insert(place, advice);
                }
            }
        }
        let mut advice: Vec<Advice> = best.into_values().collect();
        advice.sort_by(|a, b| b.saving.cmp(&a.saving).then(a.line.cmp(&b.line)));
        Ok(advice)
    }
}

/// Liveness with the tracked fields (static, or of `this`) the method reads before writing them
/// live at its exits (its next call reads what this one leaves).
fn liveness(body: &Body, tracked: &[Tracked]) -> Liveness {
    let statics: BTreeSet<Location> = tracked
        .iter()
        .flat_map(|t| &t.holders)
        .filter(|place| matches!(place, Location::Static(_) | Location::Field(_)))
        .cloned()
        .collect();
    let first = Liveness::of(body, &BTreeSet::new());
    let entry = Point::new(membound_front::ir::BlockId(0), 0);
    let read_first: BTreeSet<Location> = first
        .live(entry)
        .iter()
        .filter(|place| statics.contains(place))
        .cloned()
        .collect();
    if read_first.is_empty() {
        first
    } else {
        Liveness::of(body, &read_first)
    }
}

/// How much `after` lowers `before`'s bytes: at `at`, or the most over the sample points; `None`
/// when it does not.
fn saving(
    before: &Amount,
    after: &Amount,
    at: Option<&BTreeMap<String, Rat>>,
) -> Result<Option<Rat>> {
    let difference = |point: &BTreeMap<String, Rat>| -> Result<Option<Rat>> {
        let (Value::Finite(b), Value::Finite(a)) =
            (value(&before.bytes, point)?, value(&after.bytes, point)?)
        else {
            return Ok(None);
        };
        Ok((a < b).then(|| b - a))
    };
    if let Some(point) = at {
        return difference(point);
    }
    let mut names: BTreeSet<String> = before.bytes.params().into_iter().collect();
    names.extend(after.bytes.params());
    let mut largest: Option<Rat> = None;
    for sample in SAMPLES {
        let point = names
            .iter()
            .map(|n| (n.clone(), Rat::from(sample)))
            .collect();
        if let Some(d) = difference(&point)? {
            largest = Some(largest.map_or(d.clone(), |l| l.max(d)));
        }
    }
    Ok(largest)
}

/// A quantity's value at `point`; a parameter `point` does not give is an input error.
pub(crate) fn value(quantity: &Quantity, point: &BTreeMap<String, Rat>) -> Result<Value> {
    quantity
        .eval(point)
        .map_err(|e| Error::Input(format!("--at: {e}")))
}

/// The point of the allocating statement at `pc`.
fn allocation_point(body: &Body, pc: u32) -> Option<Point> {
    points(body)
        .find(|(_, stmt)| {
            stmt.pc == pc
                && matches!(
                    &stmt.kind,
                    StmtKind::Assign {
                        value: Expr::New(_) | Expr::NewArray { .. },
                        ..
                    }
                )
        })
        .or_else(|| points(body).find(|(_, stmt)| stmt.pc == pc))
        .map(|(point, _)| point)
}

/// The point of the call at `pc`.
fn call_point(body: &Body, pc: u32) -> Option<Point> {
    points(body)
        .find(|(_, stmt)| stmt.pc == pc && matches!(stmt.kind, StmtKind::Invoke { .. }))
        .or_else(|| points(body).find(|(_, stmt)| stmt.pc == pc))
        .map(|(point, _)| point)
}

/// The first statement of `point`'s source line, when the whole line up to `point` is in
/// its block (a `x = null;` inserted before the line then runs right before it), and the line.
fn line_start(
    body: &Body,
    preds: &[Vec<membound_front::ir::BlockId>],
    point: Point,
) -> Option<(Point, u32)> {
    let stmts = &body.block(point.block).stmts;
    let line = stmts.get(point.index)?.line?;
    let mut index = point.index;
    while index > 0 && stmts[index - 1].line == Some(line) {
        index -= 1;
    }
    let continues_a_line = index == 0
        && preds[point.block.0 as usize]
            .iter()
            .any(|pred| body.block(*pred).stmts.last().and_then(|s| s.line) == Some(line));
    (!continues_a_line).then_some((Point::new(point.block, index), line))
}

/// The LocalVariableTable of a method: where each source variable is in scope.
struct Scopes {
    table: Vec<membound_front::classfile::LocalVariable>,
}

impl Scopes {
    fn of(program: &Program, method: &MethodRef) -> Scopes {
        let table = program
            .class(&method.class)
            .ok()
            .and_then(|class| {
                class
                    .methods
                    .iter()
                    .find(|m| m.name == method.name && m.descriptor == method.descriptor)
                    .and_then(|m| m.code.as_ref())
                    .map(|code| code.local_variables.clone())
            })
            .unwrap_or_default();
        Scopes { table }
    }

    /// How the source names `place` at `point`: a local variable in scope there (by the
    /// LocalVariableTable), or `Class.field`; `None` when the source cannot name it there.
    fn name(&self, body: &Body, place: &Location, point: Point) -> Option<String> {
        match place {
            Location::Static(field) => Some(format!(
                "{}.{}",
                field.class.simple().replace('$', "."),
                field.name
            )),
            Location::Field(field) => Some(format!("this.{}", field.name)),
            Location::Var(var) => self.variable(body, *var, point),
            Location::Cell(array, index) => {
                Some(format!("{}[{index}]", self.variable(body, *array, point)?))
            }
        }
    }

    /// The source name of a local variable in scope at `point`.
    fn variable(&self, body: &Body, var: VarId, point: Point) -> Option<String> {
        let variable = body.var(var);
        let slot = match variable.origin {
            VarOrigin::Local(_) | VarOrigin::Param(_) => references::slot(body, var)?,
            VarOrigin::This | VarOrigin::Stack(_) => return None,
        };
        let pc = stmt_at(body, point)?.pc;
        self.table
            .iter()
            .any(|row| {
                row.slot == slot
                    && *row.name == *variable.name
                    && row.start_pc <= pc
                    && pc < row.start_pc + row.length
            })
            .then(|| variable.name.to_string())
    }
}

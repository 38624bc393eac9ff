//! A callee's formal that views a ghost counter of its `this` (an `int` field the code only
//! ever increments by one, [`crate::lowering::GHOST_COUNTERS`]), bounded at a call the caller
//! cannot bind it at: em3d's `n.makeFromNodes()`, which allocates `new Node[fromCount]` for
//! nodes whose `fromCount` other nodes bumped.
//!
//! Under that assumption, every object's counter is 0 when the analyzed method starts; where
//! the caller runs at most once in its run and every increment is reachable only through it
//! ([`Counting::sees_every_increment`], else ∞ with that reason), the counters of all objects
//! sum at the call to at most the number `G` of increments of that field the caller runs. `G` is counted like an allocation: each increment's
//! executions from the invariant at it, each call's from its callee's count summed over the
//! call's set ([`Counting`]).
//!
//! - Where the call has another receiver at each execution (outside loops, or along a walked
//!   chain), the receivers' counters sum to at most `G`: with `q(f) <= c0 + c1·f` for `f >= 0`,
//!   the call's sum is at most `c0·executions + c1·G` ([`summed_over_receivers`]), linear.
//! - Otherwise each execution is bounded alone, at the callee's largest over `0 <= f <= G`, with
//!   [`super::fresh`]'s bound over a size (a counter is a tree without children):
//!   `executions · q(G)`, as if every receiver had received every increment. memRq's region
//!   over one call uses that bound too.

use std::collections::{BTreeSet, HashMap};

use membound_front::callgraph::NodeId;
use membound_jvm::{FieldRef, MethodRef};
use membound_polyhedra::{Affine, BasicSet, Constraint, Rat, Set};

use super::fresh::FreshBound;
use super::powers::PowerArgument;
use super::{Call, Inputs, MethodSummary, Qty};
use crate::lowering::CALLEE_PREFIX;

/// A callee's formal viewing a ghost counter of its `this`, at one call.
#[derive(Clone, Debug)]
pub(super) struct CounterBound {
    /// The callee's formal (not renamed).
    formal: String,
    /// The counter it views.
    field: FieldRef,
    /// The counter's increments one call of the caller runs, in the caller's formals.
    increments: Qty,
    /// Whether the call has another receiver at each execution in one activation
    /// ([`crate::lowering::Lowered::distinct_receivers`]): the increments then bound the sum
    /// of the counters over the call's executions.
    distinct: bool,
}

impl CounterBound {
    /// The counter, `p.C.f`.
    pub(super) fn field_name(&self) -> String {
        format!("{}.{}", self.field.class, self.field.name)
    }

    /// The bound of one execution: the counter between 0 and the increments.
    pub(super) fn per_execution(&self) -> FreshBound {
        FreshBound {
            size: format!("{CALLEE_PREFIX}{}", self.formal),
            children: Vec::new(),
            largest: self.increments.to_quantity(),
        }
    }
}

/// Per call at `pc` of `caller` into `callee`: the callee's formals viewing a ghost counter of
/// its `this`, each with the counter's increments that one call of `caller` runs; those whose
/// increments cannot be counted are left out, and all of them when the callee's totals summed
/// over the call are finite without them (`unbound` says they are not).
pub(super) fn counter_bounds(
    inputs: &Inputs<'_>,
    caller: NodeId,
    pc: u32,
    callee: &MethodSummary,
    unbound: impl FnOnce() -> bool,
) -> Vec<CounterBound> {
    let lowered = inputs.lowered;
    let method = &inputs.graph.methods[caller].method;
    let counters: Vec<(String, FieldRef)> = lowered
        .this_field_formals(&callee.method)
        .into_iter()
        .filter(|(name, field)| {
            callee.params.contains(name) && lowered.counter_status(field).is_ok()
        })
        .collect();
    let Some(params) = lowered.formal_names(method) else {
        return Vec::new();
    };
    if counters.is_empty() || !unbound() {
        return Vec::new();
    }
    counters
        .into_iter()
        .filter_map(|(formal, field)| {
            let mut counting = Counting::new(inputs, &field);
            if !counting.sees_every_increment(caller) {
                return None;
            }
            let increments = counting.per_call(caller)?.aligned(&params);
            Some(CounterBound {
                formal,
                field,
                increments,
                distinct: lowered.distinct_receivers(method, pc),
            })
        })
        .collect()
}

/// `Σ qty` over the executions `executions` counts of a call with distinct receivers, where
/// `qty` reads only one counter formal: with `qty(f) <= c0 + c1·f` for `f >= 0`
/// ([`affine_envelope`]), at most `c0·executions + c1·increments`, since the receivers'
/// counters sum to at most the increments. `None` where that does not apply.
pub(super) fn summed_over_receivers(
    qty: &Qty,
    counters: &[CounterBound],
    executions: impl FnOnce() -> Qty,
) -> Option<Qty> {
    let [variable] = qty.variables().try_into().ok()?;
    let counter = counters
        .iter()
        .find(|counter| counter.distinct && counter.formal == variable)?;
    let (constant, slope) = affine_envelope(qty, &variable)?;
    let params = counter.increments.params();
    let executions = executions();
    (!executions.may_be_infinite()).then(|| {
        executions
            .aligned(&params)
            .scale(&constant)
            .add(&counter.increments.scale(&slope))
    })
}

/// `(c0, c1)` with `qty(f) <= c0 + c1·f` for every integer `f >= 0`, when `qty` is a
/// piecewise quasi-polynomial of `f` alone of degree at most 1 in it: per piece that meets
/// `f >= 0`, its largest slope and constant over its residue classes, their positive parts
/// summed over the pieces (a bound whether pieces overlap or not).
fn affine_envelope(qty: &Qty, name: &str) -> Option<(Rat, Rat)> {
    let Qty::Finite(pw) = qty.over_its_variables() else {
        return None;
    };
    let nonnegative = BasicSet {
        space: pw.space.clone(),
        locals: Vec::new(),
        constraints: vec![Constraint::ge(Affine::var(0))],
    };
    let (mut constant, mut slope) = (Rat::zero(), Rat::zero());
    for piece in &pw.pieces {
        let meets = piece
            .domain
            .parts
            .iter()
            .any(|part| !part.intersect(&nonnegative).to_polyhedron().is_empty());
        if !meets {
            continue;
        }
        let (mut largest_constant, mut largest_slope) = (Rat::zero(), Rat::zero());
        for class in piece.qp.classes() {
            let coefficients = class.coefficients_in(&name.to_string());
            let [at_zero, rest @ ..] = coefficients.as_slice() else {
                return None;
            };
            let per_unit = match rest {
                [] => Rat::zero(),
                [per_unit] => per_unit.as_constant()?,
                _ => return None,
            };
            largest_constant = largest_constant.max(at_zero.as_constant()?);
            largest_slope = largest_slope.max(per_unit);
        }
        constant += largest_constant;
        slope += largest_slope;
    }
    Some((constant, slope))
}

/// Why a callee's formal viewing a field of its `this` is not bounded through it as a ghost
/// counter at a call of `caller`, when the field is incremented somewhere: `field p.C.f is no
/// ghost counter: …`, or a counter whose increments `caller` does not see all of.
pub(super) fn not_counters(
    inputs: &Inputs<'_>,
    caller: NodeId,
    callee: &MethodRef,
    formals: &[String],
) -> String {
    inputs
        .lowered
        .this_field_formals(callee)
        .into_iter()
        .filter(|(name, _)| formals.contains(name))
        .filter_map(|(_, field)| {
            let name = format!("{}.{}", field.class, field.name);
            match inputs.lowered.counter_status(&field) {
                Ok(()) if !Counting::new(inputs, &field).sees_every_increment(caller) => {
                    Some(format!(
                        " (field {name} is a ghost counter, but increments may run before this \
                         method starts, or it may run more than once)"
                    ))
                }
                Ok(()) => None,
                Err(why) => Some(format!(" (field {name} is no ghost counter: {}", why?) + ")"),
            }
        })
        .collect()
}

/// `set` without its constraints on parameters alone (`a.length >= 0`): a superset, whose count
/// is at least the set's where the parameters satisfy them and depends on no parameter that only
/// they read, so that a caller passing an array whose length it does not know (em3d's tables)
/// still counts the increments of a loop bounded by another argument.
fn without_parameter_guards(set: &Set) -> Set {
    let parts = set
        .parts
        .iter()
        .map(|part| {
            let params = part.n_params();
            let mut relaxed = part.clone();
            relaxed
                .constraints
                .retain(|constraint| constraint.expr.support().any(|column| column >= params));
            relaxed
        })
        .collect();
    Set {
        space: set.space.clone(),
        parts,
    }
}

/// The increments of one counter that calls of methods run, counted once per method.
struct Counting<'a> {
    inputs: &'a Inputs<'a>,
    field: &'a FieldRef,
    /// Per node, whether its own code increments the counter.
    incrementing: Vec<bool>,
    /// Per node, whether running it may run an increment of the counter.
    increments_below: Vec<bool>,
    /// Per method counted so far, its count (`None`: not bounded, or on a recursion).
    known: HashMap<NodeId, Option<Qty>>,
}

impl<'a> Counting<'a> {
    fn new(inputs: &'a Inputs<'a>, field: &'a FieldRef) -> Counting<'a> {
        let incrementing: Vec<bool> = inputs
            .graph
            .methods
            .iter()
            .map(|node| {
                inputs
                    .lowered
                    .counter_increments(&node.method)
                    .iter()
                    .any(|(_, counter)| counter == field)
            })
            .collect();
        Counting {
            inputs,
            field,
            increments_below: crate::sites::reaching(inputs.graph, incrementing.clone()),
            incrementing,
            known: HashMap::new(),
        }
    }

    /// Whether every increment of the counter that a run of the analyzed method (the call
    /// graph's entry) makes runs inside the one activation of `caller` it can have: `caller`
    /// runs at most once, and no increment is reachable from the entry but through it. Then
    /// only [`crate::lowering::GHOST_COUNTERS`]'s objects from before the entry can hold more
    /// than the increments `caller` runs.
    fn sees_every_increment(&self, caller: NodeId) -> bool {
        const ENTRY: NodeId = 0;
        let graph = self.inputs.graph;
        if caller == ENTRY {
            return true;
        }
        let mut seen = vec![false; graph.methods.len()];
        let mut stack = vec![ENTRY];
        while let Some(node) = stack.pop() {
            if node == caller || std::mem::replace(&mut seen[node], true) {
                continue;
            }
            if self.incrementing[node] {
                return false;
            }
            stack.extend(
                graph
                    .edges
                    .iter()
                    .filter(|e| e.caller == node)
                    .map(|e| e.callee),
            );
        }
        self.runs_once(caller, &mut BTreeSet::new())
    }

    /// Whether `node` runs at most once per run of the entry: it is the entry, or one call
    /// outside every loop of a method that runs at most once is the only one that reaches it.
    fn runs_once(&self, node: NodeId, visiting: &mut BTreeSet<NodeId>) -> bool {
        if node == 0 {
            return true;
        }
        if !visiting.insert(node) {
            return false;
        }
        let graph = self.inputs.graph;
        let mut calls: Vec<(NodeId, u32)> = graph
            .edges
            .iter()
            .filter(|edge| edge.callee == node)
            .map(|edge| (edge.caller, edge.pc))
            .collect();
        calls.sort_unstable();
        calls.dedup();
        let [(from, pc)] = calls.as_slice() else {
            return false;
        };
        let method = &graph.methods[*from].method;
        self.inputs.lowered.call_outside_loops(method, *pc) && self.runs_once(*from, visiting)
    }
}

impl Counting<'_> {
    /// The increments one call of `node` runs, in its formals; `None` when they are not
    /// bounded (a recursion, a call or an increment not counted).
    fn per_call(&mut self, node: NodeId) -> Option<Qty> {
        if let Some(known) = self.known.get(&node) {
            return known.clone();
        }
        // A recursion back to `node` is not counted.
        self.known.insert(node, None);
        let counted = self.count(node);
        self.known.insert(node, counted.clone());
        counted
    }

    fn count(&mut self, node: NodeId) -> Option<Qty> {
        let (graph, lowered) = (self.inputs.graph, self.inputs.lowered);
        let method = &graph.methods[node].method;
        let params = lowered.formal_names(method)?;
        let mut total = Qty::zero(&params);
        for (pc, _) in lowered
            .counter_increments(method)
            .iter()
            .filter(|(_, counter)| counter == self.field)
        {
            let invariant = lowered.local_invariant(method, *pc).ok()?;
            let executions = without_parameter_guards(&invariant.executions_set().to_set());
            let executions = Qty::count_of(&executions).ok()?;
            total = total.add(&executions.aligned(&params));
        }
        let mut calls: Vec<(u32, NodeId)> = graph
            .edges
            .iter()
            .filter(|edge| edge.caller == node)
            .map(|edge| (edge.pc, edge.callee))
            .collect();
        calls.sort_unstable();
        calls.dedup();
        for (pc, callee) in calls {
            if !self.increments_below[callee] {
                continue;
            }
            let per_call = self.per_call(callee)?;
            let callee_method = &graph.methods[callee].method;
            let set = lowered.call_set(method, pc, callee_method).ok()?;
            let call = Call {
                counters: Vec::new(),
                powers: PowerArgument::of_pairs(lowered.power_of_two_arguments(
                    self.inputs.program,
                    method,
                    pc,
                    callee_method,
                )),
                fresh: Vec::new(),
                set,
            };
            let summed = call.sum(&per_call, &call.set.set.to_set()).ok()?;
            total = total.add(&summed.aligned(&params));
        }
        (!total.may_be_infinite()).then_some(total)
    }
}

//! Recursive methods: their summaries as solutions of cost relations.
//!
//! A method `m` that calls itself gets, per quantity `q` of its summary (each site's count,
//! objects and bytes, its memAlloc), the cost relation
//! `q(p) = base(p) + Σ_i Σ_{(e, x) ∈ S_i(p)} q(x)`, where `base` is what one activation allocates
//! outside its recursive calls (its own sites and its other callees, composed as for any
//! method) and `S_i` is the set of the recursive call at offset `i` (its executions with the
//! values the formals take there: [`crate::lowering::Lowered::call_set`]).
//!
//! The shape solved here exactly is a *descent*: every recursive call passes one formal `p_j`
//! decreased by the same constant `k >= 1` and every other formal unchanged, runs a constant
//! number `b_i` of times per activation, and runs exactly when `p_j >= g` (the guard). Then the
//! activations form levels `l = 0, 1, …` with `p_j - l·k` at level `l`, level `l` existing when
//! `l = 0` or the guard held one level up, and with `b = Σ b_i` activations per activation:
//! `q(p) = Σ_l b^l · base(p - l·k·e_j)`. For `b = 1` that sum is a weighted count over the
//! levels (the polyhedra crate sums `base` over them exactly).
//!
//! Where there is no descent (an argument halved or cut at a middle, several calls descending
//! by different amounts), a measure of the formals may still shrink on every call by a law
//! that bounds the activations ([`super::measured`]). Anything else (a number of recursive
//! calls that depends on the parameters, no measure) is ∞ with the
//! reason. The objects' places follow the escape analysis's translations: a place reached
//! through the recursive calls is closed over them, and where objects of one site may end up in
//! several places each place is charged with all of them (an over-approximation).

use std::collections::{BTreeMap, BTreeSet};

use membound_bernstein::guard::affine_to_linear;
use membound_bernstein::{Arm, Atom, BoundExpr, Guard, simplify};
use membound_front::callgraph::{Edge, NodeId};
use membound_polyhedra::{
    Affine, BasicSet, Constraint, CountError, Int, Polyhedron, Rat, Relation, Set, Space,
};

use super::geometric;
use super::measured::Measured;
use super::phases::Phases;
use super::{
    Counted, Divergence, Entries, Inputs, Layered, Levels, MethodSummary, Place, Qty, Recursion,
    add_part, add_reasons, entry, method_summary,
};
use crate::escape::Fate;
use crate::lowering::{CALLEE_PREFIX, CallSet, PathCall};
use membound_jvm::MethodRef;

/// A recursive call of the method being solved: a call of its own, or a path of calls through
/// other members of its component that comes back to it.
struct RecursiveCall {
    /// The offset of the method's own call that starts it.
    pc: u32,
    /// Its calls, outermost first: (caller, offset, callee) nodes.
    steps: Vec<(NodeId, u32, NodeId)>,
    set: CallSet,
}

/// The summaries of a recursive component's members: for a single method calling itself, its
/// cost relation solved; for several, the relation of a header (a member whose removal leaves
/// no cycle) over the paths that come back to it, then the other members composed as usual.
/// The summaries of the component's callees must be in `summaries`; the members' are added.
pub(super) fn component(
    inputs: &Inputs<'_>,
    summaries: &mut Layered<'_>,
    component: &[NodeId],
    adjacency: &[Vec<&Edge>],
) -> Result<(), String> {
    let (header, order) = header_and_order(component, adjacency)?;
    // The others without the header: their calls into it are left out for now.
    for &member in &order {
        let summary = method_summary(inputs, summaries, &adjacency[member], member);
        summaries.set(member, summary);
    }
    let base = method_summary(inputs, summaries, &adjacency[header], header);
    let calls = recursive_calls(inputs, header, component, adjacency)?;
    let solved = solve(inputs, base, &calls)?;
    summaries.push(header, solved);
    for &member in &order {
        let summary = method_summary(inputs, summaries, &adjacency[member], member);
        summaries.push(member, summary);
    }
    Ok(())
}

/// A member whose removal leaves the component without a cycle, and the others in an order
/// where each comes after the members it calls.
fn header_and_order(
    component: &[NodeId],
    adjacency: &[Vec<&Edge>],
) -> Result<(NodeId, Vec<NodeId>), String> {
    for &header in component {
        if let Some(order) = acyclic_order(component, adjacency, header) {
            return Ok((header, order));
        }
    }
    Err("no member of the recursive component cuts all its cycles".to_string())
}

/// The members other than `header`, callees first, when the calls among them have no cycle.
fn acyclic_order(
    component: &[NodeId],
    adjacency: &[Vec<&Edge>],
    header: NodeId,
) -> Option<Vec<NodeId>> {
    let others: Vec<NodeId> = component.iter().copied().filter(|&m| m != header).collect();
    let mut order: Vec<NodeId> = Vec::new();
    while order.len() < others.len() {
        let ready = others.iter().copied().find(|&m| {
            !order.contains(&m)
                && adjacency[m].iter().all(|edge| {
                    edge.callee == header
                        || !others.contains(&edge.callee)
                        || order.contains(&edge.callee)
                })
        })?;
        order.push(ready);
    }
    Some(order)
}

/// The most paths from the header back to itself that are solved together.
const MAX_PATHS: usize = 64;

/// Every path of calls from `header` back to it through the other members, with its set.
fn recursive_calls(
    inputs: &Inputs<'_>,
    header: NodeId,
    component: &[NodeId],
    adjacency: &[Vec<&Edge>],
) -> Result<Vec<RecursiveCall>, String> {
    let mut paths: Vec<Vec<(NodeId, u32, NodeId)>> = Vec::new();
    let mut stack: Vec<Vec<(NodeId, u32, NodeId)>> = vec![Vec::new()];
    while let Some(path) = stack.pop() {
        let at = path.last().map_or(header, |&(_, _, callee)| callee);
        let mut offsets: Vec<(u32, NodeId)> = adjacency[at]
            .iter()
            .filter(|edge| component.contains(&edge.callee))
            .map(|edge| (edge.pc, edge.callee))
            .collect();
        offsets.dedup();
        for (pc, callee) in offsets {
            let mut next = path.clone();
            next.push((at, pc, callee));
            if callee == header {
                paths.push(next);
            } else {
                stack.push(next);
            }
            if paths.len() + stack.len() > MAX_PATHS {
                return Err(format!("more than {MAX_PATHS} recursive paths"));
            }
        }
    }
    let method = |node: NodeId| inputs.graph.methods[node].method.clone();
    paths
        .into_iter()
        .map(|steps| {
            let calls: Vec<PathCall> = steps
                .iter()
                .map(|&(caller, pc, callee)| PathCall {
                    caller: method(caller),
                    pc,
                    callee: method(callee),
                })
                .collect();
            let set = inputs.lowered.path_set(&calls).map_err(|e| e.to_string())?;
            Ok(RecursiveCall {
                pc: steps[0].1,
                steps,
                set,
            })
        })
        .collect()
}

/// The summary of a recursive method from `base` (one activation without its recursive calls)
/// and its recursive calls, when they descend or a measure bounds them (see the module
/// documentation).
fn solve(
    inputs: &Inputs<'_>,
    base: MethodSummary,
    calls: &[RecursiveCall],
) -> Result<MethodSummary, String> {
    let sets: Vec<(u32, CallSet)> = calls.iter().map(|c| (c.pc, c.set.clone())).collect();
    let shape = Shape::of(&base.params, &sets)
        .map_err(|why| without_integer_arguments(inputs, &base, why))?;
    let solve = |qty: &Qty| shape.total(qty, &base.params);
    // Each site's total over all levels, then what each recursive call contributes.
    let mut entries = Entries::new();
    let mut totals: BTreeMap<usize, (Counted, BTreeSet<Place>, Vec<String>)> = BTreeMap::new();
    for site in &base.sites {
        entries.insert((site.via, site.site), site.clone());
        if site.once {
            // Class initializers run once per run, however many activations reach them.
            continue;
        }
        let (counted, places, reasons) = totals.entry(site.site).or_insert_with(|| {
            (
                super::Counted::zero(&base.params),
                BTreeSet::new(),
                Vec::new(),
            )
        });
        *counted = counted.add(&site.total(&base.params));
        places.extend(site.parts.keys().cloned());
        reasons.extend(site.reasons.iter().cloned());
    }
    for (site, (base_total, places, reasons)) in totals {
        let total = base_total.try_map_string(&solve)?;
        for call in calls {
            let through = places_through(inputs, call, &places, calls);
            let summed = match call.set.shares.is_empty() {
                true => {
                    let set = call.set.set.to_set();
                    total
                        .map(|q| q.renamed(&|n| format!("{CALLEE_PREFIX}{n}")))
                        .try_map_string(&|q| q.sum_over(&set).map_err(|e| e.to_string()))?
                        .map(|q| q.aligned(&base.params))
                }
                // Calls on elements of a tree's array field leave the element's size free
                // between 0 and the elements' sum, so a sum over the call's points would count
                // every size; the activations under all of them are among this one's, which
                // the solved total counts.
                false => total.clone(),
            };
            let target = entry(&mut entries, Some(call.pc), site);
            add_reasons(target, &reasons);
            for place in &through {
                add_part(target, place.clone(), summed.clone());
            }
        }
    }
    let objects = solve(&base.objects)?;
    let bytes = solve(&base.bytes)?;
    let bounded = base.unbounded.is_empty();
    Ok(MethodSummary {
        sites: entries.into_values().collect(),
        objects: if bounded { objects } else { Qty::Inf },
        bytes: if bounded { bytes } else { Qty::Inf },
        recursion: Some(Recursion {
            levels: shape.levels(&base.params),
            paths: calls.iter().map(|c| c.steps.clone()).collect(),
        }),
        diverges: base
            .diverges
            .iter()
            .cloned()
            .chain(shape.never_stops(&base.method, &base.params))
            .collect(),
        ..base
    })
}

/// Why a recursion has no shape, led by what its depth follows when none of its formals is one
/// of its arguments (each is a field view or a local set from a call's result, or there are
/// none): the objects its reference arguments reach, which no measure of integers sees.
fn without_integer_arguments(inputs: &Inputs<'_>, base: &MethodSummary, why: String) -> String {
    let views = inputs.lowered.view_params(&base.method);
    if views.len() < base.params.len() {
        return why;
    }
    let formals: Vec<String> = views
        .iter()
        .map(|(name, origin)| format!("{name}: {origin}"))
        .collect();
    let formals = match formals.is_empty() {
        true => "it has no integer formal".to_string(),
        false => format!(
            "none of its formals is an argument ({})",
            formals.join("; ")
        ),
    };
    format!("its depth follows the objects its arguments reach, not an integer: {formals}; {why}")
}

impl Counted {
    fn try_map_string(&self, f: &dyn Fn(&Qty) -> Result<Qty, String>) -> Result<Counted, String> {
        Ok(Counted {
            count: f(&self.count)?,
            objects: f(&self.objects)?,
            bytes: f(&self.bytes)?,
        })
    }
}

/// Where objects of a site that the deeper activations allocate live for this activation,
/// reached through the recursive call `call`: the places the site has in one activation,
/// closed under every recursive call's translations, then translated through `call`.
fn places_through(
    inputs: &Inputs<'_>,
    call: &RecursiveCall,
    places: &BTreeSet<Place>,
    calls: &[RecursiveCall],
) -> BTreeSet<Place> {
    let mut closed = places.clone();
    loop {
        let next: BTreeSet<Place> = closed
            .iter()
            .flat_map(|place| calls.iter().map(move |c| through_steps(inputs, place, c)))
            .collect();
        if next.is_subset(&closed) {
            break;
        }
        closed.extend(next);
    }
    closed
        .iter()
        .map(|place| through_steps(inputs, place, call))
        .collect()
}

/// A place for the call's last callee, seen from its first caller: translated call by call,
/// innermost first.
fn through_steps(inputs: &Inputs<'_>, place: &Place, call: &RecursiveCall) -> Place {
    call.steps
        .iter()
        .rev()
        .fold(place.clone(), |place, &(caller, pc, callee)| match place {
            Place::Captured | Place::Below => Place::Below,
            Place::Escapes(node) => match inputs.fates.through_call(caller, pc, callee, &node) {
                Fate::Captured => Place::Captured,
                Fate::Escapes(seen) => Place::Escapes(seen),
            },
        })
}

/// How a recursion's activations nest: a descent of one formal (exact over its levels) or, where
/// there is none, a measure that shrinks by a law ([`Measured`]).
enum Shape {
    /// A descent, with its levels under an activation.
    Descent(Descent, Set),
    Measured(Measured),
    /// A measure, and a tighter one on a line `line = 0` of the formals that the recursion
    /// keeps ([`Measured::on_kept_line`]).
    OnLine {
        general: Measured,
        line: Affine,
        on_line: Measured,
    },
    Phases(Phases),
}

impl Shape {
    fn of(params: &[String], calls: &[(u32, CallSet)]) -> Result<Shape, String> {
        let descent = Descent::of(params, calls).and_then(|descent| {
            if descent.branching != 1 && descent.k != Int::from(1) {
                return Err(format!(
                    "{} recursive calls per activation, descending by {}: no closed form here",
                    descent.branching, descent.k
                ));
            }
            Ok(descent)
        });
        let why = match descent {
            Ok(descent) => {
                let levels = descent.levels(params);
                return Ok(Shape::Descent(descent, levels));
            }
            Err(why) => why,
        };
        let measured = match Measured::of(params, calls) {
            Ok(general) => {
                return Ok(match Measured::on_kept_line(params, calls) {
                    Some((line, on_line)) => Shape::OnLine {
                        general,
                        line,
                        on_line,
                    },
                    None => Shape::Measured(general),
                });
            }
            Err(measured) => measured,
        };
        let phases = match Phases::of(params, calls) {
            Ok(phases) => return Ok(Shape::Phases(phases)),
            Err(phases) => phases,
        };
        Measured::within_region(params, calls)
            .map(Shape::Measured)
            .map_err(|region| format!("{why}; {measured}; {phases}; {region}"))
    }

    /// The total of `qty` (its value in one activation) over the activations under a call.
    fn total(&self, qty: &Qty, params: &[String]) -> Result<Qty, String> {
        match self {
            Shape::Descent(descent, levels) if descent.branching == 1 => {
                sum_over_levels(qty, levels, params).map_err(|e| e.to_string())
            }
            Shape::Descent(descent, _) => {
                geometric::levels_sum(qty, descent.branching, params, descent.j, &descent.guard)
            }
            Shape::Measured(measured) => measured.total(qty, params),
            Shape::OnLine {
                general,
                line,
                on_line,
            } => {
                let on_line = on_line.total(qty, params)?.to_quantity();
                let general = general.total(qty, params)?.to_quantity();
                Ok(Qty::Expr(on_the_line(line, params, on_line, general)))
            }
            Shape::Phases(phases) => phases.total(qty, params),
        }
    }

    fn levels(&self, params: &[String]) -> Levels {
        match self {
            Shape::Descent(_, levels) => Levels::Points(levels.clone()),
            Shape::Measured(measured) => Levels::Depth(measured.depth(params)),
            Shape::OnLine {
                general,
                line,
                on_line,
            } => Levels::Depth(on_the_line(
                line,
                params,
                on_line.depth(params),
                general.depth(params),
            )),
            Shape::Phases(phases) => Levels::Depth(phases.depth(params)),
        }
    }

    fn never_stops(&self, method: &MethodRef, params: &[String]) -> Option<Divergence> {
        match self {
            Shape::Descent(descent, _) => descent.never_stops(method, params),
            // Every law makes the measure shrink below 1, where no call is made (in the
            // measure's region, if it has one), and so does each phase.
            Shape::Measured(measured)
            | Shape::OnLine {
                general: measured, ..
            } => measured.unbounded_outside(method, params),
            Shape::Phases(_) => None,
        }
    }
}

/// `on_line` where `line = 0` (an affine form of the formals `params`), `elsewhere` otherwise.
fn on_the_line(
    line: &Affine,
    params: &[String],
    on_line: BoundExpr,
    elsewhere: BoundExpr,
) -> BoundExpr {
    let guard = Guard::from_atoms(vec![Atom::eq(affine_to_linear(line, params))]);
    simplify(
        &BoundExpr::Cases {
            arms: vec![Arm {
                guard,
                expr: on_line,
            }],
            default: Box::new(elsewhere),
        },
        &Guard::always(),
    )
}

/// The recursion's shape: formal `j` descends by `k` while `p_j >= guard`, with `branching`
/// recursive calls per activation; below `diverges_from` (when some recursive call also runs
/// for `p_j <= diverges_from`, as `if (n == 0) return` lets it) it never stops.
#[derive(Debug)]
struct Descent {
    j: usize,
    k: Int,
    guard: Int,
    diverges_from: Option<Int>,
    branching: u64,
}

impl Descent {
    /// The descent of these recursive calls (each one's set over `params`), or why there is
    /// none.
    fn of(params: &[String], calls: &[(u32, CallSet)]) -> Result<Descent, String> {
        let mut found: Option<Descent> = None;
        for (pc, call) in calls {
            let shape =
                call_shape(params, call).map_err(|why| format!("the call at {pc}: {why}"))?;
            match &mut found {
                None => found = Some(shape),
                Some(descent)
                    if descent.j == shape.j
                        && descent.k == shape.k
                        && descent.guard == shape.guard =>
                {
                    descent.branching += shape.branching;
                    descent.diverges_from =
                        match (descent.diverges_from.take(), shape.diverges_from) {
                            (Some(a), Some(b)) => Some(a.max(b)),
                            (a, b) => a.or(b),
                        };
                }
                Some(_) => {
                    return Err(
                        "its recursive calls descend differently: no closed form".to_string()
                    );
                }
            }
        }
        let descent = found.ok_or_else(|| "no recursive call".to_string())?;
        // From p_j >= guard, descending by k lands in guard - k .. guard - 1, which must stop:
        // none of it may be where the recursion goes on for ever.
        if let Some(h) = &descent.diverges_from
            && descent.guard.clone() - h.clone() - Int::from(1) < descent.k
        {
            return Err(
                "a descent from where the recursion stops can reach where it does not".to_string(),
            );
        }
        Ok(descent)
    }

    /// Where the recursion through `method` never stops: `p_j <= diverges_from`, over
    /// `params`.
    fn never_stops(&self, method: &MethodRef, params: &[String]) -> Option<Divergence> {
        let h = self.diverges_from.clone()?;
        let mut region = BasicSet::universe(Space::new(params.to_vec(), Vec::new()));
        region.add_constraint(Constraint::ge(
            Affine::constant(Rat::from(h.clone())).sub(&Affine::var(self.j)),
        ));
        Some(Divergence {
            region,
            why: format!(
                "recursion through {method} never stops for {} <= {h}",
                params[self.j]
            ),
        })
    }

    /// The levels of the activations under one with formals `params`: the set over `params`
    /// with dims `level` and the formals at that level (named as in a call set), one point per
    /// level: `l = 0`, or `l >= 1` with the guard holding at level `l - 1`.
    fn levels(&self, params: &[String]) -> Set {
        let n = params.len();
        let mut dims = vec!["level".to_string()];
        dims.extend(params.iter().map(|p| format!("{CALLEE_PREFIX}{p}")));
        let space = Space::new(params.to_vec(), dims);
        let level = n;
        let formal = |index: usize| n + 1 + index;
        // x_i = p_i for i != j, x_j = p_j - k·l.
        let mut base = BasicSet::universe(space.clone());
        for index in 0..n {
            let mut expr = Affine::var(formal(index)).sub(&Affine::var(index));
            if index == self.j {
                expr = expr.add(&Affine::term(level, Rat::from(self.k.clone())));
            }
            base.add_constraint(Constraint::eq(expr));
        }
        let mut root = base.clone();
        root.add_constraint(Constraint::eq(Affine::var(level)));
        // l >= 1 and p_j - k·(l - 1) >= guard.
        let mut deeper = base;
        deeper.add_constraint(Constraint::ge(
            Affine::var(level).sub(&Affine::constant(Rat::from(1))),
        ));
        deeper.add_constraint(Constraint::ge(
            Affine::var(self.j)
                .sub(&Affine::term(level, Rat::from(self.k.clone())))
                .add(&Affine::constant(Rat::from(
                    self.k.clone() - self.guard.clone(),
                ))),
        ));
        Set {
            space,
            parts: vec![root, deeper],
        }
    }
}

/// `Σ_levels qty(formals at the level)`, in the activation's formals.
fn sum_over_levels(qty: &Qty, levels: &Set, params: &[String]) -> Result<Qty, CountError> {
    let renamed = qty.renamed(&|n| format!("{CALLEE_PREFIX}{n}"));
    Ok(renamed.sum_over(levels)?.aligned(params))
}

/// The descent of one recursive call: which formal decreases by how much, under which guard,
/// how many times per activation. Its binding may have several parts (a guard `n != 0` is
/// `n >= 1` or `n <= -1`), each descending alike: those where the formal is bounded below are
/// where the descent stops, those where it is bounded above where it goes on for ever.
fn call_shape(params: &[String], call: &CallSet) -> Result<Descent, String> {
    let n = params.len();
    let formals: Vec<&str> = call.formals.iter().map(String::as_str).collect();
    let bound = call.set.project_onto(&formals);
    let mut shape: Option<(usize, Int)> = None;
    let mut guard: Option<Int> = None;
    let mut diverges_from: Option<Int> = None;
    for part in &bound.value.parts {
        // Congruences only remove points: shapes read from the polyhedron hold on the part.
        let poly = part.poly.minimized();
        let descent = descending_formal(params, &poly)?;
        if shape.as_ref().is_some_and(|s| *s != descent) {
            return Err("the parts of its binding descend differently".to_string());
        }
        match side_of(&poly, n, descent.0)? {
            Side::Stops(g) => {
                if guard.as_ref().is_some_and(|existing| *existing != g) {
                    return Err("the parts of its binding have different guards".to_string());
                }
                guard = Some(g);
            }
            Side::Diverges(h) => {
                diverges_from = Some(diverges_from.map_or(h.clone(), |d: Int| d.max(h)));
            }
        }
        shape = Some(descent);
    }
    let (j, k) = shape.ok_or_else(|| "the call never runs".to_string())?;
    let guard = guard.ok_or_else(|| {
        "the recursion's guard is not a lower bound on the decreasing formal".to_string()
    })?;
    let branching = executions_per_activation(call)?;
    Ok(Descent {
        j,
        k,
        guard,
        diverges_from,
        branching,
    })
}

/// The formal that decreases (by how much) in one polyhedron of a binding, every other one
/// unchanged.
fn descending_formal(params: &[String], poly: &Polyhedron) -> Result<(usize, Int), String> {
    let n = params.len();
    // Columns: params 0..n, then the callee's formals n..2n.
    let mut descending = None;
    for (index, param) in params.iter().enumerate() {
        let difference = Affine::var(index).sub(&Affine::var(n + index));
        let Some(k) = constant_value(poly, &difference) else {
            return Err(format!(
                "formal {param} of the recursive call is not its own value minus a constant"
            ));
        };
        if k.is_zero() {
            continue;
        }
        if descending.is_some() || !k.is_integer() || k < Rat::from(1) {
            return Err("more than one formal changes, or one does not decrease".to_string());
        }
        descending = Some((index, k.numer().clone()));
    }
    descending.ok_or_else(|| "no formal decreases".to_string())
}

/// Where a part of a recursive call's binding lies in the decreasing formal `p_j`.
enum Side {
    /// `p_j >= g`: descending leaves it.
    Stops(Int),
    /// `p_j <= h`: descending stays in it.
    Diverges(Int),
}

/// The side of a binding part: its parameters projected out of everything else must be one
/// bound on `p_j`.
fn side_of(poly: &Polyhedron, n: usize, j: usize) -> Result<Side, String> {
    let params_only = poly.project_onto(&(0..n).collect::<Vec<_>>()).minimized();
    let not_a_bound =
        || "the recursion's guard is not a lower bound on the decreasing formal".to_string();
    let [constraint] = params_only.constraints() else {
        return Err(not_a_bound());
    };
    let coefficient = constraint.expr.coeff(j);
    if constraint.rel != Relation::Ge
        || !constraint.expr.support().eq([j])
        || !constraint.expr.constant.is_integer()
    {
        return Err(not_a_bound());
    }
    let constant = constraint.expr.constant.numer().clone();
    if coefficient == Rat::from(1) {
        Ok(Side::Stops(-constant))
    } else if coefficient == Rat::from(-1) {
        Ok(Side::Diverges(constant))
    } else {
        Err(not_a_bound())
    }
}

/// The value of `expr` when the polyhedron's equalities fix it to a constant: `expr` minus a
/// combination of them is constant (Gaussian elimination over the equalities).
fn constant_value(poly: &Polyhedron, expr: &Affine) -> Option<Rat> {
    let mut rows: Vec<Affine> = Vec::new();
    for constraint in poly.constraints().iter().filter(|c| c.rel == Relation::Eq) {
        let mut row = constraint.expr.clone();
        for pivoted in &rows {
            row = eliminate(&row, pivoted);
        }
        if row.support().next().is_some() {
            rows = rows.iter().map(|r| eliminate(r, &row)).collect();
            rows.push(row);
        }
    }
    let mut rest = expr.clone();
    for row in &rows {
        rest = eliminate(&rest, row);
    }
    rest.is_constant().then_some(rest.constant)
}

/// `expr` without the first variable of `row` (a pivot row).
fn eliminate(expr: &Affine, row: &Affine) -> Affine {
    let Some(pivot) = row.support().next() else {
        return expr.clone();
    };
    let factor = expr.coeff(pivot) / row.coeff(pivot);
    if factor.is_zero() {
        return expr.clone();
    }
    expr.sub(&row.scale(&factor))
}

/// How often the call runs per activation, when that is a constant.
pub(super) fn executions_per_activation(call: &CallSet) -> Result<u64, String> {
    if call.executions.is_empty() {
        return Ok(1);
    }
    let kept: Vec<&str> = call.executions.iter().map(String::as_str).collect();
    let count = Qty::count_of(&call.set.project_onto(&kept).to_set()).map_err(|e| e.to_string())?;
    let Qty::Finite(pw) = &count else {
        return Err("the recursive call runs an unbounded number of times".to_string());
    };
    let values: BTreeSet<Rat> = pw
        .pieces
        .iter()
        .filter_map(|piece| piece.qp.as_polynomial()?.as_constant())
        .collect();
    let constant_everywhere = pw.pieces.iter().all(|piece| {
        piece
            .qp
            .as_polynomial()
            .is_some_and(|p| p.as_constant().is_some())
    });
    match (values.len(), constant_everywhere) {
        (1, true) => {
            let value = values.into_iter().next().unwrap_or_default();
            u64::try_from(value.numer().clone())
                .map_err(|_| "too many recursive calls per activation".to_string())
        }
        _ => Err(
            "the number of recursive calls per activation depends on the parameters".to_string(),
        ),
    }
}

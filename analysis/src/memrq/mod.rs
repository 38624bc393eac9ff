//! Region sizes and memRq: how much memory a method needs when every method's region is freed
//! as it returns (the thesis's chapter 7), from the per-method summaries.
//!
//! memCaptured(m) sums what m's summary places in m's own region, memEscapes(m) what outlives m;
//! both are in m's parameters. The region stack below a call of m holds at most m's region and,
//! at any time, the stack below one of its calls (siblings never hold their regions at the same
//! time), so `R(m) = memCaptured(m) + max over m's calls c of (max of R(callee) over c's binding
//! invariant)` — the callee's formals range over the values the call gives them, and the maximum
//! is bounded by Bernstein expansion ([`membound_bernstein::bound_expr_over`]) — and
//! `memRq(m) = memEscapes(m) + R(m)`.
//!
//! Soundness: every object allocated under `m` is either in the region of some method on the
//! stack of its allocation or escapes `m`. What cannot be bounded is ∞ with a reason: a method
//! reaching unknown code has ∞ memCaptured and memEscapes (that code may allocate into any
//! region), an uncountable site makes its region ∞, a member of a recursive component has ∞
//! regions, and a binding the lowering or Bernstein expansion cannot handle makes the call's
//! share ∞.
//!
//! The region tree of the entry ([`RegionNode`], `membound regions`) unfolds the calls from it
//! for display, each activation's rSize and R bounded over the bindings on its way from the
//! entry. This module does not count points (the summaries did) or decide regions (escape
//! analysis did).

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use rayon::prelude::*;

use membound_bernstein::{Guard, ParametricPolytope, bound_expr_over, simplify};
use membound_polyhedra::{Polynomial, Rat, Set};

mod render;

pub use render::{to_dot, to_json, to_text};

use crate::escape;
use crate::lowering::{self, CALLEE_PREFIX, Exceptions, Lowered, PathCall};
use crate::memalloc::{self, Amount, Bounds, Quantity, Residence, maximum, scaled_sum, tidy};
use crate::sites::{self, ChainElement};
use crate::summary::powers::{self, PowerArgument};
use crate::summary::{self, Counted, Levels, MethodSummary, Place, Qty, Recursion, Summaries};
use membound_front::callgraph::{CallGraph, NodeId};
use membound_front::program::Program;
use membound_front::sizes::ObjectModel;
use membound_jvm::MethodRef;
use membound_jvm::error::Result;

/// The region quantities of one method, in its own parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionAmounts {
    pub mem_captured: Amount,
    pub mem_escapes: Amount,
    pub mem_rq: Amount,
    /// The method's region tree, root first, in depth-first order.
    pub tree: Vec<RegionNode>,
    /// Why a region quantity is ∞ beyond the reasons of the sites.
    pub reasons: Vec<String>,
}

/// One region of the entry's call tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionNode {
    /// The calls from the tree's root to this region's method (each a caller and the offset of
    /// its call); empty for the root.
    pub calls: Vec<ChainElement>,
    /// The method whose region this is.
    pub method: MethodRef,
    /// The largest region this node's method can have when entered through the calls, in the
    /// root's parameters.
    pub r_size: Amount,
    /// The region and the largest stack of regions below it active at once, in the root's
    /// parameters.
    pub mem_rq: Amount,
    /// Indices of the nodes its method calls into (in the same tree).
    pub children: Vec<usize>,
}

/// The largest region tree `membound regions` unfolds: beyond it, activations are not shown
/// (the bounds do not depend on it).
pub const TREE_NODES: usize = 200;

/// What [`analyze`] computes beyond the bounds.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// The entry's region tree ([`RegionAmounts::tree`], for `membound regions`): each node is
    /// bounded over the bindings on its way from the entry, which costs one bound per node and
    /// call on its way.
    pub region_tree: bool,
    /// Whether exceptional paths are analyzed (`--assume no-exceptions` drops them).
    pub exceptions: Exceptions,
    /// When the caller's time is up (`analyze --entry-time-limit`): the invariant fixpoints and
    /// the summaries still to compute then stop, and what they would have bounded is ∞ with
    /// the time limit as its reason.
    pub deadline: Option<Instant>,
}

/// memAlloc of the entry of `graph` and of every method it reaches that allocates, with each
/// method's regions and memRq. `progress` is called once per method summarized.
/// What the analysis reports as it goes, for progress displays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A phase starts.
    Phase(&'static str),
    /// Summarizing starts: this many methods to summarize.
    Summarizing(usize),
    /// One more method summarized.
    Summarized,
}

pub fn analyze(
    program: &Program,
    graph: &CallGraph,
    model: ObjectModel,
    options: Options,
    progress: &(dyn Fn(Step) + Sync),
) -> Result<Bounds> {
    Ok(analyze_keeping(program, graph, model, options, progress, |_| ())?.0)
}

/// What the bounds were computed from: the local sites and the summaries (for analyses that
/// read more of them than the bounds show, such as `advise`).
pub(crate) struct Summarized {
    pub local: sites::LocalSites,
    pub summaries: Summaries,
}

/// [`analyze`], also returning what the bounds were computed from and what `keep` reads off
/// the regions (which borrow the summaries, so they do not outlive this call).
pub(crate) fn analyze_keeping<T>(
    program: &Program,
    graph: &CallGraph,
    model: ObjectModel,
    options: Options,
    progress: &(dyn Fn(Step) + Sync),
    keep: impl FnOnce(&Regions<'_>) -> T,
) -> Result<(Bounds, Summarized, T)> {
    progress(Step::Phase("finding the creation sites"));
    let local = sites::local_sites(program, graph)?;
    progress(Step::Phase(
        "lowering the methods and computing their invariants",
    ));
    let fixpoint = membound_invariants::Options {
        deadline: options.deadline,
        ..membound_invariants::Options::default()
    };
    let lowered = lowering::lower_within(program, graph, &local, options.exceptions, &fixpoint)?;
    progress(Step::Phase("escape analysis"));
    let fates = escape::fates(program, graph);
    let unknown = memalloc::unknown_reached(graph);
    let inputs = summary::Inputs {
        program,
        graph,
        local: &local,
        lowered: &lowered,
        fates: &fates,
        model,
        unknown: &unknown,
        deadline: options.deadline,
    };
    let summaries = summary::summarize(&inputs, &|step| progress(step));
    progress(Step::Phase("memAlloc, regions and memRq"));
    let mut bounds = memalloc::bounds(program, graph, &local, &lowered, &summaries, model)?;
    let regions = Regions::of(program, graph, &lowered, &summaries);
    for method in &mut bounds.methods {
        let Some(node) = graph.node(&method.method) else {
            continue;
        };
        let Some(summary) = summaries.of(node) else {
            continue;
        };
        for (site, entry) in method.sites.iter_mut().zip(&summary.sites) {
            site.residence = Some(residence(&entry.parts));
        }
        method.regions = Some(regions.amounts(summary));
    }
    if options.region_tree
        && let Some(entry) = bounds.methods.first_mut()
        && let Some(amounts) = &mut entry.regions
    {
        amounts.tree = regions.tree(graph, 0);
    }
    let kept = keep(&regions);
    drop(regions);
    for method in &mut bounds.methods {
        method.edit_quantities(&memalloc::merged_cases);
    }
    let summarized = Summarized { local, summaries };
    Ok((bounds, summarized, kept))
}

/// Per call offset of `node`'s method, the largest stack of regions a call there holds: the
/// callee's R over the call's binding, the largest over the call's targets (∞ when it cannot
/// be bounded). The method's own region is not in it.
pub(crate) fn call_stacks(
    graph: &CallGraph,
    regions: &Regions<'_>,
    node: NodeId,
) -> BTreeMap<u32, Amount> {
    let mut stacks: BTreeMap<u32, Vec<Amount>> = BTreeMap::new();
    let Some(summary) = regions.summaries.of(node) else {
        return BTreeMap::new();
    };
    for edge in graph
        .edges
        .iter()
        .filter(|e| e.caller == node && e.callee != node)
    {
        let (Some((stack, _)), Some(callee)) = (
            regions.stacks.get(&edge.callee),
            regions.summaries.of(edge.callee),
        ) else {
            continue;
        };
        let call = PathCall {
            caller: summary.method.clone(),
            pc: edge.pc,
            callee: callee.method.clone(),
        };
        let (amount, _) = regions.over_path(&[call], stack);
        stacks.entry(edge.pc).or_default().push(amount);
    }
    stacks
        .into_iter()
        .map(|(pc, amounts)| {
            let pick = |quantity: fn(&Amount) -> &Quantity| {
                maximum(amounts.iter().map(|a| quantity(a).clone()).collect())
            };
            let amount = Amount {
                objects: pick(|a| &a.objects),
                bytes: pick(|a| &a.bytes),
            };
            (pc, amount)
        })
        .collect()
}

/// Which places hold some of an entry's objects.
fn residence(parts: &std::collections::BTreeMap<Place, Counted>) -> Residence {
    let mut residence = Residence::default();
    for place in parts.keys().filter(|place| !parts[*place].count.is_zero()) {
        match place {
            Place::Captured => residence.here = true,
            Place::Below => residence.callees = true,
            Place::Escapes(_) => residence.escapes = true,
        }
    }
    residence
}

/// Each method's memCaptured, memEscapes and R, computed callees first.
pub(crate) struct Regions<'a> {
    program: &'a Program,
    graph: &'a CallGraph,
    lowered: &'a Lowered,
    captured: HashMap<NodeId, Amount>,
    escapes: HashMap<NodeId, Amount>,
    /// R(m) and why a call's share of it is ∞.
    stacks: HashMap<NodeId, (Amount, Vec<String>)>,
    summaries: &'a Summaries,
}

impl<'a> Regions<'a> {
    fn of(
        program: &'a Program,
        graph: &'a CallGraph,
        lowered: &'a Lowered,
        summaries: &'a Summaries,
    ) -> Regions<'a> {
        let mut regions = Regions {
            program,
            graph,
            lowered,
            captured: HashMap::new(),
            escapes: HashMap::new(),
            stacks: HashMap::new(),
            summaries,
        };
        for summary in summaries.in_order() {
            let captured = region_total(summary, |place| *place == Place::Captured);
            let escapes = region_total(summary, |place| matches!(place, Place::Escapes(_)));
            regions.captured.insert(summary.node, captured);
            regions.escapes.insert(summary.node, escapes);
        }
        let adjacency = graph.adjacency();
        // Summaries list callees first: a method's callees have their R by then (a recursive
        // component's header comes before its other members, which call it).
        for summary in summaries.in_order() {
            let mut reasons = Vec::new();
            if summary.objects.is_infinite() && !summary.unbounded.is_empty() {
                reasons.extend(summary.unbounded.iter().cloned());
            }
            let stack = match &summary.recursion {
                Some(recursion) => regions.nested(summary, recursion, &adjacency, &mut reasons),
                None => {
                    let below = regions.below(summary, &adjacency[summary.node], &[], &mut reasons);
                    let captured = &regions.captured[&summary.node];
                    Amount {
                        objects: add(&captured.objects, &below.objects),
                        bytes: add(&captured.bytes, &below.bytes),
                    }
                }
            };
            regions.stacks.insert(summary.node, (stack, reasons));
        }
        regions
    }

    /// The largest stack of regions below one activation of `summary`'s method, over its calls
    /// (`edges`) into methods outside `skip`: each callee's R over the call's binding, reached
    /// from the activation through `prefix` (calls into the method, for a member of a recursive
    /// component seen from its header).
    fn below(
        &self,
        summary: &MethodSummary,
        edges: &[&membound_front::callgraph::Edge],
        prefix: &[PathCall],
        reasons: &mut Vec<String>,
    ) -> Amount {
        let bounded: Vec<(Amount, Option<String>)> = edges
            .par_iter()
            .filter(|edge| edge.callee != summary.node)
            .filter_map(|edge| {
                let (stack, _) = self.stacks.get(&edge.callee)?;
                let callee = &self.summaries.of(edge.callee)?.method;
                let mut path = prefix.to_vec();
                path.push(PathCall {
                    caller: summary.method.clone(),
                    pc: edge.pc,
                    callee: callee.clone(),
                });
                Some(self.over_path(&path, stack))
            })
            .collect();
        reasons.extend(bounded.iter().filter_map(|(_, r)| r.clone()));
        let pick = |quantity: fn(&Amount) -> &Quantity| {
            maximum(bounded.iter().map(|(a, _)| quantity(a).clone()).collect())
        };
        Amount {
            objects: pick(|a| &a.objects),
            bytes: pick(|a| &a.bytes),
        }
    }

    /// R of a recursive component's header: one activation per level is on the stack at once,
    /// each holding its region and those of the members on the way back to the header, and
    /// below the deepest one the largest stack of a call leaving the component:
    /// `Σ_levels captured + max_levels below` (for a recursion bounded without its depth, see
    /// [`Regions::depth_free`]).
    fn nested(
        &self,
        header: &MethodSummary,
        recursion: &Recursion,
        adjacency: &[Vec<&membound_front::callgraph::Edge>],
        reasons: &mut Vec<String>,
    ) -> Amount {
        let members: Vec<NodeId> = recursion
            .paths
            .iter()
            .flatten()
            .map(|&(caller, _, _)| caller)
            .collect();
        let amount = match &recursion.levels {
            Levels::Unbounded => return self.depth_free(header, &members, adjacency, reasons),
            Levels::Points(levels) => {
                let level = self.level(header, recursion, &members, adjacency, reasons);
                Amount {
                    objects: add(
                        &sum_over_points(&level.per_level_objects(), levels),
                        &deepest_of_points(&level.below.objects, levels),
                    ),
                    bytes: add(
                        &sum_over_points(&level.per_level_bytes(), levels),
                        &deepest_of_points(&level.below.bytes, levels),
                    ),
                }
            }
            Levels::Depth(depth) => {
                let level = self.level(header, recursion, &members, adjacency, reasons);
                Amount {
                    objects: add(
                        &times_depth(&level.per_level_objects(), depth),
                        &constant_or_inf(&level.below.objects),
                    ),
                    bytes: add(
                        &times_depth(&level.per_level_bytes(), depth),
                        &constant_or_inf(&level.below.bytes),
                    ),
                }
            }
        };
        if matches!(recursion.levels, Levels::Depth(_)) && amount.bytes.may_be_infinite() {
            reasons.push(format!(
                "the regions of {}'s activations depend on formals that only a measure bounds",
                header.method
            ));
        }
        amount
    }

    /// One level of a solved recursion seen from its header: the header's region, the largest
    /// sum of the regions of the members a path back to it goes through, and the largest stack
    /// of a call leaving the component from the header or those members.
    fn level(
        &self,
        header: &MethodSummary,
        recursion: &Recursion,
        members: &[NodeId],
        adjacency: &[Vec<&membound_front::callgraph::Edge>],
        reasons: &mut Vec<String>,
    ) -> Level {
        let leaving = |node: NodeId| -> Vec<&membound_front::callgraph::Edge> {
            adjacency[node]
                .iter()
                .copied()
                .filter(|edge| !members.contains(&edge.callee))
                .collect()
        };
        let (own_objects, own_bytes) = region_qty(header, |place| *place == Place::Captured);
        let mut below = self.below(header, &leaving(header.node), &[], reasons);
        let mut through_members = Vec::new();
        for path in &recursion.paths {
            let mut regions_on_path = Amount::zero();
            for length in 1..path.len() {
                let prefix = self.path_calls(&path[..length]);
                let member = path[length - 1].2;
                let (captured, why) = self.over_path(&prefix, &self.captured[&member]);
                reasons.extend(why);
                regions_on_path = regions_on_path.plus(&captured);
                if let Some(summary) = self.summaries.of(member) {
                    let leaving_below = self.below(summary, &leaving(member), &prefix, reasons);
                    below = Amount {
                        objects: maximum(vec![below.objects, leaving_below.objects]),
                        bytes: maximum(vec![below.bytes, leaving_below.bytes]),
                    };
                }
            }
            through_members.push(regions_on_path);
        }
        Level {
            own_objects,
            own_bytes,
            members_objects: maximum(through_members.iter().map(|a| a.objects.clone()).collect()),
            members_bytes: maximum(through_members.iter().map(|a| a.bytes.clone()).collect()),
            below,
        }
    }

    /// R of a member of a recursion bounded without its depth ([`Levels::Unbounded`]): any
    /// number of activations may be on the stack, so their regions must be empty; below the
    /// deepest one, the largest stack of a call leaving the component from any member, at its
    /// largest over the formals (the levels' values are not known).
    fn depth_free(
        &self,
        header: &MethodSummary,
        members: &[NodeId],
        adjacency: &[Vec<&membound_front::callgraph::Edge>],
        reasons: &mut Vec<String>,
    ) -> Amount {
        let mut below = Amount::zero();
        for &member in members {
            let captured = &self.captured[&member];
            if !captured.objects.is_zero() || !captured.bytes.is_zero() {
                reasons.push(format!(
                    "{}'s activations keep objects in their regions, and any number of them may be on the stack (a recursion bounded without its depth)",
                    self.graph.methods[member].method
                ));
                return Amount {
                    objects: Quantity::Inf,
                    bytes: Quantity::Inf,
                };
            }
            let Some(summary) = self.summaries.of(member) else {
                continue;
            };
            let leaving: Vec<&membound_front::callgraph::Edge> = adjacency[member]
                .iter()
                .copied()
                .filter(|edge| !members.contains(&edge.callee))
                .collect();
            let stack = self.below(summary, &leaving, &[], reasons);
            below = Amount {
                objects: maximum(vec![below.objects, constant_or_inf(&stack.objects)]),
                bytes: maximum(vec![below.bytes, constant_or_inf(&stack.bytes)]),
            };
        }
        if below.bytes.may_be_infinite() {
            reasons.push(format!(
                "the regions below {}'s recursion depend on formals its levels do not bind",
                header.method
            ));
        }
        below
    }

    /// The calls of a path of nodes.
    fn path_calls(&self, steps: &[(NodeId, u32, NodeId)]) -> Vec<PathCall> {
        let method = |node: NodeId| self.graph.methods[node].method.clone();
        steps
            .iter()
            .map(|&(caller, pc, callee)| PathCall {
                caller: method(caller),
                pc,
                callee: method(callee),
            })
            .collect()
    }

    /// The region quantities of one method.
    fn amounts(&self, summary: &MethodSummary) -> RegionAmounts {
        let node = summary.node;
        let (stack, reasons) = self.stacks[&node].clone();
        let escapes = self.escapes[&node].clone();
        let mem_rq = Amount {
            objects: add(&escapes.objects, &stack.objects),
            bytes: add(&escapes.bytes, &stack.bytes),
        };
        // Simplified once more as a whole: the sums of its parts read as one formula.
        let guarded = |amount: &Amount| Amount {
            objects: summary.guarded(simplify(&amount.objects, &Guard::always())),
            bytes: summary.guarded(simplify(&amount.bytes, &Guard::always())),
        };
        RegionAmounts {
            mem_captured: guarded(&self.captured[&node]),
            mem_escapes: guarded(&escapes),
            mem_rq: guarded(&mem_rq),
            tree: Vec::new(),
            reasons,
        }
    }

    /// The maximum of the last callee's `amount` over the values `path` gives its formals, in
    /// the first caller's parameters; ∞ with the reason when that cannot be bounded.
    fn over_path(&self, path: &[PathCall], amount: &Amount) -> (Amount, Option<String>) {
        let Some(last) = path.last() else {
            return (amount.clone(), None);
        };
        let (method, pc, callee) = (&last.caller, last.pc, &last.callee);
        if amount.objects.is_zero() && amount.bytes.is_zero() {
            return (amount.clone(), None);
        }
        let bounded = self
            .lowered
            .path_set(path)
            .map_err(|e| format!("region of {callee} at {method}@{pc}: {e}"))
            .and_then(|call| {
                let kept: Vec<&str> = call.formals.iter().map(String::as_str).collect();
                let binding = call.set.project_onto(&kept).to_set();
                let polytopes: Vec<ParametricPolytope> = binding
                    .parts
                    .iter()
                    .map(|part| {
                        ParametricPolytope::of_part(
                            binding.space.params.clone(),
                            call.formals.clone(),
                            part,
                        )
                    })
                    .collect();
                let over_binding = |renamed: &Quantity| -> std::result::Result<Quantity, String> {
                    let bounds = polytopes
                        .iter()
                        .map(|polytope| bound_expr_over(renamed, polytope))
                        .collect::<std::result::Result<Vec<_>, _>>()
                        .map_err(|e| format!("region of {callee} at {method}@{pc}: {e}"))?;
                    Ok(maximum(bounds.iter().map(tidy).collect()))
                };
                // A formal passed as `1 << x` by a direct call, read as `2^x` where it is one and as
                // the largest value `1 << x` takes elsewhere.
                let powers = match path {
                    [call] => PowerArgument::of_pairs(self.lowered.power_of_two_arguments(
                        self.program,
                        &call.caller,
                        call.pc,
                        &call.callee,
                    )),
                    _ => Vec::new(),
                };
                let fixed = summary::constant_dims(&binding);
                let over = |quantity: &Quantity| -> std::result::Result<Quantity, String> {
                    let renamed = quantity.renamed(&|name| format!("{CALLEE_PREFIX}{name}"));
                    match (
                        powers::substituted(&renamed, &powers, &fixed),
                        powers::over_every_shift(&renamed, &powers, &fixed),
                    ) {
                        (Some((guard, substituted)), Some(elsewhere)) => Ok(powers::within(
                            guard,
                            over_binding(&substituted)?,
                            over_binding(&elsewhere)?,
                        )),
                        _ => over_binding(&self.over_fresh_trees(path, renamed)),
                    }
                };
                Ok(Amount {
                    objects: over(&amount.objects)?,
                    bytes: over(&amount.bytes)?,
                })
            });
        match bounded {
            Ok(amount) => (amount, None),
            Err(reason) => (
                Amount {
                    objects: Quantity::Inf,
                    bytes: Quantity::Inf,
                },
                Some(reason),
            ),
        }
    }

    /// `renamed` (a quantity of the last callee of `path`, over its renamed formals) bounded
    /// over the trees a direct call passes it fresh ([`MethodSummary::over_fresh_trees`]); as it
    /// is otherwise.
    fn over_fresh_trees(&self, path: &[PathCall], renamed: Quantity) -> Quantity {
        let [call] = path else {
            return renamed;
        };
        let caller = self.graph.node(&call.caller);
        caller
            .and_then(|node| self.summaries.of(node))
            .and_then(|summary| summary.over_fresh_trees(call.pc, &call.callee, &renamed))
            .unwrap_or(renamed)
    }

    /// The region tree from `root`, unfolded call by call (at most [`TREE_NODES`] nodes, no
    /// method entered twice on one path): each node's rSize and R bounded over the bindings of
    /// the calls from the root.
    fn tree(&self, graph: &CallGraph, root: NodeId) -> Vec<RegionNode> {
        let adjacency = graph.adjacency();
        let Some(summary) = self.summaries.of(root) else {
            return Vec::new();
        };
        let mut nodes = vec![RegionNode {
            calls: Vec::new(),
            method: summary.method.clone(),
            r_size: self.captured[&root].clone(),
            mem_rq: self.stacks[&root].0.clone(),
            children: Vec::new(),
        }];
        let mut work = vec![(0usize, root, Vec::<(MethodRef, u32, MethodRef)>::new())];
        while let Some((index, node, path)) = work.pop() {
            for edge in &adjacency[node] {
                let Some(callee) = self.summaries.of(edge.callee) else {
                    continue;
                };
                let caller = &self.summaries.of(node).map(|s| s.method.clone());
                let Some(caller) = caller else { continue };
                let on_path = path.iter().any(|(from, _, _)| *from == callee.method)
                    || callee.method == nodes[0].method;
                if on_path || nodes.len() >= TREE_NODES {
                    continue;
                }
                let stack = &self.stacks[&edge.callee].0;
                if stack.objects.is_zero() && stack.bytes.is_zero() {
                    continue;
                }
                let mut calls_path = path.clone();
                calls_path.push((caller.clone(), edge.pc, callee.method.clone()));
                let r_size = self.along(&calls_path, &self.captured[&edge.callee]);
                let mem_rq = self.along(&calls_path, stack);
                let mut calls = nodes[index].calls.clone();
                calls.push(ChainElement {
                    method: caller.clone(),
                    pc: edge.pc,
                    line: edge.line,
                });
                nodes.push(RegionNode {
                    calls,
                    method: callee.method.clone(),
                    r_size,
                    mem_rq,
                    children: Vec::new(),
                });
                let child = nodes.len() - 1;
                nodes[index].children.push(child);
                work.push((child, edge.callee, calls_path));
            }
        }
        nodes
    }

    /// `amount` of the last method of `path` bounded over the binding of each of its calls,
    /// innermost first, into the first caller's parameters (a bound over each call's binding in
    /// turn: one call's set each, where the binding of the whole path would conjoin them all).
    fn along(&self, path: &[(MethodRef, u32, MethodRef)], amount: &Amount) -> Amount {
        path.iter()
            .rev()
            .fold(amount.clone(), |amount, (caller, pc, callee)| {
                let call = PathCall {
                    caller: caller.clone(),
                    pc: *pc,
                    callee: callee.clone(),
                };
                self.over_path(&[call], &amount).0
            })
    }
}

/// The sum of a summary's parts in the places `pick` selects; ∞ when the method reaches code
/// the analysis cannot see (it may allocate into any region).
fn region_total(summary: &MethodSummary, pick: impl Fn(&Place) -> bool) -> Amount {
    let (objects, bytes) = region_qty(summary, pick);
    Amount {
        objects: objects.to_quantity(),
        bytes: bytes.to_quantity(),
    }
}

/// [`region_total`] as summary quantities (objects, bytes).
fn region_qty(summary: &MethodSummary, pick: impl Fn(&Place) -> bool) -> (Qty, Qty) {
    if !summary.unbounded.is_empty() {
        return (Qty::Inf, Qty::Inf);
    }
    let mut objects = Qty::zero(&summary.params);
    let mut bytes = Qty::zero(&summary.params);
    for site in &summary.sites {
        for counted in site
            .parts
            .iter()
            .filter(|(place, _)| pick(place))
            .map(|(_, c)| c)
        {
            objects = objects.add(&counted.objects);
            bytes = bytes.add(&counted.bytes);
        }
    }
    (objects, bytes)
}

fn add(a: &Quantity, b: &Quantity) -> Quantity {
    scaled_sum([(Rat::from(1), a.clone()), (Rat::from(1), b.clone())])
}

/// `Σ per_level` over the points of a descent's levels (in the formals at each level).
fn sum_over_points(per_level: &Qty, levels: &Set) -> Quantity {
    per_level
        .renamed(&|name| format!("{CALLEE_PREFIX}{name}"))
        .sum_over(levels)
        .unwrap_or(Qty::Inf)
        .to_quantity()
}

/// The largest `quantity` over the points of a descent's levels.
fn deepest_of_points(quantity: &Quantity, levels: &Set) -> Quantity {
    let renamed = quantity.renamed(&|name| format!("{CALLEE_PREFIX}{name}"));
    let bounds: Option<Vec<Quantity>> = levels
        .parts
        .iter()
        .map(|part| {
            let polytope = ParametricPolytope::of_part(
                levels.space.params.clone(),
                levels.space.dims.clone(),
                part,
            );
            bound_expr_over(&renamed, &polytope).ok()
        })
        .collect();
    bounds.map_or(Quantity::Inf, maximum)
}

/// `per_level · depth` with `per_level` at its largest, when that is a constant (the formals of the levels under a
/// measured recursion's first call are not known), ∞ otherwise.
/// One level of a solved recursion ([`Regions::level`]).
struct Level {
    own_objects: Qty,
    own_bytes: Qty,
    members_objects: Quantity,
    members_bytes: Quantity,
    below: Amount,
}

impl Level {
    fn per_level_objects(&self) -> Qty {
        per_level(&self.own_objects, &self.members_objects)
    }

    fn per_level_bytes(&self) -> Qty {
        per_level(&self.own_bytes, &self.members_bytes)
    }
}

/// A level's regions: the header's and those on the way back to it.
fn per_level(own: &Qty, members: &Quantity) -> Qty {
    if members.is_zero() {
        own.clone()
    } else {
        own.add(&Qty::Expr(members.clone()))
    }
}

fn times_depth(per_level: &Qty, depth: &Quantity) -> Quantity {
    match per_level.largest_constant() {
        None => Quantity::Inf,
        Some(constant) if constant.is_zero() => Quantity::zero(),
        Some(constant) => simplify(
            &Quantity::Mul(vec![
                Quantity::pol(Polynomial::constant(constant)),
                depth.clone(),
            ]),
            &Guard::always(),
        ),
    }
}

/// `quantity` when it is a constant, ∞ otherwise.
fn constant_or_inf(quantity: &Quantity) -> Quantity {
    match quantity.as_polynomial().and_then(|p| p.as_constant()) {
        Some(_) => quantity.clone(),
        None => Quantity::Inf,
    }
}

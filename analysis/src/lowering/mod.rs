//! The numeric lowering: from the IR of the methods on a method's creation-site chains to the
//! invariants crate's program form, and from its analysis to one counting invariant per
//! creation site.
//!
//! [`lower`] turns each method that appears on a chain into one procedure ([`body`]) and asks
//! for an invariant before every allocation and call. [`Lowered::site_invariant`] conjoins the
//! frames of a chain with `formal = actual` at each call (the invariants crate's
//! `chain_invariant`) and projects the result onto the variables that tell visits apart: the
//! virtual iteration counter of every loop around each call site and the allocation
//! ([`loops`]). Its integer points, with the chain's
//! first method's parameters as parameters, are one per execution of the allocation, or more
//! when the lowering lost precision. For an array allocation the invariant also has one column
//! per given dimension, holding that dimension's value at the execution.
//!
//! Integer fields whose every write is seen are read through views ([`fields`]): they become
//! formals of the methods that need them, hence parameters of the counts, listed with their
//! origin by [`Lowered::view_params`]; a field of `this` that callees write is carried across
//! calls on `this` by the callees' summaries (the invariants crate).
//!
//! It does not count (the polyhedra crate does), pick call targets (the call graph and
//! [`crate::sites`] do), or model object fields other than integer views, array contents or
//! integer overflow.

mod accumulators;
mod appends;
mod body;
mod builders;
mod chains;
mod cursors;
mod division;
mod elements;
mod exits;
mod extrema;
mod fields;
mod fresh;
mod fresh_trees;
mod ghost;
mod guards;
mod held;
pub(crate) mod liveness;
mod loops;
mod powers;
mod specs;
#[cfg(test)]
mod tests;
mod trees;
mod views;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use membound_invariants::{
    Action, Analysis, Invariant, Options, Point, PointId, ProcId, Program, VarKind, analyze,
    chain_invariant,
};

use crate::sites::{ChainElement, CreationSite, LocalSites};
use membound_front::callgraph::{CallGraph, CallSites, NodeKind};
pub use membound_front::ir::Exceptions;
use membound_front::program::Program as JavaProgram;
use membound_front::specs::MethodSpec;
use membound_jvm::error::{Error, Result};
use membound_jvm::{ClassName, FieldRef, MethodRef};

pub use body::{
    CallTarget, CallTargets, FormalKind, LocalPoint, LoweredBody, PointKey, counter_head,
    declared_param, formal_kinds, identifier, lower_body, numeric_formal_kind,
};
pub use elements::ElementShare;
pub use exits::{describe_loop, untracked_argument};
pub use fields::{FieldPlan, JDK_NATIVES_KEEP_FIELDS};
pub use ghost::GHOST_COUNTERS;
pub use powers::MAX_INT_SHIFT;
pub use specs::{spec_formal_kinds, spec_formal_names};

use specs::{SpecCallee, lower_spec};

/// The methods of a set of chains lowered to one numeric program, and its analysis.
#[derive(Debug)]
pub struct Lowered {
    pub program: Program,
    pub analysis: Analysis,
    procedures: HashMap<MethodRef, ProcId>,
    /// `None` when several statements of a method share the key.
    points: HashMap<(ProcId, PointKey), Option<PointId>>,
    /// Per program point, the names of its inductive variables.
    inductive: Vec<Vec<String>>,
    /// Per program point, the names of the variables holding an array allocation's dimensions.
    lengths: Vec<Vec<String>>,
    /// Per procedure, the origins of its field-view and fixed-local formals (the last of its
    /// formals).
    view_origins: Vec<Vec<String>>,
    /// Per procedure, the origins of its chain formals and why some of its walks are not
    /// followed.
    walk_notes: Vec<WalkNotes>,
    /// What the field views take for granted.
    pub assumptions: Vec<String>,
    /// The sets of the call paths asked for so far.
    path_sets: std::sync::Mutex<HashMap<Vec<PathCall>, CallSet>>,
    /// Per call (caller, offset, callee) passing elements of a tree's array field, its shares
    /// of the elements' sizes ([`elements`]).
    element_shares: HashMap<(ProcId, u32, ProcId), Vec<ElementShare>>,
    /// Per call (caller, offset, callee), the callee's trees it passes fresh from an earlier
    /// call ([`fresh_trees`]).
    fresh_trees: HashMap<(MethodRef, u32, MethodRef), Vec<FreshTreeFormals>>,
    /// The fields only ever incremented by one, and where ([`ghost`]).
    ghosts: ghost::GhostCounters,
    /// Per procedure, parallel to `view_origins`: the field of `this` a formal views.
    this_fields: Vec<Vec<Option<FieldRef>>>,
    /// The calls (method, offset) whose receiver is another object at each execution in one
    /// activation, where ghost counters are read ([`ghost::distinct_receiver_calls`]).
    distinct_receivers: HashSet<(MethodRef, u32)>,
    /// The calls (method, offset) outside every loop of their method, where ghost counters are
    /// read ([`ghost::calls_outside_loops`]).
    calls_outside_loops: HashSet<(MethodRef, u32)>,
}

/// A callee's tree that a call passes fresh from an earlier call of the caller: every node was
/// created by that call, so the tree's size is at most what it allocates of the node's class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreshTreeFormals {
    /// The callee's formal of the tree's size (`top_size`).
    pub size: String,
    /// Its formals of the children's sizes, per branch (`top_children_size`).
    pub children: Vec<String>,
    /// The offset of the caller's call that returned the tree.
    pub source: u32,
    /// Every node is an object of this class or of a subclass.
    pub node: ClassName,
}

/// What a procedure's walks along linked structures leave to its reasons.
#[derive(Clone, Debug, Default)]
struct WalkNotes {
    /// The origins of its chain formals (`length of the chain from …`).
    chain_origins: Vec<String>,
    /// Why cursors it creates have no rest ([`chains::Walks::unfollowed`]).
    unfollowed: Vec<String>,
}

/// The counting invariant of a creation site (or of the suffix of its chain from some method).
#[derive(Clone, Debug)]
pub struct SiteInvariant {
    /// Over the chain's first method's parameters; its dims are [`Self::executions`] followed by
    /// [`Self::lengths`].
    pub set: Invariant,
    /// The columns whose values tell executions apart.
    pub executions: Vec<String>,
    /// For an array allocation, the columns holding its given dimensions, outermost first.
    pub lengths: Vec<String>,
}

/// The prefix of a callee's formals in a [`CallSet`]: a callee's quantities, renamed with it,
/// are functions of the set's columns.
pub const CALLEE_PREFIX: &str = "callee__";

/// One call of a path: `caller`'s call at offset `pc` into `callee`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PathCall {
    pub caller: MethodRef,
    pub pc: u32,
    pub callee: MethodRef,
}

/// One call site of a method: its integer points are the executions of the call per call of the
/// method, each with the values the callee's formals take (the caller's formals are the
/// parameters). Summing a callee's quantity over them composes it into the caller.
#[derive(Clone, Debug)]
pub struct CallSet {
    /// Dims: [`Self::executions`] then [`Self::formals`].
    pub set: Invariant,
    /// The counters of the loops around the call.
    pub executions: Vec<String>,
    /// The callee's formals, in order, named `callee__<formal>`.
    pub formals: Vec<String>,
    /// For a call of one step that passes elements of a tree's array field, which callee
    /// formals are shares of which caller formal ([`ElementShare`]).
    pub shares: Vec<ElementShare>,
}

impl SiteInvariant {
    /// The set with one integer point per execution of the allocation (lengths projected out:
    /// exact when they are affine in the execution columns, an over-approximation otherwise).
    pub fn executions_set(&self) -> Invariant {
        let kept: Vec<&str> = self.executions.iter().map(String::as_str).collect();
        self.set.project_onto(&kept)
    }
}

/// The assumption of [`Exceptions::Dropped`] (`--assume no-exceptions`).
pub const NO_EXCEPTIONS: &str = "no exception is thrown (--assume no-exceptions): exception handlers and blocks that end in `throw` are not analyzed, so a run that throws may allocate more than these bounds";

/// Lowers every method of `graph` that reaches a local site (`local` comes from `graph`) and
/// analyses the result; the call graph tells what each method may write; `exceptions` says
/// whether exceptional paths are followed.
pub fn lower(
    java: &JavaProgram,
    graph: &CallGraph,
    local: &LocalSites,
    exceptions: Exceptions,
) -> Result<Lowered> {
    lower_within(java, graph, local, exceptions, &Options::default())
}

/// [`lower`] with the fixpoint's tuning (its budget) given: a procedure whose fixpoint gives
/// up has no invariants, and asking for one is an error naming the budget.
pub fn lower_within(
    java: &JavaProgram,
    graph: &CallGraph,
    local: &LocalSites,
    exceptions: Exceptions,
    fixpoint: &Options,
) -> Result<Lowered> {
    let ghosts = ghost::ghost_counters(java, graph, &local.reaches);
    let methods = allocating_methods(graph, local, &ghosts);
    let specs: Vec<Option<Arc<MethodSpec>>> = methods
        .iter()
        .map(|m| {
            graph
                .node(m)
                .and_then(|id| graph.methods[id].kind.spec().cloned())
        })
        .collect();
    // Methods with code come first (the field plans cover those), spec'd ones after.
    let code_count = specs.iter().take_while(|s| s.is_none()).count();
    let procedures: HashMap<MethodRef, ProcId> = methods
        .iter()
        .enumerate()
        .map(|(index, method)| (method.clone(), ProcId(index)))
        .collect();
    let bodies = methods[..code_count]
        .iter()
        .map(|method| java.body(method))
        .collect::<Result<Vec<_>>>()?;
    let formals: Vec<_> = bodies
        .iter()
        .map(|body| formal_kinds(body))
        .chain(
            methods[code_count..]
                .iter()
                .zip(&specs[code_count..])
                .map(|(method, spec)| {
                    spec.as_ref()
                        .map(|spec| spec_formal_kinds(method, spec))
                        .unwrap_or_default()
                }),
        )
        .collect();
    let callees = callees_by_call_site(graph, &procedures);
    let call_sites = graph.call_sites();
    let complete = complete_call_sites(graph, &call_sites, &methods, &callees);
    let ending = program_end_calls(graph, &call_sites, &methods[..code_count]);
    let by_index = callees
        .iter()
        .filter(|&(&(caller, _), _)| caller.0 < code_count)
        .map(|(&(caller, pc), list)| {
            let code: Vec<usize> = list
                .iter()
                .map(|c| c.0)
                .filter(|&c| c < code_count)
                .collect();
            ((caller.0, pc), code)
        })
        .collect();
    // The calls whose every target has code among the lowered methods.
    let complete_in_code: HashSet<(usize, u32)> = complete
        .iter()
        .filter(|site| callees[site].iter().all(|callee| callee.0 < code_count))
        .map(|&(caller, pc)| (caller.0, pc))
        .collect();
    let plans = fields::plan(
        java,
        graph,
        &call_sites,
        &methods[..code_count],
        &bodies,
        &by_index,
        &complete_in_code,
    );
    let mut assumptions = if plans.assumes_jdk_natives {
        vec![JDK_NATIVES_KEEP_FIELDS.to_string()]
    } else {
        Vec::new()
    };
    if formals
        .iter()
        .flatten()
        .any(|k| *k == Some(FormalKind::CollectionSize))
    {
        assumptions.push(views::COLLECTION_SIZES.to_string());
    }
    if exceptions == Exceptions::Dropped {
        assumptions.push(NO_EXCEPTIONS.to_string());
    }
    let fresh_tree_plans = plans.fresh_trees;
    let mut plans = plans.plans;
    let along = |trees: bool| {
        plans
            .iter()
            .flat_map(|plan| &plan.walks.roots)
            .any(|root| root.branches.is_empty() != trees)
    };
    // A walk from a list a method holds in an object's field (`p = g.first`) relies on it too.
    let reads_held = plans
        .iter()
        .flat_map(|plan| &plan.walks.locals)
        .flat_map(|walked| &walked.steps)
        .any(|(_, step)| matches!(step, chains::WalkStep::Held { .. }));
    if along(false) || reads_held {
        assumptions.push(chains::ACYCLIC_CHAINS.to_string());
    }
    if along(true) {
        assumptions.push(trees::TREE_SHAPED.to_string());
    }
    plans.resize(methods.len(), FieldPlan::default());
    for (plan, method) in plans.iter_mut().zip(&methods) {
        plan.counted = ghosts
            .increments
            .get(method)
            .into_iter()
            .flatten()
            .map(|&(pc, _)| pc)
            .collect();
    }
    let view_origins: Vec<Vec<String>> = plans.iter().map(FieldPlan::formal_origins).collect();
    let this_fields: Vec<Vec<Option<FieldRef>>> =
        plans.iter().map(FieldPlan::formal_fields).collect();
    let reads_counter = this_fields
        .iter()
        .flatten()
        .flatten()
        .any(|field| ghosts.is_counter(field));
    let mut distinct_receivers = HashSet::new();
    let mut calls_outside_loops = HashSet::new();
    if reads_counter {
        for ((method, body), plan) in methods.iter().zip(&bodies).zip(&plans) {
            let calls = ghost::distinct_receiver_calls(body, &plan.walks);
            distinct_receivers.extend(calls.into_iter().map(|pc| (method.clone(), pc)));
            let once = ghost::calls_outside_loops(body);
            calls_outside_loops.extend(once.into_iter().map(|pc| (method.clone(), pc)));
        }
    }
    let walk_notes: Vec<WalkNotes> = plans
        .iter()
        .map(|plan| WalkNotes {
            chain_origins: plan.walks.roots.iter().map(|r| r.origin.clone()).collect(),
            unfollowed: plan.walks.unfollowed.clone(),
        })
        .collect();
    let formal_counts: Vec<usize> = formals
        .iter()
        .zip(&view_origins)
        .map(|(declared, views)| declared.iter().flatten().count() + views.len())
        .collect();
    let mut names: Vec<String> = Vec::new();
    for method in &methods {
        let base = identifier(&method.name);
        names.push(unique(base, |name| names.iter().any(|n| n == name)));
    }
    let mut program = Program::default();
    let mut points = HashMap::new();
    let mut inductive = Vec::new();
    let mut lengths = Vec::new();
    let mut element_calls = Vec::new();
    for (index, method) in methods.iter().enumerate() {
        let caller = ProcId(index);
        let name = &names[index];
        let mut lowered = match &specs[index] {
            None => {
                let targets = |pc: u32| CallTargets {
                    targets: callees
                        .get(&(caller, pc))
                        .into_iter()
                        .flatten()
                        .map(|&callee| CallTarget {
                            procedure: callee,
                            method: &methods[callee.0],
                            formals: &formals[callee.0],
                            fields: &plans[callee.0],
                            returns_value: callee.0 < code_count
                                && body::returns_integer(&methods[callee.0]),
                        })
                        .collect(),
                    complete: complete.contains(&(caller, pc)),
                    ends_program: ending.contains(&(caller, pc)),
                    format: graph
                        .node(&methods[index])
                        .and_then(|node| graph.formats.get(&(node, pc))),
                };
                lower_body(name, &bodies[index], &plans[index], &targets, exceptions)
            }
            Some(spec) => {
                let formal_counts = &formal_counts;
                let entered: Vec<SpecCallee> = callees
                    .iter()
                    .filter(|&(&(from, _), _)| from == caller)
                    .flat_map(|(&(_, pc), list)| {
                        list.iter().map(move |&callee| SpecCallee {
                            pc,
                            procedure: callee,
                            formals: formal_counts[callee.0],
                        })
                    })
                    .collect();
                lower_spec(name, method, spec, &entered)
            }
        };
        lowered.points.push(LocalPoint {
            key: PointKey::Entry,
            node: lowered.procedure.entry,
            inductive: Vec::new(),
            lengths: Vec::new(),
        });
        for point in &lowered.points {
            let id = PointId(program.points.len());
            // Two statements at one offset cannot be told apart by a chain: neither is used.
            let entry = points.entry((caller, point.key)).or_insert(Some(id));
            if *entry != Some(id) {
                *entry = None;
            }
            program.points.push(Point {
                name: point_name(name, point.key, &names, &program),
                procedure: caller,
                node: point.node,
            });
            let names = |vars: &[membound_invariants::VarId]| -> Vec<String> {
                vars.iter()
                    .map(|&v| lowered.procedure.var_name(v).to_string())
                    .collect()
            };
            inductive.push(names(&point.inductive));
            lengths.push(names(&point.lengths));
        }
        element_calls.push((caller, lowered.element_calls));
        program.procedures.push(lowered.procedure);
    }
    let fresh_trees = fresh_trees_by_method(&program, &methods, &plans, fresh_tree_plans);
    let mut analysis = analyze(&program, fixpoint);
    let element_shares =
        elements::element_shares(&program, &analysis, &points, &inductive, &element_calls);
    keep_only_needed_columns(&program, &mut analysis, &inductive, &lengths, fixpoint);
    Ok(Lowered {
        program,
        analysis,
        procedures,
        points,
        inductive,
        lengths,
        view_origins,
        walk_notes,
        assumptions,
        path_sets: std::sync::Mutex::default(),
        element_shares,
        fresh_trees,
        ghosts,
        this_fields,
        distinct_receivers,
        calls_outside_loops,
    })
}

/// The fresh trees of the calls between lowered methods ([`fresh_trees`]), by methods, with
/// the callee's tree formals by name.
fn fresh_trees_by_method(
    program: &Program,
    methods: &[MethodRef],
    plans: &[FieldPlan],
    found: fresh_trees::FreshTrees,
) -> HashMap<(MethodRef, u32, MethodRef), Vec<FreshTreeFormals>> {
    let mut by_method: HashMap<(MethodRef, u32, MethodRef), Vec<FreshTreeFormals>> = HashMap::new();
    for ((caller, pc, callee), trees) in found {
        let procedure = program.procedure(ProcId(callee));
        let walks = &plans[callee].walks;
        // A procedure's root formals come last, in the roots' order.
        let first_root = procedure.formals.len() - walks.roots.len();
        let name = |root: usize| {
            let formal = procedure.formals[first_root + root];
            procedure.var_name(formal).to_string()
        };
        let named = trees.into_iter().map(|fresh| FreshTreeFormals {
            size: name(fresh.size),
            children: fresh.children.iter().map(|&root| name(root)).collect(),
            source: fresh.source,
            node: fresh.node,
        });
        by_method
            .entry((methods[caller].clone(), pc, methods[callee].clone()))
            .or_default()
            .extend(named);
    }
    by_method
}

/// Projects each point's invariant onto its inductive variables, its array lengths and the
/// caller variables its call passes, the only columns a chain reads: eliminating the rest frame
/// by frame gives the same chain invariant as eliminating them after conjoining, on far smaller
/// polyhedra.
fn keep_only_needed_columns(
    program: &Program,
    analysis: &mut Analysis,
    inductive: &[Vec<String>],
    lengths: &[Vec<String>],
    fixpoint: &Options,
) {
    for (index, point) in program.points.iter().enumerate() {
        if fixpoint.out_of_time() {
            analysis.stop_at_deadline(program, point.procedure);
        }
        if analysis.procedures[point.procedure.0].gave_up() {
            // "Any state", and never read: the procedure's points answer with its loss.
            continue;
        }
        let procedure = program.procedure(point.procedure);
        let mut needed: Vec<&str> = inductive[index]
            .iter()
            .chain(&lengths[index])
            .map(String::as_str)
            .collect();
        for edge in procedure.outgoing(point.node) {
            if let Action::Call { args, .. } = &edge.action {
                needed.extend(
                    args.iter()
                        .flat_map(|a| a.vars())
                        .map(|v| procedure.var_name(v)),
                );
            }
        }
        needed.sort_unstable();
        needed.dedup();
        analysis.invariants[index] = analysis.invariants[index].project_onto(&needed);
    }
}

/// Every method of the graph with code or a spec that reaches a local site or an increment of
/// a ghost counter ([`ghost`]), in node order, those a spec stands for last.
fn allocating_methods(
    graph: &CallGraph,
    local: &LocalSites,
    ghosts: &ghost::GhostCounters,
) -> Vec<MethodRef> {
    let incrementing = graph
        .methods
        .iter()
        .map(|node| ghosts.increments.contains_key(&node.method))
        .collect();
    let counting = crate::sites::reaching(graph, incrementing);
    let mut methods: Vec<(bool, MethodRef)> = graph
        .methods
        .iter()
        .enumerate()
        .filter(|&(id, node)| {
            (local.reaches[id] || counting[id])
                && matches!(node.kind, NodeKind::Code | NodeKind::Spec(_))
        })
        .map(|(_, node)| (node.kind.spec().is_some(), node.method.clone()))
        .collect();
    methods.sort_by_key(|(is_spec, _)| *is_spec);
    methods.into_iter().map(|(_, method)| method).collect()
}

/// For each (caller, call offset) between lowered methods, the procedures entered there.
fn callees_by_call_site(
    graph: &CallGraph,
    procedures: &HashMap<MethodRef, ProcId>,
) -> HashMap<(ProcId, u32), Vec<ProcId>> {
    let mut callees: HashMap<(ProcId, u32), Vec<ProcId>> = HashMap::new();
    for edge in &graph.edges {
        let caller = procedures.get(&graph.methods[edge.caller].method);
        let callee = procedures.get(&graph.methods[edge.callee].method);
        if let (Some(&caller), Some(&callee)) = (caller, callee) {
            let list = callees.entry((caller, edge.pc)).or_default();
            if !list.contains(&callee) {
                list.push(callee);
            }
        }
    }
    callees
}

/// The chain call sites whose every possible callee is a procedure the chains enter there: no
/// unresolved call, no method that allocates nothing (and so is on no chain).
fn complete_call_sites(
    graph: &CallGraph,
    call_sites: &CallSites,
    methods: &[MethodRef],
    callees: &HashMap<(ProcId, u32), Vec<ProcId>>,
) -> HashSet<(ProcId, u32)> {
    callees
        .iter()
        .filter(|&(&(caller, pc), list)| {
            let Some(node) = graph.node(&methods[caller.0]) else {
                return false;
            };
            let on_chains: HashSet<usize> = list
                .iter()
                .filter_map(|p| graph.node(&methods[p.0]))
                .collect();
            !call_sites.is_unresolved(node, pc)
                && !call_sites.entered(node, pc).is_empty()
                && call_sites
                    .entered(node, pc)
                    .iter()
                    .all(|c| on_chains.contains(c))
        })
        .map(|(&site, _)| site)
        .collect()
}

/// The calls of `methods` (procedures `0..`) that end the program: every method they may enter
/// is spec'd as ending it (`System.exit`), and none is unresolved.
fn program_end_calls(
    graph: &CallGraph,
    call_sites: &CallSites,
    methods: &[MethodRef],
) -> HashSet<(ProcId, u32)> {
    let ends = |callee: usize| {
        graph.methods[callee]
            .kind
            .spec()
            .is_some_and(|spec| spec.ends_program)
    };
    let procedure: HashMap<usize, ProcId> = methods
        .iter()
        .enumerate()
        .filter_map(|(index, method)| Some((graph.node(method)?, ProcId(index))))
        .collect();
    graph
        .edges
        .iter()
        .filter(|edge| ends(edge.callee))
        .filter_map(|edge| {
            let caller = *procedure.get(&edge.caller)?;
            let all_end = !call_sites.is_unresolved(edge.caller, edge.pc)
                && call_sites
                    .entered(edge.caller, edge.pc)
                    .iter()
                    .all(|&callee| ends(callee));
            all_end.then_some((caller, edge.pc))
        })
        .collect()
}

/// `m1_at5` for the point before offset 5 of `m1`, `m1_at5_m2` on the way into `m2`.
fn point_name(procedure: &str, key: PointKey, names: &[String], program: &Program) -> String {
    let base = match key {
        PointKey::At(pc) => format!("{procedure}_at{pc}"),
        PointKey::Call(pc, callee) => format!("{procedure}_at{pc}_{}", names[callee.0]),
        PointKey::Entry => format!("{procedure}_entry"),
    };
    unique(base, |name| program.point_by_name(name).is_some())
}

fn unique(base: String, taken: impl Fn(&str) -> bool) -> String {
    let mut name = base.clone();
    let mut suffix = 1;
    while taken(&name) {
        suffix += 1;
        name = format!("{base}_{suffix}");
    }
    name
}

impl Lowered {
    /// Of `formals` (the callee's formals a bound depends on), those the call at `pc` of
    /// `caller` passes a value the lowering does not follow, as `size = (1 << levels), which
    /// the analysis does not follow`; a power of two the summaries read as one (see
    /// [`powers`]) says for which shift counts.
    pub fn untracked_arguments(
        &self,
        program: &JavaProgram,
        caller: &MethodRef,
        pc: u32,
        callee: &MethodRef,
        formals: &[String],
    ) -> Vec<String> {
        let (Ok(caller_body), Ok(callee_body), Some(names)) = (
            program.body(caller),
            program.body(callee),
            self.formal_names(callee),
        ) else {
            return Vec::new();
        };
        let declared = formal_kinds(&callee_body).into_iter().enumerate();
        let value_formals = declared
            .filter_map(|(index, kind)| kind.map(|kind| (index, kind)))
            .zip(names);
        value_formals
            .filter(|((_, kind), name)| *kind == FormalKind::Value && formals.contains(name))
            .filter_map(|((index, _), name)| {
                let value = untracked_argument(&caller_body, pc, index)?;
                let followed = match powers::power_of_two_argument(&caller_body, pc, index) {
                    Some(exponent) => {
                        let x = &caller_body
                            .var(declared_param(&caller_body, exponent)?)
                            .name;
                        format!(
                            "which the analysis reads as 2^{x} for 0 <= {x} <= \
                             {MAX_INT_SHIFT} and elsewhere as any of 2^0 .. 2^{MAX_INT_SHIFT} \
                             and -2^31, the JVM taking an int shift count modulo 32"
                        )
                    }
                    None => "which the analysis does not follow".to_string(),
                };
                Some(format!("{name} = {value}, {followed}"))
            })
            .collect()
    }

    /// The callee's formals the call at `pc` of `caller` passes as `1 << x`, each with the
    /// caller's formal that holds `x` (see [`powers`]): (callee formal, caller formal).
    pub fn power_of_two_arguments(
        &self,
        program: &JavaProgram,
        caller: &MethodRef,
        pc: u32,
        callee: &MethodRef,
    ) -> Vec<(String, String)> {
        let (Ok(caller_body), Ok(callee_body), Some(callee_names), Some(caller_names)) = (
            program.body(caller),
            program.body(callee),
            self.formal_names(callee),
            self.formal_names(caller),
        ) else {
            return Vec::new();
        };
        let caller_kinds = formal_kinds(&caller_body);
        // The caller's formal of declared parameter `index`, when it is an integer value.
        let caller_formal = |index: usize| {
            (caller_kinds.get(index)? == &Some(FormalKind::Value)).then(|| {
                let position = caller_kinds[..index].iter().flatten().count();
                caller_names[position].clone()
            })
        };
        let declared = formal_kinds(&callee_body).into_iter().enumerate();
        declared
            .filter_map(|(index, kind)| kind.map(|kind| (index, kind)))
            .zip(callee_names)
            .filter(|((_, kind), _)| *kind == FormalKind::Value)
            .filter_map(|((index, _), name)| {
                let exponent = powers::power_of_two_argument(&caller_body, pc, index)?;
                Some((name, caller_formal(exponent)?))
            })
            .collect()
    }

    /// The callee's trees the call at `pc` of `caller` passes fresh from an earlier call.
    pub fn fresh_trees(
        &self,
        caller: &MethodRef,
        pc: u32,
        callee: &MethodRef,
    ) -> &[FreshTreeFormals] {
        self.fresh_trees
            .get(&(caller.clone(), pc, callee.clone()))
            .map_or(&[], Vec::as_slice)
    }

    /// The offsets of `method`'s increments of ghost counters, with the counter ([`ghost`]):
    /// [`Self::local_invariant`] counts their executions.
    pub fn counter_increments(&self, method: &MethodRef) -> &[(u32, FieldRef)] {
        self.ghosts
            .increments
            .get(method)
            .map_or(&[], Vec::as_slice)
    }

    /// `method`'s formals that view a field of its `this`, with the field.
    pub fn this_field_formals(&self, method: &MethodRef) -> Vec<(String, FieldRef)> {
        let Some(&id) = self.procedures.get(method) else {
            return Vec::new();
        };
        self.view_params(method)
            .into_iter()
            .zip(&self.this_fields[id.0])
            .filter_map(|((name, _), field)| Some((name, field.clone()?)))
            .collect()
    }

    /// Whether the call at `pc` of `method` has another receiver at each execution in one
    /// activation ([`ghost::distinct_receiver_calls`]; asked only where ghost counters are read).
    pub fn distinct_receivers(&self, method: &MethodRef, pc: u32) -> bool {
        self.distinct_receivers.contains(&(method.clone(), pc))
    }

    /// Whether the call at `pc` of `method` is outside every loop of it: at most one execution
    /// per activation (asked only where ghost counters are read).
    pub fn call_outside_loops(&self, method: &MethodRef, pc: u32) -> bool {
        self.calls_outside_loops.contains(&(method.clone(), pc))
    }

    /// Whether a ghost counter relies on [`JDK_NATIVES_KEEP_FIELDS`] (a JDK native is reachable).
    pub fn counters_assume_jdk_natives(&self) -> bool {
        self.ghosts.assumes_jdk_natives
    }

    /// Whether `field` is a ghost counter, or else why not when it is incremented somewhere.
    pub fn counter_status(&self, field: &FieldRef) -> Result<(), Option<&str>> {
        match self.ghosts.is_counter(field) {
            true => Ok(()),
            false => Err(self.ghosts.rejected.get(field).map(String::as_str)),
        }
    }

    /// The names `method`'s formals have as parameters of its counting invariants (one per
    /// integer or array parameter, in order), when it was lowered.
    pub fn formal_names(&self, method: &MethodRef) -> Option<Vec<String>> {
        let procedure = self.program.procedure(*self.procedures.get(method)?);
        Some(
            procedure
                .formals
                .iter()
                .map(|&f| procedure.var_name(f).to_string())
                .collect(),
        )
    }

    /// The field views and fixed locals that are formals of `method`, as (name, origin), in
    /// formal order.
    pub fn view_params(&self, method: &MethodRef) -> Vec<(String, String)> {
        let Some(&id) = self.procedures.get(method) else {
            return Vec::new();
        };
        let procedure = self.program.procedure(id);
        let origins = &self.view_origins[id.0];
        let first = procedure.formals.len().saturating_sub(origins.len());
        procedure.formals[first..]
            .iter()
            .zip(origins)
            .map(|(&f, origin)| (procedure.var_name(f).to_string(), origin.clone()))
            .collect()
    }

    /// Of `formals` (the callee's formals a bound depends on), the chain lengths (walks along
    /// a field, [`chains`]) with, when the caller could not bind them, why the caller's walks
    /// are not followed: `next_length, where the health.PatientEnumeration created at offset 4
    /// walks health.Patient.next, which the call at offset 40 to … may write while it walks`.
    pub fn unbound_chains(
        &self,
        caller: &MethodRef,
        callee: &MethodRef,
        formals: &[String],
    ) -> Option<String> {
        let (caller_notes, callee_notes) = (self.walk_notes(caller)?, self.walk_notes(callee)?);
        let chains: Vec<String> = self
            .view_params(callee)
            .into_iter()
            .filter(|(name, origin)| {
                formals.contains(name) && callee_notes.chain_origins.contains(origin)
            })
            .map(|(name, _)| name)
            .collect();
        if chains.is_empty() || caller_notes.unfollowed.is_empty() {
            return None;
        }
        Some(format!(
            "{}, where {}",
            chains.join(", "),
            caller_notes.unfollowed.join("; ")
        ))
    }

    /// Why cursors `method` creates are not followed (see [`chains::Walks::unfollowed`]).
    pub fn unfollowed_walks(&self, method: &MethodRef) -> &[String] {
        self.walk_notes(method)
            .map_or(&[][..], |notes| notes.unfollowed.as_slice())
    }

    fn walk_notes(&self, method: &MethodRef) -> Option<&WalkNotes> {
        Some(&self.walk_notes[self.procedures.get(method)?.0])
    }

    /// The counting invariant of the allocation at `pc` of `method` (one point per execution
    /// per call of the method, with its array lengths), with the method's formals as
    /// parameters.
    pub fn local_invariant(&self, method: &MethodRef, pc: u32) -> Result<SiteInvariant> {
        let point = self.point(method, PointKey::At(pc))?;
        let invariant = self.analysis.invariant(point);
        let executions = self.inductive[point.0].clone();
        let lengths = self.lengths[point.0].clone();
        let kept: Vec<&str> = executions
            .iter()
            .chain(&lengths)
            .map(String::as_str)
            .collect();
        let mut set = invariant.project_onto(&kept);
        set.params = self.parameter_names(&point, &set);
        Ok(SiteInvariant {
            set,
            executions,
            lengths,
        })
    }

    /// The call at `pc` of `method` into `callee`: one point per execution of the call per call
    /// of `method` and per value the callee's formals can take there (see [`CallSet`]), with
    /// `method`'s formals as parameters. A class initializer runs at most once: its call keeps
    /// no counter column, so its set says only whether it may run.
    pub fn call_set(&self, method: &MethodRef, pc: u32, callee: &MethodRef) -> Result<CallSet> {
        self.path_set(&[PathCall {
            caller: method.clone(),
            pc,
            callee: callee.clone(),
        }])
    }

    /// The calls of `path` made one inside the other (each call's callee is the next one's
    /// caller): one point per execution of the last call per call of the first caller, with
    /// the counters of every frame (each after the first renamed `<call point>__<counter>`)
    /// and the last callee's formals (named `callee__<formal>`); the first caller's formals are
    /// the parameters. A class initializer's frame keeps no counters before it.
    pub fn path_set(&self, path: &[PathCall]) -> Result<CallSet> {
        let cached = self
            .path_sets
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(path)
            .cloned();
        if let Some(set) = cached {
            return Ok(set);
        }
        let set = self.new_path_set(path)?;
        self.path_sets
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(path.to_vec(), set.clone());
        Ok(set)
    }

    fn new_path_set(&self, path: &[PathCall]) -> Result<CallSet> {
        let last = path
            .last()
            .ok_or_else(|| Error::Input("a call path without calls".to_string()))?;
        let mut points = Vec::with_capacity(path.len());
        for call in path {
            let callee = self.procedure_of(&call.callee)?;
            points.push(self.point(&call.caller, PointKey::Call(call.pc, callee))?);
        }
        let callee_id = self.procedure_of(&last.callee)?;
        let entry = self.point(&last.callee, PointKey::Entry)?;
        let chain = chain_invariant(&self.program, &self.analysis, &points, entry)
            .map_err(|e| Error::Input(format!("call set: {e}")))?;
        let mut executions: Vec<String> = Vec::new();
        let mut prefix = String::new();
        for (call, &point) in path.iter().zip(&points) {
            executions.extend(
                self.inductive[point.0]
                    .iter()
                    .map(|name| format!("{prefix}{name}")),
            );
            if call.callee.name.as_ref() == "<clinit>" {
                executions.clear();
            }
            prefix = format!("{}__", self.program.point(point).name);
        }
        let procedure = self.program.procedure(callee_id);
        let snapshots: Vec<String> = (0..procedure.formals.len())
            .map(|index| {
                procedure
                    .var_ids()
                    .find(|v| procedure.vars[v.0].kind == VarKind::Snapshot(index))
                    .map_or_else(String::new, |v| {
                        format!("{prefix}{}", procedure.var_name(v))
                    })
            })
            .collect();
        let kept: Vec<&str> = executions
            .iter()
            .chain(&snapshots)
            .map(String::as_str)
            .collect();
        let mut set = chain.project_onto(&kept);
        if set.dims.len() != kept.len() {
            return Err(Error::Input(format!(
                "call set: not every formal of {} is bound at {}@{}",
                last.callee, last.caller, last.pc
            )));
        }
        set.params = self.parameter_names(&points[0], &set);
        let formals: Vec<String> = procedure
            .formals
            .iter()
            .map(|&f| format!("{CALLEE_PREFIX}{}", procedure.var_name(f)))
            .collect();
        set.dims = executions.iter().chain(&formals).cloned().collect();
        let shares = match path {
            [call] => {
                let caller = self.procedure_of(&call.caller)?;
                self.element_shares
                    .get(&(caller, call.pc, callee_id))
                    .cloned()
                    .unwrap_or_default()
            }
            _ => Vec::new(),
        };
        Ok(CallSet {
            set,
            executions,
            formals,
            shares,
        })
    }

    fn procedure_of(&self, method: &MethodRef) -> Result<ProcId> {
        self.procedures
            .get(method)
            .copied()
            .ok_or_else(|| Error::Input(format!("{method} was not lowered")))
    }

    /// The point of `key` in `method`'s procedure; an error naming the budget when the
    /// procedure's fixpoint gave up (its invariants would say "any state").
    fn point(&self, method: &MethodRef, key: PointKey) -> Result<PointId> {
        let here = self.procedure_of(method)?;
        let losses = &self.analysis.procedures[here.0].losses;
        if let Some(reason) = losses.iter().find_map(|loss| loss.gave_up_reason()) {
            return Err(Error::Input(format!("{method}: {reason}")));
        }
        self.points
            .get(&(here, key))
            .copied()
            .flatten()
            .ok_or_else(|| {
                Error::Input(format!(
                    "{method}: no single statement at {key:?} to attach an invariant to"
                ))
            })
    }

    /// The counting invariant of one creation site (see the module documentation), with the
    /// entry method's formals as parameters under their own names.
    pub fn site_invariant(&self, site: &CreationSite) -> Result<SiteInvariant> {
        self.suffix_invariant(site, 0)
    }

    /// The counting invariant of the part of `site`'s chain that starts at element `from`, with
    /// that method's formals as parameters: how often the allocation runs per call of it.
    pub fn suffix_invariant(&self, site: &CreationSite, from: usize) -> Result<SiteInvariant> {
        let frames = self.frame_points(site)?;
        let frames = frames.get(from..).unwrap_or_default();
        let (target, calls) = frames
            .split_last()
            .ok_or_else(|| Error::Input("a creation site with an empty chain".to_string()))?;
        let chain = chain_invariant(&self.program, &self.analysis, calls, *target)
            .map_err(|e| Error::Input(format!("chain invariant: {e}")))?;
        let entered = site.chain.get(from + 1..).unwrap_or_default();
        let (executions, lengths) = self.kept_columns(frames, entered);
        let kept: Vec<&str> = executions
            .iter()
            .chain(&lengths)
            .map(String::as_str)
            .collect();
        let mut set = chain.project_onto(&kept);
        set.params = self.parameter_names(calls.first().unwrap_or(target), &set);
        Ok(SiteInvariant {
            set,
            executions,
            lengths,
        })
    }

    /// The point of each chain element: the call into the next method, then the allocation.
    fn frame_points(&self, site: &CreationSite) -> Result<Vec<PointId>> {
        let procedure = |method: &MethodRef| {
            self.procedures
                .get(method)
                .copied()
                .ok_or_else(|| Error::Input(format!("{method} was not lowered")))
        };
        let mut frames = Vec::new();
        for (index, element) in site.chain.iter().enumerate() {
            let here = procedure(&element.method)?;
            let key = match site.chain.get(index + 1) {
                Some(next) => PointKey::Call(element.pc, procedure(&next.method)?),
                None => PointKey::At(element.pc),
            };
            let point = self
                .points
                .get(&(here, key))
                .copied()
                .flatten()
                .ok_or_else(|| {
                    Error::Input(format!(
                        "{}: no single statement at offset {} to attach an invariant to",
                        element.method, element.pc
                    ))
                })?;
            frames.push(point);
        }
        Ok(frames)
    }

    /// The chain invariant's columns to keep: per frame its inductive variables, each under the
    /// prefix `chain_invariant` gives that frame, then the allocation's lengths. They tell
    /// executions apart: one call runs once per valuation of its frame's loop counters, so the
    /// counters of all frames identify an execution. The callee formals bound at each call are
    /// not kept: where they matter they bound the counters, and an argument the lowering cannot
    /// express (a call's result) must not make a count that does not depend on it unbounded.
    /// A class initializer runs at most once: the frames before one (`entered[k]` is the method
    /// frame `k` calls) keep no column, so they say only whether it may run.
    fn kept_columns(
        &self,
        frames: &[PointId],
        entered: &[ChainElement],
    ) -> (Vec<String>, Vec<String>) {
        let mut kept = Vec::new();
        let mut prefix = String::new();
        for (index, &point) in frames.iter().enumerate() {
            kept.extend(
                self.inductive[point.0]
                    .iter()
                    .map(|name| format!("{prefix}{name}")),
            );
            if entered
                .get(index)
                .is_some_and(|next| next.method.name.as_ref() == "<clinit>")
            {
                kept.clear();
            }
            if index + 1 < frames.len() {
                prefix = format!("{}__", self.program.point(point).name);
            }
        }
        let lengths = frames.last().map_or_else(Vec::new, |last| {
            self.lengths[last.0]
                .iter()
                .map(|name| format!("{prefix}{name}"))
                .collect()
        });
        (kept, lengths)
    }

    /// The entry procedure's snapshot parameters renamed to the formals they snapshot.
    fn parameter_names(&self, entry_point: &PointId, invariant: &Invariant) -> Vec<String> {
        let procedure = self
            .program
            .procedure(self.program.point(*entry_point).procedure);
        invariant
            .params
            .iter()
            .map(|param| {
                procedure
                    .var_by_name(param)
                    .and_then(|v| match procedure.vars[v.0].kind {
                        VarKind::Snapshot(index) => procedure.formals.get(index),
                        _ => None,
                    })
                    .map_or_else(|| param.clone(), |&f| procedure.var_name(f).to_string())
            })
            .collect()
    }
}

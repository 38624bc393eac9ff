//! Per-method summaries: what each method allocates per call, in its own formals, computed once
//! per method bottom-up over the call graph's strongly connected components.
//!
//! A method's summary lists every local site it reaches, once per statement of its own that
//! reaches it (the allocation itself, or a call), with how often it runs, its objects and its
//! bytes per call of the method, split by where the objects live for the method ([`Place`]:
//! its region, a callee's region, or outliving it as a node of its escape summary). Its own
//! allocations are counted from their invariants ([`local`]); a call contributes each entry of
//! its callee's summary, renamed into the callee's formals and summed over the integer points
//! of the call's set (the executions of the call with the values the callee's formals take
//! there: [`crate::lowering::Lowered::call_set`]), which is exact where the chain invariants
//! were (`Σ_{points} count(args)` is the count of the conjoined chain when the arguments are
//! functions of the counters); where the caller cannot bind them, each execution counts at the
//! largest over the formal values it allows, not their sum ([`per_execution`]). So the work
//! grows with methods and call sites, never with call chains. The method's memAlloc adds up its
//! entries, except that a call whose targets each allocate a constant per call counts once per
//! execution, at the largest (an execution runs one target).
//!
//! A recursive component is solved as cost relations ([`recursion`]), or, where its cost does not
//! grow with its depth, as a fixpoint of its members' summaries ([`depth_free`]); otherwise its
//! members are ∞ with the reason. A call into code the analysis cannot
//! see makes a method's totals ∞ (its sites stay counted) unless the analysis counts it 0 times,
//! and a call counted 0 times adds nothing at all. It does not print and does not build certificates.

pub(crate) mod depth_free;
mod farkas;
mod fresh;
mod geometric;
mod ghost;
mod local;
mod measured;
mod per_execution;
mod phases;
pub(crate) mod powers;
mod qty;
mod recursion;

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use membound_bernstein::{Arm, Atom, BoundExpr, Guard, guard::affine_to_linear};
use membound_front::callgraph::{CallGraph, Edge, NodeId, NodeKind};
use membound_front::program::Program;
use membound_front::sizes::ObjectModel;
use membound_jvm::MethodRef;
use membound_polyhedra::{BasicSet, CountError, Polyhedron, Rat, Relation, Set, Space};
use rayon::prelude::*;

use crate::escape::{Fate, Fates, SummaryNode};
use crate::lowering::{CALLEE_PREFIX, CallSet, Lowered};
use crate::memalloc::Quantity;
use crate::sites::{AllocationKind, LocalSite, LocalSites};
use powers::PowerArgument;

pub use local::{LocalAmount, local_amount};
pub use qty::Qty;
pub(crate) use qty::constant_dims;

/// Where objects counted in a summary live, seen from its method.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Place {
    /// In the method's own region.
    Captured,
    /// In the region of a method it calls (they die before it returns).
    Below,
    /// They outlive the method; its callers see them as this node of its escape summary.
    Escapes(SummaryNode),
}

/// Executions, objects and bytes per call of a method.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counted {
    pub count: Qty,
    pub objects: Qty,
    pub bytes: Qty,
}

impl Counted {
    fn zero(params: &[String]) -> Counted {
        Counted {
            count: Qty::zero(params),
            objects: Qty::zero(params),
            bytes: Qty::zero(params),
        }
    }

    fn infinite() -> Counted {
        Counted {
            count: Qty::Inf,
            objects: Qty::Inf,
            bytes: Qty::Inf,
        }
    }

    pub fn add(&self, other: &Counted) -> Counted {
        Counted {
            count: self.count.add(&other.count),
            objects: self.objects.add(&other.objects),
            bytes: self.bytes.add(&other.bytes),
        }
    }

    fn map(&self, f: impl Fn(&Qty) -> Qty) -> Counted {
        Counted {
            count: f(&self.count),
            objects: f(&self.objects),
            bytes: f(&self.bytes),
        }
    }

    fn try_map(&self, f: impl Fn(&Qty) -> Result<Qty, CountError>) -> Result<Counted, CountError> {
        Ok(Counted {
            count: f(&self.count)?,
            objects: f(&self.objects)?,
            bytes: f(&self.bytes)?,
        })
    }
}

/// One local site as seen from one method, through one of its statements.
#[derive(Clone, Debug)]
pub struct SiteSummary {
    /// The index of the site in [`LocalSites::sites`].
    pub site: usize,
    /// The offset of the method's own call through which the site is reached; `None` when the
    /// site is the method's own allocation.
    pub via: Option<u32>,
    /// What it allocates per call of the method, by where the objects live.
    pub parts: BTreeMap<Place, Counted>,
    /// Why something here is ∞.
    pub reasons: Vec<String>,
    /// Whether every part counts allocations of class initializers, which run at most once
    /// per run, or the first use of the locale's number data: callers add them once, however
    /// often they call ([`CLASS_INITIALIZER`], `AllocationKind::FormatLocaleData`).
    pub once: bool,
}

/// The name of a class initializer: it runs at most once per class in a run, so what it
/// allocates counts once wherever the code that first uses its class runs.
pub const CLASS_INITIALIZER: &str = "<clinit>";

impl SiteSummary {
    /// All of it, wherever the objects live.
    pub fn total(&self, params: &[String]) -> Counted {
        self.parts
            .values()
            .fold(Counted::zero(params), |sum, part| sum.add(part))
    }
}

/// The summary of one method.
#[derive(Clone, Debug)]
pub struct MethodSummary {
    pub node: NodeId,
    pub method: MethodRef,
    /// The names of its formals: the parameters of every quantity here.
    pub params: Vec<String>,
    pub sites: Vec<SiteSummary>,
    /// memAlloc: objects and bytes per call (∞ when it reaches code the analysis cannot see),
    /// besides the once part.
    pub objects: Qty,
    pub bytes: Qty,
    /// The objects and bytes of the class initializers it reaches: at most these in a whole
    /// run, however often it is called (constants; its sites marked `once`).
    pub once_objects: Qty,
    pub once_bytes: Qty,
    /// Why the totals are ∞ beyond the sites' reasons.
    pub unbounded: Vec<String>,
    /// For the header of a solved recursive component: the levels of its nested activations.
    pub recursion: Option<Recursion>,
    /// Where a call may not return: parameter values (a union of parts over `params`) for
    /// which a recursion under it never stops. Every quantity here holds elsewhere; written
    /// out, it is ∞ there ([`MethodSummary::written`]).
    pub diverges: Vec<Divergence>,
    /// The calls passing trees fresh from an earlier call, with their bounds: memRq bounds the
    /// callee's regions over them too.
    pub fresh_calls: Vec<FreshCall>,
}

/// A call that passes its callee trees fresh from an earlier call ([`fresh`]).
#[derive(Clone, Debug)]
pub struct FreshCall {
    pub pc: u32,
    pub callee: MethodRef,
    pub trees: Vec<fresh::FreshBound>,
    /// The ghost counters among the trees ([`ghost`]), `p.C.f`: the bounds rely on
    /// [`crate::lowering::GHOST_COUNTERS`].
    pub counters: Vec<String>,
}

impl MethodSummary {
    /// An upper bound of `quantity` of `callee` (over its formals renamed with
    /// [`CALLEE_PREFIX`]) over the sizes of the trees the call at `pc` passes it fresh, when
    /// it depends on one of them.
    pub fn over_fresh_trees(
        &self,
        pc: u32,
        callee: &MethodRef,
        quantity: &Quantity,
    ) -> Option<Quantity> {
        let call = self
            .fresh_calls
            .iter()
            .find(|call| call.pc == pc && call.callee == *callee)?;
        fresh::reads_tree(&quantity.params(), &call.trees)
            .then(|| fresh::over_fresh_trees(quantity, &call.trees))
            .flatten()
    }
}

/// Parameter values of a method for which a recursion under a call of it never stops.
#[derive(Clone, Debug)]
pub struct Divergence {
    /// Over the method's formals.
    pub region: BasicSet,
    /// Which recursion, and where it goes on: `recursion through … never stops for n <= -1`.
    pub why: String,
}

impl MethodSummary {
    /// `qty` as a bound expression, ∞ where a call may not return.
    pub fn written(&self, qty: &Qty) -> Quantity {
        self.guarded(qty.to_quantity())
    }

    /// `expr` (in the method's parameters), ∞ where a call may not return.
    pub fn guarded(&self, expr: Quantity) -> Quantity {
        if self.diverges.is_empty() || expr.may_be_infinite() {
            return expr;
        }
        infinite_on(
            self.diverges.iter().map(|divergence| &divergence.region),
            &self.params,
            expr,
        )
    }
}

/// `otherwise`, but ∞ on each of `parts` (over `params`; constraints on divisions are left
/// out: the ∞ only widens).
fn infinite_on<'a>(
    parts: impl Iterator<Item = &'a BasicSet>,
    params: &[String],
    otherwise: Quantity,
) -> Quantity {
    let arms = parts
        .map(|part| Arm {
            guard: Guard::from_atoms(
                part.constraints
                    .iter()
                    .filter(|c| c.expr.support().all(|column| column < params.len()))
                    .map(|c| {
                        let linear = affine_to_linear(&c.expr, params);
                        match c.rel {
                            Relation::Ge => Atom::ge(linear),
                            Relation::Eq => Atom::eq(linear),
                        }
                    })
                    .collect(),
            ),
            expr: Quantity::Inf,
        })
        .collect();
    BoundExpr::Cases {
        arms,
        default: Box::new(otherwise),
    }
}

/// The levels of nested activations under a call of a recursive component's header.
#[derive(Clone, Debug)]
pub enum Levels {
    /// Over the header's formals, with dims `level` and the formals at that level (named
    /// `callee__<formal>`): one point per level (a descent).
    Points(Set),
    /// At most this many levels, with formals known only through a measure.
    Depth(Quantity),
    /// Any number of levels, none allocating on its way into the next ([`depth_free`]): only
    /// the calls leaving the component hold regions below the deepest activation.
    Unbounded,
}

/// The nested activations under a call of a recursive component's header.
#[derive(Clone, Debug)]
pub struct Recursion {
    pub levels: Levels,
    /// The paths of calls that come back to the header through other members, each as
    /// (caller, offset, callee) nodes; a call of its own is a path of one call.
    pub paths: Vec<Vec<(NodeId, u32, NodeId)>>,
}

/// The summaries of every method of a call graph that reaches a local site.
#[derive(Clone, Debug)]
pub struct Summaries {
    /// By node of the graph; `None` for methods that reach no site or were not lowered.
    pub by_node: Vec<Option<MethodSummary>>,
    /// The summarized nodes in the order they were summarized: callees first.
    pub order: Vec<NodeId>,
}

impl Summaries {
    pub fn of(&self, node: NodeId) -> Option<&MethodSummary> {
        self.by_node.get(node)?.as_ref()
    }

    /// Every summary, callees before their callers (members of one recursive component in
    /// no particular order).
    pub fn in_order(&self) -> impl Iterator<Item = &MethodSummary> {
        self.order.iter().filter_map(|&node| self.of(node))
    }
}

/// Everything a summary is computed from.
pub struct Inputs<'a> {
    pub program: &'a Program,
    pub graph: &'a CallGraph,
    pub local: &'a LocalSites,
    pub lowered: &'a Lowered,
    pub fates: &'a Fates,
    pub model: ObjectModel,
    /// For each node, why it reaches code the analysis cannot see (empty: it does not).
    pub unknown: &'a HashMap<NodeId, Vec<String>>,
    /// When the caller's time is up: components not summarized by then are ∞ with the time
    /// limit as their reason.
    pub deadline: Option<Instant>,
}

/// Why a call's sites are ∞ when the deadline passed while its caller was summarized.
const TIME_LIMIT_IN_SUMMARY: &str =
    "the analysis reached its time limit while summarizing the call that reaches this site";

impl Inputs<'_> {
    /// Whether the deadline has passed: what is not summarized yet is ∞ with the time limit.
    fn out_of_time(&self) -> bool {
        self.deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
    }
}

/// The summary of every method of `inputs.graph` that reaches a local site, callees first.
/// The call graph's components are summarized in waves, each after the components it calls,
/// the components of a wave in parallel. `progress` hears how many methods there are to
/// summarize, then of each one summarized.
pub fn summarize(inputs: &Inputs<'_>, progress: &(dyn Fn(crate::memrq::Step) + Sync)) -> Summaries {
    let count = inputs.graph.methods.len();
    let mut summaries = Summaries {
        by_node: vec![None; count],
        order: Vec::new(),
    };
    let adjacency = inputs.graph.adjacency();
    let components = inputs.graph.components();
    let to_summarize = (0..count)
        .filter(|&id| inputs.local.reaches[id] && lowered(inputs, id))
        .count();
    progress(crate::memrq::Step::Summarizing(to_summarize));
    for wave in waves(&components, &adjacency, count) {
        let solved: Vec<Vec<(NodeId, MethodSummary)>> = wave
            .par_iter()
            .map(|&component| {
                // A count still running at the deadline stops there: its sites are ∞ with it.
                let solved = membound_polyhedra::with_deadline(inputs.deadline, || {
                    summarize_component(inputs, &summaries, &components[component], &adjacency)
                });
                solved
                    .iter()
                    .for_each(|_| progress(crate::memrq::Step::Summarized));
                solved
            })
            .collect();
        for (id, summary) in solved.into_iter().flatten() {
            summaries.by_node[id] = Some(summary);
            summaries.order.push(id);
        }
    }
    summaries
}

/// The components (indices into `components`, which lists callees' components first) grouped
/// by height: a component's wave comes after the waves of every component it calls.
fn waves(components: &[Vec<NodeId>], adjacency: &[Vec<&Edge>], count: usize) -> Vec<Vec<usize>> {
    let mut component_of = vec![0; count];
    for (index, members) in components.iter().enumerate() {
        for &member in members {
            component_of[member] = index;
        }
    }
    let mut height = vec![0usize; components.len()];
    let mut waves: Vec<Vec<usize>> = Vec::new();
    for (index, members) in components.iter().enumerate() {
        height[index] = members
            .iter()
            .flat_map(|&member| &adjacency[member])
            .map(|edge| component_of[edge.callee])
            .filter(|&callee| callee != index)
            .map(|callee| height[callee] + 1)
            .max()
            .unwrap_or(0);
        if waves.len() <= height[index] {
            waves.resize(height[index] + 1, Vec::new());
        }
        waves[height[index]].push(index);
    }
    waves
}

/// The summaries of one component's members, in the order they were summarized, over the
/// summaries of the components it calls (`done`).
fn summarize_component(
    inputs: &Inputs<'_>,
    done: &Summaries,
    component: &[NodeId],
    adjacency: &[Vec<&Edge>],
) -> Vec<(NodeId, MethodSummary)> {
    let members: Vec<NodeId> = component
        .iter()
        .copied()
        .filter(|&id| inputs.local.reaches[id] && lowered(inputs, id))
        .collect();
    let recursive = component.len() > 1
        || adjacency[component[0]]
            .iter()
            .any(|edge| edge.callee == component[0]);
    if inputs.out_of_time() {
        let why = |_: &MethodRef| {
            vec!["the analysis reached its time limit before summarizing this method".to_string()]
        };
        return unbounded_summaries(inputs, done, &members, adjacency, &why);
    }
    let mut layered = Layered::over(done);
    if !recursive {
        for &id in &members {
            let summary = method_summary(inputs, &layered, &adjacency[id], id);
            layered.push(id, summary);
        }
        return layered.into_ordered();
    }
    let Err(unsolved) = recursion::component(inputs, &mut layered, &members, adjacency) else {
        return layered.into_ordered();
    };
    if let Some(solved) = depth_free::summaries(inputs, done, &members, adjacency) {
        return solved;
    }
    let why = |method: &MethodRef| vec![format!("recursion through {method} ({unsolved})")];
    unbounded_summaries(inputs, done, &members, adjacency, &why)
}

/// The summaries of a component's `members` when they cannot be computed: every site they
/// reach is ∞ with `why` of the member as its reason.
fn unbounded_summaries(
    inputs: &Inputs<'_>,
    done: &Summaries,
    members: &[NodeId],
    adjacency: &[Vec<&Edge>],
    why: &dyn Fn(&MethodRef) -> Vec<String>,
) -> Vec<(NodeId, MethodSummary)> {
    let mut layered = Layered::over(done);
    for &id in members {
        let why = why(&inputs.graph.methods[id].method);
        let summary = unbounded_summary(inputs, &layered, members, &adjacency[id], id, &why);
        layered.push(id, summary);
    }
    layered.into_ordered()
}

/// The summaries of one component while it is summarized, over those of the components it
/// calls; a member summarized again replaces its earlier summary.
pub(super) struct Layered<'a> {
    done: &'a Summaries,
    new: BTreeMap<NodeId, MethodSummary>,
    order: Vec<NodeId>,
}

impl<'a> Layered<'a> {
    fn over(done: &'a Summaries) -> Layered<'a> {
        Layered {
            done,
            new: BTreeMap::new(),
            order: Vec::new(),
        }
    }

    pub(super) fn of(&self, node: NodeId) -> Option<&MethodSummary> {
        self.new.get(&node).or_else(|| self.done.of(node))
    }

    /// `summary` for `node`, seen by the summaries computed next but not yet final.
    pub(super) fn set(&mut self, node: NodeId, summary: MethodSummary) {
        self.new.insert(node, summary);
    }

    /// `summary` for `node`, final: it comes out in this order.
    pub(super) fn push(&mut self, node: NodeId, summary: MethodSummary) {
        self.new.insert(node, summary);
        self.order.push(node);
    }

    fn into_ordered(mut self) -> Vec<(NodeId, MethodSummary)> {
        self.order
            .iter()
            .filter_map(|node| Some((*node, self.new.remove(node)?)))
            .collect()
    }
}

fn lowered(inputs: &Inputs<'_>, id: NodeId) -> bool {
    inputs
        .lowered
        .formal_names(&inputs.graph.methods[id].method)
        .is_some()
}

/// A method's entries while they are gathered: by (via, site).
type Entries = BTreeMap<(Option<u32>, usize), SiteSummary>;

fn entry(entries: &mut Entries, via: Option<u32>, site: usize) -> &mut SiteSummary {
    entries.entry((via, site)).or_insert_with(|| SiteSummary {
        site,
        via,
        parts: BTreeMap::new(),
        reasons: Vec::new(),
        once: false,
    })
}

fn add_part(summary: &mut SiteSummary, place: Place, counted: Counted) {
    let sum = match summary.parts.get(&place) {
        Some(existing) => existing.add(&counted),
        None => counted,
    };
    summary.parts.insert(place, sum);
}

fn add_reasons(summary: &mut SiteSummary, reasons: &[String]) {
    for reason in reasons {
        if !summary.reasons.contains(reason) {
            summary.reasons.push(reason.clone());
        }
    }
}

/// Why an allocation of a spec'd method is ∞ when its spec states no count for it (rather
/// than the reason a loop would give).
fn unbounded_by_spec(kind: &NodeKind, pc: u32) -> Option<String> {
    let NodeKind::Spec(spec) = kind else {
        return None;
    };
    let allocation = spec.allocation_at(pc)?;
    allocation.count.is_none().then(|| match &spec.assumption {
        Some(why) => format!("its spec states no bound on how many it makes per call: {why}"),
        None => "its spec states no bound on how many it makes per call".to_string(),
    })
}

/// A spec's allocation without a count under a condition (`collect`'s for a collector other
/// than `toList()`): ∞ only for the formals' values that reach it, so a call whose arguments
/// never satisfy the condition adds nothing. `None` where it is reached for every value.
fn infinite_where_reached(lowered: &Lowered, local: &LocalSite, params: &[String]) -> Option<Qty> {
    let invariant = lowered.local_invariant(&local.method, local.pc).ok()?;
    let executions = invariant.executions_set().to_set();
    let dims: Vec<&str> = executions.space.dims.iter().map(String::as_str).collect();
    let reached = executions.project_out_dims(&dims);
    if reached.space.params != params || reached.parts.iter().any(|p| p.constraints.is_empty()) {
        return None;
    }
    Some(Qty::Expr(infinite_on(
        reached.parts.iter(),
        params,
        Quantity::zero(),
    )))
}

/// The summary of a method outside any recursive component, from its callees' summaries.
fn method_summary(
    inputs: &Inputs<'_>,
    summaries: &Layered<'_>,
    edges: &[&Edge],
    id: NodeId,
) -> MethodSummary {
    let method = inputs.graph.methods[id].method.clone();
    let params = inputs.lowered.formal_names(&method).unwrap_or_default();
    let mut entries = Entries::new();
    let mut objects = Qty::zero(&params);
    let mut bytes = Qty::zero(&params);
    let mut once = Once::zero(&params);
    for &site in &inputs.local.by_node[id] {
        let local = &inputs.local.sites[site];
        let mut amount = local_amount(inputs.program, inputs.lowered, inputs.model, &params, local);
        if let Some(reason) = unbounded_by_spec(&inputs.graph.methods[id].kind, local.pc) {
            amount.reasons = vec![reason];
            if let Some(infinite) = infinite_where_reached(inputs.lowered, local, &params) {
                amount.count = infinite.clone();
                amount.objects = infinite.clone();
                amount.bytes = infinite;
            }
        }
        let once_per_run = local.allocation.kind == AllocationKind::FormatLocaleData;
        let place = match inputs.fates.of_allocation(id, local.pc) {
            // The JDK's caches keep the locale's data.
            _ if once_per_run => Place::Escapes(SummaryNode::Global),
            Fate::Captured => Place::Captured,
            Fate::Escapes(node) => Place::Escapes(node),
        };
        let (total_objects, total_bytes) = match once_per_run {
            true => (&mut once.objects, &mut once.bytes),
            false => (&mut objects, &mut bytes),
        };
        *total_objects = total_objects.add(&amount.objects.aligned(&params));
        *total_bytes = total_bytes.add(&amount.bytes.aligned(&params));
        let summary = entry(&mut entries, None, site);
        summary.once = once_per_run;
        add_reasons(summary, &amount.reasons);
        let counted = Counted {
            count: amount.count,
            objects: amount.objects,
            bytes: amount.bytes,
        };
        add_part(summary, place, counted.map(|q| q.aligned(&params)));
    }
    let mut diverges = Vec::new();
    let mut fresh_calls = Vec::new();
    for (pc, targets) in calls_by_offset(inputs, edges) {
        let call = CallSite {
            inputs,
            summaries,
            caller: id,
            method: &method,
            params: &params,
            pc,
        };
        let (call_objects, call_bytes) = call.compose(
            &targets,
            &mut entries,
            &mut diverges,
            &mut fresh_calls,
            &mut once,
        );
        objects = objects.add(&call_objects);
        bytes = bytes.add(&call_bytes);
    }
    let unbounded = unseen_code(inputs, summaries, edges, id, &method);
    if !unbounded.is_empty() {
        objects = Qty::Inf;
        bytes = Qty::Inf;
    }
    MethodSummary {
        node: id,
        method,
        params,
        sites: entries.into_values().collect(),
        objects,
        bytes,
        unbounded,
        recursion: None,
        diverges,
        fresh_calls,
        once_objects: once.objects,
        once_bytes: once.bytes,
    }
}

/// What class initializers and the first use of the locale's number data allocate, counted once
/// per run ([`CLASS_INITIALIZER`], `AllocationKind::FormatLocaleData`).
struct Once {
    objects: Qty,
    bytes: Qty,
}

impl Once {
    fn zero(params: &[String]) -> Once {
        Once {
            objects: Qty::zero(params),
            bytes: Qty::zero(params),
        }
    }
}

/// Why a method reaches code the analysis cannot see, call by call: a call the analysis counts
/// 0 times per call of the method (under a guard that never holds) adds nothing; any other call
/// into unseen code, whatever its count, makes the method's totals ∞. A callee with a summary
/// tells its own reasons (its calls that never run left out); one without, every unseen method
/// it reaches.
fn unseen_code(
    inputs: &Inputs<'_>,
    summaries: &Layered<'_>,
    edges: &[&Edge],
    id: NodeId,
    method: &MethodRef,
) -> Vec<String> {
    const SHOWN: usize = 3;
    if !inputs.unknown.contains_key(&id) {
        return Vec::new();
    }
    let mut by_call: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for edge in edges {
        let why = match summaries.of(edge.callee) {
            Some(summary) => summary.unbounded.clone(),
            None => inputs
                .unknown
                .get(&edge.callee)
                .cloned()
                .unwrap_or_default(),
        };
        by_call.entry(edge.pc).or_default().extend(why);
    }
    for call in inputs.graph.unresolved.iter().filter(|c| c.caller == id) {
        by_call.entry(call.pc).or_default().push(format!(
            "reaches unresolved call to {} ({})",
            call.target, call.reason
        ));
    }
    let mut reasons: Vec<String> = Vec::new();
    for (pc, why) in by_call {
        if why.is_empty() || never_runs(inputs.lowered, method, pc) {
            continue;
        }
        for reason in why {
            if reasons.len() < SHOWN && !reasons.contains(&reason) {
                reasons.push(reason);
            }
        }
    }
    reasons
}

/// Whether the call at `pc` of `method` runs 0 times per call of the method, as counted from
/// its invariant (an invariant that cannot be counted may run).
fn never_runs(lowered: &Lowered, method: &MethodRef, pc: u32) -> bool {
    lowered
        .local_invariant(method, pc)
        .ok()
        .and_then(|invariant| Qty::count_of(&invariant.executions_set().to_set()).ok())
        .is_some_and(|count| count.is_zero())
}

/// The calls of a method into methods that reach a site, grouped by offset.
fn calls_by_offset(inputs: &Inputs<'_>, edges: &[&Edge]) -> BTreeMap<u32, Vec<NodeId>> {
    let mut calls: BTreeMap<u32, Vec<NodeId>> = BTreeMap::new();
    for edge in edges {
        if inputs.local.reaches[edge.callee] && lowered(inputs, edge.callee) {
            let targets = calls.entry(edge.pc).or_default();
            if !targets.contains(&edge.callee) {
                targets.push(edge.callee);
            }
        }
    }
    calls
}

/// One call site of the method being summarized.
struct CallSite<'a> {
    inputs: &'a Inputs<'a>,
    summaries: &'a Layered<'a>,
    caller: NodeId,
    method: &'a MethodRef,
    params: &'a [String],
    pc: u32,
}

impl CallSite<'_> {
    /// Adds what each target reaches to `entries` (under this call's offset), and returns the
    /// call's share of the method's objects and bytes.
    fn compose(
        &self,
        targets: &[NodeId],
        entries: &mut Entries,
        diverges: &mut Vec<Divergence>,
        fresh_calls: &mut Vec<FreshCall>,
        once: &mut Once,
    ) -> (Qty, Qty) {
        let mut totals: Vec<(Qty, Qty, Option<Call>)> = Vec::new();
        // Targets whose total is ∞ while the sites they run at this call's values are not:
        // those sites' sums, added to the others' (a sum where one execution runs one target,
        // so above the largest).
        let mut summed: Vec<(Qty, Qty)> = Vec::new();
        for &callee in targets {
            let Some(summary) = self.summaries.of(callee) else {
                continue;
            };
            if self.inputs.out_of_time() {
                self.unbounded_target(summary, TIME_LIMIT_IN_SUMMARY, entries);
                totals.push((Qty::Inf, Qty::Inf, None));
                continue;
            }
            let call_set = self
                .inputs
                .lowered
                .call_set(self.method, self.pc, &summary.method);
            match call_set {
                // A call that never runs adds nothing, whatever its callee reaches.
                Ok(call_set) if executions_count(&call_set).is_zero() => {}
                Ok(call_set) => {
                    let powers = self.power_arguments(self.pc, summary);
                    diverges.extend(diverging_calls(summary, &call_set, &powers));
                    let mut call = Call {
                        set: call_set,
                        powers,
                        fresh: self.fresh_bounds(summary),
                        counters: Vec::new(),
                    };
                    call.counters = self.counter_bounds(summary, &call);
                    call.fresh
                        .extend(call.counters.iter().map(ghost::CounterBound::per_execution));
                    if !call.fresh.is_empty() {
                        fresh_calls.push(FreshCall {
                            pc: self.pc,
                            callee: summary.method.clone(),
                            trees: call.fresh.clone(),
                            counters: call.counters.iter().map(|c| c.field_name()).collect(),
                        });
                    }
                    let initializer = self.whole_once(summary);
                    let from_sites = self.compose_target(summary, &call, entries, initializer);
                    if initializer {
                        // The call's set already counts a class's first use once.
                        let set = call.set.set.to_set();
                        let sum = |qty: &Qty, once_part: &Qty| {
                            call.sum(&qty.add(once_part), &set)
                                .map(|q| q.aligned(self.params))
                                .unwrap_or(Qty::Inf)
                        };
                        once.objects = once
                            .objects
                            .add(&sum(&summary.objects, &summary.once_objects));
                        once.bytes = once.bytes.add(&sum(&summary.bytes, &summary.once_bytes));
                        continue;
                    }
                    if let Some((objects, bytes)) = self.once_totals(summary) {
                        once.objects = once.objects.add(&objects);
                        once.bytes = once.bytes.add(&bytes);
                    }
                    let callee_infinite =
                        summary.objects.is_infinite() || summary.bytes.is_infinite();
                    if callee_infinite && !from_sites.0.is_infinite() && !from_sites.1.is_infinite()
                    {
                        summed.push(from_sites);
                    } else {
                        totals.push((summary.objects.clone(), summary.bytes.clone(), Some(call)));
                    }
                }
                Err(error) => {
                    self.unbounded_target(summary, &error.to_string(), entries);
                    totals.push((Qty::Inf, Qty::Inf, None));
                }
            }
        }
        let (mut objects, mut bytes) = self.call_totals(&totals);
        for (target_objects, target_bytes) in &summed {
            objects = objects.add(target_objects);
            bytes = bytes.add(target_bytes);
        }
        if (objects.is_infinite() || bytes.is_infinite()) && self.inputs.out_of_time() {
            // The totals' counts may have stopped at the deadline: the sites say so.
            for summary in targets
                .iter()
                .filter_map(|&callee| self.summaries.of(callee))
            {
                self.unbounded_target(summary, TIME_LIMIT_IN_SUMMARY, entries);
            }
        }
        (objects, bytes)
    }

    /// Whether everything `summary`'s method allocates counts once per run: it is a class
    /// initializer.
    fn whole_once(&self, summary: &MethodSummary) -> bool {
        summary.method.name.as_ref() == CLASS_INITIALIZER
    }

    /// What a call of `summary`'s method (not a class initializer) adds to the caller's once
    /// part: its own once part at its largest, a constant in the caller's formals; ∞ when that
    /// is not a piecewise constant.
    fn once_totals(&self, summary: &MethodSummary) -> Option<(Qty, Qty)> {
        let constant = |qty: &Qty| match qty.largest_constant() {
            Some(largest) => Qty::constant(self.params, largest),
            None => Qty::Inf,
        };
        let nothing = summary.once_objects.is_zero() && summary.once_bytes.is_zero();
        (!nothing).then(|| {
            (
                constant(&summary.once_objects),
                constant(&summary.once_bytes),
            )
        })
    }

    /// One of `summary`'s entries added once under this call's offset, at its largest
    /// constants; `None` when one of them is not a constant.
    fn compose_once(
        &self,
        summary: &MethodSummary,
        site: &SiteSummary,
        entries: &mut Entries,
    ) -> Option<()> {
        let constant = |qty: &Qty| Some(Qty::constant(self.params, qty.largest_constant()?));
        let parts: Vec<(Place, Counted)> = site
            .parts
            .iter()
            .map(|(place, counted)| {
                let counted = Counted {
                    count: constant(&counted.count)?,
                    objects: constant(&counted.objects)?,
                    bytes: constant(&counted.bytes)?,
                };
                Some((self.place_in_caller(summary.node, place), counted))
            })
            .collect::<Option<_>>()?;
        let target = entry(entries, Some(self.pc), site.site);
        add_reasons(target, &site.reasons);
        // Once only while every part is.
        target.once = target.parts.is_empty() || target.once;
        for (place, counted) in parts {
            add_part(target, place, counted);
        }
        Some(())
    }

    /// Every entry of `summary` summed over the call's points, under the fate the caller gives
    /// its objects, and marked once when `all_once` (a class initializer's, whose call's set
    /// counts it once); its once entries added once at their largest instead when they are
    /// piecewise constants. Returns the sum of the other entries. A site that runs 0 times at
    /// the values the call passes adds nothing (a `NullPointerException`'s message, made only
    /// when a second stack trace is filled in, for a constructor on a new exception): the sum
    /// can then be finite where the callee's total, over every value of its formals, is ∞.
    fn compose_target(
        &self,
        summary: &MethodSummary,
        call: &Call,
        entries: &mut Entries,
        all_once: bool,
    ) -> (Qty, Qty) {
        let set = call.set.set.to_set();
        // Parts with the same site and place in the caller add up before they are summed.
        let mut grouped: BTreeMap<(usize, Place), Counted> = BTreeMap::new();
        let mut reasons: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for site in &summary.sites {
            if site.once && self.compose_once(summary, site, entries).is_some() {
                continue;
            }
            reasons
                .entry(site.site)
                .or_default()
                .extend(site.reasons.iter().cloned());
            for (place, counted) in &site.parts {
                let key = (site.site, self.place_in_caller(summary.node, place));
                let sum = match grouped.get(&key) {
                    Some(existing) => existing.add(counted),
                    None => counted.clone(),
                };
                grouped.insert(key, sum);
            }
        }
        let mut total = Counted::zero(self.params);
        for ((site, place), counted) in grouped {
            let summed = match self.inputs.out_of_time() {
                true => Err(TIME_LIMIT_IN_SUMMARY.to_string()),
                false => counted
                    .try_map(|qty| call.sum(qty, &set))
                    .map_err(|error| format!("not counted exactly: {error}")),
            };
            let target = entry(entries, Some(self.pc), site);
            target.once = all_once && (target.parts.is_empty() || target.once);
            if matches!(&summed, Ok(summed) if summed.count.is_zero()) {
                add_part(target, place, Counted::zero(self.params));
                continue;
            }
            add_reasons(target, &reasons[&site]);
            let part = match summed {
                Ok(summed) => {
                    if summed.bytes.may_be_infinite() && !counted.bytes.may_be_infinite() {
                        add_reasons(target, &[self.unbounded_call(summary, &counted.bytes)]);
                    }
                    summed.map(|q| q.aligned(self.params))
                }
                Err(why) => {
                    add_reasons(target, &[why]);
                    Counted::infinite()
                }
            };
            total = total.add(&part);
            add_part(target, place, part);
        }
        (total.objects, total.bytes)
    }

    /// The callee's formals the call at `pc` passes as `1 << x` ([`powers`]).
    fn power_arguments(&self, pc: u32, summary: &MethodSummary) -> Vec<PowerArgument> {
        PowerArgument::of_pairs(self.inputs.lowered.power_of_two_arguments(
            self.inputs.program,
            self.method,
            pc,
            &summary.method,
        ))
    }

    /// The callee's trees this call passes fresh from an earlier call, each with the largest
    /// size that call allows ([`fresh`]); a tree whose earlier call cannot be bounded is left
    /// out (its sizes stay unbound).
    fn fresh_bounds(&self, callee: &MethodSummary) -> Vec<fresh::FreshBound> {
        let trees = self
            .inputs
            .lowered
            .fresh_trees(self.method, self.pc, &callee.method);
        if trees.is_empty() {
            return Vec::new();
        }
        let hierarchy = membound_front::hierarchy::Hierarchy::new(self.inputs.program);
        trees
            .iter()
            .filter_map(|tree| {
                let largest = self.nodes_allocated_by(tree.source, &tree.node, &hierarchy)?;
                Some(fresh::FreshBound::new(tree, largest))
            })
            .collect()
    }

    /// The callee's formals viewing ghost counters of its `this`, bounded by the increments
    /// the caller runs ([`ghost`]), when the call cannot bind them: summed over it, the
    /// callee's bytes or objects are ∞ without them.
    fn counter_bounds(&self, callee: &MethodSummary, call: &Call) -> Vec<ghost::CounterBound> {
        let unbound = || {
            let set = call.set.set.to_set();
            [&callee.bytes, &callee.objects].into_iter().any(|qty| {
                !qty.may_be_infinite()
                    && call
                        .sum(qty, &set)
                        .map_or(true, |sum| sum.may_be_infinite())
            })
        };
        ghost::counter_bounds(self.inputs, self.caller, self.pc, callee, unbound)
    }

    /// How many objects of `node` (or a subclass) the call at `source` allocates over all its
    /// executions, in the caller's formals; `None` when that is not bounded.
    fn nodes_allocated_by(
        &self,
        source: u32,
        node: &membound_jvm::ClassName,
        hierarchy: &membound_front::hierarchy::Hierarchy<'_>,
    ) -> Option<Quantity> {
        let mut targets: Vec<NodeId> = self
            .inputs
            .graph
            .edges
            .iter()
            .filter(|edge| edge.caller == self.caller && edge.pc == source)
            .map(|edge| edge.callee)
            .collect();
        targets.sort_unstable();
        targets.dedup();
        let mut total = Qty::zero(self.params);
        for target in targets {
            let Some(summary) = self.summaries.of(target) else {
                // A target that reaches no site allocates nothing.
                match self.inputs.local.reaches[target] {
                    true => return None,
                    false => continue,
                }
            };
            let nodes = fresh::nodes_allocated(summary, self.inputs.local, hierarchy, node);
            let set = self
                .inputs
                .lowered
                .call_set(self.method, source, &summary.method)
                .ok()?;
            let call = Call {
                powers: self.power_arguments(source, summary),
                fresh: Vec::new(),
                counters: Vec::new(),
                set,
            };
            let summed = call.sum(&nodes, &call.set.set.to_set()).ok()?;
            total = total.add(&summed.aligned(self.params));
        }
        (!total.may_be_infinite()).then(|| total.to_quantity())
    }

    /// Why a callee's finite bound is ∞ summed over this call: what it depends on that the
    /// call's invariant does not bound.
    fn unbounded_call(&self, summary: &MethodSummary, bound: &Qty) -> String {
        let depends = bound.variables();
        let formals = if depends.is_empty() {
            "it runs an unbounded number of times".to_string()
        } else {
            let untracked = self.inputs.lowered.untracked_arguments(
                self.inputs.program,
                self.method,
                self.pc,
                &summary.method,
                &depends,
            );
            let mut passes = match untracked.is_empty() {
                true => String::new(),
                false => format!(" (it passes {})", untracked.join("; ")),
            };
            let lowered = self.inputs.lowered;
            if let Some(chains) = lowered.unbound_chains(self.method, &summary.method, &depends) {
                passes.push_str(&format!(" (it cannot bind {chains})"));
            }
            passes.push_str(&ghost::not_counters(
                self.inputs,
                self.caller,
                &summary.method,
                &depends,
            ));
            format!(
                "its bound depends on {}, and the values the call passes do not keep it \
                 finite{passes}",
                depends.join(", ")
            )
        };
        format!(
            "the call at offset {} of {} to {}: {formals}",
            self.pc, self.method, summary.method
        )
    }

    /// Where objects in `place` for the callee live for the caller.
    fn place_in_caller(&self, callee: NodeId, place: &Place) -> Place {
        match place {
            Place::Captured | Place::Below => Place::Below,
            Place::Escapes(node) => {
                match self
                    .inputs
                    .fates
                    .through_call(self.caller, self.pc, callee, node)
                {
                    Fate::Captured => Place::Captured,
                    Fate::Escapes(seen) => Place::Escapes(seen),
                }
            }
        }
    }

    /// The target's entries, ∞ because the call could not be bound.
    fn unbounded_target(&self, summary: &MethodSummary, why: &str, entries: &mut Entries) {
        for site in &summary.sites {
            let target = entry(entries, Some(self.pc), site.site);
            add_reasons(target, &[why.to_string()]);
            add_part(
                target,
                Place::Escapes(SummaryNode::Global),
                Counted::infinite(),
            );
        }
    }

    /// The call's objects and bytes: once per execution at the largest target's when every
    /// target allocates a constant per call, or when several targets each allocate a piecewise
    /// constant (its largest over what the call may pass: one execution runs one target);
    /// else the sum over the targets (different executions may run different targets, so the
    /// largest total could be below a run).
    fn call_totals(&self, totals: &[(Qty, Qty, Option<Call>)]) -> (Qty, Qty) {
        let largest = |qty: &Qty, call: &Option<Call>| match (qty.as_constant(), call) {
            (Some(constant), _) => Some(constant),
            (None, Some(call)) if totals.len() > 1 => {
                per_execution::largest_per_execution(&qty.renamed(&callee_name), &call.set)
            }
            (None, _) => None,
        };
        let constants: Option<Vec<(Rat, Rat)>> = totals
            .iter()
            .map(|(o, b, call)| Some((largest(o, call)?, largest(b, call)?)))
            .collect();
        if let (Some(constants), Some((_, _, Some(call)))) = (constants, totals.first()) {
            let largest = |pick: fn(&(Rat, Rat)) -> &Rat| {
                constants
                    .iter()
                    .map(pick)
                    .max()
                    .cloned()
                    .unwrap_or_default()
            };
            let executions = executions_count(&call.set);
            return (
                executions.scale(&largest(|c| &c.0)).aligned(self.params),
                executions.scale(&largest(|c| &c.1)).aligned(self.params),
            );
        }
        let mut objects = Qty::zero(self.params);
        let mut bytes = Qty::zero(self.params);
        for (target_objects, target_bytes, call) in totals {
            let Some(call) = call else {
                return (Qty::Inf, Qty::Inf);
            };
            let set = call.set.set.to_set();
            let sum = |qty: &Qty| {
                call.sum(qty, &set)
                    .map(|q| q.aligned(self.params))
                    .unwrap_or(Qty::Inf)
            };
            objects = objects.add(&sum(target_objects));
            bytes = bytes.add(&sum(target_bytes));
        }
        (objects, bytes)
    }
}

/// One call into one target: its set, the formals it passes as powers of two, the trees it
/// passes fresh from an earlier call (and the ghost counters it cannot bind, each bounded per
/// execution like a tree's size), and those counters.
struct Call {
    set: CallSet,
    powers: Vec<PowerArgument>,
    fresh: Vec<fresh::FreshBound>,
    counters: Vec<ghost::CounterBound>,
}

impl Call {
    /// `Σ qty` (a quantity of the callee's) over the call's points (`set`, the call's set as a
    /// set), where the call passes formals as `1 << x`, with those read as `2^x` for
    /// `0 <= x <= 30` and as the largest of the values `1 << x` takes elsewhere ([`powers`]).
    fn sum(&self, qty: &Qty, set: &Set) -> Result<Qty, CountError> {
        if let Some(summed) =
            ghost::summed_over_receivers(qty, &self.counters, || executions_count(&self.set))
        {
            return Ok(summed);
        }
        let renamed = qty.renamed(&callee_name);
        let fixed = qty::constant_dims(set);
        let quantity = renamed.to_quantity();
        if let Some(bounded) = self.over_fresh_trees(&renamed, &quantity) {
            return per_execution::sum_through(&Qty::Expr(bounded), set, &self.set);
        }
        let (Some((guard, substituted)), Some(elsewhere)) = (
            powers::substituted(&quantity, &self.powers, &fixed),
            powers::over_every_shift(&quantity, &self.powers, &fixed),
        ) else {
            return per_execution::sum_through(&renamed, set, &self.set);
        };
        let on_powers = per_execution::sum_through(&Qty::Expr(substituted), set, &self.set)?;
        let elsewhere = per_execution::sum_through(&Qty::Expr(elsewhere), set, &self.set)?;
        Ok(Qty::Expr(powers::within(
            guard,
            on_powers.to_quantity(),
            elsewhere.to_quantity(),
        )))
    }
}

impl Call {
    /// `quantity` (`renamed` as a bound expression) bounded over the sizes of the trees the
    /// call passes fresh, when it depends on one of them and the call passes no power of two.
    fn over_fresh_trees(&self, renamed: &Qty, quantity: &Quantity) -> Option<Quantity> {
        if !fresh::reads_tree(&renamed.variables(), &self.fresh) || !self.powers.is_empty() {
            return None;
        }
        fresh::over_fresh_trees(quantity, &self.fresh)
    }
}

/// The parameter values of the caller for which a call in `call_set` enters `callee` where it
/// may not return (parts over the caller's formals; rationally empty ones left out). A formal
/// the call passes as `1 << x` is known only where `0 <= x <= 30` ([`powers::value_range`]).
fn diverging_calls(
    callee: &MethodSummary,
    call_set: &CallSet,
    powers: &[PowerArgument],
) -> Vec<Divergence> {
    if callee.diverges.is_empty() {
        return Vec::new();
    }
    let set = powers::value_range(&call_set.set.to_set(), powers);
    let dims: Vec<&str> = set.space.dims.iter().map(String::as_str).collect();
    let mut found = Vec::new();
    for divergence in &callee.diverges {
        let region = &divergence.region;
        let renamed = BasicSet {
            space: Space::new(
                region
                    .space
                    .params
                    .iter()
                    .map(|p| format!("{CALLEE_PREFIX}{p}"))
                    .collect(),
                Vec::new(),
            ),
            locals: region.locals.clone(),
            constraints: region.constraints.clone(),
        };
        let within = Set {
            space: set.space.clone(),
            parts: set
                .parts
                .iter()
                .map(|part| part.intersect(&qty::embedded(&renamed, &set.space)))
                .collect(),
        };
        for part in within.project_out_dims(&dims).parts {
            let width = part.n_columns();
            let rational = Polyhedron::from_constraints(width, part.all_constraints());
            if !rational.is_empty() {
                found.push(Divergence {
                    region: part,
                    why: divergence.why.clone(),
                });
            }
        }
    }
    found
}

/// How often a call runs per call of its method (∞ when that cannot be counted).
fn executions_count(call_set: &CallSet) -> Qty {
    let kept: Vec<&str> = call_set.executions.iter().map(String::as_str).collect();
    Qty::count_of(&call_set.set.project_onto(&kept).to_set()).unwrap_or(Qty::Inf)
}

/// A callee's formal as a call's set names it.
fn callee_name(formal: &str) -> String {
    format!("{CALLEE_PREFIX}{formal}")
}

/// A member of a component whose summary cannot be computed (a recursion with no solution
/// here, or no time left): every site it reaches is ∞ with `why`, and so are its totals.
fn unbounded_summary(
    inputs: &Inputs<'_>,
    summaries: &Layered<'_>,
    component: &[NodeId],
    edges: &[&Edge],
    id: NodeId,
    why: &[String],
) -> MethodSummary {
    let method = inputs.graph.methods[id].method.clone();
    let params = inputs.lowered.formal_names(&method).unwrap_or_default();
    let nothing = Qty::zero(&params);
    // The reason is the sites': `unbounded` is for code the analysis cannot see.
    let mut entries = Entries::new();
    let reached = component_sites(inputs, summaries, component);
    for &site in &inputs.local.by_node[id] {
        unbounded_entry(&mut entries, None, site, why);
    }
    for (pc, targets) in calls_by_offset(inputs, edges) {
        for callee in targets {
            let sites: Vec<usize> = match summaries.of(callee) {
                Some(summary) if !component.contains(&callee) => {
                    summary.sites.iter().map(|s| s.site).collect()
                }
                _ => reached.clone(),
            };
            for site in sites {
                unbounded_entry(&mut entries, Some(pc), site, why);
            }
        }
    }
    MethodSummary {
        node: id,
        method,
        params,
        sites: entries.into_values().collect(),
        objects: Qty::Inf,
        bytes: Qty::Inf,
        unbounded: Vec::new(),
        recursion: None,
        diverges: Vec::new(),
        fresh_calls: Vec::new(),
        once_objects: nothing.clone(),
        once_bytes: nothing,
    }
}

fn unbounded_entry(entries: &mut Entries, via: Option<u32>, site: usize, why: &[String]) {
    let summary = entry(entries, via, site);
    add_reasons(summary, why);
    add_part(summary, Place::Captured, Counted::infinite());
    add_part(
        summary,
        Place::Escapes(SummaryNode::Global),
        Counted::infinite(),
    );
}

/// Every local site a recursive component reaches: its members' own and those of the
/// summarized methods they call.
fn component_sites(
    inputs: &Inputs<'_>,
    summaries: &Layered<'_>,
    component: &[NodeId],
) -> Vec<usize> {
    let mut sites: Vec<usize> = Vec::new();
    for &member in component {
        sites.extend(&inputs.local.by_node[member]);
        for edge in &inputs.graph.edges {
            if edge.caller == member
                && !component.contains(&edge.callee)
                && let Some(summary) = summaries.of(edge.callee)
            {
                sites.extend(summary.sites.iter().map(|s| s.site));
            }
        }
    }
    sites.sort_unstable();
    sites.dedup();
    sites
}

//! Escape analysis and regions: for every creation site, the method on its chain whose region
//! captures the object (it dies when that method returns), or that the object escapes the entry
//! method (after the thesis's chapter 4, with its ch. 3 per-chain view of capture).
//!
//! The analysis is interprocedural and bottom-up over the strongly connected components of the
//! call graph, callees first; a recursive component is analyzed to a fixpoint of its members'
//! summaries. Each method with code gets one points-to graph of its own (`method.rs`) and one
//! summary, computed once whatever the chains through it: which objects visible to callers
//! (reachable from its parameters, from static fields, or returned) it links, and which objects
//! created under it outlive it. A creation site's region is then found by walking its chain
//! upwards through each method's translation table, so per-chain capture (the thesis's `m2.8`,
//! captured by `m1` on one chain and by `m0` on another) costs no re-analysis.
//!
//! Sound for static fields, instance fields and array elements (an object is captured only if
//! no parameter, static field or returned value reaches it, so an object stored into a captured
//! object is captured with it), returns, thrown exceptions (thrown objects are global), callees
//! (their summaries, parameters standing for everything reachable from the actual arguments)
//! and code we cannot see (native, abstract or unliftable methods, unresolved calls and unknown
//! `invokedynamic`: what they receive becomes global). Single-threaded, as the thesis assumes:
//! objects another thread could reach only through static fields are global anyway. It does not
//! compute sizes.
//!
//! Where it is coarse: the heap is field-insensitive and one graph per method (locals are
//! tracked per program point); fresh objects of a callee reached from the same roots are one
//! node; natives without a spec (`Object.clone`) are unknown code, so what they touch escapes
//! (a method a library spec stands for gets its summary from the spec, `spec.rs`); non-`String` operands of a string concatenation are made global (their
//! `toString` is code the call graph does not follow); and recursive components larger than
//! [`MAX_COMPONENT`] are treated as unknown code.

mod method;
mod spec;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use crate::sites::{ChainElement, CreationSite, Sites};
use membound_front::callgraph::{CallGraph, NodeId, NodeKind};
use membound_front::ir::Body;
use membound_front::program::Program;
use membound_jvm::MethodRef;
use membound_jvm::error::Result;

use method::{Context, Summary, Translation};

pub use method::{Roots, SummaryNode};

/// Where the object of one creation site lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteRegion {
    /// In the region of `chain[i].method`: the object dies when that method returns.
    CapturedBy(usize),
    /// It may outlive the entry method.
    EscapesEntry,
}

/// The region of every creation site of a [`Sites`], in the same order.
#[derive(Clone, Debug)]
pub struct Regions {
    pub sites: Vec<SiteRegion>,
    /// Methods with code that the analysis treated as unknown (what they receive escapes):
    /// members of a recursive component too large to analyze (more than [`MAX_COMPONENT`]
    /// methods, or more than [`ANALYSES_PER_MEMBER`] analyses per member before its fixpoint),
    /// and methods whose body cannot be lifted.
    pub unanalyzed: Vec<MethodRef>,
}

/// The largest strongly connected component of the call graph analyzed method by method. The
/// class-hierarchy fallback of the call graph can tie most of the JDK into one component (an
/// exception's constructor alone reaches one of about 50,000 methods), whose fixpoint would
/// take hours; such a component is treated as unknown code instead, which is sound.
pub const MAX_COMPONENT: usize = 1_000;

/// How many analyses per member a component's fixpoint may take before the component is
/// treated as unknown code.
pub const ANALYSES_PER_MEMBER: usize = 8;

/// The thesis's `escape(m)` and `capture(m)` of one method, each site written from `m` down
/// (the chain's suffix that starts at `m`), deduplicated, in the order sites are enumerated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MethodSets {
    pub method: MethodRef,
    /// Sites allocated under `m` whose objects outlive `m`.
    pub escape: Vec<Vec<ChainElement>>,
    /// Sites whose objects live in `m`'s region.
    pub capture: Vec<Vec<ChainElement>>,
}

/// Decides the region of every site of `sites`, which must come from `graph`.
pub fn analyze(program: &Program, graph: &CallGraph, sites: &Sites) -> Result<Regions> {
    analyze_within(program, graph, sites, MAX_COMPONENT)
}

/// [`analyze`] with another bound on the components analyzed method by method.
fn analyze_within(
    program: &Program,
    graph: &CallGraph,
    sites: &Sites,
    max_component: usize,
) -> Result<Regions> {
    let (translations, unanalyzed) = translations(program, graph, max_component);
    let fates = Fates {
        translations,
        unanalyzed,
    };
    let regions = sites
        .sites
        .iter()
        .map(|site| region(graph, &fates, site))
        .collect();
    Ok(Regions {
        sites: regions,
        unanalyzed: fates.unanalyzed,
    })
}

impl Regions {
    /// `escape(m)` and `capture(m)` of every method on some chain, in order of first
    /// appearance on the chains.
    pub fn method_sets(&self, sites: &Sites) -> Vec<MethodSets> {
        let mut sets: Vec<MethodSets> = Vec::new();
        for (site, region) in sites.sites.iter().zip(&self.sites) {
            let chain = &site.chain;
            for (level, element) in chain.iter().enumerate() {
                let position = match sets.iter().position(|s| s.method == element.method) {
                    Some(position) => position,
                    None => {
                        sets.push(MethodSets {
                            method: element.method.clone(),
                            escape: Vec::new(),
                            capture: Vec::new(),
                        });
                        sets.len() - 1
                    }
                };
                let list = match region {
                    SiteRegion::CapturedBy(owner) if *owner == level => &mut sets[position].capture,
                    SiteRegion::CapturedBy(owner) if *owner < level => &mut sets[position].escape,
                    SiteRegion::CapturedBy(_) => continue,
                    SiteRegion::EscapesEntry => &mut sets[position].escape,
                };
                let suffix = chain[level..].to_vec();
                if !list.contains(&suffix) {
                    list.push(suffix);
                }
            }
        }
        sets
    }
}

/// Walks the chain upwards from the allocation: each method's translation says whether it
/// captures the object or under which of its summary nodes its caller sees it.
fn region(graph: &CallGraph, fates: &Fates, site: &CreationSite) -> SiteRegion {
    let chain = &site.chain;
    let Some(last) = chain.last() else {
        return SiteRegion::EscapesEntry;
    };
    let node = |element: &ChainElement| graph.node(&element.method);
    let mut fate = match node(last) {
        Some(id) => fates.of_allocation(id, last.pc),
        None => Fate::Escapes(SummaryNode::Global),
    };
    for level in (0..chain.len()).rev() {
        let Fate::Escapes(seen) = &fate else {
            return SiteRegion::CapturedBy(level);
        };
        if level == 0 {
            break;
        }
        let caller = &chain[level - 1];
        fate = match (node(caller), node(&chain[level])) {
            (Some(caller_id), Some(callee_id)) => {
                fates.through_call(caller_id, caller.pc, callee_id, seen)
            }
            _ => Fate::Escapes(SummaryNode::Global),
        };
    }
    SiteRegion::EscapesEntry
}

/// Where objects live, one method at a time: the escape analysis's translation tables. A chain
/// walks them upwards ([`analyze`]); summaries compose them callee by callee.
#[derive(Clone, Debug)]
pub struct Fates {
    translations: Vec<Translation>,
    /// Methods with code treated as unknown (see [`Regions::unanalyzed`]).
    pub unanalyzed: Vec<MethodRef>,
}

/// Where the objects of an allocation live, seen from one method.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fate {
    /// In the method's region: they die when it returns.
    Captured,
    /// They outlive the method; its callers see them as this node of its summary.
    Escapes(SummaryNode),
}

/// The translation tables of every method of `graph`.
pub fn fates(program: &Program, graph: &CallGraph) -> Fates {
    let (translations, unanalyzed) = translations(program, graph, MAX_COMPONENT);
    Fates {
        translations,
        unanalyzed,
    }
}

impl Fates {
    /// The fate, for its own method, of the objects the allocation at `pc` of `node` creates.
    /// A missing entry (a method whose code could not be analyzed) counts as global.
    pub fn of_allocation(&self, node: NodeId, pc: u32) -> Fate {
        fate_of(
            self.translations
                .get(node)
                .and_then(|t| t.allocations.get(&pc).cloned()),
        )
    }

    /// The fate, for `caller`, of objects that escape `callee` (entered at `caller`'s call at
    /// `pc`) as the callee's node `seen`. Only fresh objects can be captured by a caller;
    /// anything else is global everywhere.
    pub fn through_call(
        &self,
        caller: NodeId,
        pc: u32,
        callee: NodeId,
        seen: &SummaryNode,
    ) -> Fate {
        match seen {
            SummaryNode::Fresh(roots) => fate_of(
                self.translations
                    .get(caller)
                    .and_then(|t| t.callees.get(&(pc, callee, roots.clone())).cloned()),
            ),
            SummaryNode::Param(_) | SummaryNode::Inside(_) | SummaryNode::Global => {
                Fate::Escapes(SummaryNode::Global)
            }
        }
    }
}

/// A translation entry as a fate: `None` is no entry (global), `Some(None)` captured.
fn fate_of(entry: Option<Option<SummaryNode>>) -> Fate {
    match entry {
        Some(None) => Fate::Captured,
        Some(Some(node)) => Fate::Escapes(node),
        None => Fate::Escapes(SummaryNode::Global),
    }
}

/// The translation table of every method of the graph, computed bottom-up over its strongly
/// connected components (callees first), and the methods with
/// code that were treated as unknown.
fn translations(
    program: &Program,
    graph: &CallGraph,
    max_component: usize,
) -> (Vec<Translation>, Vec<MethodRef>) {
    let count = graph.methods.len();
    let adjacency = graph.adjacency();
    let mut unresolved: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); count];
    for call in &graph.unresolved {
        unresolved[call.caller].insert(call.pc);
    }
    let mut copies: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); count];
    for &(caller, pc) in graph.copies.keys() {
        copies[caller].insert(pc);
    }
    let mut formats: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); count];
    for &(caller, pc) in graph.formats.keys() {
        formats[caller].insert(pc);
    }
    // Methods whose code we cannot see: those without code, and those whose body cannot be
    // lifted now (found when their component comes).
    let mut unknown: Vec<bool> = graph
        .methods
        .iter()
        .map(|n| n.kind != NodeKind::Code)
        .collect();
    let mut summaries: Vec<Option<Summary>> = vec![None; count];
    let mut translations: Vec<Translation> = vec![Translation::default(); count];
    // A spec'd method's summary is its spec's; one whose argument numbering cannot be told
    // stays unknown code.
    for (id, node) in graph.methods.iter().enumerate() {
        if let NodeKind::Spec(method_spec) = &node.kind
            && let Some(is_static) = spec::is_static(program, &node.method)
        {
            let (summary, translation) = spec::spec_summary(&node.method, method_spec, is_static);
            summaries[id] = Some(summary);
            translations[id] = translation;
            unknown[id] = false;
        }
    }
    let mut callers: Vec<Vec<NodeId>> = vec![Vec::new(); count];
    for edge in &graph.edges {
        callers[edge.callee].push(edge.caller);
    }
    let mut unanalyzed = Vec::new();
    for component in graph.components() {
        if component.len() > max_component {
            give_up(&component, &mut unknown, &mut summaries, &mut translations);
            unanalyzed.extend(component);
            continue;
        }
        // Bodies are kept only while their component is analyzed: all of a large graph's
        // bodies at once would cost gigabytes.
        let mut bodies: BTreeMap<NodeId, Body> = BTreeMap::new();
        for &id in &component {
            if unknown[id] || graph.methods[id].kind.spec().is_some() {
                continue;
            }
            match program.lift(&graph.methods[id].method) {
                Ok(body) => {
                    bodies.insert(id, body);
                }
                Err(_) => {
                    unknown[id] = true;
                    unanalyzed.push(id);
                }
            }
        }
        // A worklist over the component: a member is analyzed again only when the summary of
        // one of its callees in the component grew. Summaries only grow (each result is joined
        // into the previous one) over a finite set of nodes and edges, so this ends; when it
        // does, every member's translation was computed from its callees' final summaries.
        // (A member not analyzed yet has no summary, which means the same as an empty one.)
        let mut pending: BTreeSet<NodeId> = bodies.keys().copied().collect();
        let mut budget = ANALYSES_PER_MEMBER * bodies.len();
        while let Some(id) = pending.pop_first() {
            if budget == 0 {
                give_up(&component, &mut unknown, &mut summaries, &mut translations);
                unanalyzed.extend(bodies.keys());
                break;
            }
            budget -= 1;
            let context = Context {
                methods: &graph.methods,
                edges: &adjacency[id],
                unresolved: &unresolved[id],
                summaries: &summaries,
                unknown: &unknown,
                copies: &copies[id],
                formats: &formats[id],
            };
            let (summary, translation) = method::analyze(&bodies[&id], &context);
            translations[id] = translation;
            if summaries[id]
                .get_or_insert_with(Summary::default)
                .join(&summary)
            {
                pending.extend(callers[id].iter().filter(|c| bodies.contains_key(c)));
            }
        }
    }
    unanalyzed.sort();
    unanalyzed.dedup();
    let unanalyzed = unanalyzed
        .into_iter()
        .filter(|&id| graph.methods[id].kind == NodeKind::Code)
        .map(|id| graph.methods[id].method.clone())
        .collect();
    (translations, unanalyzed)
}

/// Treats the members of a component as code we cannot see: calls to them make their
/// arguments global, and the objects created under them escape (no translation entries).
fn give_up(
    component: &[NodeId],
    unknown: &mut [bool],
    summaries: &mut [Option<Summary>],
    translations: &mut [Translation],
) {
    for &id in component {
        unknown[id] = true;
        summaries[id] = None;
        translations[id] = Translation::default();
    }
}

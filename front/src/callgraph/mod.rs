//! The call graph from the method under analysis: which methods it may reach, through which
//! call sites, with recursion (strongly connected components) reported.
//!
//! A method with a library spec ([`crate::specs`]) is a leaf: its code is not followed, and
//! the only edges out of it are the calls its spec names, dispatched like virtual calls; the
//! types it allocates count as instantiated.
//!
//! A virtual call whose instruction decides its target (a private or final method, a method of
//! a final class, an array's `Object` method) is exact. Other virtual and interface calls are
//! dispatched by rapid type analysis (RTA): only classes instantiated in reachable code (plus the
//! declared types of the entry's parameters, whose objects come from outside) are receivers. A virtual call that RTA leaves without a target
//! once everything reachable is known falls back to class hierarchy analysis (CHA) over every
//! subclass on the classpath, so a receiver created where we cannot see never hides a callee.
//! An interface spec ([`crate::specs`], `covers`) narrows that fallback for the calls it covers:
//! a receiver created out of sight is one of the JDK classes it lists or an application class
//! (a named assumption), so a `Collection` parameter's `iterator()` reaches a handful of spec'd
//! JDK methods instead of every collection in the JDK. Such a call on a type an abstract
//! parameter type of the entry is related to gets the narrowed fallback at once, besides RTA's
//! classes, since RTA's instantiated classes say nothing about the parameter's object. An
//! interface spec used is a node of its own, reached by no edge, so the specs a graph used
//! include it.
//! Static initializers are edges from a class's first use (for the user's classes: the JDK's
//! are taken as initialized already, see [`JDK_INITIALIZED`]); lambdas created by
//! `LambdaMetafactory` are instantiated types whose functional method runs the implementation
//! method. Calls that cannot be resolved (a missing class, a native method, an unknown
//! `invokedynamic`) are recorded, never dropped: the bound stages turn them into ∞ or named
//! assumptions.
//!
//! The graph does not know what the methods allocate or how often they run; creation sites are
//! the analysis crate's `sites`'s business.

mod build;
mod fields;
mod receivers;
mod render;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;

use crate::ir::FormatCall;
use crate::specs::MethodSpec;
use membound_jvm::{ClassName, MethodRef, Type};

pub use build::{BuildOptions, DEFAULT_MAX_METHODS, build, build_within};
pub use render::{to_dot, to_json, to_text};

/// The assumption the call graph makes about the JDK's class initializers.
pub const JDK_INITIALIZED: &str = "the JDK's classes are initialized before the analyzed method runs (their static initializers are not counted)";

/// Index of a method in [`CallGraph::methods`].
pub type NodeId = usize;

/// A method reached from the entry.
#[derive(Clone, Debug)]
pub struct Node {
    pub method: MethodRef,
    pub kind: NodeKind,
}

/// What is known of a reached method's code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// Its bytecode was lifted and its calls followed.
    Code,
    /// A library spec stands for it: its code is not followed, the spec's calls are its edges.
    Spec(Arc<MethodSpec>),
    /// A native method: what it does is unknown.
    Native,
    /// An abstract method with no implementation found (only possible through CHA gaps).
    Abstract,
    /// Its bytecode could not be lifted; the message says why.
    Broken(String),
}

impl NodeKind {
    /// The spec standing for the method, if one does.
    pub fn spec(&self) -> Option<&Arc<MethodSpec>> {
        match self {
            NodeKind::Spec(spec) => Some(spec),
            _ => None,
        }
    }
}

/// How a call edge was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EdgeKind {
    Static,
    Special,
    Virtual,
    Interface,
    /// A functional-interface call that runs a lambda's implementation method.
    Lambda,
    /// The static initializer run by a class's first use.
    ClassInit,
}

/// How the targets of a virtual call were chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dispatch {
    /// Static, special and initializer calls have exactly one target.
    Exact,
    /// Rapid type analysis: receivers among the instantiated classes.
    Rta,
    /// Class hierarchy analysis: receivers among all subclasses on the classpath.
    Cha,
}

/// One call from a call site to one of its possible targets.
#[derive(Clone, Debug)]
pub struct Edge {
    pub caller: NodeId,
    pub pc: u32,
    pub line: Option<u32>,
    pub callee: NodeId,
    pub kind: EdgeKind,
    pub dispatch: Dispatch,
}

/// A call site whose target is not known; bounds through it are unknown.
#[derive(Clone, Debug)]
pub struct Unresolved {
    pub caller: NodeId,
    pub pc: u32,
    pub line: Option<u32>,
    /// The method the instruction names.
    pub target: MethodRef,
    pub reason: String,
}

/// The call graph reachable from one entry method.
#[derive(Clone, Debug)]
pub struct CallGraph {
    /// `methods[0]` is the entry.
    pub methods: Vec<Node>,
    pub edges: Vec<Edge>,
    pub unresolved: Vec<Unresolved>,
    /// The JDK types of the entry's reference parameters that other JDK classes may extend: an
    /// object handed in is taken to be of a class the analysis sees (see [`EXTERNAL_OBJECTS`]).
    pub external_jdk_types: BTreeSet<ClassName>,
    /// The application's types of the entry's reference parameters (and `this`) that a class
    /// off the class path may extend: an object handed in is taken to be of a class on it (see
    /// [`EXTERNAL_USER_OBJECTS`]).
    pub external_user_types: BTreeSet<ClassName>,
    /// The `clone()` calls the VM performs without running a method, by (caller, offset), with
    /// the copy's type: an array's, and `super.clone()` in a final `Cloneable` class extending
    /// `Object` (one object of that class). They are allocations, not calls.
    pub copies: BTreeMap<(NodeId, u32), Type>,
    /// The `String.format` calls whose format is a literal and whose arguments run no code of
    /// the program when formatted, by (caller, offset): allocations of their own (`sites`
    /// bounds them from the format's text), not calls.
    pub formats: BTreeMap<(NodeId, u32), FormatCall>,
    /// The fields whose stores told the classes of the objects read from them (see
    /// [`FIELD_WRITERS`]), shown `pkg.Class.field`.
    pub fields_by_stores: BTreeSet<String>,
    /// Why the graph is incomplete when it reached its budget of methods (see
    /// [`build_within`]): its unvisited methods and its virtual calls say so too.
    pub budget_hit: Option<String>,
    index: HashMap<MethodRef, NodeId>,
}

/// What the call graph takes for granted about objects handed to the entry: the classes it
/// looks for are the declared one, the application's, those the analyzed code creates and those
/// an interface spec covers, not every JDK class extending a JDK type.
pub const EXTERNAL_OBJECTS: &str = "objects handed in as parameters of JDK types are of their declared class, an application class, a class the analyzed code creates, or a JDK class an interface spec covers (other JDK subclasses are not looked for)";

/// What the call graph takes for granted about objects of the application's own types handed
/// to the entry: a caller's class that extends one of them off the class path is not seen.
pub const EXTERNAL_USER_OBJECTS: &str = "objects handed in as parameters (or as the receiver) of the input's extensible types are of classes on the class path: a caller's own class extending one of them elsewhere, whose methods a call on it would run, is not analyzed";

/// What the call graph takes for granted when a field's stores tell what a read of it holds.
pub const FIELD_WRITERS: &str = "a final field is written only by its class's code and a private one only by its nest's (no reflection, deserialization or native code writes them)";

/// The graph's call sites: what each call (caller, offset) may enter — a call instruction, or an
/// instruction that runs a class initializer — and which calls have an unresolved target.
#[derive(Clone, Debug, Default)]
pub struct CallSites {
    entered: HashMap<(NodeId, u32), Vec<NodeId>>,
    unresolved: HashSet<(NodeId, u32)>,
}

impl CallSites {
    /// The methods the call at `pc` of `caller` may enter.
    pub fn entered(&self, caller: NodeId, pc: u32) -> &[NodeId] {
        self.entered.get(&(caller, pc)).map_or(&[], Vec::as_slice)
    }

    pub fn is_unresolved(&self, caller: NodeId, pc: u32) -> bool {
        self.unresolved.contains(&(caller, pc))
    }

    /// The offsets of `caller`'s calls, resolved or not.
    pub fn offsets(&self, caller: NodeId) -> BTreeSet<u32> {
        self.entered
            .keys()
            .chain(&self.unresolved)
            .filter(|(from, _)| *from == caller)
            .map(|&(_, pc)| pc)
            .collect()
    }
}

impl CallGraph {
    /// The index of its call sites.
    pub fn call_sites(&self) -> CallSites {
        let mut sites = CallSites::default();
        for edge in &self.edges {
            sites
                .entered
                .entry((edge.caller, edge.pc))
                .or_default()
                .push(edge.callee);
        }
        sites.unresolved = self.unresolved.iter().map(|u| (u.caller, u.pc)).collect();
        sites
    }

    fn new(entry: MethodRef) -> Self {
        let mut graph = CallGraph {
            methods: Vec::new(),
            edges: Vec::new(),
            unresolved: Vec::new(),
            external_jdk_types: BTreeSet::new(),
            external_user_types: BTreeSet::new(),
            copies: BTreeMap::new(),
            formats: BTreeMap::new(),
            fields_by_stores: BTreeSet::new(),
            budget_hit: None,
            index: HashMap::default(),
        };
        graph.add_node(entry, NodeKind::Code);
        graph
    }

    pub fn entry(&self) -> &MethodRef {
        &self.methods[0].method
    }

    /// The node of a method, if it was reached.
    pub fn node(&self, method: &MethodRef) -> Option<NodeId> {
        self.index.get(method).copied()
    }

    /// Adds a node, or returns the existing one, and tells whether it is new.
    fn add_node(&mut self, method: MethodRef, kind: NodeKind) -> (NodeId, bool) {
        if let Some(&id) = self.index.get(&method) {
            return (id, false);
        }
        let id = self.methods.len();
        self.index.insert(method.clone(), id);
        self.methods.push(Node { method, kind });
        (id, true)
    }

    /// For each method, the edges leaving it, ordered by call site and then by callee.
    pub fn adjacency(&self) -> Vec<Vec<&Edge>> {
        let mut out: Vec<Vec<&Edge>> = vec![Vec::new(); self.methods.len()];
        for edge in &self.edges {
            out[edge.caller].push(edge);
        }
        for edges in &mut out {
            edges.sort_by_key(|e| (e.pc, e.callee));
        }
        out
    }

    /// The strongly connected components of the graph, callees before callers.
    pub fn components(&self) -> Vec<Vec<NodeId>> {
        let mut graph = DiGraph::<(), ()>::new();
        let nodes: Vec<_> = self.methods.iter().map(|_| graph.add_node(())).collect();
        for edge in &self.edges {
            graph.add_edge(nodes[edge.caller], nodes[edge.callee], ());
        }
        tarjan_scc(&graph)
            .into_iter()
            .map(|scc| scc.into_iter().map(|n| n.index()).collect())
            .collect()
    }

    /// The strongly connected components that contain a cycle (recursion), each sorted, the
    /// list sorted by its first method.
    pub fn recursive_components(&self) -> Vec<Vec<NodeId>> {
        let mut self_loops = vec![false; self.methods.len()];
        for edge in self.edges.iter().filter(|e| e.caller == e.callee) {
            self_loops[edge.caller] = true;
        }
        let mut components: Vec<Vec<NodeId>> = self
            .components()
            .into_iter()
            .map(|mut ids| {
                ids.sort();
                ids
            })
            .filter(|ids| ids.len() > 1 || self_loops[ids[0]])
            .collect();
        components.sort();
        components
    }
}

//! Creation sites: every allocation reachable from the method under analysis, named by its call
//! chain (the call sites from the entry down to the allocating instruction).
//!
//! One allocating instruction reached through two chains is two creation sites: counting and
//! escape analysis are per chain. Allocations are `new`, `newarray`, `anewarray`,
//! `multianewarray`, the string built by a string-concatenation `invokedynamic`, what a
//! `String.format` or `printf` with a literal format makes (at its call), and the object
//! a constructor reference (`Foo::new`) creates when its functional method runs. Recursion is
//! cut where a chain would enter a method already on it, and the cycle is reported; chains past
//! a limit are not enumerated, and the result says so. A method a library spec stands for
//! allocates what its spec states, at offsets `0, 1, …` in the spec's order. This module knows the call graph and the
//! IR, not how often anything runs.

mod concat;
mod format;
mod local;
mod operand_text;
mod render;

use membound_front::callgraph::{CallGraph, Edge, NodeId, NodeKind};
use membound_front::program::Program;
use membound_jvm::error::Result;
use membound_jvm::{ClassName, MethodDescriptor, MethodRef, Type};

pub use concat::{
    CONCAT_BYTES_PER_CHAR, ConcatShape, ConcatText, FLOAT_TEXT_CHARS, TextAllocation, TextObject,
    concat_shape, concat_text, float_text,
};
pub use format::{
    FormatShape, FormatSite, FormatText, LOCALE_DATA_OBJECTS, format_shape, format_site,
    locale_data_bytes,
};
pub(crate) use local::reaching;
pub use local::{LocalSite, LocalSites, local_sites};
pub use render::{to_json, to_text};

/// The default bound on the number of chains enumerated (`--budget-chains`): a graph through
/// the JDK has millions, and 20000 chains already take hundreds of megabytes.
pub const DEFAULT_MAX_CHAINS: usize = 20_000;

/// One step of a chain: a call site or, last, the allocating instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainElement {
    pub method: MethodRef,
    pub pc: u32,
    pub line: Option<u32>,
}

impl ChainElement {
    /// `@pc (line l)`, or `@pc` without line numbers.
    pub fn position(&self) -> String {
        match self.line {
            Some(line) => format!("@{} (line {line})", self.pc),
            None => format!("@{}", self.pc),
        }
    }
}

/// What an allocating instruction creates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocation {
    pub kind: AllocationKind,
    /// The created object's class, or the whole array type (`int[][]`).
    pub ty: Type,
    /// The dimensions given to an array allocation, outermost first, as source-like text.
    pub dims: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllocationKind {
    /// `new C`.
    Object,
    /// `newarray`, `anewarray`, `multianewarray`.
    Array,
    /// The `String` (and its backing array) built by a string-concatenation `invokedynamic`.
    StringConcat(ConcatShape),
    /// What a `String.format` call with a literal format makes (the call graph's `formats`).
    Format(FormatShape),
    /// What the first use of the default locale's number symbols in a run loads, at a format
    /// call that reads them (`%d`): at most once per run ([`LOCALE_DATA_OBJECTS`]), wherever
    /// the call runs; the objects stay in the JDK's caches.
    FormatLocaleData,
    /// The object a constructor reference creates when its functional method runs.
    ConstructorReference,
    /// The object a lambda or method reference that captures values is on each evaluation
    /// (`() -> k + 1`, `list::add`): an instance of a class the JDK spins at run time, sized by
    /// what it captures. One that captures nothing is a singleton made when its call site is
    /// linked, and no site.
    CapturingLambda(Captures),
}

/// The values a capturing lambda's object holds, by size: its class exists only at run time,
/// so their types alone size it ([`membound_front::sizes::ObjectModel::captured_size`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Captures {
    pub longs: u16,
    pub ints: u16,
    pub shorts: u16,
    pub bytes: u16,
    pub references: u16,
}

impl Captures {
    /// What the lambda factory call of `descriptor` (its parameters are the captured values)
    /// captures; `None` when it captures nothing.
    pub fn of(descriptor: &MethodDescriptor) -> Option<Captures> {
        if descriptor.params.is_empty() {
            return None;
        }
        let count = |sized: fn(&Type) -> bool| {
            u16::try_from(descriptor.params.iter().filter(|ty| sized(ty)).count())
                .unwrap_or(u16::MAX)
        };
        Some(Captures {
            longs: count(|ty| matches!(ty, Type::Long | Type::Double)),
            ints: count(|ty| matches!(ty, Type::Int | Type::Float)),
            shorts: count(|ty| matches!(ty, Type::Char | Type::Short)),
            bytes: count(|ty| matches!(ty, Type::Boolean | Type::Byte)),
            references: count(Type::is_reference),
        })
    }

    /// Types of the captured values' sizes, one per value (a reference as an `Object`).
    pub fn types(self) -> Vec<Type> {
        let object = Type::Ref(ClassName::new("java/lang/Object"));
        [
            (self.longs, Type::Long),
            (self.ints, Type::Int),
            (self.shorts, Type::Short),
            (self.bytes, Type::Byte),
            (self.references, object),
        ]
        .into_iter()
        .flat_map(|(count, ty)| std::iter::repeat_n(ty, usize::from(count)))
        .collect()
    }
}

/// A creation site: the allocation and the chain that reaches it from the entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreationSite {
    pub chain: Vec<ChainElement>,
    pub allocation: Allocation,
}

/// The creation sites of one entry method.
#[derive(Clone, Debug)]
pub struct Sites {
    pub entry: MethodRef,
    pub sites: Vec<CreationSite>,
    /// Call cycles met while enumerating: each the methods of one cycle, from where the chain
    /// re-entered it.
    pub cycles: Vec<Vec<MethodRef>>,
    /// Reached methods whose allocations are unknown (native, missing, unliftable), with why.
    pub unknown: Vec<(MethodRef, String)>,
    /// Set when enumeration stopped at the chain limit.
    pub truncated_at: Option<usize>,
}

/// Enumerates the creation sites reachable in `graph` from its entry, at most `max_chains`.
pub fn enumerate(program: &Program, graph: &CallGraph, max_chains: usize) -> Result<Sites> {
    let local = local_sites(program, graph)?;
    let adjacency = graph.adjacency();
    let events = local_events(graph, &local, &adjacency);
    let mut walker = Walker {
        graph,
        local: &local,
        events: &events,
        allocates: &local.reaches,
        path: Vec::new(),
        on_path: vec![false; graph.methods.len()],
        sites: Vec::new(),
        cycles: Vec::new(),
        max_chains,
        truncated: false,
    };
    walker.walk(0);
    Ok(Sites {
        entry: graph.entry().clone(),
        sites: walker.sites,
        cycles: walker.cycles,
        unknown: unknown_methods(graph),
        truncated_at: walker.truncated.then_some(max_chains),
    })
}

/// Something in one method that matters for chains, at one bytecode offset.
enum Event<'g> {
    /// The local site of this index in [`LocalSites::sites`].
    Allocate(usize),
    Call(&'g Edge),
}

/// Per method, its allocations and outgoing calls in bytecode order.
fn local_events<'g>(
    graph: &'g CallGraph,
    local: &LocalSites,
    adjacency: &[Vec<&'g Edge>],
) -> Vec<Vec<Event<'g>>> {
    let mut all = Vec::with_capacity(graph.methods.len());
    for (id, edges) in adjacency.iter().enumerate() {
        let mut events: Vec<(u32, Event<'g>)> = local.by_node[id]
            .iter()
            .map(|&site| (local.sites[site].pc, Event::Allocate(site)))
            .collect();
        events.extend(edges.iter().map(|&edge| (edge.pc, Event::Call(edge))));
        // A constructor reference's allocation comes before the call at its offset.
        events.sort_by_key(|(pc, event)| (*pc, matches!(event, Event::Call(_))));
        all.push(events.into_iter().map(|(_, event)| event).collect());
    }
    all
}

fn unknown_methods(graph: &CallGraph) -> Vec<(MethodRef, String)> {
    graph
        .methods
        .iter()
        .filter_map(|node| {
            let why = match &node.kind {
                NodeKind::Code | NodeKind::Spec(_) => return None,
                NodeKind::Native => "native method".to_string(),
                NodeKind::Abstract => "abstract method without implementation".to_string(),
                NodeKind::Broken(why) => why.clone(),
            };
            Some((node.method.clone(), why))
        })
        .collect()
}

/// Depth-first enumeration of chains.
struct Walker<'a, 'g> {
    graph: &'g CallGraph,
    local: &'a LocalSites,
    events: &'a [Vec<Event<'g>>],
    allocates: &'a [bool],
    path: Vec<ChainElement>,
    on_path: Vec<bool>,
    sites: Vec<CreationSite>,
    cycles: Vec<Vec<MethodRef>>,
    max_chains: usize,
    truncated: bool,
}

impl Walker<'_, '_> {
    fn walk(&mut self, node: NodeId) {
        self.on_path[node] = true;
        let method = self.graph.methods[node].method.clone();
        for event in &self.events[node] {
            if self.truncated {
                break;
            }
            match event {
                Event::Allocate(site) => self.emit(&self.local.sites[*site]),
                Event::Call(edge) => self.follow(&method, edge),
            }
        }
        self.on_path[node] = false;
    }

    fn emit(&mut self, site: &LocalSite) {
        if self.sites.len() >= self.max_chains {
            self.truncated = true;
            return;
        }
        let mut chain = self.path.clone();
        chain.push(ChainElement {
            method: site.method.clone(),
            pc: site.pc,
            line: site.line,
        });
        self.sites.push(CreationSite {
            chain,
            allocation: site.allocation.clone(),
        });
    }

    fn follow(&mut self, method: &MethodRef, edge: &Edge) {
        if !self.allocates[edge.callee] {
            return;
        }
        if self.on_path[edge.callee] {
            self.record_cycle(edge.callee, method);
            return;
        }
        self.path.push(ChainElement {
            method: method.clone(),
            pc: edge.pc,
            line: edge.line,
        });
        self.walk(edge.callee);
        self.path.pop();
    }

    /// The cycle is the part of the path from the re-entered method to the current one.
    fn record_cycle(&mut self, reentered: NodeId, current: &MethodRef) {
        let target = &self.graph.methods[reentered].method;
        let start = self
            .path
            .iter()
            .position(|element| element.method == *target)
            .unwrap_or(self.path.len());
        let mut cycle: Vec<MethodRef> = self.path[start..]
            .iter()
            .map(|element| element.method.clone())
            .collect();
        cycle.push(current.clone());
        if !self.cycles.contains(&cycle) {
            self.cycles.push(cycle);
        }
    }
}

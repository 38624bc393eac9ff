//! Creation sites: every allocation reachable from the method under analysis, named by its call
//! chain (the call sites from the entry down to the allocating instruction).
//!
//! One allocating instruction reached through two chains is two creation sites: counting and
//! escape analysis are per chain. Allocations are `new`, `newarray`, `anewarray`,
//! `multianewarray`, the string built by a string-concatenation `invokedynamic`, and the object
//! a constructor reference (`Foo::new`) creates when its functional method runs. Recursion is
//! cut where a chain would enter a method already on it, and the cycle is reported; chains past
//! a limit are not enumerated, and the result says so. A method a library spec stands for
//! allocates what its spec states, at offsets `0, 1, …` in the spec's order. This module knows the call graph and the
//! IR, not how often anything runs.

mod concat;
mod operand_text;
mod render;

use membound_front::callgraph::{CallGraph, Edge, EdgeKind, NodeId, NodeKind};
use membound_front::ir::{Call, CallKind, DynamicCall, Expr, StmtKind};
use membound_front::program::Program;
use membound_front::specs::MethodSpec;
use membound_jvm::error::Result;
use membound_jvm::{ClassName, MethodRef, Type};

pub use concat::{ConcatShape, concat_shape};
pub use render::{to_json, to_text};

/// The default bound on the number of chains enumerated.
pub const DEFAULT_MAX_CHAINS: usize = 100_000;

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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocationKind {
    /// `new C`.
    Object,
    /// `newarray`, `anewarray`, `multianewarray`.
    Array,
    /// The `String` (and its backing array) built by a string-concatenation `invokedynamic`.
    StringConcat(ConcatShape),
    /// The object a constructor reference creates when its functional method runs.
    ConstructorReference,
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
    let events = local_events(program, graph)?;
    let adjacency = graph.adjacency();
    let allocates = reaches_allocation(graph, &events, &adjacency);
    let mut walker = Walker {
        graph,
        events: &events,
        allocates: &allocates,
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
    Allocate {
        pc: u32,
        line: Option<u32>,
        allocation: Allocation,
    },
    Call(&'g Edge),
}

impl Event<'_> {
    fn pc(&self) -> u32 {
        match self {
            Event::Allocate { pc, .. } => *pc,
            Event::Call(edge) => edge.pc,
        }
    }
}

/// Per method, its allocations and outgoing calls in bytecode order.
fn local_events<'g>(program: &Program, graph: &'g CallGraph) -> Result<Vec<Vec<Event<'g>>>> {
    let adjacency = graph.adjacency();
    let mut all = Vec::with_capacity(graph.methods.len());
    for (id, node) in graph.methods.iter().enumerate() {
        let mut events: Vec<Event<'g>> = Vec::new();
        match &node.kind {
            NodeKind::Code => events.extend(allocations(program, &node.method)?),
            NodeKind::Spec(spec) => events.extend(spec_allocations(spec)),
            _ => {}
        }
        for edge in &adjacency[id] {
            if let Some(allocation) = constructor_reference(graph, edge) {
                events.push(Event::Allocate {
                    pc: edge.pc,
                    line: edge.line,
                    allocation,
                });
            }
            events.push(Event::Call(edge));
        }
        events.sort_by_key(Event::pc);
        all.push(events);
    }
    Ok(all)
}

/// The allocating statements of one method body.
fn allocations(program: &Program, method: &MethodRef) -> Result<Vec<Event<'static>>> {
    let body = program.lift(method)?;
    let mut found = Vec::new();
    for block in &body.blocks {
        for (index, stmt) in block.stmts.iter().enumerate() {
            let allocation = match &stmt.kind {
                StmtKind::Assign {
                    value: Expr::New(class),
                    ..
                } => Allocation {
                    kind: AllocationKind::Object,
                    ty: Type::Ref(class.clone()),
                    dims: Vec::new(),
                },
                StmtKind::Assign {
                    value: Expr::NewArray { ty, dims },
                    ..
                } => Allocation {
                    kind: AllocationKind::Array,
                    ty: ty.clone(),
                    dims: dims
                        .iter()
                        .map(|dim| operand_text::render(&body, block, index, dim))
                        .collect(),
                },
                StmtKind::Invoke {
                    call:
                        Call {
                            kind: CallKind::Dynamic(DynamicCall::StringConcat { recipe }),
                            method,
                            ..
                        },
                    ..
                } => Allocation {
                    kind: AllocationKind::StringConcat(concat_shape(
                        &method.descriptor,
                        recipe.as_deref(),
                    )),
                    ty: Type::Ref(ClassName::new("java/lang/String")),
                    dims: Vec::new(),
                },
                _ => continue,
            };
            found.push(Event::Allocate {
                pc: stmt.pc,
                line: stmt.line,
                allocation,
            });
        }
    }
    Ok(found)
}

/// The allocations a spec states, at offsets `0..` in its order (see
/// [`MethodSpec::allocation_pc`]).
fn spec_allocations(spec: &MethodSpec) -> Vec<Event<'static>> {
    spec.allocations
        .iter()
        .enumerate()
        .map(|(index, allocation)| Event::Allocate {
            pc: MethodSpec::allocation_pc(index),
            line: None,
            allocation: Allocation {
                kind: if matches!(allocation.ty, Type::Array(_)) {
                    AllocationKind::Array
                } else {
                    AllocationKind::Object
                },
                ty: allocation.ty.clone(),
                dims: match &allocation.length {
                    Some(length) => vec![length.text.clone()],
                    None if matches!(allocation.ty, Type::Array(_)) => {
                        vec!["unbounded".to_string()]
                    }
                    None => Vec::new(),
                },
            },
        })
        .collect()
}

/// A lambda edge into a constructor is a constructor reference: running the functional method
/// creates an object of the constructor's class.
fn constructor_reference(graph: &CallGraph, edge: &Edge) -> Option<Allocation> {
    let callee = &graph.methods[edge.callee].method;
    (edge.kind == EdgeKind::Lambda && &*callee.name == "<init>").then(|| Allocation {
        kind: AllocationKind::ConstructorReference,
        ty: Type::Ref(callee.class.clone()),
        dims: Vec::new(),
    })
}

/// Which methods reach some allocation (their own or a callee's): chains are only walked into
/// those.
fn reaches_allocation(
    graph: &CallGraph,
    events: &[Vec<Event<'_>>],
    adjacency: &[Vec<&Edge>],
) -> Vec<bool> {
    let mut allocates: Vec<bool> = events
        .iter()
        .map(|list| list.iter().any(|e| matches!(e, Event::Allocate { .. })))
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for id in 0..graph.methods.len() {
            if !allocates[id] && adjacency[id].iter().any(|e| allocates[e.callee]) {
                allocates[id] = true;
                changed = true;
            }
        }
    }
    allocates
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
                Event::Allocate {
                    pc,
                    line,
                    allocation,
                } => self.emit(&method, *pc, *line, allocation),
                Event::Call(edge) => self.follow(&method, edge),
            }
        }
        self.on_path[node] = false;
    }

    fn emit(&mut self, method: &MethodRef, pc: u32, line: Option<u32>, allocation: &Allocation) {
        if self.sites.len() >= self.max_chains {
            self.truncated = true;
            return;
        }
        let mut chain = self.path.clone();
        chain.push(ChainElement {
            method: method.clone(),
            pc,
            line,
        });
        self.sites.push(CreationSite {
            chain,
            allocation: allocation.clone(),
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

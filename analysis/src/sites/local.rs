//! Local sites: the allocating instructions of every method of a call graph (and what each
//! spec'd method's spec allocates), and which methods reach one. Chains are paths to them;
//! summaries count them per method.

use membound_front::callgraph::{CallGraph, Edge, EdgeKind, NodeId, NodeKind};
use membound_front::ir::{
    Block, Body, Call, CallKind, DynamicCall, Expr, FormatCall, FormatOutput, Operand, StmtKind,
};
use membound_front::program::Program;
use membound_front::specs::MethodSpec;
use membound_jvm::error::Result;
use membound_jvm::{ClassName, MethodRef, Type};

use super::operand_text;
use super::{Allocation, AllocationKind, Captures, concat_shape, format_site};

/// One allocating instruction of a method (or one allocation its spec states).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalSite {
    pub node: NodeId,
    pub method: MethodRef,
    pub pc: u32,
    pub line: Option<u32>,
    pub allocation: Allocation,
}

/// The local sites of a call graph's methods.
#[derive(Clone, Debug, Default)]
pub struct LocalSites {
    pub sites: Vec<LocalSite>,
    /// Per node of the graph, the indices of its own sites in offset order.
    pub by_node: Vec<Vec<usize>>,
    /// Per node, whether it reaches a site (its own or a callee's).
    pub reaches: Vec<bool>,
}

/// The local sites of every method of `graph`: the allocating statements of a method with
/// code, the allocations its spec states for a spec'd one (at offsets `0..`), and the object a
/// constructor reference creates, at the call that runs it.
pub fn local_sites(program: &Program, graph: &CallGraph) -> Result<LocalSites> {
    let mut local = LocalSites {
        sites: Vec::new(),
        by_node: vec![Vec::new(); graph.methods.len()],
        reaches: Vec::new(),
    };
    let adjacency = graph.adjacency();
    for (id, node) in graph.methods.iter().enumerate() {
        let mut found: Vec<(u32, Option<u32>, Allocation)> = match &node.kind {
            NodeKind::Code => allocations(program, graph, id)?,
            NodeKind::Spec(spec) => spec_allocations(spec),
            _ => Vec::new(),
        };
        found.extend(adjacency[id].iter().filter_map(|edge| {
            constructor_reference(graph, edge).map(|allocation| (edge.pc, edge.line, allocation))
        }));
        found.sort_by_key(|(pc, _, _)| *pc);
        for (pc, line, allocation) in found {
            local.by_node[id].push(local.sites.len());
            local.sites.push(LocalSite {
                node: id,
                method: node.method.clone(),
                pc,
                line,
                allocation,
            });
        }
    }
    local.reaches = reaches_allocation(graph, &local.by_node);
    Ok(local)
}

/// The allocating statements of the body of the graph's method `node`, with the copies a
/// `clone()` makes without a call ([`CallGraph::copies`]) and the format calls the graph
/// takes for allocations ([`CallGraph::formats`]).
fn allocations(
    program: &Program,
    graph: &CallGraph,
    node: NodeId,
) -> Result<Vec<(u32, Option<u32>, Allocation)>> {
    let body = program.lift(&graph.methods[node].method)?;
    let copy = |pc: u32| graph.copies.get(&(node, pc));
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
                StmtKind::Invoke { .. } if graph.formats.contains_key(&(node, stmt.pc)) => {
                    let (allocation, locale_data) =
                        format_allocations(&graph.formats[&(node, stmt.pc)]);
                    found.extend(locale_data.map(|data| (stmt.pc, stmt.line, data)));
                    allocation
                }
                StmtKind::Invoke {
                    call:
                        Call {
                            kind: CallKind::Dynamic(DynamicCall::Lambda { interface, .. }),
                            method,
                            ..
                        },
                    ..
                } => {
                    let Some(captures) = Captures::of(&method.parsed_descriptor()?) else {
                        continue;
                    };
                    Allocation {
                        kind: AllocationKind::CapturingLambda(captures),
                        ty: Type::Ref(interface.clone()),
                        dims: Vec::new(),
                    }
                }
                StmtKind::Invoke { call, .. } => match (copy(stmt.pc), &call.receiver) {
                    (Some(ty @ Type::Array(_)), Some(array)) => {
                        array_clone(&body, block, index, ty, array)
                    }
                    (Some(ty), _) => Allocation {
                        kind: AllocationKind::Object,
                        ty: ty.clone(),
                        dims: Vec::new(),
                    },
                    (None, _) => continue,
                },
                _ => continue,
            };
            found.push((stmt.pc, stmt.line, allocation));
        }
    }
    Ok(found)
}

/// A format call's allocations: named by the `String` it returns, or by a stream's
/// `Formatter`; and, when it reads the locale's number symbols, what their first use in a run
/// loads, named by the `DecimalFormatSymbols` it makes (a site of its own: once per run).
fn format_allocations(call: &FormatCall) -> (Allocation, Option<Allocation>) {
    let named = match call.output {
        FormatOutput::Text => "java/lang/String",
        FormatOutput::Stream => "java/util/Formatter",
    };
    let site = format_site(call);
    let locale_data = site.locale_data.then(|| Allocation {
        kind: AllocationKind::FormatLocaleData,
        ty: Type::Ref(ClassName::new("java/text/DecimalFormatSymbols")),
        dims: Vec::new(),
    });
    let allocation = Allocation {
        kind: AllocationKind::Format(site.shape),
        ty: Type::Ref(ClassName::new(named)),
        dims: Vec::new(),
    };
    (allocation, locale_data)
}

/// `array.clone()`: one array of the array's type and length.
fn array_clone(body: &Body, block: &Block, index: usize, ty: &Type, array: &Operand) -> Allocation {
    Allocation {
        kind: AllocationKind::Array,
        ty: ty.clone(),
        dims: vec![format!(
            "{}.length",
            operand_text::render(body, block, index, array)
        )],
    }
}

/// The allocations a spec states, at offsets `0..` in its order (see
/// [`MethodSpec::allocation_pc`]).
fn spec_allocations(spec: &MethodSpec) -> Vec<(u32, Option<u32>, Allocation)> {
    spec.allocations
        .iter()
        .enumerate()
        .map(|(index, allocation)| {
            let allocation = Allocation {
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
            };
            (MethodSpec::allocation_pc(index), None, allocation)
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
fn reaches_allocation(graph: &CallGraph, by_node: &[Vec<usize>]) -> Vec<bool> {
    reaching(
        graph,
        by_node.iter().map(|sites| !sites.is_empty()).collect(),
    )
}

/// Which methods are `marked` or call one, directly or not.
pub(crate) fn reaching(graph: &CallGraph, marked: Vec<bool>) -> Vec<bool> {
    let mut reaches = marked;
    let mut callers: Vec<Vec<NodeId>> = vec![Vec::new(); graph.methods.len()];
    for edge in &graph.edges {
        callers[edge.callee].push(edge.caller);
    }
    let mut work: Vec<NodeId> = (0..reaches.len()).filter(|&id| reaches[id]).collect();
    while let Some(node) = work.pop() {
        for &caller in &callers[node] {
            if !reaches[caller] {
                reaches[caller] = true;
                work.push(caller);
            }
        }
    }
    reaches
}

//! Ghost counters: an `int` field that every write of the analyzed code increments by one
//! (`x.f++`, javac's `getfield; iconst_1; iadd; putfield`), em3d's `Node.fromCount`, bumped on
//! random other nodes while the graph is built and then read as the length of a `new
//! Node[fromCount]`.
//!
//! No view can follow such a field (the object written is any node), so a callee's bound that
//! reads it as a formal of its `this` cannot be bound by its caller. But the field of every
//! object is at most the number of increments run since the object was created: summed up to
//! a call, those are counted like allocations, from an invariant at each increment (the
//! lowering puts a point there, [`super::FieldPlan::counted`]) and through the callers of the
//! methods that run one. The summaries ([`crate::summary`]'s `ghost` module) bound the callee's
//! formal by the increments its caller runs per activation, where that caller runs at most once
//! and every increment runs inside it, under [`GHOST_COUNTERS`]: the objects that exist when
//! the analyzed method starts hold 0.
//!
//! A field is a counter only when every write of it that the call graph holds is such an
//! increment, no code the analysis cannot see is reachable (it could write anything), and a
//! reachable JDK native writes no application field ([`super::JDK_NATIVES_KEEP_FIELDS`]).
//! Other incremented fields are kept with why they are not counters, for the reasons of the
//! bounds that stay ∞ through them.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use membound_front::callgraph::{CallGraph, NodeKind};
use membound_front::classpath::Origin;
use membound_front::ir::{self, BinOp, Const, Operand, Place, StmtKind};
use membound_front::program::Program;
use membound_jvm::{FieldRef, MethodRef, Type};

use super::chains::{WalkStep, Walks};
use super::fields::{Resolved, Resolver, node_writes};
use super::loops::{block_successors, find_loops};

/// The assumption a bound through a ghost counter relies on: the analysis counts every
/// increment from the analyzed method's start, not those before.
pub const GHOST_COUNTERS: &str = "a field that the code only ever increments by one (a ghost counter, `x.f++`) is 0 in every object that exists when the analyzed method starts: a method whose call a counter bounds runs at most once and every increment the analyzed method makes runs inside it, so the counters of all objects sum to at most the increments that method runs";

/// The ghost counters of a call graph and their increments.
#[derive(Clone, Debug, Default)]
pub struct GhostCounters {
    /// The counters, named by their declaring class.
    pub fields: BTreeSet<FieldRef>,
    /// Per method, the offsets of its increments of a counter, with the counter.
    pub increments: HashMap<MethodRef, Vec<(u32, FieldRef)>>,
    /// The `int` fields incremented somewhere that are no counters, with why.
    pub rejected: BTreeMap<FieldRef, String>,
    /// A counter relies on [`super::JDK_NATIVES_KEEP_FIELDS`].
    pub assumes_jdk_natives: bool,
}

impl GhostCounters {
    /// Whether `field` (as an instruction or a view names it) is a counter.
    pub fn is_counter(&self, field: &FieldRef) -> bool {
        self.fields.contains(field)
    }
}

/// One `putfield` of an `int` field in the call graph's code.
struct IntStore {
    method: MethodRef,
    pc: u32,
    field: Resolved,
    increment: bool,
}

/// The ghost counters of `graph`'s code that a node `reading` marks reads (the methods whose
/// bounds may depend on them).
pub fn ghost_counters(java: &Program, graph: &CallGraph, reading: &[bool]) -> GhostCounters {
    let mut resolver = Resolver::new(java);
    let stores = int_stores(java, graph, &mut resolver);
    if stores.iter().all(|store| !store.increment) {
        return GhostCounters::default();
    }
    let read = int_reads(java, graph, reading, &mut resolver);
    let writes = node_writes(java, graph, &mut resolver);
    let unseen = writes.iter().any(|w| w.anything);
    let jdk_native = writes.iter().any(|w| w.jdk_native);
    let mut counters = GhostCounters::default();
    let incremented: BTreeSet<&FieldRef> = stores
        .iter()
        .filter(|store| store.increment && read.contains(&store.field.field))
        .map(|store| &store.field.field)
        .collect();
    for field in incremented {
        let target = Resolved {
            field: field.clone(),
            resolved: true,
        };
        let other = stores
            .iter()
            .find(|store| !store.increment && store.field.may_alias(&target));
        let unresolved = stores
            .iter()
            .any(|store| store.field.field == *field && !store.field.resolved);
        let why = if let Some(other) = other {
            Some(format!(
                "it is also stored other than by `++` at {}@{}",
                other.method, other.pc
            ))
        } else if unresolved {
            Some("its declaring class is not on the class path".to_string())
        } else if unseen {
            Some("code the analysis cannot see is reachable and may write it".to_string())
        } else if jdk_native && java.origin(&field.class) != Some(Origin::User) {
            Some("a reachable native method may write it".to_string())
        } else {
            None
        };
        match why {
            Some(why) => {
                counters.rejected.insert(field.clone(), why);
            }
            None => {
                counters.assumes_jdk_natives |= jdk_native;
                counters.fields.insert(field.clone());
            }
        }
    }
    for store in stores.into_iter().filter(|s| s.increment) {
        if counters.fields.contains(&store.field.field) {
            counters
                .increments
                .entry(store.method)
                .or_default()
                .push((store.pc, store.field.field));
        }
    }
    counters
}

/// Every `putfield` of an `int` field in the bodies of the graph's methods with code.
fn int_stores(java: &Program, graph: &CallGraph, resolver: &mut Resolver<'_>) -> Vec<IntStore> {
    let mut stores = Vec::new();
    for node in graph
        .methods
        .iter()
        .filter(|node| matches!(node.kind, NodeKind::Code))
    {
        let Ok(body) = java.body(&node.method) else {
            continue;
        };
        for block in &body.blocks {
            for (index, stmt) in block.stmts.iter().enumerate() {
                let StmtKind::Store {
                    place: Place::Field { field, .. },
                    ..
                } = &stmt.kind
                else {
                    continue;
                };
                if field.ty != Type::Int {
                    continue;
                }
                stores.push(IntStore {
                    method: node.method.clone(),
                    pc: stmt.pc,
                    field: resolver.resolve(field),
                    increment: is_increment(&block.stmts[..=index]),
                });
            }
        }
    }
    stores
}

/// The `int` fields (as resolved) that the methods `reading` marks load.
fn int_reads(
    java: &Program,
    graph: &CallGraph,
    reading: &[bool],
    resolver: &mut Resolver<'_>,
) -> BTreeSet<FieldRef> {
    let mut read = BTreeSet::new();
    for (_, node) in graph
        .methods
        .iter()
        .enumerate()
        .filter(|&(id, node)| reading[id] && matches!(node.kind, NodeKind::Code))
    {
        let Ok(body) = java.body(&node.method) else {
            continue;
        };
        for (_, stmt) in body.statements() {
            if let StmtKind::Assign {
                value: ir::Expr::Load(Place::Field { field, .. }),
                ..
            } = &stmt.kind
                && field.ty == Type::Int
            {
                read.insert(resolver.resolve(field).field);
            }
        }
    }
    read
}

/// Whether the last statement of `stmts` stores into `x.f` the value `x.f + 1` that the two
/// statements before it compute: `s = x.f; t = s + 1; x.f = t`.
fn is_increment(stmts: &[ir::Stmt]) -> bool {
    let [.., load, add, store] = stmts else {
        return false;
    };
    let StmtKind::Store {
        place: Place::Field {
            object: Operand::Var(object),
            field,
        },
        value: Operand::Var(stored),
    } = &store.kind
    else {
        return false;
    };
    let StmtKind::Assign {
        dst: sum,
        value:
            ir::Expr::Binary {
                op: BinOp::Add,
                lhs,
                rhs,
            },
    } = &add.kind
    else {
        return false;
    };
    let one = Operand::Const(Const::Int(1));
    let read = match (lhs, rhs) {
        (Operand::Var(read), other) | (other, Operand::Var(read)) if *other == one => *read,
        _ => return false,
    };
    let loads_field = matches!(
        &load.kind,
        StmtKind::Assign {
            dst,
            value: ir::Expr::Load(Place::Field { object: Operand::Var(o), field: f }),
        } if *dst == read && o == object && f == field && o != dst
    );
    sum == stored && loads_field
}

/// The offsets of `body`'s calls whose receiver is another object at each execution in one
/// activation: a call outside every loop (it runs at most once), or one whose only loop walks
/// its receiver along a chain (acyclic, [`super::chains::ACYCLIC_CHAINS`]): the receiver is a
/// walked local that the loop sets only by `v = v.f` steps, one of them on every way around the
/// loop. The increments of a counter then bound its sum over the call's receivers, not only
/// each receiver's.
pub fn distinct_receiver_calls(body: &ir::Body, walks: &Walks) -> BTreeSet<u32> {
    let successors = block_successors(body);
    let loops = find_loops(&successors);
    let mut found = BTreeSet::new();
    for (block, stmts) in body.blocks.iter().enumerate() {
        for stmt in &stmts.stmts {
            let StmtKind::Invoke { call, .. } = &stmt.kind else {
                continue;
            };
            let distinct = match (loops.enclosing[block].as_slice(), &call.receiver) {
                ([], Some(_)) => true,
                ([head], Some(Operand::Var(receiver))) if loops.reducible => {
                    let walk = LoopWalk {
                        body,
                        successors: &successors,
                        in_loop: &|b: usize| loops.enclosing[b].contains(head),
                    };
                    walk.moves_every_time(*receiver, walks, block)
                }
                _ => false,
            };
            if distinct {
                found.insert(stmt.pc);
            }
        }
    }
    found
}

/// The offsets of `body`'s calls outside every loop: each runs at most once per activation.
pub fn calls_outside_loops(body: &ir::Body) -> BTreeSet<u32> {
    let loops = find_loops(&block_successors(body));
    body.blocks
        .iter()
        .enumerate()
        .filter(|(block, _)| loops.enclosing[*block].is_empty())
        .flat_map(|(_, block)| &block.stmts)
        .filter(|stmt| matches!(stmt.kind, StmtKind::Invoke { .. }))
        .map(|stmt| stmt.pc)
        .collect()
}

/// One loop of a body, for [`distinct_receiver_calls`].
struct LoopWalk<'a> {
    body: &'a ir::Body,
    successors: &'a [Vec<usize>],
    in_loop: &'a dyn Fn(usize) -> bool,
}

impl LoopWalk<'_> {
    /// Whether `var` is a local walked along a chain that the loop assigns only by following
    /// it one node on, on every way from `block` around the loop back to it.
    fn moves_every_time(&self, var: ir::VarId, walks: &Walks, block: usize) -> bool {
        let Some(walked) = walks
            .locals
            .iter()
            .find(|walked| walked.var == var && walked.branches.is_empty())
        else {
            return false;
        };
        let follows: BTreeSet<u32> = walked
            .steps
            .iter()
            .filter(|(_, step)| matches!(step, WalkStep::Follow(from) if *from == var))
            .map(|(pc, _)| *pc)
            .collect();
        let mut following = BTreeSet::new();
        for (index, stmts) in self.body.blocks.iter().enumerate() {
            for stmt in stmts.stmts.iter().filter(|stmt| stmt.assigns(var)) {
                if !(self.in_loop)(index) {
                    continue;
                }
                if !follows.contains(&stmt.pc) {
                    return false;
                }
                following.insert(index);
            }
        }
        !following.is_empty() && !self.returns_without(block, &following)
    }

    /// Whether the loop leads from `block` back to it through none of the blocks `avoided`.
    fn returns_without(&self, block: usize, avoided: &BTreeSet<usize>) -> bool {
        if avoided.contains(&block) {
            return false;
        }
        let mut seen = BTreeSet::new();
        let mut stack: Vec<usize> = self.successors[block].clone();
        while let Some(next) = stack.pop() {
            if next == block {
                return true;
            }
            if !(self.in_loop)(next) || avoided.contains(&next) || !seen.insert(next) {
                continue;
            }
            stack.extend(&self.successors[next]);
        }
        false
    }
}

//! Trees a call returns fresh: `top = createVillage(levels, 0, null); simulate(top, time)`, where
//! `simulate` recurses over its parameter's tree ([`super::trees`]) and `createVillage` builds
//! that tree out of objects it creates.
//!
//! A method *keeps trees fresh* along a tree's branches when everything it returns is null or
//! an object it created (`new`, or the result of a call into methods that keep trees fresh),
//! and every store it makes into a branch field (or, for an array branch, into an array of
//! references) stores null or such an object, and every call it makes that may write those is
//! into methods that keep trees fresh. Then, during a call of such a method, every write of a
//! branch stores an object created during that call, so every node reachable along the
//! branches from what it returns was created during the call: the tree's size is at most the
//! number of objects of the node's class (or a subclass) the call allocates, which the
//! summaries count (`summary::fresh`). The largest such set of methods is found by removing
//! methods that break the rule until none does.
//!
//! A caller that passes the result of such a call (its only value) to a method recursing over
//! its tree, with nothing between the two that may write the branches, binds the callee's tree
//! sizes by that count: a [`FreshTree`]. Nothing beyond [`super::trees::TREE_SHAPED`] is
//! assumed (no other thread, reflection or JNI writes the branches).

use std::collections::{BTreeSet, HashMap, HashSet};

use super::chains::{Root, Walks};
use super::fields::stores_reference;
use super::held::CallWrites;
use super::loops::block_successors;
use super::trees::{array_elements, is_array_branch, is_tree};
use membound_front::ir::{self, Const, Expr, Operand, Place, StmtKind, Terminator};
use membound_jvm::{ClassName, FieldRef, Type};

/// A callee's tree whose argument a call passes fresh from an earlier call of the caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreshTree {
    /// The root of the tree's size and those of its children's, indices into the callee's
    /// [`Walks::roots`].
    pub size: usize,
    pub children: Vec<usize>,
    /// The offset of the caller's call whose result the argument is.
    pub source: u32,
    /// The class of the tree's nodes: every node is an object of it or of a subclass.
    pub node: ClassName,
}

/// Per call (caller, offset, callee), by method index, its fresh trees.
pub type FreshTrees = HashMap<(usize, u32, usize), Vec<FreshTree>>;

/// The calls of `bodies` that pass a fresh tree to a callee recursing over it. `callees` maps
/// (method index, call offset) to the methods entered there; `complete` holds the calls whose
/// every target is among them.
pub(super) fn fresh_trees(
    bodies: &[std::sync::Arc<ir::Body>],
    callees: &HashMap<(usize, u32), Vec<usize>>,
    complete: &HashSet<(usize, u32)>,
    call_writes: &CallWrites<'_>,
    walks: &[Walks],
) -> FreshTrees {
    let mut found = FreshTrees::new();
    let mut keeping: HashMap<Vec<FieldRef>, Vec<bool>> = HashMap::new();
    for (caller, body) in bodies.iter().enumerate() {
        for (_, stmt) in body.statements() {
            let StmtKind::Invoke { call, .. } = &stmt.kind else {
                continue;
            };
            for &callee in callees.get(&(caller, stmt.pc)).into_iter().flatten() {
                for tree in callee_trees(&bodies[callee], &walks[callee]) {
                    let passed = match tree.param {
                        Some(index) => call.args.get(usize::from(index)),
                        None => call.receiver.as_ref(),
                    };
                    let Some(Operand::Var(argument)) = passed else {
                        continue;
                    };
                    let Some(source) = source_call(body, *argument) else {
                        continue;
                    };
                    let branches = Branches::new(tree.branches);
                    let keeps = keeping.entry(tree.branches.to_vec()).or_insert_with(|| {
                        keeping_fresh(bodies, callees, complete, call_writes, &branches)
                    });
                    let targets = callees.get(&(caller, source)).into_iter().flatten();
                    let fresh_source = complete.contains(&(caller, source))
                        && targets.clone().all(|&target| keeps[target]);
                    let written_between = (stmt.pc != source)
                        && writes_between(body, source, stmt.pc, &|s| {
                            branches.written_by(s, &|field| call_writes(caller, s, field))
                        });
                    if fresh_source && !written_between {
                        found
                            .entry((caller, stmt.pc, callee))
                            .or_default()
                            .push(FreshTree {
                                size: tree.size,
                                children: tree.children,
                                source,
                                node: tree.node,
                            });
                    }
                }
            }
        }
    }
    found
}

/// A tree a method's formals measure: the size of a parameter's (or `this`'s) tree and of its
/// children's, roots of [`Walks::roots`].
struct CalleeTree<'w> {
    /// The declared parameter's index; `None` for `this`.
    param: Option<u16>,
    branches: &'w [FieldRef],
    size: usize,
    children: Vec<usize>,
    node: ClassName,
}

/// The trees whose sizes are formals of a method (a recursion's own, or one it hands to one).
fn callee_trees<'w>(body: &ir::Body, walks: &'w Walks) -> Vec<CalleeTree<'w>> {
    let mut trees = Vec::new();
    for (size, root) in walks.roots.iter().enumerate() {
        let (param, node) = match root.root {
            Root::Param(var) if root.param.is_some() => (root.param, &body.var(var).ty),
            Root::Receiver => (None, &Type::Ref(body.method.class.clone())),
            _ => continue,
        };
        let (Type::Ref(node), true) = (node, is_tree(&root.branches)) else {
            continue;
        };
        let children = walks
            .roots
            .iter()
            .enumerate()
            .filter(|(_, child)| child.branches == root.branches)
            .filter(|(_, child)| match (&root.root, &child.root) {
                (Root::Param(var), Root::ParamField(of, field)) => {
                    of == var && root.branches.contains(field)
                }
                (Root::Receiver, Root::This(field)) => root.branches.contains(field),
                _ => false,
            })
            .map(|(index, _)| index)
            .collect();
        trees.push(CalleeTree {
            param,
            branches: &root.branches,
            size,
            children,
            node: node.clone(),
        });
    }
    trees
}

/// The fields a tree branches along, as writes see them.
struct Branches<'a> {
    fields: &'a [FieldRef],
    /// Whether a branch is an array field: stores into arrays of references write it.
    arrays: bool,
}

impl<'a> Branches<'a> {
    fn new(fields: &'a [FieldRef]) -> Branches<'a> {
        Branches {
            fields,
            arrays: fields.iter().any(is_array_branch),
        }
    }

    /// The value a statement stores into a branch (a field like one of them, or an element of
    /// an array of references when a branch is an array field).
    fn stored<'s>(&self, body: &ir::Body, stmt: &'s ir::Stmt) -> Option<&'s Operand> {
        let StmtKind::Store { place, value } = &stmt.kind else {
            return None;
        };
        let branch = match place {
            Place::Field { field, .. } => self.fields.iter().any(|b| same_field(field, b)),
            Place::ArrayElement { array, .. } => self.arrays && stores_reference(body, array),
            Place::Static(_) => false,
        };
        branch.then_some(value)
    }

    /// Whether what a statement calls (or initializes) may write a branch (`call_writes` asked
    /// per field).
    fn called_writes(&self, call_writes: &dyn Fn(&FieldRef) -> bool) -> bool {
        self.fields.iter().any(call_writes) || (self.arrays && call_writes(&array_elements()))
    }

    /// Whether a statement of `body` may write a branch, itself or through what it calls.
    fn written_by(&self, stmt: &ir::Stmt, call_writes: &dyn Fn(&FieldRef) -> bool) -> bool {
        let stores = match &stmt.kind {
            StmtKind::Store { place, .. } => match place {
                Place::Field { field, .. } => self.fields.iter().any(|b| same_field(field, b)),
                Place::ArrayElement { .. } => self.arrays,
                Place::Static(_) => false,
            },
            _ => false,
        };
        stores || self.called_writes(call_writes)
    }
}

/// Whether a store naming `written` may change `field`: the same name and type, whichever
/// class each instruction names.
fn same_field(written: &FieldRef, field: &FieldRef) -> bool {
    written.name == field.name && written.ty == field.ty
}

/// Per method, whether it keeps trees along `branches` fresh (see the module documentation):
/// every method at first, then those that break the rule removed until none does.
fn keeping_fresh(
    bodies: &[std::sync::Arc<ir::Body>],
    callees: &HashMap<(usize, u32), Vec<usize>>,
    complete: &HashSet<(usize, u32)>,
    call_writes: &CallWrites<'_>,
    branches: &Branches<'_>,
) -> Vec<bool> {
    let mut keeps = vec![true; bodies.len()];
    loop {
        let mut changed = false;
        for (method, body) in bodies.iter().enumerate() {
            if !keeps[method] {
                continue;
            }
            let calls_keeping = |pc: u32| {
                complete.contains(&(method, pc))
                    && callees
                        .get(&(method, pc))
                        .is_some_and(|list| list.iter().all(|&c| keeps[c]))
            };
            let fresh = fresh_locals(body, &calls_keeping);
            let is_fresh = |operand: &Operand| match operand {
                Operand::Const(Const::Null) => true,
                Operand::Var(var) => fresh.contains(var),
                Operand::Const(_) => false,
            };
            let stores_fresh = body.statements().all(|(_, stmt)| {
                let stored_fresh = branches.stored(body, stmt).is_none_or(is_fresh);
                let is_call = matches!(stmt.kind, StmtKind::Invoke { .. });
                let calls_fresh = (is_call && calls_keeping(stmt.pc))
                    || !branches.called_writes(&|field| call_writes(method, stmt, field));
                stored_fresh && calls_fresh
            });
            let returns_fresh = body.blocks.iter().all(|block| match &block.terminator {
                Terminator::Return(Some(value)) => is_fresh(value),
                _ => true,
            });
            if !(stores_fresh && returns_fresh) {
                keeps[method] = false;
                changed = true;
            }
        }
        if !changed {
            return keeps;
        }
    }
}

/// The locals of `body` that only ever hold null or an object created during the method's
/// activation: a `new`, a copy of such a local, or the result of a call whose targets keep
/// trees fresh (`calls_keeping`, by offset). Parameters and `this` never do.
fn fresh_locals(body: &ir::Body, calls_keeping: &dyn Fn(u32) -> bool) -> BTreeSet<ir::VarId> {
    let mut fresh: BTreeSet<ir::VarId> = (0..body.vars.len())
        .map(|index| ir::VarId(index as u32))
        .filter(|&var| {
            !matches!(
                body.var(var).origin,
                ir::VarOrigin::Param(_) | ir::VarOrigin::This
            ) && body.assigns(var)
        })
        .collect();
    loop {
        let before = fresh.len();
        let keeps = |value: &Expr, fresh: &BTreeSet<ir::VarId>| match value {
            Expr::New(_) | Expr::NewArray { .. } | Expr::Use(Operand::Const(Const::Null)) => true,
            Expr::Use(Operand::Var(source)) | Expr::CheckCast(Operand::Var(source), _) => {
                fresh.contains(source)
            }
            _ => false,
        };
        let broken: Vec<ir::VarId> = body
            .statements()
            .filter_map(|(_, stmt)| match &stmt.kind {
                StmtKind::Assign { dst, value } => (!keeps(value, &fresh)).then_some(*dst),
                StmtKind::Invoke { dst: Some(dst), .. } => {
                    (!calls_keeping(stmt.pc)).then_some(*dst)
                }
                _ => None,
            })
            .collect();
        for var in broken {
            fresh.remove(&var);
        }
        if fresh.len() == before {
            return fresh;
        }
    }
}

/// The offset of the one call whose result `var` holds whenever it holds anything: its only
/// assignment, directly or through copies.
fn source_call(body: &ir::Body, var: ir::VarId) -> Option<u32> {
    let mut var = var;
    for _ in 0..body.vars.len() {
        let mut assignments = body
            .statements()
            .filter(|(_, stmt)| stmt.assigns(var))
            .map(|(_, stmt)| stmt);
        let (Some(only), None) = (assignments.next(), assignments.next()) else {
            return None;
        };
        match &only.kind {
            StmtKind::Invoke { dst: Some(dst), .. } if *dst == var => return Some(only.pc),
            StmtKind::Assign {
                value: Expr::Use(Operand::Var(source)) | Expr::CheckCast(Operand::Var(source), _),
                ..
            } => var = *source,
            _ => return None,
        }
    }
    None
}

/// Whether a statement that may run after the one at `from` and before the one at `to`
/// (neither of them) may write (`writes`): one in a block reachable from `from`'s, after it
/// when in the same block, from whose block `to`'s is reachable, before it when in the same.
fn writes_between(body: &ir::Body, from: u32, to: u32, writes: &dyn Fn(&ir::Stmt) -> bool) -> bool {
    let position = |pc: u32| {
        body.blocks.iter().enumerate().find_map(|(block, b)| {
            let index = b.stmts.iter().position(|s| s.pc == pc)?;
            Some((block, index))
        })
    };
    let (Some((from_block, from_index)), Some((to_block, to_index))) =
        (position(from), position(to))
    else {
        return true;
    };
    let successors = block_successors(body);
    let after_from = reachable(&successors, from_block);
    let before_to: Vec<bool> = (0..body.blocks.len())
        .map(|block| reachable(&successors, block)[to_block])
        .collect();
    // Around a loop the two blocks reach each other: every statement of theirs may run between.
    let looping = after_from[from_block];
    body.blocks.iter().enumerate().any(|(block, b)| {
        b.stmts.iter().enumerate().any(|(index, stmt)| {
            let after = looping
                || block != from_block && after_from[block]
                || block == from_block && index > from_index;
            let before = looping
                || block != to_block && before_to[block]
                || block == to_block && index < to_index;
            after && before && stmt.pc != from && stmt.pc != to && writes(stmt)
        })
    })
}

/// Per block, whether it runs after `start` (through normal and exception edges; `successors`
/// from [`block_successors`]): `start` itself only when a path comes back to it.
fn reachable(successors: &[Vec<usize>], start: usize) -> Vec<bool> {
    let mut seen = vec![false; successors.len()];
    let mut pending = successors[start].clone();
    while let Some(block) = pending.pop() {
        if !seen[block] {
            seen[block] = true;
            pending.extend(&successors[block]);
        }
    }
    seen
}

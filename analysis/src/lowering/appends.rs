//! Lists built by appending at the tail: `x = new Node(); if (last != null) last.next = x;
//! last = x;` in a loop, the first node kept somewhere (`first = x` on the null branch).
//!
//! Such a store writes the walked field of a node that is not new, so it is no
//! [`super::chains::Link`]; but it only ever appends: a forward analysis over the body proves,
//! at each store of the field, that the nodes the method created (of the field's class, one
//! `new` after the other) form one list, that the stored value is the node created last and
//! not yet linked, and that the stored-into object is the list's tail, whose field is still
//! null. Then the store makes the chain of every node of the list one node longer, and that
//! of the node stored stays 1; a node the method did not create is on no chain through the
//! list's nodes (nothing but these stores writes the field while the method runs, and every
//! such store links two of its own nodes), so its chain does not change.
//!
//! The analysis keeps, per phase of the list (empty; every node linked, the last one the tail;
//! a new node not yet linked after the tail), what each reference local may hold: null, the
//! last node created, the tail before it, or an older node of the list; a local holding
//! anything else (a parameter, a field read, a call's result) is not tracked. A `new` of
//! another node while the last one is not linked, a second store into the same tail, a store
//! of the field elsewhere, a call that may write the field, or an exception handler lose the
//! list's shape, and a store after that is no append: it breaks the walks along its field as
//! any other store does.

use std::collections::{BTreeMap, BTreeSet};

use membound_front::ir::{self, CmpOp, Const, Expr, Operand, Place, StmtKind, Terminator};
use membound_jvm::{FieldRef, Type};

/// What a reference local may hold, relative to the list's nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Null,
    /// The node created last.
    Latest,
    /// The list's tail while the node created last is not linked yet.
    Tail,
    /// A node of the list before its tail.
    Old,
}

/// Where the list stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    /// No node created yet.
    Empty,
    /// Every node created is on the list; the last one is its tail.
    Settled,
    /// The node created last is not linked yet; the list ends at the one before.
    Pending,
}

/// Per local, what it may hold; a local missing may hold anything.
type Kinds = BTreeMap<ir::VarId, BTreeSet<Kind>>;

/// Per phase, the locals' kinds; `None` where the list's shape is lost.
type State = Option<BTreeMap<Phase, Kinds>>;

/// What a proven append does to the chain of the node a local holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppendEffect {
    /// Null or the node appended: its chain is what it was.
    Keep,
    /// Null or a node of the list: a chain of at least one node gets one more.
    Extend,
    /// Unknown: the local's chain is forgotten.
    Forget,
}

/// A store of `field` that appends a new node at the tail of the method's list.
#[derive(Clone, Debug)]
pub struct Append {
    pub pc: u32,
    pub field: FieldRef,
    /// The local holding the list's tail, whose field the store sets.
    pub tail: ir::VarId,
    /// The local holding the new node appended.
    pub node: ir::VarId,
    /// What the locals the analysis tracks may hold at the store.
    kinds: Kinds,
}

impl Append {
    /// What the store does to the chain of the node `var` holds.
    pub fn effect(&self, var: ir::VarId) -> AppendEffect {
        let Some(kinds) = self.kinds.get(&var) else {
            return AppendEffect::Forget;
        };
        let on_list = kinds.contains(&Kind::Tail) || kinds.contains(&Kind::Old);
        match (on_list, kinds.contains(&Kind::Latest)) {
            (false, _) => AppendEffect::Keep,
            (true, false) => AppendEffect::Extend,
            (true, true) => AppendEffect::Forget,
        }
    }
}

/// What a store puts in place, when it is a node of a list the method builds by appends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoredNode {
    /// The node created last.
    Latest,
    /// Null or a node of the list created before the last one.
    Earlier,
}

/// A method's appends at its lists' tails, and what its other stores of a local put in place.
#[derive(Clone, Debug, Default)]
pub struct Lists {
    /// The stores proven to append, by offset.
    pub appends: Vec<Append>,
    /// By the field appended along and the offset, the stores of a local that hold a node of
    /// that list (in every phase the list may be in there).
    pub stored: BTreeMap<(FieldRef, u32), StoredNode>,
}

/// The stores of `body` proven to append at a list's tail, and what its other stores put.
/// `call_writes` says whether a call may write a field (of any object).
pub fn tail_appends(body: &ir::Body, call_writes: &dyn Fn(&ir::Stmt, &FieldRef) -> bool) -> Lists {
    let mut lists = Lists::default();
    for field in appended_fields(body) {
        let entries = entry_states(body, &field, call_writes);
        let mut stored = BTreeMap::new();
        let mut appends = Vec::new();
        for (index, block) in body.blocks.iter().enumerate() {
            let mut state = entries[index].clone();
            for stmt in &block.stmts {
                if let Some(kinds) = appended_at(&state, stmt, &field)
                    && let Some((Operand::Var(tail), Operand::Var(node))) =
                        stored_field(stmt, &field)
                {
                    appends.push(Append {
                        pc: stmt.pc,
                        field: field.clone(),
                        tail: *tail,
                        node: *node,
                        kinds,
                    });
                }
                if let Some(node) = stored_node(&state, stmt) {
                    stored.insert((field.clone(), stmt.pc), node);
                }
                state = transfer(state, stmt, &field, call_writes);
            }
        }
        if !appends.is_empty() {
            lists.appends.extend(appends);
            lists.stored.extend(stored);
        }
    }
    lists.appends.sort_by_key(|append| append.pc);
    lists
}

/// What a store of a local puts in place, when every phase agrees it is a node of the list.
fn stored_node(state: &State, stmt: &ir::Stmt) -> Option<StoredNode> {
    let StmtKind::Store {
        value: Operand::Var(value),
        ..
    } = &stmt.kind
    else {
        return None;
    };
    let phases = state.as_ref().filter(|phases| !phases.is_empty())?;
    let mut held = BTreeSet::new();
    for kinds in phases.values() {
        held.extend(kinds.get(value)?);
    }
    if held == BTreeSet::from([Kind::Latest]) {
        Some(StoredNode::Latest)
    } else if held.iter().all(|kind| *kind != Kind::Latest) {
        Some(StoredNode::Earlier)
    } else {
        None
    }
}

/// The fields of a node's own class (`Node.next`) the body stores a local into, on an object a
/// local holds: the fields an append may link along.
fn appended_fields(body: &ir::Body) -> BTreeSet<FieldRef> {
    body.statements()
        .filter_map(|(_, stmt)| match &stmt.kind {
            StmtKind::Store {
                place:
                    Place::Field {
                        object: Operand::Var(_),
                        field,
                    },
                value: Operand::Var(_),
            } if field.ty == Type::Ref(field.class.clone()) => Some(field.clone()),
            _ => None,
        })
        .collect()
}

/// Whether the body stores into a field an append may link along (cheap, before the analysis).
pub fn has_appended_fields(body: &ir::Body) -> bool {
    !appended_fields(body).is_empty()
}

/// The states at each block's entry at the fixpoint (`Some(empty map)` for a block no path
/// reaches): the body's entry starts with an empty list, a handler with the shape lost.
fn entry_states(
    body: &ir::Body,
    field: &FieldRef,
    call_writes: &dyn Fn(&ir::Stmt, &FieldRef) -> bool,
) -> Vec<State> {
    let unreached: State = Some(BTreeMap::new());
    let mut entries: Vec<State> = vec![unreached; body.blocks.len()];
    for block in &body.blocks {
        for handler in &block.handlers {
            entries[handler.target.0 as usize] = None;
        }
    }
    if let Some(Some(first)) = entries.first_mut() {
        first.insert(Phase::Empty, Kinds::new());
    }
    let mut changed = true;
    while changed {
        changed = false;
        for (index, block) in body.blocks.iter().enumerate() {
            let reached = entries[index]
                .as_ref()
                .is_none_or(|phases| !phases.is_empty());
            if !reached {
                continue;
            }
            let out = block
                .stmts
                .iter()
                .fold(entries[index].clone(), |state, stmt| {
                    transfer(state, stmt, field, call_writes)
                });
            for (successor, state) in exits(out, &block.terminator) {
                let joined = join(&entries[successor], &state);
                if joined != entries[successor] {
                    entries[successor] = joined;
                    changed = true;
                }
            }
        }
    }
    entries
}

/// Both states' possibilities: per phase, a local's kinds in either (untracked where either
/// does not track it).
fn join(left: &State, right: &State) -> State {
    let (Some(left), Some(right)) = (left, right) else {
        return None;
    };
    let mut joined = left.clone();
    for (phase, kinds) in right {
        let merged = match left.get(phase) {
            None => kinds.clone(),
            Some(known) => known
                .iter()
                .filter_map(|(var, mine)| {
                    let theirs = kinds.get(var)?;
                    Some((*var, mine.union(theirs).copied().collect()))
                })
                .collect(),
        };
        joined.insert(*phase, merged);
    }
    Some(joined)
}

/// At a store of `field`, the kinds of the tracked locals, when it is an append in every
/// phase the analysis says the list may be in: the list has a new node not linked yet, the
/// stored value is it and the object stored into is the tail.
fn appended_at(state: &State, stmt: &ir::Stmt, field: &FieldRef) -> Option<Kinds> {
    let (object, value) = stored_field(stmt, field)?;
    let phases = state.as_ref()?;
    let appends = |kinds: &Kinds| {
        let holds = |var: &Operand, kind: Kind| match var {
            Operand::Var(var) => kinds.get(var) == Some(&BTreeSet::from([kind])),
            Operand::Const(_) => false,
        };
        holds(object, Kind::Tail) && holds(value, Kind::Latest)
    };
    let proven = !phases.is_empty()
        && phases
            .iter()
            .all(|(phase, kinds)| *phase == Phase::Pending && appends(kinds));
    if !proven {
        return None;
    }
    let mut union = Kinds::new();
    let tracked_in_all = |var: &ir::VarId| phases.values().all(|kinds| kinds.contains_key(var));
    for kinds in phases.values() {
        for (var, mine) in kinds.iter().filter(|(var, _)| tracked_in_all(var)) {
            union.entry(*var).or_default().extend(mine);
        }
    }
    Some(union)
}

/// The object and value of a store of a field like `field` (same name and type).
fn stored_field<'s>(stmt: &'s ir::Stmt, field: &FieldRef) -> Option<(&'s Operand, &'s Operand)> {
    match &stmt.kind {
        StmtKind::Store {
            place:
                Place::Field {
                    object,
                    field: written,
                },
            value,
        } if written.name == field.name && written.ty == field.ty => Some((object, value)),
        _ => None,
    }
}

/// The state after `stmt`.
fn transfer(
    state: State,
    stmt: &ir::Stmt,
    field: &FieldRef,
    call_writes: &dyn Fn(&ir::Stmt, &FieldRef) -> bool,
) -> State {
    if stored_field(stmt, field).is_some() {
        appended_at(&state, stmt, field)?;
        return each_phase(state?, |_, kinds| {
            let linked = kinds
                .into_iter()
                .map(|(var, held)| (var, held.into_iter().map(tail_to_old).collect()))
                .collect();
            Some((Phase::Settled, linked))
        });
    }
    match &stmt.kind {
        StmtKind::Assign { dst, value } => {
            let created = matches!(value, Expr::New(class) if *class == field.class);
            if created {
                return each_phase(state?, |phase, kinds| created_node(phase, kinds, *dst));
            }
            each_phase(state?, |phase, mut kinds| {
                match assigned_kinds(value, &kinds) {
                    Some(held) => kinds.insert(*dst, held),
                    None => kinds.remove(dst),
                };
                Some((phase, kinds))
            })
        }
        StmtKind::Invoke { dst, .. } => {
            if call_writes(stmt, field) {
                return None;
            }
            each_phase(state?, |phase, mut kinds| {
                if let Some(dst) = dst {
                    kinds.remove(dst);
                }
                Some((phase, kinds))
            })
        }
        StmtKind::Store { .. } | StmtKind::Monitor { .. } => state,
    }
}

/// Applies `step` to every phase, joining what lands in the same phase; `None` from any
/// loses the shape.
fn each_phase(
    phases: BTreeMap<Phase, Kinds>,
    step: impl Fn(Phase, Kinds) -> Option<(Phase, Kinds)>,
) -> State {
    let mut out: State = Some(BTreeMap::new());
    for (phase, kinds) in phases {
        let next = step(phase, kinds).map(|(phase, kinds)| BTreeMap::from([(phase, kinds)]));
        out = join(&out, &next);
    }
    out
}

/// A new node in `dst`: the first makes a one-node list, a later one waits to be linked
/// after the tail; one created while the last is not linked loses the shape.
fn created_node(phase: Phase, kinds: Kinds, dst: ir::VarId) -> Option<(Phase, Kinds)> {
    let next = match phase {
        Phase::Empty => Phase::Settled,
        Phase::Settled => Phase::Pending,
        Phase::Pending => return None,
    };
    let mut kinds: Kinds = kinds
        .into_iter()
        .map(|(var, held)| (var, held.into_iter().map(latest_to_tail).collect()))
        .collect();
    kinds.insert(dst, BTreeSet::from([Kind::Latest]));
    Some((next, kinds))
}

fn tail_to_old(kind: Kind) -> Kind {
    match kind {
        Kind::Tail => Kind::Old,
        other => other,
    }
}

fn latest_to_tail(kind: Kind) -> Kind {
    match kind {
        Kind::Latest => Kind::Tail,
        other => other,
    }
}

/// What a local assigned `value` may hold: a copy's kinds, null; None for anything else.
fn assigned_kinds(value: &Expr, kinds: &Kinds) -> Option<BTreeSet<Kind>> {
    match value {
        Expr::Use(Operand::Var(source)) | Expr::CheckCast(Operand::Var(source), _) => {
            kinds.get(source).cloned()
        }
        Expr::Use(Operand::Const(Const::Null)) => Some(BTreeSet::from([Kind::Null])),
        _ => None,
    }
}

/// The states on each edge out of a block: a test of a tracked local against null keeps, on
/// each side, the phases where it may hold what that side says.
fn exits(state: State, terminator: &Terminator) -> Vec<(usize, State)> {
    let tested = match terminator {
        Terminator::If {
            op: op @ (CmpOp::Eq | CmpOp::Ne),
            lhs: Operand::Var(var),
            rhs: Operand::Const(Const::Null),
            then_target,
            else_target,
        } if then_target != else_target => {
            let null_side = if *op == CmpOp::Eq {
                then_target
            } else {
                else_target
            };
            Some((*var, *null_side))
        }
        _ => None,
    };
    terminator
        .successors()
        .into_iter()
        .map(|successor| {
            let state = match (&state, tested) {
                (Some(phases), Some((var, null_side))) => {
                    Some(null_tested(phases, var, successor == null_side))
                }
                _ => state.clone(),
            };
            (successor.0 as usize, state)
        })
        .collect()
}

/// The phases where `var` may be null (or not), with its kinds narrowed to that side.
fn null_tested(
    phases: &BTreeMap<Phase, Kinds>,
    var: ir::VarId,
    null: bool,
) -> BTreeMap<Phase, Kinds> {
    let mut kept = BTreeMap::new();
    for (phase, kinds) in phases {
        let mut kinds = kinds.clone();
        if let Some(held) = kinds.get_mut(&var) {
            held.retain(|kind| (*kind == Kind::Null) == null);
            if held.is_empty() {
                continue;
            }
        }
        kept.insert(*phase, kinds);
    }
    kept
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use membound_jvm::ClassName;

    fn next() -> FieldRef {
        let node = ClassName::new("Node");
        FieldRef {
            class: node.clone(),
            name: Arc::from("next"),
            ty: Type::Ref(node),
        }
    }

    fn kinds(held: &[(u32, &[Kind])]) -> Kinds {
        held.iter()
            .map(|(var, kinds)| (ir::VarId(*var), kinds.iter().copied().collect()))
            .collect()
    }

    fn append(held: &[(u32, &[Kind])]) -> Append {
        Append {
            pc: 0,
            field: next(),
            tail: ir::VarId(0),
            node: ir::VarId(1),
            kinds: kinds(held),
        }
    }

    #[test]
    fn an_append_lengthens_the_lists_nodes_keeps_null_and_the_new_node_and_forgets_the_rest() {
        let append = append(&[
            (0, &[Kind::Tail]),
            (1, &[Kind::Latest]),
            (2, &[Kind::Null, Kind::Old]),
            (3, &[Kind::Null]),
            (4, &[Kind::Old, Kind::Latest]),
        ]);
        let effects: Vec<AppendEffect> = (0..6).map(|v| append.effect(ir::VarId(v))).collect();
        assert_eq!(
            effects,
            vec![
                AppendEffect::Extend,
                AppendEffect::Keep,
                AppendEffect::Extend,
                AppendEffect::Keep,
                // Either the node appended (the same) or an older one (one more): unknown.
                AppendEffect::Forget,
                // Not tracked: a parameter, a field read, a call's result.
                AppendEffect::Forget,
            ]
        );
    }

    #[test]
    fn a_new_node_before_the_last_one_is_linked_loses_the_lists_shape() {
        let settled = kinds(&[(0, &[Kind::Latest]), (1, &[Kind::Null, Kind::Old])]);
        let (phase, pending) = created_node(Phase::Settled, settled, ir::VarId(2)).expect("next");
        assert_eq!(phase, Phase::Pending);
        let expected = kinds(&[
            (0, &[Kind::Tail]),
            (1, &[Kind::Null, Kind::Old]),
            (2, &[Kind::Latest]),
        ]);
        assert_eq!(pending, expected);
        assert!(created_node(Phase::Pending, pending, ir::VarId(3)).is_none());
    }

    #[test]
    fn joins_keep_phases_apart_and_forget_a_local_either_side_does_not_track() {
        let left: State = Some(BTreeMap::from([(
            Phase::Settled,
            kinds(&[(0, &[Kind::Latest]), (1, &[Kind::Null])]),
        )]));
        let right: State = Some(BTreeMap::from([
            (Phase::Settled, kinds(&[(0, &[Kind::Old])])),
            (Phase::Empty, kinds(&[(0, &[Kind::Null])])),
        ]));
        let joined = join(&left, &right).expect("both known");
        assert_eq!(
            joined[&Phase::Settled],
            kinds(&[(0, &[Kind::Latest, Kind::Old])])
        );
        assert_eq!(joined[&Phase::Empty], kinds(&[(0, &[Kind::Null])]));
        assert_eq!(join(&left, &None), None);
    }

    #[test]
    fn a_null_test_keeps_the_phases_where_the_local_may_be_what_its_side_says() {
        let phases = BTreeMap::from([
            (Phase::Settled, kinds(&[(0, &[Kind::Null])])),
            (Phase::Pending, kinds(&[(0, &[Kind::Tail])])),
        ]);
        let null = null_tested(&phases, ir::VarId(0), true);
        assert_eq!(
            null.keys().copied().collect::<Vec<_>>(),
            vec![Phase::Settled]
        );
        let not_null = null_tested(&phases, ir::VarId(0), false);
        assert_eq!(
            not_null.keys().copied().collect::<Vec<_>>(),
            vec![Phase::Pending]
        );
    }
}

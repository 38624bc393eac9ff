//! The classes a method's own objects decide: where every value that reaches a call's receiver
//! is a `new C` the method made (copied or cast along the way, or null), the call selects its
//! targets from those classes, whatever else the program instantiates. Reaching definitions
//! over the body's blocks and exception edges: the lifter reuses a stack variable for values of
//! one type, so one assignment of a call's result elsewhere must not spoil every use of it.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap as HashMap;

use crate::ir::{Body, Const, Expr, Operand, StmtKind, VarId};
use membound_jvm::ClassName;

/// What a variable may hold at a point.
#[derive(Clone, Debug, PartialEq)]
enum Held {
    /// Only objects the method made, of these classes (none: only null so far).
    Own(BTreeSet<ClassName>),
    /// Possibly an object made out of sight: a parameter, a call's result, a load.
    Unseen,
}

impl Held {
    /// Joins `other` in; whether anything changed.
    fn join(&mut self, other: &Held) -> bool {
        match (&mut *self, other) {
            (Held::Unseen, _) => false,
            (_, Held::Unseen) => {
                *self = Held::Unseen;
                true
            }
            (Held::Own(mine), Held::Own(theirs)) => {
                let before = mine.len();
                mine.extend(theirs.iter().cloned());
                mine.len() != before
            }
        }
    }
}

/// The variables' contents at a point; a variable not in it holds nothing yet.
type State = HashMap<VarId, Held>;

/// Joins `from` into `into`; whether anything changed.
fn join_state(into: &mut State, from: &State) -> bool {
    let mut changed = false;
    for (var, held) in from {
        match into.get_mut(var) {
            Some(mine) => changed |= mine.join(held),
            None => {
                into.insert(*var, held.clone());
                changed = true;
            }
        }
    }
    changed
}

/// For each call (by offset) whose receiver holds only the method's own objects there, their
/// classes.
pub(super) fn created_receivers(body: &Body) -> HashMap<u32, BTreeSet<ClassName>> {
    let entries = block_entries(body);
    let mut receivers = HashMap::default();
    for (block, entry) in body.blocks.iter().zip(entries) {
        let Some(mut state) = entry else {
            continue; // not reached
        };
        for stmt in &block.stmts {
            if let StmtKind::Invoke { call, .. } = &stmt.kind
                && let Some(Operand::Var(receiver)) = &call.receiver
                && let Some(Held::Own(classes)) = state.get(receiver)
                && !classes.is_empty()
            {
                receivers.insert(stmt.pc, classes.clone());
            }
            step(&mut state, &stmt.kind);
        }
    }
    receivers
}

/// The state at each block's entry (`None` for a block never reached), to the fixpoint.
fn block_entries(body: &Body) -> Vec<Option<State>> {
    let mut entries: Vec<Option<State>> = vec![None; body.blocks.len()];
    if body.blocks.is_empty() {
        return entries;
    }
    entries[0] = Some(body.params.iter().map(|&p| (p, Held::Unseen)).collect());
    let mut pending = vec![0usize];
    while let Some(index) = pending.pop() {
        let Some(mut state) = entries[index].clone() else {
            continue;
        };
        let block = &body.blocks[index];
        // An exception may leave the block before or after any of its statements.
        let mut seen_by_handlers = state.clone();
        for stmt in &block.stmts {
            step(&mut state, &stmt.kind);
            join_state(&mut seen_by_handlers, &state);
        }
        let handlers = block.handlers.iter().map(|h| (h.target, &seen_by_handlers));
        let successors = block.terminator.successors().into_iter();
        for (target, from) in handlers.chain(successors.map(|s| (s, &state))) {
            let target = target.0 as usize;
            let changed = match &mut entries[target] {
                Some(entry) => join_state(entry, from),
                slot @ None => {
                    *slot = Some(from.clone());
                    true
                }
            };
            if changed {
                pending.push(target);
            }
        }
    }
    entries
}

/// The effect of one statement on what the variables hold.
fn step(state: &mut State, stmt: &StmtKind) {
    let (dst, held) = match stmt {
        StmtKind::Assign { dst, value } => (*dst, held_by(state, value)),
        StmtKind::Invoke { dst: Some(dst), .. } => (*dst, Held::Unseen),
        _ => return,
    };
    state.insert(dst, held);
}

fn held_by(state: &State, value: &Expr) -> Held {
    match value {
        Expr::New(class) => Held::Own(BTreeSet::from([class.clone()])),
        Expr::Use(Operand::Var(other)) | Expr::CheckCast(Operand::Var(other), _) => state
            .get(other)
            .cloned()
            .unwrap_or(Held::Own(BTreeSet::new())),
        Expr::Use(Operand::Const(Const::Null))
        | Expr::CheckCast(Operand::Const(Const::Null), _) => Held::Own(BTreeSet::new()),
        _ => Held::Unseen,
    }
}

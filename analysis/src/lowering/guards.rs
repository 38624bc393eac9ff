//! Guard facts across calls: after `e.hasNext()` returned true, `e`'s field that `hasNext()`
//! tests holds a node, and it still does at a later call on `e` when nothing between them may
//! have written that field (`for (e = list.elements(); e.hasMoreElements();) { p =
//! e.nextElement(); … }`). The later call's callee then has a chain of at least one node from
//! that field of its `this`, so its `NoSuchElementException` path is infeasible there, even
//! where the walk itself is not followed (the loop body removes nodes).
//!
//! A forward must-analysis over the body's blocks: a fact `(e, f)` is made on the branch where
//! the result of a `hasNext()` on `e` is non-zero, when every application method the call may
//! run returns non-zero only while `this.f` holds a node ([`super::cursors::CursorMethod`]; a
//! JDK class's method may run too, on a receiver of a JDK class, which has no field of the
//! application's); it dies where `e` is assigned, where `f` is stored, and at any call that may
//! write `f` (the receiver's own `next()` among them). Joins keep the facts every predecessor
//! has; an exception handler starts with none.

use std::collections::{BTreeMap, BTreeSet};

use membound_front::ir::{self, CmpOp, Const, Operand, Place, StmtKind, Terminator};
use membound_jvm::FieldRef;

/// A receiver local whose field is known to hold a node.
type Fact = (ir::VarId, FieldRef);

/// What the facts need to know of the method's calls.
pub struct GuardContext<'a> {
    /// The fields the call at this offset tests on its receiver, when it is a `hasNext()`: a
    /// non-zero result says the one of them its receiver has holds a node (several only when
    /// no object can have two of them).
    pub has_more: &'a dyn Fn(u32) -> Vec<FieldRef>,
    /// Whether the statement, a call, may write the field (of any object).
    pub call_writes: &'a dyn Fn(&ir::Stmt, &FieldRef) -> bool,
}

/// Per call offset, the fields of the call's receiver known to hold a node when it is entered.
pub fn guarded_calls(body: &ir::Body, context: &GuardContext<'_>) -> BTreeMap<u32, Vec<FieldRef>> {
    let entries = entry_facts(body, context);
    let mut guarded = BTreeMap::new();
    for (index, block) in body.blocks.iter().enumerate() {
        let Some(facts) = &entries[index] else {
            continue;
        };
        let mut state = BlockState::new(facts.clone());
        for stmt in &block.stmts {
            if let StmtKind::Invoke { call, .. } = &stmt.kind
                && let Some(Operand::Var(receiver)) = &call.receiver
            {
                let fields: Vec<FieldRef> = state
                    .facts
                    .iter()
                    .filter(|(var, _)| var == receiver)
                    .map(|(_, field)| field.clone())
                    .collect();
                if !fields.is_empty() {
                    guarded.insert(stmt.pc, fields);
                }
            }
            state.transfer(stmt, context);
        }
    }
    guarded
}

/// The facts at each block's entry (None for a block no path reaches), at the fixpoint.
fn entry_facts(body: &ir::Body, context: &GuardContext<'_>) -> Vec<Option<BTreeSet<Fact>>> {
    let mut entries: Vec<Option<BTreeSet<Fact>>> = vec![None; body.blocks.len()];
    let handlers: BTreeSet<usize> = body
        .blocks
        .iter()
        .flat_map(|b| b.handlers.iter().map(|h| h.target.0 as usize))
        .collect();
    for &handler in &handlers {
        entries[handler] = Some(BTreeSet::new());
    }
    if !body.blocks.is_empty() {
        entries[0] = Some(BTreeSet::new());
    }
    let mut changed = true;
    while changed {
        changed = false;
        for (index, block) in body.blocks.iter().enumerate() {
            let Some(facts) = entries[index].clone() else {
                continue;
            };
            let mut state = BlockState::new(facts);
            for stmt in &block.stmts {
                state.transfer(stmt, context);
            }
            for (successor, out) in state.exits(&block.terminator) {
                let joined = match &entries[successor] {
                    None => out,
                    Some(known) => known.intersection(&out).cloned().collect(),
                };
                if entries[successor].as_ref() != Some(&joined) {
                    entries[successor] = Some(joined);
                    changed = true;
                }
            }
        }
    }
    entries
}

/// The facts inside a block, and the locals holding a `hasNext()`'s result not yet tested.
struct BlockState {
    facts: BTreeSet<Fact>,
    /// A local holding the result of `hasNext()`: the facts its being non-zero makes.
    tests: BTreeMap<ir::VarId, BTreeSet<Fact>>,
}

impl BlockState {
    fn new(facts: BTreeSet<Fact>) -> BlockState {
        BlockState {
            facts,
            tests: BTreeMap::new(),
        }
    }

    fn transfer(&mut self, stmt: &ir::Stmt, context: &GuardContext<'_>) {
        match &stmt.kind {
            StmtKind::Assign { dst, .. } => self.assigned(*dst),
            StmtKind::Store {
                place: Place::Field { field, .. },
                ..
            } => self.written(|written| written.name == field.name),
            StmtKind::Invoke { dst, call } => {
                self.written(|field| (context.call_writes)(stmt, field));
                if let Some(dst) = dst {
                    self.assigned(*dst);
                }
                // Only a `boolean hasNext()` is asked about: the others are many.
                if let (Some(dst), Some(Operand::Var(receiver)), "()Z") =
                    (dst, &call.receiver, &*call.method.descriptor)
                {
                    let made: BTreeSet<Fact> = (context.has_more)(stmt.pc)
                        .into_iter()
                        .map(|field| (*receiver, field))
                        .collect();
                    if !made.is_empty() {
                        self.tests.insert(*dst, made);
                    }
                }
            }
            StmtKind::Store { .. } | StmtKind::Monitor { .. } => {}
        }
    }

    /// `var` takes a new value: what held for its old one no longer does.
    fn assigned(&mut self, var: ir::VarId) {
        self.facts.retain(|(receiver, _)| *receiver != var);
        self.tests.remove(&var);
        for made in self.tests.values_mut() {
            made.retain(|(receiver, _)| *receiver != var);
        }
    }

    /// Fields `writes` says may be written no longer hold what they did.
    fn written(&mut self, writes: impl Fn(&FieldRef) -> bool) {
        self.facts.retain(|(_, field)| !writes(field));
        for made in self.tests.values_mut() {
            made.retain(|(_, field)| !writes(field));
        }
    }

    /// The facts on each edge out of the block: the branch where a tested `hasNext()` result is
    /// non-zero has its fact.
    fn exits(&self, terminator: &Terminator) -> Vec<(usize, BTreeSet<Fact>)> {
        let tested_true = match terminator {
            Terminator::If {
                op,
                lhs: Operand::Var(result),
                rhs: Operand::Const(Const::Int(0)),
                then_target,
                else_target,
            } if then_target != else_target => {
                let target = match op {
                    CmpOp::Ne => Some(*then_target),
                    CmpOp::Eq => Some(*else_target),
                    _ => None,
                };
                target.zip(self.tests.get(result))
            }
            _ => None,
        };
        terminator
            .successors()
            .into_iter()
            .map(|successor| {
                let mut facts = self.facts.clone();
                if let Some((target, made)) = tested_true
                    && target == successor
                {
                    facts.extend(made.iter().cloned());
                }
                (successor.0 as usize, facts)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;

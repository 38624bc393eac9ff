//! Objects a method creates and keeps to itself: a local `c` set once, from `new C` (directly
//! or through the stack slot whose only other use is the constructor call), and used only to
//! read and write its fields (`for (c.j = 0; c.j < n; c.j++)`). No other variable, field,
//! array or call of the method holds `c`'s object (its constructor runs before `c` is set), so
//! its integer fields can be views like locals (see [`super::fields`]) when no other store of
//! the method and nothing it calls after the constructor writes them.

use std::collections::{BTreeMap, HashMap};

use membound_front::ir::{Body, CallKind, Expr, Operand, Place, StmtKind, VarId};

use super::exits::traced;

/// The holders of fresh objects, each with the offsets of its object's constructor calls.
pub fn fresh_holders(body: &Body) -> BTreeMap<VarId, Vec<u32>> {
    let definitions = definitions(body);
    let uses = uses(body);
    let field_uses = field_object_uses(body);
    let constructors = constructor_calls(body);
    let constructed = |slot: VarId| constructors.get(&slot).map_or(0, Vec::len);
    let count = |map: &HashMap<VarId, usize>, var: VarId| map.get(&var).copied().unwrap_or(0);
    let single = |var: VarId| match definitions.get(&var).map(Vec::as_slice) {
        Some([(pc, Some(value))]) => Some((*pc, *value)),
        _ => None,
    };
    let created = |var: VarId| single(var).is_some_and(|(_, value)| matches!(value, Expr::New(_)));
    let mut holders = BTreeMap::new();
    for &var in definitions.keys() {
        // The stack slot `new` filled, read by its constructor call and this copy only.
        let Some((_, Expr::Use(Operand::Var(slot)))) = single(var) else {
            continue;
        };
        let from_new = created(*slot) && count(&uses, *slot) == constructed(*slot) + 1;
        if from_new && count(&uses, var) == count(&field_uses, var) {
            let calls = constructors.get(slot).cloned().unwrap_or_default();
            holders.insert(var, calls);
        }
    }
    holders
}

/// Whether the call at `pc` runs a constructor on an object `new` made: an object no other
/// code has seen, whose fields all hold their default 0, since the verifier lets no
/// instruction but a constructor call use an object before it is initialized. Outside a
/// constructor every constructor call is one; inside, one whose receiver `new` made earlier
/// in its block (through the block's copies), since a constructor calling its superclass's
/// on `this` may have stored its own fields first.
pub fn constructs_new_object(body: &Body, pc: u32) -> bool {
    let in_constructor = &*body.method.name == "<init>";
    body.blocks.iter().enumerate().any(|(b, block)| {
        block.stmts.iter().enumerate().any(|(index, stmt)| {
            let StmtKind::Invoke { call, .. } = &stmt.kind else {
                return false;
            };
            let made_by_new = |(_, definition): (VarId, Option<usize>)| {
                definition.is_some_and(|d| {
                    matches!(
                        block.stmts[d].kind,
                        StmtKind::Assign {
                            value: Expr::New(_),
                            ..
                        }
                    )
                })
            };
            stmt.pc == pc
                && call.kind == CallKind::Special
                && &*call.method.name == "<init>"
                && (!in_constructor
                    || call
                        .receiver
                        .as_ref()
                        .and_then(|receiver| traced(body, b, index, receiver))
                        .is_some_and(made_by_new))
        })
    })
}

/// Every variable's definitions with their offsets and assigned values (`None`: a call's
/// result).
fn definitions(body: &Body) -> BTreeMap<VarId, Vec<(u32, Option<&Expr>)>> {
    let mut definitions: BTreeMap<VarId, Vec<(u32, Option<&Expr>)>> = BTreeMap::new();
    for (_, stmt) in body.statements() {
        let defined = match &stmt.kind {
            StmtKind::Assign { dst, value } => Some((*dst, Some(value))),
            StmtKind::Invoke { dst: Some(dst), .. } => Some((*dst, None)),
            _ => None,
        };
        if let Some((var, value)) = defined {
            definitions.entry(var).or_default().push((stmt.pc, value));
        }
    }
    definitions
}

/// How many times each variable is read, by statements and terminators.
fn uses(body: &Body) -> HashMap<VarId, usize> {
    let statements = body.statements().flat_map(|(_, stmt)| stmt.operands());
    let terminators = body
        .blocks
        .iter()
        .flat_map(|block| block.terminator.operands());
    tally(statements.chain(terminators))
}

/// How many times each variable is the object of a field read or write.
fn field_object_uses(body: &Body) -> HashMap<VarId, usize> {
    tally(body.statements().filter_map(|(_, stmt)| match &stmt.kind {
        StmtKind::Assign {
            value: Expr::Load(Place::Field { object, .. }),
            ..
        }
        | StmtKind::Store {
            place: Place::Field { object, .. },
            ..
        } => Some(object),
        _ => None,
    }))
}

/// The offsets of the constructor calls on each variable.
fn constructor_calls(body: &Body) -> HashMap<VarId, Vec<u32>> {
    let mut calls: HashMap<VarId, Vec<u32>> = HashMap::new();
    for (_, stmt) in body.statements() {
        if let StmtKind::Invoke { call, .. } = &stmt.kind
            && &*call.method.name == "<init>"
            && let Some(Operand::Var(receiver)) = &call.receiver
        {
            calls.entry(*receiver).or_default().push(stmt.pc);
        }
    }
    calls
}

fn tally<'o>(operands: impl Iterator<Item = &'o Operand>) -> HashMap<VarId, usize> {
    let mut counts = HashMap::new();
    for operand in operands {
        if let Operand::Var(var) = operand {
            *counts.entry(*var).or_insert(0) += 1;
        }
    }
    counts
}

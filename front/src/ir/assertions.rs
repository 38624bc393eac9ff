//! `assert` statements of the JDK's classes, which do not run: the JVM enables system
//! assertions only with `-esa`. javac compiles `assert c : m` to a test of the class's
//! `$assertionsDisabled` static field that skips the check; with the field read as true, the
//! check's blocks (its condition, the `AssertionError` and its message's `toString`) are dead.
//! Cutting them at lifting, where every stage reads bodies, keeps them out of the call graph
//! (`StringUTF16.putChar`'s assert would otherwise reach `AssertionError(Object)`,
//! `String.valueOf(Object)` and every `toString`, a recursion no run has), the sites and the
//! invariants alike.

use super::{Body, Const, Expr, Operand, Place, StmtKind, Terminator};

/// The assumption every certificate names for it.
pub const JDK_ASSERTIONS_DISABLED: &str =
    "assert statements of the JDK's classes do not run (the JVM runs without -esa, as by default)";

/// The field javac makes for a class's assertion status.
const ASSERTIONS_DISABLED: &str = "$assertionsDisabled";

/// `body` with every branch on `$assertionsDisabled` taken as the field being true, and the
/// blocks only the other side reached emptied (no statement, no handler, a `throw null`
/// nothing reaches).
pub fn without_assertions(mut body: Body) -> Body {
    let mut changed = false;
    for block in &mut body.blocks {
        let Terminator::If {
            op,
            lhs: Operand::Var(tested),
            rhs: Operand::Const(Const::Int(0)),
            then_target,
            else_target,
        } = &block.terminator
        else {
            continue;
        };
        let reads_status = block.stmts.iter().rev().find(|s| s.assigns(*tested)).is_some_and(|s| {
            matches!(&s.kind, StmtKind::Assign { value: Expr::Load(Place::Static(field)), .. } if &*field.name == ASSERTIONS_DISABLED)
        });
        let taken = match op {
            super::CmpOp::Ne => *then_target,
            super::CmpOp::Eq => *else_target,
            _ => continue,
        };
        if reads_status {
            block.terminator = Terminator::Goto(taken);
            changed = true;
        }
    }
    if changed {
        empty_unreachable(&mut body);
    }
    body
}

/// Empties the blocks the entry no longer reaches, by normal or exception edges.
fn empty_unreachable(body: &mut Body) {
    let count = body.blocks.len();
    let mut reached = vec![false; count];
    let mut work = vec![0_usize];
    while let Some(block) = work.pop() {
        if block >= count || std::mem::replace(&mut reached[block], true) {
            continue;
        }
        let next = &body.blocks[block];
        work.extend(next.terminator.successors().iter().map(|b| b.0 as usize));
        work.extend(next.handlers.iter().map(|h| h.target.0 as usize));
    }
    for (block, reached) in body.blocks.iter_mut().zip(reached) {
        if !reached {
            block.stmts.clear();
            block.handlers.clear();
            block.terminator = Terminator::Throw(Operand::Const(Const::Null));
        }
    }
}

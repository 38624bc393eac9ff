//! Arguments that are powers of two: `make(0, 0, 1 << levels)`. The polyhedra cannot hold
//! `2^levels`, so the lowering leaves such an argument unbound; the summaries substitute it
//! into the callee's bound instead (`crate::summary`), which needs the exponent as one of the
//! caller's formals: a parameter the method never reassigns, so its value at the call is its
//! value at entry.

use membound_front::ir::{BinOp, Body, Const, Expr, Operand, StmtKind};

use super::body::declared_param;
use super::exits::{argument_definition, traced};

/// The largest shift count for which `1 << x` on an `int` is `2^x`: the JVM takes the count
/// modulo 32, and `1 << 31` is negative.
pub const MAX_INT_SHIFT: i64 = 30;

/// The declared parameter (index among the declared parameters, the receiver aside) whose value
/// `x` the call at `pc` of `body` passes as argument `index` in the form `1 << x` on `int`s,
/// when `x` is a parameter `body` never assigns.
pub fn power_of_two_argument(body: &Body, pc: u32, index: usize) -> Option<usize> {
    let (block, definition, _) = argument_definition(body, pc, index)?;
    let StmtKind::Assign {
        value:
            Expr::Binary {
                op: BinOp::Shl,
                lhs: Operand::Const(Const::Int(1)),
                rhs: count,
            },
        ..
    } = &body.blocks[block].stmts[definition].kind
    else {
        return None;
    };
    let (count, None) = traced(body, block, definition, count)? else {
        return None;
    };
    if body.assigns(count) {
        return None;
    }
    (0..body.params.len()).find(|&index| declared_param(body, index) == Some(count))
}

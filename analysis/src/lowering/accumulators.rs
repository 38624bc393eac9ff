//! Accumulators: integer locals a loop only ever updates from their own value by something
//! other than a constant (`sum += a.length`, `total += i * i`, `product *= 2`) and reads
//! nowhere else — no guard, argument, store, dimension or other variable depends on them inside
//! the loop. Nothing the loop does depends on them, but their values grow faster than a
//! polyhedron can follow (a sum over the counters is quadratic), and tracking them only costs
//! the loop's own invariant precision. The lowering forgets them at the loop's head
//! ([`super::body`]): they are unknown inside and after the loop, and never make its count ∞.
//!
//! A variable updated by a constant step is a counter, not an accumulator; one a guard reads
//! bounds the loop and is kept.

use std::collections::{HashMap, HashSet};

use super::loops::Loops;
use membound_front::ir::{Body, Const, Expr, Operand, StmtKind, Terminator, VarId};

/// Per loop head, the integer locals that are accumulators of its loop.
pub fn accumulators(body: &Body, loops: &Loops) -> HashMap<usize, Vec<VarId>> {
    loops
        .heads
        .iter()
        .map(|&head| {
            let blocks: Vec<usize> = (0..body.blocks.len())
                .filter(|&b| loops.enclosing[b].contains(&head))
                .collect();
            (head, of_loop(body, &blocks))
        })
        .filter(|(_, vars)| !vars.is_empty())
        .collect()
}

/// The accumulators of the loop made of `blocks`.
fn of_loop(body: &Body, blocks: &[usize]) -> Vec<VarId> {
    let mut updated: HashSet<VarId> = HashSet::new();
    let mut disqualified: HashSet<VarId> = HashSet::new();
    let read_by = |operands: Vec<&Operand>, disqualified: &mut HashSet<VarId>| {
        disqualified.extend(operands.into_iter().filter_map(|o| match o {
            Operand::Var(v) => Some(*v),
            Operand::Const(_) => None,
        }));
    };
    for &block in blocks {
        let block = &body.blocks[block];
        for stmt in &block.stmts {
            match &stmt.kind {
                StmtKind::Assign { dst, value } => {
                    let mut operands = value.operands();
                    if is_self_update(*dst, value) {
                        updated.insert(*dst);
                        operands.retain(|o| **o != Operand::Var(*dst));
                    } else {
                        disqualified.insert(*dst);
                    }
                    read_by(operands, &mut disqualified);
                }
                StmtKind::Invoke { dst, call } => {
                    disqualified.extend(*dst);
                    read_by(
                        call.receiver.iter().chain(&call.args).collect(),
                        &mut disqualified,
                    );
                }
                StmtKind::Store { value, .. } => read_by(vec![value], &mut disqualified),
                StmtKind::Monitor { object, .. } => read_by(vec![object], &mut disqualified),
            }
        }
        match &block.terminator {
            Terminator::If { lhs, rhs, .. } => read_by(vec![lhs, rhs], &mut disqualified),
            Terminator::Switch { key, .. } => read_by(vec![key], &mut disqualified),
            Terminator::Return(Some(o)) | Terminator::Throw(o) => {
                read_by(vec![o], &mut disqualified)
            }
            Terminator::Goto(_) | Terminator::Return(None) => {}
        }
    }
    let mut found: Vec<VarId> = updated
        .into_iter()
        .filter(|v| !disqualified.contains(v) && body.var(*v).ty.is_integer())
        .collect();
    found.sort_unstable();
    found
}

/// Whether `dst = value` computes `dst` from its own value and something that is not a
/// constant step (`dst + 1` is a counter's step; `dst * 2` or `dst + x` accumulate).
fn is_self_update(dst: VarId, value: &Expr) -> bool {
    let Expr::Binary { op, lhs, rhs } = value else {
        return false;
    };
    let own = Operand::Var(dst);
    let other = if *lhs == own {
        rhs
    } else if *rhs == own {
        lhs
    } else {
        return false;
    };
    let constant = matches!(other, Operand::Const(Const::Int(_) | Const::Long(_)));
    let step = matches!(
        op,
        membound_front::ir::BinOp::Add | membound_front::ir::BinOp::Sub
    );
    !(constant && step)
}

//! Which IR variables are live at the start of each block, so the lowering can forget the
//! others: a forgotten (havocked) variable is never read again before it is written, so this
//! loses nothing, and it keeps the polyhedra small. Exception edges count as leaving from
//! anywhere in the block, so a handler's live variables are live at the block's start.
//! It knows nothing of the numeric program.

use std::collections::HashSet;

use membound_front::ir::{Body, Operand, VarId};

/// Per block, the variables live at its start and those it writes.
pub struct Liveness {
    pub live_in: Vec<HashSet<VarId>>,
    pub written: Vec<HashSet<VarId>>,
}

/// Per block, the variables that may be read before being written from its start on.
pub fn liveness(body: &Body, successors: &[Vec<usize>]) -> Liveness {
    let summaries: Vec<(HashSet<VarId>, HashSet<VarId>)> = (0..body.blocks.len())
        .map(|b| uses_and_defs(body, b))
        .collect();
    let mut live: Vec<HashSet<VarId>> = vec![HashSet::new(); body.blocks.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for block in (0..body.blocks.len()).rev() {
            let (uses, defs) = &summaries[block];
            let mut now: HashSet<VarId> = uses.clone();
            for &next in &successors[block] {
                let is_handler = body.blocks[block]
                    .handlers
                    .iter()
                    .any(|h| h.target.0 as usize == next);
                for var in &live[next] {
                    if is_handler || !defs.contains(var) {
                        now.insert(*var);
                    }
                }
            }
            if now.len() != live[block].len() {
                live[block] = now;
                changed = true;
            }
        }
    }
    Liveness {
        live_in: live,
        written: summaries.into_iter().map(|(_, defs)| defs).collect(),
    }
}

/// Variables read before any write in the block (upward-exposed uses), and those written.
fn uses_and_defs(body: &Body, block: usize) -> (HashSet<VarId>, HashSet<VarId>) {
    let mut uses = HashSet::new();
    let mut defs = HashSet::new();
    let mut read = |operand: &Operand, defs: &HashSet<VarId>| {
        if let Operand::Var(v) = operand
            && !defs.contains(v)
        {
            uses.insert(*v);
        }
    };
    for stmt in &body.blocks[block].stmts {
        for operand in stmt.operands() {
            read(operand, &defs);
        }
        defs.extend(stmt.defined());
    }
    for operand in body.blocks[block].terminator.operands() {
        read(operand, &defs);
    }
    (uses, defs)
}

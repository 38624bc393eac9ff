//! Which variables a procedure may still read after each node, so that joins can forget the
//! others. A dead variable's constraints change no later state, but at a loop head they decide
//! how a polyhedron is written: a bound such as `i <= 2*b` may be kept only as `i <= t` with a
//! temporary `t = 2*b`, and widening, which keeps the constraints the next iterate satisfies,
//! drops it as soon as the loop reuses `t`. Forgetting `t` before the join leaves `i <= 2*b`
//! the only way to write the bound.
//!
//! The exit and the observed nodes (the points whose invariants are asked for) read every
//! variable; an edge reads the variables of its expressions and guards, and an assignment,
//! havoc or call result writes its target.

use crate::program::{Action, Cond, Procedure, VarId};

/// Per node, the variables (by index) no path from it reads before writing them; empty at the nodes in
/// `observed` and at the exit.
pub fn dead_variables(procedure: &Procedure, observed: &[usize]) -> Vec<Vec<usize>> {
    let dim = procedure.vars.len();
    let mut live = vec![vec![false; dim]; procedure.node_count];
    for &node in observed.iter().chain([&procedure.exit.0]) {
        live[node].fill(true);
    }
    let mut changed = true;
    while changed {
        changed = false;
        for edge in procedure.edges.iter().rev() {
            let (reads, writes) = reads_and_writes(&edge.action);
            let after = live[edge.to.0].clone();
            for (var, flag) in live[edge.from.0].iter_mut().enumerate() {
                let var = VarId(var);
                let needed = reads.contains(&var) || (after[var.0] && !writes.contains(&var));
                if needed && !*flag {
                    *flag = true;
                    changed = true;
                }
            }
        }
    }
    live.into_iter()
        .map(|flags| {
            let dead = flags.iter().enumerate().filter(|(_, live)| !**live);
            dead.map(|(var, _)| var).collect()
        })
        .collect()
}

/// The variables an action reads and those it writes (a call's results).
fn reads_and_writes(action: &Action) -> (Vec<VarId>, Vec<VarId>) {
    match action {
        Action::Skip => (Vec::new(), Vec::new()),
        Action::Assign { var, expr } => (expr.vars().collect(), vec![*var]),
        Action::Havoc(var) => (Vec::new(), vec![*var]),
        Action::Assume(cond) => (cond_vars(cond), Vec::new()),
        Action::Call { args, results, .. } => (
            args.iter().flat_map(|a| a.vars()).collect(),
            results.clone(),
        ),
    }
}

fn cond_vars(cond: &Cond) -> Vec<VarId> {
    cond.exprs().into_iter().flat_map(|e| e.vars()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{Edge, Expr, NodeId, VarKind, Variable};

    fn procedure(vars: &[&str], edges: Vec<(usize, usize, Action)>) -> Procedure {
        let mut procedure = Procedure::with_entry_and_exit("p");
        procedure.vars = vars
            .iter()
            .map(|name| Variable {
                name: name.to_string(),
                kind: VarKind::Local,
            })
            .collect();
        procedure.node_count = edges
            .iter()
            .map(|(f, t, _)| f.max(t) + 1)
            .max()
            .unwrap_or(2);
        procedure.edges = edges
            .into_iter()
            .map(|(from, to, action)| Edge {
                from: NodeId(from),
                to: NodeId(to),
                action,
            })
            .collect();
        procedure
    }

    #[test]
    fn a_temporary_havocked_before_its_next_read_is_dead_but_observed_nodes_keep_it() {
        // 0 -> 2: t := 2*b; 2 -> 3: assume t - i >= 0; 3 -> 4: havoc t; 4 -> 1: skip.
        let (i, b, t) = (VarId(0), VarId(1), VarId(2));
        let p = procedure(
            &["i", "b", "t"],
            vec![
                (
                    0,
                    2,
                    Action::Assign {
                        var: t,
                        expr: Expr::var(b) * 2,
                    },
                ),
                (2, 3, Action::Assume(Cond::Ge(Expr::var(t) - Expr::var(i)))),
                (3, 4, Action::Havoc(t)),
                (4, 1, Action::Skip),
            ],
        );
        let dead = dead_variables(&p, &[]);
        assert_eq!(dead[0], vec![t.0], "t is written before it is read");
        assert!(dead[2].is_empty(), "the guard reads t, i and b stay live");
        assert_eq!(dead[3], vec![t.0]);
        let observed = dead_variables(&p, &[3]);
        assert!(observed[3].is_empty() && observed[2].is_empty());
    }
}

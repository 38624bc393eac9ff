//! Call summaries: what a callee's exit says about the variables it returns, in terms of the
//! values its formals had at entry, and the effect of a call that uses it.
//!
//! A procedure is analysed once, from an entry where each formal equals its snapshot, so the
//! invariant at its exit, kept on the snapshots and the returned variables, is a relation that
//! holds for every caller: `len = len_init + 1` for a method that increments a field it
//! returns. A call binds the snapshots to its arguments, conjoins the relation and gives each
//! result the returned value; the caller learns how its results depend on what it passed.
//!
//! Only the exit of a normal completion matters to the caller's next statement: a program
//! form's exit node is reached by normal completions (a lowering lets paths that leave by an
//! exception end where they throw; the caller's exception edges carry on from the call). A procedure in a recursive cycle is summarised from an analysis in which the calls
//! inside the cycle know nothing of their results, which is sound for any caller outside it.
//! This module does not decide the order procedures are analysed in ([`crate::analysis`]
//! does).

use crate::domain::{Conjunct, Value};
use crate::program::{Expr, Procedure, VarId};

/// A procedure's exit relation over its snapshots (in formal order), then its returned
/// variables (in [`Procedure::returns`] order).
#[derive(Clone, Debug)]
pub struct Summary {
    formals: usize,
    returns: usize,
    relation: Value,
}

impl Summary {
    /// The summary of `procedure` from the invariant at its exit.
    pub fn of_exit(procedure: &Procedure, exit: &Value) -> Summary {
        let keep: Vec<usize> = procedure
            .snapshots
            .iter()
            .chain(&procedure.returns)
            .map(|v| v.0)
            .collect();
        let parts = exit.parts.iter().map(|p| p.project_onto(&keep)).collect();
        Summary {
            formals: procedure.snapshots.len(),
            returns: procedure.returns.len(),
            relation: Value {
                dim: keep.len(),
                parts,
            },
        }
    }

    /// The summary of a procedure whose exit may hold any state (its analysis gave up): any
    /// entry values to any returned values, built without projecting a universe.
    pub fn any_state(procedure: &Procedure) -> Summary {
        Summary {
            formals: procedure.snapshots.len(),
            returns: procedure.returns.len(),
            relation: Value::universe(procedure.snapshots.len() + procedure.returns.len()),
        }
    }

    /// Whether no normal completion reaches the exit (every path ends the program or throws).
    pub fn never_returns(&self) -> bool {
        self.relation.parts.is_empty()
    }

    /// The states after a call from `value` that binds the formals to `args` and stores the
    /// returned variables into `results`; `None` when the call does not fit the summary.
    pub fn apply(&self, value: &Value, args: &[Expr], results: &[VarId]) -> Option<Value> {
        if args.len() != self.formals || results.len() != self.returns {
            return None;
        }
        let dim = value.dim;
        let wide = dim + self.formals + self.returns;
        let own: Vec<usize> = (0..dim).collect();
        let theirs: Vec<usize> = (dim..wide).collect();
        let mut after = Value::bottom(dim);
        for caller in &value.parts {
            let caller = caller.embed(wide, &own);
            for callee in &self.relation.parts {
                let joint = caller.meet(&callee.embed(wide, &theirs));
                if let Some(part) = joint.and_then(|j| self.bind(j, dim, args, results)) {
                    after = after.union(Value::from_part(part.project_onto(&own)));
                }
            }
        }
        Some(after)
    }

    /// Snapshots equal to the arguments, then each result set to its returned variable.
    fn bind(
        &self,
        joint: Conjunct,
        dim: usize,
        args: &[Expr],
        results: &[VarId],
    ) -> Option<Conjunct> {
        let mut joint = Some(joint);
        for (index, arg) in args.iter().enumerate() {
            joint = joint?.meet_zero(&(arg.clone() - VarId(dim + index)));
        }
        for (index, result) in results.iter().enumerate() {
            let returned = VarId(dim + self.formals + index);
            joint = joint?.havoc(result.0).meet_zero(&(*result - returned));
        }
        joint
    }
}

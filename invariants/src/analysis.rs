//! The whole-program entry point: analyse every procedure and answer at every requested point.

use crate::fixpoint::{Loss, Options, ProcedureResult, Stats, analyze_procedure};
use crate::invariant::Invariant;
use crate::program::{PointId, Program};

/// Invariants at every requested point of a program.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Per procedure (indexed like [`Program::procedures`]).
    pub procedures: Vec<ProcedureResult>,
    /// Per point (indexed like [`Program::points`]).
    pub invariants: Vec<Invariant>,
}

/// Analyses each procedure of `program` on its own (see [`crate::fixpoint`]).
pub fn analyze(program: &Program, options: &Options) -> Analysis {
    let procedures: Vec<ProcedureResult> = program
        .procedures
        .iter()
        .map(|procedure| analyze_procedure(procedure, options))
        .collect();
    let invariants = program
        .points
        .iter()
        .map(|point| {
            let procedure = &program.procedures[point.procedure.0];
            Invariant::of_procedure(
                procedure,
                &procedures[point.procedure.0].values[point.node.0],
            )
        })
        .collect();
    Analysis {
        procedures,
        invariants,
    }
}

impl Analysis {
    pub fn invariant(&self, point: PointId) -> &Invariant {
        &self.invariants[point.0]
    }

    /// Every precision loss of every procedure.
    pub fn losses(&self) -> Vec<Loss> {
        self.procedures
            .iter()
            .flat_map(|p| p.losses.iter().cloned())
            .collect()
    }

    /// The counters of all procedures added up.
    pub fn stats(&self) -> Stats {
        self.procedures
            .iter()
            .fold(Stats::default(), |acc, p| Stats {
                transfers: acc.transfers + p.stats.transfers,
                widenings: acc.widenings + p.stats.widenings,
                extrapolating_widenings: acc.extrapolating_widenings
                    + p.stats.extrapolating_widenings,
                narrowing_rounds: acc.narrowing_rounds + p.stats.narrowing_rounds,
            })
    }
}

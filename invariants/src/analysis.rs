//! The whole-program entry point: analyse every procedure, callees before their callers so
//! that calls use the callees' [`Summary`]s, and answer at every requested point.

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;

use crate::fixpoint::{Loss, Options, ProcedureResult, Stats, analyze_procedure};
use crate::invariant::Invariant;
use crate::program::{Action, PointId, ProcId, Procedure, Program};
use crate::summary::Summary;

/// Invariants at every requested point of a program.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Per procedure (indexed like [`Program::procedures`]).
    pub procedures: Vec<ProcedureResult>,
    /// Per point (indexed like [`Program::points`]).
    pub invariants: Vec<Invariant>,
}

/// Analyses each procedure of `program` once (see [`crate::fixpoint`]), callees first; calls
/// within a recursive cycle know nothing of their results.
pub fn analyze(program: &Program, options: &Options) -> Analysis {
    let count = program.procedures.len();
    let mut summaries: Vec<Option<Summary>> = vec![None; count];
    let mut results: Vec<Option<ProcedureResult>> = vec![None; count];
    for cycle in callees_first(program) {
        for &index in &cycle {
            let procedure = &program.procedures[index];
            let observed: Vec<usize> = program
                .points
                .iter()
                .filter(|point| point.procedure.0 == index)
                .map(|point| point.node.0)
                .collect();
            results[index] = Some(analyze_procedure(procedure, options, &summaries, &observed));
        }
        for &index in &cycle {
            let procedure = &program.procedures[index];
            summaries[index] = results[index].as_ref().map(|result| {
                let exit = procedure.exit.0;
                if result.any_state(exit) {
                    Summary::any_state(procedure)
                } else {
                    Summary::of_exit(procedure, &result.values[exit])
                }
            });
        }
    }
    let mut procedures: Vec<ProcedureResult> = results.into_iter().flatten().collect();
    let invariants = program
        .points
        .iter()
        .map(|point| {
            let procedure = &program.procedures[point.procedure.0];
            let result = &mut procedures[point.procedure.0];
            if options.out_of_time() {
                result.stop_at_deadline(procedure);
            }
            invariant_at(procedure, result, point.node.0)
        })
        .collect();
    Analysis {
        procedures,
        invariants,
    }
}

/// The invariant at `node` of a procedure analysed into `result`.
fn invariant_at(procedure: &Procedure, result: &ProcedureResult, node: usize) -> Invariant {
    if result.any_state(node) {
        Invariant::any_state(procedure)
    } else {
        Invariant::of_procedure(procedure, &result.values[node])
    }
}

/// The procedures grouped by strongly connected components of the call relation, each
/// component after every component it calls.
fn callees_first(program: &Program) -> Vec<Vec<usize>> {
    let mut graph: DiGraph<(), ()> = DiGraph::new();
    let nodes: Vec<_> = program
        .procedures
        .iter()
        .map(|_| graph.add_node(()))
        .collect();
    for (caller, procedure) in program.procedures.iter().enumerate() {
        for edge in &procedure.edges {
            if let Action::Call { callee, .. } = &edge.action
                && let Some(&target) = nodes.get(callee.0)
            {
                graph.add_edge(nodes[caller], target, ());
            }
        }
    }
    // Tarjan's algorithm finds components in reverse topological order: callees first.
    tarjan_scc(&graph)
        .into_iter()
        .map(|component| component.into_iter().map(|n| n.index()).collect())
        .collect()
}

impl Analysis {
    /// Stops `procedure` at the deadline after its fixpoint ([`ProcedureResult::stop_at_deadline`]),
    /// its points' invariants "any state".
    pub fn stop_at_deadline(&mut self, program: &Program, procedure: ProcId) {
        let lowered = &program.procedures[procedure.0];
        let result = &mut self.procedures[procedure.0];
        if result.gave_up() {
            return;
        }
        result.stop_at_deadline(lowered);
        for (index, point) in program.points.iter().enumerate() {
            if point.procedure == procedure {
                self.invariants[index] = invariant_at(lowered, result, point.node.0);
            }
        }
    }

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

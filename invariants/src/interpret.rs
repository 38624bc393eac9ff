//! A concrete interpreter, the test oracle: runs a program on given inputs and records, for
//! every requested point, how often it was visited and the valuations seen there.
//!
//! Locals start at 0 (any value is a possible one for the analysis, which assumes nothing).
//! Where several edges are enabled (an `either`, overlapping guards) the run takes them in
//! the order given by `choices`; havoc draws its values from `havoc_values`. Both cycle.

use std::collections::HashMap;

use membound_polyhedra::Int;
use num_traits::Zero;

use crate::program::{Action, Edge, NodeId, PointId, ProcId, Program, VarKind};

#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Edges taken before the run stops with [`Outcome::OutOfSteps`].
    pub max_steps: usize,
    /// Nested calls before the run stops with [`Outcome::TooDeep`].
    pub max_depth: usize,
    pub choices: Vec<usize>,
    pub havoc_values: Vec<Int>,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            max_steps: 1_000_000,
            max_depth: 64,
            choices: vec![0],
            havoc_values: vec![Int::zero()],
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Outcome {
    Returned,
    /// No edge was enabled at a node other than the exit (an infeasible path).
    Blocked,
    OutOfSteps,
    TooDeep,
}

/// What a run observed.
#[derive(Clone, Debug)]
pub struct Trace {
    pub outcome: Outcome,
    /// Visits per point (indexed by [`PointId`]).
    pub visits: Vec<u64>,
    /// The valuation of the point's procedure (every variable, snapshots included) at each
    /// visit, in order.
    pub valuations: Vec<Vec<Vec<Int>>>,
}

#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum RunError {
    #[error("procedure {procedure} takes {expected} arguments, {given} given")]
    Arity {
        procedure: String,
        expected: usize,
        given: usize,
    },
}

struct Frame {
    procedure: ProcId,
    node: NodeId,
    vars: Vec<Int>,
    /// The caller's call edge this frame returns through.
    return_edge: Option<Edge>,
}

/// Runs `entry` on `args`.
pub fn run(
    program: &Program,
    entry: ProcId,
    args: &[Int],
    options: &RunOptions,
) -> Result<Trace, RunError> {
    let procedure = program.procedure(entry);
    if procedure.formals.len() != args.len() {
        return Err(RunError::Arity {
            procedure: procedure.name.clone(),
            expected: procedure.formals.len(),
            given: args.len(),
        });
    }
    let mut machine = Machine::new(program, options);
    let outcome = machine.execute(entry, args);
    Ok(Trace {
        outcome,
        visits: machine.visits,
        valuations: machine.valuations,
    })
}

struct Machine<'a> {
    program: &'a Program,
    options: &'a RunOptions,
    points_at: HashMap<(ProcId, NodeId), Vec<PointId>>,
    visits: Vec<u64>,
    valuations: Vec<Vec<Vec<Int>>>,
    choice_cursor: usize,
    havoc_cursor: usize,
}

impl<'a> Machine<'a> {
    fn new(program: &'a Program, options: &'a RunOptions) -> Machine<'a> {
        let mut points_at: HashMap<(ProcId, NodeId), Vec<PointId>> = HashMap::new();
        for id in program.point_ids() {
            let point = program.point(id);
            points_at
                .entry((point.procedure, point.node))
                .or_default()
                .push(id);
        }
        let count = program.points.len();
        Machine {
            program,
            options,
            points_at,
            visits: vec![0; count],
            valuations: vec![Vec::new(); count],
            choice_cursor: 0,
            havoc_cursor: 0,
        }
    }

    fn execute(&mut self, entry: ProcId, args: &[Int]) -> Outcome {
        let program = self.program;
        let mut stack = vec![self.activation(entry, args, None)];
        self.arrive(&stack[0]);
        for _ in 0..self.options.max_steps {
            let depth = stack.len();
            let Some(frame) = stack.last_mut() else {
                return Outcome::Returned;
            };
            let procedure = program.procedure(frame.procedure);
            if frame.node == procedure.exit {
                if !self.return_from(&mut stack) {
                    return Outcome::Returned;
                }
                continue;
            }
            let enabled: Vec<&Edge> = procedure
                .outgoing(frame.node)
                .filter(|e| enabled(e, &frame.vars))
                .collect();
            let Some(edge) = self.choose(&enabled) else {
                return Outcome::Blocked;
            };
            match &edge.action {
                Action::Call { callee, args, .. } => {
                    if depth >= self.options.max_depth {
                        return Outcome::TooDeep;
                    }
                    let values: Vec<Int> = args.iter().map(|a| a.eval(&frame.vars)).collect();
                    let callee_frame = self.activation(*callee, &values, Some(edge.clone()));
                    self.arrive(&callee_frame);
                    stack.push(callee_frame);
                }
                action => {
                    match action {
                        Action::Assign { var, expr } => frame.vars[var.0] = expr.eval(&frame.vars),
                        Action::Havoc(var) => frame.vars[var.0] = self.next_havoc_value(),
                        _ => {}
                    }
                    frame.node = edge.to;
                    let (procedure, node, vars) = (frame.procedure, frame.node, frame.vars.clone());
                    self.record(procedure, node, vars);
                }
            }
        }
        Outcome::OutOfSteps
    }

    /// A new frame for `procedure`: formals and snapshots from `args`, locals 0.
    fn activation(&self, procedure: ProcId, args: &[Int], return_edge: Option<Edge>) -> Frame {
        let definition = self.program.procedure(procedure);
        let vars = definition
            .vars
            .iter()
            .enumerate()
            .map(|(index, var)| match var.kind {
                VarKind::Snapshot(formal) => args[formal].clone(),
                VarKind::Formal => {
                    let position = definition
                        .formals
                        .iter()
                        .position(|f| f.0 == index)
                        .unwrap_or(0);
                    args[position].clone()
                }
                VarKind::Local => Int::zero(),
            })
            .collect();
        Frame {
            procedure,
            node: definition.entry,
            vars,
            return_edge,
        }
    }

    /// Pops the finished frame and moves its caller past the call; false when none is left.
    fn return_from(&mut self, stack: &mut Vec<Frame>) -> bool {
        let Some(finished) = stack.pop() else {
            return false;
        };
        let (Some(caller), Some(edge)) = (stack.last_mut(), finished.return_edge) else {
            return false;
        };
        let callee = self.program.procedure(finished.procedure);
        if let Action::Call { results, .. } = &edge.action {
            for (result, returned) in results.iter().zip(&callee.returns) {
                caller.vars[result.0] = finished.vars[returned.0].clone();
            }
        }
        caller.node = edge.to;
        let (procedure, node, vars) = (caller.procedure, caller.node, caller.vars.clone());
        self.record(procedure, node, vars);
        true
    }

    fn arrive(&mut self, frame: &Frame) {
        self.record(frame.procedure, frame.node, frame.vars.clone());
    }

    fn record(&mut self, procedure: ProcId, node: NodeId, vars: Vec<Int>) {
        let Some(points) = self.points_at.get(&(procedure, node)) else {
            return;
        };
        for point in points {
            self.visits[point.0] += 1;
            self.valuations[point.0].push(vars.clone());
        }
    }

    fn choose<'e>(&mut self, enabled: &[&'e Edge]) -> Option<&'e Edge> {
        match enabled {
            [] => None,
            [only] => Some(only),
            several => {
                let choice = self
                    .options
                    .choices
                    .get(self.choice_cursor % self.options.choices.len().max(1));
                self.choice_cursor += 1;
                Some(several[choice.copied().unwrap_or(0) % several.len()])
            }
        }
    }

    fn next_havoc_value(&mut self) -> Int {
        let values = &self.options.havoc_values;
        let value = values
            .get(self.havoc_cursor % values.len().max(1))
            .cloned()
            .unwrap_or_default();
        self.havoc_cursor += 1;
        value
    }
}

fn enabled(edge: &Edge, vars: &[Int]) -> bool {
    match &edge.action {
        Action::Assume(cond) => cond.holds(vars),
        _ => true,
    }
}

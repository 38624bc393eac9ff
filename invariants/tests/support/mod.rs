//! Shared checks of the integration tests: the interpreter is the oracle.

#![allow(dead_code)] // each test binary uses its own subset of the helpers

use std::collections::BTreeMap;

use membound_invariants::interpret::{Outcome, RunOptions, run};
use membound_invariants::{Analysis, Invariant, Options, ProcId, Program, analyze};
use membound_polyhedra::{Count, Int, Rat, Value, count};

/// Every argument tuple with each entry in `range` (the cartesian power).
pub fn grid(arity: usize, range: std::ops::RangeInclusive<i64>) -> Vec<Vec<i64>> {
    (0..arity).fold(vec![Vec::new()], |tuples, _| {
        tuples
            .iter()
            .flat_map(|t| range.clone().map(move |v| [t.clone(), vec![v]].concat()))
            .collect()
    })
}

pub fn analyzed(program: &Program) -> Analysis {
    let analysis = analyze(program, &Options::default());
    assert!(
        analysis.losses().is_empty(),
        "unexpected precision loss: {:?}",
        analysis.losses()
    );
    analysis
}

/// The parameter values of `invariant` for a run of `entry` on `args` (snapshots are the args).
pub fn parameter_point(program: &Program, entry: ProcId, args: &[i64]) -> BTreeMap<String, Int> {
    let procedure = program.procedure(entry);
    procedure
        .snapshots
        .iter()
        .zip(args)
        .map(|(s, v)| (procedure.var_name(*s).to_string(), Int::from(*v)))
        .collect()
}

pub fn count_at(count: &Count, point: &BTreeMap<String, Int>) -> Value {
    count.eval(point).expect("count evaluates")
}

/// Runs `entry` on every tuple of `args` and checks, at `point`: every visited valuation is in
/// the invariant (soundness), and the number of integer points of the invariant projected on
/// `counters` equals the number of visits (exactness). Returns the projected invariant.
pub fn assert_exact(
    program: &Program,
    analysis: &Analysis,
    entry: ProcId,
    point: &str,
    counters: &[&str],
    args: &[Vec<i64>],
) -> Invariant {
    let id = program.point_by_name(point).expect("point exists");
    let invariant = analysis.invariant(id);
    let projected = invariant.project_onto(counters);
    let counted = count(&projected.to_set()).expect("countable");
    let procedure = program.procedure(program.point(id).procedure);
    for tuple in args {
        let values: Vec<Int> = tuple.iter().map(|&v| Int::from(v)).collect();
        let trace = run(program, entry, &values, &RunOptions::default()).expect("runs");
        assert_eq!(trace.outcome, Outcome::Returned, "run on {tuple:?}");
        for valuation in &trace.valuations[id.0] {
            assert!(
                invariant.contains_valuation(procedure, valuation),
                "{valuation:?} at {point} not in {}",
                invariant.to_isl()
            );
        }
        let expected = Value::Finite(Rat::from(trace.visits[id.0] as i64));
        let parameters = parameter_point(program, entry, tuple);
        assert_eq!(
            count_at(&counted, &parameters),
            expected,
            "visits of {point} on {tuple:?}; invariant {}",
            projected.to_isl()
        );
    }
    projected
}

/// The invariant at `point` equals the set written in isl syntax (compared as sets).
pub fn assert_same_set(
    analysis: &Analysis,
    program: &Program,
    point: &str,
    counters: &[&str],
    expected: &str,
) {
    let id = program.point_by_name(point).expect("point exists");
    let actual = analysis.invariant(id).project_onto(counters);
    let expected_set = membound_polyhedra::parse_set(expected).expect("expected set parses");
    let expected = Invariant::from_set(&expected_set);
    assert!(
        actual.same_set(&expected),
        "at {point}:\n  actual   {}\n  expected {expected_set:?}",
        actual.to_isl()
    );
}

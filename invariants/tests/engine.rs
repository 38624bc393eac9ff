//! The program form's edges: builder validation, the printer, the interpreter's outcomes, the
//! budget fallback, unreachable code and havoc.

mod support;

use expect_test::expect;
use membound_invariants::builder::{ge, le, lt, modulo};
use membound_invariants::interpret::{Outcome, RunOptions, run};
use membound_invariants::print::program_to_string;
use membound_invariants::{
    Analysis, BuildError, Limit, Loss, Options, ProcId, Program, ProgramBuilder, analyze,
};
use membound_polyhedra::Int;

#[test]
fn builder_rejects_writes_to_snapshots_and_stray_breaks() {
    let mut builder = ProgramBuilder::new();
    let m = builder.declare("m", &["n"]);
    builder.define(m, |b| {
        let snapshot = b.snapshot(0);
        b.assign(snapshot, 1);
    });
    assert!(matches!(builder.build(), Err(BuildError::Invalid { .. })));

    let mut builder = ProgramBuilder::new();
    let m = builder.declare("m", &[]);
    builder.define(m, |b| b.break_loop());
    assert!(matches!(builder.build(), Err(BuildError::Invalid { .. })));
}

#[test]
fn builder_rejects_bad_calls_moduli_and_missing_bodies() {
    let mut builder = ProgramBuilder::new();
    let m = builder.declare("m", &[]);
    let callee = builder.declare("callee", &["x"]);
    builder.define(m, |b| b.call(callee, vec![], vec![]));
    builder.define(callee, |_| {});
    assert!(matches!(builder.build(), Err(BuildError::Invalid { .. })));

    let mut builder = ProgramBuilder::new();
    let m = builder.declare("m", &["n"]);
    builder.define(m, |b| {
        let n = b.formal(0);
        b.assume(modulo(n, 0, 0));
    });
    assert!(matches!(builder.build(), Err(BuildError::Invalid { .. })));

    let mut builder = ProgramBuilder::new();
    builder.declare("m", &[]);
    assert!(matches!(builder.build(), Err(BuildError::Undefined(_))));
}

#[test]
fn printer_lists_every_edge() {
    let mut builder = ProgramBuilder::new();
    let m = builder.declare("m", &["n"]);
    builder.define(m, |b| {
        let (n, i) = (b.formal(0), b.local("i"));
        b.for_loop(i, 0, lt(i, n), 2, |b| {
            b.point("S");
        });
    });
    let program = builder.build().expect("valid");
    expect![[r#"
        proc m(n) [snapshots n_init] requires true
          entry 0, exit 7
          0 -> 1: i := 0
          1 -> 2: skip
          2 -> 3: assume not (n - i - 1 >= 0)
          2 -> 5: assume n - i - 1 >= 0
          5 -> 6: skip    @S
          6 -> 4: skip
          4 -> 2: i := i + 2
          3 -> 7: skip
    "#]]
    .assert_eq(&program_to_string(&program));
}

#[test]
fn interpreter_reports_infinite_loops_and_blocked_paths() {
    let mut builder = ProgramBuilder::new();
    let m = builder.declare("m", &["n"]);
    builder.define(m, |b| {
        let n = b.formal(0);
        b.assume(ge(n, 0));
        b.loop_forever(|b| {
            b.point("S");
        });
    });
    let program = builder.build().expect("valid");
    let options = RunOptions {
        max_steps: 100,
        ..RunOptions::default()
    };
    let looping = run(&program, m, &[Int::from(1)], &options).expect("runs");
    assert_eq!(looping.outcome, Outcome::OutOfSteps);
    assert!(looping.visits[0] > 10);
    let blocked = run(&program, m, &[Int::from(-1)], &options).expect("runs");
    assert_eq!((blocked.outcome, blocked.visits[0]), (Outcome::Blocked, 0));
    assert!(run(&program, m, &[], &options).is_err());
}

#[test]
fn unreachable_points_get_the_empty_invariant() {
    let mut builder = ProgramBuilder::new();
    let m = builder.declare("m", &["n"]);
    builder.define(m, |b| {
        let (n, i) = (b.formal(0), b.local("i"));
        b.for_loop(i, 0, lt(i, n), 1, |b| {
            b.if_then(ge(i, n), |b| {
                b.point("never");
            });
            b.break_loop();
            b.point("after break");
        });
    });
    let program = builder.build().expect("valid");
    let analysis = analyze(&program, &Options::default());
    for name in ["never", "after break"] {
        let point = program.point_by_name(name).expect("point");
        assert!(
            analysis.invariant(point).is_empty(),
            "{name}: {}",
            analysis.invariant(point).to_isl()
        );
    }
}

#[test]
fn havoc_and_opaque_branches_stay_sound() {
    let mut builder = ProgramBuilder::new();
    let m = builder.declare("m", &["n"]);
    builder.define(m, |b| {
        let (n, i, x) = (b.formal(0), b.local("i"), b.local("x"));
        b.for_loop(i, 0, lt(i, n), 1, |b| {
            b.havoc(x);
            b.either(|b| b.assign(x, x + i), |b| b.assign(i, i + 1));
            b.point("S");
        });
    });
    let program = builder.build().expect("valid");
    let analysis = analyze(&program, &Options::default());
    let point = program.point_by_name("S").expect("point");
    let invariant = analysis.invariant(point);
    for choices in [vec![0], vec![1], vec![0, 1, 1], vec![1, 0]] {
        let options = RunOptions {
            choices,
            havoc_values: vec![Int::from(-5), Int::from(7)],
            ..RunOptions::default()
        };
        let trace = run(&program, m, &[Int::from(6)], &options).expect("runs");
        assert_eq!(trace.outcome, Outcome::Returned);
        for valuation in &trace.valuations[point.0] {
            assert!(
                invariant.contains_valuation(program.procedure(m), valuation),
                "{valuation:?}"
            );
        }
    }
}

#[test]
fn exhausted_budget_is_reported_and_stays_sound() {
    let mut builder = ProgramBuilder::new();
    let m = builder.declare("m", &["n"]);
    builder.define(m, |b| {
        let (n, i, j) = (b.formal(0), b.local("i"), b.local("j"));
        b.for_loop(i, 0, lt(i, n), 1, |b| {
            b.for_loop(j, 0, le(j, i), 1, |b| {
                b.point("S");
            });
        });
    });
    let program = builder.build().expect("valid");
    for (budget, gives_up) in [(3, true), (12, false)] {
        let analysis = analyze(
            &program,
            &Options {
                budget,
                ..Options::default()
            },
        );
        let losses = analysis.losses();
        assert!(
            losses.iter().any(|l| matches!(l, Loss::Coarsened { .. })),
            "{losses:?}"
        );
        assert_eq!(
            losses.iter().any(|l| matches!(l, Loss::GaveUp { .. })),
            gives_up,
            "{losses:?}"
        );
        assert_run_within_invariant(&program, m, &analysis, 5);
    }
}

/// Every valuation a run of `m(n)` reaches at point `S` lies in the invariant found there.
fn assert_run_within_invariant(program: &Program, m: ProcId, analysis: &Analysis, n: i64) {
    let point = program.point_by_name("S").expect("point");
    let trace = run(program, m, &[Int::from(n)], &RunOptions::default()).expect("runs");
    for valuation in &trace.valuations[point.0] {
        assert!(
            analysis
                .invariant(point)
                .contains_valuation(program.procedure(m), valuation),
            "{valuation:?}"
        );
    }
}

/// A deadline already past stops every procedure at its first edge transfer: each gives up,
/// says it was the time limit, and answers "any state" (sound).
#[test]
fn a_passed_deadline_gives_up_with_the_time_limit_as_reason() {
    let mut builder = ProgramBuilder::new();
    let m = builder.declare("m", &["n"]);
    builder.define(m, |b| {
        let (n, i) = (b.formal(0), b.local("i"));
        b.for_loop(i, 0, lt(i, n), 1, |b| {
            b.point("S");
        });
    });
    let program = builder.build().expect("valid");
    let options = Options {
        deadline: Some(std::time::Instant::now()),
        ..Options::default()
    };
    let analysis = analyze(&program, &options);
    let losses = analysis.losses();
    assert!(
        losses.iter().any(|l| matches!(
            l,
            Loss::GaveUp {
                limit: Limit::Deadline,
                ..
            }
        )),
        "{losses:?}"
    );
    let reasons: Vec<String> = losses.iter().filter_map(Loss::gave_up_reason).collect();
    assert_eq!(
        reasons,
        ["the analysis reached its time limit in the invariant fixpoint"]
    );
    assert_run_within_invariant(&program, m, &analysis, 4);
}

/// A deadline that passes after a procedure's fixpoint, before its invariants are read off
/// (`Analysis::stop_at_deadline`, which the lowering calls while it projects them): the
/// procedure gives up with the time limit as reason and answers "any state" at the points it
/// reaches, bottom where it does not.
#[test]
fn a_deadline_after_the_fixpoint_gives_up_with_the_time_limit_as_reason() {
    let mut builder = ProgramBuilder::new();
    let m = builder.declare("m", &["n"]);
    builder.define(m, |b| {
        let (n, i) = (b.formal(0), b.local("i"));
        b.for_loop(i, 0, lt(i, n), 1, |b| {
            b.point("S");
        });
        b.if_then(lt(n, n), |b| {
            b.point("Never");
        });
    });
    let program = builder.build().expect("valid");
    let mut analysis = analyze(&program, &Options::default());
    let point = program.point_by_name("S").expect("point");
    let procedure = program.procedure(m);
    let outside = vec![Int::from(0); procedure.vars.len()];
    assert!(
        !analysis
            .invariant(point)
            .contains_valuation(procedure, &outside)
    );
    analysis.stop_at_deadline(&program, program.point(point).procedure);
    let reasons: Vec<String> = analysis
        .losses()
        .iter()
        .filter_map(Loss::gave_up_reason)
        .collect();
    assert_eq!(
        reasons,
        ["the analysis reached its time limit in the invariant fixpoint"]
    );
    assert!(
        analysis
            .invariant(point)
            .contains_valuation(procedure, &outside)
    );
    let never = program.point_by_name("Never").expect("point");
    assert!(analysis.invariant(never).is_empty());
}

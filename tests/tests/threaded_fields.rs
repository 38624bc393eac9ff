//! Threaded field views: a field of `this` that a callee writes is a parameter (its value at
//! entry) carried across calls on `this` by the callee's summary, so `Threads.addAll`, whose
//! `add` increments `len` and allocates at multiples of 3, is counted exactly. Writes no summary
//! follows (through another reference that may be `this`, by a callee that throws after
//! writing, by an override no chain goes through) never give a bound below a run. A callee's
//! integer result reaches its caller the same way.
//! Oracles: a brute-force count of `addAll` and runs of `fields.Threads` under the agent.

use std::path::PathBuf;

use membound_tests::{
    certificate_params, eval_method, fixture_certificate, pair, total_objects, validate_json,
};
use serde_json::Value;

fn certificate(method: &str) -> PathBuf {
    fixture_certificate("fields", method, "count")
}

/// The objects `addAll(n)` allocates from `len`: one per element added at a multiple of 3.
fn added_brute_force(n: i64, len: i64) -> i64 {
    (len..len + n).filter(|l| l % 3 == 0).count() as i64
}

#[test]
fn a_field_a_callee_increments_is_a_parameter_counted_exactly() {
    let cert = certificate("fields.Threads.addAll");
    assert_eq!(
        certificate_params(&cert, "fields.Threads.addAll"),
        [
            pair("n", "parameter 0 (int n)"),
            pair("len", "field len of this")
        ]
    );
    for len in [0, 1, 2, 5] {
        for n in [0, 1, 2, 3, 4, 7, 9] {
            let evaluated =
                eval_method(&cert, "fields.Threads.addAll", &format!("n={n},len={len}"));
            assert_eq!(
                evaluated["mem_alloc"]["objects"],
                added_brute_force(n, len),
                "n {n}, len {len}: {evaluated:#}"
            );
        }
    }
}

/// `membound validate` of `method` against `fields.Threads` with seven arguments: the run's
/// comparisons, none below the prediction (exit 0) and none broken.
fn validated(method: &str) -> Vec<Value> {
    let cert = certificate(method);
    let (code, json) = validate_json(&cert, "fields.Threads", &["a"; 7]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["broken"], 0, "{json:#}");
    json["comparisons"].as_array().expect("comparisons").clone()
}

#[test]
fn a_threaded_count_equals_a_real_run() {
    // Seven elements added from len = 1, twice (by `main` and by `resetting`): at 3 and 6.
    let (observed, predicted) = total_objects(&validated("fields.Threads.addAll"));
    assert_eq!((observed, predicted), (4.into(), 4.into()));
}

#[test]
fn writes_no_summary_follows_are_never_below_a_run() {
    // `peer` is `this` in the run: `peer.add()` moves `len`, which the bound cannot follow.
    let (observed, predicted) = total_objects(&validated("fields.Threads.viaPeer"));
    assert_eq!(observed, 5, "3 by add (len 0, 3, 6), 2 after it (len 3, 6)");
    assert_eq!(predicted, 14, "one per iteration each");
    // `bumpAndThrow` moves `len` from 2 to 3 before throwing: the handler allocates.
    let (observed, predicted) = total_objects(&validated("fields.Threads.throwing"));
    assert_eq!(observed, 2, "one in bumpAndThrow, one in the handler");
    assert!(
        predicted.as_i64() >= Some(2) || predicted == "infty",
        "{predicted}"
    );
    // `Reset`'s initializer sets `len` to 0 after `addAll` moved it from 1 to 8.
    let (observed, predicted) = total_objects(&validated("fields.Threads.resetting"));
    assert_eq!(observed, 2 + 1, "2 by add (len 3 and 6), 1 after the reset");
    assert_eq!(predicted, 3);
    // A `Still` receiver never moves `len`: every iteration allocates after `step`.
    let (observed, predicted) = total_objects(&validated("fields.Threads.stepping"));
    assert_eq!(
        observed,
        7 + 7 + 2,
        "7 by a Still, 7 steps and 2 multiples of 3 by a Threads"
    );
    assert!(predicted.as_i64() >= Some(16), "{predicted}");
}

#[test]
fn a_callee_result_bounds_the_caller_loop_exactly() {
    let cert = certificate("fields.Threads.again");
    for n in [0, 1, 2, 5] {
        let evaluated = eval_method(&cert, "fields.Threads.again", &format!("n={n}"));
        // n objects in `make`, n + 1 in the loop its result bounds.
        assert_eq!(
            evaluated["mem_alloc"]["objects"],
            n + n + 1,
            "n {n}: {evaluated:#}"
        );
    }
    let (observed, predicted) = total_objects(&validated("fields.Threads.again"));
    assert_eq!((observed, predicted), (15.into(), 15.into()));
}

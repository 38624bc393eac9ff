//! Division and remainder by constants (fixture `division`): quotients round toward zero and
//! remainders take the dividend's sign, as in Java, so loops bounded by them count exactly.
//! Oracles: the loops run here in Rust (whose `/` and `%` on integers round as Java's do) and
//! real runs under the agent.

use membound_tests::{
    analyze_into, compile_fixture, eval_method, scratch_dir, total_objects, validate_json,
};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn certificate(method: &str) -> PathBuf {
    let path = scratch_dir("division").join(format!("{method}.json"));
    analyze_into(
        &compile_fixture("division"),
        &format!("division.Quotients.{method}"),
        "count",
        &path,
    );
    path
}

fn mem_alloc(certificate: &Path, method: &str, n: i64) -> Value {
    eval_method(
        certificate,
        &format!("division.Quotients.{method}"),
        &format!("n={n}"),
    )["mem_alloc"]
        .clone()
}

/// Every n in -13..=13: the bound's objects (or bytes) equal what the loop does, and a run
/// under the agent agrees.
fn exact_on_a_range(method: &str, quantity: &str, expected: impl Fn(i64) -> i64) {
    let cert = certificate(method);
    for n in -13..=13 {
        assert_eq!(
            mem_alloc(&cert, method, n)[quantity],
            expected(n),
            "{method}({n})"
        );
    }
    let (observed, predicted) = validated(&cert, method);
    assert_eq!(observed, predicted);
}

/// Every n in -13..=13: the bound's objects are never below what the loop does; where it is
/// above, `loose` says why.
fn sound_on_a_range(method: &str, expected: impl Fn(i64) -> i64) -> Vec<(i64, i64, i64)> {
    let cert = certificate(method);
    let mut above = Vec::new();
    for n in -13..=13 {
        let bound = mem_alloc(&cert, method, n)["objects"]
            .as_i64()
            .expect("a finite bound");
        assert!(
            bound >= expected(n),
            "{method}({n}): {bound} < {}",
            expected(n)
        );
        if bound > expected(n) {
            above.push((n, bound, expected(n)));
        }
    }
    validated(&cert, method);
    above
}

/// `validate` of a run with n = 11: nothing broken; the (observed, predicted) object totals.
fn validated(cert: &Path, method: &str) -> (Value, Value) {
    let (code, json) = validate_json(cert, "division.Quotients", &[method, "11"]);
    assert_eq!((code, json["broken"].clone()), (0, 0.into()), "{json:#}");
    total_objects(json["comparisons"].as_array().expect("list"))
}

#[test]
fn a_loop_to_half_of_n_runs_n_over_two_times() {
    exact_on_a_range("half", "objects", |n| (n / 2).max(0));
}

#[test]
fn array_lengths_divided_by_a_constant_sum_exactly() {
    // Bytes in the count model: one per array cell.
    exact_on_a_range("arrays", "bytes", |n| {
        (0..n.max(0)).map(|i| (i + 1) / 2).sum::<i64>()
    });
}

#[test]
fn quotients_of_negative_values_round_toward_zero() {
    // Each quotient is exact on either sign of n, but only the first division of a method
    // keeps its signs apart at joins: the loop's bound may run one step further for some n.
    let above = sound_on_a_range("between", |n| (n / -2 - n / 3).max(0));
    assert!(
        above
            .iter()
            .all(|&(n, bound, real)| n < 0 && bound == real + 1),
        "{above:?}"
    );
}

#[test]
fn a_remainder_is_bounded_by_its_divisor() {
    // The remainder's congruence with n is lost when the quotient is projected out: the
    // loop is bounded by the divisor, not by n % 4.
    let above = sound_on_a_range("remainder", |n| (n % 4).max(0));
    assert!(
        above.iter().all(|&(n, bound, _)| n >= 0 && bound == 3),
        "{above:?}"
    );
}

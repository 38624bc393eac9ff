//! A call's cost per execution (fixture `per_execution`): a call whose argument the caller
//! cannot bind to one value per execution (a count of the positive values seen so far, between
//! 0 and i + 1 at iteration i) runs its callee once per execution, with one value, so it costs
//! at most the callee's largest over the values allowed there: `Integer.valueOf(k)` and
//! `Character.valueOf(c)` at most one box per iteration from the 128th on (summed over every
//! value `k` may take, it was `L²/2 - 253L/2 + 8001`), a builder of `k` nodes at most `i + 1`
//! nodes at iteration `i` (it was `L³/6`). Where the argument is the loop counter (or its half)
//! the count stays exact. Oracles: the closed forms, and real runs under the agent (`main` runs
//! each method on arrays of up to 200 values, of which 171 positive).

use membound_tests::{
    eval_method, fixture_certificate, total_objects, validated_exactly, validated_unbroken,
};

const RUN: &str = "perexec.Calls";

/// The certificate (count model) of `perexec.Calls.<method>`.
fn certificate(method: &str) -> std::path::PathBuf {
    fixture_certificate("per_execution", &format!("perexec.Calls.{method}"), "count")
}

/// The objects the certificate of `method` predicts with its parameter `param` at `value`.
fn objects_at(certificate: &std::path::Path, method: &str, param: &str, value: i64) -> i64 {
    let method = format!("perexec.Calls.{method}");
    let json = eval_method(certificate, &method, &format!("{param}={value}"));
    json["mem_alloc"]["objects"]
        .as_i64()
        .unwrap_or_else(|| panic!("{method} at {param}={value}: {json:#}"))
}

/// `method`'s objects at `values_length` = each of `lengths` equal `expected`, and a run of
/// `main` holds (no prediction below what it observed); the objects observed in all.
fn bounded_and_validated(method: &str, expected: impl Fn(i64) -> i64) -> i64 {
    let certificate = certificate(method);
    for length in [0, 1, 5, 127, 128, 129, 200, 1000] {
        let objects = objects_at(&certificate, method, "values_length", length);
        assert_eq!(objects, expected(length), "{method}({length})");
    }
    let report = validated_unbroken(&certificate, RUN, &[]);
    let comparisons = report["comparisons"].as_array().expect("comparisons");
    total_objects(comparisons).0.as_i64().expect("a count")
}

/// At most one box per iteration from the 128th on: the count may reach 128 only there.
fn boxes_from_the_128th(length: i64) -> i64 {
    (length - 127).max(0)
}

#[test]
fn integer_value_of_a_count_the_caller_cannot_bind_boxes_once_per_iteration() {
    let observed = bounded_and_validated("positiveCounts", boxes_from_the_128th);
    // The 200 values hold 171 positive ones: counts 128 to 171 are boxed, some more than once.
    assert!(observed > 0, "the run boxes counts beyond the cache");
}

#[test]
fn character_value_of_a_count_the_caller_cannot_bind_boxes_once_per_iteration() {
    let observed = bounded_and_validated("positiveChars", boxes_from_the_128th);
    assert!(observed > 0, "the run boxes chars beyond the cache");
}

#[test]
fn a_builder_given_a_count_builds_its_largest_list_once() {
    // `build(k)` once, with 0 <= k <= L: at most L nodes (the sum over every k was L(L + 1)/2).
    bounded_and_validated("positives", |length| length);
}

#[test]
fn a_builder_given_a_count_in_a_loop_builds_the_largest_list_of_each_iteration() {
    // At iteration i, 0 <= k <= i + 1: Σ (i + 1) = L(L + 1)/2 (the sum over every k was L³/6).
    bounded_and_validated("prefixes", |length| length * (length + 1) / 2);
}

#[test]
fn boxes_of_values_read_from_an_array_count_once_per_value() {
    bounded_and_validated("ints", |length| length);
}

/// `method(n)` with `n` = -2..=8 allocates `expected(n)` objects, and every comparison of a run
/// of `main` (n = 0..=6) is exact.
fn exact_and_validated(method: &str, expected: impl Fn(i64) -> i64) {
    let certificate = certificate(method);
    for n in -2..=8 {
        assert_eq!(
            objects_at(&certificate, method, "n", n),
            expected(n),
            "{method}({n})"
        );
    }
    validated_exactly(&certificate, RUN, &[]);
}

#[test]
fn a_builder_given_the_loop_counter_stays_exact() {
    // `build(i)` for i < n: n(n - 1)/2 nodes.
    exact_and_validated("counted", |n| (0..n).sum());
}

#[test]
fn a_builder_given_half_the_loop_counter_stays_exact() {
    // `build(i / 2)` for i < n: one value per execution through a division.
    exact_and_validated("halves", |n| (0..n).map(|i| i / 2).sum());
}

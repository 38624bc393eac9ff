//! Boxed counters and bounds (fixture `boxed`): an `Integer` or `Long` loop counter is an
//! integer through its value view (`valueOf(x)` boxes `x`, `intValue()` reads it back), an
//! `Integer` parameter's value is a parameter of the bound, and the boxes `valueOf` allocates
//! outside the cache (-128..127) are counted exactly by the bundled spec's condition. Oracles:
//! the loops simulated here, and real runs under the agent (which records a boxed parameter's
//! value at each entry).

use membound_tests::{
    certificate_params, eval_method, fixture_certificate, pair, total_objects, validated_exactly,
};

const CACHE: std::ops::RangeInclusive<i64> = -128..=127;

/// The values `valueOf` boxes as `for (Integer i = 0; cond(i); i = step(i))` runs.
fn boxed_values(cond: impl Fn(i64) -> bool, step: impl Fn(i64) -> i64) -> Vec<i64> {
    let mut values = vec![0];
    let mut i = 0;
    while cond(i) {
        i = step(i);
        values.push(i);
    }
    values
}

/// How many of `values` are outside the cache: the new boxes.
fn new_boxes(values: &[i64]) -> i64 {
    values.iter().filter(|v| !CACHE.contains(v)).count() as i64
}

const VALUES: [i64; 10] = [-3, 0, 1, 5, 127, 128, 129, 130, 200, 300];

/// The objects `method`'s certificate (count model) predicts at each of [`VALUES`] of its one
/// parameter `param`, against `expected`; then `validate` of a run of `boxed.Boxes` (each
/// method at 0, 5, 127, 128, 129 and 300): every comparison exact; the observed total.
fn exact_and_validated(method: &str, param: &str, expected: impl Fn(i64) -> i64) -> i64 {
    let method = format!("boxed.Boxes.{method}");
    let certificate = fixture_certificate("boxed", &method, "count");
    for n in VALUES {
        let json = eval_method(&certificate, &method, &format!("{param}={n}"));
        assert_eq!(json["mem_alloc"]["objects"], expected(n), "{method}({n})");
    }
    let comparisons = validated_exactly(&certificate, "boxed.Boxes", &[]);
    total_objects(&comparisons).0.as_i64().expect("a count")
}

/// The values `main` runs each method with.
const RUNS: [i64; 6] = [0, 5, 127, 128, 129, 300];

#[test]
fn an_integer_counter_allocates_the_boxes_beyond_the_cache() {
    let boxes = |n: i64| new_boxes(&boxed_values(|i| i < n, |i| i + 1));
    assert_eq!(boxes(300), 300 - 127);
    let observed = exact_and_validated("counted", "n", boxes);
    assert_eq!(observed, RUNS.iter().map(|&n| boxes(n)).sum::<i64>());
}

#[test]
fn a_counter_going_down_allocates_below_the_cache() {
    let boxes = |n: i64| new_boxes(&boxed_values(|i| i > -n, |i| i - 1));
    assert_eq!(boxes(300), 300 - 128);
    let observed = exact_and_validated("down", "n", boxes);
    assert_eq!(observed, RUNS.iter().map(|&n| boxes(n)).sum::<i64>());
}

#[test]
fn a_long_counter_counts_like_an_integer_one() {
    let boxes = |n: i64| new_boxes(&boxed_values(|i| i < n, |i| i + 1));
    exact_and_validated("longs", "n", boxes);
}

#[test]
fn a_boxed_bound_is_a_parameter_recorded_at_entry() {
    let certificate = fixture_certificate("boxed", "boxed.Boxes.bound", "count");
    assert_eq!(
        certificate_params(&certificate, "boxed.Boxes.bound"),
        vec![pair("n", "value of parameter 0 (java.lang.Integer n)")]
    );
    let observed = exact_and_validated("bound", "n", |n| n.max(0));
    // `bound` runs once from `main` and twice from `twice` per value.
    assert_eq!(observed, 3 * RUNS.iter().sum::<i64>());
}

#[test]
fn a_box_passed_on_binds_the_callee() {
    let observed = exact_and_validated("twice", "n", |n| 2 * n.max(0));
    assert_eq!(observed, 2 * RUNS.iter().sum::<i64>());
}

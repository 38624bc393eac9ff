//! One array allocation costs, per execution, the array it makes: where the invariant bounds the
//! length without fixing it (a range clamped into an array, as commons-lang3's
//! `ArrayUtils.subarray` does), the bytes are those of the longest array the execution may make,
//! not a sum over every length the invariant allows (issue 23: that sum was quadratic in the
//! array's length). Fixture `slices`, written here after that shape; oracles: the Java code's
//! arithmetic run here, and a real run under the agent.

use membound_tests::{eval_method, fixture_certificate, validated_exactly};
use serde_json::Value;

const SLICE: &str = "slices.Slices.slice";

/// What `Slices.slice` allocates under hotspot-coops: one `int[]` of `to - from` cells after
/// the clamps (16-byte header, 4 bytes a cell, 8-byte alignment), or nothing.
fn slice_bytes(length: i64, from: i64, to: i64) -> i64 {
    let size = to.min(length) - from.max(0);
    if size <= 0 {
        0
    } else {
        (16 + 4 * size + 7) / 8 * 8
    }
}

#[test]
fn a_clamped_copy_costs_its_own_array_exactly() {
    let certificate = fixture_certificate("slices", SLICE, "hotspot-coops");
    for length in [0, 7, 100] {
        for from in [-3, 2] {
            for to in [-1, 3, 1000] {
                let point = format!("data_length={length},from={from},to={to}");
                let alloc = &eval_method(&certificate, SLICE, &point)["mem_alloc"];
                let expected = slice_bytes(length, from, to);
                assert_eq!(alloc["bytes"], Value::from(expected), "{point}");
                assert_eq!(
                    alloc["objects"],
                    Value::from(i64::from(expected > 0)),
                    "{point}"
                );
            }
        }
    }
}

#[test]
fn a_clamped_copy_validates_against_a_real_run() {
    let certificate = fixture_certificate("slices", SLICE, "hotspot-coops");
    validated_exactly(&certificate, "slices.Slices", &["100", "-5", "1000"]);
    validated_exactly(&certificate, "slices.Slices", &["9", "2", "6"]);
}

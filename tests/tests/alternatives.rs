//! Alternative targets of one virtual call: when each allocates a constant per call, a method's
//! total counts the largest once per execution (not every target's); when their allocation
//! depends on the execution, the total stays the sum of their chains, which a run picking the
//! larger target at every execution shows is needed (the larger target's own total is below
//! it). Oracles: hand counts of the fixture `alternatives` and runs under the agent.

use membound_tests::{eval_method, fixture_certificate, total_objects, validate_json};
use serde_json::json;

/// `main` with eight arguments: `k` = 8.
fn validated_totals(method: &str) -> (serde_json::Value, serde_json::Value) {
    let cert = fixture_certificate("alternatives", method, "count");
    let (code, json) = validate_json(&cert, "alternatives.Main", &["a"; 8]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["broken"], 0, "{json:#}");
    total_objects(json["comparisons"].as_array().expect("comparisons"))
}

#[test]
fn constant_alternatives_count_the_largest_once_per_call() {
    let cert = fixture_certificate("alternatives", "alternatives.Main.constant", "count");
    for k in [0, 1, 5] {
        let evaluated = eval_method(
            &cert,
            "alternatives.Main.constant",
            &format!("k={k},makers_length=2"),
        );
        // One or two objects per call: two, not three.
        assert_eq!(
            evaluated["mem_alloc"]["objects"],
            json!(2 * k),
            "k {k}: {evaluated:#}"
        );
    }
    // One and Two alternate: 4 + 8 objects.
    assert_eq!(
        validated_totals("alternatives.Main.constant"),
        (json!(12), json!(16))
    );
}

#[test]
fn alternatives_that_depend_on_the_execution_are_summed() {
    let cert = fixture_certificate("alternatives", "alternatives.Main.growing", "count");
    let k: i64 = 8;
    let evaluated = eval_method(
        &cert,
        "alternatives.Main.growing",
        &format!("k={k},growers_length={k}"),
    );
    let up: i64 = (0..k).sum();
    let down: i64 = (0..k).map(|i| k - i).sum();
    assert_eq!(evaluated["mem_alloc"]["objects"], json!(up + down));
    // Each execution takes the larger of i and k - i: more than Down's own total.
    let run: i64 = (0..k).map(|i| i.max(k - i)).sum();
    assert!(run > up.max(down), "{run} vs {up}, {down}");
    assert_eq!(
        validated_totals("alternatives.Main.growing"),
        (json!(run), json!(up + down))
    );
}

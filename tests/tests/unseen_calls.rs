//! Code the analysis cannot see makes a method ∞ call by call (fixture `unseen_calls`, issue 18
//! item 3): a native call the analysis counts 0 times (under a guard no argument satisfies, or
//! after a return every array length takes) adds nothing, so its method stays finite and
//! validates exactly against a real run; one that may run keeps the method ∞ with its reason.

use std::path::{Path, PathBuf};

use membound_tests::{
    analyze_into, compile_fixture, eval_method, membound, scratch_dir, validate_json,
    validated_exactly,
};
use serde_json::Value;

fn certificate(method: &str) -> PathBuf {
    let path = scratch_dir("unseen_calls").join(format!("{method}.json"));
    analyze_into(
        &compile_fixture("unseen_calls"),
        &format!("Guarded.{method}"),
        "count",
        &path,
    );
    path
}

fn objects_at(certificate: &Path, method: &str, point: &str) -> Value {
    eval_method(certificate, &format!("Guarded.{method}"), point)["mem_alloc"]["objects"].clone()
}

#[test]
fn a_native_call_under_a_guard_that_never_holds_adds_nothing() {
    let cert = certificate("impossible");
    assert_eq!(objects_at(&cert, "impossible", "n=7"), 1);
    validated_exactly(&cert, "Guarded", &["7"]);
}

#[test]
fn a_native_call_after_a_return_every_length_takes_adds_nothing() {
    let cert = certificate("rows");
    assert_eq!(objects_at(&cert, "rows", "widths_length=4"), 5);
    validated_exactly(&cert, "Guarded", &["4"]);
    validated_exactly(&cert, "Guarded", &["0"]);
}

#[test]
fn a_native_call_that_may_run_keeps_its_method_unbounded() {
    let cert = certificate("sometimes");
    let text = std::fs::read_to_string(&cert).expect("certificate");
    let json: Value = serde_json::from_str(&text).expect("JSON certificate");
    let method = &json["methods"][0];
    assert_eq!(method["mem_alloc"]["objects"], "infty", "{method:#}");
    assert!(text.contains("Guarded.unseen()V (native method)"), "{text}");
}

/// `BelowBudget.make`'s certificate with a call graph budget of one method: `fill` is not seen.
fn below_budget_certificate() -> PathBuf {
    let path = scratch_dir("unseen_calls").join("below_budget.json");
    let classes = compile_fixture("unseen_calls");
    let run = membound([
        "analyze".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        "BelowBudget.make".as_ref(),
        "--budget-methods".as_ref(),
        "1".as_ref(),
        "-o".as_ref(),
        path.as_os_str(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    path
}

/// The comparison of the run's `int[]`, made in `fill`.
fn fill_comparison(report: &Value) -> &Value {
    report["comparisons"]
        .as_array()
        .expect("comparisons")
        .iter()
        .find(|c| {
            c["what"].as_str().is_some_and(|w| w.contains("int[]")) && c["quantity"] == "objects"
        })
        .unwrap_or_else(|| panic!("no comparison of fill's int[]: {report:#}"))
}

#[test]
fn an_allocation_below_a_call_the_certificate_does_not_see_is_that_calls_infinity() {
    let cert = below_budget_certificate();
    let (code, report) = validate_json(&cert, "BelowBudget", &["5"]);
    assert_eq!(code, 0, "{report:#}");
    let fill = fill_comparison(&report);
    assert_eq!(fill["observed"], 1, "{fill}");
    assert_eq!(fill["predicted"], "infty", "{fill}");
    let what = fill["what"].as_str().expect("what");
    assert!(what.contains("through BelowBudget.fill(I)[I"), "{what}");
}

#[test]
fn an_allocation_below_a_method_that_claims_to_see_everything_is_compared_with_zero() {
    let cert = below_budget_certificate();
    // The same certificate with `make`'s reasons for unseen code removed: a claim that `fill`
    // allocates nothing, which the run refutes.
    let mut json: Value =
        serde_json::from_str(&std::fs::read_to_string(&cert).expect("certificate")).expect("JSON");
    let make = &mut json["methods"][0];
    assert!(
        make["unbounded"].as_array().is_some_and(|r| !r.is_empty()),
        "{make:#}"
    );
    make["unbounded"] = Value::Array(Vec::new());
    let edited = scratch_dir("unseen_calls").join("below_budget_edited.json");
    std::fs::write(&edited, json.to_string()).expect("write");
    let (code, report) = validate_json(&edited, "BelowBudget", &["5"]);
    assert_eq!(code, 1, "{report:#}");
    let fill = fill_comparison(&report);
    assert_eq!(
        (&fill["observed"], &fill["predicted"]),
        (&Value::from(1), &Value::from(0))
    );
}

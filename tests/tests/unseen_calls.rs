//! Code the analysis cannot see makes a method ∞ call by call (fixture `unseen_calls`, issue 18
//! item 3): a native call the analysis counts 0 times (under a guard no argument satisfies, or
//! after a return every array length takes) adds nothing, so its method stays finite and
//! validates exactly against a real run; one that may run keeps the method ∞ with its reason.

use std::path::{Path, PathBuf};

use membound_tests::{analyze_into, compile_fixture, eval_method, scratch_dir, validated_exactly};
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

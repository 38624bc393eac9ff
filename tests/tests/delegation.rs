//! Recursions whose cost does not grow with their depth (fixture `delegation`): decorators that
//! hand a call to the object they wrap, asked through their interface, so the call graph sees a
//! recursion whose depth follows objects. A chain allocates what its innermost object does,
//! whatever its depth, under the named assumption that the chain ends; a decorator that
//! allocates on every level keeps the recursion ∞. Oracles: real runs under the agent
//! (`validate`: never below, equal where exact) at several depths.

use std::path::PathBuf;

use membound_tests::{
    analyze_into, certificate_entry, compile_fixture, scratch_dir, total_objects, validate_json,
};
use serde_json::Value;

/// The certificate of `delegation.Decorators.<method>` in the `count` model (objects count 1,
/// array cells 1 byte each).
fn certificate(method: &str) -> PathBuf {
    let path = scratch_dir("delegation").join(format!("{method}.json"));
    analyze_into(
        &compile_fixture("delegation"),
        &format!("delegation.Decorators.{method}"),
        "count",
        &path,
    );
    path
}

const DEPTH_FREE: &str = "a recursion bounded without its depth";

#[test]
fn a_chain_of_decorators_allocates_what_its_innermost_shape_does() {
    let cert = certificate("measure");
    let entry = certificate_entry(&cert, "delegation.Decorators.measure");
    // The square's scratch `int[4]`: one object of four cells.
    assert_eq!(entry["mem_alloc"]["objects"], "(1)", "{entry:#}");
    assert_eq!(entry["mem_alloc"]["bytes"], "(4)", "{entry:#}");
    assert_eq!(entry["mem_rq"]["objects"], "(1)", "{entry:#}");
    let text = std::fs::read_to_string(&cert).expect("the certificate");
    assert!(text.contains(DEPTH_FREE), "{text}");
    // A caller may pass a Shape of its own, off the class path: the certificate says it is not.
    assert!(
        text.contains("of the input's extensible types are of classes on the class path")
            && text.contains("(delegation.Shape)"),
        "{text}"
    );
    for depth in ["0", "1", "6", "25"] {
        let (code, json) = validate_json(&cert, "delegation.Decorators", &[depth]);
        assert_eq!(code, 0, "{json:#}");
        assert_eq!(json["broken"], 0, "{json:#}");
        let (observed, predicted) = total_objects(json["comparisons"].as_array().expect("list"));
        assert_eq!(
            (observed, predicted),
            (Value::from(1), Value::from(1)),
            "depth {depth}"
        );
    }
}

#[test]
fn a_decorator_that_allocates_on_every_level_keeps_the_recursion_unbounded() {
    let cert = certificate("tally");
    let entry = certificate_entry(&cert, "delegation.Decorators.tally");
    assert_eq!(entry["mem_alloc"]["objects"], "infty", "{entry:#}");
    let reasons = entry["sites"].to_string();
    assert!(
        reasons.contains("recursion through delegation.Step.count"),
        "{reasons}"
    );
    let text = std::fs::read_to_string(&cert).expect("the certificate");
    assert!(!text.contains(DEPTH_FREE), "{text}");
}

/// A call with three targets, a journal whose line is longer for a label with text and two
/// decorators: one execution runs one of them, so the chain allocates the largest (not their
/// sum, which grew by a level every round); the journal's class initializer counts once, however
/// deep the chain.
#[test]
fn a_chain_whose_innermost_cost_depends_on_an_argument_takes_the_largest_target() {
    let cert = certificate("note");
    let entry = certificate_entry(&cert, "delegation.Decorators.note");
    // The line (`Object[1]` or `Object[2]`) and the shelf (`Object[1][]`) once.
    assert_eq!(
        entry["mem_alloc"]["objects"], "cases(label_length >= 0 -> (2); otherwise -> (0))",
        "{entry:#}"
    );
    for (depth, label) in [("0", "x"), ("3", ""), ("8", "text")] {
        let (code, json) = validate_json(&cert, "delegation.Decorators", &[depth, label]);
        assert_eq!(code, 0, "{json:#}");
        assert_eq!(json["broken"], 0, "{json:#}");
    }
}

//! Budgets end potentially unbounded work with a finite outcome that names them (issue 23):
//! the class initializer of commons-lang3's `StringUtils` (`Pattern.compile`, which reaches tens
//! of thousands of JDK methods through rapid type analysis) gives a call graph cut at its budget
//! of methods, and an analysis that is ∞ with that budget as its reason.

use std::path::Path;

use membound_tests::membound;
use serde_json::Value;

const STRING_UTILS_INIT: &str = "org.apache.commons.lang3.StringUtils.<clinit>";

fn commons_lang() -> String {
    let path = "/usr/share/java/commons-lang3.jar";
    assert!(
        Path::new(path).exists(),
        "{path} is missing: install the Debian package libcommons-lang3-java (bash .ci/run does)"
    );
    path.to_string()
}

fn json(args: &[&str]) -> Value {
    let run = membound(args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("valid JSON")
}

#[test]
fn a_class_initializer_call_graph_stops_at_its_budget_of_methods() {
    let jar = commons_lang();
    let graph = json(&[
        "callgraph",
        &jar,
        "--method",
        STRING_UTILS_INIT,
        "--format",
        "json",
        "--budget-methods",
        "400",
    ]);
    let reason = graph["budget_hit"].as_str().expect("the budget is reached");
    assert!(reason.contains("budget of 400 methods"), "{reason}");
    // The graph stops growing at the budget: past it only the last method read adds callees.
    let methods = graph["methods"].as_array().expect("methods");
    assert!(methods.len() < 1000, "{} methods", methods.len());
    // What the graph leaves out is said: the methods not read, and the virtual calls.
    assert!(methods.iter().any(|m| m["kind"] == "broken"), "{graph:#}");
    let unresolved = graph["unresolved"].as_array().expect("unresolved");
    assert!(
        unresolved
            .iter()
            .any(|call| call["reason"].as_str() == Some(reason)),
        "{unresolved:#?}"
    );
}

#[test]
fn a_class_initializer_past_the_budget_is_unbounded_with_the_budget_as_reason() {
    let jar = commons_lang();
    let certificate = json(&[
        "analyze",
        &jar,
        "--method",
        STRING_UTILS_INIT,
        "--format",
        "json",
        "-q",
        "--budget-methods",
        "50",
    ]);
    let entry = &certificate["methods"][0];
    assert_eq!(
        entry["method"],
        "org.apache.commons.lang3.StringUtils.<clinit>()V"
    );
    assert_eq!(entry["mem_alloc"]["bytes"], "infty", "{entry:#}");
    let reasons = entry["unbounded"].as_array().expect("reasons");
    assert!(
        reasons.iter().any(|r| r
            .as_str()
            .is_some_and(|r| r.contains("reached its budget of 50 methods"))),
        "{reasons:#?}"
    );
}

#[test]
fn sites_stop_at_their_budget_of_chains_and_say_so() {
    let jar = commons_lang();
    let run = membound([
        "sites",
        &jar,
        "--method",
        STRING_UTILS_INIT,
        "--budget-methods",
        "400",
        "--budget-chains",
        "200",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("stopped after 200 chains (the enumeration's budget): raise --budget-chains"),
        "{}",
        run.stdout
    );
}

//! `membound callgraph` and `sites` on the dispatch fixture: RTA, the CHA fallback, lambdas,
//! constructor references, string concatenation, static initializers, recursion, overloads.

use membound_tests::{compile_fixture, fixture_json, membound};
use serde_json::Value;

fn json_of(command: &str, method: &str) -> Value {
    fixture_json(command, "dispatch", method)
}

/// The callees of `caller` in the graph, with the kind of each edge.
fn callees(graph: &Value, caller: &str) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = graph["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .filter(|e| e["caller"] == caller)
        .map(|e| {
            (
                e["callee"].as_str().unwrap().to_string(),
                e["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    found.sort();
    found
}

const MAIN: &str = "dispatch.Main.main([Ljava/lang/String;)V";

#[test]
fn rta_dispatches_only_to_instantiated_classes() {
    let graph = json_of("callgraph", MAIN);
    let from_main = callees(&graph, MAIN);
    let has = |callee: &str, kind: &str| from_main.iter().any(|(c, k)| c == callee && k == kind);
    assert!(has("dispatch.Square.area()D", "interface"), "{from_main:?}");
    assert!(has("dispatch.Circle.area()D", "interface"), "{from_main:?}");
    assert!(
        !from_main
            .iter()
            .any(|(c, _)| c.starts_with("dispatch.Hexagon")),
        "{from_main:?}"
    );
}

/// `measure(Shape)` gets its shape from outside: any of the application's classes implementing
/// `Shape` may be the receiver, created or not in the analyzed code.
#[test]
fn a_receiver_from_outside_may_be_any_application_class() {
    let graph = json_of("callgraph", "dispatch.Main.measure");
    let edges: Vec<&Value> = graph["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .filter(|e| e["caller"] == "dispatch.Main.measure(Ldispatch/Shape;)D")
        .collect();
    let targets: Vec<&str> = edges
        .iter()
        .map(|e| e["callee"].as_str().unwrap())
        .collect();
    for shape in ["Square", "Circle", "Hexagon"] {
        assert!(
            targets.contains(&format!("dispatch.{shape}.area()D").as_str()),
            "{targets:?}"
        );
    }
    assert!(edges.iter().all(|e| e["dispatch"] == "rta"), "{edges:?}");
}

/// Lambdas are edges; `Main`'s own initializer is not one from `main`: it has run before
/// any of `Main`'s code (tests/tests/initializers.rs has an initializer that is an edge).
#[test]
fn lambdas_are_edges_and_a_class_never_initializes_itself() {
    let graph = json_of("callgraph", MAIN);
    let from_main = callees(&graph, MAIN);
    let lambda: Vec<&(String, String)> = from_main.iter().filter(|(_, k)| k == "lambda").collect();
    assert!(
        lambda
            .iter()
            .any(|(c, _)| c.starts_with("dispatch.Main.lambda$main$")),
        "{from_main:?}"
    );
    assert!(
        lambda.iter().any(|(c, _)| c == "dispatch.Box.<init>()V"),
        "constructor reference: {from_main:?}"
    );
    assert!(
        from_main
            .iter()
            .all(|(c, _)| c != "dispatch.Main.<clinit>()V"),
        "{from_main:?}"
    );
}

#[test]
fn recursion_is_reported_as_components() {
    let graph = json_of("callgraph", MAIN);
    let components = graph["recursive_components"]
        .as_array()
        .expect("components");
    let as_lists: Vec<Vec<&str>> = components
        .iter()
        .map(|c| {
            c.as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap())
                .collect()
        })
        .collect();
    assert!(
        as_lists.contains(&vec!["dispatch.Main.factorial(I)I"]),
        "{as_lists:?}"
    );
    assert!(
        as_lists
            .iter()
            .any(|c| c.contains(&"dispatch.Main.even(I)Z") && c.contains(&"dispatch.Main.odd(I)Z")),
        "{as_lists:?}"
    );
}

#[test]
fn sites_cover_hidden_allocations_and_cut_recursion() {
    let sites = json_of("sites", MAIN);
    let list = sites["sites"].as_array().expect("sites");
    let kinds: Vec<(&str, &str)> = list
        .iter()
        .map(|s| (s["kind"].as_str().unwrap(), s["type"].as_str().unwrap()))
        .collect();
    assert!(
        kinds.contains(&("string-concat", "java.lang.String")),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&("constructor-reference", "dispatch.Box")),
        "{kinds:?}"
    );
    assert!(kinds.contains(&("object", "dispatch.Square")), "{kinds:?}");
    assert!(kinds.contains(&("array", "int[]")), "{kinds:?}");
    let helper_array = list
        .iter()
        .find(|s| {
            s["type"] == "int[]"
                && s["chain"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|e| e["method"] == "dispatch.Main.helper(I)V")
        })
        .expect("the lambda's helper allocation is reached through the lambda edge");
    assert_eq!(helper_array["dims"], serde_json::json!(["n + 1"]));
    let cycles = sites["cycles"].as_array().expect("cycles");
    assert!(!cycles.is_empty(), "the even/odd recursion is reported");
}

#[test]
fn an_overloaded_name_needs_a_descriptor() {
    let classes = compile_fixture("dispatch");
    let ambiguous = membound([
        "sites".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        "dispatch.Main.overloaded".as_ref(),
    ]);
    assert_eq!(ambiguous.code, 2);
    assert!(
        ambiguous.stderr.contains("dispatch.Main.overloaded(I)V"),
        "{}",
        ambiguous.stderr
    );
    assert!(
        ambiguous.stderr.contains("dispatch.Main.overloaded(J)V"),
        "{}",
        ambiguous.stderr
    );
    let chosen = membound([
        "sites".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        "dispatch.Main.overloaded(J)V".as_ref(),
    ]);
    assert_eq!(chosen.code, 0, "{}", chosen.stderr);
}

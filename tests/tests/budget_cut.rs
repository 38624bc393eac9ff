//! What a call graph cut at its budget of methods still knows (issue 18, item 2): the budget
//! counts the methods whose code is read, not the spec'd leaves (a `throw` reaching the
//! Throwable constructors and their spec'd natives fits in as many methods as it reads); a call
//! whose target the instruction or the whole hierarchy decides stays resolved at the cut; a call
//! on the method's own object reaches its class's method only; and a real overflow is ∞ with the
//! budget as its reason.

use std::collections::BTreeMap;
use std::path::PathBuf;

use membound_tests::{compile_fixture, membound};
use serde_json::Value;

fn classes() -> PathBuf {
    compile_fixture("budget_cut")
}

fn json(args: &[&str]) -> Value {
    let classes = classes();
    let mut all = vec![args[0], classes.to_str().expect("utf-8 path")];
    all.extend_from_slice(&args[1..]);
    all.extend_from_slice(&["--format", "json"]);
    let run = membound(all);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("valid JSON")
}

fn call_graph(method: &str, budget: usize) -> Value {
    json(&[
        "callgraph",
        "--method",
        method,
        "--budget-methods",
        &budget.to_string(),
    ])
}

fn unresolved_targets(graph: &Value) -> Vec<&str> {
    graph["unresolved"]
        .as_array()
        .expect("unresolved calls")
        .iter()
        .map(|call| call["target"].as_str().expect("target"))
        .collect()
}

#[test]
fn calls_the_instruction_or_the_hierarchy_decides_stay_resolved_at_the_cut() {
    // A budget of one method: only `run` is read.
    let graph = call_graph("BudgetCut.run", 1);
    let reason = graph["budget_hit"].as_str().expect("the budget is reached");
    assert!(reason.contains("budget of 1 methods"), "{reason}");
    let unresolved = unresolved_targets(&graph);
    for decided in [
        "BudgetCut.own()I",           // private
        "BudgetCut.fixed()I",         // final
        "java.lang.String.length()I", // a final class's
        "BudgetCut$Shape.corners()I", // both classes of its hierarchy are the parameter's
    ] {
        assert!(!unresolved.contains(&decided), "{decided}: {graph:#}");
    }
    // `Open.make`, past the budget, creates the receiver of `size()`: it is unresolved, with the
    // budget as the reason.
    let open = graph["unresolved"]
        .as_array()
        .expect("unresolved calls")
        .iter()
        .find(|call| call["target"] == "BudgetCut$Open.size()I")
        .unwrap_or_else(|| panic!("Open.size is open at the cut: {graph:#}"));
    assert_eq!(open["reason"].as_str(), Some(reason), "{open}");
}

/// The targets of each call of `size()` in `method`'s graph, by offset, and whether each was
/// exact.
fn size_calls(method: &str) -> Vec<Vec<(String, bool)>> {
    let graph = call_graph(method, 1000);
    let mut sizes: BTreeMap<u64, Vec<(String, bool)>> = BTreeMap::new();
    for edge in graph["edges"].as_array().expect("edges") {
        let callee = edge["callee"].as_str().expect("callee");
        if callee.ends_with(".size()I") {
            let offset = edge["offset"].as_u64().expect("offset");
            let exact = edge["dispatch"] == "exact";
            sizes
                .entry(offset)
                .or_default()
                .push((callee.to_string(), exact));
        }
    }
    sizes
        .into_values()
        .map(|mut targets| {
            targets.sort();
            targets
        })
        .collect()
}

fn open(exact: bool) -> (String, bool) {
    ("BudgetCut$Open.size()I".to_string(), exact)
}

fn wider(exact: bool) -> (String, bool) {
    ("BudgetCut$Wider.size()I".to_string(), exact)
}

#[test]
fn a_call_on_the_method_s_own_object_reaches_only_its_class_s_method() {
    // `mine` creates an `Open` and a `Wider`: rapid type analysis alone would send every call of
    // `size()` to both classes' methods. The calls on its own objects reach one each, exactly;
    // the call on an object `Open.make` may have made (in a variable the lifter shares with
    // the first) still reaches both.
    assert_eq!(
        size_calls("BudgetCut.mine"),
        vec![
            vec![open(true)],
            vec![wider(true)],
            vec![open(false), wider(false)]
        ]
    );
}

#[test]
fn a_handler_sees_what_its_block_assigned_before_the_throw() {
    // In the try block `open` is the method's own object at the call; the handler may see the
    // object `make` returned before the division threw.
    assert_eq!(
        size_calls("BudgetCut.rescued"),
        vec![vec![open(true)], vec![open(false), wider(false)]]
    );
}

/// The methods of a complete call graph whose code is read.
fn methods_with_code(graph: &Value) -> usize {
    graph["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .filter(|method| method["kind"] == "code")
        .count()
}

/// The certificate's entry of `checked` analyzed with a budget of `budget` methods.
fn checked_entry(budget: usize) -> Value {
    let certificate = json(&[
        "analyze",
        "--method",
        "BudgetCut.checked",
        "-q",
        "--budget-methods",
        &budget.to_string(),
    ]);
    certificate["methods"][0].clone()
}

#[test]
fn a_throw_reaching_spec_d_natives_fits_a_budget_of_the_methods_it_reads() {
    let complete = call_graph("BudgetCut.checked", 1000);
    assert!(complete["budget_hit"].is_null(), "{complete:#}");
    let read = methods_with_code(&complete);
    let spec_d = complete["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .filter(|method| {
            method["method"] == "java.lang.Throwable.fillInStackTrace(I)Ljava/lang/Throwable;"
        })
        .count();
    assert_eq!(
        spec_d, 1,
        "the throw reaches the spec'd native: {complete:#}"
    );
    // As many methods as it reads: the spec'd leaves are not counted.
    let exact = call_graph("BudgetCut.checked", read);
    assert!(exact["budget_hit"].is_null(), "{exact:#}");
    let entry = checked_entry(read);
    assert_eq!(entry["method"], "BudgetCut.checked(I)[I");
    assert_ne!(entry["mem_alloc"]["bytes"], "infty", "{entry:#}");
    assert!(entry["unbounded"].is_null(), "{entry:#}");
}

#[test]
fn one_method_fewer_than_the_throw_reads_is_unbounded_with_the_budget_as_reason() {
    let read = methods_with_code(&call_graph("BudgetCut.checked", 1000));
    let budget = read - 1;
    let entry = checked_entry(budget);
    assert_eq!(entry["mem_alloc"]["bytes"], "infty", "{entry:#}");
    let named = format!("reached its budget of {budget} methods (--budget-methods raises it)");
    let reasons = entry["unbounded"].as_array().expect("reasons");
    assert!(
        reasons
            .iter()
            .any(|r| r.as_str().is_some_and(|r| r.contains(&named))),
        "{reasons:#?}"
    );
}

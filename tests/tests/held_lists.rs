//! Lists held in a field of an object (fixture `held_lists`, JOlden mst's `makeVertices` then
//! `addEdges`): a method that creates a bag and inserts n nodes at the head of `bag.first`
//! returns a bag whose list has n nodes; its caller binds a callee's walk of `bag.first`
//! (`bag_first_length`) to that length, and a method walking the list it built itself is bounded
//! by it too: exact and equal to real runs. A data-dependent number of insertions bounds the
//! walk, never below a run; a callee inserting or a store relinking the list between the build
//! and the walk leaves it unbounded, saying which call.

use membound_tests::{
    analyze_into, certificate_params, compile_java_tree, eval_method, fixture_certificate, pair,
    scratch_dir, validate_json, validated_exactly, workspace_root,
};

const RUN: &str = "held.Lists";

/// The certificate (count model) of `method`, whose one parameter is `(name, origin)`.
fn certificate(method: &str, param: (&str, &str)) -> std::path::PathBuf {
    let certificate = fixture_certificate("held_lists", method, "count");
    assert_eq!(
        certificate_params(&certificate, method),
        vec![pair(param.0, param.1)]
    );
    certificate
}

/// The objects `method` allocates for `n = -2..=6` equal `expected`, and `validate` of a run of
/// the fixture's main (n = 0..=5) matches every comparison exactly.
fn exact_and_validated(method: &str, expected: impl Fn(i64) -> i64) {
    let certificate = certificate(method, ("n", "parameter 0 (int n)"));
    for n in -2..=6 {
        let json = eval_method(&certificate, method, &format!("n={n}"));
        assert_eq!(json["mem_alloc"]["objects"], expected(n), "{method}({n})");
    }
    validated_exactly(&certificate, RUN, &[]);
}

#[test]
fn a_callee_walking_the_list_a_returned_bag_holds_is_bound_to_its_length() {
    // The bag and n nodes, then two walks of one visit per node in the callee.
    exact_and_validated("held.Lists.fillThenVisit", |n| 1 + 3 * n.max(0));
}

#[test]
fn the_length_passes_through_a_method_returning_the_bag_it_was_given() {
    exact_and_validated("held.Lists.filledThenVisit", |n| 1 + 2 * n.max(0));
}

#[test]
fn a_walk_of_a_list_a_method_built_in_its_own_bag_visits_what_was_built() {
    exact_and_validated("held.Lists.buildThenWalk", |n| 1 + 2 * n.max(0));
}

#[test]
fn a_data_dependent_number_of_insertions_bounds_the_walk_without_going_below_a_run() {
    let method = "held.Lists.positivesThenVisit";
    let certificate = certificate(method, ("values_length", "length of parameter 0 (values)"));
    // At most one node and one visit per value, and the bag: 2 L + 1. The walk runs once, with
    // one length between 0 and L, so it costs at most L (not the sum over every length).
    for length in 0..=6_i64 {
        let json = eval_method(&certificate, method, &format!("values_length={length}"));
        assert_eq!(
            json["mem_alloc"]["objects"],
            2 * length + 1,
            "{length}: {json:#}"
        );
    }
    let (code, json) = validate_json(&certificate, RUN, &[]);
    assert_eq!(code, 0, "{json:#}");
    let comparisons = json["comparisons"].as_array().expect("comparisons");
    assert!(!comparisons.is_empty(), "{json:#}");
}

/// `method`'s certificate: unbounded at n = 3, through the call to `visit` at `pc`.
fn unbounded_through_visit(method: &str, pc: u32) {
    let certificate = certificate(method, ("n", "parameter 0 (int n)"));
    let json = eval_method(&certificate, method, "n=3");
    assert_eq!(json["mem_alloc"]["objects"], "infty", "{json:#}");
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    let reason = format!(
        "the call at offset {pc} of {method}(I)I to held.Lists.visit(Lheld/Lists$Bag;)I: its \
         bound depends on bag_first_length"
    );
    assert!(text.contains(&reason), "{text}");
}

#[test]
fn a_callee_inserting_into_the_list_between_build_and_walk_leaves_the_walk_unbounded() {
    unbounded_through_visit("held.Lists.pushedBetween", 24);
}

#[test]
fn a_store_relinking_the_list_between_build_and_walk_leaves_the_walk_unbounded() {
    unbounded_through_visit("held.Lists.relinkedBetween", 29);
}

#[test]
fn jolden_mst_main_walks_the_vertices_make_vertices_returns() {
    // `Graph graph = makeVertices(nv); addEdges(graph, nv)`: `addEdges`' `g_first_length` is
    // bound to the nv vertices inserted at the head of `graph.first`.
    let classes = compile_java_tree("jolden", &workspace_root().join("benchmarks-jolden/java"));
    let certificate = scratch_dir("held-lists-mst").join("mst.json");
    analyze_into(&classes, "mst.MST.main", "count", &certificate);
    let json = eval_method(&certificate, "mst.MST.main", "args_length=2,nv=20,cost=0");
    assert!(json["mem_alloc"]["objects"].is_u64(), "{json:#}");
    for nv in ["7", "20"] {
        let (code, json) = validate_json(&certificate, "mst.MST", &["-v", nv]);
        assert_eq!(code, 0, "{json:#}");
        let comparisons = json["comparisons"].as_array().expect("comparisons");
        assert!(!comparisons.is_empty(), "{json:#}");
    }
}

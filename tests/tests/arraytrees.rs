//! Recursions over trees whose nodes keep their children in an array field
//! (tests/fixtures/arraytrees: `Node[] kids` of a fixed arity): a method that hands the
//! elements to itself, in a loop (`for (i = 0; i < ARITY; i++) boxes(n.kids[i])`) or at
//! constant indices, is bounded by the size of the tree reachable from its parameter through
//! the elements (`n_size`; the sum of the elements' sizes `n_kids_size`), under the named
//! assumption that no node is reached twice. The calls of one activation on distinct elements
//! share that sum, while the activations on null elements count one per call the loop makes.
//! Exact where each activation allocates a constant, and equal to real runs, where the agent
//! records the sizes at each entry by walking the arrays' elements; a shared subtree is a
//! broken assumption (exit 1).

use membound_tests::{
    certificate_params, eval_method, fixture_certificate, pair, total_objects, validate_json,
    validate_text,
};

const TREE_SHAPED: &str = "reaches no node twice along the fields followed";

/// The tree-size parameters of a method of `arraytrees.Walks` whose parameter is `n`.
fn tree_params() -> Vec<(String, String)> {
    let along = "along arraytrees.Node.kids[]";
    vec![
        pair(
            "n_size",
            &format!("size of the tree from parameter 0 (n) {along}"),
        ),
        pair(
            "n_kids_size",
            &format!("size of the tree from field kids of parameter 0 (n) {along}"),
        ),
    ]
}

/// The objects `method`'s certificate (count model) predicts for trees of 0..=7 nodes.
fn objects_by_size(method: &str) -> Vec<i64> {
    let certificate = fixture_certificate("arraytrees", method, "count");
    assert_eq!(certificate_params(&certificate, method), tree_params());
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    assert!(text.contains(TREE_SHAPED), "{text}");
    (0..=7i64)
        .map(|size| {
            let params = format!("n_size={size},n_kids_size={}", (size - 1).max(0));
            let json = eval_method(&certificate, method, &params);
            json["mem_alloc"]["objects"]
                .as_i64()
                .expect("a finite count")
        })
        .collect()
}

#[test]
fn a_loop_over_the_elements_allocating_per_node_is_the_size_of_the_tree() {
    assert_eq!(
        objects_by_size("arraytrees.Walks.boxes"),
        vec![0, 1, 2, 3, 4, 5, 6, 7]
    );
}

#[test]
fn a_loop_over_the_elements_allocating_per_null_element_counts_every_call_it_makes() {
    // Three calls per node: the size plus twice the size plus one calls on null elements.
    assert_eq!(
        objects_by_size("arraytrees.Walks.ends"),
        vec![1, 3, 5, 7, 9, 11, 13, 15]
    );
}

#[test]
fn calls_at_distinct_constant_indices_share_the_elements_sizes() {
    assert_eq!(
        objects_by_size("arraytrees.Walks.firstTwo"),
        vec![0, 1, 2, 3, 4, 5, 6, 7]
    );
}

#[test]
fn a_caller_binds_the_size_of_the_tree_it_passes_on() {
    assert_eq!(
        objects_by_size("arraytrees.Walks.twice"),
        vec![0, 2, 4, 6, 8, 10, 12, 14]
    );
}

#[test]
fn a_loop_calling_on_one_element_on_every_iteration_is_not_split() {
    // A path of three nodes in the first slots: 1 + 3 + 9 activations on them.
    let method = "arraytrees.Walks.firstRepeated";
    let certificate = fixture_certificate("arraytrees", method, "count");
    assert_eq!(certificate_params(&certificate, method), tree_params());
    let json = eval_method(&certificate, method, "n_size=3,n_kids_size=2");
    let objects = json["mem_alloc"]["objects"].as_i64();
    assert!(objects.is_none_or(|count| count >= 13), "{json:#}");
}

#[test]
fn a_walk_that_stores_into_the_arrays_has_no_tree() {
    let method = "arraytrees.Walks.detach";
    let certificate = fixture_certificate("arraytrees", method, "count");
    assert!(certificate_params(&certificate, method).is_empty());
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    assert!(
        text.contains("recursion through arraytrees.Walks.detach"),
        "{text}"
    );
}

/// Validates `method`'s certificate against a run of `arraytrees.Walks` (complete ternary
/// trees of depth 0 to 3, spines of 0 to 4 nodes): the totals exact, or only never below with
/// `exact` false; the total objects observed.
fn validated_objects(method: &str, exact: bool) -> i64 {
    let certificate = fixture_certificate("arraytrees", method, "count");
    let (code, report) = validate_json(&certificate, "arraytrees.Walks", &[]);
    assert_eq!(code, 0, "{report:#}");
    let comparisons = report["comparisons"].as_array().expect("comparisons");
    let (observed, predicted) = total_objects(comparisons);
    if exact {
        assert_eq!(observed, predicted, "{report:#}");
    }
    // What the recursive calls contribute to a site is at most the whole walk's.
    let objects = comparisons.iter().filter(|c| c["quantity"] == "objects");
    for comparison in objects {
        assert!(
            comparison["predicted"].as_i64() <= predicted.as_i64(),
            "{comparison:#}"
        );
    }
    observed.as_i64().expect("a count")
}

#[test]
fn runs_bind_sizes_recorded_through_the_elements_and_match_exactly() {
    // Complete trees of 0 + 1 + 4 + 13 nodes, spines of 0 + 1 + 2 + 3 + 4: 18 + 10 nodes, and
    // twice the complete trees from `twice`.
    assert_eq!(
        validated_objects("arraytrees.Walks.boxes", true),
        28 + 2 * 18
    );
    // One per null element: twice the size plus one per tree, 9 trees.
    assert_eq!(validated_objects("arraytrees.Walks.ends", true), 2 * 28 + 9);
    assert_eq!(validated_objects("arraytrees.Walks.twice", true), 2 * 18);
    // The first two slots only: 0 + 1 + 3 + 7 of the complete trees, all of the spines.
    assert_eq!(
        validated_objects("arraytrees.Walks.firstTwo", false),
        11 + 10
    );
}

#[test]
fn a_subtree_in_two_slots_breaks_the_tree_assumption() {
    let method = "arraytrees.Walks.boxes";
    let certificate = fixture_certificate("arraytrees", method, "count");
    let run = validate_text(&certificate, "arraytrees.Shared");
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(
            "BROKEN assumption TREE_SHAPED at entry 1 of arraytrees.Walks.boxes(Larraytrees/Node;)I: the tree from parameter 0 (n) along arraytrees.Node.kids[] reaches a node twice (a shared subtree or a cycle) (parameter n_size)"
        ) && run.stdout.contains("not checked: the run breaks an assumption"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("total objects"), "{}", run.stdout);
}

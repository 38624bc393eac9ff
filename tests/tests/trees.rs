//! Recursions over hand-written binary trees (tests/fixtures/trees): a method that hands both
//! children of its parameter to itself (`boxes(t.left) + boxes(t.right)`), or a method of the
//! node called on its children (`left.count()`), is bounded by the size of the tree reachable
//! from the parameter (or `this`) along those fields, a parameter named after it (`t_size`, with
//! its children's `t_left_size` and `t_right_size`), under the named assumption that no node is
//! reached twice. Exact where each activation allocates a constant, and equal
//! to real runs, where the agent records the sizes at each entry; a shared subtree is a broken
//! assumption (exit 1).

use membound_tests::{
    certificate_params, eval_method, fixture_certificate, pair, total_objects, validate_json,
    validate_text,
};

const TREE_SHAPED: &str = "reaches no node twice along the fields followed";

/// The tree-size parameters of a method of `trees.Walks` whose parameter is `t`.
fn tree_params() -> Vec<(String, String)> {
    let along = "along trees.Tree.left, trees.Tree.right";
    vec![
        pair(
            "t_size",
            &format!("size of the tree from parameter 0 (t) {along}"),
        ),
        pair(
            "t_left_size",
            &format!("size of the tree from field left of parameter 0 (t) {along}"),
        ),
        pair(
            "t_right_size",
            &format!("size of the tree from field right of parameter 0 (t) {along}"),
        ),
    ]
}

/// The objects `method`'s certificate (count model) predicts for trees of 0..=7 nodes, the root's
/// children holding the other nodes as evenly as they can.
fn objects_by_size(method: &str) -> Vec<i64> {
    let certificate = fixture_certificate("trees", method, "count");
    assert_eq!(certificate_params(&certificate, method), tree_params());
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    assert!(text.contains(TREE_SHAPED), "{text}");
    (0..=7i64)
        .map(|size| {
            let left = (size - 1).max(0) / 2;
            let right = (size - 1).max(0) - left;
            let params = format!("t_size={size},t_left_size={left},t_right_size={right}");
            let json = eval_method(&certificate, method, &params);
            json["mem_alloc"]["objects"]
                .as_i64()
                .expect("a finite count")
        })
        .collect()
}

#[test]
fn a_walk_allocating_per_node_is_the_size_of_the_tree() {
    assert_eq!(
        objects_by_size("trees.Walks.boxes"),
        vec![0, 1, 2, 3, 4, 5, 6, 7]
    );
    // A field of another type handed to a call is not a branch.
    assert_eq!(
        objects_by_size("trees.Walks.labelled"),
        vec![0, 1, 2, 3, 4, 5, 6, 7]
    );
    // Children read into locals first, two objects per node.
    assert_eq!(
        objects_by_size("trees.Walks.pairs"),
        vec![0, 2, 4, 6, 8, 10, 12, 14]
    );
}

#[test]
fn a_walk_allocating_per_null_child_is_the_size_plus_one() {
    assert_eq!(
        objects_by_size("trees.Walks.ends"),
        vec![1, 2, 3, 4, 5, 6, 7, 8]
    );
}

#[test]
fn a_walk_allocating_at_leaves_is_bounded_by_the_size_plus_one() {
    // A tree of n nodes has at most (n + 1) / 2 leaves: sound, not exact, but for one node
    // (no children: the recursion solver sees the activation make no recursive call).
    assert_eq!(
        objects_by_size("trees.Walks.leaves"),
        vec![0, 1, 3, 4, 5, 6, 7, 8]
    );
}

#[test]
fn a_method_of_the_node_called_on_the_children_it_has_is_the_size_of_its_tree() {
    let method = "trees.Tree.count";
    let certificate = fixture_certificate("trees", method, "count");
    let along = "along trees.Tree.left, trees.Tree.right";
    let expected = [
        ("this_size", "size of the tree from this".to_string()),
        (
            "left_size",
            "size of the tree from field left of this".to_string(),
        ),
        (
            "right_size",
            "size of the tree from field right of this".to_string(),
        ),
    ]
    .map(|(name, origin)| pair(name, &format!("{origin} {along}")));
    assert_eq!(certificate_params(&certificate, method), expected.to_vec());
    let counts: Vec<i64> = (1..=7i64)
        .map(|size| {
            let left = (size - 1) / 2;
            let params = format!(
                "this_size={size},left_size={left},right_size={}",
                size - 1 - left
            );
            let json = eval_method(&certificate, method, &params);
            json["mem_alloc"]["objects"].as_i64().expect("finite")
        })
        .collect();
    assert_eq!(counts, vec![1, 2, 3, 4, 5, 6, 7]);
}

#[test]
fn a_caller_binds_the_sizes_of_the_children_of_the_tree_it_passes_on() {
    let method = "trees.Walks.endsTwice";
    let certificate = fixture_certificate("trees", method, "count");
    assert_eq!(certificate_params(&certificate, method), tree_params());
    let json = eval_method(
        &certificate,
        method,
        "t_size=0,t_left_size=0,t_right_size=0",
    );
    assert_eq!(json["mem_alloc"]["objects"].as_i64(), Some(2));
    let json = eval_method(
        &certificate,
        method,
        "t_size=5,t_left_size=2,t_right_size=2",
    );
    assert_eq!(json["mem_alloc"]["objects"].as_i64(), Some(12));
}

#[test]
fn a_caller_binds_the_size_of_the_tree_it_passes_on() {
    assert_eq!(
        objects_by_size("trees.Walks.twice"),
        vec![0, 2, 4, 6, 8, 10, 12, 14]
    );
}

/// Validates `method`'s certificate against a run of `trees.Walks` (complete trees of depth 0
/// to 3, combs of 0 to 4 nodes): the totals exact, or only never below with `exact` false; the
/// total objects observed.
fn validated_objects(method: &str, exact: bool) -> i64 {
    let certificate = fixture_certificate("trees", method, "count");
    let (code, report) = validate_json(&certificate, "trees.Walks", &[]);
    assert_eq!(code, 0, "{report:#}");
    let comparisons = report["comparisons"].as_array().expect("comparisons");
    let (observed, predicted) = total_objects(comparisons);
    if exact {
        assert_eq!(observed, predicted, "{report:#}");
    }
    observed.as_i64().expect("a count")
}

#[test]
fn runs_bind_tree_sizes_recorded_at_entry_and_match_exactly() {
    // Complete trees of 0 + 1 + 3 + 7 nodes, combs of 0 + 1 + 3 + 5 + 7: 11 + 16 nodes.
    assert_eq!(validated_objects("trees.Walks.boxes", true), 27 + 2 * 11);
    assert_eq!(validated_objects("trees.Walks.pairs", true), 2 * 11);
    assert_eq!(validated_objects("trees.Walks.labelled", true), 11);
    // One per null child: the size plus one per tree, 9 trees, and twice more for the complete
    // ones from `endsTwice`.
    assert_eq!(validated_objects("trees.Walks.ends", true), 27 + 9 + 2 * 15);
    assert_eq!(validated_objects("trees.Walks.twice", true), 2 * 11);
    // The sizes of the tree and of its children passed on: 2 * (1 + 2 + 4 + 8).
    assert_eq!(validated_objects("trees.Walks.endsTwice", true), 30);
    // Called on the non-empty trees only, and by each node on the children it has.
    assert_eq!(validated_objects("trees.Tree.count", true), 27);
    // Leaves: 0 + 1 + 2 + 4 and 0 + 1 + 2 + 3 + 4.
    assert_eq!(validated_objects("trees.Walks.leaves", false), 17);
}

#[test]
fn a_shared_subtree_breaks_the_tree_assumption() {
    let method = "trees.Walks.boxes";
    let certificate = fixture_certificate("trees", method, "count");
    let run = validate_text(&certificate, "trees.Shared");
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(
            "BROKEN assumption TREE_SHAPED at entry 1 of trees.Walks.boxes(Ltrees/Tree;)I: the tree from parameter 0 (t) along trees.Tree.left, trees.Tree.right reaches a node twice (a shared subtree or a cycle) (parameter t_size)"
        ) && run.stdout.contains("not checked: the run breaks an assumption"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("total objects"), "{}", run.stdout);
}

//! Lists a method builds itself (fixture `built_lists`, the JOlden shape "build then walk"): n
//! insertions at the head (`node.next = head; head = node` on a node just created) give a list
//! of n nodes, and a walk from its head, in the method or in a callee handed the head, is
//! bounded by them: exact, without any assumption, and equal to real runs. A node relinked
//! after its insertion leaves the walk unbounded.

use membound_tests::{
    certificate_params, eval_method, fixture_certificate, pair, validated_exactly,
};

const ACYCLIC: &str = "is acyclic along the field walked";

/// The certificate (count model) of `method`, with `n` its one parameter; it assumes chains
/// acyclic only when a callee walks a chain it is handed (`visit`'s own parameter).
fn certificate(method: &str, callee_walks: bool) -> std::path::PathBuf {
    let certificate = fixture_certificate("built_lists", method, "count");
    assert_eq!(
        certificate_params(&certificate, method),
        vec![pair("n", "parameter 0 (int n)")]
    );
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    assert_eq!(text.contains(ACYCLIC), callee_walks, "{text}");
    certificate
}

/// The objects predicted at n = -2..=6 equal `expected`, and `validate` of a run of
/// `built.Lists` (n = 0..=5) matches every comparison exactly.
fn exact_and_validated(method: &str, callee_walks: bool, expected: impl Fn(i64) -> i64) {
    let certificate = certificate(method, callee_walks);
    for n in -2..=6 {
        let json = eval_method(&certificate, method, &format!("n={n}"));
        assert_eq!(json["mem_alloc"]["objects"], expected(n), "{method}({n})");
    }
    validated_exactly(&certificate, "built.Lists", &[]);
}

#[test]
fn a_walk_of_a_list_built_by_insertions_visits_what_was_built() {
    // n nodes, then one visit per node.
    exact_and_validated("built.Lists.buildThenWalk", false, |n| 2 * n.max(0));
}

#[test]
fn a_constructor_that_links_the_new_node_in_front_inserts_too() {
    // `head = new Node(i, head)`: n nodes, then one visit per node.
    exact_and_validated("built.Lists.linkedByConstructor", false, |n| 2 * n.max(0));
}

#[test]
fn a_callee_walking_the_built_list_is_bound_to_its_length() {
    // n nodes, then two walks in the callee.
    exact_and_validated("built.Lists.buildThenVisit", true, |n| 3 * n.max(0));
}

/// The certificate of `method` has an unbounded count at n = 3.
fn unbounded(method: &str) {
    let certificate = certificate(method, false);
    let json = eval_method(&certificate, method, "n=3");
    assert_eq!(json["mem_alloc"]["objects"], "infty", "{json:#}");
}

#[test]
fn a_node_relinked_after_insertion_leaves_the_walk_unbounded() {
    unbounded("built.Lists.relinked");
}

#[test]
fn a_constructor_that_links_another_node_to_the_new_one_leaves_the_walk_unbounded() {
    unbounded("built.Lists.appendedByConstructor");
}

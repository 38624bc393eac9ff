//! Loops over hand-written linked lists (tests/fixtures/linked_lists): a walk `p = p.next` (or
//! through the getter `p.getNext()`) until null from a parameter or from `this.head` is bounded
//! by the length of the chain from that reference, a parameter named after it, with
//! acyclicity as a named assumption; exact in that length, and equal to real runs, where the
//! agent records the chain's length at each entry; a cyclic chain is a broken assumption (exit 1).
//! A recursion along the field (`depth(first.next)`) descends the same chain, and a successor
//! handed to a walk is one node shorter than its predecessor's chain.

use membound_tests::{
    certificate_params, eval_method, fixture_certificate, pair, total_objects, validate_json,
    validate_text,
};

const ACYCLIC: &str = "is acyclic along the field walked";

/// The objects `method`'s certificate (count model) predicts at each chain length 0..=6, with
/// its one parameter `param` whose origin is `origin`.
fn objects_by_length(method: &str, param: &str, origin: &str) -> Vec<i64> {
    let certificate = fixture_certificate("linked_lists", method, "count");
    assert_eq!(
        certificate_params(&certificate, method),
        vec![pair(param, origin)]
    );
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    assert!(text.contains(ACYCLIC), "{text}");
    (0..=6)
        .map(|length| {
            let json = eval_method(&certificate, method, &format!("{param}={length}"));
            json["mem_alloc"]["objects"]
                .as_i64()
                .expect("a finite count")
        })
        .collect()
}

#[test]
fn a_walk_from_a_parameter_is_bounded_by_its_chain_length() {
    let origin = "length of the chain from parameter 0 (first) along lists.Node.next";
    let counts = objects_by_length("lists.Chain.boxes", "first_length", origin);
    assert_eq!(counts, vec![0, 1, 2, 3, 4, 5, 6]);
}

#[test]
fn a_walked_parameter_names_its_own_chain() {
    let origin = "length of the chain from parameter 0 (head) along lists.Node.next";
    let counts = objects_by_length("lists.Chain.sizes", "head_length", origin);
    assert_eq!(counts, vec![0, 1, 2, 3, 4, 5, 6]);
}

#[test]
fn a_walk_through_a_saved_successor_is_bounded_too() {
    let origin = "length of the chain from parameter 0 (first) along lists.Node.next";
    let counts = objects_by_length("lists.Chain.saved", "first_length", origin);
    assert_eq!(counts, vec![0, 1, 2, 3, 4, 5, 6]);
}

#[test]
fn a_walk_through_a_getter_of_the_field_is_bounded_too() {
    let origin = "length of the chain from parameter 0 (first) along lists.Node.next";
    let counts = objects_by_length("lists.Chain.viaGetter", "first_length", origin);
    assert_eq!(counts, vec![0, 1, 2, 3, 4, 5, 6]);
}

#[test]
fn a_recursion_along_the_field_descends_the_chain_of_its_parameter() {
    let origin = "length of the chain from parameter 0 (first) along lists.Node.next";
    let counts = objects_by_length("lists.Chain.depth", "first_length", origin);
    assert_eq!(counts, vec![0, 1, 2, 3, 4, 5, 6]);
}

#[test]
fn a_successor_handed_to_a_walk_is_one_node_shorter() {
    let origin = "length of the chain from parameter 0 (first) along lists.Node.next";
    let counts = objects_by_length("lists.Chain.allButFirst", "first_length", origin);
    assert_eq!(counts, vec![0, 0, 1, 2, 3, 4, 5]);
}

#[test]
fn a_walk_from_a_field_of_this_is_bounded_by_that_chain() {
    let origin = "length of the chain from field head of this along lists.Node.next";
    let counts = objects_by_length("lists.Chain.pairs", "head_length", origin);
    assert_eq!(counts, vec![0, 2, 4, 6, 8, 10, 12]);
}

#[test]
fn callers_bind_the_chains_of_the_walks_they_call() {
    let origin = "length of the chain from parameter 0 (first) along lists.Node.next";
    let counts = objects_by_length("lists.Chain.thrice", "first_length", origin);
    assert_eq!(counts, vec![0, 3, 6, 9, 12, 15, 18]);
    let origin = "length of the chain from field head of this along lists.Node.next";
    let counts = objects_by_length("lists.Chain.pairsTwice", "head_length", origin);
    assert_eq!(counts, vec![0, 4, 8, 12, 16, 20, 24]);
}

/// The certificate of `method` has no chain parameter and an unbounded count.
fn assert_unbounded_without_chains(method: &str) {
    let certificate = fixture_certificate("linked_lists", method, "count");
    let params = certificate_params(&certificate, method);
    assert!(
        params.iter().all(|(_, origin)| !origin.contains("chain")),
        "{params:?}"
    );
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    assert!(text.contains("infty"), "{text}");
}

#[test]
fn a_walk_that_relinks_its_field_stays_unbounded() {
    assert_unbounded_without_chains("lists.Chain.reverse");
    let certificate = fixture_certificate("linked_lists", "lists.Chain.reverse", "count");
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    assert!(!text.contains(ACYCLIC), "{text}");
}

#[test]
fn a_caller_that_writes_the_field_before_the_walk_binds_no_chain() {
    // Its callee `boxes` keeps its own chain parameter, which the caller cannot bind.
    assert_unbounded_without_chains("lists.Chain.growThenWalk");
}

/// Validates `method`'s certificate against a run of `lists.Chain` (lists of 0 to 4 nodes):
/// every comparison exact; the total objects observed.
fn validated_objects(method: &str) -> serde_json::Value {
    let certificate = fixture_certificate("linked_lists", method, "count");
    let (code, report) = validate_json(&certificate, "lists.Chain", &[]);
    assert_eq!(code, 0, "{report:#}");
    let comparisons = report["comparisons"].as_array().expect("comparisons");
    for comparison in comparisons {
        assert_eq!(
            comparison["observed"], comparison["predicted"],
            "{comparison}"
        );
    }
    let (observed, _) = total_objects(comparisons);
    observed
}

#[test]
fn runs_bind_chain_lengths_recorded_at_entry_and_match_exactly() {
    // Lists of 0 + 1 + 2 + 3 + 4 = 10 nodes in all; `boxes` runs three times per list (once
    // from `main`, twice from `thrice`) and once more over all its nodes but the first (from
    // `allButFirst`: 0 + 0 + 1 + 2 + 3), `sizes` and `pairs` twice and three times.
    assert_eq!(validated_objects("lists.Chain.boxes"), 36);
    assert_eq!(validated_objects("lists.Chain.sizes"), 20);
    assert_eq!(validated_objects("lists.Chain.viaGetter"), 10);
    assert_eq!(validated_objects("lists.Chain.saved"), 10);
    assert_eq!(validated_objects("lists.Chain.pairs"), 60);
    assert_eq!(validated_objects("lists.Chain.thrice"), 30);
    assert_eq!(validated_objects("lists.Chain.pairsTwice"), 40);
    // At most 2 per list: 0 + 1 + 2 + 2 + 2.
    assert_eq!(validated_objects("lists.Chain.boxesUpTo"), 7);
    // One per node by recursion; one per node after the first.
    assert_eq!(validated_objects("lists.Chain.depth"), 10);
    assert_eq!(validated_objects("lists.Chain.allButFirst"), 6);
}

#[test]
fn a_list_spoiled_into_a_cycle_breaks_the_acyclicity_assumption() {
    let method = "lists.Chain.boxesUpTo";
    let certificate = fixture_certificate("linked_lists", method, "count");
    let run = validate_text(&certificate, "lists.Cyclic");
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(
            "BROKEN assumption ACYCLIC_CHAINS at entry 1 of lists.Chain.boxesUpTo(Llists/Node;I)I: the chain from parameter 0 (first) along lists.Node.next is cyclic (parameter first_length)"
        ) && run.stdout.contains("not checked: the run breaks an assumption of the certificate: the bounds do not apply to this run"),
        "{}",
        run.stdout
    );
    // The predictions do not apply: nothing is compared.
    assert!(!run.stdout.contains("total objects"), "{}", run.stdout);
}

//! Loops over hand-written linked lists (tests/fixtures/linked_lists): a walk `p = p.next` (or
//! through the getter `p.getNext()`) until null from a parameter or from `this.head` is bounded
//! by the length of the chain from that reference, a parameter named after it, with
//! acyclicity as a named assumption; exact in that length, and equal to real runs.

use membound_tests::{certificate_params, eval_method, fixture_certificate, pair};

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
fn a_walk_through_a_getter_of_the_field_is_bounded_too() {
    let origin = "length of the chain from parameter 0 (first) along lists.Node.next";
    let counts = objects_by_length("lists.Chain.viaGetter", "first_length", origin);
    assert_eq!(counts, vec![0, 1, 2, 3, 4, 5, 6]);
}

#[test]
fn a_walk_from_a_field_of_this_is_bounded_by_that_chain() {
    let origin = "length of the chain from field head of this along lists.Node.next";
    let counts = objects_by_length("lists.Chain.pairs", "head_length", origin);
    assert_eq!(counts, vec![0, 2, 4, 6, 8, 10, 12]);
}

#[test]
fn a_walk_that_relinks_its_field_stays_unbounded() {
    let method = "lists.Chain.reverse";
    let certificate = fixture_certificate("linked_lists", method, "count");
    assert!(certificate_params(&certificate, method).is_empty());
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    assert!(!text.contains(ACYCLIC), "{text}");
    assert!(text.contains("inf"), "{text}");
}

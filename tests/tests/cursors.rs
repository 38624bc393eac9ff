//! Loops over cursors of the program's own (fixture `cursors`, issue 20 item 1): an Enumeration
//! or Iterator whose private field holds the next node and whose `next()` moves it along the
//! nodes' `next` (JOlden em3d's `Node.elements()`) is bounded by the length of the chain it
//! starts at, a parameter named after the reference (`first_length`) under the acyclicity
//! assumption, or by the nodes built when the method built the list; exact and equal to real
//! runs. A cursor another method can move back (`restart()`) leaves its loop unbounded.

use membound_tests::{
    certificate_entry, certificate_params, eval_method, fixture_certificate, pair, total_objects,
    validated_exactly, validated_unbroken,
};

const ACYCLIC: &str = "is acyclic along the field walked";
const FIRST: &str = "length of the chain from parameter 0 (first) along cursors.Node.next";

/// `validate` of `cursors.Cursors <length> <iterations>`: its main builds a list of `length`
/// nodes and runs every method of the fixture on it.
const RUN: [&str; 2] = ["5", "3"];

/// The objects the certificate predicts for `method` at `params`.
fn objects(certificate: &std::path::Path, method: &str, params: &str) -> serde_json::Value {
    eval_method(certificate, method, params)["mem_alloc"]["objects"].clone()
}

#[test]
fn an_enumeration_from_a_factory_is_bounded_by_the_chain_per_round() {
    let method = "cursors.Cursors.rounds";
    let certificate = fixture_certificate("cursors", method, "count");
    assert_eq!(
        certificate_params(&certificate, method),
        vec![
            pair("iterations", "parameter 1 (int iterations)"),
            pair("first_length", FIRST)
        ]
    );
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    assert!(text.contains(ACYCLIC), "{text}");
    for length in 0..=6 {
        for iterations in -1..=4 {
            let params = format!("first_length={length},iterations={iterations}");
            // One enumeration and one visit per node, per round.
            let expected = iterations.max(0) * (1 + length);
            assert_eq!(objects(&certificate, method, &params), expected, "{params}");
        }
    }
    let comparisons = validated_exactly(&certificate, "cursors.Cursors", &RUN);
    assert_eq!(total_objects(&comparisons), (18.into(), 18.into()));
}

/// em3d's shape: the lists are fields of a parameter read into a stack slot that the loop
/// reuses for the nodes, and each node is visited through a call that allocates one array.
#[test]
fn enumerations_of_a_parameter_s_lists_are_bounded_by_both_chains() {
    let method = "cursors.Cursors.propagate";
    let certificate = fixture_certificate("cursors", method, "count");
    let along = "along cursors.Node.next";
    assert_eq!(
        certificate_params(&certificate, method),
        vec![
            pair("iterations", "parameter 1 (int iterations)"),
            pair(
                "g_eNodes_length",
                &format!("length of the chain from field eNodes of parameter 0 (g) {along}")
            ),
            pair(
                "g_hNodes_length",
                &format!("length of the chain from field hNodes of parameter 0 (g) {along}")
            ),
        ]
    );
    for (e, h, iterations) in [(0, 0, 3), (2, 5, 3), (4, 1, 0), (3, 3, -1), (6, 2, 2)] {
        let params = format!("g_eNodes_length={e},g_hNodes_length={h},iterations={iterations}");
        // Two enumerations and one array per node, per round.
        let expected = iterations.max(0) * (2 + e + h);
        assert_eq!(objects(&certificate, method, &params), expected, "{params}");
    }
    // Lists of 5 and 6 nodes, 3 rounds.
    let comparisons = validated_exactly(&certificate, "cursors.Cursors", &RUN);
    assert_eq!(total_objects(&comparisons), (39.into(), 39.into()));
}

/// `list.elements()`, a factory starting the cursor at a field of its receiver: bounded by the
/// chain from that field of the parameter.
#[test]
fn an_enumeration_a_list_hands_out_is_bounded_by_its_chain() {
    let method = "cursors.Cursors.listed";
    let certificate = fixture_certificate("cursors", method, "count");
    let origin =
        "length of the chain from field first of parameter 0 (list) along cursors.Node.next";
    assert_eq!(
        certificate_params(&certificate, method),
        vec![pair("list_first_length", origin)]
    );
    for length in 0..=6 {
        // One enumeration, one visit per node.
        let params = format!("list_first_length={length}");
        assert_eq!(
            objects(&certificate, method, &params),
            length + 1,
            "{params}"
        );
    }
    // The run's list has 6 nodes.
    let comparisons = validated_exactly(&certificate, "cursors.Cursors", &RUN);
    assert_eq!(total_objects(&comparisons), (7.into(), 7.into()));
}

#[test]
fn an_enumeration_of_a_list_the_method_built_is_bounded_by_its_build() {
    let method = "cursors.Cursors.buildThenEnumerate";
    let certificate = fixture_certificate("cursors", method, "count");
    assert_eq!(
        certificate_params(&certificate, method),
        vec![pair("n", "parameter 0 (int n)")]
    );
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    assert!(!text.contains(ACYCLIC), "{text}");
    for n in -2..=7 {
        // n nodes, one enumeration, one visit per node.
        let expected = 2 * n.max(0) + 1;
        assert_eq!(objects(&certificate, method, &format!("n={n}")), expected);
    }
    validated_exactly(&certificate, "cursors.Cursors", &RUN);
}

/// `Iterator.next()` past the end throws a `NoSuchElementException`: `next()`'s own walk starts
/// at its cursor field, so the exception is counted where the caller's cursor has no node left —
/// never in a loop guarded by `hasNext()`, once for a call past the end (its count in the JDK's
/// `Throwable` is a constant the run stays below).
#[test]
fn an_iterator_that_throws_past_the_end_counts_its_exception_only_there() {
    let method = "cursors.Cursors.iterate";
    let certificate = fixture_certificate("cursors", method, "count");
    assert_eq!(
        certificate_params(&certificate, method),
        vec![pair("first_length", FIRST)]
    );
    for length in 0..=6 {
        // One iterator, one visit per node.
        let params = format!("first_length={length}");
        assert_eq!(
            objects(&certificate, method, &params),
            length + 1,
            "{params}"
        );
    }
    let comparisons = validated_exactly(&certificate, "cursors.Cursors", &RUN);
    assert_eq!(total_objects(&comparisons), (6.into(), 6.into()));

    let method = "cursors.Cursors.pastTheEnd";
    let certificate = fixture_certificate("cursors", method, "count");
    let at = |length: i64| {
        let count = objects(&certificate, method, &format!("first_length={length}"));
        count.as_i64().expect("a finite count")
    };
    // The iterator, and the exception's objects: the same at every length.
    assert!(at(0) > 1);
    assert!((1..=6).all(|length| at(length) == at(0)));
    validated_unbroken(&certificate, "cursors.Cursors", &RUN);
}

/// A cursor another method moves back (`restart()`), and a cursor's local set from a call that
/// is no factory (a list the analysis does not know, longer than `first` in the run), leave
/// their loops unbounded; the runs are never above the bounds.
#[test]
fn cursors_the_analysis_cannot_follow_leave_their_loops_unbounded() {
    for method in ["cursors.Cursors.restarted", "cursors.Cursors.switched"] {
        let certificate = fixture_certificate("cursors", method, "count");
        let entry = certificate_entry(&certificate, method);
        assert_eq!(entry["mem_alloc"]["objects"], "infty", "{entry:#}");
        validated_unbroken(&certificate, "cursors.Cursors", &RUN);
    }
}

/// A loop that removes the node its enumeration has just returned, as health's hospitals
/// discharge patients, stays unbounded: the removal writes the field the enumeration follows
/// (here one node ahead, so the walk is not lengthened; but a removal that relinks another
/// node could be), and the reason names the call that writes it. The run is never above.
#[test]
fn a_walk_that_removes_its_current_node_names_the_removal_that_leaves_it_unbounded() {
    let method = "removals.Removals.removeEven";
    let text = membound_tests::fixture_output("analyze", "removals", method, &[]);
    assert!(text.contains("memAlloc objects: ∞"), "{text}");
    assert!(
        text.contains(
            "the cursor removals.Removals$NodeList.elements()Ljava/util/Enumeration; creates at \
             offset 3 walks removals.Removals$Node.next, which the call at offset 37 to \
             removals.Removals$NodeList.remove(Lremovals/Removals$Node;)V may write while it walks"
        ),
        "{text}"
    );
    let certificate = fixture_certificate("removals", method, "count");
    validated_unbroken(&certificate, "removals.Removals", &["6"]);
}

//! Lists built by appending at the tail (fixture `tail_lists`, the shape of JOlden em3d's node
//! tables): `last.next = node; last = node` on the nodes a loop creates, the first kept on the
//! branch where there was no last. A walk from the first, in the method or in a callee it
//! passes the first to, is bounded by the nodes appended, exact and equal to real runs; a store
//! linking after another node than the tail, or a new node made before the last one is linked,
//! leaves the walk unbounded, saying which call. A callee building such a list writes the field
//! only on the nodes it creates, so its caller's walks of other lists stay bounded; and a
//! table of the nodes (`table[i] = node`, em3d's `fillTable`) returned to a caller holds the
//! list's length in its first cell, which the caller walks, itself or from a bag's field.

use membound_tests::{
    analyze_into, certificate_params, compile_java_tree, eval_method, fixture_certificate, pair,
    scratch_dir, total_objects, validate_json, validated_exactly, workspace_root,
};

const RUN: &str = "tail.Lists";

/// The certificate (count model) of `method`, whose one parameter is `n`.
fn certificate(method: &str) -> std::path::PathBuf {
    let certificate = fixture_certificate("tail_lists", method, "count");
    assert_eq!(
        certificate_params(&certificate, method),
        vec![pair("n", "parameter 0 (int n)")]
    );
    certificate
}

/// The objects `method` allocates for each `n` of `range` equal `expected`, and `validate` of
/// a run of the fixture's main (n = 0..=5) matches every comparison exactly.
fn exact_and_validated(
    method: &str,
    range: std::ops::RangeInclusive<i64>,
    expected: impl Fn(i64) -> i64,
) {
    let certificate = certificate(method);
    for n in range {
        let json = eval_method(&certificate, method, &format!("n={n}"));
        assert_eq!(json["mem_alloc"]["objects"], expected(n), "{method}({n})");
    }
    validated_exactly(&certificate, RUN, &[]);
}

#[test]
fn a_walk_from_the_first_of_nodes_appended_at_the_tail_visits_each_once() {
    // n nodes and a visit per node.
    exact_and_validated("tail.Lists.appendThenWalk", -2..=6, |n| 2 * n.max(0));
}

#[test]
fn nodes_kept_in_a_table_and_appended_after_the_previous_one_are_walked_exactly() {
    // The table, n nodes and a visit per node.
    exact_and_validated("tail.Lists.tableThenWalk", 0..=6, |n| 2 * n + 1);
}

#[test]
fn a_walk_from_the_first_cell_of_a_table_a_callee_built_visits_each_node_once() {
    // `table(n)` returns its table with the length of the list from its first cell; the
    // caller's walk from `n > 0 ? table[0] : null`: the table, n nodes and a visit per node.
    exact_and_validated("tail.Lists.walkFromFirstCell", -2..=6, |n| 2 * n.max(0) + 1);
}

#[test]
fn a_bag_holding_the_first_cell_of_a_built_table_is_walked_exactly() {
    // em3d's `g.eNodes = n > 0 ? eTable[0] : null` (stored through javac's copy of `g`): the
    // bag, the table, n nodes and a visit per node.
    exact_and_validated("tail.Lists.walkFromBag", -2..=6, |n| 2 * n.max(0) + 2);
}

#[test]
fn a_callee_appending_to_its_own_list_leaves_the_callers_list_walked() {
    // `appended(n)` writes `next`, but only on the nodes it creates: the walk of the list the
    // caller was given keeps its length at entry.
    let method = "tail.Lists.walkAfterBuilding";
    let certificate = fixture_certificate("tail_lists", method, "count");
    assert_eq!(
        certificate_params(&certificate, method),
        vec![
            pair("n", "parameter 1 (int n)"),
            pair(
                "list_length",
                "length of the chain from parameter 0 (list) along tail.Lists$Node.next"
            ),
        ]
    );
    for (length, n) in [(0, 0), (0, 3), (4, 0), (3, 5)] {
        let json = eval_method(&certificate, method, &format!("list_length={length},n={n}"));
        assert_eq!(json["mem_alloc"]["objects"], length + n, "{length}, {n}");
    }
    validated_exactly(&certificate, RUN, &[]);
}

/// `method`'s certificate: unbounded at n = 3, through its call to `visit` (whose walk of the
/// list from `first` it cannot bind), and never below a run.
fn unbounded_walk(method: &str) {
    let certificate = certificate(method);
    let json = eval_method(&certificate, method, "n=3");
    assert_eq!(json["mem_alloc"]["objects"], "infty", "{json:#}");
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    let reason = format!(
        "of {method}(I)I to tail.Lists.visit(Ltail/Lists$Node;)I: its bound depends on \
         first_length"
    );
    assert!(text.contains(&reason), "{text}");
    let (code, json) = validate_json(&certificate, RUN, &[]);
    assert_eq!((code, json["broken"].clone()), (0, 0.into()), "{json:#}");
}

#[test]
fn a_node_linked_after_the_first_rather_than_the_tail_leaves_the_walk_unbounded() {
    unbounded_walk("tail.Lists.linkedAfterFirst");
}

#[test]
fn a_second_new_node_before_the_last_is_linked_leaves_the_walk_unbounded() {
    unbounded_walk("tail.Lists.twoBeforeLinking");
}

#[test]
fn jolden_em3d_create_walks_the_node_lists_of_its_tables_and_counts_its_objects_exactly() {
    // `fillTable` appends each node after the previous one and keeps it in its table;
    // `create` walks the lists from `eTable[0]` and `hTable[0]` (through `g.eNodes`), so its
    // objects are 8 numNodes + 3 (`Em3d.<clinit>` has run before `create` does, wherever a
    // callee first uses `Em3d`). Its bytes wait on the `fromCount`-sized arrays (issue 20).
    let classes = compile_java_tree("jolden", &workspace_root().join("benchmarks-jolden/java"));
    let certificate = scratch_dir("tail-lists-em3d").join("create.json");
    let method = "em3d.Em3d.create";
    analyze_into(&classes, method, "hotspot-coops", &certificate);
    for (nodes, degree) in [(0, 3), (1, 3), (10, 5), (20, 6)] {
        let json = eval_method(
            &certificate,
            method,
            &format!("numNodes={nodes},numDegree={degree}"),
        );
        assert_eq!(
            json["mem_alloc"]["objects"],
            8 * nodes + 3,
            "{nodes}: {json:#}"
        );
    }
    for (nodes, degree) in [("10", "5"), ("100", "7")] {
        let (code, json) = validate_json(&certificate, "em3d.Em3d", &["-n", nodes, "-d", degree]);
        assert_eq!(code, 0, "{json:#}");
        let comparisons = json["comparisons"].as_array().expect("comparisons");
        let (observed, predicted) = total_objects(comparisons);
        assert_eq!(observed, predicted, "{json:#}");
    }
}

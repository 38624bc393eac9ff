//! `membound heap invariants`: per class, what held at every garbage collection of a run of the
//! `heap_shapes` fixture, saved, and later runs checked against it: a good run passes; a list
//! spoiled into a cycle, a payload two nodes share and a tree whose children were swapped each
//! break an invariant, exit 1, with the allocation site of a violating object.

use std::path::Path;

use membound_tests::{Run, compile_fixture, membound, scratch_dir};
use serde_json::Value;

/// `membound heap invariants <classes> --main heapshapes.Collections [extra] -- ARGS`.
fn invariants(extra: &[&str], args: &[&str]) -> Run {
    let classes = compile_fixture("heap_shapes");
    let mut command: Vec<String> = vec![
        "heap".into(),
        "invariants".into(),
        classes.display().to_string(),
        "--main".into(),
        "heapshapes.Collections".into(),
    ];
    command.extend(extra.iter().map(|a| a.to_string()));
    command.push("--".into());
    command.extend(args.iter().map(|a| a.to_string()));
    membound(&command)
}

fn saved_invariants(path: &Path) -> Value {
    let run = invariants(&["--format", "json"], &["list", "5", "3"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    std::fs::write(path, &run.stdout).expect("save");
    serde_json::from_str(&run.stdout).expect("JSON")
}

fn has(json: &Value, class: &str, kind: &str, field: Option<&str>) -> bool {
    json["invariants"]
        .as_array()
        .expect("invariants")
        .iter()
        .any(|i| i["class"] == class && i["kind"] == kind && field.is_none_or(|f| i["field"] == f))
}

#[test]
fn invariants_held_at_every_collection_and_a_good_run_keeps_them() {
    let dir = scratch_dir("heap-invariants");
    let saved = dir.join("invariants.json");
    let json = saved_invariants(&saved);
    // One snapshot per collection (two collections during one walk would share the next).
    let snapshots = json["snapshots"].as_array().expect("snapshots");
    assert!((2..=3).contains(&snapshots.len()), "{json:#}");
    assert_eq!(snapshots.last(), Some(&Value::from("gc 3")), "{json:#}");
    for (class, kind, field) in [
        ("heapshapes.ListNode", "never_shared", None),
        ("heapshapes.ListNode", "acyclic", None),
        ("heapshapes.ListNode", "field_never_null", Some("data")),
        ("heapshapes.ListNode", "field_type", Some("next")),
        ("heapshapes.Payload", "never_shared", None),
        // The tree is made once: the agent's tags follow its nodes through collections.
        ("heapshapes.TreeNode", "field_constant", Some("left")),
        ("heapshapes.TreeNode", "max_instances", None),
    ] {
        assert!(
            has(&json, class, kind, field),
            "{class} {kind} {field:?} in {json:#}"
        );
    }
    // The list's last node has no next, some tree nodes no children.
    assert!(!has(
        &json,
        "heapshapes.ListNode",
        "field_never_null",
        Some("next")
    ));
    let each = &json["invariants"][0]["evidence"];
    assert!(
        each["objects"].as_u64() > Some(0) && each["snapshots"] == 3,
        "{each}"
    );

    let good = invariants(
        &["--check", saved.to_str().expect("utf-8")],
        &["list", "4", "3"],
    );
    assert_eq!(good.code, 0, "{}\n{}", good.stdout, good.stderr);
    assert!(good.stdout.contains("0 violation(s)"), "{}", good.stdout);
}

#[test]
fn broken_invariants_exit_1_with_the_allocation_site() {
    let dir = scratch_dir("heap-invariants-broken");
    let saved = dir.join("invariants.json");
    saved_invariants(&saved);
    let expect_violation = |kind: &str, violation: &str| {
        let run = invariants(
            &["--check", saved.to_str().expect("utf-8")],
            &[kind, "5", "3"],
        );
        assert_eq!(run.code, 1, "{kind}: {}\n{}", run.stdout, run.stderr);
        assert!(run.stdout.contains(violation), "{kind}: {}", run.stdout);
    };
    expect_violation(
        "spoiled",
        "VIOLATED: heapshapes.ListNode acyclic at gc 3: an object lies on a cycle; the object was allocated at heapshapes.ListNode.list(I)Lheapshapes/ListNode; line ",
    );
    expect_violation(
        "shared",
        "VIOLATED: heapshapes.Payload never_shared at gc 3: an object is referenced by 2 objects",
    );
    expect_violation(
        "swapped",
        "VIOLATED: heapshapes.TreeNode field_constant left at gc 3: the field now references another object; the object was allocated at heapshapes.TreeNode.complete(I)Lheapshapes/TreeNode; line ",
    );
}

#[test]
fn a_run_without_collections_and_a_bad_saved_file_are_input_errors() {
    let dir = scratch_dir("heap-invariants-bad");
    // ROUNDS 0: no System.gc(), and too little allocation for the collector to run.
    let none = invariants(&[], &["list", "3", "0"]);
    assert_eq!(none.code, 2, "{}\n{}", none.stdout, none.stderr);
    assert!(
        none.stderr.contains("no garbage collection"),
        "{}",
        none.stderr
    );
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"invariants\": 3}").expect("write");
    let run = invariants(
        &["--check", bad.to_str().expect("utf-8")],
        &["list", "3", "1"],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
}

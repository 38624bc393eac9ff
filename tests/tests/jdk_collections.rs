//! Methods that take a `Collection`, a `List` or a `Map` and iterate or read it through the
//! interface (tests/fixtures/jdk_collections): the bundled interface specs (docs/specs.md)
//! narrow those calls to a few spec'd JDK classes and the application's own, so the analysis
//! ends in a few methods instead of the whole JDK, every bound stays at or above what real runs
//! allocate (validated under the agent for each kind of collection), and where the counts are
//! quasi-polynomials they are exact: at once when no alternative allocates (reading lists and
//! maps), and with a user spec narrowing the classes when the JDK's alternatives make their own
//! iterators.

use std::path::Path;

use membound_tests::{eval_method, fixture_json, fixture_output, scratch_dir, validate_json};
use serde_json::Value;

const FIXTURE: &str = "jdk_collections";

/// `membound analyze` of `method` into `certificate` (JSON), with extra arguments: the summary.
fn analyze(method: &str, certificate: &Path, extra: &[&str]) -> String {
    let certificate = certificate.display().to_string();
    let mut args = vec!["-o", certificate.as_str()];
    args.extend(extra);
    fixture_output("analyze", FIXTURE, method, &args)
}

/// What a run of `Walk <n> <kind>` allocated under `method`: (objects, bytes).
fn measured(method: &str, n: &str, kind: &str) -> (u64, u64) {
    let args = ["--main", "Walk", "--format", "json", "--", n, kind];
    let json: Value =
        serde_json::from_str(&fixture_output("measure", FIXTURE, method, &args)).expect("JSON");
    let total = |what: &str| json["total"][what].as_u64().expect("a total");
    (total("objects"), total("bytes"))
}

/// A certificate's bound of `method` at `params`, objects and bytes, finite.
fn bound(certificate: &Path, method: &str, params: &str) -> (u64, u64) {
    let json = eval_method(certificate, method, params);
    let value = |what: &str| {
        json["mem_alloc"][what]
            .as_u64()
            .unwrap_or_else(|| panic!("{method} at {params}: a finite {what} bound, got {json}"))
    };
    (value("objects"), value("bytes"))
}

#[test]
fn a_collection_parameter_reaches_only_specd_jdk_methods_and_the_applications() {
    let graph = fixture_json("callgraph", FIXTURE, "Walk.blocks");
    let methods = graph["methods"].as_array().expect("methods");
    // Without the interface specs the same calls reach tens of thousands of JDK methods.
    assert!(methods.len() < 40, "{} methods: {graph:#}", methods.len());
    // Besides the application's methods and spec'd ones, only the constructor every object
    // runs.
    for node in methods {
        let name = node["method"].as_str().expect("a name");
        assert!(
            name.starts_with("Walk")
                || node["kind"] == "spec"
                || name == "java.lang.Object.<init>()V",
            "{name} is neither the application's nor spec'd: {node}"
        );
    }
    // The application's own collection is followed from its code.
    let names: Vec<&str> = methods
        .iter()
        .filter_map(|m| m["method"].as_str())
        .collect();
    for expected in [
        "Walk$Bag.iterator()Ljava/util/Iterator;",
        "Walk$Counter.next()Ljava/lang/Object;",
        "java.util.ArrayList.iterator()Ljava/util/Iterator;",
        "java.util.HashSet.iterator()Ljava/util/Iterator;",
        "java.util.Collection.iterator()Ljava/util/Iterator;",
    ] {
        assert!(names.contains(&expected), "no {expected} in {names:?}");
    }
    assert!(
        graph["unresolved"]
            .as_array()
            .expect("unresolved")
            .is_empty(),
        "{graph:#}"
    );

    let dir = scratch_dir("jdk-collections-graph");
    let summary = analyze("Walk.blocks", &dir.join("blocks.json"), &[]);
    assert!(
        summary.contains(
            "java.util.Collection.iterator()Ljava/util/Iterator;: a receiver created outside the \
             analyzed code is a java.util.ArrayList, java.util.Vector, java.util.Stack, \
             java.util.ArrayDeque, java.util.HashSet or an application class's object (bundled \
             interface spec)"
        ),
        "the interface spec is an assumption:\n{summary}"
    );
}

#[test]
fn bounds_through_collection_interfaces_are_never_below_real_runs() {
    let dir = scratch_dir("jdk-collections-validate");
    for method in [
        "Walk.blocks",
        "Walk.listBlocks",
        "Walk.pairs",
        "Walk.lookups",
    ] {
        let certificate = dir.join(format!("{method}.json"));
        analyze(method, &certificate, &[]);
        let kinds: &[&str] = match method {
            "Walk.blocks" => &["list", "vector", "deque", "set", "bag"],
            "Walk.lookups" => &["list", "linked"],
            _ => &["list", "vector"],
        };
        for kind in kinds {
            for n in ["0", "4", "11"] {
                let (code, report) = validate_json(&certificate, "Walk", &[n, kind]);
                assert_eq!(code, 0, "{method} on a {kind} of {n}: {report:#}");
            }
        }
    }
}

#[test]
fn counts_through_collection_interfaces_are_exact_where_no_alternative_allocates() {
    let dir = scratch_dir("jdk-collections-exact");
    // Reading a list by position allocates nothing in any covered class: ceil(n/2) pairs.
    let pairs = dir.join("pairs.json");
    analyze("Walk.pairs", &pairs, &["--object-model", "count"]);
    // A list's iterator: an ArrayList's or a Vector's, one per call either way; a user spec
    // saying the program passes ArrayLists leaves the one it makes.
    let bundled = dir.join("bundled.json");
    analyze("Walk.listBlocks", &bundled, &["--object-model", "count"]);
    let narrow = dir.join("lists.yaml");
    std::fs::write(
        &narrow,
        "membound_specs: 1\nspecs:\n  - method: java.util.Collection.iterator()Ljava/util/Iterator;\n    covers: [java.util.ArrayList]\n    assumption: the program passes ArrayLists\n",
    )
    .expect("write");
    let narrowed = dir.join("narrowed.json");
    let summary = analyze(
        "Walk.listBlocks",
        &narrowed,
        &[
            "--object-model",
            "count",
            "--spec",
            &narrow.display().to_string(),
        ],
    );
    assert!(
        summary.contains("the program passes ArrayLists"),
        "{summary}"
    );
    // Reading a map allocates nothing in a HashMap or a LinkedHashMap: a slot per entry.
    let lookups = dir.join("lookups.json");
    analyze("Walk.lookups", &lookups, &["--object-model", "count"]);
    for n in [0_u64, 1, 2, 3, 4, 10, 11, 12] {
        let arg = n.to_string();
        let (objects, _) = measured("Walk.pairs", &arg, "list");
        assert_eq!(objects, n.div_ceil(2), "n = {n}");
        // Count model: a pair is one object of 2 cells.
        let expected = (n.div_ceil(2), 2 * n.div_ceil(2));
        assert_eq!(
            bound(&pairs, "Walk.pairs", &format!("l_size={n}")),
            expected
        );

        for kind in ["list", "linked"] {
            let (objects, _) = measured("Walk.lookups", &arg, kind);
            assert_eq!(objects, n, "n = {n}, {kind}");
        }
        assert_eq!(
            bound(&lookups, "Walk.lookups", &format!("m_size={n}")),
            (n, n)
        );

        let (objects, _) = measured("Walk.listBlocks", &arg, "list");
        let blocks = n.div_ceil(3);
        assert_eq!(objects, 1 + blocks, "n = {n}: the iterator and the blocks");
        let params = format!("l_size={n}");
        assert_eq!(
            bound(&narrowed, "Walk.listBlocks", &params),
            (1 + blocks, 1 + 3 * blocks),
            "n = {n}"
        );
        // One of the covered lists' iterators runs per call: each is one object, counted once.
        assert_eq!(
            bound(&bundled, "Walk.listBlocks", &params),
            (1 + blocks, 1 + 3 * blocks),
            "n = {n}: one iterator, whichever list class"
        );
    }
}

#[test]
fn vector_growth_is_never_below_real_runs() {
    let dir = scratch_dir("jdk-collections-vector");
    let certificate = dir.join("vector.json");
    let summary = analyze("Walk.vector", &certificate, &[]);
    assert!(
        summary.contains("the vector has no capacity increment"),
        "{summary}"
    );
    // A vector doubles from 10: 20 at the 11th add, 40 at the 21st, 80 at the 41st.
    for n in [0_u64, 1, 10, 11, 20, 21, 40, 41, 300] {
        let arg = n.to_string();
        let (objects, bytes) = measured("Walk.vector", &arg, "list");
        let (max_objects, max_bytes) = bound(&certificate, "Walk.vector", &format!("n={n}"));
        assert!(
            objects <= max_objects && bytes <= max_bytes,
            "n = {n}: the run allocated {objects} objects, {bytes} bytes; the bound is {max_objects}, {max_bytes}"
        );
    }
}

#[test]
fn a_jdk_class_the_interface_specs_leave_out_breaks_validation() {
    // A LinkedList is not covered: what its iterator allocates is no creation site of the
    // certificate, and the run says so instead of passing under a blanket claim.
    let dir = scratch_dir("jdk-collections-uncovered");
    let certificate = dir.join("blocks.json");
    analyze("Walk.blocks", &certificate, &[]);
    let (code, report) = validate_json(&certificate, "Walk", &["5", "linkedlist"]);
    assert_eq!(code, 1, "{report:#}");
    assert!(
        report.to_string().contains("java.util.LinkedList$ListItr"),
        "the uncovered iterator is named: {report:#}"
    );
}

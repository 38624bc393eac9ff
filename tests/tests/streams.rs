//! Stream pipelines written as one expression (fixture `streams`): each stream carries its size
//! (a range's `max(0, b - a)`, a collection's size, kept by every stage, at most that after a
//! `filter`), and an `IntStream` from a range its first element, so the bundled specs bound
//! `collect(toList())`, `sum`, `count` and `forEach` in them: the boxes `boxed()` makes outside
//! the cache exactly, what a stage's function makes per element from its code, a `toList()`
//! list's arrays amortized as `ArrayList.add`'s. Oracles: the counts simulated here (the boxes
//! outside -128..127, `ArrayList`'s growth from 10 cells by half), and real runs under the
//! agent, never below the bounds and equal to them where the count is exact. A collector other
//! than `toList()`, or a stream whose elements no parameter counts, is ∞ with its reason.

use std::path::{Path, PathBuf};
use std::time::Instant;

use membound_tests::{
    analyze_into, compile_fixture, eval_method, fixture_output, scratch_dir, validate_json,
};
use serde_json::Value;

/// The sizes each pipeline runs with: empty, one element, around the box cache's end, larger.
const SIZES: [i64; 6] = [0, 1, 127, 128, 129, 300];

/// `membound analyze` of `Pipelines.<method>` into a JSON certificate, its time printed.
fn certificate(method: &str) -> PathBuf {
    let classes = compile_fixture("streams");
    let path = scratch_dir(&format!("streams-{method}")).join("certificate.json");
    let started = Instant::now();
    analyze_into(
        &classes,
        &format!("Pipelines.{method}"),
        "hotspot-coops",
        &path,
    );
    eprintln!("analyzed Pipelines.{method} in {:?}", started.elapsed());
    path
}

/// The objects the certificate predicts for `method` at `params` (`n=5`, `from=-3,to=4`).
fn predicted(certificate: &Path, method: &str, params: &str) -> i64 {
    let json = eval_method(certificate, &format!("Pipelines.{method}"), params);
    json["mem_alloc"]["objects"]
        .as_i64()
        .unwrap_or_else(|| panic!("{method} at {params}: {json:#}"))
}

/// `validate` of a run of `main` with `args`: nothing below the run; the comparisons.
fn validated(certificate: &Path, args: &[&str]) -> Vec<Value> {
    let (code, report) = validate_json(certificate, "Pipelines", args);
    assert_eq!((code, &report["broken"]), (0, &0.into()), "{report:#}");
    report["comparisons"]
        .as_array()
        .expect("comparisons")
        .clone()
}

/// The (observed, predicted) objects of the comparison whose name starts with `what`.
fn objects(comparisons: &[Value], what: &str) -> (Value, Value) {
    let found = comparisons
        .iter()
        .find(|c| {
            c["what"].as_str().is_some_and(|w| w.starts_with(what)) && c["quantity"] == "objects"
        })
        .unwrap_or_else(|| panic!("no {what} in {comparisons:#?}"));
    (found["observed"].clone(), found["predicted"].clone())
}

/// How many of `from..to` `Integer.valueOf` boxes anew: those outside -128..127.
fn boxes(from: i64, to: i64) -> i64 {
    (from..to).filter(|v| !(-128..=127).contains(v)).count() as i64
}

/// The arrays an `ArrayList` made empty grows through as `n` elements are added: its first
/// `Object[10]`, then one per growth by half.
fn list_arrays(n: i64) -> i64 {
    let (mut capacity, mut arrays) = (0, 0);
    for size in 0..n {
        if size == capacity {
            capacity = if capacity == 0 {
                10
            } else {
                capacity + (capacity >> 1).max(1)
            };
            arrays += 1;
        }
    }
    arrays
}

/// What a `range(from, to).boxed().collect(toList())` makes besides its boxes, as the specs
/// charge it: the spliterator (not for an empty range) and the head, the stage and its sink,
/// the collector, the op, its sink and the list; for a non-empty one, the first array and an
/// `Object[5]` per element (the list's growth, amortized).
fn collected_besides_boxes(size: i64) -> i64 {
    let fixed = 1 + 2 + 1 + 3;
    if size == 0 {
        fixed
    } else {
        fixed + 1 + 1 + size
    }
}

/// What a run makes besides its boxes: the same with the list's real arrays.
fn run_besides_boxes(size: i64) -> i64 {
    let fixed = 1 + 2 + 1 + 3;
    fixed + i64::from(size > 0) + list_arrays(size)
}

#[test]
fn a_range_boxed_into_a_list_counts_the_boxes_outside_the_cache_exactly() {
    let certificate = certificate("boxes");
    for n in SIZES {
        assert_eq!(
            predicted(&certificate, "boxes", &format!("n={n}")),
            collected_besides_boxes(n) + boxes(0, n),
            "n = {n}"
        );
        let comparisons = validated(&certificate, &["boxes", &n.to_string()]);
        let (observed, predicted) = objects(&comparisons, "total");
        assert_eq!(observed, run_besides_boxes(n) + boxes(0, n), "n = {n}");
        assert_eq!(
            predicted,
            collected_besides_boxes(n) + boxes(0, n),
            "n = {n}"
        );
    }
}

#[test]
fn boxes_below_the_cache_count_too() {
    let certificate = certificate("between");
    for from in [-300, -129, -128, -5, 0, 120, 128, 200] {
        for to in [-300, -130, -127, 0, 127, 128, 129, 400] {
            let size = (to - from).max(0);
            assert_eq!(
                predicted(&certificate, "between", &format!("from={from},to={to}")),
                collected_besides_boxes(size) + boxes(from, to),
                "range({from}, {to})"
            );
        }
    }
    // main runs between(-n, n) and between(n, 2n).
    for n in SIZES {
        let comparisons = validated(&certificate, &["between", &n.to_string()]);
        let run = |from: i64, to: i64| run_besides_boxes((to - from).max(0)) + boxes(from, to);
        let (observed, _) = objects(&comparisons, "total");
        assert_eq!(observed, run(-n, n) + run(n, 2 * n), "n = {n}");
    }
}

#[test]
fn a_mapped_streams_boxes_are_one_per_element() {
    // Its values are no range's: each element may be boxed.
    let certificate = certificate("doubled");
    for n in SIZES {
        let size_stage = 2;
        assert_eq!(
            predicted(&certificate, "doubled", &format!("n={n}")),
            collected_besides_boxes(n) + size_stage + n,
            "n = {n}"
        );
        validated(&certificate, &["doubled", &n.to_string()]);
    }
}

#[test]
fn sums_counts_and_actions_make_a_constant_validated_exactly_where_it_is_exact() {
    // sum(): range, map stage and sink, op, sink, and the sum boxed (unknown: counted).
    let squares = certificate("squares");
    // forEach on the range itself: the range only, the action allocating nothing.
    let visit = certificate("visit");
    for n in SIZES {
        let nonempty = i64::from(n > 0);
        assert_eq!(
            predicted(&squares, "squares", &format!("n={n}")),
            6 + nonempty
        );
        assert_eq!(predicted(&visit, "visit", &format!("n={n}")), 1 + nonempty);
        let args = ["visit", &n.to_string()];
        let (observed, predicted) = objects(&validated(&visit, &args), "total");
        assert_eq!(observed, predicted, "visit({n})");
        let comparisons = validated(&squares, &["squares", &n.to_string()]);
        let (observed, predicted) = objects(&comparisons, "total");
        // The sum of 0..n-1 squared leaves the cache from n = 8 on.
        assert_eq!(
            (n >= 8, observed == predicted),
            (n >= 8, n >= 8),
            "squares({n})"
        );
    }
    // count() of rangeClosed(from, to): the count a Long from 128 elements on; its sink is
    // charged although a range's count visits no element.
    let closed = certificate("closed");
    for (from, to) in [(0, -1), (0, 0), (-63, 63), (-64, 63), (-300, 300)] {
        let size = (to - from + 1).max(0);
        let expected = 1 + i64::from(size > 0) + 2 + i64::from(size >= 128);
        assert_eq!(
            predicted(&closed, "closed", &format!("from={from},to={to}")),
            expected
        );
    }
    for n in SIZES {
        validated(&closed, &["closed", &n.to_string()]);
    }
}

#[test]
fn what_a_stage_function_makes_is_counted_per_element_from_its_code() {
    let certificate = certificate("points");
    for n in SIZES {
        let comparisons = validated(&certificate, &["points", &n.to_string()]);
        if n == 0 {
            continue;
        }
        // The points the lambda makes, run by collect, compared with the lambda's own site.
        let (observed, predicted) = objects(&comparisons, "Pipelines.lambda$points$");
        assert_eq!((observed, predicted), (n.into(), n.into()), "n = {n}");
    }
}

#[test]
fn a_filtered_collection_stream_is_bounded_by_the_collections_size() {
    let certificate = certificate("evens");
    for n in SIZES {
        // The spliterator, head, filter stage and sink, count's op and sink, and the Long of a
        // count from 128 on (the size bounds the count).
        let expected = 6 + i64::from(n >= 128);
        assert_eq!(
            predicted(&certificate, "evens", &format!("list_size={n}")),
            expected
        );
        let comparisons = validated(&certificate, &["evens", &n.to_string()]);
        let (observed, _) = objects(&comparisons, "total");
        // n elements, n/2 rounded up even: a Long from 256 elements on.
        assert_eq!(observed, 6 + i64::from((n + 1) / 2 >= 128), "n = {n}");
    }
}

#[test]
fn other_collectors_and_uncounted_streams_are_unbounded_with_their_reason() {
    let cases = [
        (
            "copied",
            "a collector other than Collectors.toList() is not counted",
        ),
        (
            "pointsOf",
            "to java.util.stream.IntPipeline.mapToObj(Ljava/util/function/IntFunction;)Ljava/util/stream/Stream;: its bound depends on this_size",
        ),
    ];
    for (method, reason) in cases {
        let summary = fixture_output(
            "analyze",
            "streams",
            &format!("Pipelines.{method}"),
            &["-q"],
        );
        assert!(
            summary.contains("memAlloc objects: ∞"),
            "{method}: {summary}"
        );
        assert!(
            summary.contains(reason),
            "{method}: no `{reason}` in {summary}"
        );
        let certificate = certificate(method);
        for n in ["0", "300"] {
            validated(&certificate, &[method, n]);
        }
    }
}

//! Object views: loops bounded by a `String` parameter's length, by a collection parameter's
//! size and by an iterator over it count exactly in that length or size, listed as parameters
//! with their origin; a callee's view is bound to the caller's; a reassigned parameter, or a
//! collection modified in the loop, directly or by a callee, never yields a count below a run.
//! Oracles: hand counts of the fixture `collections`, brute-force simulations of its loops and
//! runs of its `Main` under the agent, which records the lengths and sizes at each entry.

use std::path::{Path, PathBuf};

use membound_tests::{
    certificate_params, eval_method, fixture_certificate, membound, pair, site_steps,
};

use serde_json::Value;
use serde_json::json;

/// The certificate of `method` of the `collections` fixture in the `count` model.
fn certificate(method: &str) -> PathBuf {
    fixture_certificate("collections", method, "count")
}

/// The evaluated count of `method`'s own allocation of `ty` (reached through no call).
fn own_count(evaluated: &Value, ty: &str) -> Value {
    let sites: Vec<&Value> = evaluated["sites"]
        .as_array()
        .expect("sites")
        .iter()
        .filter(|site| site_steps(site).len() == 1 && site["type"] == ty)
        .collect();
    assert_eq!(sites.len(), 1, "one {ty} site in {evaluated:#}");
    sites[0]["count"].clone()
}

/// The evaluated count of the site of `ty` allocated in `method`.
fn site_count(evaluated: &Value, method: &str, ty: &str) -> Value {
    evaluated["sites"]
        .as_array()
        .expect("sites")
        .iter()
        .find(|site| {
            site["at"]["method"]
                .as_str()
                .is_some_and(|m| m.contains(method))
                && site["type"] == ty
        })
        .unwrap_or_else(|| panic!("no {ty} site in {method}: {evaluated:#}"))["count"]
        .clone()
}

fn assumptions(certificate: &Path) -> String {
    let text = std::fs::read_to_string(certificate).expect("certificate");
    let json: Value = serde_json::from_str(&text).expect("JSON");
    json["assumptions"].to_string()
}

const OBJECT: &str = "java.lang.Object";
const SIZES: &str = "a collection parameter's size";
const HANDED_IN: &str = "objects handed in as parameters of JDK types";

#[test]
fn a_loop_to_a_string_length_counts_the_length() {
    let cert = certificate("collections.Views.perChar");
    assert_eq!(
        certificate_params(&cert, "collections.Views.perChar"),
        [pair("s_length", "length of parameter 0 (s)")]
    );
    for n in [0, 1, 9] {
        let evaluated = eval_method(&cert, "collections.Views.perChar", &format!("s_length={n}"));
        assert_eq!(evaluated["mem_alloc"]["objects"], n, "{evaluated:#}");
    }
    // Strings are immutable, and final: no assumption is needed.
    assert!(!assumptions(&cert).contains(SIZES));
    assert!(!assumptions(&cert).contains(HANDED_IN));
}

#[test]
fn a_copied_string_and_a_length_kept_in_a_local_read_the_parameter_length() {
    let cert = certificate("collections.Views.perCharCopy");
    assert_eq!(
        certificate_params(&cert, "collections.Views.perCharCopy"),
        [pair("s_length", "length of parameter 0 (s)")]
    );
    let evaluated = eval_method(&cert, "collections.Views.perCharCopy", "s_length=6");
    assert_eq!(evaluated["mem_alloc"]["objects"], 6, "{evaluated:#}");
}

#[test]
fn the_length_of_another_string_kept_in_a_local_is_a_value_of_its_own() {
    let cert = certificate("collections.Views.lengthOfElement");
    let params = certificate_params(&cert, "collections.Views.lengthOfElement");
    assert_eq!(
        params[0],
        pair("words_length", "length of parameter 0 (words)")
    );
    assert_eq!(params[1].0, "n", "{params:?}");
    assert!(
        params[1].1.starts_with("local n set from a call's result"),
        "{params:?}"
    );
    let evaluated = eval_method(
        &cert,
        "collections.Views.lengthOfElement",
        "words_length=2,n=4",
    );
    assert_eq!(evaluated["mem_alloc"]["objects"], 4, "{evaluated:#}");
}

#[test]
fn callees_lengths_are_bound_to_the_callers_string() {
    let cert = certificate("collections.Views.twice");
    for n in [0, 4] {
        let evaluated = eval_method(&cert, "collections.Views.twice", &format!("s_length={n}"));
        assert_eq!(evaluated["mem_alloc"]["objects"], 2 * n, "{evaluated:#}");
    }
    // The literal "hello" has length 5.
    let cert = certificate("collections.Views.literal");
    assert_eq!(certificate_params(&cert, "collections.Views.literal"), []);
    let run = membound([
        "eval".as_ref(),
        cert.as_os_str(),
        "--method".as_ref(),
        "collections.Views.literal".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let evaluated: Value = serde_json::from_str(&run.stdout).expect("eval prints JSON");
    assert_eq!(
        evaluated["methods"][0]["mem_alloc"]["objects"], 5,
        "{evaluated:#}"
    );
}

#[test]
fn a_reassigned_string_parameter_has_no_view() {
    let cert = certificate("collections.Views.reassigned");
    let evaluated = eval_method(&cert, "collections.Views.reassigned", "s_length=3");
    // The loop runs to the length of another string.
    assert_eq!(own_count(&evaluated, OBJECT), "infty", "{evaluated:#}");
}

#[test]
fn a_loop_to_a_collection_size_counts_the_size_under_its_assumption() {
    let cert = certificate("collections.Views.perElement");
    assert_eq!(
        certificate_params(&cert, "collections.Views.perElement"),
        [pair("c_size", "size of parameter 0 (c)")]
    );
    for n in [0, 1, 7] {
        let evaluated = eval_method(
            &cert,
            "collections.Views.perElement",
            &format!("c_size={n}"),
        );
        assert_eq!(evaluated["mem_alloc"]["objects"], n, "{evaluated:#}");
    }
    assert!(assumptions(&cert).contains(SIZES), "{}", assumptions(&cert));
    // Bound through a call.
    let cert = certificate("collections.Views.caller");
    let evaluated = eval_method(&cert, "collections.Views.caller", "c_size=7");
    assert_eq!(evaluated["mem_alloc"]["objects"], 7, "{evaluated:#}");
}

#[test]
fn iterator_loops_count_the_size() {
    for (method, param) in [
        ("collections.Views.forEach", "c_size"),
        ("collections.Views.keys", "m_size"),
    ] {
        let cert = certificate(method);
        for n in [0, 1, 6] {
            let evaluated = eval_method(&cert, method, &format!("{param}={n}"));
            assert_eq!(own_count(&evaluated, OBJECT), n, "{method}: {evaluated:#}");
        }
    }
    let cert = certificate("collections.Views.pairs");
    for n in [0, 1, 6] {
        let evaluated = eval_method(&cert, "collections.Views.pairs", &format!("c_size={n}"));
        assert_eq!(own_count(&evaluated, OBJECT), n * n, "{evaluated:#}");
    }
}

/// How many objects `grows` allocates for a list of `size` elements: its loop runs to the
/// size, which grows by one every other iteration.
fn grows_brute_force(size: i64) -> i64 {
    let (mut i, mut size, mut allocated) = (0, size, 0);
    while i < size {
        allocated += 1;
        if i % 2 == 0 {
            size += 1;
        }
        i += 1;
    }
    allocated
}

#[test]
fn a_collection_modified_in_its_loop_is_not_a_bound() {
    // The run allocates more than the size at entry: a bound of c_size would be below it.
    assert_eq!(grows_brute_force(3), 6);
    let cert = certificate("collections.Views.grows");
    let evaluated = eval_method(&cert, "collections.Views.grows", "c_size=3");
    assert_eq!(own_count(&evaluated, OBJECT), "infty", "{evaluated:#}");
    // The same when a callee modifies it.
    let cert = certificate("collections.Views.handedOver");
    let evaluated = eval_method(&cert, "collections.Views.handedOver", "c_size=3");
    assert_eq!(
        site_count(
            &evaluated,
            "java.util.LinkedList.",
            "java.util.LinkedList$Node"
        ),
        "infty",
        "{evaluated:#}"
    );
}

#[test]
fn a_reassigned_collection_parameter_has_no_view() {
    let cert = certificate("collections.Views.reassignedList");
    let evaluated = eval_method(&cert, "collections.Views.reassignedList", "c_size=3");
    assert_eq!(own_count(&evaluated, OBJECT), "infty", "{evaluated:#}");
}

#[test]
fn an_iterator_moved_back_is_not_bounded_by_the_size() {
    let cert = certificate("collections.Views.backAndForth");
    // Whatever the callee does with the iterator, the size does not bound the rounds.
    for rounds in [1, 5] {
        let evaluated = eval_method(
            &cert,
            "collections.Views.backAndForth",
            &format!("c_size=1,rounds={rounds}"),
        );
        assert_eq!(own_count(&evaluated, OBJECT), rounds, "{evaluated:#}");
    }
}

/// How many blocks `ArrayDim.addAll` allocates for `size` elements added to an array holding
/// `len` already: one for each element added at a multiple of the block size.
fn blocks_brute_force(size: i64, len: i64) -> i64 {
    (len..len + size).filter(|l| l % 5 == 0).count() as i64
}

#[test]
fn array_dim_allocates_exactly_one_block_per_five_elements() {
    let cert = certificate("collections.ArrayDim.addAll");
    // A subclass of ArrayList from the JDK handed in is not looked for: a named assumption.
    let listed = assumptions(&cert);
    assert!(
        listed.contains(HANDED_IN) && listed.contains("(java.util.ArrayList)"),
        "{listed}"
    );
    // `len` is written by `add` on every call: a threaded view, its value at entry a parameter.
    assert_eq!(
        certificate_params(&cert, "collections.ArrayDim.addAll"),
        [
            pair("c_size", "size of parameter 0 (c)"),
            pair("len", "field len of this")
        ]
    );
    for len in 0..=4 {
        for size in 0..=10 {
            let evaluated = eval_method(
                &cert,
                "collections.ArrayDim.addAll",
                &format!("c_size={size},len={len}"),
            );
            let blocks = site_count(&evaluated, ".newBlock(", "java.lang.Object[]");
            // The thesis's count from an empty array, ⌈size/5⌉, at len = 0.
            let expected = blocks_brute_force(size, len);
            assert_eq!(blocks, expected, "size {size}, len {len}: {evaluated:#}");
            // The list's iterator, and per block its 5 cells and the LinkedList node keeping it
            // (getLast is a bundled spec: it allocates nothing when it returns).
            assert_eq!(
                evaluated["mem_alloc"],
                json!({"objects": 1 + 2 * expected, "bytes": 1 + 6 * expected}),
                "size {size}, len {len}: {evaluated:#}"
            );
        }
    }
}

/// `membound validate` of `method`'s certificate against `collections.Main ab cde f` (a text
/// of length 6, a list of 3 elements, a map of 3 keys): every comparison, checked unbroken.
fn validated(method: &str) -> Vec<Value> {
    let cert = certificate(method);
    let run = membound([
        "validate".as_ref(),
        cert.as_os_str(),
        "--main".as_ref(),
        "collections.Main".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        "--".as_ref(),
        "ab".as_ref(),
        "cde".as_ref(),
        "f".as_ref(),
    ]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(json["broken"], 0, "{json:#}");
    json["comparisons"].as_array().expect("comparisons").clone()
}

/// The (observed, predicted) pair of the comparison of the site whose text contains `site`.
fn compared(comparisons: &[Value], site: &str) -> (Value, Value) {
    let comparison = comparisons
        .iter()
        .find(|c| c["what"].as_str().is_some_and(|w| w.contains(site)))
        .unwrap_or_else(|| panic!("no {site} in {comparisons:#?}"));
    (
        comparison["observed"].clone(),
        comparison["predicted"].clone(),
    )
}

#[test]
fn analyzed_views_equal_real_runs() {
    for (method, site, count) in [
        (
            "collections.Views.perChar",
            "perChar(Ljava/lang/String;)V@10 ",
            6 + 6,
        ),
        (
            "collections.Views.twice",
            "perCharCopy(Ljava/lang/String;)V@14 ",
            6,
        ),
        (
            "collections.Views.perElement",
            "perElement(Ljava/util/ArrayList;)V@10 ",
            3,
        ),
        (
            "collections.Views.forEach",
            "forEach(Ljava/util/ArrayList;)V@21 ",
            3,
        ),
        (
            "collections.Views.keys",
            "keys(Ljava/util/HashMap;)V@26 ",
            3,
        ),
        (
            "collections.Views.pairs",
            "pairs(Ljava/util/ArrayList;)V@43 ",
            9,
        ),
    ] {
        let comparisons = validated(method);
        assert_eq!(
            compared(&comparisons, site),
            (json!(count), json!(count)),
            "{method}"
        );
    }
}

#[test]
fn array_dim_equals_a_real_run() {
    let comparisons = validated("collections.ArrayDim.addAll");
    // Three elements added to a new array fill one block; `len`, 0, comes from the run.
    assert_eq!(
        compared(
            &comparisons,
            "newBlock(I)[Ljava/lang/Object;@1 java.lang.Object[]"
        ),
        (json!(1), json!(1))
    );
}

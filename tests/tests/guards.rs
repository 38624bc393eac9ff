//! Guard facts across calls (fixture `guards`: a doubly linked list with its own Enumeration
//! and Iterator, whose `next()` throws `NoSuchElementException` when no item is left). After
//! `hasNext()` returned true, the cursor's field holds an item at the next `next()` on it, when
//! nothing between them may write that field: `next()`'s throw is infeasible there. A callee
//! piecewise constant in a chain the caller cannot bind (the loop removes items, so its walk is
//! not followed) counts its largest value over what the call may pass, which after the guard is
//! 0: a loop that allocates nothing per iteration adds nothing, however often it runs. Bounds are
//! exact against real runs under the agent, and a call that moves the cursor between `hasNext()`
//! and `next()` keeps the throw counted.

use membound_tests::{
    analyze_into, certificate_entry, compile_java_tree, eval_method, fixture_certificate,
    scratch_dir, validated_exactly, validated_unbroken, workspace_root,
};

const MAIN: &str = "guards.Guards";

/// The objects the certificate predicts for `method` at `params`.
fn objects(certificate: &std::path::Path, method: &str, params: &str) -> serde_json::Value {
    eval_method(certificate, method, params)["mem_alloc"]["objects"].clone()
}

/// Loops that remove the item they were just given allocate their cursor and nothing else:
/// the enumeration's `nextElement()` and the iterator's `next()` never throw there.
#[test]
fn removing_loops_guarded_by_has_next_allocate_only_their_cursor() {
    for method in ["guards.Guards.discharge", "guards.Guards.dropOdd"] {
        let certificate = fixture_certificate("guards", method, "count");
        let entry = certificate_entry(&certificate, method);
        assert_eq!(entry["mem_alloc"]["objects"], "(1)", "{entry:#}");
        for length in ["0", "1", "4", "5"] {
            let comparisons = validated_exactly(&certificate, MAIN, &[length]);
            assert!(
                comparisons.iter().any(|c| c["observed"] == 1),
                "{comparisons:#?}"
            );
        }
    }
}

/// A loop that removes nothing is walked: one array per item, exact in the chain's length.
#[test]
fn a_loop_that_removes_nothing_is_exact_in_its_chain() {
    let method = "guards.Guards.copies";
    let certificate = fixture_certificate("guards", method, "count");
    for length in 0..=6 {
        let params = format!("list_first_length={length}");
        assert_eq!(
            objects(&certificate, method, &params),
            length + 1,
            "{params}"
        );
    }
    for length in ["0", "3", "6"] {
        validated_exactly(&certificate, MAIN, &[length]);
    }
}

/// `skip(e)` between `hasMoreElements()` and the loop's own `nextElement()` may move the
/// cursor past its last item (it does on a list of odd length): the guard no longer holds, so
/// that `nextElement()`'s exception is counted, and the run is never above the bound. The
/// cursor's rest is no longer taken as its callee's chain either: `skip` shortens it unseen.
#[test]
fn a_call_that_moves_the_cursor_between_has_next_and_next_keeps_the_throw_counted() {
    let method = "guards.Guards.skipThenNext";
    let certificate = fixture_certificate("guards", method, "count");
    let thrown_by_own_next = |comparisons: &[serde_json::Value]| {
        comparisons
            .iter()
            .find(|c| {
                let what = c["what"].as_str().unwrap_or_default();
                what.contains(
                    "skipThenNext(Lguards/ItemList;)I@22 -> guards.ItemEnumeration.nextElement",
                ) && what.ends_with("java.util.NoSuchElementException")
            })
            .map(|c| (c["observed"].clone(), c["predicted"].clone()))
    };
    for (length, thrown) in [("5", 1), ("4", 0), ("1", 0)] {
        let json = validated_unbroken(&certificate, MAIN, &[length]);
        let comparisons = json["comparisons"].as_array().expect("comparisons");
        if thrown > 0 {
            let (observed, predicted) = thrown_by_own_next(comparisons).expect("the throw's chain");
            assert_eq!(observed, thrown, "{json:#}");
            assert!(predicted.as_i64() >= Some(thrown), "{json:#}");
        }
    }
    // `pairs` calls `skip` after its own `nextElement()`: the guard holds there, and `skip`'s
    // exception is counted in `skip`.
    let certificate = fixture_certificate("guards", "guards.Guards.pairs", "count");
    for length in ["5", "4"] {
        validated_unbroken(&certificate, MAIN, &[length]);
    }
}

/// JOlden's health: a hospital's lists are enumerated while patients are removed from them.
/// `discharge()` allocates its enumeration only, `assess(hasParent)` its enumeration and, with a
/// parent, the `Random` (and its seed's `AtomicLong`) of `Health`'s class initializer, which
/// `Health.nextInt` may be the first to run. All JOlden classes share one directory, so the
/// enumeration's calls dispatch to em3d's `NodeEnumeration` too; em3d's own bound is unchanged.
#[test]
fn health_s_hospital_loops_allocate_their_enumerations() {
    let classes = compile_java_tree(
        "benchmarks-jolden",
        &workspace_root().join("benchmarks-jolden/java"),
    );
    let dir = scratch_dir("guards-health");
    let certify = |method: &str| {
        let certificate = dir.join(format!("{method}.json"));
        analyze_into(&classes, method, "count", &certificate);
        certificate
    };
    let discharge = certify("health.Hospital.discharge");
    let entry = certificate_entry(&discharge, "health.Hospital.discharge");
    assert_eq!(entry["mem_alloc"]["objects"], "(1)", "{entry:#}");
    let method = "health.Hospital.assess";
    let assess = certify(method);
    assert_eq!(objects(&assess, method, "hasParent=0,seed=42"), 1);
    assert_eq!(objects(&assess, method, "hasParent=1,seed=42"), 3);
    let method = "em3d.Em3d.compute";
    let compute = certify(method);
    for rounds in 0..=3 {
        let params = format!("g_hNodes_length=4,g_eNodes_length=5,iterations={rounds}");
        assert_eq!(objects(&compute, method, &params), 2 * rounds, "{params}");
    }
}

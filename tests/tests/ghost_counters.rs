//! Ghost counters (fixture `ghost_counters`, em3d's `fromCount`): an `int` field the code only
//! ever increments by one bounds the arrays sized by it through the increments the caller runs,
//! where that caller runs once and every increment runs inside it, under the named assumption
//! that it is 0 in the objects that exist when the analyzed method starts; never below a real
//! run. Along a list, each receiver once, the counters sum to at most the
//! increments: linear; through an array's cells, each receiver's counter is bounded alone:
//! quadratic. A counter also written otherwise (`seen += k`) stays ∞, with a reason naming the
//! field.

use membound_tests::{
    analyze_into, compile_java_tree, eval_method, fixture_certificate, scratch_dir,
    validated_unbroken, workspace_root,
};

const RUN: &str = "ghost.Counters";

/// An object's or array's bytes under hotspot-coops: rounded up to 8.
fn aligned(bytes: i64) -> i64 {
    (bytes + 7) / 8 * 8
}

fn bytes(json: &serde_json::Value) -> i64 {
    json["mem_alloc"]["bytes"]
        .as_i64()
        .unwrap_or_else(|| panic!("finite bytes: {json:#}"))
}

#[test]
fn arrays_sized_by_a_counter_only_bumped_by_increments_are_bounded_by_the_increments() {
    let certificate = fixture_certificate("ghost_counters", "ghost.Counters.fill", "hotspot-coops");
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    // The assumption, naming the counter.
    assert!(
        text.contains("sum to at most the increments that method runs (ghost.Bin.hits)"),
        "{text}"
    );
    for n in 1..=6_i64 {
        for k in 0..=4_i64 {
            let json = eval_method(&certificate, "ghost.Counters.fill", &format!("n={n},k={k}"));
            // Whatever bins the n*k + n increments hit: at worst all in one bin's slots.
            let increments = n * k + n;
            let worst = aligned(16 + 4 * n) + 24 * n + 16 * (n - 1) + aligned(16 + 4 * increments);
            assert!(bytes(&json) >= worst, "n={n} k={k}: {json:#}");
            assert_eq!(json["mem_alloc"]["objects"], 2 * n + 1, "n={n} k={k}");
        }
    }
    for args in [["5", "3"], ["7", "4"], ["1", "0"], ["3", "9"]] {
        validated_unbroken(&certificate, RUN, &args);
    }
}

/// The most bytes `n` rooms of `char[uses]` take when their counters sum to `total`, over every
/// way to split it (brute force).
fn worst_rooms(n: usize, total: usize) -> i64 {
    // best[j]: the most bytes of the rooms so far holding j increments in all.
    let mut best = vec![i64::MIN; total + 1];
    best[0] = 0;
    for _ in 0..n {
        let mut next = vec![i64::MIN; total + 1];
        for (used, &bytes) in best.iter().enumerate() {
            if bytes == i64::MIN {
                continue;
            }
            for uses in 0..=total - used {
                let room = aligned(16 + 2 * uses as i64);
                next[used + uses] = next[used + uses].max(bytes + room);
            }
        }
        best = next;
    }
    best.into_iter().max().unwrap_or(0)
}

#[test]
fn rooms_sized_by_counters_along_a_list_are_linear_in_the_increments() {
    let certificate =
        fixture_certificate("ghost_counters", "ghost.Counters.listed", "hotspot-coops");
    let at = |n: i64, k: i64| {
        bytes(&eval_method(
            &certificate,
            "ghost.Counters.listed",
            &format!("n={n},k={k}"),
        ))
    };
    for n in 1..=5_i64 {
        for k in 0..=3_i64 {
            // The cells' array and the cells, then their rooms however the n*k bumps fall.
            let others = aligned(16 + 4 * n) + 24 * n;
            let worst = others + worst_rooms(n as usize, (n * k) as usize);
            assert!(at(n, k) >= worst, "n={n} k={k}: {} < {worst}", at(n, k));
        }
    }
    // Linear: twice the cells, at most twice the bytes (a quadratic bound would be 4 times).
    for (n, k) in [(20, 10), (50, 3), (7, 40)] {
        assert!(at(2 * n, k) <= 2 * at(n, k), "n={n} k={k}");
    }
    for args in [["5", "3"], ["30", "9"], ["1", "0"], ["0", "2"]] {
        validated_unbroken(&certificate, RUN, &args);
    }
}

#[test]
fn a_list_walked_twice_counts_each_receiver_alone() {
    // Walked inside another loop, a cell is a receiver twice: the sum over the receivers is
    // not bounded by the increments, each receiver is (by all of them).
    let certificate = fixture_certificate(
        "ghost_counters",
        "ghost.Counters.listedTwice",
        "hotspot-coops",
    );
    // Many bumps on few cells: a bound summing the counters once would be below two walks.
    let points = (1..=5_i64).flat_map(|n| (0..=3_i64).map(move |k| (n, k)));
    for (n, k) in points.chain([(1, 100), (2, 50)]) {
        let json = eval_method(
            &certificate,
            "ghost.Counters.listedTwice",
            &format!("n={n},k={k}"),
        );
        let others = aligned(16 + 4 * n) + 24 * n;
        let worst = others + 2 * worst_rooms(n as usize, (n * k) as usize);
        assert!(bytes(&json) >= worst, "n={n} k={k}: {json:#}");
    }
    for args in [["5", "3"], ["30", "9"], ["1", "0"]] {
        validated_unbroken(&certificate, RUN, &args);
    }
}

#[test]
fn a_counter_also_grown_by_an_argument_stays_unbounded_naming_the_field() {
    let certificate =
        fixture_certificate("ghost_counters", "ghost.Counters.tallies", "hotspot-coops");
    let json = eval_method(&certificate, "ghost.Counters.tallies", "n=4,k=2");
    assert_eq!(json["mem_alloc"]["bytes"], "infty", "{json:#}");
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    assert!(
        text.contains("field ghost.Tally.seen is no ghost counter: it is also stored other than by `++` at ghost.Counters.tallies"),
        "{text}"
    );
    assert!(!text.contains("(a ghost counter"), "{text}");
    validated_unbroken(&certificate, RUN, &["4", "2"]);
}

#[test]
fn a_counter_bumped_by_a_method_two_callers_share_is_bounded_in_neither() {
    // From `main`, `bumpAll` runs in `listed` and in `listedTwice`: neither sees every increment
    // of `Cell.uses` (the other's come before or after it), so their rooms stay ∞, saying why;
    // `Bin.hits` is bumped only inside `fill`, which `main` calls once.
    let certificate = fixture_certificate("ghost_counters", "ghost.Counters.main", "hotspot-coops");
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    let refused = "(field ghost.Cell.uses is a ghost counter, but increments may run before this \
                   method starts, or it may run more than once)";
    assert!(text.contains(refused), "{text}");
    assert!(
        text.contains("the increments that method runs (ghost.Bin.hits)"),
        "{text}"
    );
    validated_unbroken(&certificate, RUN, &["5", "3"]);
}

#[test]
fn em3d_create_and_main_are_bounded_through_from_count() {
    let classes = compile_java_tree("jolden", &workspace_root().join("benchmarks-jolden/java"));
    let dir = scratch_dir("ghost-counters-em3d");
    let create = dir.join("create.json");
    analyze_into(&classes, "em3d.Em3d.create", "hotspot-coops", &create);
    let json = eval_method(&create, "em3d.Em3d.create", "numNodes=10,numDegree=5");
    assert_eq!(json["mem_alloc"]["objects"], 83, "{json:#}");
    let at = |nodes: i64| {
        bytes(&eval_method(
            &create,
            "em3d.Em3d.create",
            &format!("numNodes={nodes},numDegree=8"),
        ))
    };
    // Each node's arrays once per walk: linear in the nodes, not quadratic.
    assert!(at(2000) <= 2 * at(1000), "{} {}", at(1000), at(2000));
    for args in [["-n", "10", "-d", "5"], ["-n", "20", "-d", "6"]] {
        validated_unbroken(&create, "em3d.Em3d", &args);
    }
    let main = dir.join("main.json");
    analyze_into(&classes, "em3d.Em3d.main", "hotspot-coops", &main);
    validated_unbroken(&main, "em3d.Em3d", &["-n", "20", "-d", "6"]);
    let text = std::fs::read_to_string(&main).expect("certificate");
    assert!(!text.contains("infty"), "{text}");
}

//! Trees a call returns fresh (fixture `fresh_trees`, JOlden health's `createVillage` then
//! `simulate`): a recursive builder whose every node it creates itself returns a tree whose
//! size is at most its count of the node class, so a caller passing the tree to a recursion over
//! it is bounded in the builder's parameters: exact where that count is the size (a complete
//! tree), and equal to real runs. A tree holding a node of the caller's, a node no call created
//! (a shared static one), or a node the caller hangs in it after the build leaves the walk
//! unbounded.

use membound_tests::{
    analyze_into, certificate_params, compile_java_tree, eval_method, fixture_certificate, pair,
    scratch_dir, total_objects, validated_unbroken, workspace_root,
};

const RUN: &str = "freshtrees.Trees";

/// The certificate (count model) of `freshtrees.Trees.<method>`, whose one parameter is `depth`.
fn certificate(method: &str) -> std::path::PathBuf {
    let method = format!("freshtrees.Trees.{method}");
    let certificate = fixture_certificate("fresh_trees", &method, "count");
    assert_eq!(
        certificate_params(&certificate, &method),
        vec![pair("depth", "parameter 0 (int depth)")]
    );
    certificate
}

#[test]
fn a_walk_of_the_tree_a_recursive_builder_returns_is_bounded_by_what_it_built() {
    let certificate = certificate("buildThenWalk");
    // 2^depth - 1 nodes, then one box per node.
    for depth in -1..=8_i64 {
        let json = eval_method(
            &certificate,
            "freshtrees.Trees.buildThenWalk",
            &format!("depth={depth}"),
        );
        let nodes = (1_i64 << depth.max(0)) - 1;
        assert_eq!(json["mem_alloc"]["objects"], 2 * nodes, "depth {depth}");
        // The walk's stack of regions is bounded by the tree's size too.
        assert!(json["mem_rq"]["objects"].is_u64(), "{json:#}");
    }
    // Depths 0..=4: 26 nodes and 26 boxes. (The walk's sites reached through its own
    // recursive calls are counted per chain more loosely than its total.)
    let report = validated_unbroken(&certificate, RUN, &[]);
    let comparisons = report["comparisons"].as_array().expect("comparisons");
    assert_eq!(total_objects(comparisons), (52.into(), 52.into()));
}

/// `method`'s certificate: unbounded at depth 3, through its call to `walk`.
fn unbounded_through_walk(method: &str) {
    let certificate = certificate(method);
    let json = eval_method(
        &certificate,
        &format!("freshtrees.Trees.{method}"),
        "depth=3",
    );
    assert_eq!(json["mem_alloc"]["objects"], "infty", "{json:#}");
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    assert!(
        text.contains("to freshtrees.Trees.walk(Lfreshtrees/Trees$Node;)I: its bound depends on"),
        "{text}"
    );
    validated_unbroken(&certificate, RUN, &[]);
}

#[test]
fn a_tree_holding_a_node_of_the_caller_leaves_the_walk_unbounded() {
    unbounded_through_walk("graftedThenWalk");
}

#[test]
fn a_tree_holding_a_shared_node_no_call_created_leaves_the_walk_unbounded() {
    unbounded_through_walk("sharedThenWalk");
}

#[test]
fn a_node_hung_in_the_tree_between_build_and_walk_leaves_the_walk_unbounded() {
    unbounded_through_walk("attachedThenWalk");
}

#[test]
fn jolden_health_main_simulates_the_villages_create_village_returns() {
    // `Village top = createVillage(levels, 0, null); simulate(top, time)`: simulate's
    // `top_size` is at most the (4^levels - 1)/3 villages createVillage creates.
    let classes = compile_java_tree("jolden", &workspace_root().join("benchmarks-jolden/java"));
    let certificate = scratch_dir("fresh-trees-health").join("health.json");
    analyze_into(&classes, "health.Health.main", "count", &certificate);
    let at = |levels: i64, time: i64| {
        let params = format!("args_length=4,levels={levels},time={time},seed=42,treated=0");
        let json = eval_method(&certificate, "health.Health.main", &params);
        json["mem_alloc"]["objects"].as_i64().expect("finite")
    };
    // Per step at most 3 objects per village (the enumerations of `discharge` and `assess`, a
    // patient; `Health`'s initializer counts once): one level more multiplies them by 4.
    let (small, large) = (at(3, 30), at(4, 30));
    assert!(large - small >= 3 * 30 * (85 - 21), "{small} {large}");
    for args in [["-l", "3", "-t", "30"], ["-l", "2", "-t", "7"]] {
        validated_unbroken(&certificate, "health.Health", &args);
    }
}

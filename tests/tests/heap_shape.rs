//! `membound heap shape learn|check`: degree metrics learned from good runs of the
//! `heap_shapes` fixture at its garbage collections (several runs merged into one file), a
//! later good run checking clean, and a run whose list is spoiled into a cycle breaking fixed
//! metrics with exit 1, naming the class, the metric and the value.

use std::path::Path;

use membound_tests::{Run, compile_fixture, membound, scratch_dir};

/// `membound heap shape <action> [metrics] <classes> --main heapshapes.Collections --at gc
/// [extra] -- KIND N ROUNDS`.
fn shape(action: &str, metrics: &Path, args: &[&str], extra: &[&str]) -> Run {
    let classes = compile_fixture("heap_shapes");
    let mut command: Vec<String> = vec!["heap".into(), "shape".into(), action.into()];
    if action == "learn" {
        command.push("-o".into());
    }
    command.push(metrics.display().to_string());
    command.extend([
        classes.display().to_string(),
        "--main".into(),
        "heapshapes.Collections".into(),
        "--at".into(),
        "gc".into(),
    ]);
    command.extend(extra.iter().map(|a| a.to_string()));
    command.push("--".into());
    command.extend(args.iter().map(|a| a.to_string()));
    membound(&command)
}

#[test]
fn metrics_learned_from_good_runs_catch_a_list_spoiled_into_a_cycle() {
    let dir = scratch_dir("heap-shape");
    let metrics = dir.join("shape.yaml");
    // One sample per walk: the agent walks once per collection, and two collections that
    // come while it walks share the next walk (only under a heavy load).
    let samples = |run: &Run| -> usize {
        assert_eq!(run.code, 0, "{}", run.stderr);
        let count = run.stdout.split(' ').next().and_then(|n| n.parse().ok());
        assert!(run.stdout.contains("sample(s) learned"), "{}", run.stdout);
        count.expect("the number of samples")
    };
    let first = samples(&shape("learn", &metrics, &["list", "4", "2"], &[]));
    let second = samples(&shape("learn", &metrics, &["list", "5", "2"], &[]));
    assert!((1..=2).contains(&first) && (1..=2).contains(&second));
    let text = std::fs::read_to_string(&metrics).expect("the metrics file");
    // The paper's singly-linked-list metrics (Table 3): in 1, n-1; out 1, n-1.
    for metric in ["'0': '1'", "'1': n-1", "'2': '0'"] {
        assert!(text.contains(metric), "{metric} in\n{text}");
    }
    // Both runs' samples, merged: one per class (the list and the tree) per sample.
    assert_eq!(
        text.matches("objects:").count(),
        2 * (first + second),
        "{text}"
    );

    let good = shape("check", &metrics, &["list", "7", "2"], &[]);
    assert_eq!(good.code, 0, "{}\n{}", good.stdout, good.stderr);
    assert!(
        good.stdout.contains("0 fixed metric(s) broken"),
        "{}",
        good.stdout
    );

    let spoiled = shape(
        "check",
        &metrics,
        &["spoiled", "7", "2"],
        &["--format", "json"],
    );
    assert_eq!(spoiled.code, 1, "{}\n{}", spoiled.stdout, spoiled.stderr);
    let json: serde_json::Value = serde_json::from_str(&spoiled.stdout).expect("JSON");
    let broken: Vec<String> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["fixed"] == true)
        .map(|f| {
            format!(
                "{} {} {} {}",
                f["class"].as_str().unwrap_or(""),
                f["metric"].as_str().unwrap_or(""),
                f["value"],
                f["expected"].as_str().unwrap_or("")
            )
        })
        .collect();
    // The last node points back to a middle one: 14 nodes, one with two parents, none last.
    assert!(
        broken.contains(&"heapshapes.ListNode in-degree 2 1 0".to_owned()),
        "{broken:?}"
    );
    assert!(
        broken.contains(&"heapshapes.ListNode out-degree 0 0 1".to_owned()),
        "{broken:?}"
    );
    // The tree built beside it is untouched.
    assert!(
        !broken.iter().any(|b| b.starts_with("heapshapes.TreeNode")),
        "{broken:?}"
    );
}

#[test]
fn a_malformed_metrics_file_is_an_input_error() {
    let dir = scratch_dir("heap-shape-bad");
    let metrics = dir.join("shape.yaml");
    std::fs::write(&metrics, "format: membound-shape 1\nclasses:\n  A:\n    in: {'0': 'several'}\n    out: {}\n    samples: []\n").expect("write");
    let run = shape("check", &metrics, &["list", "3", "1"], &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("bad metric"), "{}", run.stderr);
}

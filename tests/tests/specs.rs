//! Library specs end to end (docs/specs.md): a user spec bounds a recursive method, the bundled
//! specs bound a native call and boxing, every spec used is listed among the certificate's
//! assumptions, and the bounds equal what a real JVM allocates under the agent.

use std::path::Path;

use membound_tests::{compile_fixture, eval_method, membound, scratch_dir, workspace_root};
use serde_json::Value;

fn spec_file() -> String {
    workspace_root()
        .join("tests/fixtures/specs/build.yaml")
        .display()
        .to_string()
}

fn analyze(classes: &Path, method: &str, extra: &[&str], certificate: &Path) -> String {
    let mut args = vec![
        "analyze".to_string(),
        classes.display().to_string(),
        "--method".to_string(),
        method.to_string(),
        "-o".to_string(),
        certificate.display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let run = membound(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

/// Objects of `ty` the run allocated under `method`, by `membound measure`.
fn measured(classes: &Path, method: &str, ty: &str, arg: u64) -> u64 {
    let run = membound([
        "measure".to_string(),
        classes.display().to_string(),
        "--method".to_string(),
        method.to_string(),
        "--main".to_string(),
        "Rec".to_string(),
        "--format".to_string(),
        "json".to_string(),
        "--".to_string(),
        arg.to_string(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    json["sites"]
        .as_array()
        .expect("sites")
        .iter()
        .filter(|s| s["type"] == ty)
        .map(|s| s["count"].as_u64().expect("count"))
        .sum()
}

#[test]
fn a_user_spec_bounds_recursion_exactly() {
    let classes = compile_fixture("specs");
    let dir = scratch_dir("specs-recursion");
    let without = dir.join("without.yaml");
    let summary = analyze(&classes, "Rec.lists", &[], &without);
    assert!(
        summary.contains("memAlloc objects: ∞"),
        "recursion without a spec is ∞:\n{summary}"
    );
    let with = dir.join("with.yaml");
    let summary = analyze(&classes, "Rec.lists", &["--spec", &spec_file()], &with);
    assert!(
        summary.contains("Rec.build(I)LRec$Node;: allocates at most n × Rec$Node per call"),
        "the spec is an assumption:\n{summary}"
    );
    let text = std::fs::read_to_string(&with).expect("certificate");
    assert!(
        text.contains("build(n) returns a fresh list of n nodes"),
        "{text}"
    );
    for m in [0_u64, 1, 2, 7] {
        let bound = eval_method(&with, "Rec.lists", &format!("m={m}"));
        let nodes = m * m.saturating_sub(1) / 2;
        assert_eq!(bound["mem_alloc"]["objects"], nodes, "m = {m}: {bound}");
        // A node: 12-byte header, a reference and an int, aligned to 24 bytes.
        assert_eq!(bound["mem_alloc"]["bytes"], 24 * nodes, "m = {m}: {bound}");
    }
    assert_eq!(measured(&classes, "Rec.lists", "Rec$Node", 7), 21);
}

#[test]
fn bundled_specs_bound_natives_and_boxing() {
    let classes = compile_fixture("specs");
    let dir = scratch_dir("specs-bundled");
    let certificate = dir.join("clock.yaml");
    let summary = analyze(&classes, "Rec.clock", &[], &certificate);
    for spec in [
        "java.lang.System.nanoTime()J: allocates nothing per call (bundled spec)",
        "java.lang.Long.valueOf(J)Ljava/lang/Long;: allocates at most 1 × java.lang.Long per call (bundled spec)",
    ] {
        assert!(summary.contains(spec), "no `{spec}` in\n{summary}");
    }
    let bound = eval_method(&certificate, "Rec.clock", "n=9");
    assert_eq!(bound["mem_alloc"]["objects"], 9, "{bound}");
    assert_eq!(bound["mem_alloc"]["bytes"], 9 * 24, "{bound}");
    // Nano times are far outside Long's cache: every box is new.
    assert_eq!(measured(&classes, "Rec.clock", "java.lang.Long", 9), 9);

    // Without the bundled specs the native is code membound cannot see.
    let bare = dir.join("bare.yaml");
    let summary = analyze(&classes, "Rec.clock", &["--no-bundled-specs"], &bare);
    assert!(
        summary.contains("reaches java.lang.System.nanoTime()J (native method)"),
        "{summary}"
    );
}

#[test]
fn a_bad_spec_file_is_an_input_error() {
    let classes = compile_fixture("specs");
    let dir = scratch_dir("specs-bad");
    let bad = dir.join("bad.yaml");
    std::fs::write(
        &bad,
        "membound_specs: 1\nspecs:\n  - method: Rec.build(I)LRec$Node;\n    allocates: [{ type: Rec$Node, count: \"n*n\" }]\n",
    )
    .expect("write");
    let run = membound([
        "analyze".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        "Rec.lists".as_ref(),
        "--spec".as_ref(),
        bad.as_os_str(),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("spec of Rec.build(I)LRec$Node;") && run.stderr.contains("n*n"),
        "{}",
        run.stderr
    );
    let missing = membound([
        "analyze".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        "Rec.lists".as_ref(),
        "--spec".as_ref(),
        dir.join("missing.yaml").as_os_str(),
    ]);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
}

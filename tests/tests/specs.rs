//! Library specs end to end (docs/specs.md): a user spec bounds a recursive method, the bundled
//! specs bound a native call, boxing and the growth of lists and builders, every spec used is
//! listed among the certificate's assumptions, and the bounds are never below (and, where the
//! spec is exact, equal) what a real JVM allocates under the agent.

use std::path::Path;

use membound_tests::{
    compile_fixture, eval_method, membound, scratch_dir, validate_json, workspace_root,
};
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

/// `membound measure --format json` of `method` in a run of `main` with one argument.
fn measure(classes: &Path, main: &str, method: &str, arg: u64) -> Value {
    let run = membound([
        "measure".to_string(),
        classes.display().to_string(),
        "--method".to_string(),
        method.to_string(),
        "--main".to_string(),
        main.to_string(),
        "--format".to_string(),
        "json".to_string(),
        "--".to_string(),
        arg.to_string(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

/// Objects of `ty` a run of `Rec` allocated under `method`.
fn measured(classes: &Path, method: &str, ty: &str, arg: u64) -> u64 {
    measure(classes, "Rec", method, arg)["sites"]
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
    // The recursion is solved from the code: build(n) makes n nodes.
    analyze(&classes, "Rec.lists", &[], &without);
    for m in [0_u64, 1, 2, 7] {
        let bound = eval_method(&without, "Rec.lists", &format!("m={m}"));
        assert_eq!(
            bound["mem_alloc"]["objects"],
            m * m.saturating_sub(1) / 2,
            "m = {m}"
        );
    }
    // A spec still stands for the method instead of its code.
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
        "java.lang.Long.valueOf(J)Ljava/lang/Long;: allocates at most 1 × java.lang.Long when l <= -129 or l >= 128 per call (bundled spec)",
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

/// What a run of `main` allocated under `method` in all: (objects, bytes).
fn measured_total(classes: &Path, main: &str, method: &str, arg: u64) -> (u64, u64) {
    let json = measure(classes, main, method, arg);
    let total = |what: &str| json["total"][what].as_u64().expect("a total");
    (total("objects"), total("bytes"))
}

#[test]
fn growth_specs_are_never_below_real_runs() {
    let classes = compile_fixture("specs");
    let dir = scratch_dir("specs-growth");
    for method in [
        "Growth.list",
        "Growth.smallList",
        "Growth.text",
        "Growth.map",
    ] {
        let certificate = dir.join(format!("{method}.yaml"));
        let summary = analyze(&classes, method, &[], &certificate);
        assert!(summary.contains("charged amortized"), "{summary}");
        // Sizes around the growth points: 10 → 15 → 22 → … (lists), 16 → 34 → 70 → … (text),
        // 12 → 24 → 48 → … (maps).
        for n in [0_u64, 1, 5, 10, 11, 12, 13, 16, 17, 25, 40, 300] {
            let bound = eval_method(&certificate, method, &format!("n={n}"));
            let (objects, bytes) = measured_total(&classes, "Growth", method, n);
            let predicted = |what: &str| {
                bound["mem_alloc"][what]
                    .as_u64()
                    .unwrap_or_else(|| panic!("{method}: a finite {what} bound, got {bound}"))
            };
            assert!(
                objects <= predicted("objects") && bytes <= predicted("bytes"),
                "{method} at n = {n}: the run allocated {objects} objects, {bytes} bytes; the bound is {bound}"
            );
        }
    }
}

#[test]
fn a_main_parsing_its_size_is_bounded_in_it() {
    let classes = compile_fixture("specs");
    let dir = scratch_dir("specs-parse");
    let certificate = dir.join("main.yaml");
    let summary = analyze(&classes, "Parse.main", &[], &certificate);
    assert!(
        summary.contains("java.lang.Integer.parseInt(Ljava/lang/String;)I: allocates nothing"),
        "{summary}"
    );
    assert!(
        summary.contains("local n set from a call's result"),
        "the parsed size is a parameter:\n{summary}"
    );
    for n in [0_u64, 1, 10, 11, 150] {
        let bound = eval_method(&certificate, "Parse.main", &format!("args_length=1,n={n}"));
        let (objects, bytes) = measured_total(&classes, "Parse", "Parse.main", n);
        let predicted = |what: &str| bound["mem_alloc"][what].as_u64().expect("finite");
        assert!(
            objects <= predicted("objects") && bytes <= predicted("bytes"),
            "n = {n}: the run allocated {objects} objects, {bytes} bytes; the bound is {bound}"
        );
    }
}

/// The comparison of what the run allocated under spec'd methods, for `quantity`.
fn under_specs(json: &Value, quantity: &str) -> (Value, Value) {
    let comparison = json["comparisons"]
        .as_array()
        .expect("comparisons")
        .iter()
        .find(|c| {
            c["what"]
                .as_str()
                .is_some_and(|w| w.starts_with("under library specs"))
                && c["quantity"] == quantity
        })
        .unwrap_or_else(|| panic!("no comparison under library specs in {json:#}"));
    (
        comparison["observed"].clone(),
        comparison["predicted"].clone(),
    )
}

#[test]
fn validate_checks_specs_against_the_run() {
    let classes = compile_fixture("specs");
    let dir = scratch_dir("specs-validate");
    // The user spec of the recursion is exact: 21 nodes at m = 7.
    let certificate = dir.join("lists.yaml");
    analyze(
        &classes,
        "Rec.lists",
        &["--spec", &spec_file()],
        &certificate,
    );
    let (code, json) = validate_json(&certificate, "Rec", &["7"]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(
        under_specs(&json, "objects"),
        (21.into(), 21.into()),
        "{json:#}"
    );
    // Amortized growth: what lists allocate under add and their constructor, in sum.
    let certificate = dir.join("list.yaml");
    analyze(&classes, "Growth.list", &[], &certificate);
    let (code, json) = validate_json(&certificate, "Growth", &["40"]);
    assert_eq!(code, 0, "{json:#}");
    let (observed, predicted) = under_specs(&json, "bytes");
    assert!(observed.as_u64() <= predicted.as_u64(), "{json:#}");
    // A spec that claims one node fewer than build makes is caught by the run.
    let wrong = dir.join("wrong.yaml");
    std::fs::write(
        &wrong,
        std::fs::read_to_string(spec_file())
            .expect("spec")
            .replace("count: n,", "count: n - 1,"),
    )
    .expect("write");
    let certificate = dir.join("wrong-lists.yaml");
    analyze(
        &classes,
        "Rec.lists",
        &["--spec", &wrong.display().to_string()],
        &certificate,
    );
    let (code, json) = validate_json(&certificate, "Rec", &["7"]);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(
        under_specs(&json, "objects"),
        (21.into(), 15.into()),
        "{json:#}"
    );
}

//! `membound diff`: the certificate `analyze` writes for the bundled example, compared with
//! copies edited to make each class of change, with the exit codes a pipeline reads (1 on a
//! regression, 0 otherwise, 2 on bad input) and the Markdown report for a pull request.

use std::path::{Path, PathBuf};

use membound_tests::{Run, analyze_into, assert_run, membound, scratch_dir};
use serde_json::{Value, json};

/// The certificate `analyze` writes for `Intro.m1`, as JSON.
fn intro(dir: &Path) -> Value {
    let path = dir.join("intro.json");
    analyze_into(
        Path::new("examples/intro/intro.jar"),
        "Intro.m1",
        "hotspot-coops",
        &path,
    );
    let text = std::fs::read_to_string(&path).expect("the certificate");
    serde_json::from_str(&text).expect("a JSON certificate")
}

fn write(dir: &Path, name: &str, certificate: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, certificate.to_string()).expect("write a certificate");
    path
}

/// Diffs the analyzed certificate against a copy changed by `edit`.
fn diff_edited(name: &str, edit: impl Fn(&mut Value), args: &[&str]) -> Run {
    let dir = scratch_dir(&format!("diff-{name}"));
    let old = intro(&dir);
    let mut new = old.clone();
    edit(&mut new);
    assert_ne!(old, new, "the edit must change the certificate");
    let old = write(&dir, "old.json", &old);
    let new = write(&dir, "new.json", &new);
    let mut all = vec![
        "diff",
        old.to_str().expect("UTF-8"),
        new.to_str().expect("UTF-8"),
    ];
    all.extend(args);
    membound(all)
}

/// `Intro.m1`'s memAlloc in bytes (the analysis gives `8k² + 24k` for `k >= 1`).
fn m1_bytes(certificate: &mut Value) -> &mut Value {
    &mut certificate["methods"][0]["mem_alloc"]["bytes"]
}

/// The regression lines of a text report.
fn regressions(run: &Run) -> Vec<&str> {
    let lines = run.stdout.lines();
    lines.filter(|l| l.starts_with("REGRESSION")).collect()
}

#[test]
fn the_same_certificate_has_no_change() {
    let dir = scratch_dir("diff-same");
    let cert = write(&dir, "same.json", &intro(&dir));
    let run = membound(["diff".as_ref(), cert.as_os_str(), cert.as_os_str()]);
    assert_run(&run, 0, &["no change", "0 regression(s), 0 improvement(s)"]);
}

#[test]
fn a_new_infinity_is_a_regression() {
    let run = diff_edited("infinity", |c| *m1_bytes(c) = json!("infty"), &[]);
    assert_run(
        &run,
        1,
        &["REGRESSION   Intro.m1(I)V: memAlloc bytes: new ∞ (degree 2 -> ∞)"],
    );
    assert_eq!(regressions(&run).len(), 1, "{}", run.stdout);
}

#[test]
fn a_higher_degree_is_a_regression() {
    let cubic = json!("cases(k >= 1 -> (8*k^3 + 24*k); otherwise -> (0))");
    let run = diff_edited("degree", |c| *m1_bytes(c) = cubic.clone(), &[]);
    let expected = [
        "memAlloc bytes: higher degree (degree 2 -> degree 3)",
        // The expressions follow the regression.
        "new: cases(k >= 1 -> (8*k^3 + 24*k)",
    ];
    assert_run(&run, 1, &expected);
    assert_eq!(regressions(&run).len(), 1, "{}", run.stdout);
}

#[test]
fn a_larger_leading_coefficient_is_a_regression() {
    let steeper = json!("cases(k >= 1 -> (9*k^2 + 24*k); otherwise -> (0))");
    let run = diff_edited("leading", |c| *m1_bytes(c) = steeper.clone(), &[]);
    assert_run(&run, 1, &["larger leading coefficient (8*k^2 -> 9*k^2)"]);
    assert_eq!(regressions(&run).len(), 1, "{}", run.stdout);
}

#[test]
fn a_change_below_the_leading_term_is_a_regression_only_at_a_point() {
    let lower_order = json!("cases(k >= 1 -> (8*k^2 + 25*k); otherwise -> (0))");
    let edit = |c: &mut Value| *m1_bytes(c) = lower_order.clone();
    let without = diff_edited("lower-order", edit, &[]);
    assert_run(&without, 0, &["INFO", "changed below the leading terms"]);
    let at = diff_edited("lower-order-at", edit, &["--at", "k=10", "--at", "n=3"]);
    let expected = [
        // 8*100 + 240 before, 8*100 + 250 after.
        "memAlloc bytes: larger at k=10 (1040 -> 1050)",
        // m2's parameter is n: the point k=10 does not apply to it, nor n=3 to m1.
        "Intro.m2(I)V: not compared at k=10",
        "Intro.m1(I)V: not compared at n=3",
    ];
    assert_run(&at, 1, &expected);
    assert_eq!(regressions(&at).len(), 1, "{}", at.stdout);
}

#[test]
fn a_new_creation_site_is_a_regression_and_a_removed_method_is_information() {
    let edit = |c: &mut Value| {
        let methods = c["methods"].as_array_mut().expect("methods");
        methods.truncate(1);
        let sites = methods[0]["sites"].as_array_mut().expect("sites");
        let mut extra = sites[0].clone();
        extra["type"] = json!("Intro$C");
        sites.push(extra);
    };
    let run = diff_edited("site", edit, &[]);
    let expected = [
        "REGRESSION   Intro.m1(I)V: new creation site Intro$C at Intro.m1(I)V@7 (line 21)",
        "INFO         Intro.m2(I)V: method removed",
    ];
    assert_run(&run, 1, &expected);
    assert_eq!(regressions(&run).len(), 1, "{}", run.stdout);
}

#[test]
fn improvements_alone_exit_0() {
    let linear = json!("cases(k >= 1 -> (24*k); otherwise -> (0))");
    let run = diff_edited("improved", |c| *m1_bytes(c) = linear.clone(), &[]);
    let expected = [
        "IMPROVEMENT  Intro.m1(I)V: memAlloc bytes: lower degree (degree 2 -> degree 1)",
        "0 regression(s), 1 improvement(s)",
    ];
    assert_run(&run, 0, &expected);
    let edit = |c: &mut Value| *m1_bytes(c) = linear.clone();
    let markdown = diff_edited("improved-markdown", edit, &["--format", "markdown"]);
    let expected = [
        "### membound diff: no memory regression",
        "<details><summary>1 improvement(s) and 0 other change(s)</summary>",
        "| `Intro.m1(I)V` | memAlloc bytes | lower degree | `degree 2` | `degree 1` |",
    ];
    assert_run(&markdown, 0, &expected);
}

#[test]
fn markdown_has_a_table_per_regressing_method() {
    let edit = |c: &mut Value| {
        *m1_bytes(c) = json!("infty");
        let m2 = &mut c["methods"][1]["mem_alloc"]["objects"];
        *m2 = json!("cases(n >= 1 -> (n^2); otherwise -> (0))");
    };
    let run = diff_edited("markdown", edit, &["--format", "markdown"]);
    let expected = [
        "### membound diff: 2 regression(s) in 2 method(s)",
        "#### `Intro.m1(I)V`",
        "#### `Intro.m2(I)V`",
        "| memAlloc bytes | new ∞ | `degree 2` | `∞` |",
        "| memAlloc objects | higher degree | `degree 1` | `degree 2` |",
        "<details><summary>expressions</summary>",
    ];
    assert_run(&run, 1, &expected);
    let tables = run.stdout.matches("| what | change | old | new |").count();
    assert_eq!(tables, 2, "{}", run.stdout);
}

#[test]
fn unreadable_certificates_and_points_exit_2() {
    let dir = scratch_dir("diff-bad");
    let good = write(&dir, "good.json", &intro(&dir));
    let garbage = dir.join("garbage.yaml");
    std::fs::write(&garbage, "not: [a certificate").expect("write");
    let run = membound(["diff".as_ref(), good.as_os_str(), garbage.as_os_str()]);
    assert_run(&run, 2, &[]);
    assert!(
        run.stderr.contains("not a membound certificate"),
        "{}",
        run.stderr
    );
    let point = ["--at".as_ref(), "k=ten".as_ref()];
    let run = membound(
        [
            &["diff".as_ref(), good.as_os_str(), good.as_os_str()],
            &point[..],
        ]
        .concat(),
    );
    assert_run(&run, 2, &[]);
    assert!(run.stderr.contains("bad --at `k=ten`"), "{}", run.stderr);
}

#[test]
fn certificates_of_other_object_models_or_entries_are_refused_unless_forced() {
    for (name, edit) in [
        (
            "model",
            (|c: &mut Value| c["tool"]["object_model"] = json!("count")) as fn(&mut Value),
        ),
        ("entry", |c: &mut Value| {
            c["entry"]["method"] = json!("Intro.m0(I)V")
        }),
    ] {
        let refused = diff_edited(&format!("refused-{name}"), edit, &[]);
        assert_eq!(refused.code, 2, "{}", refused.stderr);
        assert!(
            refused
                .stderr
                .contains("the certificates are not comparable")
                && refused.stderr.contains("--force"),
            "{}",
            refused.stderr
        );
        let forced = diff_edited(&format!("forced-{name}"), edit, &["--force"]);
        assert_eq!(forced.code, 0, "{}", forced.stderr);
        assert!(
            forced.stderr.contains("warning: comparing anyway"),
            "{}",
            forced.stderr
        );
    }
}

#[test]
fn certificates_of_other_inputs_are_compared_with_a_warning() {
    // Two builds of one program differ in the input's hash; another path may be another program.
    let rebuilt = diff_edited(
        "rebuilt",
        |c: &mut Value| c["input"]["sha256"] = json!("1".repeat(64)),
        &[],
    );
    assert_eq!(rebuilt.code, 0, "{}", rebuilt.stderr);
    assert!(!rebuilt.stderr.contains("warning"), "{}", rebuilt.stderr);
    let moved = diff_edited(
        "other-input",
        |c: &mut Value| c["input"]["path"] = json!("other.jar"),
        &[],
    );
    assert_eq!(moved.code, 0, "{}", moved.stderr);
    assert!(
        moved
            .stderr
            .contains("warning: the certificates are of different inputs")
            && moved.stderr.contains("other.jar"),
        "{}",
        moved.stderr
    );
}

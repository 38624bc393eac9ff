//! Readable bounds: sums of `cases` whose guards exclude each other read as one `cases` (with
//! the same values), the text report opens with the leading terms, ∞ is spelled one way per
//! format (`∞` in text, `infty` in JSON and YAML), and call chains are written one way
//! (`M@pc (line l) -> N@pc (line l)`) by every command.

use membound_tests::{certificate_entry, eval_method, fixture_certificate, membound, scratch_dir};

/// `Exits.untilStop`: `for (i = 0; i < n; i++) { if (i == stop) break; new Object(); }`.
fn until_stop(n: i64, stop: i64) -> i64 {
    (0..n).take_while(|&i| i != stop).count() as i64
}

#[test]
fn cases_with_exclusive_guards_read_as_one_cases_of_the_same_values() {
    let method = "realloops.Exits.untilStop";
    let certificate = fixture_certificate("real_loops", method, "count");
    let objects = certificate_entry(&certificate, method)["mem_alloc"]["objects"]
        .as_str()
        .expect("an expression")
        .to_string();
    // One `cases` where three would be added up, one per way the loop ends.
    assert!(objects.starts_with("cases("), "{objects}");
    assert!(!objects.contains(") + cases("), "{objects}");
    for (n, stop) in [(5, 2), (5, 9), (5, -1), (0, 3), (-2, -2), (4, 0)] {
        let evaluated = eval_method(&certificate, method, &format!("n={n},stop={stop}"));
        assert_eq!(
            evaluated["mem_alloc"]["objects"],
            until_stop(n, stop),
            "n={n}, stop={stop}: {objects}"
        );
    }
}

#[test]
fn the_text_report_opens_with_the_leading_terms() {
    let run = membound([
        "analyze",
        "examples/intro/intro.jar",
        "--method",
        "Intro.m1",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // memAlloc: k A's and k(k+1)/2 B's of 16 bytes; memRq: k A's and one m2's k B's.
    assert_eq!(
        run.stdout.lines().nth(1),
        Some(
            "leading terms: memAlloc ~ 1/2*k^2 objects, ~ 8*k^2 bytes; memRq ~ 2*k objects, ~ 32*k bytes"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn infinity_is_one_symbol_in_text_and_another_in_json() {
    let unbounded = "[n] -> { [i] : i >= n }";
    let text = membound(["count", unbounded, "--at", "n=1"]);
    assert_eq!(text.stdout.lines().last(), Some("∞"), "{}", text.stdout);
    let json = membound(["count", unbounded, "--at", "n=1", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(json["value"], "infty");
    // A recursion that never ends below 0: eval's JSON and its text.
    let method = "recursion.Shapes.villages";
    let certificate = fixture_certificate("recursion", method, "count");
    let evaluated = eval_method(&certificate, method, "level=-1");
    assert_eq!(evaluated["mem_alloc"]["objects"], "infty", "{evaluated:#}");
    let path = certificate.to_str().expect("a path");
    let text = membound(["eval", path, "--method", method, "--param", "level=-1"]);
    assert!(text.stdout.contains('∞'), "{}", text.stdout);
    assert!(!text.stdout.contains("inf"), "{}", text.stdout);
}

#[test]
fn every_command_writes_a_chain_the_same_way() {
    let chain = "Intro.m1(I)V@16 (line 22) -> Intro.m2(I)V@7 (line 28)";
    let intro = ["examples/intro/intro.jar", "--method", "Intro.m1"];
    let measured = membound([&["measure"][..], &intro, &["--", "2"]].concat());
    assert!(measured.stdout.contains(chain), "{}", measured.stdout);
    let invariants = membound([&["invariants"][..], &intro].concat());
    assert!(
        invariants.stdout.contains(&format!("{chain}: Intro$B")),
        "{}",
        invariants.stdout
    );
    let certificate = scratch_dir("readable-chains").join("intro.yaml");
    let path = certificate.to_str().expect("a path");
    let analyzed = membound([&["analyze"][..], &intro, &["-o", path]].concat());
    assert_eq!(analyzed.code, 0, "{}", analyzed.stderr);
    let evaluated = membound(["eval", path, "--param", "k=2"]);
    assert!(evaluated.stdout.contains(chain), "{}", evaluated.stdout);
    // The agent reports offsets only: the same steps without their lines.
    let validated = membound(["validate", path, "--", "2"]);
    assert!(
        validated
            .stdout
            .contains("Intro.m1(I)V@16 -> Intro.m2(I)V@7"),
        "{}",
        validated.stdout
    );
}

#[test]
fn the_periodic_notation_a_report_uses_is_explained_in_the_help_and_the_readme() {
    let classes = membound_tests::compile_fixture("division");
    let classes = classes.to_str().expect("utf-8");
    // n / 2 cells: ⌊n/2⌋, written with a periodic coefficient.
    let report = membound([
        "analyze",
        classes,
        "--method",
        "division.Quotients.half",
        "-q",
    ]);
    assert_eq!(report.code, 0, "{}", report.stderr);
    assert!(
        report.stdout.contains("1/2*n + [0, -1/2]_n"),
        "{}",
        report.stdout
    );
    let explanation =
        "a periodic coefficient: a_r when n ≡ r (mod 3), so 1/2*n + [0, -1/2]_n is ⌊n/2⌋";
    for command in ["analyze", "eval"] {
        let help = membound([command, "--help"]);
        assert_eq!(help.code, 0, "{}", help.stderr);
        assert!(
            help.stdout.contains(explanation),
            "{command}: {}",
            help.stdout
        );
    }
    let readme = std::fs::read_to_string(membound_tests::workspace_root().join("README.md"))
        .expect("README");
    assert!(
        readme.contains("`[a0, a1, a2]_n`: a periodic coefficient, `a_r` when `n ≡ r (mod 3)`"),
        "the README explains the notation"
    );
}

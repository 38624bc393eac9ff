//! `membound check`: budgets against a certificate, at a point (exact) and over a range
//! (Bernstein bound), from the command line and from `membound.toml`, with the exit codes a
//! build pipeline reads: 0 all within budget, 1 a budget broken or not provable, 2 bad input.
//!
//! Most tests use a certificate written here by hand, so they hold whatever `analyze` fills in;
//! one checks a certificate `analyze` wrote for the bundled example.

use std::path::{Path, PathBuf};

use membound_tests::{Run, analyze_into, assert_run, membound, membound_in, scratch_dir};

/// `run(n, m)` allocates an `n × m` table plus a header (memAlloc), needs `16n + 24` bytes under
/// regions (memRq); `spin()` calls a native method, so its memAlloc is ∞, and it has no region
/// quantities (as when escape analysis did not run).
const CERTIFICATE: &str = r#"membound: 1
tool:
  version: 0.1.0
  object_model: hotspot-coops
input:
  path: demo.jar
  sha256: '0000000000000000000000000000000000000000000000000000000000000000'
entry:
  method: Demo.run(II)V
assumptions:
- integer arithmetic does not overflow
methods:
- method: Demo.run(II)V
  params:
  - name: n
    origin: parameter 0 (int n)
  - name: m
    origin: parameter 1 (int m)
  mem_alloc:
    objects: cases(n >= 1 and m >= 1 -> (n*m + 1); otherwise -> (1))
    bytes: cases(n >= 1 and m >= 1 -> (16*n*m + 24); otherwise -> (24))
  mem_captured:
    objects: (1)
    bytes: (24)
  mem_escapes:
    objects: cases(n >= 1 -> (n); otherwise -> (0))
    bytes: cases(n >= 1 -> (16*n); otherwise -> (0))
  mem_rq:
    objects: cases(n >= 1 -> (n + 1); otherwise -> (1))
    bytes: cases(n >= 1 -> (16*n + 24); otherwise -> (24))
  sites: []
- method: Demo.spin()V
  params: []
  mem_alloc:
    objects: infty
    bytes: infty
  unbounded:
  - calls Demo.nat()V, which the analysis cannot see (native)
  sites: []
"#;

fn certificate(dir: &Path) -> PathBuf {
    let path = dir.join("demo.yaml");
    std::fs::write(&path, CERTIFICATE).expect("write the certificate");
    path
}

fn check(name: &str, args: &[&str]) -> Run {
    let dir = scratch_dir(&format!("check-{name}"));
    let cert = certificate(&dir);
    let mut all = vec!["check", cert.to_str().expect("a UTF-8 path")];
    all.extend(args);
    membound_in(&dir, all)
}

#[test]
fn a_budget_within_the_bound_at_a_point_passes() {
    let run = check("ok", &["--budget", "memRq <= 1KiB", "--at", "n=10,m=5"]);
    // 16*10 + 24 bytes.
    assert_run(
        &run,
        0,
        &["OK       Demo.run(II)V: memRq <= 1KiB at m=5,n=10: 184 bytes"],
    );
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
}

#[test]
fn a_broken_budget_exits_1_naming_the_method_the_value_and_the_expression() {
    let run = check(
        "broken",
        &["--budget", "memAlloc <= 1KiB", "--at", "n=10,m=10"],
    );
    // 16*10*10 + 24.
    let expected = [
        "BROKEN   Demo.run(II)V: memAlloc <= 1KiB at m=10,n=10: 1624 bytes, limit 1024 bytes",
        "memAlloc bytes = cases(n >= 1 and m >= 1 -> (16*n*m + 24)",
    ];
    assert_run(&run, 1, &expected);
}

#[test]
fn an_object_budget_checks_objects_and_the_limit_itself_is_allowed() {
    // n*m + 1 = 101 objects.
    let point = ["--at", "n=10,m=10"];
    let at_limit = check(
        "objects-ok",
        &[&["--budget", "memAlloc <= 101 objects"], &point[..]].concat(),
    );
    assert_run(&at_limit, 0, &["OK", "101 objects"]);
    let below = check(
        "objects-broken",
        &[&["--budget", "memAlloc <= 100 objects"], &point[..]].concat(),
    );
    assert_run(&below, 1, &["BROKEN", "101 objects, limit 100 objects"]);
}

#[test]
fn every_budget_given_is_checked_and_one_broken_fails_the_run() {
    let budgets = [
        "--budget",
        "memRq <= 1KiB",
        "--budget",
        "memEscapes <= 5 objects",
    ];
    // Points given in pieces are merged.
    let run = check(
        "several",
        &[&budgets[..], &["--at", "n=10", "--at", "m=2"]].concat(),
    );
    assert_run(&run, 1, &[]);
    let lines: Vec<&str> = run.stdout.lines().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert!(lines[0].starts_with("OK"), "{}", run.stdout);
    assert!(
        lines[1].starts_with("BROKEN") && lines[1].contains("10 objects"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_parameter_given_again_starts_another_point_and_every_point_is_checked() {
    // n = 10 within the limit, n = 100 above it (16n + 24 bytes): both reported, exit 1.
    let args = [
        "--budget",
        "memRq <= 1KiB",
        "--at",
        "n=10,m=1",
        "--at",
        "n=100",
        "--at",
        "m=1",
    ];
    let run = check("points", &args);
    let expected = [
        "OK       Demo.run(II)V: memRq <= 1KiB at m=1,n=10: 184 bytes",
        "BROKEN   Demo.run(II)V: memRq <= 1KiB at m=1,n=100: 1624 bytes",
    ];
    assert_run(&run, 1, &expected);
    let verdicts = run.stdout.lines().filter(|l| !l.starts_with(' ')).count();
    assert_eq!(verdicts, 2, "{}", run.stdout);
}

#[test]
fn an_infinite_quantity_breaks_a_finite_budget_and_says_why() {
    // Demo.spin has no parameters: no point to give, and a point naming one is refused.
    let args = ["--method", "Demo.spin", "--budget", "memAlloc <= 1GiB"];
    let run = check("infinite", &args);
    let expected = [
        "BROKEN   Demo.spin()V: memAlloc <= 1GiB (no parameters): ∞ bytes",
        "∞ because: calls Demo.nat()V",
    ];
    assert_run(&run, 1, &expected);
    let run = check("infinite-point", &[&args[..], &["--at", "n=1"]].concat());
    assert_run(&run, 2, &[]);
    assert!(
        run.stderr.contains("Demo.spin()V has no parameter `n`"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_quantity_the_certificate_does_not_give_is_an_input_error() {
    let args = [
        "--method",
        "Demo.spin",
        "--budget",
        "memRq <= 1MiB",
        "--at",
        "n=1",
    ];
    let run = check("absent", &args);
    assert_run(&run, 2, &[]);
    assert!(
        run.stderr.contains("no memRq for Demo.spin()V"),
        "{}",
        run.stderr
    );
}

#[test]
fn malformed_budgets_and_missing_scopes_exit_2() {
    let cases: [(&str, &[&str], &str); 8] = [
        (
            "decimal",
            &["--budget", "memRq <= 64 MB", "--at", "n=1"],
            "binary",
        ),
        (
            "strict",
            &["--budget", "memRq < 64MiB", "--at", "n=1"],
            "`<=`",
        ),
        ("nowhere", &["--budget", "memRq <= 64MiB"], "--at"),
        ("nothing", &["--at", "n=1"], "no budget"),
        (
            "missing",
            &["--budget", "memRq <= 64MiB", "--at", "m=1"],
            "parameter n",
        ),
        (
            "bad-range",
            &["--budget", "memRq <= 64MiB", "--for", "q <= 5"],
            "'q'",
        ),
        (
            "braced-range",
            &["--budget", "memRq <= 64MiB", "--for", "{ [n] : n <= 5 }"],
            "without braces",
        ),
        (
            "empty-range",
            &["--budget", "memRq <= 64MiB", "--for", "5 <= n <= 3"],
            "has no point",
        ),
    ];
    for (name, args, message) in cases {
        let run = check(name, args);
        assert_run(&run, 2, &[]);
        assert!(run.stderr.contains(message), "{name}: {}", run.stderr);
    }
}

#[test]
fn a_budget_over_a_bounded_range_is_proved() {
    let range = "0 <= n <= 10 and 0 <= m <= 10";
    let run = check(
        "range-proved",
        &["--budget", "memAlloc <= 2KiB", "--for", range],
    );
    // The bilinear bound is attained at the corner n = m = 10: 16*100 + 24.
    assert_run(&run, 0, &["PROVED", "at most 1624 bytes (Bernstein bound)"]);
}

#[test]
fn a_budget_broken_only_at_the_top_of_a_range_is_broken_at_that_point() {
    // memRq is 16n + 24 bytes: 160024 at n = 10000, one byte over the limit, and within it at
    // every other point of the range.
    let range = "0 <= n <= 10000 and 0 <= m <= 10";
    let run = check(
        "range-broken",
        &["--budget", "memRq <= 160023 B", "--for", range],
    );
    let expected = [
        "BROKEN   Demo.run(II)V: memRq <= 160023 B for 0 <= n <= 10000 and 0 <= m <= 10: 160024 bytes at m=",
        ",n=10000, limit 160023 bytes",
        "memRq bytes = cases(n >= 1 -> (16*n + 24)",
    ];
    assert_run(&run, 1, &expected);
    assert!(!run.stdout.contains("may still hold"), "{}", run.stdout);
    // The limit itself is allowed: the same range is proved.
    let at_limit = check(
        "range-at-limit",
        &["--budget", "memRq <= 160024 B", "--for", range],
    );
    assert_run(&at_limit, 0, &["PROVED", "at most 160024 bytes"]);
}

#[test]
fn a_budget_over_a_range_is_decided_by_its_maximum_inside_the_range() {
    // n*m + 1 objects over the triangle n + m <= 63 is largest inside it, at n*m = 31*32 (993
    // objects), where no vertex of the triangle is; over the whole triangle the Bernstein bound
    // is 3973/4. The range is cut into pieces until the bound reaches the maximum, or a point
    // above the limit is found.
    let range = "0 <= n and 0 <= m and n + m <= 63";
    let proved = check(
        "range-inside-proved",
        &["--budget", "memAlloc <= 993 objects", "--for", range],
    );
    assert_run(
        &proved,
        0,
        &["PROVED", "at most 993 objects (Bernstein bound)"],
    );
    let broken = check(
        "range-inside-broken",
        &["--budget", "memAlloc <= 992 objects", "--for", range],
    );
    assert_run(
        &broken,
        1,
        &["BROKEN", "993 objects at m=", ", limit 992 objects"],
    );
    let witness = ["m=31,n=32", "m=32,n=31"];
    assert!(
        witness.iter().any(|point| broken.stdout.contains(point)),
        "{}",
        broken.stdout
    );
}

#[test]
fn a_budget_over_a_range_where_the_bound_is_too_high_is_not_proved() {
    // The same triangle with n even through an existential variable: the range is not cut
    // (its integer points are not a membership test away), so the Bernstein bound over all of it,
    // 3973/4, stands above the limit, and no vertex breaks it: unproved, not broken.
    let range = "0 <= n and 0 <= m and n + m <= 63 and exists (e : n = 2e)";
    let run = check(
        "range-unproved",
        &["--budget", "memAlloc <= 993 objects", "--for", range],
    );
    let expected = [
        "UNPROVED",
        "at most 3973/4 objects",
        "may still hold",
        "n*m + 1",
    ];
    assert_run(&run, 1, &expected);
}

/// `CrossPairs.across(k, n)` makes 2·k·(n - k) + 2 objects (a pair and its list's growth per
/// pair, and the list), 64·k·(n - k) + 80 bytes: over a split 0 <= k <= n of n = 100 items
/// they are most, 5002 objects and 160080 bytes, at k = 50, and 2 at both ends of the range.
#[test]
fn a_budget_broken_only_inside_a_range_is_broken_at_the_maximizing_point() {
    let classes = membound_tests::compile_fixture("check_ranges");
    let cert = scratch_dir("check-cross-pairs").join("pairs.yaml");
    analyze_into(&classes, "ranges.CrossPairs.across", "hotspot-coops", &cert);
    let range = "0 <= k <= n and n = 100";
    let run = |budget: &str| {
        membound([
            "check".as_ref(),
            cert.as_os_str(),
            "--budget".as_ref(),
            budget.as_ref(),
            "--for".as_ref(),
            range.as_ref(),
            "--format".as_ref(),
            "json".as_ref(),
        ])
    };
    for (budget, value) in [
        ("memAlloc <= 5001 objects", 5002),
        ("memRq <= 160079 B", 160080),
    ] {
        let broken = run(budget);
        assert_eq!(broken.code, 1, "{budget}: {}", broken.stderr);
        let json: serde_json::Value = serde_json::from_str(&broken.stdout).expect("JSON");
        let outcome = &json["outcomes"][0];
        assert_eq!(outcome["verdict"], "BROKEN", "{budget}: {outcome}");
        assert_eq!(outcome["witness"], serde_json::json!({"k": 50, "n": 100}));
        assert_eq!(outcome["value"], value, "{budget}: {outcome}");
    }
    for budget in ["memAlloc <= 5002 objects", "memRq <= 160080 B"] {
        let proved = run(budget);
        assert_eq!(proved.code, 0, "{budget}: {}", proved.stdout);
        assert!(proved.stdout.contains("\"PROVED\""), "{}", proved.stdout);
    }
}

#[test]
fn an_unbounded_range_cannot_be_proved_and_says_so() {
    let run = check(
        "range-open",
        &["--budget", "memRq <= 1KiB", "--for", "n >= 0"],
    );
    assert_run(&run, 1, &["UNPROVED", "no finite bound", "is not bounded"]);
}

#[test]
fn membound_toml_in_the_current_directory_pins_budgets() {
    let dir = scratch_dir("check-toml");
    let cert = certificate(&dir);
    std::fs::write(
        dir.join("membound.toml"),
        r#"
[[budget]]
method = "Demo.run"
at = { n = 10, m = 10 }
limit = "memAlloc <= 2KiB"

[[budget]]
for = "0 <= n <= 50"
limit = "memRq <= 1KiB"
"#,
    )
    .expect("write membound.toml");
    let run = membound_in(&dir, ["check".as_ref(), cert.as_os_str()]);
    // 16*50 + 24 over the range.
    assert_run(
        &run,
        0,
        &["OK", "1624 bytes", "PROVED", "at most 824 bytes"],
    );
    assert_eq!(run.stdout.lines().count(), 2, "{}", run.stdout);
}

#[test]
fn a_budget_file_given_with_config_can_fail_or_be_malformed() {
    let dir = scratch_dir("check-config");
    let cert = certificate(&dir);
    let budgets = dir.join("budgets.toml");
    let run = |limit: &str| {
        std::fs::write(&budgets, format!("[[budget]]\nlimit = \"{limit}\"\n")).expect("write");
        // No point or range in the file: the command line's --at applies.
        let config = [
            "--config".as_ref(),
            budgets.as_os_str(),
            "--at".as_ref(),
            "n=10".as_ref(),
        ];
        membound([&["check".as_ref(), cert.as_os_str()], &config[..]].concat())
    };
    assert_run(
        &run("memRq <= 100 B"),
        1,
        &["BROKEN", "184 bytes, limit 100 bytes"],
    );
    let malformed = run("memRq <= lots");
    assert_run(&malformed, 2, &[]);
    let message = "budgets.toml: [[budget]] number 1: bad budget `memRq <= lots`";
    assert!(malformed.stderr.contains(message), "{}", malformed.stderr);
}

#[test]
fn a_certificate_from_analyze_is_checked_exactly() {
    let cert = scratch_dir("check-intro").join("intro.yaml");
    let jar = Path::new("examples/intro/intro.jar");
    analyze_into(jar, "Intro.m1", "hotspot-coops", &cert);
    let run = |limit: &str, scope: &str, value: &str| {
        let budget = [limit, scope, value].map(std::ffi::OsStr::new);
        membound(
            [
                &["check".as_ref(), cert.as_os_str(), "--budget".as_ref()],
                &budget[..],
            ]
            .concat(),
        )
    };
    // m1(7) allocates 7 A and 1 + 2 + … + 7 = 28 B: 35 objects.
    let exact = run("memAlloc <= 35 objects", "--at", "k=7");
    assert_run(&exact, 0, &["OK", "35 objects"]);
    let one_less = run("memAlloc <= 34 objects", "--at", "k=7");
    assert_run(&one_less, 1, &["BROKEN   Intro.m1(I)V"]);
    // 8k² + 24k bytes grows with k: its Bernstein bound over [0, 100] is its value at 100.
    let range = run("memAlloc <= 1MiB", "--for", "0 <= k <= 100");
    assert_run(&range, 0, &["PROVED", "at most 82400 bytes"]);
    // analyze writes memRq too: it is checked like memAlloc.
    let regions = run("memRq <= 1MiB", "--for", "0 <= k <= 100");
    assert_run(&regions, 0, &["PROVED   Intro.m1(I)V: memRq <= 1MiB"]);
}

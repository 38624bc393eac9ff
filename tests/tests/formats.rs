//! One vocabulary across commands: `--format json` on every command that prints a result (each
//! checked against the text it prints or the numbers it must hold), and `-` for stdin wherever a
//! command reads a certificate, a set or a polynomial.

use std::path::PathBuf;

use membound_tests::{Run, analyze_into, membound, membound_with_stdin, scratch_dir};
use serde_json::Value;

const TRIANGLE: &str = "[n] -> { [i, j] : 1 <= i <= n and 1 <= j <= i }";
const PARABOLA: &str = "[n] -> { [i] -> i*(n - i) : 0 <= i <= n }";

fn json_of(run: &Run) -> Value {
    assert_eq!(
        run.code, 0,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

/// The bundled example's certificate (`Intro.m1`: k objects A, k(k+1)/2 objects B) and its text.
fn intro_certificate(name: &str) -> (PathBuf, String) {
    let path = scratch_dir(name).join("intro.yaml");
    analyze_into(
        "examples/intro/intro.jar".as_ref(),
        "Intro.m1",
        "hotspot-coops",
        &path,
    );
    let text = std::fs::read_to_string(&path).expect("the certificate");
    (path, text)
}

#[test]
fn bound_json_holds_the_bound_its_text_form_and_the_value() {
    let json = json_of(&membound([
        "bound", PARABOLA, "--at", "n=10", "--format", "json",
    ]));
    // max over 0 <= i <= 10 of i*(10 - i) is 25.
    assert_eq!(json["value"], "25");
    assert!(
        json["bound"]
            .as_str()
            .is_some_and(|b| b.contains("1/4*n^2")),
        "{json}"
    );
    assert!(
        json["text"]
            .as_str()
            .is_some_and(|t| t.contains("(1/4*n^2)")),
        "{json}"
    );
    assert_eq!(json["notes"], serde_json::json!([]));
    let text = membound(["bound", PARABOLA, "--at", "n=10"]);
    assert_eq!(text.stdout.lines().next(), json["bound"].as_str());
}

#[test]
fn bound_and_count_read_their_input_from_stdin() {
    let from_argument = membound(["bound", PARABOLA, "--at", "n=10"]);
    let from_stdin = membound_with_stdin(["bound", "-", "--at", "n=10"], PARABOLA);
    assert_eq!(from_stdin.code, 0, "{}", from_stdin.stderr);
    assert_eq!(from_stdin.stdout, from_argument.stdout);
    let count = membound_with_stdin(["count", "-", "--at", "n=7"], TRIANGLE);
    assert_eq!(count.stdout.lines().last(), Some("28"), "{}", count.stdout);
    let lines = format!("# two sets\n{TRIANGLE}\n[n] -> {{ [i] : 0 <= i < n }}\n");
    let file = json_of(&membound_with_stdin(
        ["count", "--file", "-", "--at", "n=7", "--format", "json"],
        &lines,
    ));
    let values: Vec<&Value> = file
        .as_array()
        .expect("one report per line")
        .iter()
        .map(|report| &report["value"])
        .collect();
    assert_eq!(values, ["28", "7"]);
}

#[test]
fn count_json_with_a_point_is_one_json_document_with_the_value() {
    let json = json_of(&membound([
        "count", TRIANGLE, "--at", "n=7", "--format", "json",
    ]));
    assert_eq!(json["value"], "28");
    assert_eq!(json["params"], serde_json::json!(["n"]));
}

#[test]
fn ir_json_lists_the_blocks_statements_and_edges_of_the_text_form() {
    let args = ["ir", "examples/intro/intro.jar", "--method", "Intro.m2"];
    let text = membound(args);
    let json = json_of(&membound([&args[..], &["--format", "json"]].concat()));
    assert!(
        json["method"].as_str().is_some_and(|m| m.contains("m2")),
        "{json}"
    );
    let blocks = json["blocks"].as_array().expect("blocks");
    for block in blocks {
        for successor in block["successors"].as_array().expect("successors") {
            let target = successor.as_u64().expect("a block index") as usize;
            assert!(target < blocks.len(), "edge to a missing block in {json}");
        }
        // Every statement and terminator is the one the text form prints.
        for stmt in block["stmts"].as_array().expect("stmts") {
            let line = format!("    {}\n", stmt["text"].as_str().expect("text"));
            assert!(text.stdout.contains(&line), "{line} not in {}", text.stdout);
        }
        let terminator = block["terminator"].as_str().expect("terminator");
        assert!(text.stdout.contains(terminator), "{terminator}");
    }
    let allocates = blocks
        .iter()
        .flat_map(|b| b["stmts"].as_array().into_iter().flatten());
    assert!(
        allocates
            .filter_map(|s| s["text"].as_str())
            .any(|s| s.contains("new Intro$B")),
        "{json}"
    );
}

#[test]
fn regions_json_holds_the_tree_of_the_text_form() {
    let args = [
        "regions",
        "examples/intro/intro.jar",
        "--method",
        "Intro.m1",
    ];
    let json = json_of(&membound([&args[..], &["--format", "json"]].concat()));
    assert_eq!(json["entry"], "Intro.m1(I)V");
    let regions = json["regions"].as_array().expect("regions");
    assert_eq!(regions[0]["method"], "Intro.m1(I)V");
    assert!(
        regions[0]["captures"][0]
            .as_str()
            .is_some_and(|s| s.starts_with("Intro$A"))
    );
    let child = regions[0]["children"][0].as_u64().expect("a child") as usize;
    assert!(
        regions[child]["captures"][0]
            .as_str()
            .is_some_and(|s| s.starts_with("Intro$B"))
    );
    // memRq: the k objects A of m1's region and the k B's of one m2 region at a time, 16 bytes
    // each.
    assert!(
        json["mem_rq"]["bytes"]
            .as_str()
            .is_some_and(|b| b.contains("32*k")),
        "{json}"
    );
}

#[test]
fn check_json_gives_each_outcome_and_reads_the_certificate_from_stdin() {
    let (path, text) = intro_certificate("formats-check");
    // memAlloc of Intro.m1 at k = 5: 5 + 15 = 20 objects.
    let budget = ["--budget", "memAlloc <= 20 objects", "--format", "json"];
    let holds = json_of(&membound(
        [
            &["check", path.to_str().expect("a path"), "--at", "k=5"][..],
            &budget,
        ]
        .concat(),
    ));
    assert_eq!(holds["failed"], false);
    assert_eq!(holds["outcomes"][0]["verdict"], "OK");
    assert_eq!(holds["outcomes"][0]["value"], 20);
    assert_eq!(holds["outcomes"][0]["at"], serde_json::json!({"k": 5}));
    let broken = membound_with_stdin(
        [&["check", "-", "--at", "k=6"][..], &budget].concat(),
        &text,
    );
    assert_eq!(broken.code, 1, "{}", broken.stderr);
    let broken: Value = serde_json::from_str(&broken.stdout).expect("JSON");
    assert_eq!(broken["outcomes"][0]["verdict"], "BROKEN");
    assert_eq!(broken["outcomes"][0]["value"], 27);
}

#[test]
fn diff_json_compares_a_file_with_stdin_and_refuses_two_stdins() {
    let (path, text) = intro_certificate("formats-diff");
    let args = [
        "diff",
        path.to_str().expect("a path"),
        "-",
        "--format",
        "json",
    ];
    let same = membound_with_stdin(args, &text);
    let json = json_of(&same);
    assert_eq!(json["regressions"], 0);
    assert_eq!(json["changes"], serde_json::json!([]));
    let both = membound_with_stdin(["diff", "-", "-"], &text);
    assert_eq!(both.code, 2, "{}", both.stderr);
    assert!(both.stderr.contains("stdin"), "{}", both.stderr);
}

#[test]
fn eval_and_codegen_read_the_certificate_from_stdin() {
    let (path, text) = intro_certificate("formats-eval");
    let eval = ["eval", "-", "--param", "k=5", "--format", "json"];
    let from_stdin = json_of(&membound_with_stdin(eval, &text));
    let mut from_file = eval;
    from_file[1] = path.to_str().expect("a path");
    assert_eq!(from_stdin, json_of(&membound(from_file)));
    assert_eq!(from_stdin["methods"][0]["mem_alloc"]["objects"], 20);
    let codegen = membound_with_stdin(["codegen", "-", "--lang", "java"], &text);
    assert_eq!(codegen.code, 0, "{}", codegen.stderr);
    assert!(codegen.stdout.contains("class"), "{}", codegen.stdout);
}

//! `membound advise`: where clearing a reference lowers a method's peak, on the `advise`
//! fixture — a large local array kept while a second one is made, a private static cache or
//! field of `this` kept after its last read, a stage kept in an array's cell, a reference
//! carried around a loop, and an array read again on one branch (in a local or a field), in an
//! exception handler, by another method (a static field or a field of `this`), or through an
//! array passed to a call (no advice). Each advised
//! fixture has a variant with the advice applied by hand
//! (`…Advised`); run under the agent with a heap walk at every allocation of the method, the
//! variant's peak of reachable memory is lower, and equal to `mem_rq_after` where the counts
//! are exact.

use std::path::PathBuf;

use membound_tests::{
    Run, assert_run, compile_fixture, membound, sarif_schema, schema_violations, workspace_root,
};
use serde_json::Value;

fn classes() -> PathBuf {
    compile_fixture("advise")
}

/// `membound advise <classes> --method advise.<class>.run [extra…]`.
fn advise_run(class: &str, extra: &[&str]) -> Run {
    let classes = classes();
    let method = format!("advise.{class}.run");
    let mut args = vec![
        "advise",
        classes.to_str().expect("UTF-8 path"),
        "--method",
        &method,
    ];
    args.extend(extra);
    membound(&args)
}

/// The JSON report of `membound advise` for `advise.<class>.run` [at a point].
fn advise(class: &str, at: Option<&str>) -> Value {
    let mut extra = vec!["--format", "json"];
    if let Some(point) = at {
        extra.extend(["--at", point]);
    }
    let run = advise_run(class, &extra);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

fn source_path(class: &str) -> PathBuf {
    workspace_root().join(format!("tests/fixtures/advise/src/advise/{class}.java"))
}

fn source(class: &str) -> String {
    std::fs::read_to_string(source_path(class)).expect("fixture source")
}

/// The 1-based line of the fixture that contains `text`.
fn line_of(class: &str, text: &str) -> u64 {
    let index = source(class)
        .lines()
        .position(|line| line.contains(text))
        .unwrap_or_else(|| panic!("no `{text}` in {class}.java"));
    index as u64 + 1
}

/// The only advice of a report.
fn only_advice(report: &Value) -> &Value {
    let advice = report["advice"].as_array().expect("advice");
    assert_eq!(advice.len(), 1, "{report:#}");
    &advice[0]
}

fn bytes(amount: &Value) -> i64 {
    amount["bytes"]
        .as_i64()
        .unwrap_or_else(|| panic!("not a number: {amount}"))
}

/// The peak of memory reachable from the program's roots at each allocation `run` makes
/// (`membound heap peak --at alloc:…`).
fn measured_peak(class: &str, args: &[&str]) -> i64 {
    let classes = classes();
    let main = format!("advise.{class}");
    let at = format!("alloc:advise.{class}.run");
    let mut command = vec![
        "heap",
        "peak",
        classes.to_str().expect("UTF-8 path"),
        "--main",
        &main,
        "--at",
        &at,
        "--format",
        "json",
        "--",
    ];
    command.extend(args);
    let run = membound(&command);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let peak: Value = serde_json::from_str(&run.stdout).expect("JSON");
    peak["peak_bytes"].as_i64().expect("peak_bytes")
}

/// Checks that `class`Advised is `class` with `target = null;` (its field name for a static)
/// inserted as line `line`, and nothing else changed but the class's name and comment.
fn check_advised_variant(class: &str, target: &str, line: u64) {
    let normalize = |text: &str| -> Vec<String> {
        text.replace(&format!("{class}Advised"), class)
            .lines()
            .map(|l| {
                if l.starts_with("/**") {
                    "/** */".into()
                } else {
                    l.to_string()
                }
            })
            .collect()
    };
    let original = normalize(&source(class));
    let mut advised = normalize(&source(&format!("{class}Advised")));
    let inserted = advised.remove(line as usize - 1);
    // A static field `Class.field` is cleared by its simple name.
    let variable = target.rsplit('.').next().expect("a name");
    let statement = |name: &str| format!("{name} = null;");
    assert!(
        inserted.trim() == statement(target) || inserted.trim() == statement(variable),
        "{class}Advised inserts `{}` for {target}",
        inserted.trim()
    );
    assert_eq!(
        advised, original,
        "{class}Advised differs beyond the advice"
    );
}

/// What the run reaches that `run` did not allocate when `run` is an instance method: its
/// receiver, with one reference field (a 12-byte header and a compressed reference under
/// hotspot-coops, the JVM's layout here).
const RECEIVER_BYTES: i64 = 16;

/// How a fixture's run relates to the bound.
#[derive(Clone, Copy)]
struct Measured {
    /// The bound's counts are exact for this run.
    exact: bool,
    /// Bytes the run reaches at every allocation of `run` that are not `run`'s own.
    outside: i64,
}

/// The advice's report at a point, the measured peaks of the program and of its advised
/// variant there, and the advice on the variant: lower, and no more advice for the target.
fn check_applied(class: &str, point: &str, args: &[&str], measured: Measured) {
    let Measured { exact, outside } = measured;
    let report = advise(class, Some(point));
    let advice = only_advice(&report);
    let before = measured_peak(class, args) - outside;
    let after = measured_peak(&format!("{class}Advised"), args) - outside;
    let bound_after = bytes(&advice["mem_rq_after"]);
    assert!(
        after < before,
        "{class}: measured {after} advised, {before} before"
    );
    assert!(
        after <= bound_after,
        "{class}: measured {after} above the bound {bound_after}"
    );
    assert!(
        before <= bytes(&report["gc_peak_before"]),
        "{class}: {before} above the peak without advice"
    );
    if exact {
        assert_eq!(after, bound_after, "{class}: exact counts");
        assert_eq!(
            before,
            bytes(&report["gc_peak_before"]),
            "{class}: exact counts"
        );
    }
    // The variant's own peak under GC is the advice's, and the advice is not given again.
    let again = advise(&format!("{class}Advised"), Some(point));
    assert_eq!(bytes(&again["gc_peak_before"]), bound_after, "{again:#}");
    let target = &advice["target"];
    let repeated = again["advice"].as_array().expect("advice").iter().any(|a| {
        a["target"].as_str().map(|t| t.rsplit('.').next())
            == target.as_str().map(|t| t.rsplit('.').next())
    });
    assert!(!repeated, "{again:#}");
}

#[test]
fn a_large_local_array_is_cleared_before_the_next_large_allocation() {
    let report = advise("LargeArray", None);
    let advice = only_advice(&report);
    let line = line_of("LargeArray", "long[] table = new long[m];");
    assert_eq!(advice["method"], "advise.LargeArray.run(II)J");
    assert_eq!(advice["action"], "null-out");
    assert_eq!(advice["target"], "samples");
    assert_eq!(advice["line"], line);
    assert_eq!(advice["frees"]["objects"], "1");
    for field in ["frees", "mem_rq_before", "mem_rq_after"] {
        assert!(
            advice[field]["bytes"].is_string(),
            "{field} is an expression: {advice}"
        );
    }
    // samples: 16 + 4n bytes, table: 16 + 8m; the peak drops from their sum to the larger.
    let at = advise("LargeArray", Some("n=1000,m=500"));
    let advice = only_advice(&at);
    assert_eq!(bytes(&advice["frees"]), 4016);
    assert_eq!(bytes(&advice["mem_rq_before"]), 8032);
    assert_eq!(bytes(&advice["mem_rq_after"]), 4016);
    let at = advise("LargeArray", Some("n=1000,m=3000"));
    assert_eq!(bytes(&only_advice(&at)["mem_rq_before"]), 28032);
    assert_eq!(bytes(&only_advice(&at)["mem_rq_after"]), 24016);
    check_advised_variant("LargeArray", "samples", line);
}

#[test]
fn a_large_local_array_is_cleared_before_a_call_that_allocates() {
    let report = advise("CalleeAllocation", None);
    let advice = only_advice(&report);
    assert_eq!(advice["target"], "samples");
    assert_eq!(
        advice["line"],
        line_of("CalleeAllocation", "return sum + largest(m);")
    );
    // The callee's region (16 + 8m) no longer stacks on samples (16 + 4n).
    let at = advise("CalleeAllocation", Some("n=1000,m=2000"));
    assert_eq!(bytes(&only_advice(&at)["mem_rq_before"]), 20032);
    assert_eq!(bytes(&only_advice(&at)["mem_rq_after"]), 16016);
}

#[test]
fn a_static_cache_is_cleared_after_its_last_read() {
    let report = advise("StaticCache", None);
    let advice = only_advice(&report);
    let line = line_of("StaticCache", "long[] table = new long[m];");
    assert_eq!(advice["target"], "StaticCache.cache");
    assert_eq!(advice["line"], line);
    let at = advise("StaticCache", Some("n=1000,m=500"));
    assert_eq!(bytes(&only_advice(&at)["frees"]), 4016);
    assert_eq!(bytes(&only_advice(&at)["mem_rq_after"]), 4016);
    check_advised_variant("StaticCache", "StaticCache.cache", line);
}

#[test]
fn a_loop_carried_reference_is_cleared_only_after_the_loop() {
    let report = advise("LoopCarried", None);
    let advice = only_advice(&report);
    // Inside the loop the reference is read in the next round: never cleared there.
    let line = line_of("LoopCarried", "long[] table = new long[2 * n];");
    assert_eq!(advice["target"], "previous");
    assert_eq!(advice["line"], line);
    // The bound keeps every round's array in the loop (rounds + 1 of 16 + 4n bytes), so the
    // peak after the advice is the loop's: 4 * 416 at n = 100, rounds = 3.
    let at = advise("LoopCarried", Some("n=100,rounds=3"));
    assert_eq!(bytes(&only_advice(&at)["mem_rq_after"]), 1664);
    check_advised_variant("LoopCarried", "previous", line);
}

#[test]
fn a_reference_read_again_on_one_branch_gets_no_advice() {
    let report = advise("OneBranch", None);
    assert_eq!(report["advice"], Value::Array(Vec::new()), "{report:#}");
    let at = advise("OneBranch", Some("n=1000,m=500,mode=0"));
    assert_eq!(at["advice"], Value::Array(Vec::new()), "{at:#}");
    // Whichever branch runs, the run stays within the peak.
    for mode in ["0", "1"] {
        let measured = measured_peak("OneBranch", &["1000", "500", mode]);
        assert_eq!(measured, bytes(&at["gc_peak_before"]));
    }
}

#[test]
fn a_field_of_this_is_cleared_after_its_last_read() {
    let report = advise("FieldBuffer", None);
    let advice = only_advice(&report);
    let line = line_of("FieldBuffer", "long[] table = new long[m];");
    assert_eq!(advice["method"], "advise.FieldBuffer.run(II)J");
    assert_eq!(advice["target"], "this.buffer");
    assert_eq!(advice["line"], line);
    // buffer: 16 + 4n bytes, table: 16 + 8m.
    let at = advise("FieldBuffer", Some("n=1000,m=500"));
    let advice = only_advice(&at);
    assert_eq!(bytes(&advice["frees"]), 4016);
    assert_eq!(bytes(&advice["mem_rq_before"]), 8032);
    assert_eq!(bytes(&advice["mem_rq_after"]), 4016);
    check_advised_variant("FieldBuffer", "this.buffer", line);
}

#[test]
fn an_array_cell_at_a_constant_index_is_cleared_after_its_last_read() {
    let report = advise("StageCells", None);
    let advice = only_advice(&report);
    let line = line_of("StageCells", "long[] table = new long[m];");
    assert_eq!(advice["target"], "stages[0]");
    assert_eq!(advice["line"], line);
    // stages: 24 bytes, each stage 16 + 4n, table 16 + 8m: the first stage no longer stacks
    // on the table.
    let at = advise("StageCells", Some("n=1000,m=1000"));
    let advice = only_advice(&at);
    assert_eq!(bytes(&advice["frees"]), 4016);
    assert_eq!(bytes(&advice["mem_rq_before"]), 16072);
    assert_eq!(bytes(&advice["mem_rq_after"]), 12056);
    check_advised_variant("StageCells", "stages[0]", line);
}

#[test]
fn a_field_of_this_read_again_on_one_branch_gets_no_advice() {
    let report = advise("FieldOneBranch", None);
    assert_eq!(report["advice"], Value::Array(Vec::new()), "{report:#}");
    let at = advise("FieldOneBranch", Some("n=1000,m=500,mode=0"));
    assert_eq!(at["advice"], Value::Array(Vec::new()), "{at:#}");
    // Whichever branch runs, the run (less its receiver) stays within the peak.
    for mode in ["0", "1"] {
        let measured = measured_peak("FieldOneBranch", &["1000", "500", mode]);
        assert_eq!(measured - RECEIVER_BYTES, bytes(&at["gc_peak_before"]));
    }
}

#[test]
fn a_field_another_method_reads_or_an_array_a_call_reaches_gets_no_advice() {
    // `buffer()` may read the field after `run` returns; `first(stages)` reads the first stage
    // through the array after the last allocation. Without them, each gets an advice.
    for class in ["SharedBuffer", "PassedCells"] {
        let report = advise(class, None);
        assert_eq!(report["advice"], Value::Array(Vec::new()), "{report:#}");
    }
}

#[test]
fn a_reference_read_again_on_an_exception_path_gets_no_advice() {
    // `data` is read in the handler of the second allocation's failure.
    let report = advise("ExceptionPath", None);
    assert_eq!(report["advice"], Value::Array(Vec::new()), "{report:#}");
}

#[test]
fn a_static_field_another_method_reads_gets_no_advice() {
    // `cached()` reads the field after `run` returns.
    let report = advise("SharedCache", None);
    assert_eq!(report["advice"], Value::Array(Vec::new()), "{report:#}");
}

#[test]
fn advised_programs_run_with_a_lower_peak_equal_to_the_bound_where_counts_are_exact() {
    let exact = Measured {
        exact: true,
        outside: 0,
    };
    check_applied("LargeArray", "n=1000,m=500", &["1000", "500"], exact);
    check_applied("StaticCache", "n=1000,m=500", &["1000", "500"], exact);
    check_applied("StageCells", "n=1000,m=1000", &["1000", "1000"], exact);
    let receiver = Measured {
        exact: true,
        outside: RECEIVER_BYTES,
    };
    check_applied("FieldBuffer", "n=1000,m=500", &["1000", "500"], receiver);
    // The loop's rounds are all in the bound but one at a time in the run.
    let rounds = Measured {
        exact: false,
        outside: 0,
    };
    check_applied("LoopCarried", "n=100,rounds=3", &["100", "3"], rounds);
}

#[test]
fn sarif_lists_each_advice_as_a_note_at_its_line() {
    let run = advise_run("LargeArray", &["--format", "sarif", "--at", "n=1000,m=500"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        schema_violations(&sarif_schema(), &run.stdout),
        Vec::<String>::new()
    );
    let log: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(log["version"], "2.1.0");
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 1);
    let result = &results[0];
    assert_eq!(result["ruleId"], "null-out");
    assert_eq!(result["level"], "note");
    let location = &result["locations"][0]["physicalLocation"];
    assert_eq!(
        location["artifactLocation"]["uri"],
        "advise/LargeArray.java"
    );
    assert_eq!(
        location["region"]["startLine"],
        line_of("LargeArray", "long[] table = new long[m];")
    );
    let message = result["message"]["text"].as_str().expect("message");
    assert!(
        message.contains("`samples = null;`") && message.contains("8032 -> 4016"),
        "{message}"
    );
}

#[test]
fn text_names_the_statement_to_insert() {
    let run = advise_run("LargeArray", &["--at", "n=1000,m=500"]);
    assert_run(
        &run,
        0,
        &["`samples = null;` before the line", "memRq 8032 -> 4016"],
    );
}

#[test]
fn bad_points_are_input_errors() {
    for (at, expected) in [
        ("n=ten", "not an integer"),
        ("n=1000", "m"),
        (
            "n=1000,m=500,k=3",
            "has no parameter `k` (its parameters: n, m)",
        ),
    ] {
        let run = advise_run("LargeArray", &["--at", at]);
        assert_eq!(run.code, 2, "{at}: {}", run.stderr);
        assert!(run.stderr.contains(expected), "{at}: {}", run.stderr);
    }
}

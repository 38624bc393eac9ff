//! `analyze --assume no-exceptions` (issue 18 item 3): exceptional paths are dropped — no
//! handler is entered, no `throw` runs, so neither the exception nor its stack trace counts —
//! and the certificate names the assumption. Oracle: a real run that throws nothing validates
//! exactly.

use std::path::{Path, PathBuf};

use membound_tests::{compile_fixture, eval_method, membound, scratch_dir, validated_exactly};
use serde_json::Value;

/// The certificate of `Checked.<method>` in the `count` model, with `extra` flags, written in
/// `dir`.
fn certificate(dir: &Path, method: &str, extra: &[&str]) -> PathBuf {
    let path = dir.join(format!("{method}{}.json", extra.join("")));
    let classes = compile_fixture("unseen_calls");
    let method = format!("Checked.{method}");
    let mut args = vec![
        "analyze",
        classes.to_str().expect("UTF-8 path"),
        "--method",
        &method,
        "--object-model",
        "count",
        "-o",
        path.to_str().expect("UTF-8 path"),
    ];
    args.extend(extra);
    let run = membound(args);
    assert_eq!(run.code, 0, "membound analyze failed: {}", run.stderr);
    path
}

fn objects_at(certificate: &Path, method: &str, point: &str) -> Value {
    eval_method(certificate, &format!("Checked.{method}"), point)["mem_alloc"]["objects"].clone()
}

fn assumptions(certificate: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(certificate).expect("certificate");
    let json: Value = serde_json::from_str(&text).expect("JSON certificate");
    json["assumptions"]
        .as_array()
        .expect("assumptions")
        .iter()
        .map(|a| a.as_str().expect("text").to_string())
        .collect()
}

const NO_EXCEPTIONS: &[&str] = &["--assume", "no-exceptions"];

fn names_no_exceptions(certificate: &Path) -> bool {
    assumptions(certificate)
        .iter()
        .any(|a| a.starts_with("no exception is thrown (--assume no-exceptions)"))
}

#[test]
fn without_exceptions_the_throw_counts_nothing_and_the_certificate_says_so() {
    let dir = scratch_dir("no_exceptions");
    let sound = certificate(&dir, "cells", &[]);
    let assumed = certificate(&dir, "cells", NO_EXCEPTIONS);
    // With exceptions, a negative n throws: the exception, its message and its stack trace.
    let thrown = objects_at(&sound, "cells", "n=-1")
        .as_i64()
        .expect("finite");
    assert!(thrown > 1, "{thrown}");
    assert!(!names_no_exceptions(&sound));
    // Without, only the array the method returns.
    assert_eq!(objects_at(&assumed, "cells", "n=-1"), 0);
    assert_eq!(objects_at(&assumed, "cells", "n=5"), 1);
    assert!(
        names_no_exceptions(&assumed),
        "{:#?}",
        assumptions(&assumed)
    );
    // A run that throws nothing is predicted exactly.
    validated_exactly(&assumed, "Checked", &["5"]);
}

#[test]
fn without_exceptions_no_handler_runs() {
    let dir = scratch_dir("no_exceptions_handler");
    let sound = certificate(&dir, "orDefault", &[]);
    let assumed = certificate(&dir, "orDefault", NO_EXCEPTIONS);
    // With exceptions, a negative n reaches the handler's default array after the exception.
    let caught = objects_at(&sound, "orDefault", "n=-1")
        .as_i64()
        .expect("finite");
    assert!(caught > 2, "{caught}");
    assert_eq!(objects_at(&assumed, "orDefault", "n=-1"), 0);
    assert_eq!(objects_at(&assumed, "orDefault", "n=3"), 1);
    assert!(names_no_exceptions(&assumed));
    validated_exactly(&assumed, "Checked", &["3"]);
}

/// The calls of a path that throws are not looked up without exceptions: a message describing
/// an object (`String.valueOf(label)`, every `toString` of the program) no longer spends the
/// call graph's budget, whose cut left the call that makes the cells unread (∞).
#[test]
fn without_exceptions_the_call_graph_leaves_out_what_only_a_throw_calls() {
    let dir = scratch_dir("no_exceptions_graph");
    let budget: &[&str] = &["--budget-methods", "2"];
    let sound = certificate(&dir, "labelled", budget);
    let assumed = certificate(&dir, "labelled", &[NO_EXCEPTIONS, budget].concat());
    assert_eq!(objects_at(&sound, "labelled", "n=5"), "infty");
    assert_eq!(objects_at(&assumed, "labelled", "n=5"), 1);
    assert!(names_no_exceptions(&assumed));
    validated_exactly(&assumed, "Checked", &["5"]);
}

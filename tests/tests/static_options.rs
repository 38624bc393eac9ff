//! A static field that main's option parsing writes (fixture `static_options`, issue 18): the
//! JOlden programs read their sizes with `Integer.parseInt` in an option loop of a callee and
//! build with the static afterwards. The value the static holds once that call returned is a
//! parameter of main's bound, named after the field, and the agent records it there (after
//! the call), so `validate` compares every prediction. Oracle: real runs with different
//! options, the default from the class initializer included.

use std::path::PathBuf;

use membound_tests::{
    analyze_into, certificate_params, compile_fixture, pair, scratch_dir, validate_json,
};
use serde_json::Value;

fn certificate() -> PathBuf {
    certificate_of("main")
}

fn certificate_of(method: &str) -> PathBuf {
    certificate_in("Options", method)
}

fn certificate_in(class: &str, method: &str) -> PathBuf {
    let path = scratch_dir("static_options").join(format!("{class}.{method}.json"));
    analyze_into(
        &compile_fixture("static_options"),
        &format!("{class}.{method}"),
        "count",
        &path,
    );
    path
}

#[test]
fn statics_the_option_parse_writes_are_parameters_of_main() {
    let certificate = certificate();
    let params = certificate_params(&certificate, "Options.main");
    for (name, origin) in [
        (
            "rounds",
            "static field Options.rounds, written by the call at main@1",
        ),
        (
            "size",
            "static field Options.size, written by the call at main@1",
        ),
    ] {
        assert!(params.contains(&pair(name, origin)), "{params:?}");
    }
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    let json: Value = serde_json::from_str(&text).expect("JSON");
    let main = &json["methods"][0];
    assert_eq!(main["method"], "Options.main([Ljava/lang/String;)V");
    let objects = main["mem_alloc"]["objects"].as_str().expect("a bound");
    assert!(!objects.contains("infty"), "{objects}");
}

#[test]
fn validate_binds_the_statics_from_runs_with_different_options() {
    let certificate = certificate();
    // (options, size, rounds): the class initializer's defaults, then parsed values.
    let runs: [(&[&str], i64, i64); 3] = [
        (&[], 16, 2),
        (&["-s", "5"], 5, 2),
        (&["-r", "3", "-s", "40"], 40, 3),
    ];
    for (args, size, rounds) in runs {
        let (code, json) = validate_json(&certificate, "Options", args);
        assert_eq!(code, 0, "{json:#}");
        assert_eq!(json["broken"], 0, "{json:#}");
        assert!(json["missing"].is_null(), "{json:#}");
        assert_eq!(json["not_compared"], Value::Array(Vec::new()), "{json:#}");
        let comparisons = json["comparisons"].as_array().expect("comparisons");
        // Every list node is predicted exactly: `size` before the loop, `rounds * size` in it.
        let nodes: Vec<(&Value, &Value)> = comparisons
            .iter()
            .filter(|c| c["what"].as_str().is_some_and(|w| w.ends_with(" Node")))
            .map(|c| (&c["observed"], &c["predicted"]))
            .collect();
        let expected = [size, rounds * size].map(Value::from);
        assert_eq!(
            nodes,
            [(&expected[0], &expected[0]), (&expected[1], &expected[1])],
            "{args:?}: {json:#}"
        );
    }
}

#[test]
fn a_static_main_s_own_option_loop_writes_is_a_parameter_from_the_loop_s_exit() {
    let certificate = certificate_in("Inline", "main");
    let params = certificate_params(&certificate, "Inline.main");
    let (_, origin) = params
        .iter()
        .find(|(name, _)| name == "size")
        .unwrap_or_else(|| panic!("no size in {params:?}"));
    assert!(
        origin.starts_with("static field Inline.size, once the loop at main@")
            && origin.contains(" exits to main@"),
        "{origin}"
    );
    for (args, size) in [(&[][..], 4), (&["-s", "7"][..], 7), (&["-s", "30"][..], 30)] {
        let (code, json) = validate_json(&certificate, "Inline", args);
        assert_eq!(code, 0, "{json:#}");
        assert_eq!(json["broken"], 0, "{json:#}");
        assert_eq!(json["not_compared"], Value::Array(Vec::new()), "{json:#}");
        let nodes = json["comparisons"]
            .as_array()
            .expect("comparisons")
            .iter()
            .find(|c| c["what"].as_str().is_some_and(|w| w.ends_with(" Node")))
            .cloned()
            .unwrap_or_else(|| panic!("no Node comparison: {json:#}"));
        assert_eq!(nodes["observed"], size, "{json:#}");
        assert_eq!(nodes["predicted"], size, "{json:#}");
    }
}

#[test]
fn a_static_two_calls_or_a_loop_may_rewrite_is_no_parameter() {
    // `size` may differ between its reads: no one value of it bounds the builds.
    for method in ["parsedTwice", "parsedInRounds"] {
        let certificate = certificate_of(method);
        let params = certificate_params(&certificate, &format!("Options.{method}"));
        assert!(params.iter().all(|(name, _)| name != "size"), "{params:?}");
        let json: Value =
            serde_json::from_str(&std::fs::read_to_string(&certificate).expect("read"))
                .expect("JSON");
        assert_eq!(
            json["methods"][0]["mem_alloc"]["objects"], "infty",
            "{method}"
        );
    }
}

#[test]
fn a_fixing_offset_with_no_call_there_leaves_the_run_unchecked_and_says_why() {
    // An edited certificate: nothing at main@2 writes a static, the agent says so.
    let analyzed = certificate_of("main");
    let text = std::fs::read_to_string(&analyzed).expect("read");
    let edited = analyzed.with_file_name("main-edited.json");
    std::fs::write(&edited, text.replace("call at main@1", "call at main@2")).expect("written");
    let run = membound_tests::membound([
        "validate",
        edited.to_str().expect("a UTF-8 path"),
        "--main",
        "Options",
        "--",
        "-s",
        "5",
    ]);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("no value for parameter")
            && run
                .stderr
                .contains("cannot record static fields after offset 2"),
        "{}",
        run.stderr
    );
}

//! `membound analyze --format sarif`: the log of a fixture with an unbounded site equals its
//! golden file (refresh with `UPDATE_EXPECT=1`), and validates against the SARIF 2.1.0 JSON
//! schema, which the oracle venv installs from PyPI (`scripts/ensure-oracle-venv.sh`).

use membound_tests::{fixture_output, sarif_schema, schema_violations, workspace_root};
use serde_json::Value;

#[test]
fn concat_log_matches_its_golden_file_and_the_sarif_schema() {
    let log = fixture_output(
        "analyze",
        "thesis",
        "thesis.Concat.join",
        &["--format", "sarif"],
    );
    let golden = workspace_root().join("tests/fixtures/sarif/concat.sarif");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&golden, &log).expect("the golden file is writable");
    }
    let expected = std::fs::read_to_string(&golden).expect("the golden file (UPDATE_EXPECT=1)");
    assert_eq!(
        log, expected,
        "refresh with UPDATE_EXPECT=1 if the change is intended"
    );

    let schema = sarif_schema();
    let title: Value =
        serde_json::from_str(&std::fs::read_to_string(&schema).expect("the schema file"))
            .expect("JSON");
    assert_eq!(
        title["title"],
        "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    );
    assert_eq!(schema_violations(&schema, &log), Vec::<String>::new());

    // What the log says: the concatenation at Concat.java line 8 has no finite bound.
    let log: Value = serde_json::from_str(&log).expect("JSON");
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["ruleId"], "unbounded-allocation");
    let place = &results[0]["locations"][0]["physicalLocation"];
    assert_eq!(place["artifactLocation"]["uri"], "thesis/Concat.java");
    assert_eq!(place["region"]["startLine"], 8);
}

#[test]
fn a_log_with_a_broken_field_fails_the_schema() {
    // The validation above is not vacuous: the same schema rejects a result without a message.
    let log = fixture_output(
        "analyze",
        "thesis",
        "thesis.Concat.join",
        &["--format", "sarif"],
    );
    let mut log: Value = serde_json::from_str(&log).expect("JSON");
    log["runs"][0]["results"][0]
        .as_object_mut()
        .expect("a result")
        .remove("message");
    let violations = schema_violations(&sarif_schema(), &log.to_string());
    assert!(!violations.is_empty(), "{violations:?}");
}

/// (rule, source file, line, message) of each result of `method`'s log in fixture `escape`.
fn escape_results(method: &str) -> Vec<(String, String, u64, String)> {
    let log = fixture_output("analyze", "escape", method, &["--format", "sarif"]);
    assert_eq!(
        schema_violations(&sarif_schema(), &log),
        Vec::<String>::new()
    );
    let log: Value = serde_json::from_str(&log).expect("JSON");
    log["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            let place = &r["locations"][0]["physicalLocation"];
            (
                r["ruleId"].as_str().expect("a rule").to_string(),
                place["artifactLocation"]["uri"]
                    .as_str()
                    .expect("a uri")
                    .to_string(),
                place["region"]["startLine"].as_u64().expect("a line"),
                r["message"]["text"]
                    .as_str()
                    .expect("a message")
                    .to_string(),
            )
        })
        .collect()
}

#[test]
fn recursion_and_native_code_are_their_own_rules() {
    // Mutual recursion: each of the two allocations once, ∞ only where the recursion never
    // stops (a negative n: `n == 0` is its only exit).
    let recursion = escape_results("escape.Routes.usesEvenOdd");
    let places: Vec<(&str, &str, u64)> = recursion
        .iter()
        .map(|(rule, uri, line, _)| (rule.as_str(), uri.as_str(), *line))
        .collect();
    assert_eq!(
        places,
        [
            ("recursion-without-spec", "escape/Routes.java", 123),
            ("recursion-without-spec", "escape/Routes.java", 132),
        ]
    );
    assert!(
        recursion[0].3.contains(
            "recursion through escape.Routes.odd(I)Lescape/Node; never stops for n <= -1"
        ),
        "{recursion:?}"
    );
    // A native callee: memAlloc is ∞, reported at the calling method.
    let native = escape_results("escape.Routes.toNative");
    assert_eq!(native.len(), 1, "{native:?}");
    assert_eq!(native[0].0, "unknown-code");
    assert_eq!(native[0].1, "escape/Routes.java");
    assert!(
        native[0]
            .3
            .ends_with("reaches escape.Routes.nativeSink(Ljava/lang/Object;)V (native method)"),
        "{native:?}"
    );
}

//! `membound sites` on the thesis's Fig 1.4 program: the creation sites from `m0` are exactly
//! the seven chains of Example 1.1.

use membound_tests::{fixture_json, fixture_output, workspace_root};
use serde_json::Value;

/// The source line of each numbered statement label (`// 4`) in the Fig 1.4 fixture.
fn label_lines() -> Vec<(u32, u32)> {
    let source = std::fs::read_to_string(
        workspace_root().join("tests/fixtures/thesis/src/thesis/Fig14.java"),
    )
    .expect("fixture source");
    source
        .lines()
        .enumerate()
        .filter_map(|(index, line)| {
            let label = line.rsplit_once("// ")?.1.trim().parse().ok()?;
            Some((label, index as u32 + 1))
        })
        .collect()
}

/// A chain as the thesis writes it, by statement labels: `m0.1.m1.5.m2.8` is "1.5.8".
fn chain_labels(site: &Value, lines: &[(u32, u32)]) -> String {
    let labels: Vec<String> = site["chain"]
        .as_array()
        .expect("chain")
        .iter()
        .map(|element| {
            let line = element["line"].as_u64().expect("fixture has line numbers") as u32;
            let label = lines
                .iter()
                .find(|(_, l)| *l == line)
                .map(|(label, _)| *label);
            label.map_or(format!("line{line}"), |l| l.to_string())
        })
        .collect();
    labels.join(".")
}

#[test]
fn fig14_sites_from_m0_are_the_seven_chains_of_example_1_1() {
    let json = fixture_json("sites", "thesis", "thesis.Fig14.m0");
    let lines = label_lines();
    let mut found: Vec<(String, String)> = json["sites"]
        .as_array()
        .expect("sites")
        .iter()
        .map(|site| {
            let ty = site["type"].as_str().expect("type").to_string();
            (chain_labels(site, &lines), ty)
        })
        .collect();
    found.sort();
    let expected = [
        ("1.4", "thesis.A"),
        ("1.5.6", "thesis.B[]"),
        ("1.5.8", "thesis.B"),
        ("1.5.9", "thesis.C"),
        ("2.6", "thesis.B[]"),
        ("2.8", "thesis.B"),
        ("2.9", "thesis.C"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(chain, ty)| (chain.to_string(), ty.to_string()))
        .collect();
    assert_eq!(found, expected);
    assert_eq!(json["cycles"].as_array().map(Vec::len), Some(0));
    assert_eq!(json["truncated_at"], Value::Null);
}

#[test]
fn fig14_array_sites_name_their_dimension() {
    let json = fixture_json("sites", "thesis", "thesis.Fig14.m2");
    let arrays: Vec<&Value> = json["sites"]
        .as_array()
        .expect("sites")
        .iter()
        .filter(|site| site["kind"] == "array")
        .collect();
    assert_eq!(arrays.len(), 1);
    assert_eq!(arrays[0]["dims"], serde_json::json!(["n"]));
    let chain = arrays[0]["chain"].as_array().expect("chain");
    assert_eq!(chain.len(), 1);
    assert_eq!(chain[0]["method"], "thesis.Fig14.m2(I)[Lthesis/B;");
}

#[test]
fn sites_text_prints_a_call_tree_with_shared_prefixes() {
    let stdout = fixture_output("sites", "thesis", "thesis.Fig14.m0", &[]);
    assert!(stdout.starts_with("thesis.Fig14.m0(I)V: 7 creation sites\n"));
    // m1 is entered once in the tree although four chains pass through it.
    assert_eq!(stdout.matches("thesis.Fig14.m1(I)V").count(), 1, "{stdout}");
    assert!(stdout.contains("new thesis.B[n]"), "{stdout}");
}

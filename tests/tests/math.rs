//! `membound count` and `membound bound` through the binary: values on the last line, JSON,
//! and bad syntax reported with its column and exit code 2.

use membound_tests::membound;

fn last_line(text: &str) -> &str {
    text.trim_end().lines().last().unwrap_or("")
}

#[test]
fn count_at_a_point_prints_the_value_last() {
    // I2 of the thesis (§2.2.1): 0, 0, 1, 2, 3, 5 points for mc = 1..6.
    let set = "[mc] -> { [k, i, j, n] : k = mc and 1 <= i <= k and n = i and 1 <= j <= n and j mod 3 = 0 }";
    for (mc, expected) in [(1, "0"), (2, "0"), (3, "1"), (4, "2"), (5, "3"), (6, "5")] {
        let run = membound(["count", set, "--at", &format!("mc={mc}")]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(last_line(&run.stdout), expected, "mc = {mc}");
    }
}

#[test]
fn count_json_has_chambers() {
    let run = membound([
        "count",
        "--format",
        "json",
        "[n] -> { [i, j] : 1 <= i <= n and 1 <= j <= i }",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("valid JSON");
    assert_eq!(json["params"], serde_json::json!(["n"]));
    assert!(!json["chambers"].as_array().expect("chambers").is_empty());
}

#[test]
fn bad_set_syntax_points_at_the_column() {
    let run = membound(["count", "[n] -> { [i] : 0 <= i <= n and"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("column"), "{}", run.stderr);
}

#[test]
fn bound_at_a_point_prints_the_value_last() {
    // i*(n - i) on 0 <= i <= n: the true maximum is floor(n^2/4) = 25 at n = 10.
    let run = membound([
        "bound",
        "[n] -> { [i] -> i*(n - i) : 0 <= i <= n }",
        "--at",
        "n=10",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(last_line(&run.stdout), "25");
}

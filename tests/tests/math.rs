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

/// `x0*x1*…` over the box `0 <= x_k <= n`.
fn box_product(variables: usize) -> String {
    let names: Vec<String> = (0..variables).map(|k| format!("x{k}")).collect();
    let constraints: Vec<String> = names.iter().map(|x| format!("0 <= {x} <= n")).collect();
    format!(
        "[n] -> {{ [{}] -> {} : {} }}",
        names.join(", "),
        names.join("*"),
        constraints.join(" and ")
    )
}

#[test]
fn bound_past_its_budgets_is_a_cheaper_bound_with_a_note() {
    // Issue 23: 15 s, more than 30 s, more than 30 s and 1.3 GB, 4.4 GB before the budgets.
    let cases = [
        (
            "[n, m] -> { [i, j] -> i^15*j^15 : 0 <= i <= n and 0 <= j <= m }".to_string(),
            "n=3,m=2",
            (3i128.pow(15) * 2i128.pow(15)).to_string(),
            "degree 30",
        ),
        (
            "[n, m] -> { [i, j] -> i^20*j^20 : 0 <= i <= n and 0 <= j <= m }".to_string(),
            "n=3,m=2",
            (3i128.pow(20) * 2i128.pow(20)).to_string(),
            "degree 40",
        ),
        (
            box_product(5),
            "n=3",
            3i128.pow(5).to_string(),
            "32 vertices",
        ),
        (
            box_product(16),
            "n=2",
            2i128.pow(16).to_string(),
            "16 variables",
        ),
    ];
    for (text, point, value, why) in cases {
        let started = std::time::Instant::now();
        let run = membound(["bound", text.as_str(), "--at", point]);
        assert_eq!(run.code, 0, "{text}: {}", run.stderr);
        // A guard against a hang, not a measure of speed (each takes well under a second).
        assert!(started.elapsed().as_secs() < 30, "{text}");
        assert_eq!(last_line(&run.stdout), value, "{text}: {}", run.stdout);
        assert!(
            run.stdout.contains("note: ") && run.stdout.contains(why),
            "{text}: {}",
            run.stdout
        );
    }
    // Raising the budget expands it (degree 13 over 4 vertices: 560 coefficients).
    let text = "[n, m] -> { [i, j] -> i^7*j^6 : 0 <= i <= n and 0 <= j <= m }";
    let run = membound(["bound", text]);
    assert!(run.stdout.contains("note: "), "{}", run.stdout);
    let run = membound([
        "bound",
        text,
        "--budget-degree",
        "13",
        "--budget-coefficients",
        "600",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("note: "), "{}", run.stdout);
}

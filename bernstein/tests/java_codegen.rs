//! The generated Java agrees with exact evaluation (rounded up) on parameter ranges, powers,
//! products and logarithms included; a value beyond a `long` throws `ArithmeticException`
//! (printed `overflow`) where evaluation gives a value beyond 64 bits or refuses its size.
//! Needs a JDK (`javac`, `java` on the PATH); fails with a clear message without one.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use membound_bernstein::{BoundExpr, EvalError, bound_text, parse_bound, to_java};
use membound_polyhedra::{Rat, Value};

/// Compiles every class with one `Main` printing `class.bound(args)` for each call, runs it
/// once (one javac and one JVM start keep the test fast), and returns the printed lines.
fn run_java(dir: &Path, examples: &[(&str, BoundExpr, Vec<Vec<i64>>)]) -> Vec<String> {
    let mut sources = vec!["Main.java".to_string()];
    let mut lines = Vec::new();
    for (class, expr, calls) in examples {
        std::fs::write(
            dir.join(format!("{class}.java")),
            to_java(expr, class, "bound"),
        )
        .unwrap();
        sources.push(format!("{class}.java"));
        for args in calls {
            let args: Vec<String> = args.iter().map(|a| format!("{a}L")).collect();
            lines.push(format!(
                "        try {{ System.out.println({class}.bound({})); }} \
                 catch (ArithmeticException e) {{ System.out.println(\"overflow\"); }}",
                args.join(", ")
            ));
        }
    }
    let main = format!(
        "public class Main {{\n    public static void main(String[] a) {{\n{}\n    }}\n}}\n",
        lines.join("\n")
    );
    std::fs::write(dir.join("Main.java"), main).unwrap();
    let javac = Command::new("javac")
        .current_dir(dir)
        .args(&sources)
        .output()
        .unwrap_or_else(|e| panic!("javac is needed for this test and could not run: {e}"));
    assert!(
        javac.status.success(),
        "javac failed:\n{}",
        String::from_utf8_lossy(&javac.stderr)
    );
    let java = Command::new("java")
        .current_dir(dir)
        .args(["-cp", ".", "Main"])
        .output()
        .unwrap_or_else(|e| panic!("java is needed for this test and could not run: {e}"));
    assert!(
        java.status.success(),
        "java failed:\n{}",
        String::from_utf8_lossy(&java.stderr)
    );
    String::from_utf8_lossy(&java.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// Exact value rounded up, as the generated code returns it.
fn expected(expr: &BoundExpr, params: &[String], args: &[i64]) -> String {
    let point: BTreeMap<String, Rat> = params
        .iter()
        .cloned()
        .zip(args.iter().map(|&a| Rat::from(a)))
        .collect();
    match expr.eval(&point) {
        Ok(Value::Infinite) => i64::MAX.to_string(),
        Ok(Value::Finite(v)) => Rat::from(v.ceil())
            .to_i64()
            .map_or_else(|| "overflow".to_string(), |v| v.to_string()),
        Err(EvalError::TooLarge { .. }) => "overflow".to_string(),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn generated_java_matches_exact_evaluation() {
    let dir = std::env::temp_dir().join(format!("membound-java-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let examples = [
        (
            "RunningExample",
            parse_bound("(1 + 3*mc) + cases(mc <= 6 -> (6*mc); otherwise -> (mc^2))").unwrap(),
        ),
        (
            "HalfSquare",
            bound_text("[n] -> { [i] -> i*(n - i) : 0 <= i <= n }").unwrap(),
        ),
        (
            "TwoChambers",
            bound_text("[P1, P2] -> { [i] -> 1/3*i^2 + i : 1 <= i <= P1 + P2 and i <= 3P2 }")
                .unwrap(),
        ),
        (
            "WithInfinity",
            parse_bound("max((n), cases(n >= 5 -> infty; otherwise -> (2*n + floor(n/2))))")
                .unwrap(),
        ),
    ];
    let closed_forms = [
        ("BinaryTree", "2^(d) + (-1)"),
        ("Villages", "(8/3)*4^(l) + (-8/3)"),
        ("Chain", "(n)*2^(n)"),
        ("Halving", "2^[floor_log2(n) + (1)] + (-1)"),
        ("Fraction", "2^(-n) + (1/3)*3^(1/2*n)"),
        (
            "Mixed",
            "cases(n >= 2 -> (n + 1)*floor_log2(n*n + 3); otherwise -> max(2^(n), infty*(0)))",
        ),
        ("HugeThenSmall", "2^(n)*2^(-n) + (0)*4^(n)"),
        ("Refused", "2^(n^3)"),
    ];
    let examples = examples.into_iter().chain(
        closed_forms
            .into_iter()
            .map(|(class, text)| (class, parse_bound(text).unwrap())),
    );
    let examples: Vec<(&str, BoundExpr, Vec<Vec<i64>>)> = examples
        .map(|(class, expr)| {
            let calls: Vec<Vec<i64>> = if expr.params().len() == 2 {
                (-2..6)
                    .flat_map(|a| (-2..6).map(move |b| vec![a, b]))
                    .collect()
            } else {
                // Around 2^63 and far beyond a long, and beyond exact evaluation for n^3.
                (-3..12)
                    .chain([30, 61, 62, 63, 64, 100, 300])
                    .map(|a| vec![a])
                    .collect()
            };
            (class, expr, calls)
        })
        .collect();
    let mut outputs = run_java(&dir, &examples).into_iter();
    for (class, expr, calls) in &examples {
        let params = expr.params();
        let got: Vec<String> = outputs.by_ref().take(calls.len()).collect();
        let wanted: Vec<String> = calls
            .iter()
            .map(|args| expected(expr, &params, args))
            .collect();
        assert_eq!(got, wanted, "{class}: {}", expr.to_readable());
    }
    std::fs::remove_dir_all(&dir).ok();
}

//! Certificates whose bounds are the closed forms of recursion (powers, products, ⌊log2⌋):
//! exact evaluation, budgets proved over ranges through monotone exponentials, and `diff`
//! ranking an exponential above every polynomial.

use std::collections::BTreeMap;

use membound_certificate::budget::{Budget, Range, Scope, Verdict, check};
use membound_certificate::diff::{Degree, Kind, degree, diff};
use membound_certificate::{Certificate, evaluate, value_json};
use membound_polyhedra::{Int, Rat, Value};

/// A certificate of one method `rec.T.build(I)V` with parameter `d` and these memAlloc
/// expressions (objects, bytes).
fn certificate(objects: &str, bytes: &str) -> Certificate {
    let text = format!(
        r#"membound: 1
tool: {{ version: 0.1.0, object_model: hotspot-coops }}
input: {{ path: rec.jar, sha256: "{}" }}
entry: {{ method: "rec.T.build(I)V" }}
assumptions: []
methods:
- method: "rec.T.build(I)V"
  params: [ {{ name: d, origin: parameter 0 (int d) }} ]
  mem_alloc: {{ objects: "{objects}", bytes: "{bytes}" }}
  sites: []
"#,
        "0".repeat(64)
    );
    Certificate::parse(&text).unwrap_or_else(|e| panic!("{text}\n{e}"))
}

fn point(d: i64) -> BTreeMap<String, Rat> {
    BTreeMap::from([("d".to_string(), Rat::from(d))])
}

fn tree() -> Certificate {
    certificate(
        "cases(d >= 0 -> 2^(d) + (-1); otherwise -> (0))",
        "cases(d >= 0 -> (16)*2^(d) + (-16); otherwise -> (0))",
    )
}

#[test]
fn eval_is_exact_far_beyond_64_bits() {
    let evaluation = evaluate(&tree(), None, &point(100)).unwrap();
    let bytes = &evaluation.methods[0].mem_alloc.bytes;
    let expected: Int = (Int::from(1) << 104u32) - 16;
    assert_eq!(*bytes, Value::Finite(Rat::from(expected.clone())));
    // JSON keeps it exact, as a string.
    assert_eq!(value_json(bytes), serde_json::json!(expected.to_string()));
    // An absurd exponent is refused, naming the limit, instead of filling the memory.
    let error = evaluate(&tree(), None, &point(1_000_000_000)).unwrap_err();
    assert!(error.to_string().contains("16777216 bits"), "{error}");
}

fn budget_over(certificate: &Certificate, budget: &str, range: &str) -> (Verdict, Value) {
    let outcome = check(
        certificate,
        "rec.T.build",
        &Budget::parse(budget).unwrap(),
        &Scope::Over(Range {
            text: range.to_string(),
        }),
    )
    .unwrap();
    (outcome.verdict, outcome.value)
}

#[test]
fn budgets_are_proved_over_ranges_through_monotone_exponentials() {
    // 16·2^20 - 16 = 16777200 bytes, within 16 MiB = 16777216.
    let (verdict, value) = budget_over(&tree(), "memAlloc <= 16MiB", "0 <= d <= 20");
    assert_eq!(verdict, Verdict::Proved);
    assert_eq!(value, Value::Finite(Rat::from(16_777_200)));
    // At d = 21 the tree is 16·2^21 - 16 bytes: broken there, not merely unproved.
    let (verdict, value) = budget_over(&tree(), "memAlloc <= 16MiB", "0 <= d <= 21");
    assert_eq!(verdict, Verdict::Broken);
    assert_eq!(value, Value::Finite(Rat::from(33_554_416)));
    // A product of monotone factors, and a logarithm.
    let chain = certificate(
        "cases(d >= 0 -> (d)*2^(d); otherwise -> (0))",
        "(8)*floor_log2(d + 1)",
    );
    let (verdict, value) = budget_over(&chain, "memAlloc <= 10240 objects", "0 <= d <= 10");
    assert_eq!(
        (verdict, value),
        (Verdict::Proved, Value::Finite(Rat::from(10240)))
    );
    // 8·floor_log2(16) = 32 bytes at d = 15.
    let (verdict, value) = budget_over(&chain, "memAlloc <= 24 B", "0 <= d <= 15");
    assert_eq!(
        (verdict, value),
        (Verdict::Broken, Value::Finite(Rat::from(32)))
    );
}

#[test]
fn budgets_at_points_are_exact() {
    let verdict_at = |d: i64| {
        let budget = Budget::parse("memAlloc <= 64 GiB").unwrap();
        check(&tree(), "rec.T.build", &budget, &Scope::At(point(d)))
            .unwrap()
            .verdict
    };
    // 16·2^32 - 16 bytes: just below 64 GiB; twice that above.
    assert_eq!(verdict_at(32), Verdict::Holds);
    assert_eq!(verdict_at(33), Verdict::Broken);
}

#[test]
fn an_exponential_is_above_every_polynomial_in_diff() {
    let growth = |text: &str| degree(&membound_bernstein::parse_bound(text).unwrap());
    assert_eq!(growth("(d^5)"), Degree::Finite(5));
    assert_eq!(growth("2^(d)"), Degree::Exponential(1));
    assert_eq!(growth("(d^9)*2^(d)"), Degree::Exponential(1));
    assert_eq!(growth("2^(d^2)"), Degree::Exponential(2));
    assert_eq!(growth("floor_log2(d)"), Degree::Finite(0));
    assert_eq!(growth("(d)*floor_log2(d)"), Degree::Finite(1));
    assert_eq!(growth("2^[floor_log2(d) + (1)]"), Degree::Finite(1));
    assert_eq!(growth("4^[floor_log2(d)]"), Degree::Finite(2));
    assert_eq!(growth("2^(d) + infty"), Degree::Infinite);
    assert!(Degree::Exponential(0) > Degree::Finite(u32::MAX));
    assert!(Degree::Infinite > Degree::Exponential(u32::MAX));

    let kinds = |old: &Certificate, new: &Certificate, at: &[i64]| -> Vec<Kind> {
        let points: Vec<_> = at.iter().map(|&d| point(d)).collect();
        diff(old, new, &points)
            .unwrap()
            .changes
            .into_iter()
            .map(|c| c.kind)
            .collect()
    };
    let polynomial = certificate("(d^3)", "(16*d^3)");
    let exponential = certificate("2^(d)", "(16)*2^(d)");
    assert_eq!(
        kinds(&polynomial, &exponential, &[]),
        [Kind::HigherDegree, Kind::HigherDegree]
    );
    assert_eq!(
        kinds(&exponential, &polynomial, &[]),
        [Kind::LowerDegree, Kind::LowerDegree]
    );
    // Two exponentials of one class: their values tell.
    let faster = certificate("4^(d)", "(16)*4^(d)");
    assert_eq!(
        kinds(&exponential, &faster, &[10]),
        [
            Kind::LargerAt("d=10".to_string()),
            Kind::LargerAt("d=10".to_string())
        ]
    );
    assert_eq!(
        kinds(&exponential, &faster, &[]),
        [Kind::Changed, Kind::Changed]
    );
    // A product of polynomials keeps its leading coefficients.
    let product = certificate("(2)*(d)*(d + 1)", "(32)*(d^2)");
    assert_eq!(
        kinds(&certificate("(d^2)", "(16*d^2)"), &product, &[]),
        [Kind::LargerLeading, Kind::LargerLeading]
    );
}

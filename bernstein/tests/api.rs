//! The library API behind `membound bound`: parse → bound → render → evaluate, errors with a
//! column, serde of bound expressions, quasi-polynomials and unbounded sets.

use membound_bernstein::{
    BoundExpr, Error, Limits, bound_command, bound_text, parse_bound, parse_point,
};
use membound_polyhedra::Value;

#[test]
fn bound_command_prints_the_bound_then_the_value_alone() {
    let out = bound_command(
        "[n] -> { [i] -> i*(n - i) : 0 <= i <= n }",
        Some("n=10"),
        &Limits::default(),
    )
    .unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        ["cases(n = 1 -> 0; n >= 0 -> 1/4*n^2; otherwise -> 0)", "25"]
    );
    let odd = bound_command(
        "[n] -> { [i] -> i*(n - i) : 0 <= i <= n }",
        Some("n=7"),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(odd.lines().last(), Some("49/4"));
    let rational = bound_command(
        "[n] -> { [i] -> i : 0 <= i <= n }",
        Some("n=7/2"),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(rational.lines().last(), Some("7/2"));
}

#[test]
fn bad_input_is_an_error_with_a_column_never_a_panic() {
    match bound_text("[n] -> { [i] -> i*(n - i) : 0 <= i <= }") {
        Err(Error::Parse(e)) => assert!(e.column > 30, "{e}"),
        other => panic!("expected a parse error, got {other:?}"),
    }
    assert!(matches!(
        bound_command(
            "[n] -> { [i] -> i : 0 <= i <= n }",
            Some("m=3"),
            &Limits::default()
        ),
        Err(Error::Eval(_))
    ));
    assert!(matches!(parse_point("n=ten"), Err(Error::Point { .. })));
    assert!(parse_bound("max((n),").is_err());
}

#[test]
fn bound_expressions_survive_serde() {
    let bound = bound_text("[P1, P2] -> { [i] -> i^2 : 1 <= i <= P1 + P2 and i <= 3P2 }").unwrap();
    let json = serde_json::to_string(&bound).unwrap();
    let back: BoundExpr = serde_json::from_str(&json).unwrap();
    assert_eq!(back, bound);
    assert_eq!(parse_bound(&bound.to_text()).unwrap(), bound);
}

#[test]
fn periodic_coefficients_are_bounded_class_by_class() {
    // floor(i/2) on 0 <= i <= n: the classes i/2 and (i - 1)/2; the bound is n/2.
    let bound = bound_text("[n] -> { [i] -> floor(i/2) : 0 <= i <= n }").unwrap();
    for n in 0..10i64 {
        let value = bound
            .eval(&parse_point(&format!("n={n}")).unwrap())
            .unwrap();
        let Value::Finite(v) = value else {
            panic!("finite expected")
        };
        assert!(
            v >= (n / 2).into() && v.clone() * 2 <= n.into(),
            "n={n}: {v}"
        );
    }
}

#[test]
fn unbounded_growth_is_infinite_and_unbounded_decrease_is_not() {
    let grows = bound_text("[n] -> { [i] -> i : i >= n }").unwrap();
    assert_eq!(
        grows.eval(&parse_point("n=3").unwrap()).unwrap(),
        Value::Infinite
    );
    let falls = bound_text("[n] -> { [i] -> n - i : i >= n }").unwrap();
    assert_eq!(
        falls.eval(&parse_point("n=3").unwrap()).unwrap(),
        Value::Finite(0.into())
    );
    let empty = bound_text("[n] -> { [i] -> i : 0 <= i <= n and i >= n + 1 }").unwrap();
    assert_eq!(empty, BoundExpr::zero());
}

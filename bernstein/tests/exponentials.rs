//! Products, powers and ⌊log2⌋ in bound expressions (the closed forms of recursion): the text
//! form reads back what it printed, evaluation is exact against direct big-integer arithmetic
//! and refuses absurd sizes at once, simplification keeps values, and bounds over polytopes are
//! never below the maximum found by enumeration.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use membound_bernstein::{
    BoundExpr, EvalError, Guard, ParametricPolytope, bound_expr_over, parse_bound, simplify,
};
use membound_polyhedra::{Int, Rat, Value, parse_set};
use proptest::prelude::*;

fn expr(text: &str) -> BoundExpr {
    parse_bound(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn at(e: &BoundExpr, values: &[(&str, i64)]) -> Result<Value, EvalError> {
    let point: BTreeMap<String, Rat> = values
        .iter()
        .map(|(name, v)| (name.to_string(), Rat::from(*v)))
        .collect();
    e.eval(&point)
}

fn finite(value: Result<Value, EvalError>) -> Rat {
    match value {
        Ok(Value::Finite(v)) => v,
        other => panic!("a finite value expected, got {other:?}"),
    }
}

fn two_to(k: u64) -> Int {
    Int::from(1) << k
}

#[test]
fn closed_forms_read_and_print() {
    let cases = [
        ("2^(d) + (-1)", "2^d - 1"),
        ("(8/3)*4^(l) + (-8/3)", "8/3*4^l - 8/3"),
        ("(n)*2^(n)", "n*2^n"),
        (
            "2^[floor_log2(n) + (1)] + (-1)",
            "2^(floor_log2(n) + 1) - 1",
        ),
        ("(n + 1)*3^(n - 1)", "(n + 1)*3^(n - 1)"),
        ("floor_log2(n)", "floor_log2(n)"),
        ("max((n), 2^(m))", "max(n, 2^m)"),
        ("2^[max((n), (m))]", "2^(max(n, m))"),
        ("(2)*[2^(n) + (-1)]", "2*(2^n - 1)"),
        ("2^2^(n)", "2^(2^n)"),
        ("2^(-n)", "2^(-n)"),
        ("2^infty", "2^(∞)"),
    ];
    for (text, readable) in cases {
        let e = expr(text);
        assert_eq!(e.to_readable(), readable, "{text}");
        assert_eq!(parse_bound(&e.to_text()).unwrap(), e, "{text}");
    }
    assert_eq!(
        expr("2^[floor_log2(n) + (1)] + (-1)").to_text(),
        "2^[floor_log2(n) + (1)] + (-1)"
    );
}

#[test]
fn malformed_powers_are_errors_with_a_column() {
    let e = parse_bound("(n) + 1^(n)").unwrap_err();
    assert!(e.message.contains("at least 2"), "{e}");
    assert_eq!(e.column, 7);
    assert!(parse_bound("2^").is_err());
    assert!(parse_bound("2(n)").is_err());
    assert!(parse_bound("floor_log2").is_err());
    assert!(parse_bound("[(n) + (1)").is_err());
    let deep = format!("{}(n){}", "[".repeat(5000), "]".repeat(5000));
    let e = parse_bound(&deep).unwrap_err();
    assert!(e.message.contains("nests deeper"), "{e}");
    let deep_powers = format!("{}(n)", "2^".repeat(5000));
    assert!(parse_bound(&deep_powers).is_err());
}

#[test]
fn evaluation_is_exact_in_big_integers() {
    let binary_tree = expr("2^(d) + (-1)");
    let villages = expr("(8/3)*4^(l) + (-8/3)");
    let chain = expr("(n)*2^(n)");
    let halving = expr("2^[floor_log2(n) + (1)] + (-1)");
    for k in [0u64, 1, 2, 3, 10, 63, 64, 65, 200, 1000] {
        let d = k as i64;
        assert_eq!(
            finite(at(&binary_tree, &[("d", d)])),
            Rat::from(two_to(k) - 1)
        );
        let four_to_l = two_to(2 * k);
        assert_eq!(
            finite(at(&villages, &[("l", d)])),
            Rat::from((four_to_l - 1) * 8 / 3)
        );
        assert_eq!(
            finite(at(&chain, &[("n", d)])),
            Rat::from(two_to(k) * Int::from(k))
        );
    }
    // 2^(⌊log2 n⌋ + 1) - 1: the nodes of a tree built by halving n, by direct search for the
    // highest power of 2 at most n (1 below n = 1: ⌊log2⌋ of anything up to 1 is 0).
    for n in -3i64..=300 {
        let mut highest = 1i64;
        while highest * 2 <= n {
            highest *= 2;
        }
        assert_eq!(
            finite(at(&halving, &[("n", n)])),
            Rat::from(2 * highest - 1),
            "n = {n}"
        );
    }
    // A negative exponent is an exact fraction; a rational exponent is rounded up.
    assert_eq!(
        finite(at(&expr("2^(-n)"), &[("n", 70)])),
        Rat::new(Int::from(1), two_to(70)).unwrap()
    );
    assert_eq!(finite(at(&expr("3^(1/2*n)"), &[("n", 5)])), Rat::from(27));
    assert_eq!(
        finite(at(&expr("floor_log2(1/3*n)"), &[("n", 100)])),
        Rat::from(5)
    );
    // ∞ absorbs products and powers.
    assert_eq!(at(&expr("(0)*infty"), &[]).unwrap(), Value::Infinite);
    assert_eq!(
        at(
            &expr("2^[cases(n >= 3 -> infty; otherwise -> (n))]"),
            &[("n", 3)]
        )
        .unwrap(),
        Value::Infinite
    );
}

#[test]
fn absurd_sizes_are_refused_at_once_naming_the_limit() {
    let started = Instant::now();
    for (text, n) in [
        ("2^(n)", 100_000_000i64),
        ("2^(n^3)", 1_000_000),
        ("2^(n)*2^(n)*2^(n)", 10_000_000),
        ("1000000000^(n)", 10_000_000),
        ("2^(-n)", 1_000_000_000_000),
    ] {
        match at(&expr(text), &[("n", n)]) {
            Err(e @ EvalError::TooLarge { .. }) => {
                assert!(e.to_string().contains("16777216 bits"), "{text}: {e}")
            }
            other => panic!("{text} at n = {n}: expected a size error, got {other:?}"),
        }
    }
    // Just below the limit it is computed.
    assert_eq!(
        finite(at(&expr("2^(n)"), &[("n", 1_000_000)])),
        Rat::from(two_to(1_000_000))
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn simplification_folds_constants_and_keeps_values() {
    let e = expr("(2)*(3)*2^(n)*[(1/2)*(n)]");
    let s = simplify(&e, &Guard::always());
    assert_eq!(s.to_readable(), "3*n*2^n");
    assert_eq!(
        simplify(&expr("2^(10) + floor_log2(1000)"), &Guard::always()).to_readable(),
        "1033"
    );
    assert_eq!(
        simplify(&expr("(0)*2^(n)"), &Guard::always()),
        BoundExpr::zero()
    );
    // A zero factor does not hide an ∞.
    assert_eq!(
        simplify(&expr("(0)*max((n), infty)"), &Guard::always()),
        BoundExpr::Inf
    );
    assert_eq!(simplify(&expr("2^infty"), &Guard::always()), BoundExpr::Inf);
    // A huge constant power stays a power.
    assert_eq!(
        simplify(&expr("2^(100000)"), &Guard::always()).to_readable(),
        "2^100000"
    );
    for text in [
        "(n + 2)*[2^(n) + (-1)] + cases(n >= 4 -> floor_log2(n)*(3); otherwise -> 2^(n))",
        "max(2^(n), (n)*(n)) + (1)",
        "(2)*3^[(n) + (-1)]*floor_log2(n + 7)",
    ] {
        let e = expr(text);
        let s = simplify(&e, &Guard::always());
        for n in -3..20 {
            assert_eq!(
                at(&e, &[("n", n)]),
                at(&s, &[("n", n)]),
                "{text} at n = {n}"
            );
        }
    }
}

/// `{ [i] : 0 <= i <= n + shift and a*i <= c*n + d }` or with `j` in `0 <= j <= i`.
fn polytope(
    two_vars: bool,
    shift: i64,
    (a, c, d): (i64, i64, i64),
) -> (String, ParametricPolytope) {
    let dims = if two_vars { "[i, j]" } else { "[i]" };
    let mut constraints = format!("0 <= i <= n + {shift} and {a}*i <= {c}*n + {d}");
    if two_vars {
        constraints.push_str(" and 0 <= j <= i");
    }
    let text = format!("[n] -> {{ {dims} : {constraints} }}");
    let set = parse_set(&text).unwrap();
    let part = &set.parts[0];
    let polytope =
        ParametricPolytope::of_part(set.space.params.clone(), set.space.dims.clone(), part);
    (text, polytope)
}

/// Expressions in `i` (and `j`) and `n` with powers, products and logarithms.
const EXPRESSIONS: [&str; 14] = [
    "2^(i)",
    "(i)*2^(i)",
    "(3)*2^[(i) + (n)] + (-1)",
    "4^(n - i)",
    "floor_log2(i*n + 1)",
    "2^[floor_log2(i) + (1)] + (-1)",
    "(i + 1)*floor_log2(n + 2)",
    "(2)*[2^(i) + (-1)]",
    "(-1)*2^(i)",
    "(i - 2)*2^(i)",
    "2^(i + j)*(j + 1) + (n)",
    "max(3^(j), (i)*2^(1/2*i)) + cases(i >= 2 -> 2^(i - 2); otherwise -> (5))",
    "cases(i >= 1 and i <= 3 -> 2^(i); otherwise -> (20))",
    "cases(i = j and i <= 2 -> (i); j >= 1 -> 2^(j); otherwise -> (7))",
];

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        rng_seed: proptest::test_runner::RngSeed::Fixed(1717),
        ..ProptestConfig::default()
    })]

    #[test]
    fn bounds_over_polytopes_are_never_below_the_enumerated_maximum(
        two_vars in any::<bool>(),
        shift in -1i64..=2,
        cut in (0i64..=2, 0i64..=2, 0i64..=3),
        which in 0usize..EXPRESSIONS.len(),
    ) {
        let text = EXPRESSIONS[which];
        prop_assume!(two_vars || !text.contains('j'));
        let e = expr(text);
        let (set_text, polytope) = polytope(two_vars, shift, cut);
        let bound = bound_expr_over(&e, &polytope).unwrap();
        prop_assert!(bound.params().iter().all(|p| p == "n"), "{}", bound.to_readable());
        for n in -1i64..=7 {
            let mut truth: Option<Rat> = None;
            for i in -2i64..=10 {
                for j in if two_vars { -2i64..=10 } else { 0..=0 } {
                    let inside = i >= 0 && i <= n + shift && cut.0 * i <= cut.1 * n + cut.2
                        && (!two_vars || (0 <= j && j <= i));
                    if !inside {
                        continue;
                    }
                    let value = finite(at(&e, &[("n", n), ("i", i), ("j", j)]));
                    truth = Some(truth.map_or(value.clone(), |t| t.max(value)));
                }
            }
            let Some(truth) = truth else { continue };
            let sound = match at(&bound, &[("n", n)]).unwrap() {
                Value::Infinite => true,
                Value::Finite(v) => v >= truth,
            };
            prop_assert!(sound, "{text} over {set_text}: bound {} below {truth} at n = {n}", bound.to_readable());
        }
    }
}

#[test]
fn monotone_forms_are_bounded_exactly_at_the_vertices() {
    let (_, triangle) = polytope(true, 0, (0, 0, 0));
    let exact = [
        ("2^(i)", "2^n"),
        ("(i)*2^(i)", "n*2^n"),
        ("(3)*2^[(i) + (j)] + (-1)", "3*2^(2*n) - 1"),
        ("floor_log2(i + j)", "floor_log2(2*n)"),
        ("(8/3)*4^(i) + (-8/3)", "8/3*4^n - 8/3"),
    ];
    for (text, bound) in exact {
        let found = bound_expr_over(&expr(text), &triangle).unwrap();
        // Where the triangle is empty (n < 0) the bound is 0, as for polynomials.
        let found = simplify(
            &found,
            &Guard::from_atoms(vec![membound_bernstein::Atom::ge(
                membound_polyhedra::Polynomial::var("n".to_string()),
            )]),
        );
        assert_eq!(found.to_readable(), bound, "{text}");
    }
    // A negative polynomial times a power is at most 0; of unproved sign, ∞.
    let (_, segment) = polytope(false, 0, (0, 0, 0));
    let negative = bound_expr_over(&expr("(-1)*2^(i)"), &segment).unwrap();
    assert_eq!(finite(at(&negative, &[("n", 5)])), Rat::zero());
    let unknown = bound_expr_over(&expr("(i - 2)*2^(i)"), &segment).unwrap();
    assert_eq!(at(&unknown, &[("n", 5)]).unwrap(), Value::Infinite);
}

#[test]
fn a_default_is_bounded_only_beyond_a_guard_of_several_atoms() {
    // Over 0 <= i <= n the default applies only where i >= 4: nowhere while n <= 3.
    let (_, segment) = polytope(false, 0, (0, 0, 0));
    let bound = bound_expr_over(
        &expr("cases(i >= 0 and i <= 3 -> (i); otherwise -> (20))"),
        &segment,
    )
    .unwrap();
    for (n, largest) in [(0, 0), (2, 2), (3, 3), (4, 20), (9, 20)] {
        assert_eq!(
            finite(at(&bound, &[("n", n)])),
            Rat::from(largest),
            "n = {n}"
        );
    }
}

/// Random expressions of every form, with sums and products of two or more items and no sum
/// directly in a sum (nor product in a product), which the text form reads back exactly.
fn any_expression() -> impl Strategy<Value = BoundExpr> {
    let leaf = prop_oneof![
        Just(expr("(n)")),
        Just(expr("(-1)")),
        Just(expr("(3/2*n^2 - m + 7)")),
        Just(expr("(2*floor((n)/3))")),
        Just(BoundExpr::Inf),
    ];
    leaf.prop_recursive(4, 40, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 2..4)
                .prop_map(|items| BoundExpr::Sum(items.into_iter().map(not_sum).collect())),
            proptest::collection::vec(inner.clone(), 2..4)
                .prop_map(|items| BoundExpr::Mul(items.into_iter().map(not_product).collect())),
            proptest::collection::vec(inner.clone(), 1..3).prop_map(BoundExpr::Max),
            (2u32..6, inner.clone()).prop_map(|(base, e)| BoundExpr::pow(base, e).unwrap()),
            inner.clone().prop_map(BoundExpr::log2),
            (inner.clone(), inner).prop_map(|(a, b)| {
                let text = format!(
                    "cases(n >= 2 and m <= n -> {}; otherwise -> {})",
                    a.to_text(),
                    b.to_text()
                );
                parse_bound(&text).unwrap()
            }),
        ]
    })
}

/// A sum item that is a sum would be read back flattened: keep its first item.
fn not_sum(e: BoundExpr) -> BoundExpr {
    match e {
        BoundExpr::Sum(mut items) => not_sum(items.remove(0)),
        other => other,
    }
}

fn not_product(e: BoundExpr) -> BoundExpr {
    match e {
        BoundExpr::Mul(mut items) => not_product(items.remove(0)),
        other => other,
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        rng_seed: proptest::test_runner::RngSeed::Fixed(2007),
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_text_form_reads_back_what_it_printed(e in any_expression()) {
        let text = e.to_text();
        let back = parse_bound(&text);
        prop_assert_eq!(back.as_ref(), Ok(&e), "{}", text);
        // The readable form is total too, and evaluation either gives a value or a clear error.
        let _ = e.to_readable();
        let _ = at(&e, &[("n", 4), ("m", 1)]);
    }
}

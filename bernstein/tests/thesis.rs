//! The worked examples of the thesis (App. C, Table 7.2, the memRq reduction of Fig. 7.1, the
//! Fig. 7.10 imprecision), with the digest's corrected values.

use std::collections::BTreeMap;

use membound_bernstein::{
    BoundExpr, Guard, ParametricPolytope, bound_expr_over, bound_text, expand, parse_bound,
    parse_point, simplify, upper_bound,
};
use membound_polyhedra::{Polynomial, Rat, Value, parse_piecewise, parse_set};

fn polytope(text: &str) -> ParametricPolytope {
    let set = parse_set(text).unwrap();
    let part = &set.parts[0];
    ParametricPolytope::new(
        set.space.params.clone(),
        set.space.dims.clone(),
        part.constraints.clone(),
    )
}

/// The polynomial of `[params] -> { [vars] -> poly }`, read by the isl parser.
fn poly(text: &str) -> Polynomial {
    let pw = parse_piecewise(text).unwrap();
    pw.pieces[0].qp.as_polynomial().unwrap().clone()
}

/// Sorted printed coefficient values of the single chamber.
fn coefficients(p: &Polynomial, set: &str) -> Vec<String> {
    let (_, chambers) = expand(p, &polytope(set)).unwrap();
    assert_eq!(chambers.len(), 1);
    let mut values: Vec<String> = chambers[0]
        .coefficients
        .iter()
        .map(|c| c.value.to_string())
        .collect();
    values.sort();
    values
}

fn value_at(expr: &BoundExpr, point: &str) -> Value {
    expr.eval(&parse_point(point).unwrap()).unwrap()
}

fn finite(text: &str) -> Value {
    Value::Finite(text.parse().unwrap())
}

#[test]
fn c1_c2_univariate_coefficients_and_bounds() {
    let p = poly("{ [x] -> x^3 - 5x^2 + 2x + 4 }");
    let (_, chambers) = expand(&p, &polytope("{ [x] : 0 <= x <= 1 }")).unwrap();
    let values: Vec<String> = chambers[0]
        .coefficients
        .iter()
        .map(|c| c.value.to_string())
        .collect();
    // α order (v0 = 0, v1 = 1) lists b_0 … b_3 from the vertex 1 down; either order is the
    // sequence [4, 14/3, 11/3, 2].
    let mut sequence = values.clone();
    if sequence[0] != "4" {
        sequence.reverse();
    }
    assert_eq!(sequence, ["4", "14/3", "11/3", "2"]);
    // The minimum coefficient 2 is sharp (p(1)); the maximum 14/3 is not, so the bound is
    // refined below it but stays above the true maximum, p(0.2137…) ≈ 4.2089.
    let bound = upper_bound(&p, &polytope("{ [x] : 0 <= x <= 1 }")).unwrap();
    let Value::Finite(value) = value_at(&bound, "") else {
        panic!("finite expected")
    };
    assert!(
        value <= Rat::new(14, 3).unwrap() && value < Rat::new(14, 3).unwrap(),
        "{value}"
    );
    let brute_max = (0..=1000)
        .map(|k| p.eval(&|_| Rat::new(k, 1000).unwrap()))
        .max()
        .unwrap();
    assert!(value >= brute_max, "{value} < {brute_max}");
}

#[test]
fn c3_triangle_coefficients_and_exact_bound() {
    let p = poly("[N] -> { [x1, x2] -> 1/2*x1^2 + 1/2*x1 + x2 }");
    let set = "[N] -> { [x1, x2] : 0 <= x2 <= x1 <= N }";
    let mut expected = vec![
        "0",
        "1/2*N^2 + 1/2*N",
        "1/2*N^2 + 3/2*N",
        "1/4*N",
        "3/4*N",
        "1/2*N^2 + N",
    ];
    expected.sort();
    assert_eq!(coefficients(&p, set), expected);
    // Both extremes are sharp (vertex values), so the bounds are exact: the maximum
    // coefficient is the value at the vertex (N, N), the minimum 0 at (0, 0).
    let (_, chambers) = expand(&p, &polytope(set)).unwrap();
    let at_ten = |c: &&membound_bernstein::expansion::Coefficient| c.value.eval(&|_| Rat::from(10));
    let largest = chambers[0].coefficients.iter().max_by_key(at_ten).unwrap();
    let smallest = chambers[0].coefficients.iter().min_by_key(at_ten).unwrap();
    assert!(largest.is_sharp() && smallest.is_sharp());
    assert_eq!(chambers[0].candidates().len(), 6);
    let bound = upper_bound(&p, &polytope(set)).unwrap();
    assert_eq!(
        bound.to_readable(),
        "cases(N >= 0 -> 1/2*N^2 + 3/2*N; otherwise -> 0)"
    );
}

#[test]
fn c3_domain_d_of_n_six_coefficients_pruned_to_n_squared_plus_one() {
    let p = poly("[n] -> { [i, j] -> -1/2*i^2 - 3/2*i - j - n^2 + 4n + 2*i*n }");
    let set =
        "[n] -> { [i, j] : 0 <= i <= 3n - 1 and 0 <= j <= n - 1 and 3n - 1 <= i + j <= 4n - 2 }";
    let mut expected = vec![
        "n^2 + 1",
        "n^2 - 1/4*n + 5/4",
        "n^2 - 3/4*n + 7/4",
        "1/2*n^2 + 1/2*n + 1",
        "1/2*n^2 + 3/2",
        "1/2*n^2 - 1/2*n + 2",
    ];
    expected.sort();
    assert_eq!(coefficients(&p, set), expected);
    let bound = upper_bound(&p, &polytope(set)).unwrap();
    assert_eq!(
        bound.to_readable(),
        "cases(n >= 1 -> n^2 + 1; otherwise -> 0)"
    );
}

#[test]
fn section_7_4_1_example_has_two_chambers_min_of_two_tops() {
    let bound =
        bound_text("[P1, P2] -> { [i, n] -> n : 1 <= i <= P1 + P2 and i <= 3P2 and n = i }")
            .unwrap();
    for (p1, p2) in [(1, 1), (5, 1), (0, 3), (-2, 4), (3, 0), (-5, -5)] {
        let expected = (p1 + p2).min(3 * p2);
        let expected = if expected >= 1 { expected } else { 0 };
        assert_eq!(
            value_at(&bound, &format!("P1={p1}, P2={p2}")),
            finite(&expected.to_string()),
            "P1={p1} P2={p2}"
        );
    }
}

/// rSize of the chains of Fig. 7.1 (size(T) = 1), Table 7.2 corrected.
fn rsize_table() -> BTreeMap<&'static str, BoundExpr> {
    BTreeMap::from([
        ("m0.1.m1.5.m3", bound_text("[mc] -> { [k, i, n] -> 1 + n : k = mc and 1 <= i <= k and n = i }").unwrap()),
        ("m0.2.m2.6.m3", bound_text("[mc] -> { [k2, n] -> 1 + n : k2 = 3mc and n = k2 }").unwrap()),
        ("m0.1.m1", bound_text("[mc] -> { [k] -> k + 2*(1/2*k^2 + 1/2*k) : k = mc }").unwrap()),
        ("m0.2.m2", bound_text("[mc] -> { [k2] -> 2*k2 : k2 = 3mc }").unwrap()),
        (
            "m0.1.m1.5.m3.10.m4",
            bound_text("[mc] -> { [k, i, n, j, v] -> 0 : mc >= 1 and k = mc and 1 <= i <= k and n = i and 1 <= j <= n and v = j }")
                .unwrap(),
        ),
        ("m0.2.m2.6.m3.10.m4", bound_text("[mc] -> { [k2, n, j, v] -> 0 : mc >= 1 and k2 = 3mc and n = k2 and 1 <= j <= n and v = j }").unwrap()),
    ])
}

#[test]
fn table_7_2_rsize_results() {
    let table = rsize_table();
    let readable: BTreeMap<&str, String> =
        table.iter().map(|(k, v)| (*k, v.to_readable())).collect();
    assert_eq!(
        readable["m0.1.m1.5.m3"],
        "cases(mc >= 1 -> mc + 1; otherwise -> 0)"
    );
    assert_eq!(readable["m0.2.m2.6.m3"], "3*mc + 1");
    assert_eq!(readable["m0.1.m1"], "mc^2 + 2*mc");
    assert_eq!(readable["m0.2.m2"], "6*mc");
    assert_eq!(readable["m0.1.m1.5.m3.10.m4"], "0");
    assert_eq!(readable["m0.2.m2.6.m3.10.m4"], "0");
}

#[test]
fn running_example_memrq_reduces_to_cases_split_at_six() {
    let r = rsize_table();
    let root = BoundExpr::zero(); // rSize[m0] = memCaptured(m0) = 0
    let chain = |names: [&str; 3]| BoundExpr::Sum(names.iter().map(|n| r[n].clone()).collect());
    let tree = BoundExpr::Sum(vec![
        root,
        BoundExpr::Max(vec![
            chain(["m0.1.m1", "m0.1.m1.5.m3", "m0.1.m1.5.m3.10.m4"]),
            chain(["m0.2.m2", "m0.2.m2.6.m3", "m0.2.m2.6.m3.10.m4"]),
        ]),
    ]);
    let mc_at_least_one: Guard = Guard::from_atoms(vec![membound_bernstein::Atom::ge(
        Polynomial::var("mc".to_string()) - Polynomial::one(),
    )]);
    let reduced = simplify(&tree, &mc_at_least_one);
    assert_eq!(
        reduced.to_readable(),
        "3*mc + 1 + cases(mc <= 6 -> 6*mc; otherwise -> mc^2)"
    );
    assert!(
        matches!(&reduced, BoundExpr::Sum(items) if matches!(items[1], BoundExpr::Cases { .. }))
    );
    assert_eq!(value_at(&reduced, "mc=3"), finite("28"));
    assert_eq!(value_at(&reduced, "mc=7"), finite("71"));
    assert_eq!(value_at(&reduced, "mc=6"), finite("55"));
    // Unreduced and reduced trees agree on the domain.
    for mc in 1..40 {
        let point = format!("mc={mc}");
        assert_eq!(
            value_at(&reduced, &point),
            value_at(&tree, &point),
            "{point}"
        );
    }
}

#[test]
fn fig_7_10_sum_of_region_maxima_is_10_plus_2n() {
    let m2 = bound_text("[N] -> { [h, k] -> 11 - k : 1 <= h <= N and N <= 10 and k = h }").unwrap();
    let m3 = bound_text("[N] -> { [h, k, j, c] -> 2c : 1 <= h <= N and N <= 10 and k = h and 1 <= j <= k and c = j }").unwrap();
    let memrq = simplify(
        &BoundExpr::Sum(vec![BoundExpr::zero(), m2, m3]),
        &Guard::always(),
    );
    for n in 1..=10 {
        // 10 + 2N, against a true peak of 11 + N: the documented imprecision.
        assert_eq!(
            value_at(&memrq, &format!("N={n}")),
            finite(&(10 + 2 * n).to_string())
        );
    }
}

/// rSize of `m0.1.m1.5.m3` when memCaptured(m3) comes as the analyzer writes it, a `cases` of
/// the count's chamber, plus a sum with a term that does not depend on the variable.
#[test]
fn bound_of_a_cases_expression_over_a_binding_polytope() {
    let captured = parse_bound("cases(n >= 0 -> (n + 1); otherwise -> (0))").unwrap();
    let binding = polytope("[mc] -> { [n] : 1 <= n <= mc }");
    let bound = bound_expr_over(&captured, &binding).unwrap();
    for mc in -2..9 {
        let expected = if mc >= 1 { mc + 1 } else { 0 };
        assert_eq!(
            value_at(&bound, &format!("mc={mc}")),
            finite(&expected.to_string())
        );
    }
    // A sum is bounded item by item; here both items peak at n = mc, so nothing is lost.
    let sum = BoundExpr::Sum(vec![captured, parse_bound("(2*n)").unwrap()]);
    let bound = bound_expr_over(&sum, &binding).unwrap();
    assert_eq!(value_at(&bound, "mc=7"), finite("22"));
    // ∞ stays ∞ where the binding holds, and is 0 where the chain cannot run.
    let bound = bound_expr_over(&BoundExpr::Inf, &binding).unwrap();
    assert_eq!(value_at(&bound, "mc=3"), Value::Infinite);
    assert_eq!(value_at(&bound, "mc=0"), finite("0"));
}

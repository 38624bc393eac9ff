//! Weighted sums on the shapes the analysis produces (a callee's count summed over a call
//! site's invariant): loop nests (triangular, strided, with `floor`), weights like `x^2`,
//! `x*y + n`, periodic ones in dims and in parameters, and a weight in a dim bound to an affine
//! expression of the others (a call's argument, `x = 2i + n`). Each equals brute force at every
//! parameter value of a box; plus the API's edges (unknown names, unbounded sets, zero
//! weights, pieces over reordered names).

mod common;

use std::collections::BTreeMap;

use common::brute::brute_sum;
use membound_polyhedra::{
    Count, CountError, Int, QuasiPolynomial, Rat, Value, count, parse_piecewise, parse_set, sum,
    sum_piecewise, sum_text,
};

/// Every dim of these sets stays within this box at the parameter values tried.
const BOX: i64 = 40;

fn at(params: &[String], values: &[i64]) -> BTreeMap<String, Int> {
    params
        .iter()
        .cloned()
        .zip(values.iter().map(|&v| Int::from(v)))
        .collect()
}

/// Every parameter point with coordinates in `-1..=6`.
fn grid(params: usize) -> Vec<Vec<i64>> {
    (0..params).fold(vec![Vec::new()], |points, _| {
        points
            .iter()
            .flat_map(|p| (-1..=6).map(move |v| [p.clone(), vec![v]].concat()))
            .collect()
    })
}

/// `sum_text(weighted)` equals the brute-force sum of its one piece at every grid point.
fn agrees_with_brute_force(weighted: &str) {
    let weight = parse_piecewise(weighted).expect("parses");
    assert_eq!(weight.pieces.len(), 1, "{weighted}");
    let set = &weight.pieces[0].domain;
    let summed = sum_text(weighted).unwrap_or_else(|e| panic!("{weighted}: {e}"));
    let params = &weight.space.params;
    for point in grid(params.len()) {
        let ours = summed.eval(&at(params, &point)).expect("evaluates");
        let expected = brute_sum(set, &point, BOX, &weight.pieces[0].qp);
        assert_eq!(ours, Value::Finite(expected), "{weighted} at {point:?}");
    }
}

#[test]
fn loop_nests_with_polynomial_weights() {
    for weighted in [
        "[n] -> { [i, j] -> j^2 : 0 <= i <= n and 0 <= j <= i }",
        "[n, m] -> { [i, j] -> i*j + n : 0 <= i < n and i <= j <= m }",
        "[n] -> { [i, j, k] -> i*k - 2*j + 3 : 0 <= i <= n and 0 <= j <= i and j <= k <= n }",
        "[n] -> { [i] -> 1/2*i^2 - 1/3*n : 1 <= i <= 2n - 3 }",
    ] {
        agrees_with_brute_force(weighted);
    }
}

#[test]
fn strided_and_floored_nests() {
    for weighted in [
        "[n] -> { [i] -> i*n : 0 <= i <= n and exists t : i = 3t + 1 }",
        "[n] -> { [i, j] -> i*j + n : 0 <= i <= n and 0 <= j <= floor(i/2) }",
        "[n, m] -> { [i, j] -> j^2 : 0 <= i <= n and 0 <= 3j <= i + m and i mod 2 = 0 }",
        "[n] -> { [i, j] -> i + j : exists (t : 2t >= i + 1 and 3t <= i + n and 0 <= i <= n and 0 <= j <= t) }",
    ] {
        agrees_with_brute_force(weighted);
    }
}

#[test]
fn periodic_weights_in_dims_and_in_parameters() {
    for weighted in [
        // [1, 0]_i: 1 on even i.
        "[n] -> { [i] -> 1 - i + 2*floor(i/2) : 0 <= i <= n }",
        "[n] -> { [i, j] -> floor((i + j)/3)*j : 0 <= i <= n and 0 <= j <= i }",
        "[n] -> { [i] -> floor(n/2)*i + (n mod 3) : 0 <= i <= n }",
        "[n, m] -> { [i] -> floor((i + n)/2) + (m mod 2)*i : 0 <= i <= n + m }",
        "[n] -> { [i, j] -> (i mod 2)*(j mod 3) + floor((n + i)/4) : 0 <= i <= n and 0 <= j < n }",
    ] {
        agrees_with_brute_force(weighted);
    }
}

#[test]
fn weights_in_a_dim_bound_to_an_argument() {
    for weighted in [
        "[n] -> { [i, x] -> x^2 : 0 <= i <= n and x = 2i + n }",
        "[n, m] -> { [i, x] -> x^2 + floor(x/2) : 0 <= i < n and x = 2i + m }",
        "[n] -> { [i, j, x, y] -> x*y + n : 0 <= i <= n and 0 <= j <= i and x = i - j and y = 3j + 1 }",
        "[n] -> { [i, x] -> (x mod 3)*x : 0 <= i <= n and 2x = i + n and i mod 2 = n mod 2 }",
    ] {
        agrees_with_brute_force(weighted);
    }
}

#[test]
fn unions_sum_each_point_once() {
    for weighted in [
        "[n] -> { [i, j] -> i*j + 1 : (0 <= i <= n and 0 <= j <= i) or (0 <= j <= n and 0 <= i <= j and i mod 2 = 0) }",
        "[n] -> { [i] -> (i mod 2) + i : (0 <= i <= n) or (n <= i <= 2n) or (exists t : i = 3t and 0 <= i <= 3n) }",
    ] {
        agrees_with_brute_force(weighted);
    }
}

#[test]
fn counting_is_summing_one() {
    let set = parse_set("[n] -> { [i, j] : 0 <= i <= n and 0 <= j <= i and (i + j) mod 3 = 0 }")
        .expect("parses");
    assert_eq!(
        count(&set).expect("counts"),
        sum(&set, &QuasiPolynomial::constant(1)).expect("sums")
    );
}

#[test]
fn a_weight_over_an_unknown_name_is_an_error() {
    let set = parse_set("[n] -> { [i] : 0 <= i <= n }").expect("parses");
    let weight = QuasiPolynomial::var("i").mul(&QuasiPolynomial::var("k"));
    let error = sum(&set, &weight).expect_err("k is neither a dim nor a parameter");
    assert_eq!(error, CountError::UnknownVariable("k".to_string()));
    assert_eq!(
        error.to_string(),
        "the weight mentions 'k', which is neither a dim nor a parameter of the set"
    );
    let pieces = parse_piecewise("[n, k] -> { [i] -> i : 0 <= i <= k }").expect("parses");
    assert_eq!(
        sum_piecewise(&set, &pieces).expect_err("k is not the set's"),
        CountError::UnknownVariable("k".to_string())
    );
}

#[test]
fn unbounded_sets_sum_to_infinity_unless_the_weight_vanishes_there() {
    let half_line = parse_set("[n] -> { [i] : i >= n }").expect("parses");
    assert_eq!(
        sum(&half_line, &QuasiPolynomial::var("i")).expect("sums"),
        Count::Infinite
    );
    assert_eq!(
        sum(&half_line, &QuasiPolynomial::zero())
            .expect("sums")
            .eval(&at(&["n".to_string()], &[3])),
        Ok(Value::Finite(Rat::zero()))
    );
    // The weight is 1 on odd i only, and the set holds even i only.
    let evens = parse_set("[n] -> { [i] : i >= n and i mod 2 = 0 }").expect("parses");
    let odd = QuasiPolynomial::periodic("i", vec![Rat::zero(), Rat::one()]);
    assert_eq!(
        sum(&evens, &odd)
            .expect("sums")
            .eval(&at(&["n".to_string()], &[3])),
        Ok(Value::Finite(Rat::zero()))
    );
    assert_eq!(
        sum_text("[n] -> { [i, j] -> j : 0 <= i }"),
        Ok(Count::Infinite)
    );
}

#[test]
fn pieces_over_reordered_names_and_overlapping_pieces() {
    let set = parse_set("[n, m] -> { [i, j] : 0 <= i <= n and 0 <= j <= m }").expect("parses");
    // The weight's space lists the parameters and dims in another order.
    let weight = parse_piecewise("[m, n] -> { [j, i] -> i*j + m : i <= j; [j, i] -> 1 : i >= 1 }")
        .expect("parses");
    let summed = sum_piecewise(&set, &weight).expect("sums");
    for n in -1..=5_i64 {
        for m in -1..=5_i64 {
            let mut expected = 0;
            for i in 0..=n {
                for j in 0..=m {
                    expected += if i <= j { i * j + m } else { 0 } + i64::from(i >= 1);
                }
            }
            let point = at(&["n".to_string(), "m".to_string()], &[n, m]);
            assert_eq!(
                summed.eval(&point),
                Ok(Value::Finite(Rat::from(expected))),
                "n = {n}, m = {m}"
            );
        }
    }
}

//! Every counting example of the thesis's chapter 2 digest (corrected values where the digest
//! marks a printed error), checked three ways: the quasi-polynomial of the main chamber equals
//! the thesis formula, the count equals the formula at every small parameter value, and both
//! equal brute-force enumeration.

mod common;

use std::collections::BTreeMap;

use common::brute::brute_count;
use membound_polyhedra::{Count, Int, QuasiPolynomial, Rat, Value, count, parse_set};

/// A periodic coefficient `[a0, a1, …]` and the power of the parameter it multiplies.
type Term<'a> = (&'a [&'a str], u32);

/// `Σ coefficient_d · param^d`, each coefficient a periodic number `[a0, a1, …]_param`.
fn thesis_qp(param: &str, terms: &[Term]) -> QuasiPolynomial {
    terms
        .iter()
        .fold(QuasiPolynomial::zero(), |acc, (values, degree)| {
            let values: Vec<Rat> = values
                .iter()
                .map(|v| v.parse().expect("a rational"))
                .collect();
            let coefficient = QuasiPolynomial::periodic(param, values);
            let power = (0..*degree).fold(QuasiPolynomial::constant(1), |p, _| {
                p.mul(&QuasiPolynomial::var(param))
            });
            acc.add(&coefficient.mul(&power))
        })
}

fn at(param: &str, value: i64) -> BTreeMap<String, Int> {
    BTreeMap::from([(param.to_string(), Int::from(value))])
}

/// The sum of the quasi-polynomials of the pieces containing `point`.
fn chamber_qp(count: &Count, point: &BTreeMap<String, Int>) -> QuasiPolynomial {
    let Count::Finite(pw) = count else {
        panic!("the count is infinite")
    };
    let params: Vec<Int> = pw.space.params.iter().map(|p| point[p].clone()).collect();
    pw.pieces
        .iter()
        .filter(|piece| {
            piece
                .domain
                .contains(&params, &[])
                .expect("domains are decidable")
        })
        .fold(QuasiPolynomial::zero(), |acc, piece| acc.add(&piece.qp))
}

/// Checks the set against the thesis formula (valid for `param >= 1`) and brute force.
fn check(text: &str, param: &str, expected: &QuasiPolynomial) {
    let set = parse_set(text).expect("the example parses");
    let counted = count(&set).expect("the example counts");
    assert_eq!(
        &chamber_qp(&counted, &at(param, 60)),
        expected,
        "main chamber of {text}\n{}",
        counted.to_readable()
    );
    for value in 1..=9 {
        let ours = counted.eval(&at(param, value)).expect("evaluates");
        let formula = expected.eval(&|_| Rat::from(value));
        assert_eq!(
            ours,
            Value::Finite(formula.clone()),
            "{text} at {param}={value}"
        );
        let brute = brute_count(&set, &[value], 64);
        assert_eq!(
            formula,
            Rat::from(brute as i64),
            "brute force of {text} at {param}={value}"
        );
    }
}

const I1: &str = "k = mc and 1 <= i <= k and n = i";

#[test]
fn table_2_1_counts() {
    let rows: &[(&str, &[Term])] = &[
        ("[mc] -> { [k] : k = mc }", &[(&["1"], 0)]),
        (&format!("[mc] -> {{ [k, i, n] : {I1} }}"), &[(&["1"], 1)]),
        (
            &format!("[mc] -> {{ [k, i, n, j] : {I1} and 1 <= j <= n and j mod 3 = 0 }}"),
            &[(&["1/6"], 2), (&["-1/6"], 1), (&["0", "0", "-1/3"], 0)],
        ),
        (
            &format!("[mc] -> {{ [k, i, n, j] : {I1} and 1 <= j <= n and j mod 3 > 0 }}"),
            &[(&["1/3"], 2), (&["2/3"], 1), (&["0", "0", "1/3"], 0)],
        ),
        (
            &format!("[mc] -> {{ [k, i, n, j] : {I1} and 1 <= j <= n }}"),
            &[(&["1/2"], 2), (&["1/2"], 1)],
        ),
        ("[mc] -> { [n] : n = 2mc }", &[(&["1"], 0)]),
        (
            "[mc] -> { [n, j] : n = 2mc and 1 <= j <= n and j mod 3 = 0 }",
            &[(&["2/3"], 1), (&["0", "-2/3", "-1/3"], 0)],
        ),
        (
            "[mc] -> { [n, j] : n = 2mc and 1 <= j <= n and j mod 3 > 0 }",
            &[(&["4/3"], 1), (&["0", "2/3", "1/3"], 0)],
        ),
        (
            "[mc] -> { [n, j] : n = 2mc and 1 <= j <= n }",
            &[(&["2"], 1)],
        ),
    ];
    for (text, terms) in rows {
        check(text, "mc", &thesis_qp("mc", terms));
    }
}

#[test]
fn i1_and_i2_of_section_2() {
    let i2 = parse_set(&format!(
        "[mc] -> {{ [k, i, n, j] : {I1} and 1 <= j <= i and j mod 3 = 0 }}"
    ))
    .unwrap();
    let counted = count(&i2).unwrap();
    let values: Vec<Value> = (1..=6)
        .map(|mc| counted.eval(&at("mc", mc)).unwrap())
        .collect();
    let expected: Vec<Value> = [0, 0, 1, 2, 3, 5]
        .iter()
        .map(|&v| Value::Finite(Rat::from(v)))
        .collect();
    assert_eq!(values, expected);
}

#[test]
fn table_2_2_array_sites_with_the_corrected_row() {
    let rows: &[(&str, &[Term])] = &[
        (
            "[mc] -> { [k, h] : k = mc and 1 <= h <= 9 }",
            &[(&["9"], 0)],
        ),
        (
            &format!("[mc] -> {{ [k, i, n, h] : {I1} and 1 <= h <= n }}"),
            &[(&["1/2"], 2), (&["1/2"], 1)],
        ),
        (
            &format!(
                "[mc] -> {{ [k, i, n, j, h] : {I1} and 1 <= j <= n and j mod 3 = 0 and 1 <= h <= 2j + 1 }}"
            ),
            &[
                (&["1/9"], 3),
                (&["1/2"], 2),
                (&["-1/6", "-1/6", "-5/6"], 1),
                (&["0", "-4/9", "-11/9"], 0),
            ],
        ),
        (
            &format!("[mc] -> {{ [k, i, n, j, h] : {I1} and 1 <= j <= n and 1 <= h <= 4 }}"),
            &[(&["2"], 2), (&["2"], 1)],
        ),
        (
            "[mc] -> { [n, h] : n = 2mc and 1 <= h <= n }",
            &[(&["2"], 1)],
        ),
        (
            // Printed as 4/3 mc^2 + [2, -2/3, 2/3]_mc mc + [0, -2/3, -2/3]_mc, which drops the
            // +1 of j*2+1; the digest's corrected value:
            "[mc] -> { [n, j, h] : n = 2mc and 1 <= j <= n and j mod 3 = 0 and 1 <= h <= 2j + 1 }",
            &[
                (&["4/3"], 2),
                (&["8/3", "0", "4/3"], 1),
                (&["0", "-4/3", "-1"], 0),
            ],
        ),
        (
            "[mc] -> { [n, j, h] : n = 2mc and 1 <= j <= n and 1 <= h <= 4 }",
            &[(&["8"], 1)],
        ),
    ];
    for (text, terms) in rows {
        check(text, "mc", &thesis_qp("mc", terms));
    }
}

#[test]
fn array_dim_blocks_of_five() {
    // 0 <= it < s, len = it, len mod 5 = 0, how = 5, plus the array dimension 1 <= h <= how.
    let visits =
        "[s] -> { [it, len, how] : 0 <= it < s and len = it and len mod 5 = 0 and how = 5 }";
    check(
        visits,
        "s",
        &thesis_qp(
            "s",
            &[(&["1/5"], 1), (&["0", "4/5", "3/5", "2/5", "1/5"], 0)],
        ),
    );
    let cells = "[s] -> { [it, len, how, h] : 0 <= it < s and len = it and len mod 5 = 0 and how = 5 and 1 <= h <= how }";
    check(
        cells,
        "s",
        &thesis_qp("s", &[(&["1"], 1), (&["0", "4", "3", "2", "1"], 0)]),
    );
}

#[test]
fn readable_form_uses_the_thesis_notation() {
    let set = parse_set(&format!(
        "[mc] -> {{ [k, i, n, j] : {I1} and 1 <= j <= n and j mod 3 = 0 }}"
    ))
    .unwrap();
    let text = count(&set).unwrap().to_readable();
    assert!(
        text.contains("1/6*mc^2 - 1/6*mc + [0, 0, -1/3]_mc"),
        "{text}"
    );
}

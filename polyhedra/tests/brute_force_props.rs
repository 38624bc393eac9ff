//! Differential property test: on random parametric polytopes (up to 4 variables and 2
//! parameters, small coefficients, with and without mod constraints and unions) the count
//! equals brute-force enumeration at sampled parameter values.

mod common;

use std::collections::BTreeMap;

use common::brute::brute_count;
use membound_polyhedra::{Int, Rat, Value, count, parse_set};
use proptest::prelude::*;

const VARS: [&str; 4] = ["i", "j", "k", "l"];
const PARAMS: [&str; 2] = ["n", "m"];
/// Every variable stays in [-BOX, BOX] (the box is part of each set), so enumeration is exact.
const BOX: i64 = 6;

fn linear(coeffs: &[i64], names: &[&str], constant: i64) -> String {
    let mut text = String::new();
    for (c, name) in coeffs.iter().zip(names) {
        if *c != 0 {
            text.push_str(&format!(" + {c}*{name}"));
        }
    }
    format!("{}{text}", constant).replace("+ -", "- ")
}

/// One conjunction: a box per variable, a triangular loop bound on each inner variable, one
/// random constraint over everything, and maybe a mod constraint.
fn conjunction(dims: usize, params: usize) -> impl Strategy<Value = String> {
    let bounds = proptest::collection::vec((-1i64..=1, -2i64..=2, 0usize..2), dims);
    let extra = (
        proptest::collection::vec(-1i64..=1, dims),
        proptest::collection::vec(-2i64..=2, params),
        -3i64..=6,
    );
    let modular = proptest::option::of((0..dims, 2i64..=3, 0i64..3));
    (bounds, extra, modular).prop_map(
        move |(bounds, (var_coeffs, param_coeffs, constant), modular)| {
            let coeffs = [var_coeffs, param_coeffs].concat();
            let mut parts = Vec::new();
            for (index, (outer, shift, param)) in bounds.iter().enumerate() {
                let var = VARS[index];
                parts.push(format!("-{BOX} <= {var} <= {BOX}"));
                parts.push(format!("{var} <= {} + {shift}", PARAMS[param % params]));
                if index > 0 && *outer != 0 {
                    parts.push(format!(
                        "{var} >= {}*{} + {}",
                        outer,
                        VARS[index - 1],
                        shift - 1
                    ));
                }
            }
            let names: Vec<&str> = VARS[..dims]
                .iter()
                .chain(&PARAMS[..params])
                .copied()
                .collect();
            parts.push(format!("{} >= 0", linear(&coeffs, &names, constant)));
            if let Some((var, modulus, residue)) = modular {
                parts.push(format!(
                    "{} mod {modulus} = {}",
                    VARS[var],
                    residue % modulus
                ));
            }
            parts.join(" and ")
        },
    )
}

fn random_set() -> impl Strategy<Value = (String, usize)> {
    (1usize..=4, 1usize..=2).prop_flat_map(|(dims, params)| {
        let union = proptest::option::weighted(0.3, conjunction(dims, params));
        (conjunction(dims, params), union).prop_map(move |(first, second)| {
            let body = match second {
                Some(second) => format!("({first}) or ({second})"),
                None => first,
            };
            let text = format!(
                "[{}] -> {{ [{}] : {body} }}",
                PARAMS[..params].join(", "),
                VARS[..dims].join(", ")
            );
            (text, params)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn count_equals_enumeration((text, params) in random_set(), values in proptest::collection::vec(-1i64..=5, 2)) {
        let set = parse_set(&text).expect("generated sets parse");
        let counted = count(&set).expect("generated sets count");
        let point: BTreeMap<String, Int> =
            PARAMS[..params].iter().zip(&values).map(|(p, v)| (p.to_string(), Int::from(*v))).collect();
        let ours = counted.eval(&point).expect("evaluates");
        let brute = brute_count(&set, &values[..params], BOX);
        prop_assert_eq!(ours, Value::Finite(Rat::from(brute as i64)), "{}", text);
    }
}

//! Soundness property: for random polynomials of degree up to 3 over random parametric
//! polytopes, the bound is never below the brute-force maximum over the integer points, at
//! sampled integer parameter values.

use std::collections::BTreeMap;

use membound_bernstein::bound_text;
use membound_polyhedra::{Int, PiecewiseQuasiPolynomial, Rat, Value, parse_piecewise};
use proptest::prelude::*;

/// Monomials in the set variables `i`, `j` (parameters may multiply them), total degree <= 3.
const MONOMIALS: [&str; 11] = [
    "1", "i", "j", "i^2", "i*j", "j^2", "i^3", "i^2*j", "n*i", "n*j", "m*i",
];

#[derive(Debug, Clone)]
struct Problem {
    two_vars: bool,
    two_params: bool,
    coeffs: Vec<i64>,
    upper_shift: i64,
    extra: (i64, i64, i64, i64),
}

impl Problem {
    fn params(&self) -> Vec<&'static str> {
        if self.two_params {
            vec!["n", "m"]
        } else {
            vec!["n"]
        }
    }
    fn vars(&self) -> Vec<&'static str> {
        if self.two_vars {
            vec!["i", "j"]
        } else {
            vec!["i"]
        }
    }
    fn uses(&self, monomial: &str) -> bool {
        (self.two_vars || !monomial.contains('j')) && (self.two_params || !monomial.contains('m'))
    }
    fn isl(&self) -> String {
        let terms: Vec<String> = MONOMIALS
            .iter()
            .zip(&self.coeffs)
            .filter(|(m, c)| **c != 0 && self.uses(m))
            .map(|(m, c)| format!("({c})*{m}"))
            .collect();
        let poly = if terms.is_empty() {
            "0".to_string()
        } else {
            terms.join(" + ")
        };
        let mut constraints = vec![format!("0 <= i <= n + {}", self.upper_shift)];
        if self.two_vars {
            constraints.push("0 <= j <= i".to_string());
            if self.two_params {
                constraints.push("j <= m".to_string());
            }
        }
        let (a, b, c, d) = self.extra;
        let left = if self.two_vars {
            format!("{a}*i + {b}*j")
        } else {
            format!("{a}*i")
        };
        constraints.push(format!("{left} <= {c}*n + {d}"));
        let vars = self.vars().join(", ");
        format!(
            "[{}] -> {{ [{vars}] -> {poly} : {} }}",
            self.params().join(", "),
            constraints.join(" and ")
        )
    }
}

fn problem() -> impl Strategy<Value = Problem> {
    (
        any::<bool>(),
        any::<bool>(),
        proptest::collection::vec(-3i64..=3, MONOMIALS.len()),
        -1i64..=2,
        (-2i64..=2, -2i64..=2, 0i64..=2, -2i64..=3),
    )
        .prop_map(
            |(two_vars, two_params, coeffs, upper_shift, extra)| Problem {
                two_vars,
                two_params,
                coeffs,
                upper_shift,
                extra,
            },
        )
}

/// The largest value of the polynomial over the integer points of the set at `params`, by
/// enumeration (`None` when there is none). The sets lie in `0 <= i <= n + 2 <= 8`.
fn brute_force_max(pw: &PiecewiseQuasiPolynomial, params: &BTreeMap<String, Int>) -> Option<Rat> {
    let piece = &pw.pieces[0];
    let param_values: Vec<Int> = pw.space.params.iter().map(|p| params[p].clone()).collect();
    let range = -2i64..=10;
    let points: Vec<Vec<i64>> = if pw.space.dims.len() == 2 {
        range
            .clone()
            .flat_map(|i| range.clone().map(move |j| vec![i, j]))
            .collect()
    } else {
        range.map(|i| vec![i]).collect()
    };
    points
        .into_iter()
        .filter(|x| {
            let dims: Vec<Int> = x.iter().map(|&v| Int::from(v)).collect();
            piece.domain.contains(&param_values, &dims).unwrap()
        })
        .map(|x| {
            let value = |name: &str| match pw.space.dims.iter().position(|d| d == name) {
                Some(k) => Rat::from(x[k]),
                None => Rat::from(params[name].clone()),
            };
            piece.qp.eval(&value)
        })
        .max()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn bound_is_never_below_the_integer_maximum(problem in problem()) {
        let text = problem.isl();
        let bound = bound_text(&text).unwrap();
        let pw = parse_piecewise(&text).unwrap();
        let m_values: &[i64] = if problem.two_params { &[-1, 0, 2, 5] } else { &[0] };
        for n in -1i64..=6 {
            for &m in m_values {
                let params: BTreeMap<String, Int> =
                    BTreeMap::from([("n".to_string(), Int::from(n)), ("m".to_string(), Int::from(m))]);
                let Some(truth) = brute_force_max(&pw, &params) else { continue };
                let point: BTreeMap<String, Rat> = params.iter().map(|(k, v)| (k.clone(), Rat::from(v.clone()))).collect();
                let value = bound.eval(&point).unwrap();
                let sound = match &value {
                    Value::Infinite => true,
                    Value::Finite(v) => *v >= truth,
                };
                prop_assert!(sound, "{text}\nbound {} = {value} < {truth} at n={n} m={m}", bound.to_readable());
            }
        }
    }
}

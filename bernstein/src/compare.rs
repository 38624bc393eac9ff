//! Sign tests on a parameter domain: is a polynomial non-negative at every integer point?
//!
//! The tests of thesis App. C.3, cheapest first: a constant; an affine form (exact emptiness of
//! `domain ∧ form <= -1`); a Taylor expansion about the domain's lower bounds (all shifted
//! coefficients non-negative); one parameter (exact integer sign runs from Sturm sequences); a
//! bounded domain (all Bernstein coefficients over its vertices non-negative, elevating the
//! degree a little). Each test only ever answers "yes" when it is proved; "no" means "not
//! proved".

use std::collections::BTreeMap;

use membound_polyhedra::{Polynomial, Rat, Relation};

use crate::expansion::bernstein_coefficients;
use crate::guard::{Atom, ParamDomain};
use crate::univariate::UnivariatePolynomial;

/// How many degrees the bounded-domain test may elevate.
const MAX_ELEVATION: u32 = 2;

/// True when `poly >= 0` is proved at every integer point of `domain`.
pub fn nonnegative_on(poly: &Polynomial, domain: &ParamDomain) -> bool {
    if let Some(value) = poly.as_constant() {
        return !value.is_negative();
    }
    if has_negative_sample(poly, domain) {
        return false;
    }
    if poly.degree() <= 1 {
        return domain.implies(&Atom {
            expr: poly.clone(),
            rel: Relation::Ge,
        });
    }
    taylor_at_lower_bounds(poly, domain)
        || univariate_sturm(poly, domain)
        || bernstein_on_bounded(poly, domain)
}

/// True when `a >= b` is proved at every integer point of `domain`.
pub fn at_least(a: &Polynomial, b: &Polynomial, domain: &ParamDomain) -> bool {
    nonnegative_on(&(a - b), domain)
}

/// A quick, exact refutation at the domain's sample points.
fn has_negative_sample(poly: &Polynomial, domain: &ParamDomain) -> bool {
    domain
        .sample_points()
        .iter()
        .any(|point| value_at(poly, point).is_negative())
}

pub fn value_at(poly: &Polynomial, point: &BTreeMap<String, Rat>) -> Rat {
    poly.eval(&|v| point.get(v).cloned().unwrap_or_default())
}

/// Shifts every parameter to its lower bound `L` (`p = L + t`, `t >= 0`): non-negative
/// coefficients prove non-negativity (sufficient, not necessary).
fn taylor_at_lower_bounds(poly: &Polynomial, domain: &ParamDomain) -> bool {
    let mut shifted = poly.clone();
    for var in poly.variables() {
        let Some(lower) = domain.integer_interval(&var).0 else {
            return false;
        };
        let moved = Polynomial::var(var.clone()) + Polynomial::constant(Rat::from(lower));
        shifted = shifted.substitute(&var, &moved);
    }
    shifted.terms().all(|(_, c)| !c.is_negative())
}

/// One parameter: the exact integer sign runs over the parameter's range in the domain.
fn univariate_sturm(poly: &Polynomial, domain: &ParamDomain) -> bool {
    let vars = poly.variables();
    let [var] = vars.as_slice() else { return false };
    let Some(univariate) = UnivariatePolynomial::from_polynomial(poly, var) else {
        return false;
    };
    let (from, to) = domain.integer_interval(var);
    univariate
        .integer_sign_runs(from, to)
        .iter()
        .all(|run| run.sign >= 0)
}

/// A bounded domain: Bernstein coefficients over its (constant) vertices.
fn bernstein_on_bounded(poly: &Polynomial, domain: &ParamDomain) -> bool {
    let Some(vertices) = domain.vertices_if_bounded() else {
        return false;
    };
    let generators: Vec<Vec<Polynomial>> = vertices
        .iter()
        .map(|v| v.iter().map(|x| Polynomial::constant(x.clone())).collect())
        .collect();
    let params = domain.params();
    let degree = crate::expansion::degree_in(poly, params);
    let count = crate::expansion::coefficient_count(generators.len(), degree + MAX_ELEVATION);
    if count > crate::maximize::DEFAULT_MAX_COEFFICIENTS {
        return false;
    }
    (0..=MAX_ELEVATION).any(|elevation| {
        bernstein_coefficients(poly, params, &generators, degree + elevation)
            .iter()
            .all(|k| k.value.as_constant().is_some_and(|v| !v.is_negative()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use membound_polyhedra::Int;

    fn n() -> Polynomial {
        Polynomial::var("n".to_string())
    }
    fn domain(lower: i64, upper: Option<i64>) -> ParamDomain {
        let d = ParamDomain::universe(vec!["n".to_string()])
            .with(&Atom::ge(n() - Polynomial::constant(lower)));
        match upper {
            Some(u) => d.with(&Atom::ge(Polynomial::constant(u) - n())),
            None => d,
        }
    }

    #[test]
    fn digest_vector_four_every_test_proves_the_difference_nonpositive() {
        // (n^2 + 1) - (n^2/2 + n/2 + 1) = n^2/2 - n/2 >= 0 on n >= 1.
        let half = Rat::new(1, 2).unwrap();
        let diff = (&n() * &n()).scale(&half) - n().scale(&half);
        assert!(taylor_at_lower_bounds(&diff, &domain(1, None)));
        assert!(univariate_sturm(&diff, &domain(1, None)));
        assert!(bernstein_on_bounded(&diff, &domain(1, Some(1000))));
        assert!(bernstein_on_bounded(&diff, &domain(1, Some(3))));
        assert!(nonnegative_on(&diff, &domain(1, None)));
        assert!(!nonnegative_on(&(-diff), &domain(1, None)));
        assert_eq!(
            domain(1, Some(3)).integer_interval("n"),
            (Some(Int::from(1)), Some(Int::from(3)))
        );
    }

    #[test]
    fn linear_differences_use_the_domain() {
        let half = Rat::new(1, 2).unwrap();
        // 1/2 - n/2 <= 0 on n >= 1
        let diff = Polynomial::constant(half.clone()) - n().scale(&half);
        assert!(nonnegative_on(&(-diff.clone()), &domain(1, None)));
        assert!(!nonnegative_on(&diff, &domain(1, None)));
    }
}

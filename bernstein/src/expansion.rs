//! Bernstein expansion of a polynomial over the generators of a polytope (thesis App. C.2, with
//! its corrections: the degree is the total degree, and there is one weight per generator).
//!
//! Writing a point as `x = Σ α_i v_i` with `α ≥ 0`, `Σ α_i = 1`, substituting, and multiplying
//! each term of degree `k` by `(Σ α_i)^(d-k)` gives a homogeneous polynomial of degree `d` in
//! the `α`s. Its coefficient on `α^K` divided by the multinomial `d! / K!` is the Bernstein
//! coefficient `b_K`; on the polytope `min b_K <= p <= max b_K`. The generators may depend on
//! parameters (affine forms), and so may the coefficients of `p`: the `b_K` are then
//! polynomials in the parameters.

use std::collections::BTreeMap;

use membound_polyhedra::{Polynomial, Rat};

/// A polynomial in the weights `α`: exponent vector (one entry per generator) → coefficient,
/// a polynomial in the parameters.
pub type WeightPolynomial = BTreeMap<Vec<u32>, Polynomial>;

/// One Bernstein coefficient: the multi-index `K` (one entry per generator, summing to the
/// degree) and its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coefficient {
    pub index: Vec<u32>,
    pub value: Polynomial,
}

impl Coefficient {
    /// True for `K = d·e_i`: the coefficient is the polynomial's value at generator `i`, so a
    /// bound attained there is exact.
    pub fn is_sharp(&self) -> bool {
        self.index.iter().filter(|&&k| k > 0).count() <= 1
    }
}

/// `poly` with every variable in `replacements` replaced, all at once, by its polynomial.
pub fn substitute_all(
    poly: &Polynomial,
    replacements: &BTreeMap<String, Polynomial>,
) -> Polynomial {
    let mut result = Polynomial::zero();
    for (monomial, coeff) in poly.terms() {
        let mut term = Polynomial::constant(coeff.clone());
        for (var, exponent) in monomial.powers() {
            let factor = replacements
                .get(var)
                .cloned()
                .unwrap_or_else(|| Polynomial::var(var.clone()));
            term = &term * &factor.pow(*exponent);
        }
        result = result + term;
    }
    result
}

/// The total degree of `poly` in `vars` (the parameters are coefficients).
pub fn degree_in(poly: &Polynomial, vars: &[String]) -> u32 {
    poly.terms()
        .map(|(m, _)| {
            m.powers()
                .iter()
                .filter(|(v, _)| vars.contains(v))
                .map(|(_, e)| e)
                .sum::<u32>()
        })
        .max()
        .unwrap_or(0)
}

/// `poly` as exponent vector over `vars` → coefficient polynomial in the other names.
pub(crate) fn split_by_vars(poly: &Polynomial, vars: &[String]) -> Vec<(Vec<u32>, Polynomial)> {
    let mut split: BTreeMap<Vec<u32>, Polynomial> = BTreeMap::new();
    for (monomial, coeff) in poly.terms() {
        let exponents: Vec<u32> = vars.iter().map(|v| monomial.exponent(v)).collect();
        let rest = monomial
            .powers()
            .iter()
            .filter(|(v, _)| !vars.contains(v))
            .cloned();
        let rest = Polynomial::from_terms([(
            membound_polyhedra::Monomial::from_powers(rest),
            coeff.clone(),
        )]);
        let entry = split.entry(exponents).or_default();
        *entry = &*entry + &rest;
    }
    split.into_iter().collect()
}

fn multiply(a: &WeightPolynomial, b: &WeightPolynomial) -> WeightPolynomial {
    let mut product = WeightPolynomial::new();
    for (ea, ca) in a {
        for (eb, cb) in b {
            let exponents: Vec<u32> = ea.iter().zip(eb).map(|(x, y)| x + y).collect();
            let entry = product.entry(exponents).or_default();
            *entry = &*entry + &(ca * cb);
        }
    }
    product.retain(|_, c| !c.is_zero());
    product
}

fn power(base: &WeightPolynomial, exponent: u32, weights: usize) -> WeightPolynomial {
    let one = WeightPolynomial::from([(vec![0; weights], Polynomial::one())]);
    (0..exponent).fold(one, |acc, _| multiply(&acc, base))
}

fn unit(weights: usize, i: usize) -> Vec<u32> {
    let mut e = vec![0; weights];
    e[i] = 1;
    e
}

/// `Σ α_i`.
fn weight_sum(weights: usize) -> WeightPolynomial {
    (0..weights)
        .map(|i| (unit(weights, i), Polynomial::one()))
        .collect()
}

/// The homogeneous form of degree `degree` of `poly` (over `vars`) on the generators: each
/// generator gives one value per variable, a polynomial in the parameters.
pub fn homogenize(
    poly: &Polynomial,
    vars: &[String],
    generators: &[Vec<Polynomial>],
    degree: u32,
) -> WeightPolynomial {
    let weights = generators.len();
    // x_j = Σ_i α_i v_ij
    let coordinates: Vec<WeightPolynomial> = (0..vars.len())
        .map(|j| {
            let mut form: WeightPolynomial = (0..weights)
                .map(|i| (unit(weights, i), generators[i][j].clone()))
                .collect();
            form.retain(|_, c| !c.is_zero());
            form
        })
        .collect();
    let sum = weight_sum(weights);
    let mut result = WeightPolynomial::new();
    for (exponents, coeff) in split_by_vars(poly, vars) {
        let term_degree: u32 = exponents.iter().sum();
        let mut term = WeightPolynomial::from([(vec![0; weights], coeff)]);
        for (j, e) in exponents.iter().enumerate() {
            term = multiply(&term, &power(&coordinates[j], *e, weights));
        }
        term = multiply(
            &term,
            &power(&sum, degree.saturating_sub(term_degree), weights),
        );
        for (k, c) in term {
            let entry = result.entry(k).or_default();
            *entry = &*entry + &c;
        }
    }
    result.retain(|_, c| !c.is_zero());
    result
}

/// How many Bernstein coefficients an expansion of degree `degree` over `generators`
/// generators has: the multi-indices summing to the degree, `C(degree + generators - 1,
/// generators - 1)` (saturating). Budgets compare it before anything is expanded.
pub fn coefficient_count(generators: usize, degree: u32) -> u128 {
    if generators == 0 {
        return u128::from(degree == 0);
    }
    let (n, k) = (
        u128::from(degree) + generators as u128 - 1,
        generators as u128 - 1,
    );
    let k = k.min(n - k);
    // C(n, i) = C(n, i - 1) * (n - i + 1) / i, exact at every step.
    (1..=k)
        .try_fold(1u128, |acc, i| acc.checked_mul(n - i + 1).map(|v| v / i))
        .unwrap_or(u128::MAX)
}

/// `d! / (k_1! … k_m!)`.
pub fn multinomial(index: &[u32]) -> Rat {
    let factorial = |n: u32| (1..=n).fold(Rat::one(), |acc, k| acc * Rat::from(k as i64));
    let total: u32 = index.iter().sum();
    index
        .iter()
        .fold(factorial(total), |acc, &k| acc / factorial(k))
}

/// Every multi-index of `weights` entries summing to `degree`.
fn multi_indices(weights: usize, degree: u32) -> Vec<Vec<u32>> {
    if weights == 0 {
        return if degree == 0 {
            vec![Vec::new()]
        } else {
            Vec::new()
        };
    }
    if weights == 1 {
        return vec![vec![degree]];
    }
    (0..=degree)
        .rev()
        .flat_map(|first| {
            multi_indices(weights - 1, degree - first)
                .into_iter()
                .map(move |mut rest| {
                    rest.insert(0, first);
                    rest
                })
        })
        .collect()
}

/// All Bernstein coefficients of `poly` of degree `degree` (at least the total degree of `poly`
/// in `vars`; a higher degree is degree elevation) over `generators`.
pub fn bernstein_coefficients(
    poly: &Polynomial,
    vars: &[String],
    generators: &[Vec<Polynomial>],
    degree: u32,
) -> Vec<Coefficient> {
    let homogeneous = homogenize(poly, vars, generators, degree);
    multi_indices(generators.len(), degree)
        .into_iter()
        .map(|index| {
            let value = homogeneous.get(&index).cloned().unwrap_or_default();
            let value = value.scale(&(Rat::one() / multinomial(&index)));
            Coefficient { index, value }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str) -> Polynomial {
        Polynomial::var(name.to_string())
    }
    fn c(n: i64, d: i64) -> Polynomial {
        Polynomial::constant(Rat::new(n, d).unwrap())
    }

    #[test]
    fn appendix_c1_univariate_on_the_unit_interval() {
        // x^3 - 5x^2 + 2x + 4 on [0, 1]: [4, 14/3, 11/3, 2].
        let x = var("x");
        let p = &(&x * &x) * &x - (&x * &x).scale(&Rat::from(5)) + x.scale(&Rat::from(2)) + c(4, 1);
        let generators = vec![vec![c(0, 1)], vec![c(1, 1)]];
        let values: Vec<Polynomial> =
            bernstein_coefficients(&p, &["x".to_string()], &generators, 3)
                .into_iter()
                .map(|k| k.value)
                .collect();
        assert_eq!(values, vec![c(4, 1), c(14, 3), c(11, 3), c(2, 1)]);
    }

    #[test]
    fn affine_substitution_is_simultaneous() {
        // x*y with x := y + n, y := x (at once) is (y + n)*x.
        let (x, y, n) = (var("x"), var("y"), var("n"));
        let replacements =
            BTreeMap::from([("x".to_string(), &y + &n), ("y".to_string(), x.clone())]);
        assert_eq!(substitute_all(&(&x * &y), &replacements), &(&y + &n) * &x);
        assert_eq!(degree_in(&(&(&x * &x) * &n), &["x".to_string()]), 2);
    }

    #[test]
    fn coefficient_counts_are_binomials() {
        assert_eq!(coefficient_count(2, 3), 4);
        assert_eq!(coefficient_count(4, 30), 5456);
        assert_eq!(coefficient_count(32, 5), 376_992);
        assert_eq!(coefficient_count(1, 7), 1);
        assert_eq!(coefficient_count(0, 0), 1);
        assert_eq!(coefficient_count(65536, 16), u128::MAX);
    }

    #[test]
    fn homogenization_matches_the_digest_triangle() {
        // 1/2 x1^2 + 1/2 x1 + x2 over (0,0), (N,0), (N,N): homogeneous form of App. C.3.
        let (x1, x2, n) = (var("x1"), var("x2"), var("N"));
        let p =
            (&x1 * &x1).scale(&Rat::new(1, 2).unwrap()) + x1.scale(&Rat::new(1, 2).unwrap()) + x2;
        let zero = Polynomial::zero();
        let generators = vec![
            vec![zero.clone(), zero.clone()],
            vec![n.clone(), zero],
            vec![n.clone(), n.clone()],
        ];
        let h = homogenize(&p, &["x1".to_string(), "x2".to_string()], &generators, 2);
        let half = Rat::new(1, 2).unwrap();
        assert_eq!(h[&vec![1, 1, 0]], n.scale(&half));
        assert_eq!(h[&vec![0, 1, 1]], &n * &n + n.scale(&Rat::from(2)));
        assert_eq!(multinomial(&[1, 1, 0]), Rat::from(2));
    }
}

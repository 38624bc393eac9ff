//! Univariate polynomials over the rationals: Sturm sequences, Cauchy's root bound and Taylor
//! shifts, used to find exactly where a difference of two candidate bounds changes sign over
//! integer parameter values.

use membound_polyhedra::{Int, Polynomial, Rat};

/// `coeffs[k]` multiplies `x^k`; no trailing zeros.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnivariatePolynomial {
    coeffs: Vec<Rat>,
}

/// Integers `from..=to` (`None` is unbounded on that side) where the polynomial has `sign`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignRun {
    pub from: Option<Int>,
    pub to: Option<Int>,
    pub sign: i32,
}

impl UnivariatePolynomial {
    pub fn new(mut coeffs: Vec<Rat>) -> UnivariatePolynomial {
        while coeffs.last().is_some_and(Rat::is_zero) {
            coeffs.pop();
        }
        UnivariatePolynomial { coeffs }
    }
    /// The polynomial when `poly` mentions no variable other than `var`.
    pub fn from_polynomial(poly: &Polynomial, var: &str) -> Option<UnivariatePolynomial> {
        if poly.variables().iter().any(|v| v != var) {
            return None;
        }
        let var = var.to_string();
        let coeffs = poly
            .coefficients_in(&var)
            .iter()
            .map(|c| c.as_constant().unwrap_or_default())
            .collect();
        Some(UnivariatePolynomial::new(coeffs))
    }
    pub fn coeffs(&self) -> &[Rat] {
        &self.coeffs
    }
    pub fn is_zero(&self) -> bool {
        self.coeffs.is_empty()
    }
    fn degree(&self) -> usize {
        self.coeffs.len().saturating_sub(1)
    }
    fn leading(&self) -> Rat {
        self.coeffs.last().cloned().unwrap_or_default()
    }
    pub fn eval(&self, x: &Rat) -> Rat {
        self.coeffs
            .iter()
            .rev()
            .fold(Rat::zero(), |acc, c| acc * x + c)
    }
    fn sign_at(&self, x: &Int) -> i32 {
        self.eval(&Rat::from(x)).signum()
    }
    pub fn derivative(&self) -> UnivariatePolynomial {
        UnivariatePolynomial::new(
            self.coeffs
                .iter()
                .enumerate()
                .skip(1)
                .map(|(k, c)| c * Rat::from(k as i64))
                .collect(),
        )
    }
    /// Quotient and remainder of the division by a non-zero `divisor`.
    fn div_rem(
        &self,
        divisor: &UnivariatePolynomial,
    ) -> (UnivariatePolynomial, UnivariatePolynomial) {
        let mut remainder = self.coeffs.clone();
        let d = divisor.degree();
        let lead = divisor.leading();
        let mut quotient = vec![Rat::zero(); self.coeffs.len().saturating_sub(d).max(1)];
        while remainder.len() > d && !divisor.is_zero() {
            let shift = remainder.len() - 1 - d;
            let factor = remainder[remainder.len() - 1].clone() / &lead;
            for (k, c) in divisor.coeffs.iter().enumerate() {
                remainder[shift + k] -= &factor * c;
            }
            quotient[shift] = factor;
            remainder.pop();
            while remainder.last().is_some_and(Rat::is_zero) {
                remainder.pop();
            }
        }
        (
            UnivariatePolynomial::new(quotient),
            UnivariatePolynomial::new(remainder),
        )
    }
    fn gcd(&self, other: &UnivariatePolynomial) -> UnivariatePolynomial {
        let (mut a, mut b) = (self.clone(), other.clone());
        while !b.is_zero() {
            let r = a.div_rem(&b).1;
            a = b;
            b = r;
        }
        a
    }
    /// The product of the distinct irreducible factors (same real roots, all simple).
    pub fn square_free(&self) -> UnivariatePolynomial {
        let common = self.gcd(&self.derivative());
        if common.degree() == 0 {
            self.clone()
        } else {
            self.div_rem(&common).0
        }
    }
    /// `p, p', -rem(p, p'), …` for a square-free `p`.
    pub fn sturm_chain(&self) -> Vec<UnivariatePolynomial> {
        let mut chain = vec![self.clone(), self.derivative()];
        while let [.., a, b] = chain.as_slice() {
            if b.is_zero() {
                chain.pop();
                break;
            }
            let r = a.div_rem(b).1;
            if r.is_zero() {
                break;
            }
            chain.push(UnivariatePolynomial::new(
                r.coeffs.iter().map(|c| -c).collect(),
            ));
        }
        chain
    }
    /// Every real root has absolute value below this (Cauchy).
    pub fn cauchy_bound(&self) -> Rat {
        let lead = self.leading().abs();
        let largest = self.coeffs[..self.degree()]
            .iter()
            .map(Rat::abs)
            .max()
            .unwrap_or_default();
        Rat::one() + largest / lead
    }
    /// The coefficients of `p(a + t)` in `t` (Taylor expansion about `a`).
    pub fn taylor_shift(&self, a: &Rat) -> UnivariatePolynomial {
        let mut c = self.coeffs.clone();
        // Repeated synthetic division by (x - a).
        let n = c.len();
        for i in 0..n {
            for j in (i..n.saturating_sub(1)).rev() {
                let carry = &c[j + 1] * a;
                c[j] += carry;
            }
        }
        UnivariatePolynomial::new(c)
    }

    /// The signs at the integers of `[from, to]`, as maximal runs of one sign, exactly: Sturm
    /// counts isolate the roots, Cauchy's bound closes the unbounded ends.
    pub fn integer_sign_runs(&self, from: Option<Int>, to: Option<Int>) -> Vec<SignRun> {
        if self.is_zero() {
            return vec![SignRun { from, to, sign: 0 }];
        }
        let square_free = self.square_free();
        let chain = square_free.sturm_chain();
        let far = self.cauchy_bound().floor() + Int::from(1);
        let near_from = from.clone().map_or(-far.clone(), |f| f.max(-far.clone()));
        let near_to = to.clone().map_or(far.clone(), |t| t.min(far.clone()));
        let mut runs = Vec::new();
        if from.as_ref().is_none_or(|f| *f < near_from) {
            let edge: Int = (&near_from - Int::from(1)).min(-far.clone());
            let end = to.clone().map_or(edge.clone(), |t| t.min(edge.clone()));
            runs.push(SignRun {
                from: from.clone(),
                to: Some(end),
                sign: self.sign_at(&edge),
            });
        }
        if near_from <= near_to {
            self.runs_between(&chain, near_from, near_to.clone(), &mut runs);
        }
        if to.as_ref().is_none_or(|t| *t > near_to) {
            let edge: Int = (&near_to + Int::from(1)).max(far.clone());
            let start = from.map_or(edge.clone(), |f| f.max(edge.clone()));
            runs.push(SignRun {
                from: Some(start),
                to,
                sign: self.sign_at(&edge),
            });
        }
        merge_runs(runs)
    }

    fn runs_between(
        &self,
        chain: &[UnivariatePolynomial],
        from: Int,
        to: Int,
        runs: &mut Vec<SignRun>,
    ) {
        let (sign_from, sign_to) = (self.sign_at(&from), self.sign_at(&to));
        if sign_from != 0 && sign_to != 0 && sign_changes(chain, &from) == sign_changes(chain, &to)
        {
            runs.push(SignRun {
                from: Some(from),
                to: Some(to),
                sign: sign_from,
            });
            return;
        }
        if &to - &from < Int::from(4) {
            let mut x = from;
            while x <= to {
                runs.push(SignRun {
                    from: Some(x.clone()),
                    to: Some(x.clone()),
                    sign: self.sign_at(&x),
                });
                x += Int::from(1);
            }
            return;
        }
        let middle: Int = (&from + &to) / 2;
        self.runs_between(chain, from, middle.clone(), runs);
        self.runs_between(chain, middle + Int::from(1), to, runs);
    }
}

/// Sign changes of the chain at `x`, zeros skipped.
fn sign_changes(chain: &[UnivariatePolynomial], x: &Int) -> usize {
    let signs: Vec<i32> = chain
        .iter()
        .map(|p| p.sign_at(x))
        .filter(|s| *s != 0)
        .collect();
    signs.windows(2).filter(|w| w[0] != w[1]).count()
}

fn merge_runs(runs: Vec<SignRun>) -> Vec<SignRun> {
    let mut merged: Vec<SignRun> = Vec::new();
    for run in runs {
        match merged.last_mut() {
            Some(last) if last.sign == run.sign => last.to = run.to,
            _ => merged.push(run),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poly(coeffs: &[i64]) -> UnivariatePolynomial {
        UnivariatePolynomial::new(coeffs.iter().map(|&c| Rat::from(c)).collect())
    }
    fn run(from: Option<i64>, to: Option<i64>, sign: i32) -> SignRun {
        SignRun {
            from: from.map(Int::from),
            to: to.map(Int::from),
            sign,
        }
    }

    #[test]
    fn mc_squared_against_six_mc_changes_sign_at_six() {
        // mc^2 - 6mc on mc >= 1: negative up to 5, zero at 6, positive after.
        let diff = poly(&[0, -6, 1]);
        let runs = diff.integer_sign_runs(Some(Int::from(1)), None);
        assert_eq!(
            runs,
            vec![
                run(Some(1), Some(5), -1),
                run(Some(6), Some(6), 0),
                run(Some(7), None, 1)
            ]
        );
    }

    #[test]
    fn max_splitting_vectors_of_the_digest() {
        // (n^2 + 3n - 500) - (n^2 + n) = 2n - 500 on n >= 4 changes sign at 250.
        let runs = poly(&[-500, 2]).integer_sign_runs(Some(Int::from(4)), None);
        assert_eq!(
            runs,
            vec![
                run(Some(4), Some(249), -1),
                run(Some(250), Some(250), 0),
                run(Some(251), None, 1)
            ]
        );
        // n^2 - (3n + 1) over the naturals: positive iff n > 3.
        let runs = poly(&[-1, -3, 1]).integer_sign_runs(Some(Int::from(0)), None);
        assert_eq!(runs, vec![run(Some(0), Some(3), -1), run(Some(4), None, 1)]);
    }

    #[test]
    fn double_roots_and_unbounded_ends() {
        // (x - 2)^2 (x + 3) = x^3 - x^2 - 8x + 12
        let runs = poly(&[12, -8, -1, 1]).integer_sign_runs(None, None);
        assert_eq!(
            runs,
            vec![
                run(None, Some(-4), -1),
                run(Some(-3), Some(-3), 0),
                run(Some(-2), Some(1), 1),
                run(Some(2), Some(2), 0),
                run(Some(3), None, 1)
            ]
        );
    }

    #[test]
    fn taylor_shift_of_the_digest_example() {
        // -n^2/2 + n/2 about 1 is -(n-1)/2 - (n-1)^2/2.
        let p = UnivariatePolynomial::new(vec![
            Rat::zero(),
            Rat::new(1, 2).unwrap(),
            Rat::new(-1, 2).unwrap(),
        ]);
        let shifted = p.taylor_shift(&Rat::one());
        assert_eq!(
            shifted.coeffs(),
            &[
                Rat::zero(),
                Rat::new(-1, 2).unwrap(),
                Rat::new(-1, 2).unwrap()
            ]
        );
        assert_eq!(p.cauchy_bound(), Rat::from(2));
    }
}

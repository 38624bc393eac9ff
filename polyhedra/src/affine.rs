//! Affine forms `c0*x0 + c1*x1 + … + constant` over indexed variables with exact coefficients.
//!
//! Coefficients past the end of `coeffs` are zero, so forms over spaces that grow (a counting
//! cell gains columns as it introduces floor terms) combine without resizing.

use std::fmt;

use num_traits::One;
use serde::{Deserialize, Serialize};

use crate::scalar::{Int, Rat, gcd_of_numerators, lcm_of_denominators};

#[derive(Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Affine {
    pub coeffs: Vec<Rat>,
    pub constant: Rat,
}

impl Affine {
    /// The zero form.
    pub fn zero() -> Affine {
        Affine::default()
    }
    pub fn constant(value: impl Into<Rat>) -> Affine {
        Affine {
            coeffs: Vec::new(),
            constant: value.into(),
        }
    }
    /// The form `x_index`.
    pub fn var(index: usize) -> Affine {
        Affine::term(index, Rat::one())
    }
    /// The form `coeff * x_index`.
    pub fn term(index: usize, coeff: Rat) -> Affine {
        let mut form = Affine::zero();
        form.set_coeff(index, coeff);
        form
    }
    pub fn from_coeffs(coeffs: Vec<Rat>, constant: Rat) -> Affine {
        let mut form = Affine { coeffs, constant };
        form.trim();
        form
    }

    /// `Σ coeffs[i]·x_i + constant` with integer coefficients (as tests and examples write them).
    pub fn from_ints(coeffs: &[i64], constant: i64) -> Affine {
        let coeffs = coeffs.iter().map(|&c| Rat::from(c)).collect();
        Affine::from_coeffs(coeffs, Rat::from(constant))
    }
    pub fn coeff(&self, index: usize) -> Rat {
        self.coeffs.get(index).cloned().unwrap_or_default()
    }
    pub fn coeff_ref(&self, index: usize) -> Option<&Rat> {
        self.coeffs.get(index).filter(|c| !c.is_zero())
    }
    pub fn set_coeff(&mut self, index: usize, value: Rat) {
        if self.coeffs.len() <= index {
            if value.is_zero() {
                return;
            }
            self.coeffs.resize(index + 1, Rat::zero());
        }
        self.coeffs[index] = value;
        self.trim();
    }
    /// Indices of the variables with a non-zero coefficient.
    pub fn support(&self) -> impl Iterator<Item = usize> + '_ {
        self.coeffs
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.is_zero())
            .map(|(i, _)| i)
    }
    pub fn is_constant(&self) -> bool {
        self.coeffs.iter().all(Rat::is_zero)
    }
    pub fn eval(&self, point: &[Rat]) -> Rat {
        let linear: Rat = self
            .support()
            .map(|i| &self.coeffs[i] * point.get(i).cloned().unwrap_or_default())
            .sum();
        linear + &self.constant
    }
    pub fn scale(&self, factor: &Rat) -> Affine {
        Affine::from_coeffs(
            self.coeffs.iter().map(|c| c * factor).collect(),
            &self.constant * factor,
        )
    }
    pub fn add(&self, other: &Affine) -> Affine {
        self.combine(other, |a, b| a + b)
    }
    pub fn sub(&self, other: &Affine) -> Affine {
        self.combine(other, |a, b| a - b)
    }
    pub fn neg(&self) -> Affine {
        self.scale(&Rat::from(-1))
    }
    /// `self + factor * other`.
    pub fn add_scaled(&self, factor: &Rat, other: &Affine) -> Affine {
        self.combine(other, |a, b| a + factor * b)
    }
    fn combine(&self, other: &Affine, op: impl Fn(&Rat, &Rat) -> Rat) -> Affine {
        let len = self.coeffs.len().max(other.coeffs.len());
        let zero = Rat::zero();
        let coeffs = (0..len)
            .map(|i| {
                op(
                    self.coeffs.get(i).unwrap_or(&zero),
                    other.coeffs.get(i).unwrap_or(&zero),
                )
            })
            .collect();
        Affine::from_coeffs(coeffs, op(&self.constant, &other.constant))
    }
    /// Replaces `x_index` by `replacement` (which must not mention `x_index` unless intended).
    pub fn substitute(&self, index: usize, replacement: &Affine) -> Affine {
        let coeff = self.coeff(index);
        if coeff.is_zero() {
            return self.clone();
        }
        let mut without = self.clone();
        without.set_coeff(index, Rat::zero());
        without.add_scaled(&coeff, replacement)
    }
    /// Drops variable `index`, shifting later variables down by one (its coefficient must be 0).
    pub fn remove_var(&self, index: usize) -> Affine {
        let mut coeffs = self.coeffs.clone();
        if index < coeffs.len() {
            coeffs.remove(index);
        }
        Affine::from_coeffs(coeffs, self.constant.clone())
    }
    /// Inserts `count` variables with zero coefficient at position `at`.
    pub fn insert_vars(&self, at: usize, count: usize) -> Affine {
        let mut coeffs = self.coeffs.clone();
        if at < coeffs.len() {
            coeffs.splice(at..at, std::iter::repeat_n(Rat::zero(), count));
        }
        Affine::from_coeffs(coeffs, self.constant.clone())
    }
    /// Renumbers variables: variable `i` becomes `map(i)`.
    pub fn remap(&self, map: impl Fn(usize) -> usize) -> Affine {
        let mut form = Affine::constant(self.constant.clone());
        for i in self.support() {
            let target = map(i);
            form.set_coeff(target, form.coeff(target) + &self.coeffs[i]);
        }
        form
    }
    /// The positive multiple of `self` with integer coefficients and constant whose gcd is 1
    /// (zero stays zero).
    pub fn primitive(&self) -> Affine {
        let all = self.coeffs.iter().chain(std::iter::once(&self.constant));
        let lcm = lcm_of_denominators(all.clone());
        let scaled = self.scale(&Rat::from(lcm));
        let gcd = gcd_of_numerators(
            scaled
                .coeffs
                .iter()
                .chain(std::iter::once(&scaled.constant)),
        );
        if gcd == Int::from(0) || gcd.is_one() {
            return scaled;
        }
        scaled.scale(&Rat::new(1, gcd).unwrap_or_else(Rat::one))
    }
    /// For `self >= 0` over integer points: the equivalent constraint with integer coefficients
    /// of gcd 1 and the constant rounded down (`2x - 1 >= 0` becomes `x - 1 >= 0`).
    pub fn tightened_for_integers(&self) -> Affine {
        let lcm = lcm_of_denominators(self.coeffs.iter().chain(std::iter::once(&self.constant)));
        let scaled = self.scale(&Rat::from(lcm));
        let gcd = gcd_of_numerators(scaled.coeffs.iter());
        if gcd == Int::from(0) || gcd.is_one() {
            return scaled;
        }
        let g = Rat::from(gcd);
        let coeffs = scaled.coeffs.iter().map(|c| c / &g).collect();
        Affine::from_coeffs(coeffs, Rat::from((&scaled.constant / &g).floor()))
    }
    fn trim(&mut self) {
        while self.coeffs.last().is_some_and(Rat::is_zero) {
            self.coeffs.pop();
        }
    }
    /// Writes the form with the given variable names (`2*i - j + 3`).
    pub fn fmt_with(
        &self,
        f: &mut fmt::Formatter<'_>,
        name: &dyn Fn(usize) -> String,
    ) -> fmt::Result {
        let mut first = true;
        for i in self.support() {
            write_term(f, &self.coeffs[i], Some(&name(i)), &mut first)?;
        }
        if first || !self.constant.is_zero() {
            write_term(f, &self.constant, None, &mut first)?;
        }
        Ok(())
    }
}

/// Writes `± |coeff|*name` with the sign joined to the previous term.
pub(crate) fn write_term(
    f: &mut fmt::Formatter<'_>,
    coeff: &Rat,
    name: Option<&str>,
    first: &mut bool,
) -> fmt::Result {
    let magnitude = coeff.abs();
    match (*first, coeff.is_negative()) {
        (true, true) => write!(f, "-")?,
        (false, true) => write!(f, " - ")?,
        (false, false) => write!(f, " + ")?,
        (true, false) => {}
    }
    *first = false;
    match name {
        None => write!(f, "{magnitude}"),
        Some(name) if magnitude.is_one() => write!(f, "{name}"),
        Some(name) => write!(f, "{magnitude}*{name}"),
    }
}

impl fmt::Display for Affine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_with(f, &|i| format!("x{i}"))
    }
}
impl fmt::Debug for Affine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rat(n: i64, d: i64) -> Rat {
        Rat::new(n, d).unwrap()
    }

    #[test]
    fn substitution_replaces_a_variable() {
        // 2*x0 + x1 with x0 := x1 + 1 gives 3*x1 + 2
        let form = Affine::from_coeffs(vec![Rat::from(2), Rat::from(1)], Rat::zero());
        let replacement = Affine::from_coeffs(vec![Rat::zero(), Rat::from(1)], Rat::from(1));
        let result = form.substitute(0, &replacement);
        assert_eq!(
            result,
            Affine::from_coeffs(vec![Rat::zero(), Rat::from(3)], Rat::from(2))
        );
    }

    #[test]
    fn tightening_rounds_the_constant_down() {
        // x/2 - 1/4 >= 0 is x >= 1/2, which over integers is x - 1 >= 0
        let form = Affine::from_coeffs(vec![rat(1, 2)], rat(-1, 4));
        assert_eq!(
            form.tightened_for_integers(),
            Affine::from_coeffs(vec![Rat::from(1)], Rat::from(-1))
        );
        let form = Affine::from_coeffs(vec![Rat::from(2)], Rat::from(-1));
        assert_eq!(
            form.tightened_for_integers(),
            Affine::from_coeffs(vec![Rat::from(1)], Rat::from(-1))
        );
    }

    #[test]
    fn displays_with_names() {
        let form = Affine::from_coeffs(vec![Rat::from(2), Rat::from(-1)], Rat::from(3));
        assert_eq!(form.to_string(), "2*x0 - x1 + 3");
        assert_eq!(Affine::zero().to_string(), "0");
    }
}

//! Quasi-polynomials: polynomials whose coefficients are periodic numbers.
//!
//! Stored as one [`Polynomial`] per residue class of the periodic variables: with periods
//! `n: 3`, class `r` holds the polynomial valid when `n ≡ r (mod 3)`. Arithmetic works class by
//! class after aligning periods; printing regroups the classes per monomial into the thesis form
//! `[a0, a1, a2]_n` (index 0 applies when `n ≡ 0 mod 3`) or into isl's `floor` form.

use std::fmt;

use num_integer::Integer;
use serde::{Deserialize, Serialize};

use crate::polynomial::{Monomial, Polynomial, monomial_text};
use crate::scalar::{Int, Rat};

#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct QuasiPolynomial {
    /// Periodic variables with their period (> 1), sorted by name.
    periods: Vec<(String, u32)>,
    /// One polynomial per residue class, row-major over `periods`.
    classes: Vec<Polynomial>,
}

impl Default for QuasiPolynomial {
    fn default() -> Self {
        QuasiPolynomial::zero()
    }
}

impl From<Polynomial> for QuasiPolynomial {
    fn from(poly: Polynomial) -> Self {
        QuasiPolynomial {
            periods: Vec::new(),
            classes: vec![poly],
        }
    }
}

impl QuasiPolynomial {
    pub fn zero() -> Self {
        Polynomial::zero().into()
    }
    pub fn constant(value: impl Into<Rat>) -> Self {
        Polynomial::constant(value).into()
    }
    pub fn var(name: &str) -> Self {
        Polynomial::var(name.to_string()).into()
    }
    /// The periodic number `[values[0], …]_var`: `values[r]` when `var ≡ r (mod len)`.
    pub fn periodic(var: &str, values: Vec<Rat>) -> Self {
        let period = values.len().max(1) as u32;
        let classes = values.into_iter().map(Polynomial::constant).collect();
        let mut qp = QuasiPolynomial {
            periods: vec![(var.to_string(), period)],
            classes,
        };
        qp.simplify();
        qp
    }
    /// Builds from explicit classes (`classes.len()` must be the product of the periods).
    pub fn from_classes(mut periods: Vec<(String, u32)>, classes: Vec<Polynomial>) -> Option<Self> {
        let sorted = periods.windows(2).all(|w| w[0].0 < w[1].0);
        periods.retain(|(_, p)| *p > 0);
        let size: usize = periods.iter().map(|(_, p)| *p as usize).product();
        (sorted && size == classes.len()).then(|| {
            let mut qp = QuasiPolynomial { periods, classes };
            qp.simplify();
            qp
        })
    }
    pub fn periods(&self) -> &[(String, u32)] {
        &self.periods
    }
    /// The polynomial of each residue class, in row-major order over [`Self::periods`].
    pub fn classes(&self) -> &[Polynomial] {
        &self.classes
    }
    pub fn is_zero(&self) -> bool {
        self.classes.iter().all(Polynomial::is_zero)
    }
    /// The polynomial when no coefficient is periodic.
    pub fn as_polynomial(&self) -> Option<&Polynomial> {
        (self.classes.len() == 1).then(|| &self.classes[0])
    }
    pub fn degree(&self) -> u32 {
        self.classes
            .iter()
            .map(Polynomial::degree)
            .max()
            .unwrap_or(0)
    }
    pub fn variables(&self) -> Vec<String> {
        let mut vars: Vec<String> = self.classes.iter().flat_map(|p| p.variables()).collect();
        vars.extend(self.periods.iter().map(|(v, _)| v.clone()));
        vars.sort();
        vars.dedup();
        vars
    }

    fn class_index(periods: &[(String, u32)], residue_of: &dyn Fn(&str, u32) -> u32) -> usize {
        periods.iter().fold(0, |index, (v, p)| {
            index * (*p as usize) + residue_of(v, *p) as usize
        })
    }

    /// Exact value; `value(var)` gives each variable (periodic variables must be integers).
    pub fn eval(&self, value: &dyn Fn(&str) -> Rat) -> Rat {
        let residue = |v: &str, p: u32| -> u32 {
            let x = value(v).floor();
            let r = x.mod_floor(&Int::from(p));
            r.try_into().unwrap_or(0)
        };
        let index = Self::class_index(&self.periods, &residue);
        self.classes[index].eval(&|v: &String| value(v))
    }

    /// The same quasi-polynomial over periods that are multiples of the current ones.
    fn aligned(&self, periods: &[(String, u32)]) -> Vec<Polynomial> {
        let residues = all_residues(periods);
        residues
            .iter()
            .map(|residue| {
                let residue_of = |v: &str, p: u32| -> u32 {
                    let position = periods.iter().position(|(w, _)| w == v);
                    position.map_or(0, |i| residue[i] % p)
                };
                self.classes[Self::class_index(&self.periods, &residue_of)].clone()
            })
            .collect()
    }

    fn combine(&self, other: &Self, op: impl Fn(&Polynomial, &Polynomial) -> Polynomial) -> Self {
        let periods = merged_periods(&self.periods, &other.periods);
        let left = self.aligned(&periods);
        let right = other.aligned(&periods);
        let classes = left.iter().zip(&right).map(|(a, b)| op(a, b)).collect();
        let mut result = QuasiPolynomial { periods, classes };
        result.simplify();
        result
    }
    pub fn add(&self, other: &Self) -> Self {
        self.combine(other, |a, b| a + b)
    }
    pub fn sub(&self, other: &Self) -> Self {
        self.combine(other, |a, b| a - b)
    }
    pub fn mul(&self, other: &Self) -> Self {
        self.combine(other, |a, b| a * b)
    }
    pub fn scale(&self, factor: &Rat) -> Self {
        let classes = self.classes.iter().map(|p| p.scale(factor)).collect();
        let mut result = QuasiPolynomial {
            periods: self.periods.clone(),
            classes,
        };
        result.simplify();
        result
    }
    pub fn neg(&self) -> Self {
        self.scale(&Rat::from(-1))
    }

    /// `poly` with each variable `v` replaced by the quasi-polynomial `value(v)`, computed class
    /// by class over the common periods: one polynomial expansion per class rather than a
    /// quasi-polynomial product per term. The expansion runs over the values' variables by
    /// index (no name is copied or compared while multiplying).
    pub fn compose<V: Ord + Clone>(
        poly: &Polynomial<V>,
        value: impl Fn(&V) -> QuasiPolynomial,
    ) -> Self {
        let vars = poly.variables();
        let values: Vec<QuasiPolynomial> = vars.iter().map(value).collect();
        let periods = values.iter().fold(Vec::new(), |periods, v| {
            merged_periods(&periods, &v.periods)
        });
        let mut names: Vec<String> = values.iter().flat_map(Self::variables).collect();
        names.sort();
        names.dedup();
        let index_of = |name: &String| names.binary_search(name).unwrap_or_default();
        let aligned: Vec<Vec<Polynomial<usize>>> = values
            .iter()
            .map(|v| {
                v.aligned(&periods)
                    .iter()
                    .map(|p| p.map_vars(index_of))
                    .collect()
            })
            .collect();
        // `vars` holds every variable of `poly`, so the lookup always finds it.
        let at = |v: &V| vars.binary_search(v).unwrap_or_default();
        let classes = (0..aligned.first().map_or(1, Vec::len))
            .map(|class| {
                poly.compose(|v| aligned[at(v)][class].clone())
                    .map_vars(|&i| names[i].clone())
            })
            .collect();
        let mut result = QuasiPolynomial { periods, classes };
        result.simplify();
        result
    }

    /// The quasi-polynomial on the residue class `var ≡ residue` (modulo `var`'s period): `var`
    /// is no longer periodic, and stays a variable of the polynomials.
    pub fn on_residue(&self, var: &str, residue: &Int) -> Self {
        let periods: Vec<(String, u32)> = self
            .periods
            .iter()
            .filter(|(v, _)| v != var)
            .cloned()
            .collect();
        let classes = (0..periods.iter().map(|(_, p)| *p as usize).product::<usize>())
            .map(|index| {
                let residues = residues_of(index, &periods);
                let old_index = Self::class_index(&self.periods, &|v, p| {
                    if v == var {
                        residue.mod_floor(&Int::from(p)).try_into().unwrap_or(0)
                    } else {
                        let at = periods.iter().position(|(w, _)| w == v).unwrap_or(0);
                        residues[at]
                    }
                });
                self.classes[old_index].clone()
            })
            .collect();
        let mut result = QuasiPolynomial { periods, classes };
        result.simplify();
        result
    }

    /// The quasi-polynomial with integer variable `var` fixed to `value`: its residue picks the
    /// classes where `var` is periodic, and `value` replaces it in every class.
    pub fn with_value(&self, var: &str, value: &Int) -> Self {
        let constant = Polynomial::constant(Rat::from(value.clone()));
        let on_class = self.on_residue(var, value);
        let classes = on_class
            .classes
            .iter()
            .map(|class| class.substitute(&var.to_string(), &constant))
            .collect();
        let mut result = QuasiPolynomial {
            periods: on_class.periods,
            classes,
        };
        result.simplify();
        result
    }

    /// The same quasi-polynomial over renamed variables; `rename` must be injective. The
    /// classes are reordered when renaming changes the order of the periodic variables.
    pub fn renamed(&self, rename: &dyn Fn(&str) -> String) -> Self {
        let classes: Vec<Polynomial> = self
            .classes
            .iter()
            .map(|p| p.map_vars(|v| rename(v)))
            .collect();
        let renamed: Vec<(String, u32)> =
            self.periods.iter().map(|(v, p)| (rename(v), *p)).collect();
        let mut periods = renamed.clone();
        periods.sort();
        // The residues of each old class index, read in the new order of the variables.
        let reordered = (0..classes.len())
            .map(|new_index| {
                let residues = residues_of(new_index, &periods);
                let old_index = Self::class_index(&renamed, &|v, _| {
                    let position = periods.iter().position(|(w, _)| w == v).unwrap_or(0);
                    residues[position]
                });
                classes[old_index].clone()
            })
            .collect();
        QuasiPolynomial {
            periods,
            classes: reordered,
        }
    }

    /// `floor(self)` when `self` has degree at most 1 and only integer variables; the result is
    /// exact (its periods grow to make the fractional part periodic). `None` for higher degree,
    /// and when the residue classes it needs would be more than [`MAX_CLASSES`].
    pub fn floor_of_linear(&self) -> Option<Self> {
        if self.degree() > 1 {
            return None;
        }
        let mut periods: Vec<(String, u32)> = self.periods.clone();
        for class in &self.classes {
            for (monomial, coeff) in class.terms() {
                let Some((var, _)) = monomial.powers().first() else {
                    continue;
                };
                // Shifting var by a multiple T of its period P changes the value by coeff·T,
                // which must be an integer: T = P · denominator(coeff·P) works.
                let original = self
                    .periods
                    .iter()
                    .find(|(v, _)| v == var)
                    .map_or(1, |(_, p)| *p);
                let step = coeff * Rat::from(original as i64);
                let multiple: u32 = step.denom().try_into().ok()?;
                let current = periods
                    .iter()
                    .find(|(v, _)| v == var)
                    .map_or(1, |(_, p)| *p);
                set_period(
                    &mut periods,
                    var,
                    current.lcm(&original.checked_mul(multiple)?),
                );
            }
        }
        let classes = periods
            .iter()
            .try_fold(1_usize, |n, (_, p)| n.checked_mul(*p as usize))?;
        if classes > MAX_CLASSES {
            return None;
        }
        let aligned = self.aligned(&periods);
        let residues = all_residues(&periods);
        let classes = aligned
            .iter()
            .zip(&residues)
            .map(|(poly, residue)| {
                let at_residue = poly.eval(&|v: &String| {
                    let i = periods.iter().position(|(w, _)| w == v);
                    Rat::from(i.map_or(0, |i| residue[i] as i64))
                });
                let fraction = &at_residue - Rat::from(at_residue.floor());
                poly - &Polynomial::constant(fraction)
            })
            .collect();
        let mut result = QuasiPolynomial { periods, classes };
        result.simplify();
        Some(result)
    }

    /// Shrinks every period to the smallest one that gives the same function.
    pub fn simplify(&mut self) {
        let mut changed = true;
        while changed {
            changed = false;
            for index in 0..self.periods.len() {
                let period = self.periods[index].1;
                for factor in prime_factors(period) {
                    if let Some(reduced) = self.with_reduced_period(index, period / factor) {
                        *self = reduced;
                        changed = true;
                        break;
                    }
                }
                if changed {
                    break;
                }
            }
        }
    }

    /// The quasi-polynomial with `periods[index]` reduced to `smaller`, if that is the same
    /// function.
    fn with_reduced_period(&self, index: usize, smaller: u32) -> Option<Self> {
        let mut periods = self.periods.clone();
        periods[index].1 = smaller;
        let residues = all_residues(&self.periods);
        let reduced_residue = |residue: &Vec<u32>| -> usize {
            let r = |v: &str, p: u32| {
                let i = self.periods.iter().position(|(w, _)| w == v).unwrap_or(0);
                residue[i] % p
            };
            Self::class_index(&periods, &r)
        };
        let mut classes: Vec<Option<&Polynomial>> =
            vec![None; periods.iter().map(|(_, p)| *p as usize).product()];
        for (residue, poly) in residues.iter().zip(&self.classes) {
            let slot = &mut classes[reduced_residue(residue)];
            match slot {
                Some(existing) if *existing != poly => return None,
                _ => *slot = Some(poly),
            }
        }
        let classes = classes
            .into_iter()
            .map(|p| p.cloned().unwrap_or_default())
            .collect();
        periods.retain(|(_, p)| *p > 1);
        Some(QuasiPolynomial { periods, classes })
    }

    /// Monomials with their coefficient in every class (row-major over the periods).
    fn coefficient_tables(&self) -> Vec<(Monomial<String>, Vec<Rat>)> {
        let mut monomials: Vec<Monomial<String>> = self
            .classes
            .iter()
            .flat_map(|p| p.terms().map(|(m, _)| m.clone()))
            .collect();
        monomials.sort_by(|a, b| b.degree().cmp(&a.degree()).then(a.cmp(b)));
        monomials.dedup();
        monomials
            .into_iter()
            .map(|m| {
                let table = self
                    .classes
                    .iter()
                    .map(|p| {
                        p.terms()
                            .find(|(n, _)| **n == m)
                            .map(|(_, c)| c.clone())
                            .unwrap_or_default()
                    })
                    .collect();
                (m, table)
            })
            .collect()
    }

    /// The periodic number given by `table` on `self.periods`, reduced to its own periods.
    fn periodic_coefficient(&self, table: Vec<Rat>) -> QuasiPolynomial {
        let classes = table.into_iter().map(Polynomial::constant).collect();
        let mut coefficient = QuasiPolynomial {
            periods: self.periods.clone(),
            classes,
        };
        coefficient.simplify();
        coefficient
    }

    /// Each monomial with its coefficient: a periodic number reduced to its own periods (a
    /// constant when the coefficient is the same in every class). Monomials come by decreasing
    /// degree.
    pub fn periodic_terms(&self) -> Vec<(Monomial<String>, QuasiPolynomial)> {
        self.coefficient_tables()
            .into_iter()
            .map(|(monomial, table)| (monomial, self.periodic_coefficient(table)))
            .collect()
    }

    /// The thesis notation: `4/3*mc^2 + [8/3, 0, 4/3]_mc*mc + [0, -4/3, -1]_mc`.
    pub fn to_readable(&self) -> String {
        let mut out = String::new();
        for (monomial, coefficient) in self.periodic_terms() {
            let name = monomial_text(&monomial);
            match coefficient
                .as_polynomial()
                .and_then(Polynomial::as_constant)
            {
                Some(value) => {
                    let mut term = Polynomial::<String>::zero();
                    if !name.is_empty() {
                        term = Polynomial::from_terms([(monomial.clone(), value)]);
                    } else {
                        term = term + Polynomial::constant(value);
                    }
                    let text = term.to_string();
                    push_signed(&mut out, &text);
                }
                None => {
                    let periodic = periodic_text(&coefficient);
                    let term = if name.is_empty() {
                        periodic
                    } else {
                        format!("{periodic}*{name}")
                    };
                    push_signed(&mut out, &term);
                }
            }
        }
        if out.is_empty() { "0".to_string() } else { out }
    }

    /// isl syntax: periodic coefficients become combinations of `floor((v - r)/p)`.
    pub fn to_isl(&self) -> String {
        let mut total = Polynomial::<String>::zero();
        for (monomial, coefficient) in self.periodic_terms() {
            let as_floors = floor_form(&coefficient);
            total = total + &as_floors * &Polynomial::from_terms([(monomial, Rat::one())]);
        }
        total.to_string()
    }
}

fn push_signed(out: &mut String, term: &str) {
    if out.is_empty() {
        out.push_str(term);
    } else if let Some(rest) = term.strip_prefix('-') {
        out.push_str(" - ");
        out.push_str(rest);
    } else {
        out.push_str(" + ");
        out.push_str(term);
    }
}

/// `[a0, a1, a2]_n`, or for several variables `[a00, a01, …]_(n,m)` in row-major order.
fn periodic_text(coefficient: &QuasiPolynomial) -> String {
    let values: Vec<String> = coefficient
        .classes
        .iter()
        .map(|p| {
            p.as_constant()
                .map(|c| c.to_string())
                .unwrap_or_else(|| p.to_string())
        })
        .collect();
    let vars: Vec<&str> = coefficient
        .periods
        .iter()
        .map(|(v, _)| v.as_str())
        .collect();
    let subscript = if vars.len() == 1 {
        vars[0].to_string()
    } else {
        format!("({})", vars.join(","))
    };
    format!("[{}]_{}", values.join(", "), subscript)
}

/// A periodic number as a polynomial in `floor((v - r)/p)` atoms: the indicator of
/// `v ≡ r (mod p)` is `floor((v - r)/p) - floor((v - r - 1)/p)`.
fn floor_form(coefficient: &QuasiPolynomial) -> Polynomial<String> {
    let residues = all_residues(&coefficient.periods);
    let mut total = Polynomial::zero();
    for (residue, value) in residues.iter().zip(&coefficient.classes) {
        let mut indicator = Polynomial::one();
        for ((var, period), r) in coefficient.periods.iter().zip(residue) {
            let atom = |shift: i64| Polynomial::var(floor_atom(var, *r as i64 + shift, *period));
            indicator = &indicator * &(atom(0) - atom(1));
        }
        total = total + &indicator * value;
    }
    total
}

fn floor_atom(var: &str, shift: i64, period: u32) -> String {
    match shift {
        0 => format!("floor(({var})/{period})"),
        s => format!("floor(({var} - {s})/{period})"),
    }
}

/// The most residue classes a quasi-polynomial made by [`QuasiPolynomial::floor_of_linear`] may
/// have: each is a polynomial of its own, so a period like 10^10 cannot be spelled out.
pub const MAX_CLASSES: usize = 1 << 16;

fn set_period(periods: &mut Vec<(String, u32)>, var: &str, period: u32) {
    match periods.iter_mut().find(|(v, _)| v == var) {
        Some(entry) => entry.1 = period,
        None if period > 1 => {
            periods.push((var.to_string(), period));
            periods.sort();
        }
        None => {}
    }
}

fn merged_periods(a: &[(String, u32)], b: &[(String, u32)]) -> Vec<(String, u32)> {
    let mut merged = a.to_vec();
    for (var, period) in b {
        let current = merged.iter().find(|(v, _)| v == var).map_or(1, |(_, p)| *p);
        set_period(&mut merged, var, current.lcm(period));
    }
    merged
}

/// Every residue vector for `periods`, row-major.
fn all_residues(periods: &[(String, u32)]) -> Vec<Vec<u32>> {
    periods.iter().fold(vec![Vec::new()], |acc, (_, p)| {
        acc.iter()
            .flat_map(|prefix| (0..*p).map(move |r| [prefix.clone(), vec![r]].concat()))
            .collect()
    })
}

fn prime_factors(mut n: u32) -> Vec<u32> {
    let mut factors = Vec::new();
    let mut f = 2;
    while f * f <= n {
        if n.is_multiple_of(f) {
            factors.push(f);
            while n.is_multiple_of(f) {
                n /= f;
            }
        }
        f += 1;
    }
    if n > 1 {
        factors.push(n);
    }
    factors
}

impl fmt::Display for QuasiPolynomial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_readable())
    }
}

/// The residue of each periodic variable in class `index` (row-major over `periods`).
fn residues_of(mut index: usize, periods: &[(String, u32)]) -> Vec<u32> {
    let mut residues = vec![0; periods.len()];
    for (slot, (_, period)) in residues.iter_mut().zip(periods).rev() {
        *slot = (index % *period as usize) as u32;
        index /= *period as usize;
    }
    residues
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rat(n: i64, d: i64) -> Rat {
        Rat::new(n, d).unwrap()
    }

    #[test]
    fn periodic_numbers_print_in_thesis_order() {
        let qp = QuasiPolynomial::periodic("n", vec![rat(0, 1), rat(0, 1), rat(-1, 3)]);
        assert_eq!(qp.to_string(), "[0, 0, -1/3]_n");
        assert_eq!(qp.eval(&|_| Rat::from(5)), rat(-1, 3));
        assert_eq!(qp.eval(&|_| Rat::from(-1)), rat(-1, 3));
    }

    #[test]
    fn periods_shrink_when_classes_repeat() {
        let qp = QuasiPolynomial::periodic(
            "n",
            vec![Rat::from(1), Rat::from(2), Rat::from(1), Rat::from(2)],
        );
        assert_eq!(qp.periods(), &[("n".to_string(), 2)]);
        let constant = QuasiPolynomial::periodic("n", vec![Rat::from(4), Rat::from(4)]);
        assert_eq!(constant.as_polynomial(), Some(&Polynomial::constant(4)));
    }

    #[test]
    fn fixing_a_periodic_variable_picks_its_class() {
        // [1, 2]_a * b + [10, 20, 30]_b: fix b = 4 (class 1 of b, and b replaced).
        let qp = QuasiPolynomial::periodic("a", vec![rat(1, 1), rat(2, 1)])
            .mul(&QuasiPolynomial::var("b"))
            .add(&QuasiPolynomial::periodic(
                "b",
                vec![rat(10, 1), rat(20, 1), rat(30, 1)],
            ));
        let fixed = qp.with_value("b", &Int::from(4));
        assert_eq!(fixed.periods(), &[("a".to_string(), 2)]);
        for a in 0..5 {
            let expected = qp.eval(&|v| rat(if v == "a" { a } else { 4 }, 1));
            assert_eq!(fixed.eval(&|_| rat(a, 1)), expected, "a={a}");
        }
    }

    #[test]
    fn renaming_reorders_the_classes_of_periodic_variables() {
        // [1, 2]_a + [10, 20, 30]_b, then a -> z: the periods are now (b, z).
        let qp = QuasiPolynomial::periodic("a", vec![rat(1, 1), rat(2, 1)]).add(
            &QuasiPolynomial::periodic("b", vec![rat(10, 1), rat(20, 1), rat(30, 1)]),
        );
        let renamed = qp.renamed(&|v| {
            if v == "a" {
                "z".to_string()
            } else {
                v.to_string()
            }
        });
        assert_eq!(
            renamed.periods(),
            &[("b".to_string(), 3), ("z".to_string(), 2)]
        );
        for a in 0..4 {
            for b in 0..5 {
                let old = qp.eval(&|v| rat(if v == "a" { a } else { b }, 1));
                let new = renamed.eval(&|v| rat(if v == "z" { a } else { b }, 1));
                assert_eq!(old, new, "a={a} b={b}");
            }
        }
    }

    #[test]
    fn floor_of_a_linear_form_is_exact() {
        let third = QuasiPolynomial::var("n")
            .scale(&rat(1, 3))
            .add(&QuasiPolynomial::constant(rat(1, 3)));
        let floor = third.floor_of_linear().unwrap();
        for n in -7..12 {
            let expected = Rat::from(Rat::from(n + 1).floor()) / Rat::from(3);
            assert_eq!(floor.eval(&|_| Rat::from(n)), Rat::from(expected.floor()));
        }
    }

    #[test]
    fn isl_form_evaluates_like_the_periodic_form() {
        let qp = QuasiPolynomial::periodic("n", vec![rat(8, 3), Rat::from(0), rat(4, 3)])
            .mul(&QuasiPolynomial::var("n"));
        let text = qp.to_isl();
        assert!(text.contains("floor((n)/3)"), "{text}");
    }
}

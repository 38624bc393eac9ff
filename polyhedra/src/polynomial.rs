//! Multivariate polynomials with exact rational coefficients over named (or otherwise ordered)
//! variables: arithmetic, exact evaluation, substitution and printing.
//!
//! `Polynomial` (variables are `String`s) is the one the other crates use; the counting engine
//! instantiates it over column indices.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::fmt;
use std::ops::{Add, Mul, Neg, Sub};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::affine::write_term;
use crate::scalar::Rat;

/// A product of variables with positive exponents, sorted by variable.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default, Serialize, Deserialize)]
pub struct Monomial<V>(Vec<(V, u32)>);

impl<V: Ord + Clone> Monomial<V> {
    pub fn one() -> Monomial<V> {
        Monomial(Vec::new())
    }
    pub fn var(v: V) -> Monomial<V> {
        Monomial(vec![(v, 1)])
    }
    pub fn from_powers(powers: impl IntoIterator<Item = (V, u32)>) -> Monomial<V> {
        let mut map: BTreeMap<V, u32> = BTreeMap::new();
        for (v, e) in powers {
            *map.entry(v).or_default() += e;
        }
        Monomial(map.into_iter().filter(|(_, e)| *e > 0).collect())
    }
    pub fn powers(&self) -> &[(V, u32)] {
        &self.0
    }
    pub fn degree(&self) -> u32 {
        self.0.iter().map(|(_, e)| e).sum()
    }
    pub fn exponent(&self, v: &V) -> u32 {
        self.0.iter().find(|(w, _)| w == v).map_or(0, |(_, e)| *e)
    }
    /// The product: a merge of the two sorted lists of powers (the innermost step of every
    /// polynomial product, so no map is built).
    pub fn mul(&self, other: &Monomial<V>) -> Monomial<V> {
        let mut powers = Vec::with_capacity(self.0.len() + other.0.len());
        let (mut left, mut right) = (self.0.iter().peekable(), other.0.iter().peekable());
        loop {
            let next = match (left.peek(), right.peek()) {
                (Some((v, e)), Some((w, f))) => match v.cmp(w) {
                    std::cmp::Ordering::Less => left.next().cloned(),
                    std::cmp::Ordering::Greater => right.next().cloned(),
                    std::cmp::Ordering::Equal => {
                        let power = (v.clone(), e + f);
                        left.next();
                        right.next();
                        Some(power)
                    }
                },
                (Some(_), None) => left.next().cloned(),
                (None, Some(_)) => right.next().cloned(),
                (None, None) => None,
            };
            match next {
                Some(power) => powers.push(power),
                None => return Monomial(powers),
            }
        }
    }
    /// The monomial without variable `v`.
    pub fn without(&self, v: &V) -> Monomial<V> {
        Monomial(self.0.iter().filter(|(w, _)| w != v).cloned().collect())
    }
}

#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Polynomial<V: Ord = String> {
    terms: BTreeMap<Monomial<V>, Rat>,
}

impl<V: Ord + Clone> Default for Polynomial<V> {
    fn default() -> Self {
        Polynomial {
            terms: BTreeMap::new(),
        }
    }
}

impl<V: Ord + Clone> Polynomial<V> {
    pub fn zero() -> Self {
        Self::default()
    }
    pub fn constant(value: impl Into<Rat>) -> Self {
        Self::from_terms([(Monomial::one(), value.into())])
    }
    pub fn one() -> Self {
        Self::constant(1)
    }
    pub fn var(v: V) -> Self {
        Self::from_terms([(Monomial::var(v), Rat::one())])
    }
    pub fn from_terms(terms: impl IntoIterator<Item = (Monomial<V>, Rat)>) -> Self {
        let mut poly = Self::zero();
        for (monomial, coeff) in terms {
            poly.add_term(monomial, coeff);
        }
        poly
    }
    fn add_term(&mut self, monomial: Monomial<V>, coeff: Rat) {
        if coeff.is_zero() {
            return;
        }
        match self.terms.entry(monomial) {
            Entry::Vacant(slot) => {
                slot.insert(coeff);
            }
            Entry::Occupied(mut slot) => {
                *slot.get_mut() += coeff;
                if slot.get().is_zero() {
                    slot.remove();
                }
            }
        }
    }
    /// `self += coeff * monomial * factor`, in place.
    fn add_product(&mut self, monomial: &Monomial<V>, coeff: &Rat, factor: &Self) {
        for (m, c) in &factor.terms {
            self.add_term(monomial.mul(m), coeff * c);
        }
    }
    pub fn terms(&self) -> impl Iterator<Item = (&Monomial<V>, &Rat)> {
        self.terms.iter()
    }
    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }
    pub fn degree(&self) -> u32 {
        self.terms.keys().map(Monomial::degree).max().unwrap_or(0)
    }
    pub fn degree_in(&self, v: &V) -> u32 {
        self.terms.keys().map(|m| m.exponent(v)).max().unwrap_or(0)
    }
    /// The value when the polynomial is a constant.
    pub fn as_constant(&self) -> Option<Rat> {
        match self.terms.len() {
            0 => Some(Rat::zero()),
            1 => self.terms.get(&Monomial::one()).cloned(),
            _ => None,
        }
    }
    pub fn variables(&self) -> Vec<V> {
        let mut vars: Vec<V> = self
            .terms
            .keys()
            .flat_map(|m| m.0.iter().map(|(v, _)| v.clone()))
            .collect();
        vars.sort();
        vars.dedup();
        vars
    }
    pub fn scale(&self, factor: &Rat) -> Self {
        Self::from_terms(self.terms.iter().map(|(m, c)| (m.clone(), c * factor)))
    }
    pub fn pow(&self, exponent: u32) -> Self {
        (0..exponent).fold(Self::one(), |acc, _| &acc * self)
    }
    /// Exact value, with `value(v)` giving each variable.
    pub fn eval(&self, value: &dyn Fn(&V) -> Rat) -> Rat {
        self.terms
            .iter()
            .map(|(m, c)| {
                m.0.iter()
                    .fold(c.clone(), |acc, (v, e)| acc * value(v).pow(*e))
            })
            .sum()
    }
    /// Replaces variable `v` by `replacement`.
    pub fn substitute(&self, v: &V, replacement: &Self) -> Self {
        let mut powers: Vec<Self> = vec![Self::one()];
        let mut result = Self::zero();
        for (monomial, coeff) in &self.terms {
            let exponent = monomial.exponent(v) as usize;
            while powers.len() <= exponent {
                let next = powers
                    .last()
                    .map(|p| p * replacement)
                    .unwrap_or_else(Self::one);
                powers.push(next);
            }
            result.add_product(&monomial.without(v), coeff, &powers[exponent]);
        }
        result
    }
    /// Replaces every variable `v` by the polynomial `value(v)` (over other variables): one
    /// expansion, each power of each variable computed once.
    pub fn compose<W: Ord + Clone>(&self, value: impl Fn(&V) -> Polynomial<W>) -> Polynomial<W> {
        let mut powers: BTreeMap<&V, Vec<Polynomial<W>>> = BTreeMap::new();
        let mut result = Polynomial::zero();
        for (monomial, coeff) in &self.terms {
            let mut term = Polynomial::constant(coeff.clone());
            for (v, e) in &monomial.0 {
                let known = powers.entry(v).or_insert_with(|| vec![value(v)]);
                while known.len() < *e as usize {
                    let next = &known[known.len() - 1] * &known[0];
                    known.push(next);
                }
                term = &term * &known[*e as usize - 1];
            }
            for (m, c) in term.terms {
                result.add_term(m, c);
            }
        }
        result
    }
    /// Coefficients of the powers of `v`: entry `k` multiplies `v^k`.
    pub fn coefficients_in(&self, v: &V) -> Vec<Self> {
        let mut coefficients = vec![Self::zero(); self.degree_in(v) as usize + 1];
        for (monomial, coeff) in &self.terms {
            let k = monomial.exponent(v) as usize;
            coefficients[k].add_term(monomial.without(v), coeff.clone());
        }
        coefficients
    }
    /// Renames every variable.
    pub fn map_vars<W: Ord + Clone>(&self, rename: impl Fn(&V) -> W) -> Polynomial<W> {
        Polynomial::from_terms(self.terms.iter().map(|(m, c)| {
            (
                Monomial::from_powers(m.0.iter().map(|(v, e)| (rename(v), *e))),
                c.clone(),
            )
        }))
    }
}

impl<V: Ord + Clone> Add<&Polynomial<V>> for &Polynomial<V> {
    type Output = Polynomial<V>;
    fn add(self, rhs: &Polynomial<V>) -> Polynomial<V> {
        let mut sum = self.clone();
        for (m, c) in &rhs.terms {
            sum.add_term(m.clone(), c.clone());
        }
        sum
    }
}
impl<V: Ord + Clone> Add for Polynomial<V> {
    type Output = Polynomial<V>;
    fn add(self, rhs: Polynomial<V>) -> Polynomial<V> {
        &self + &rhs
    }
}
impl<V: Ord + Clone> Neg for &Polynomial<V> {
    type Output = Polynomial<V>;
    fn neg(self) -> Polynomial<V> {
        self.scale(&Rat::from(-1))
    }
}
impl<V: Ord + Clone> Neg for Polynomial<V> {
    type Output = Polynomial<V>;
    fn neg(self) -> Polynomial<V> {
        -&self
    }
}
impl<V: Ord + Clone> Sub<&Polynomial<V>> for &Polynomial<V> {
    type Output = Polynomial<V>;
    fn sub(self, rhs: &Polynomial<V>) -> Polynomial<V> {
        self + &(-rhs)
    }
}
impl<V: Ord + Clone> Sub for Polynomial<V> {
    type Output = Polynomial<V>;
    fn sub(self, rhs: Polynomial<V>) -> Polynomial<V> {
        &self - &rhs
    }
}
impl<V: Ord + Clone> Mul<&Polynomial<V>> for &Polynomial<V> {
    type Output = Polynomial<V>;
    fn mul(self, rhs: &Polynomial<V>) -> Polynomial<V> {
        let mut product = Polynomial::zero();
        for (m1, c1) in &self.terms {
            for (m2, c2) in &rhs.terms {
                product.add_term(m1.mul(m2), c1 * c2);
            }
        }
        product
    }
}
impl<V: Ord + Clone> Mul for Polynomial<V> {
    type Output = Polynomial<V>;
    fn mul(self, rhs: Polynomial<V>) -> Polynomial<V> {
        &self * &rhs
    }
}

impl<V: Ord + Clone + fmt::Display> Polynomial<V> {
    /// Terms in decreasing degree, `*` between factors: `1/2*n^2 + 1/2*n`.
    pub fn fmt_readable(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return write!(f, "0");
        }
        let mut ordered: Vec<(&Monomial<V>, &Rat)> = self.terms.iter().collect();
        ordered.sort_by(|a, b| b.0.degree().cmp(&a.0.degree()).then(a.0.cmp(b.0)));
        let mut first = true;
        for (monomial, coeff) in ordered {
            let name = monomial_text(monomial);
            write_term(
                f,
                coeff,
                (!name.is_empty()).then_some(name.as_str()),
                &mut first,
            )?;
        }
        Ok(())
    }
}

pub(crate) fn monomial_text<V: fmt::Display>(monomial: &Monomial<V>) -> String {
    let factors: Vec<String> = monomial
        .0
        .iter()
        .map(|(v, e)| {
            if *e == 1 {
                v.to_string()
            } else {
                format!("{v}^{e}")
            }
        })
        .collect();
    factors.join("*")
}

impl<V: Ord + Clone + fmt::Display> fmt::Display for Polynomial<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_readable(f)
    }
}
impl<V: Ord + Clone + fmt::Display> fmt::Debug for Polynomial<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_readable(f)
    }
}

/// JSON shape: a list of `{ "monomial": [[var, exponent], …], "coeff": "p/q" }`.
#[derive(Serialize, Deserialize)]
struct TermShape<V> {
    monomial: Monomial<V>,
    coeff: Rat,
}

impl<V: Ord + Clone + Serialize> Serialize for Polynomial<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let terms: Vec<TermShape<V>> = self
            .terms
            .iter()
            .map(|(m, c)| TermShape {
                monomial: m.clone(),
                coeff: c.clone(),
            })
            .collect();
        terms.serialize(serializer)
    }
}
impl<'de, V: Ord + Clone + Deserialize<'de>> Deserialize<'de> for Polynomial<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let terms: Vec<TermShape<V>> = Vec::deserialize(deserializer)?;
        Ok(Polynomial::from_terms(
            terms
                .into_iter()
                .map(|t| (Monomial::from_powers(t.monomial.0), t.coeff)),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n() -> Polynomial {
        Polynomial::var("n".to_string())
    }

    #[test]
    fn arithmetic_and_printing() {
        let p = (&n() * &n() + n()).scale(&Rat::new(1, 2).unwrap());
        assert_eq!(p.to_string(), "1/2*n^2 + 1/2*n");
        assert_eq!((&p - &p).to_string(), "0");
        assert_eq!(p.eval(&|_| Rat::from(4)), Rat::from(10));
    }

    #[test]
    fn substitution_expands() {
        let p = &n() * &n();
        let shifted = p.substitute(&"n".to_string(), &(n() + Polynomial::constant(1)));
        assert_eq!(shifted.to_string(), "n^2 + 2*n + 1");
    }

    #[test]
    fn serde_round_trip() {
        let p = &n() * &n() - Polynomial::constant(Rat::new(3, 2).unwrap());
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<Polynomial>(&json).unwrap(), p);
    }
}

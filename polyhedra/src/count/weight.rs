//! A weight (a quasi-polynomial in a set's dims and parameters) in the form the engine sums:
//! polynomials over the set's columns, one per residue class of the dims the weight is periodic
//! in, and symbols for the coefficients that are periodic in the parameters.
//!
//! - A dim `x` with period `p` in the weight is split by class: class `r` adds the congruence
//!   `x ≡ r (mod p)` to the set (a division, as `mod` does) and sums that class's polynomial,
//!   so a periodic weight is summed exactly. Classes whose polynomial is 0 are not summed.
//! - A coefficient periodic in the parameters only (`[1, 0]_n * i`) does not depend on the
//!   point summed over: it factors out of the sum. It becomes a symbol, a column the engine
//!   carries along untouched, replaced by the periodic number when the result is built.

use std::collections::HashMap;

use crate::polynomial::{Monomial, Polynomial};
use crate::quasipoly::QuasiPolynomial;
use crate::scalar::{Int, Rat};
use crate::set::Space;

use super::CountError;
use super::engine::SummandVar;

/// Above this many residue classes of the dims the weight is periodic in, summing stops.
const CLASS_LIMIT: usize = 4096;

/// `column ≡ residue (mod modulus)`, on a set column (a dim).
pub(super) struct Congruence {
    pub column: usize,
    pub modulus: Int,
    pub residue: Int,
}

/// The polynomial to sum on the points of one residue class of the periodic dims.
pub(super) struct WeightClass {
    pub congruences: Vec<Congruence>,
    pub summand: Polynomial<SummandVar>,
}

/// A weight split for the engine: its classes, and the periodic number of each symbol.
pub(super) struct SplitWeight {
    pub classes: Vec<WeightClass>,
    pub symbols: Vec<QuasiPolynomial>,
}

/// Splits `weight`, whose variables must be params or dims of `space` (set columns: params
/// first, then dims).
pub(super) fn split_weight(
    weight: &QuasiPolynomial,
    space: &Space,
) -> Result<SplitWeight, CountError> {
    let columns: HashMap<&str, usize> = space
        .dims
        .iter()
        .chain(&space.params)
        .enumerate()
        .map(|(i, name)| {
            let column = if i < space.dims.len() {
                space.params.len() + i
            } else {
                i - space.dims.len()
            };
            (name.as_str(), column)
        })
        .collect();
    if let Some(unknown) = weight
        .variables()
        .into_iter()
        .find(|v| !columns.contains_key(v.as_str()))
    {
        return Err(CountError::UnknownVariable(unknown));
    }
    let periodic_dims: Vec<(String, u32)> = weight
        .periods()
        .iter()
        .filter(|(var, _)| space.dims.contains(var))
        .cloned()
        .collect();
    let n_classes = periodic_dims
        .iter()
        .try_fold(1_usize, |n, (_, p)| n.checked_mul(*p as usize))
        .filter(|&n| n <= CLASS_LIMIT)
        .ok_or(CountError::TooComplex)?;
    let mut split = SplitWeight {
        classes: Vec::new(),
        symbols: Vec::new(),
    };
    for index in 0..n_classes {
        let mut class_weight = weight.clone();
        let mut congruences = Vec::new();
        let mut rest = index;
        for (var, period) in periodic_dims.iter().rev() {
            let residue = Int::from(rest % *period as usize);
            rest /= *period as usize;
            class_weight = class_weight.on_residue(var, &residue);
            congruences.push(Congruence {
                column: columns[var.as_str()],
                modulus: Int::from(*period),
                residue,
            });
        }
        if class_weight.is_zero() {
            continue;
        }
        let summand = summand(&class_weight, &columns, &mut split.symbols);
        split.classes.push(WeightClass {
            congruences,
            summand,
        });
    }
    Ok(split)
}

/// `weight` (periodic in parameters only) over set columns, each periodic coefficient a
/// symbol (reused when the same periodic number comes again).
fn summand(
    weight: &QuasiPolynomial,
    columns: &HashMap<&str, usize>,
    symbols: &mut Vec<QuasiPolynomial>,
) -> Polynomial<SummandVar> {
    let mut total = Polynomial::zero();
    for (monomial, coefficient) in weight.periodic_terms() {
        let powers = monomial
            .powers()
            .iter()
            .map(|(var, e)| (SummandVar::Column(columns[var.as_str()]), *e));
        let term = Polynomial::from_terms([(Monomial::from_powers(powers), Rat::one())]);
        let factor = match coefficient
            .as_polynomial()
            .and_then(Polynomial::as_constant)
        {
            Some(constant) => Polynomial::constant(constant),
            None => {
                let index = symbols
                    .iter()
                    .position(|s| *s == coefficient)
                    .unwrap_or_else(|| {
                        symbols.push(coefficient);
                        symbols.len() - 1
                    });
                Polynomial::var(SummandVar::Symbol(index))
            }
        };
        total = total + &factor * &term;
    }
    total
}

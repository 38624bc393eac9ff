//! A parameter that is a power of two, `n = 2^x`, substituted by its exponent: what a caller
//! that passes `1 << x` makes of its callee's bound in `n`. Polynomial leaves become sums of
//! powers (`n^2 = 4^x`), a guard atom in `n` alone becomes one in `x` (`2^x` is increasing,
//! so `n >= 3` is `x >= 2`), and [`crate::simplify()`] then folds `floor_log2(2^x)` to `x`.

use membound_polyhedra::{Int, Polynomial, QuasiPolynomial, Rat, Relation};

use crate::expr::{Arm, BoundExpr, floor_log2};
use crate::guard::{Atom, Guard};
use crate::simplify::{product_of, sum_of};

impl BoundExpr {
    /// The expression with parameter `name` replaced by `2^exponent`, exact wherever
    /// `exponent` (affine, integer-valued) is a non-negative integer; `None` when `name`
    /// appears where the substitution has no form here: in a leaf periodic in `name`, or in a
    /// guard atom that also reads other parameters.
    pub fn with_power_of_two(&self, name: &str, exponent: &Polynomial) -> Option<BoundExpr> {
        let all = |items: &[BoundExpr]| -> Option<Vec<BoundExpr>> {
            items
                .iter()
                .map(|e| e.with_power_of_two(name, exponent))
                .collect()
        };
        Some(match self {
            BoundExpr::Pol(qp) => power_leaf(qp, name, exponent)?,
            BoundExpr::Inf => BoundExpr::Inf,
            BoundExpr::Sum(items) => BoundExpr::Sum(all(items)?),
            BoundExpr::Max(items) => BoundExpr::Max(all(items)?),
            BoundExpr::Mul(items) => BoundExpr::Mul(all(items)?),
            BoundExpr::Cases { arms, default } => BoundExpr::Cases {
                arms: arms
                    .iter()
                    .map(|arm| {
                        Some(Arm {
                            guard: power_guard(&arm.guard, name, exponent)?,
                            expr: arm.expr.with_power_of_two(name, exponent)?,
                        })
                    })
                    .collect::<Option<Vec<Arm>>>()?,
                default: Box::new(default.with_power_of_two(name, exponent)?),
            },
            BoundExpr::Pow { base, exponent: e } => BoundExpr::Pow {
                base: base.clone(),
                exponent: Box::new(e.with_power_of_two(name, exponent)?),
            },
            BoundExpr::Log2 { arg } => BoundExpr::log2(arg.with_power_of_two(name, exponent)?),
        })
    }
}

/// A leaf with `name = 2^exponent`: `Σ_k c_k · 2^(k·exponent)` for the coefficients `c_k` of
/// `name^k`.
fn power_leaf(qp: &QuasiPolynomial, name: &str, exponent: &Polynomial) -> Option<BoundExpr> {
    let name = name.to_string();
    if !qp.variables().contains(&name) {
        return Some(BoundExpr::Pol(qp.clone()));
    }
    let polynomial = qp.as_polynomial()?;
    let terms = polynomial
        .coefficients_in(&name)
        .into_iter()
        .enumerate()
        .filter(|(_, coefficient)| !coefficient.is_zero())
        .map(|(k, coefficient)| {
            let power = BoundExpr::pow(
                Int::from(2),
                BoundExpr::pol(exponent.scale(&Rat::from(k as i64))),
            )
            .expect("2 is a base");
            product_of(vec![BoundExpr::pol(coefficient), power])
        })
        .collect();
    Some(sum_of(terms))
}

/// A guard with `name = 2^exponent`: an atom that does not read `name` stays; one that reads
/// it alone (`a·name + c >= 0`, `= 0`) becomes its equivalent on the exponent, for exponents
/// that are non-negative integers.
fn power_guard(guard: &Guard, name: &str, exponent: &Polynomial) -> Option<Guard> {
    let mut atoms = Vec::new();
    for atom in &guard.atoms {
        let name = name.to_string();
        let coefficients = atom.expr.coefficients_in(&name);
        match coefficients.as_slice() {
            [] | [_] => atoms.push(atom.clone()),
            [rest, a] => {
                let (c, a) = (rest.as_constant()?, a.as_constant()?);
                atoms.extend(exponent_atom(atom.rel, &a, &c, exponent));
            }
            _ => return None,
        }
    }
    Some(Guard::from_atoms(atoms))
}

/// `a·2^x + c >= 0` (or `= 0`) as at most one atom on `x` (a non-negative integer, given as
/// `exponent`): none when it always holds, `-1 >= 0` when it never does.
fn exponent_atom(rel: Relation, a: &Rat, c: &Rat, exponent: &Polynomial) -> Option<Atom> {
    let never = Atom::ge(Polynomial::constant(-1));
    let threshold = -c.clone() / a.clone();
    let constant = |k: u64| Polynomial::constant(Rat::from(k as i64));
    let at = |k: u64| exponent - &constant(k);
    match rel {
        // 2^x = t: t = 2^k for some k >= 0.
        Relation::Eq => Some(match exact_power_of_two(&threshold) {
            Some(k) => Atom::eq(at(k)),
            None => never,
        }),
        // 2^x >= t: always when t <= 1, else x >= ⌈log2 t⌉.
        Relation::Ge if a.is_positive() => (threshold > Rat::one()).then(|| {
            let floor = floor_log2(&threshold);
            let ceil = match exact_power_of_two(&threshold) {
                Some(k) => k,
                None => floor + 1,
            };
            Atom::ge(at(ceil))
        }),
        // 2^x <= t: never when t < 1, else x <= ⌊log2 t⌋.
        Relation::Ge => Some(if threshold < Rat::one() {
            never
        } else {
            Atom::ge(&constant(floor_log2(&threshold)) - exponent)
        }),
    }
}

/// `k` with `2^k = value`, for an integer `value >= 1`.
fn exact_power_of_two(value: &Rat) -> Option<u64> {
    if !value.is_integer() || *value < Rat::one() {
        return None;
    }
    let k = floor_log2(value);
    (Rat::from(Int::from(2).pow(k as u32)) == *value).then_some(k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simplify;

    fn at(expr: &BoundExpr, x: i64) -> String {
        expr.with_value("x", &Int::from(x))
            .eval(&Default::default())
            .unwrap()
            .to_string()
    }

    #[test]
    fn guards_in_the_power_become_guards_in_its_exponent() {
        // cases(n >= 3 -> n^2; n = 1 -> 7; otherwise -> n) at n = 2^x.
        let n = || Polynomial::var("n".to_string());
        let expr = BoundExpr::Cases {
            arms: vec![
                Arm {
                    guard: Guard::from_atoms(vec![Atom::ge(&n() - &Polynomial::constant(3))]),
                    expr: BoundExpr::pol(&n() * &n()),
                },
                Arm {
                    guard: Guard::from_atoms(vec![Atom::eq(&n() - &Polynomial::constant(1))]),
                    expr: BoundExpr::pol(Polynomial::constant(7)),
                },
            ],
            default: Box::new(BoundExpr::pol(n())),
        };
        let x = Polynomial::var("x".to_string());
        let substituted = expr.with_power_of_two("n", &x).unwrap();
        for (value, expected) in [(0, "7"), (1, "2"), (2, "16"), (5, "1024")] {
            assert_eq!(at(&substituted, value), expected, "at x = {value}");
        }
    }

    #[test]
    fn the_logarithm_of_the_power_is_its_exponent() {
        let n = Polynomial::var("n".to_string());
        let expr = BoundExpr::pow(4, BoundExpr::log2(BoundExpr::pol(n))).unwrap();
        let x = Polynomial::var("x".to_string());
        let substituted = expr.with_power_of_two("n", &x).unwrap();
        let assumed = Guard::from_atoms(vec![Atom::ge(x.clone())]);
        let simplified = simplify(&substituted, &assumed);
        assert_eq!(simplified.to_readable(), "4^x");
        assert_eq!(at(&simplified, 3), "64");
    }

    #[test]
    fn a_guard_mixing_the_power_with_another_parameter_has_no_form() {
        let guard = Atom::ge(&Polynomial::var("n".to_string()) - &Polynomial::var("m".to_string()));
        let expr = BoundExpr::Cases {
            arms: vec![Arm {
                guard: Guard::from_atoms(vec![guard]),
                expr: BoundExpr::pol(Polynomial::constant(1)),
            }],
            default: Box::new(BoundExpr::zero()),
        };
        let x = Polynomial::var("x".to_string());
        assert_eq!(expr.with_power_of_two("n", &x), None);
    }
}

//! Measures synthesized by Farkas' lemma, for recursions whose guard names no measure itself
//! (issue 17's ranking functions by exact LP).
//!
//! A measure `μ(x) = c·x + c0` of the formals is wanted with, on every part `P` of every
//! recursive call's binding (columns: the formals `x`, then the callee's formals `x'`),
//! `μ(x) - 1 >= 0` (the method recurses only where `μ >= 1`) and a shrink: `μ(x) - μ(x') - 1 >= 0`
//! (ranked) or `μ(x) - 2·μ(x') >= 0` (halving). By the affine form of Farkas' lemma, an affine
//! `f` is nonnegative on a nonempty `P = {z : a_i·z + b_i >= 0 (or = 0)}` exactly when
//! `f = Σ λ_i (a_i·z + b_i) + λ_0` with `λ_0 >= 0` and `λ_i >= 0` for the inequalities: linear
//! constraints in `c`, `c0` and the multipliers, one system for all parts, whose point (exact
//! simplex, [`Polyhedron::point_on`]) gives `c` and `c0`. The measure is scaled to integer
//! coefficients (a positive multiple keeps every condition), and the caller checks its laws and
//! its guard again on the bindings: the synthesis only proposes.

use membound_polyhedra::{Affine, Constraint, Int, Polyhedron, Rat, Relation};
use num_integer::Integer;

/// How the measure must shrink on each call.
#[derive(Clone, Copy)]
enum Shrink {
    /// `μ(x') <= μ(x) - 1`.
    Ranked,
    /// `2·μ(x') <= μ(x)`.
    Halving,
}

/// The most multipliers one system may have (two per constraint of a part); beyond, no measure
/// is synthesized (each point takes up to `2(n + 1)` simplex runs over all the columns).
const MAX_MULTIPLIERS: usize = 2048;

/// Measures over `n` formals found for `parts` (the polyhedra of the recursive calls'
/// bindings, over `2n` columns), halving first (fewer levels), then ranked.
pub(super) fn synthesized(parts: &[&Polyhedron], n: usize) -> Vec<Affine> {
    let multipliers: usize = parts.iter().map(|part| 2 * part.constraints().len()).sum();
    if multipliers > MAX_MULTIPLIERS {
        return Vec::new();
    }
    [Shrink::Halving, Shrink::Ranked]
        .into_iter()
        .filter_map(|shrink| synthesize(parts, n, shrink))
        .collect()
}

/// The unknowns' columns: `c_0 … c_{n-1}`, then `c0` at `n`, then the multipliers.
fn synthesize(parts: &[&Polyhedron], n: usize, shrink: Shrink) -> Option<Affine> {
    let c = |k: usize| Affine::var(k);
    let c0 = || Affine::var(n);
    let mut system = System {
        constraints: Vec::new(),
        next: n + 1,
    };
    for part in parts {
        // μ(x) - 1 >= 0.
        system.nonnegative_on(
            part,
            &|k| if k < n { c(k) } else { Affine::zero() },
            c0().sub(&Affine::constant(1)),
        );
        match shrink {
            // μ(x) - μ(x') - 1 >= 0.
            Shrink::Ranked => system.nonnegative_on(
                part,
                &|k| if k < n { c(k) } else { c(k - n).neg() },
                Affine::constant(-1),
            ),
            // μ(x) - 2·μ(x') >= 0.
            Shrink::Halving => system.nonnegative_on(
                part,
                &|k| {
                    if k < n {
                        c(k)
                    } else {
                        c(k - n).scale(&Rat::from(-2))
                    }
                },
                c0().neg(),
            ),
        }
    }
    let unknowns: Vec<usize> = (0..=n).collect();
    let point =
        Polyhedron::from_constraints(system.next, system.constraints).point_on(&unknowns)?;
    let (coeffs, constant) = point.split_at(n);
    integer_multiple(Affine::from_coeffs(coeffs.to_vec(), constant[0].clone()))
}

/// The linear system of the unknowns and the multipliers.
struct System {
    constraints: Vec<Constraint>,
    /// The next free column (for a multiplier).
    next: usize,
}

impl System {
    /// Constraints that make `f(z) = Σ_k coeff(k)·z_k + constant` (each an affine form of the
    /// unknowns) nonnegative on `part`, by Farkas' lemma with fresh multipliers.
    fn nonnegative_on(
        &mut self,
        part: &Polyhedron,
        coeff: &dyn Fn(usize) -> Affine,
        constant: Affine,
    ) {
        let multipliers: Vec<(usize, &Constraint)> = part
            .constraints()
            .iter()
            .enumerate()
            .map(|(i, constraint)| (self.next + i, constraint))
            .collect();
        self.next += multipliers.len();
        for &(column, constraint) in &multipliers {
            if constraint.rel == Relation::Ge {
                self.constraints.push(Constraint::ge(Affine::var(column)));
            }
        }
        // coeff(k) = Σ λ_i a_ik for every column k of the part.
        for k in 0..part.dim() {
            let sum = multipliers
                .iter()
                .fold(coeff(k), |sum, (column, constraint)| {
                    sum.add_scaled(&-constraint.expr.coeff(k), &Affine::var(*column))
                });
            self.constraints.push(Constraint::eq(sum));
        }
        // constant - Σ λ_i b_i = λ_0 >= 0.
        let rest = multipliers
            .iter()
            .fold(constant, |sum, (column, constraint)| {
                sum.add_scaled(&-constraint.expr.constant.clone(), &Affine::var(*column))
            });
        self.constraints.push(Constraint::ge(rest));
    }
}

/// `μ` times the least common multiple of its denominators (`None` for a constant `μ`, which
/// shrinks nowhere).
fn integer_multiple(measure: Affine) -> Option<Affine> {
    if measure.is_constant() {
        return None;
    }
    let lcm = measure
        .coeffs
        .iter()
        .chain([&measure.constant])
        .fold(Int::from(1), |lcm, value| lcm.lcm(&value.denom()));
    Some(measure.scale(&Rat::from(lcm)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ge(coeffs: &[i64], constant: i64) -> Constraint {
        Constraint::ge(Affine::from_ints(coeffs, constant))
    }
    fn eq(coeffs: &[i64], constant: i64) -> Constraint {
        Constraint::eq(Affine::from_ints(coeffs, constant))
    }

    /// Whether `measure` is at least 1 on `part` and drops by at least 1 on it.
    fn ranks(measure: &Affine, part: &Polyhedron, n: usize) -> bool {
        let callee = measure.remap(|column| column + n);
        part.implies(&Constraint::ge(measure.sub(&Affine::constant(1))))
            && part.implies(&Constraint::ge(
                measure.sub(&callee).sub(&Affine::constant(1)),
            ))
    }

    #[test]
    fn a_combination_of_the_formals_ranks_calls_no_single_guard_ranks() {
        // zig(x, y) with x >= 1, y >= 1 calls zig(x - 1, y + 1) and zig(x + 1, y - 3): neither
        // x nor y shrinks on both calls, 2x + y does.
        let guards = [ge(&[1, 0, 0, 0], -1), ge(&[0, 1, 0, 0], -1)];
        let first = Polyhedron::from_constraints(
            4,
            [
                guards.to_vec(),
                vec![eq(&[1, 0, -1, 0], -1), eq(&[0, 1, 0, -1], 1)],
            ]
            .concat(),
        );
        let second = Polyhedron::from_constraints(
            4,
            [
                guards.to_vec(),
                vec![eq(&[1, 0, -1, 0], 1), eq(&[0, 1, 0, -1], -3)],
            ]
            .concat(),
        );
        let found = synthesize(&[&first, &second], 2, Shrink::Ranked).expect("a measure");
        assert!(
            ranks(&found, &first, 2) && ranks(&found, &second, 2),
            "{found:?}"
        );
        assert!(
            found
                .coeffs
                .iter()
                .chain([&found.constant])
                .all(Rat::is_integer)
        );
        // Nothing halves on these calls.
        assert!(synthesize(&[&first, &second], 2, Shrink::Halving).is_none());
    }

    #[test]
    fn a_call_that_does_not_shrink_anything_has_no_measure() {
        // f(x) with x >= 1 calls f(x + 1).
        let part = Polyhedron::from_constraints(2, vec![ge(&[1, 0], -1), eq(&[1, -1], 1)]);
        assert!(synthesized(&[&part], 1).is_empty());
    }
}

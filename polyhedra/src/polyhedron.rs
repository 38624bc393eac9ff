//! Rational polyhedra in constraint (H) form: `{ x ∈ Q^dim : constraints }`.
//!
//! These are the exact polyhedral operations the invariant engine builds on: emptiness,
//! intersection, projection, inclusion, redundancy removal and a normal form. All answers are
//! exact over the rationals (integer-exactness is the counting module's business).

use std::cell::RefCell;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::affine::Affine;
use crate::constraint::{Constraint, Relation};
use crate::fourier_motzkin::System;
use crate::lp;
use crate::scalar::Rat;

#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Polyhedron {
    dim: usize,
    constraints: Vec<Constraint>,
}

impl Polyhedron {
    /// All of `Q^dim`.
    pub fn universe(dim: usize) -> Polyhedron {
        Polyhedron {
            dim,
            constraints: Vec::new(),
        }
    }
    /// The empty polyhedron of dimension `dim`.
    pub fn empty(dim: usize) -> Polyhedron {
        Polyhedron {
            dim,
            constraints: vec![Constraint::ge(Affine::constant(-1))],
        }
    }
    /// Constraints may only mention variables below `dim`; higher ones are dropped.
    pub fn from_constraints(dim: usize, constraints: Vec<Constraint>) -> Polyhedron {
        let mut poly = Polyhedron::universe(dim);
        for c in constraints {
            poly.add_constraint(c);
        }
        poly
    }
    pub fn dim(&self) -> usize {
        self.dim
    }
    pub fn constraints(&self) -> &[Constraint] {
        &self.constraints
    }
    pub fn add_constraint(&mut self, mut constraint: Constraint) {
        constraint.expr.coeffs.truncate(self.dim);
        constraint.expr = Affine::from_coeffs(constraint.expr.coeffs, constraint.expr.constant);
        self.constraints.push(constraint);
    }

    pub(crate) fn system(&self) -> System {
        System::from_constraints(&self.constraints, false)
    }

    pub fn is_empty(&self) -> bool {
        lp::is_infeasible(&self.constraints)
    }
    pub fn contains(&self, point: &[Rat]) -> bool {
        self.constraints.iter().all(|c| c.is_satisfied(point))
    }
    pub fn intersect(&self, other: &Polyhedron) -> Polyhedron {
        let dim = self.dim.max(other.dim);
        Polyhedron::from_constraints(
            dim,
            self.constraints
                .iter()
                .chain(&other.constraints)
                .cloned()
                .collect(),
        )
    }

    /// True when every point of `self` satisfies `constraint`.
    pub fn implies(&self, constraint: &Constraint) -> bool {
        let holds = |expr: &Affine| lp::implies_nonnegative(&self.constraints, expr);
        match constraint.rel {
            Relation::Ge => holds(&constraint.expr),
            Relation::Eq => holds(&constraint.expr) && holds(&constraint.expr.neg()),
        }
    }
    /// A point of `self` given on `columns` (the other columns take values that complete it),
    /// fixed column by column: each at its smallest value where it has one, else at its
    /// largest, else at 0 (the column then takes every value). `None` when `self` is empty.
    pub fn point_on(&self, columns: &[usize]) -> Option<Vec<Rat>> {
        let mut constraints = self.constraints.clone();
        let mut point = Vec::with_capacity(columns.len());
        for &column in columns {
            let lowest = match lp::minimize(&Affine::var(column), &constraints) {
                lp::LpResult::Infeasible => return None,
                lp::LpResult::Optimal(value) => Some(value),
                lp::LpResult::Unbounded => None,
            };
            let value = lowest.unwrap_or_else(|| {
                match lp::minimize(&Affine::var(column).neg(), &constraints) {
                    lp::LpResult::Optimal(value) => -value,
                    _ => Rat::zero(),
                }
            });
            let at = Affine::var(column).sub(&Affine::constant(value.clone()));
            constraints.push(Constraint::eq(at));
            point.push(value);
        }
        Some(point)
    }

    /// True when `other ⊆ self`.
    pub fn includes(&self, other: &Polyhedron) -> bool {
        other.is_empty() || self.constraints.iter().all(|c| other.implies(c))
    }

    /// The projection that removes the variables in `vars`; the remaining variables keep their
    /// order and are renumbered from 0.
    pub fn project_out(&self, vars: &[usize]) -> Polyhedron {
        let mut system = self.system();
        for &var in vars {
            system.eliminate(var);
        }
        let keep: Vec<usize> = (0..self.dim).filter(|v| !vars.contains(v)).collect();
        let renumber = |i: usize| keep.iter().position(|&k| k == i).unwrap_or(i);
        if system.infeasible {
            return Polyhedron::empty(keep.len());
        }
        let constraints = system
            .eqs
            .iter()
            .map(|e| Constraint::eq(e.remap(renumber)))
            .chain(
                system
                    .ineqs
                    .iter()
                    .map(|i| Constraint::ge(i.expr.remap(renumber))),
            )
            .collect();
        Polyhedron::from_constraints(keep.len(), constraints).minimized()
    }
    /// The projection onto the variables in `keep` (in that order).
    pub fn project_onto(&self, keep: &[usize]) -> Polyhedron {
        let drop: Vec<usize> = (0..self.dim).filter(|v| !keep.contains(v)).collect();
        let projected = self.project_out(&drop);
        let mut sorted = keep.to_vec();
        sorted.sort_unstable();
        let order = |i: usize| keep.iter().position(|&k| k == sorted[i]).unwrap_or(i);
        Polyhedron {
            dim: keep.len(),
            constraints: projected
                .constraints
                .iter()
                .map(|c| c.remap(order))
                .collect(),
        }
    }

    /// Normal form: equalities (explicit and implied) in reduced echelon form, inequalities in
    /// lowest integer terms with the equalities substituted out, no redundant constraint, in a
    /// canonical order. Two equal polyhedra get the same normal form up to the choice of
    /// echelon pivots (which is deterministic).
    ///
    /// A fixpoint asks for the normal form of the same system again and again (half the calls
    /// on a loop nest's joins repeat one), and each costs a linear program per constraint, so
    /// the answers of the last [`MINIMIZED_CACHE_LIMIT`] distinct systems are remembered.
    pub fn minimized(&self) -> Polyhedron {
        if let Some(known) = MINIMIZED.with_borrow(|cache| cache.get(self).cloned()) {
            return known;
        }
        let normal = self.normal_form();
        MINIMIZED.with_borrow_mut(|cache| {
            if cache.len() >= MINIMIZED_CACHE_LIMIT {
                cache.clear();
            }
            cache.insert(self.clone(), normal.clone());
        });
        normal
    }

    fn normal_form(&self) -> Polyhedron {
        if self.is_empty() {
            return Polyhedron::empty(self.dim);
        }
        let mut equalities: Vec<Affine> = self
            .constraints
            .iter()
            .filter(|c| c.is_equality())
            .map(|c| c.expr.clone())
            .collect();
        let mut inequalities: Vec<Affine> = self
            .constraints
            .iter()
            .filter(|c| !c.is_equality())
            .map(|c| c.expr.clone())
            .collect();
        // An inequality that cannot be strict anywhere is an implicit equality; one linear
        // program rules them all out when a point is strict for every inequality at once.
        let implicit: Vec<Affine> = if lp::has_strictly_feasible_point(&self.constraints) {
            Vec::new()
        } else {
            inequalities
                .iter()
                .filter(|e| lp::implies_nonnegative(&self.constraints, &e.neg()))
                .cloned()
                .collect()
        };
        inequalities.retain(|e| !implicit.contains(e));
        equalities.extend(implicit);
        let equalities = reduced_echelon(equalities);
        let inequalities: Vec<Affine> = inequalities
            .iter()
            .map(|e| eliminate_pivots(e, &equalities).primitive())
            .filter(|e| !e.is_constant())
            .collect();
        let inequalities = without_redundant(&equalities, dedup(inequalities));
        let mut constraints: Vec<Constraint> = equalities.into_iter().map(Constraint::eq).collect();
        let mut sorted = inequalities;
        sorted.sort_by(|a, b| a.coeffs.cmp(&b.coeffs).then(a.constant.cmp(&b.constant)));
        constraints.extend(sorted.into_iter().map(Constraint::ge));
        Polyhedron {
            dim: self.dim,
            constraints,
        }
    }
}

/// How many normal forms [`Polyhedron::minimized`] keeps per thread (a few megabytes at most).
const MINIMIZED_CACHE_LIMIT: usize = 1024;

thread_local! {
    static MINIMIZED: RefCell<HashMap<Polyhedron, Polyhedron>> = RefCell::new(HashMap::new());
}

fn dedup(forms: Vec<Affine>) -> Vec<Affine> {
    let mut unique: Vec<Affine> = Vec::new();
    for form in forms {
        if !unique.contains(&form) {
            unique.push(form);
        }
    }
    unique
}

/// Drops, one at a time, every inequality implied by the others.
fn without_redundant(equalities: &[Affine], inequalities: Vec<Affine>) -> Vec<Affine> {
    let mut kept = inequalities;
    let mut index = 0;
    while index < kept.len() {
        let others: Vec<Constraint> = kept
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != index)
            .map(|(_, e)| Constraint::ge(e.clone()))
            .chain(equalities.iter().cloned().map(Constraint::eq))
            .collect();
        if lp::implies_nonnegative(&others, &kept[index]) {
            kept.remove(index);
        } else {
            index += 1;
        }
    }
    kept
}

/// Gauss–Jordan on equalities: each pivot variable (the last variable of its row) appears in
/// exactly one row, with coefficient 1 after scaling; rows are then made primitive.
fn reduced_echelon(rows: Vec<Affine>) -> Vec<Affine> {
    let mut done: Vec<(usize, Affine)> = Vec::new();
    for row in rows {
        let row = eliminate_pivots_with(&row, &done);
        let Some(pivot) = row.support().last() else {
            continue;
        };
        let row = row.scale(&(Rat::one() / row.coeff(pivot)));
        for (_, other) in &mut done {
            *other = other.substitute_eq(pivot, &row);
        }
        done.push((pivot, row));
    }
    done.sort_by_key(|(pivot, _)| *pivot);
    done.into_iter().map(|(_, row)| row.primitive()).collect()
}

fn eliminate_pivots_with(form: &Affine, rows: &[(usize, Affine)]) -> Affine {
    rows.iter().fold(form.clone(), |acc, (pivot, row)| {
        acc.substitute_eq(*pivot, row)
    })
}

/// Removes from `form` the pivot (last) variable of each equality row.
fn eliminate_pivots(form: &Affine, rows: &[Affine]) -> Affine {
    rows.iter()
        .fold(form.clone(), |acc, row| match row.support().last() {
            Some(pivot) => acc.substitute_eq(pivot, row),
            None => acc,
        })
}

impl Affine {
    /// Uses the equality `row = 0` to remove variable `pivot` from `self`.
    pub(crate) fn substitute_eq(&self, pivot: usize, row: &Affine) -> Affine {
        let coeff = self.coeff(pivot);
        if coeff.is_zero() {
            return self.clone();
        }
        self.add_scaled(&(-coeff / row.coeff(pivot)), row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ge(coeffs: &[i64], constant: i64) -> Constraint {
        Constraint::ge(Affine::from_ints(coeffs, constant))
    }

    fn triangle() -> Polyhedron {
        // 0 <= y <= x <= 4
        Polyhedron::from_constraints(2, vec![ge(&[0, 1], 0), ge(&[1, -1], 0), ge(&[-1, 0], 4)])
    }

    #[test]
    fn emptiness_and_membership() {
        let t = triangle();
        assert!(!t.is_empty());
        assert!(t.contains(&[Rat::from(3), Rat::from(1)]));
        assert!(!t.contains(&[Rat::from(1), Rat::from(3)]));
        assert!(
            t.intersect(&Polyhedron::from_constraints(2, vec![ge(&[-1, 0], -5)]))
                .is_empty()
        );
    }

    #[test]
    fn projection_gives_the_shadow() {
        let shadow = triangle().project_out(&[1]);
        assert_eq!(
            shadow,
            Polyhedron::from_constraints(1, vec![ge(&[-1], 4), ge(&[1], 0)]).minimized()
        );
    }

    #[test]
    fn redundant_constraints_go_and_implicit_equalities_appear() {
        let poly = Polyhedron::from_constraints(
            2,
            vec![
                ge(&[1, 0], 0),
                ge(&[1, 0], 5),
                ge(&[-1, 0], 0),
                ge(&[0, 1], 0),
            ],
        );
        let normal = poly.minimized();
        assert_eq!(
            normal
                .constraints()
                .iter()
                .filter(|c| c.is_equality())
                .count(),
            1
        );
        assert_eq!(normal.constraints().len(), 2);
    }

    #[test]
    fn inclusion() {
        let big = triangle();
        let small = big.intersect(&Polyhedron::from_constraints(2, vec![ge(&[-1, 0], 2)]));
        assert!(big.includes(&small));
        assert!(!small.includes(&big));
        assert!(small.includes(&Polyhedron::empty(2)));
    }

    #[test]
    fn a_point_is_lowest_column_by_column_and_lies_inside() {
        // 1 <= x, x + y <= 5, y free below: x at 1, then y unbounded below but at most 4.
        let poly = Polyhedron::from_constraints(2, vec![ge(&[1, 0], -1), ge(&[-1, -1], 5)]);
        let point = poly.point_on(&[0, 1]).expect("a point");
        assert_eq!(point, vec![Rat::from(1), Rat::from(4)]);
        assert!(poly.contains(&point));
        // A free column is 0; an empty polyhedron has no point.
        assert_eq!(
            Polyhedron::universe(1).point_on(&[0]),
            Some(vec![Rat::zero()])
        );
        assert_eq!(Polyhedron::empty(1).point_on(&[0]), None);
    }
}

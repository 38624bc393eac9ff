//! Convex hull of two polyhedra (the invariant engine's join).
//!
//! Uses the lifted formulation: `x = y + z` with `y ∈ λ·P1`, `z ∈ (1-λ)·P2`, `0 <= λ <= 1`,
//! homogenised so that `λ = 0` admits the recession directions of `P1` (and `λ = 1` those of
//! `P2`); projecting out `y` and `λ` leaves the closed convex hull of `P1 ∪ P2`, exactly.

use crate::affine::Affine;
use crate::constraint::Constraint;
use crate::polyhedron::Polyhedron;
use crate::scalar::Rat;

impl Polyhedron {
    /// The smallest closed convex polyhedron containing `self` and `other`.
    pub fn hull(&self, other: &Polyhedron) -> Polyhedron {
        let dim = self.dim().max(other.dim());
        if self.is_empty() {
            return Polyhedron::from_constraints(dim, other.constraints().to_vec()).minimized();
        }
        if other.is_empty() {
            return Polyhedron::from_constraints(dim, self.constraints().to_vec()).minimized();
        }
        // Variables: x = 0..dim, y = dim..2*dim, λ = 2*dim.
        let lambda = 2 * dim;
        let mut constraints = Vec::new();
        for c in self.constraints() {
            // a·y + c·λ (rel) 0
            let lifted = c.expr.remap(|i| i + dim);
            let mut expr = Affine::from_coeffs(lifted.coeffs, Rat::zero());
            expr.set_coeff(lambda, c.expr.constant.clone());
            constraints.push(Constraint { expr, rel: c.rel });
        }
        for c in other.constraints() {
            // a·(x - y) + c·(1 - λ) (rel) 0
            let on_x = Affine::from_coeffs(c.expr.coeffs.clone(), Rat::zero());
            let mut expr = on_x.sub(&on_x.remap(|i| i + dim));
            expr.constant = c.expr.constant.clone();
            expr.set_coeff(lambda, -c.expr.constant.clone());
            constraints.push(Constraint { expr, rel: c.rel });
        }
        constraints.push(Constraint::ge(Affine::var(lambda)));
        constraints.push(Constraint::ge(
            Affine::constant(1).sub(&Affine::var(lambda)),
        ));
        let lifted = Polyhedron::from_constraints(2 * dim + 1, constraints);
        let eliminated: Vec<usize> = (dim..=lambda).collect();
        lifted.project_out(&eliminated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(coords: &[i64]) -> Polyhedron {
        let constraints = coords
            .iter()
            .enumerate()
            .map(|(i, &c)| Constraint::eq(Affine::var(i).sub(&Affine::constant(c))))
            .collect();
        Polyhedron::from_constraints(coords.len(), constraints)
    }

    #[test]
    fn hull_of_two_points_is_a_segment() {
        let segment = point(&[0, 0]).hull(&point(&[2, 2]));
        assert!(segment.contains(&[Rat::from(1), Rat::from(1)]));
        assert!(!segment.contains(&[Rat::from(1), Rat::from(0)]));
        assert!(!segment.contains(&[Rat::from(3), Rat::from(3)]));
    }

    #[test]
    fn hull_keeps_recession_directions() {
        // {x >= 0, y = 0} ∪ {(0, 1)}: the hull is 0 <= y <= 1, x >= 0
        let ray = Polyhedron::from_constraints(
            2,
            vec![
                Constraint::ge(Affine::var(0)),
                Constraint::eq(Affine::var(1)),
            ],
        );
        let hull = ray.hull(&point(&[0, 1]));
        assert!(hull.contains(&[Rat::from(100), Rat::new(1, 2).unwrap()]));
        assert!(!hull.contains(&[Rat::from(0), Rat::from(2)]));
        assert!(hull.includes(&ray));
    }

    #[test]
    fn hull_with_empty_is_identity() {
        let p = point(&[1, 2]);
        assert_eq!(p.hull(&Polyhedron::empty(2)), p.minimized());
    }
}

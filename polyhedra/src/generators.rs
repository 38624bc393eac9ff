//! Generators (V form) of a rational polyhedron: vertices, extreme rays and lines.
//!
//! Found by enumerating sets of tight constraints and solving them exactly; fine for the small
//! dimensions of loop nests (the count grows as `C(constraints, dim)`).

use serde::{Deserialize, Serialize};

use crate::affine::Affine;
use crate::constraint::Constraint;
use crate::linalg::{nullspace, solve_unique};
use crate::polyhedron::Polyhedron;
use crate::scalar::Rat;

#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct Generators {
    pub vertices: Vec<Vec<Rat>>,
    /// Extreme rays of the recession cone (orthogonal to the lines), primitive integer vectors.
    pub rays: Vec<Vec<Rat>>,
    /// A basis of the lineality space.
    pub lines: Vec<Vec<Rat>>,
}

impl Polyhedron {
    /// Vertices, rays and lines such that the polyhedron is `conv(vertices) + cone(rays) +
    /// span(lines)`. An empty polyhedron has no generators.
    pub fn generators(&self) -> Generators {
        let dim = self.dim();
        if self.is_empty() {
            return Generators::default();
        }
        let linear_rows: Vec<Vec<Rat>> = self
            .constraints()
            .iter()
            .map(|c| dense(&c.expr, dim))
            .collect();
        let lines = nullspace(&linear_rows, dim);
        // Cutting with the orthogonal complement of the lines leaves a pointed polyhedron.
        let mut pointed = self.clone();
        for line in &lines {
            pointed.add_constraint(Constraint::eq(Affine::from_coeffs(
                line.clone(),
                Rat::zero(),
            )));
        }
        let vertices = tight_solutions(&pointed, dim, |rows, rhs| solve_unique(rows, rhs, dim))
            .into_iter()
            .filter(|v| pointed.contains(v))
            .collect();
        let rays = extreme_rays(&pointed, dim);
        Generators {
            vertices,
            rays,
            lines,
        }
    }
}

fn dense(form: &Affine, dim: usize) -> Vec<Rat> {
    (0..dim).map(|i| form.coeff(i)).collect()
}

/// Every point obtained by making `dim` constraints tight (equalities always are).
fn tight_solutions(
    poly: &Polyhedron,
    dim: usize,
    solve: impl Fn(&[Vec<Rat>], &[Rat]) -> Option<Vec<Rat>>,
) -> Vec<Vec<Rat>> {
    let rows: Vec<(Vec<Rat>, Rat)> = poly
        .constraints()
        .iter()
        .map(|c| (dense(&c.expr, dim), -c.expr.constant.clone()))
        .collect();
    let mut found: Vec<Vec<Rat>> = Vec::new();
    for subset in subsets(rows.len(), dim) {
        let matrix: Vec<Vec<Rat>> = subset.iter().map(|&i| rows[i].0.clone()).collect();
        let rhs: Vec<Rat> = subset.iter().map(|&i| rows[i].1.clone()).collect();
        if let Some(point) = solve(&matrix, &rhs).filter(|p| !found.contains(p)) {
            found.push(point);
        }
    }
    found
}

/// Extreme rays of the recession cone of a pointed polyhedron: directions where `dim - 1`
/// independent constraints are tight and all others hold.
fn extreme_rays(poly: &Polyhedron, dim: usize) -> Vec<Vec<Rat>> {
    let cone: Vec<Constraint> = poly
        .constraints()
        .iter()
        .map(|c| Constraint {
            expr: Affine::from_coeffs(c.expr.coeffs.clone(), Rat::zero()),
            rel: c.rel,
        })
        .collect();
    let rows: Vec<Vec<Rat>> = cone.iter().map(|c| dense(&c.expr, dim)).collect();
    let mut rays: Vec<Vec<Rat>> = Vec::new();
    for subset in subsets(rows.len(), dim.saturating_sub(1)) {
        let tight: Vec<Vec<Rat>> = subset.iter().map(|&i| rows[i].clone()).collect();
        let kernel = nullspace(&tight, dim);
        if kernel.len() != 1 {
            continue;
        }
        for direction in [kernel[0].clone(), kernel[0].iter().map(|x| -x).collect()] {
            let primitive = Affine::from_coeffs(direction.clone(), Rat::zero()).primitive();
            let ray = dense(&primitive, dim);
            if cone.iter().all(|c| c.is_satisfied(&ray)) && !rays.contains(&ray) {
                rays.push(ray);
            }
        }
    }
    rays
}

/// All `size`-element subsets of `0..n`, in lexicographic order (the candidate bases of vertex
/// enumeration).
pub fn subsets(n: usize, size: usize) -> Vec<Vec<usize>> {
    fn extend(
        start: usize,
        n: usize,
        size: usize,
        current: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if current.len() == size {
            out.push(current.clone());
            return;
        }
        for i in start..n {
            current.push(i);
            extend(i + 1, n, size, current, out);
            current.pop();
        }
    }
    let mut out = Vec::new();
    extend(0, n, size, &mut Vec::new(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangle_has_three_vertices_and_no_rays() {
        // 0 <= y <= x <= 4
        let poly = Polyhedron::from_constraints(
            2,
            vec![
                Constraint::ge(Affine::var(1)),
                Constraint::ge(Affine::var(0).sub(&Affine::var(1))),
                Constraint::ge(Affine::constant(4).sub(&Affine::var(0))),
            ],
        );
        let generators = poly.generators();
        assert_eq!(generators.vertices.len(), 3);
        assert!(
            generators
                .vertices
                .contains(&vec![Rat::from(4), Rat::from(4)])
        );
        assert!(generators.rays.is_empty() && generators.lines.is_empty());
    }

    #[test]
    fn quadrant_has_two_rays() {
        let poly = Polyhedron::from_constraints(
            2,
            vec![
                Constraint::ge(Affine::var(0)),
                Constraint::ge(Affine::var(1)),
            ],
        );
        let generators = poly.generators();
        assert_eq!(generators.vertices, vec![vec![Rat::zero(), Rat::zero()]]);
        assert_eq!(generators.rays.len(), 2);
    }

    #[test]
    fn half_plane_has_a_line() {
        let poly = Polyhedron::from_constraints(2, vec![Constraint::ge(Affine::var(0))]);
        let generators = poly.generators();
        assert_eq!(generators.lines.len(), 1);
        assert_eq!(generators.rays, vec![vec![Rat::from(1), Rat::zero()]]);
    }
}

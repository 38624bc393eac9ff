//! Parametric vertices and the chamber decomposition of the parameter space (Loechner–Wilde).
//!
//! For a parametric polytope `{ x : A x + B p + c >= 0 }` (variables first, then parameters),
//! a parametric vertex is the solution `x(p)`, affine in `p`, of `dim(x)` tight constraints
//! with an invertible matrix; it is a vertex wherever every constraint holds at `x(p)`: its
//! *validity domain*, a polyhedron in `p`. The chambers are the full-dimensional cells of the
//! common refinement of the validity domains: inside one chamber the polytope has a fixed set
//! of vertices, each one affine function of the parameters. Chambers are closed, so
//! neighbours share their boundary. Enumerating bases is exponential in general and meant for
//! the small polytopes of loop nests.

use serde::{Deserialize, Serialize};

use crate::affine::Affine;
use crate::constraint::{Constraint, Relation};
use crate::generators::subsets;
use crate::linalg::solve_unique;
use crate::polyhedron::Polyhedron;
use crate::scalar::Rat;

#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ParametricVertex {
    /// Each coordinate as an affine form over the parameters.
    pub coords: Vec<Affine>,
    /// Where `coords` is a vertex of the polytope (a polyhedron over the parameters).
    pub domain: Polyhedron,
}

#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Chamber {
    /// A full-dimensional polyhedron over the parameters.
    pub domain: Polyhedron,
    /// Indices (into the vertex list) of the vertices valid on the whole chamber.
    pub vertices: Vec<usize>,
}

/// The parametric vertices of `poly`, whose first `n_vars` columns are the variables and the
/// rest the parameters.
pub fn parametric_vertices(poly: &Polyhedron, n_vars: usize) -> Vec<ParametricVertex> {
    let n_params = poly.dim().saturating_sub(n_vars);
    let constraints = poly.constraints();
    let mut vertices: Vec<ParametricVertex> = Vec::new();
    for basis in subsets(constraints.len(), n_vars) {
        let Some(coords) = solve_basis(constraints, &basis, n_vars, n_params) else {
            continue;
        };
        let domain = validity_domain(constraints, &coords, n_vars, n_params);
        if domain.is_empty() {
            continue;
        }
        let duplicate = vertices
            .iter()
            .any(|v| v.coords == coords && v.domain.minimized() == domain.minimized());
        if !duplicate {
            vertices.push(ParametricVertex { coords, domain });
        }
    }
    vertices
}

/// `x(p)` with the constraints of `basis` tight, if their variable part is invertible.
fn solve_basis(
    constraints: &[Constraint],
    basis: &[usize],
    n_vars: usize,
    n_params: usize,
) -> Option<Vec<Affine>> {
    let matrix: Vec<Vec<Rat>> = basis
        .iter()
        .map(|&i| (0..n_vars).map(|v| constraints[i].expr.coeff(v)).collect())
        .collect();
    // One right-hand side per parameter and one for the constant: A x = -(B p + c).
    let mut columns: Vec<Vec<Rat>> = Vec::new();
    for param in 0..=n_params {
        let rhs: Vec<Rat> = basis
            .iter()
            .map(|&i| {
                let expr = &constraints[i].expr;
                if param < n_params {
                    -expr.coeff(n_vars + param)
                } else {
                    -expr.constant.clone()
                }
            })
            .collect();
        columns.push(solve_unique(&matrix, &rhs, n_vars)?);
    }
    Some(
        (0..n_vars)
            .map(|v| {
                let coeffs = (0..n_params).map(|p| columns[p][v].clone()).collect();
                Affine::from_coeffs(coeffs, columns[n_params][v].clone())
            })
            .collect(),
    )
}

/// The parameters where every constraint holds at `x(p) = coords`.
fn validity_domain(
    constraints: &[Constraint],
    coords: &[Affine],
    n_vars: usize,
    n_params: usize,
) -> Polyhedron {
    let substituted = constraints
        .iter()
        .map(|c| {
            let mut expr = Affine::constant(c.expr.constant.clone());
            for p in 0..n_params {
                expr.set_coeff(p, c.expr.coeff(n_vars + p));
            }
            let expr =
                (0..n_vars).fold(expr, |acc, v| acc.add_scaled(&c.expr.coeff(v), &coords[v]));
            Constraint { expr, rel: c.rel }
        })
        .collect();
    Polyhedron::from_constraints(n_params, substituted)
}

/// The chambers of `vertices`' validity domains inside `context` (a polyhedron over the
/// parameters, e.g. where the polytope is non-empty).
pub fn chambers(vertices: &[ParametricVertex], context: &Polyhedron) -> Vec<Chamber> {
    let context_equalities = equality_count(context);
    let full = |p: &Polyhedron| !p.is_empty() && equality_count(p) == context_equalities;
    let mut cells: Vec<Polyhedron> = if full(context) {
        vec![context.clone()]
    } else {
        Vec::new()
    };
    for vertex in vertices {
        let mut refined = Vec::new();
        for cell in cells {
            let inside = cell.intersect(&vertex.domain);
            if full(&inside) {
                refined.push(inside.minimized());
            }
            let mut outside_prefix = cell.clone();
            // Constant constraints (`0 >= 0`) would make the whole cell its own outside.
            let domain = vertex.domain.minimized();
            for constraint in domain
                .constraints()
                .iter()
                .filter(|c| c.rel == Relation::Ge)
            {
                let mut outside = outside_prefix.clone();
                outside.add_constraint(Constraint::ge(constraint.expr.neg()));
                if full(&outside) {
                    refined.push(outside.minimized());
                }
                outside_prefix.add_constraint(constraint.clone());
            }
        }
        cells = Vec::new();
        for cell in refined {
            if !cells.contains(&cell) {
                cells.push(cell);
            }
        }
    }
    cells
        .into_iter()
        .map(|domain| {
            let valid = (0..vertices.len())
                .filter(|&i| vertices[i].domain.includes(&domain))
                .collect();
            Chamber {
                domain,
                vertices: valid,
            }
        })
        .collect()
}

fn equality_count(poly: &Polyhedron) -> usize {
    poly.minimized()
        .constraints()
        .iter()
        .filter(|c| c.is_equality())
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Columns: variables then parameters; `coeffs` gives each, `constant` the rest.
    fn ge(coeffs: &[i64], constant: i64) -> Constraint {
        Constraint::ge(Affine::from_ints(coeffs, constant))
    }

    #[test]
    fn triangle_has_three_vertices_in_one_chamber() {
        // [n] -> { [i, j] : 0 <= j <= i <= n }; columns i, j, n
        let poly = Polyhedron::from_constraints(
            3,
            vec![ge(&[0, 1, 0], 0), ge(&[1, -1, 0], 0), ge(&[-1, 0, 1], 0)],
        );
        let vertices = parametric_vertices(&poly, 2);
        assert_eq!(vertices.len(), 3);
        let context = poly.project_onto(&[2]);
        let cells = chambers(&vertices, &context);
        assert_eq!(cells.len(), 1);
        assert_eq!(cells[0].vertices.len(), 3);
    }

    #[test]
    fn min_of_two_parameters_gives_two_chambers() {
        // [n, m] -> { [i] : 0 <= i <= n and i <= m }; columns i, n, m
        let poly = Polyhedron::from_constraints(
            3,
            vec![ge(&[1, 0, 0], 0), ge(&[-1, 1, 0], 0), ge(&[-1, 0, 1], 0)],
        );
        let vertices = parametric_vertices(&poly, 1);
        assert_eq!(vertices.len(), 3);
        let cells = chambers(&vertices, &poly.project_onto(&[1, 2]));
        assert_eq!(cells.len(), 2);
        for cell in &cells {
            assert_eq!(cell.vertices.len(), 2, "{:?}", cell.domain);
        }
    }
}

//! Parametric vertices of a parametric polytope and the chambers of its parameter space
//! (Loechner–Wilde), built on the polyhedra crate's public API.
//!
//! A parametric vertex solves `dim` tight, independent constraints: `x(p)`, affine in `p`. It
//! is a vertex where every other constraint holds at `x(p)` (its validity domain, linear in
//! `p`). Starting from the parameters where the polytope is non-empty, a cell is split along a
//! validity constraint that holds on part of it, until every candidate vertex is valid on all
//! of the cell or on none of it. Cells are split into the integer halves `e >= 0` and
//! `e <= -1` (parameters are integers), so at each integer point of a chamber its vertices are
//! exactly the polytope's vertices there.

use membound_polyhedra::generators::{Generators, subsets};
use membound_polyhedra::{Affine, BasicSet, Constraint, Polyhedron, Polynomial, Rat, Relation};

use crate::guard::{ParamDomain, affine_to_linear};

/// Most constraint subsets enumerated when looking for vertices.
pub const MAX_SUBSETS: usize = 20_000;
/// Most chambers of one decomposition.
const MAX_CHAMBERS: usize = 256;

/// `{ x : constraints(p, x) }` with columns numbered parameters first, then variables.
#[derive(Clone, Debug, PartialEq)]
pub struct ParametricPolytope {
    pub params: Vec<String>,
    pub vars: Vec<String>,
    pub constraints: Vec<Constraint>,
}

/// A cell of the parameter space and the polytope's vertices there, each given by one affine
/// polynomial in the parameters per variable.
#[derive(Clone, Debug)]
pub struct Chamber {
    pub domain: ParamDomain,
    pub vertices: Vec<Vec<Polynomial>>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VertexError {
    #[error("{0} constraint subsets to search for vertices (limit {MAX_SUBSETS})")]
    TooManySubsets(usize),
    #[error("more than {MAX_CHAMBERS} chambers")]
    TooManyChambers,
    #[error("a chamber has no vertex although the polytope is not empty there")]
    NoVertex,
}

/// A candidate vertex and where it is one.
struct CandidateVertex {
    point: Vec<Affine>,
    validity: Vec<Constraint>,
}

enum Validity {
    Everywhere,
    Nowhere,
    SplitAlong(Constraint),
}

impl ParametricPolytope {
    pub fn new(
        params: Vec<String>,
        vars: Vec<String>,
        constraints: Vec<Constraint>,
    ) -> ParametricPolytope {
        ParametricPolytope {
            params,
            vars,
            constraints,
        }
    }
    /// The polytope of one part of a set: `dims` (the set's dims, named as the caller wants)
    /// and then the part's local variables are its variables.
    pub fn of_part(params: Vec<String>, dims: Vec<String>, part: &BasicSet) -> ParametricPolytope {
        let vars = dims
            .into_iter()
            .chain(part.locals.iter().map(|l| l.name.clone()))
            .collect();
        ParametricPolytope::new(params, vars, part.all_constraints())
    }
    fn n_params(&self) -> usize {
        self.params.len()
    }
    fn polyhedron(&self) -> Polyhedron {
        Polyhedron::from_constraints(
            self.params.len() + self.vars.len(),
            self.constraints.clone(),
        )
    }
    /// The parameters, then the variables: the polytope's columns.
    pub(crate) fn names(&self) -> Vec<String> {
        self.params.iter().chain(&self.vars).cloned().collect()
    }

    /// The parameter values where the (rational) polytope is not empty.
    pub fn context(&self) -> ParamDomain {
        let var_columns: Vec<usize> =
            (self.n_params()..self.n_params() + self.vars.len()).collect();
        ParamDomain::from_polyhedron(
            self.params.clone(),
            self.polyhedron().project_out(&var_columns),
        )
    }

    /// How many constraint subsets a search for its vertices tries (and its recession cone's
    /// generators): `C(constraints, variables)`, compared with [`MAX_SUBSETS`] before either
    /// is attempted.
    pub fn vertex_search_size(&self) -> usize {
        binomial(self.constraints.len(), self.vars.len())
    }

    /// The polytope as a domain over its parameters and variables together: its integer points
    /// are the pairs (parameter value, point of the polytope there).
    pub fn joint_domain(&self) -> ParamDomain {
        ParamDomain::from_polyhedron(self.names(), self.integer_tightened())
    }

    /// Rays and lines of the recession cone, the same for every parameter value where the
    /// polytope is not empty.
    pub fn recession_cone(&self) -> Generators {
        let np = self.n_params();
        let cone: Vec<Constraint> = self
            .constraints
            .iter()
            .map(|c| {
                let coeffs = (0..self.vars.len()).map(|j| c.expr.coeff(np + j)).collect();
                Constraint {
                    expr: Affine::from_coeffs(coeffs, Rat::zero()),
                    rel: c.rel,
                }
            })
            .collect();
        Polyhedron::from_constraints(self.vars.len(), cone).generators()
    }

    /// The polytope with its equalities solved for variables and the variables `poly` does not
    /// use projected out, and `poly` rewritten accordingly. Projection is exact over the
    /// rationals, so the maximum of the rewritten problem is the maximum of the original one.
    ///
    /// Every column is an integer, so constraints are first tightened to their integer form
    /// (`2j <= 1` becomes `j <= 0`): the integer points stay, the rational relaxation shrinks.
    pub fn reduced_for(&self, poly: &Polynomial) -> (Polynomial, ParametricPolytope) {
        let full = self.integer_tightened().minimized();
        let names = self.names();
        let np = self.n_params();
        let mut poly = poly.clone();
        let mut solved: Vec<usize> = Vec::new();
        for c in full.constraints().iter().filter(|c| c.is_equality()) {
            let Some(pivot) = c.expr.support().last() else {
                continue;
            };
            if pivot < np {
                continue;
            }
            let coeff = c.expr.coeff(pivot);
            let mut rest = c.expr.clone();
            rest.set_coeff(pivot, Rat::zero());
            let value = affine_to_linear(&rest.scale(&(Rat::from(-1) / coeff)), &names);
            poly = poly.substitute(&names[pivot], &value);
            solved.push(pivot);
        }
        let used = poly.variables();
        let keep: Vec<usize> = (np..names.len())
            .filter(|column| !solved.contains(column) && used.contains(&names[*column]))
            .collect();
        let drop: Vec<usize> = (np..names.len())
            .filter(|column| !keep.contains(column))
            .collect();
        let projected = full.project_out(&drop);
        let vars = keep.iter().map(|&column| names[column].clone()).collect();
        let reduced =
            ParametricPolytope::new(self.params.clone(), vars, projected.constraints().to_vec());
        let tightened = reduced.integer_tightened().constraints().to_vec();
        (
            poly,
            ParametricPolytope {
                constraints: tightened,
                ..reduced
            },
        )
    }

    fn integer_tightened(&self) -> Polyhedron {
        let constraints = self
            .constraints
            .iter()
            .map(Constraint::normalized_for_integers)
            .collect();
        Polyhedron::from_constraints(self.params.len() + self.vars.len(), constraints)
    }

    /// The chambers of the parameter space (none when the polytope is empty for every value).
    /// The polytope must be pointed (no lines), which holds whenever it is bounded.
    pub fn chambers(&self) -> Result<Vec<Chamber>, VertexError> {
        let context = self.context();
        if context.is_empty() {
            return Ok(Vec::new());
        }
        let candidates = self.candidate_vertices()?;
        let mut chambers = Vec::new();
        self.decompose(context, &candidates, &mut chambers)?;
        Ok(chambers)
    }

    fn decompose(
        &self,
        cell: ParamDomain,
        candidates: &[CandidateVertex],
        out: &mut Vec<Chamber>,
    ) -> Result<(), VertexError> {
        let mut vertices = Vec::new();
        for candidate in candidates {
            match validity_on(&cell, candidate) {
                Validity::Everywhere => vertices.push(
                    candidate
                        .point
                        .iter()
                        .map(|a| affine_to_linear(a, &self.params))
                        .collect(),
                ),
                Validity::Nowhere => {}
                Validity::SplitAlong(constraint) => {
                    let (inside, outside) = cell.split(&constraint);
                    self.decompose(inside, candidates, out)?;
                    return self.decompose(outside, candidates, out);
                }
            }
        }
        if cell.is_empty() {
            return Ok(());
        }
        if vertices.is_empty() {
            return Err(VertexError::NoVertex);
        }
        if out.len() >= MAX_CHAMBERS {
            return Err(VertexError::TooManyChambers);
        }
        out.push(Chamber {
            domain: cell,
            vertices,
        });
        Ok(())
    }

    /// Every distinct solution of `dim` tight constraints, with its validity domain.
    fn candidate_vertices(&self) -> Result<Vec<CandidateVertex>, VertexError> {
        let np = self.n_params();
        let nv = self.vars.len();
        let count = binomial(self.constraints.len(), nv);
        if count > MAX_SUBSETS {
            return Err(VertexError::TooManySubsets(count));
        }
        let rows: Vec<Vec<Rat>> = self
            .constraints
            .iter()
            .map(|c| (0..nv).map(|j| c.expr.coeff(np + j)).collect())
            .collect();
        // The right-hand side `-(B p + c)` of each row, over the parameters.
        let rhs: Vec<Affine> = self
            .constraints
            .iter()
            .map(|c| parameter_part(&c.expr, np).neg())
            .collect();
        let mut found: Vec<CandidateVertex> = Vec::new();
        for subset in subsets(self.constraints.len(), nv) {
            let matrix: Vec<Vec<Rat>> = subset.iter().map(|&i| rows[i].clone()).collect();
            let right: Vec<Affine> = subset.iter().map(|&i| rhs[i].clone()).collect();
            let Some(point) = solve_parametric(matrix, right) else {
                continue;
            };
            if found.iter().any(|f| f.point == point) {
                continue;
            }
            if let Some(validity) = self.validity_of(&point) {
                found.push(CandidateVertex { point, validity });
            }
        }
        Ok(found)
    }

    /// The constraints on `p` for `point(p)` to lie in the polytope; `None` if it never does.
    fn validity_of(&self, point: &[Affine]) -> Option<Vec<Constraint>> {
        let np = self.n_params();
        let mut validity = Vec::new();
        for c in &self.constraints {
            let value = point
                .iter()
                .enumerate()
                .fold(parameter_part(&c.expr, np), |acc, (j, x)| {
                    acc.add_scaled(&c.expr.coeff(np + j), x)
                });
            let constraint = Constraint {
                expr: value,
                rel: c.rel,
            };
            if constraint.expr.is_constant() {
                if !constraint.is_satisfied(&[]) {
                    return None;
                }
                continue;
            }
            validity.push(constraint);
        }
        Some(validity)
    }
}

fn validity_on(cell: &ParamDomain, candidate: &CandidateVertex) -> Validity {
    for constraint in &candidate.validity {
        let halves = match constraint.rel {
            Relation::Ge => vec![constraint.expr.clone()],
            Relation::Eq => vec![constraint.expr.clone(), constraint.expr.neg()],
        };
        for expr in halves {
            let ge = Constraint::ge(expr);
            if cell.implies_constraint(&ge) {
                continue;
            }
            // Valid at most on the boundary `e = 0` of the cell: there the vertex lies in the
            // hull of the cell's other vertices, which is the polytope at nearby points and,
            // the polytope moving continuously with its right-hand side (Hoffman), at the
            // boundary too.
            if cell.polyhedron().implies(&Constraint::ge(ge.expr.neg())) {
                return Validity::Nowhere;
            }
            return Validity::SplitAlong(ge);
        }
    }
    Validity::Everywhere
}

/// The part of `form` over the first `n_params` columns, with its constant.
fn parameter_part(form: &Affine, n_params: usize) -> Affine {
    Affine::from_coeffs(
        (0..n_params).map(|i| form.coeff(i)).collect(),
        form.constant.clone(),
    )
}

/// Solves the square system `matrix · x = rhs` whose right-hand sides are affine forms;
/// `None` when the matrix is singular.
fn solve_parametric(mut matrix: Vec<Vec<Rat>>, mut rhs: Vec<Affine>) -> Option<Vec<Affine>> {
    let n = matrix.len();
    for col in 0..n {
        let pivot = (col..n).find(|&r| !matrix[r][col].is_zero())?;
        matrix.swap(col, pivot);
        rhs.swap(col, pivot);
        let scale = Rat::one() / &matrix[col][col];
        matrix[col] = matrix[col].iter().map(|x| x * &scale).collect();
        rhs[col] = rhs[col].scale(&scale);
        for r in 0..n {
            if r == col || matrix[r][col].is_zero() {
                continue;
            }
            let factor = matrix[r][col].clone();
            let pivot_row = matrix[col].clone();
            matrix[r] = matrix[r]
                .iter()
                .zip(&pivot_row)
                .map(|(x, p)| x - &factor * p)
                .collect();
            rhs[r] = rhs[r].add_scaled(&-factor, &rhs[col]);
        }
    }
    Some(rhs)
}

fn binomial(n: usize, k: usize) -> usize {
    if k > n {
        return 0;
    }
    (0..k).fold(1usize, |acc, i| acc.saturating_mul(n - i) / (i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use membound_polyhedra::parse_set;

    fn polytope(text: &str) -> ParametricPolytope {
        let set = parse_set(text).unwrap();
        let part = &set.parts[0];
        ParametricPolytope::new(
            set.space.params.clone(),
            set.space.dims.clone(),
            part.constraints.clone(),
        )
    }

    #[test]
    fn digest_domain_c32_has_one_chamber_with_three_vertices() {
        let p = polytope(
            "[n] -> { [i, j] : 0 <= i <= 3n - 1 and 0 <= j <= n - 1 and 3n - 1 <= i + j <= 4n - 2 }",
        );
        let chambers = p.chambers().unwrap();
        assert_eq!(chambers.len(), 1);
        let mut vertices: Vec<String> = chambers[0]
            .vertices
            .iter()
            .map(|v| format!("({}, {})", v[0], v[1]))
            .collect();
        vertices.sort();
        assert_eq!(
            vertices,
            vec!["(2*n, n - 1)", "(3*n - 1, 0)", "(3*n - 1, n - 1)"]
        );
        assert_eq!(chambers[0].domain.to_guard().to_isl(), "n >= 1");
    }

    #[test]
    fn min_of_two_upper_bounds_gives_two_chambers() {
        // 1 <= i <= P1 + P2, i <= 3 P2: the top vertex is P1 + P2 or 3 P2.
        let p = polytope("[P1, P2] -> { [i] : 1 <= i <= P1 + P2 and i <= 3P2 }");
        let chambers = p.chambers().unwrap();
        assert_eq!(chambers.len(), 2);
        for chamber in &chambers {
            assert_eq!(chamber.vertices.len(), 2);
        }
    }

    #[test]
    fn equalities_are_solved_and_unused_variables_projected() {
        let p = polytope("[mc] -> { [k, i, n] : k = mc and 1 <= i <= k and n = i }");
        let n = Polynomial::var("n".to_string());
        let (poly, reduced) = p.reduced_for(&(n + Polynomial::one()));
        assert_eq!(reduced.vars.len(), 1);
        assert_eq!(poly.variables().len(), 1);
        assert!(reduced.recession_cone().rays.is_empty());
    }
}

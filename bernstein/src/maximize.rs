//! Upper bounds of a polynomial over a parametric polytope: one Bernstein expansion per
//! chamber (thesis §7.4.1, App. C.3), candidates pruned by the sign tests, and the expansion
//! refined by subdivision or degree elevation where that tightens the bound.
//!
//! At the smallest parameter values the exact integer maximum is computed by enumeration
//! where it is tighter ([`crate::small_values`]).
//!
//! Both refinements only ever lower the maximum coefficient (the new coefficients are convex
//! combinations of the old ones), so they are tried freely and kept when they lower the bound
//! at the chamber's sample points; exact arithmetic then decides the result.

use std::collections::BTreeMap;

use membound_polyhedra::{Polynomial, Rat};

use crate::compare::value_at;
use crate::expansion::{Coefficient, bernstein_coefficients, degree_in};
use crate::expr::{Arm, BoundExpr};
use crate::guard::ParamDomain;
use crate::simplify::{cases, resolve_max};
use crate::small_values::with_exact_small_values;
use crate::vertices::{Chamber, ParametricPolytope, VertexError};

/// Rounds of refinement (each splits one edge of one part or elevates one part's degree).
const MAX_REFINEMENTS: usize = 2;
/// Most Bernstein coefficients a refined expansion may have: each is a candidate to prune.
const MAX_COEFFICIENTS: usize = 80;

/// The raw expansion in one chamber: its coefficients give candidate upper bounds (their
/// maximum) and lower bounds (their minimum).
#[derive(Clone, Debug)]
pub struct ChamberExpansion {
    pub chamber: Chamber,
    pub coefficients: Vec<Coefficient>,
}

impl ChamberExpansion {
    /// The distinct coefficient values: every upper bound candidate (and lower bound one).
    pub fn candidates(&self) -> Vec<Polynomial> {
        let mut values: Vec<Polynomial> = Vec::new();
        for c in &self.coefficients {
            if !values.contains(&c.value) {
                values.push(c.value.clone());
            }
        }
        values
    }
}

/// Bernstein expansion of `poly` (in `polytope.vars`, coefficients in its parameters) in each
/// chamber, after solving equalities and projecting out unused variables. Where the polytope
/// is unbounded the expansion covers only its vertices: use [`upper_bound`] for bounds.
pub fn expand(
    poly: &Polynomial,
    polytope: &ParametricPolytope,
) -> Result<(Vec<String>, Vec<ChamberExpansion>), VertexError> {
    let (poly, reduced) = polytope.reduced_for(poly);
    let degree = degree_in(&poly, &reduced.vars);
    let expansions = reduced
        .chambers()?
        .into_iter()
        .map(|chamber| {
            let coefficients =
                bernstein_coefficients(&poly, &reduced.vars, &chamber.vertices, degree);
            ChamberExpansion {
                chamber,
                coefficients,
            }
        })
        .collect();
    Ok((reduced.vars, expansions))
}

/// An upper bound of `max { poly(x) : x ∈ polytope(p) }` for every integer parameter value
/// `p` where the polytope is not empty (0 where it is empty), as a `Cases` over chambers.
/// `Inf` where the polytope is unbounded in a direction along which `poly` may grow.
pub fn upper_bound(
    poly: &Polynomial,
    polytope: &ParametricPolytope,
) -> Result<BoundExpr, VertexError> {
    let (poly, reduced) = polytope.reduced_for(poly);
    let context = reduced.context();
    if context.is_empty() {
        return Ok(BoundExpr::zero());
    }
    if !bounded_where_it_matters(&poly, &reduced) {
        let arm = Arm {
            guard: context.to_guard(),
            expr: BoundExpr::Inf,
        };
        return Ok(cases(vec![arm], BoundExpr::zero()));
    }
    // Chamber bounds are simplified where they are made; the Cases around them only needs
    // its trivial forms removed.
    let arms = reduced
        .chambers()?
        .iter()
        .map(|chamber| Arm {
            guard: chamber.domain.to_guard(),
            expr: chamber_bound(&poly, &reduced.vars, chamber),
        })
        .collect();
    let symbolic = cases(arms, BoundExpr::zero());
    Ok(with_exact_small_values(&poly, &reduced, symbolic))
}

/// True when the maximum is attained at a vertex: the polytope is bounded, or it is pointed
/// and `poly` is affine in the variables, with constant slopes, not increasing along any ray.
fn bounded_where_it_matters(poly: &Polynomial, polytope: &ParametricPolytope) -> bool {
    let cone = polytope.recession_cone();
    if cone.rays.is_empty() && cone.lines.is_empty() {
        return true;
    }
    if !cone.lines.is_empty() || degree_in(poly, &polytope.vars) > 1 {
        return false;
    }
    let slopes: Option<Vec<Rat>> = polytope
        .vars
        .iter()
        .map(|v| {
            poly.coefficients_in(v)
                .get(1)
                .map_or(Some(Rat::zero()), Polynomial::as_constant)
        })
        .collect();
    let Some(slopes) = slopes else { return false };
    cone.rays.iter().all(|ray| {
        !slopes
            .iter()
            .zip(ray)
            .map(|(s, r)| s * r)
            .sum::<Rat>()
            .is_positive()
    })
}

/// One generating set with the degree of its expansion.
#[derive(Clone)]
struct Part {
    generators: Vec<Vec<Polynomial>>,
    degree: u32,
    coefficients: Vec<Polynomial>,
}

impl Part {
    fn new(
        poly: &Polynomial,
        vars: &[String],
        generators: Vec<Vec<Polynomial>>,
        degree: u32,
    ) -> Part {
        let coefficients = bernstein_coefficients(poly, vars, &generators, degree)
            .into_iter()
            .map(|c| c.value)
            .collect();
        Part {
            generators,
            degree,
            coefficients,
        }
    }
}

fn chamber_bound(poly: &Polynomial, vars: &[String], chamber: &Chamber) -> BoundExpr {
    let degree = degree_in(poly, vars);
    let base = Part::new(poly, vars, chamber.vertices.clone(), degree);
    let parts = refined(poly, vars, vec![base], &chamber.domain);
    let candidates = parts.into_iter().flat_map(|p| p.coefficients).collect();
    resolve_max(candidates, &chamber.domain)
}

/// Greedy refinement: each round applies the single edge split or degree elevation that
/// lowers the bound most at the sample points, while one does.
fn refined(
    poly: &Polynomial,
    vars: &[String],
    mut parts: Vec<Part>,
    domain: &ParamDomain,
) -> Vec<Part> {
    let samples = domain.sample_points();
    if samples.is_empty() || degree_in(poly, vars) <= 1 {
        return parts;
    }
    for _ in 0..MAX_REFINEMENTS {
        let current = score(&parts, samples);
        let mut best: Option<(Rat, Vec<Part>)> = None;
        for (index, part) in parts.iter().enumerate() {
            for replacement in refinements_of(poly, vars, part) {
                let mut candidate = parts.clone();
                candidate.splice(index..=index, replacement);
                if candidate
                    .iter()
                    .map(|p| p.coefficients.len())
                    .sum::<usize>()
                    > MAX_COEFFICIENTS
                {
                    continue;
                }
                let value = score(&candidate, samples);
                if best.as_ref().is_none_or(|(b, _)| value < *b) {
                    best = Some((value, candidate));
                }
            }
        }
        match best {
            Some((value, candidate)) if value < current => parts = candidate,
            _ => break,
        }
    }
    parts
}

/// The two halves of every edge split (`v_j` or `v_i` replaced by their midpoint: every
/// point of the hull lies in one of the halves), and the degree elevated by one.
fn refinements_of(poly: &Polynomial, vars: &[String], part: &Part) -> Vec<Vec<Part>> {
    let m = part.generators.len();
    let half = Rat::new(1, 2).unwrap_or_default();
    let mut options = vec![vec![Part::new(
        poly,
        vars,
        part.generators.clone(),
        part.degree + 1,
    )]];
    for i in 0..m {
        for j in i + 1..m {
            let middle: Vec<Polynomial> = part.generators[i]
                .iter()
                .zip(&part.generators[j])
                .map(|(a, b)| (a + b).scale(&half))
                .collect();
            let mut left = part.generators.clone();
            left[j] = middle.clone();
            let mut right = part.generators.clone();
            right[i] = middle;
            options.push(vec![
                Part::new(poly, vars, left, part.degree),
                Part::new(poly, vars, right, part.degree),
            ]);
        }
    }
    options
}

/// Σ over the samples of the largest coefficient of any part.
fn score(parts: &[Part], samples: &[BTreeMap<String, Rat>]) -> Rat {
    samples
        .iter()
        .map(|point| {
            parts
                .iter()
                .flat_map(|p| p.coefficients.iter().map(|c| value_at(c, point)))
                .max()
                .unwrap_or_default()
        })
        .sum()
}

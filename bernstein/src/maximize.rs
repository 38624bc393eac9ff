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

use membound_polyhedra::{Constraint, Polynomial, QuasiPolynomial, Rat};

use crate::compare::{nonnegative_on, value_at};
use crate::expansion::{Coefficient, bernstein_coefficients, degree_in};
use crate::expr::{Arm, BoundExpr};
use crate::guard::{Guard, ParamDomain, linear_to_affine};
use crate::simplify::{cases, resolve_max, simplify};
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

/// An upper bound of `max { expr(x) : x ∈ polytope(p) }` where `expr` is a bound expression in
/// the polytope's variables and parameters, as an expression in the parameters (0 where the
/// polytope is empty). Each `Pol` leaf is bounded by [`upper_bound`] (every residue class of a
/// periodic one: together they cover it); a `Max` by the maximum of its items' bounds; a `Cases`
/// by the maximum of its arms' bounds, each over the polytope cut by the arm's guard, and of
/// its default's over the whole polytope (a superset of where it applies); a `Sum` by the sum
/// of its items' bounds, which is loose when they peak at different points. Guard atoms that
/// are not linear in the polytope's names are dropped, which only enlarges the polytope.
///
/// Powers and logarithms are monotone in their operand, so `b^e` is bounded by `b^E` and
/// `floor_log2(x)` by `floor_log2(X)` with `E`, `X` the bounds of `e`, `x`: exact when the
/// operand's bound is (an affine exponent is largest at a vertex; at a rational vertex its
/// bound is rounded up, so it may pass the integer maximum). A product is distributed over a
/// sum factor (up to [`MAX_DISTRIBUTED`] terms), its polynomial factors multiplied into one,
/// and then bounded by the product of its factors' bounds when every factor is proved
/// non-negative on the polytope (loose when they peak at different points), by 0 when the
/// polynomial is proved non-positive and the other factors non-negative and finite (loose:
/// the true maximum is below 0); a product with a factor of unproved sign is ∞ where the
/// polytope is not empty.
pub fn bound_expr_over(
    expr: &BoundExpr,
    polytope: &ParametricPolytope,
) -> Result<BoundExpr, VertexError> {
    let over_each = |items: &[BoundExpr]| -> Result<Vec<BoundExpr>, VertexError> {
        items.iter().map(|e| bound_expr_over(e, polytope)).collect()
    };
    let bound = match expr {
        BoundExpr::Pol(qp) => quasi_polynomial_bound(qp, polytope)?,
        BoundExpr::Sum(items) => BoundExpr::Sum(over_each(items)?),
        BoundExpr::Max(items) => BoundExpr::Max(over_each(items)?),
        BoundExpr::Cases { arms, default } => {
            let mut bounds = vec![bound_expr_over(default, polytope)?];
            for arm in arms {
                bounds.push(bound_expr_over(&arm.expr, &cut_by(polytope, &arm.guard))?);
            }
            BoundExpr::Max(bounds)
        }
        BoundExpr::Inf => return Ok(infinite_where_not_empty(polytope)),
        BoundExpr::Pow { base, exponent } => BoundExpr::Pow {
            base: base.clone(),
            exponent: Box::new(bound_expr_over(exponent, polytope)?),
        },
        BoundExpr::Log2 { arg } => BoundExpr::log2(bound_expr_over(arg, polytope)?),
        BoundExpr::Mul(factors) => product_bound(factors, polytope)?,
    };
    Ok(simplify(&bound, &Guard::always()))
}

/// Most terms a product is distributed into over its sum factors.
pub const MAX_DISTRIBUTED: usize = 64;

/// The maximum of a residue-class-wise bound of a quasi-polynomial.
fn quasi_polynomial_bound(
    qp: &QuasiPolynomial,
    polytope: &ParametricPolytope,
) -> Result<BoundExpr, VertexError> {
    Ok(BoundExpr::Max(
        qp.classes()
            .iter()
            .map(|class| upper_bound(class, polytope))
            .collect::<Result<_, _>>()?,
    ))
}

/// ∞ where the polytope is not empty, 0 elsewhere.
fn infinite_where_not_empty(polytope: &ParametricPolytope) -> BoundExpr {
    let context = polytope.context();
    if context.is_empty() {
        return BoundExpr::zero();
    }
    let arm = Arm {
        guard: context.to_guard(),
        expr: BoundExpr::Inf,
    };
    cases(vec![arm], BoundExpr::zero())
}

/// The bound of a product (see [`bound_expr_over`]).
fn product_bound(
    factors: &[BoundExpr],
    polytope: &ParametricPolytope,
) -> Result<BoundExpr, VertexError> {
    let factors = flattened_factors(factors);
    if let Some(terms) = distributed(&factors) {
        return bound_expr_over(&BoundExpr::Sum(terms), polytope);
    }
    let mut polynomial = QuasiPolynomial::constant(1);
    let mut others = Vec::new();
    for factor in factors {
        match factor {
            BoundExpr::Pol(qp) => polynomial = polynomial.mul(&qp),
            other => others.push(other),
        }
    }
    if others.is_empty() {
        return quasi_polynomial_bound(&polynomial, polytope);
    }
    let joint = polytope.joint_domain();
    let sign_proved = |qp: &QuasiPolynomial| qp.classes().iter().all(|c| nonnegative_on(c, &joint));
    if !others.iter().all(|f| proved_nonnegative(f, &joint)) {
        return Ok(infinite_where_not_empty(polytope));
    }
    if !sign_proved(&polynomial) {
        // A non-positive polynomial times non-negative finite factors is at most 0.
        let finite = !others.iter().any(BoundExpr::may_be_infinite);
        return Ok(if finite && sign_proved(&polynomial.neg()) {
            BoundExpr::zero()
        } else {
            infinite_where_not_empty(polytope)
        });
    }
    let mut bounds = vec![quasi_polynomial_bound(&polynomial, polytope)?];
    for factor in &others {
        bounds.push(bound_expr_over(factor, polytope)?);
    }
    Ok(BoundExpr::Mul(bounds))
}

/// The factors of a product with nested products spread out.
fn flattened_factors(factors: &[BoundExpr]) -> Vec<BoundExpr> {
    let mut out = Vec::new();
    for factor in factors {
        match factor {
            BoundExpr::Mul(inner) => out.extend(flattened_factors(inner)),
            other => out.push(other.clone()),
        }
    }
    out
}

/// The terms of a product with a sum factor multiplied out over that sum's items, when there
/// are at most [`MAX_DISTRIBUTED`] of them.
fn distributed(factors: &[BoundExpr]) -> Option<Vec<BoundExpr>> {
    let mut terms: Vec<Vec<BoundExpr>> = vec![Vec::new()];
    let mut any_sum = false;
    for factor in factors {
        match factor {
            BoundExpr::Sum(items) if !items.is_empty() => {
                any_sum = true;
                if terms.len() * items.len() > MAX_DISTRIBUTED {
                    return None;
                }
                terms = terms
                    .iter()
                    .flat_map(|term| {
                        items.iter().map(move |item| {
                            let mut next = term.clone();
                            next.push(item.clone());
                            next
                        })
                    })
                    .collect();
            }
            other => terms.iter_mut().for_each(|term| term.push(other.clone())),
        }
    }
    any_sum.then(|| terms.into_iter().map(BoundExpr::Mul).collect())
}

/// Whether `expr >= 0` is proved at every integer point of `joint` (parameters and variables
/// together); `false` means not proved.
fn proved_nonnegative(expr: &BoundExpr, joint: &ParamDomain) -> bool {
    match expr {
        BoundExpr::Inf | BoundExpr::Pow { .. } | BoundExpr::Log2 { .. } => true,
        BoundExpr::Pol(qp) => qp.classes().iter().all(|c| nonnegative_on(c, joint)),
        BoundExpr::Max(items) => items.iter().any(|e| proved_nonnegative(e, joint)),
        BoundExpr::Sum(items) | BoundExpr::Mul(items) => {
            items.iter().all(|e| proved_nonnegative(e, joint))
        }
        BoundExpr::Cases { .. } => expr
            .children()
            .into_iter()
            .all(|e| proved_nonnegative(e, joint)),
    }
}

/// The polytope with the guard's linear atoms added as constraints.
fn cut_by(polytope: &ParametricPolytope, guard: &Guard) -> ParametricPolytope {
    let names: Vec<String> = polytope
        .params
        .iter()
        .chain(&polytope.vars)
        .cloned()
        .collect();
    let mut cut = polytope.clone();
    cut.constraints
        .extend(guard.atoms.iter().filter_map(|atom| {
            linear_to_affine(&atom.expr, &names).map(|expr| Constraint {
                expr,
                rel: atom.rel,
            })
        }));
    cut
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

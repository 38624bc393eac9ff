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
use crate::expansion::{
    Coefficient, bernstein_coefficients, coefficient_count, degree_in, split_by_vars,
};
use crate::expr::{Arm, BoundExpr};
use crate::guard::{Guard, ParamDomain, affine_to_linear, linear_to_affine};
use crate::simplify::{cases, resolve_max, simplify, simplify_in};
use crate::small_values::with_exact_small_values;
use crate::vertices::{Chamber, MAX_SUBSETS, ParametricPolytope, VertexError};

/// Rounds of refinement (each splits one edge of one part or elevates one part's degree).
const MAX_REFINEMENTS: usize = 2;
/// Most Bernstein coefficients a refined expansion may have: each is a candidate to prune.
const MAX_COEFFICIENTS: usize = 80;

/// How far a Bernstein expansion may go before a cheaper bound is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most Bernstein coefficients of one chamber's expansion (each a candidate bound to
    /// prune): `C(degree + vertices - 1, vertices - 1)` grows with the total degree and, through
    /// the vertices, with the dimension (a box in 5 variables has 32).
    pub max_coefficients: u128,
    /// Highest total degree expanded: every candidate bound has that degree in the
    /// parameters, and deciding which candidates dominate slows down steeply with it.
    pub max_degree: u32,
}

/// The default highest degree expanded: degree 15 over 4 vertices took 1 s in a release build,
/// degree 19 6 s and degree 27 over a minute.
pub const DEFAULT_MAX_DEGREE: u32 = 12;

/// The default budget of coefficients per chamber, which keeps pruning the candidates within
/// about a second (a degree-15 polynomial over 4 vertices, 816 coefficients, took 1 s in a
/// release build; degree 19, 1540 coefficients, 7 s; degree 23, 2600, 43 s); `i^15*j^15` over a
/// box (5456) and a product of 5 variables over a box (376992) are above it.
pub const DEFAULT_MAX_COEFFICIENTS: u128 = 500;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_coefficients: DEFAULT_MAX_COEFFICIENTS,
            max_degree: DEFAULT_MAX_DEGREE,
        }
    }
}

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
    upper_bound_within(poly, polytope, &Limits::default(), &mut Vec::new())
}

/// [`upper_bound`] within `limits`: a chamber whose expansion would pass them is bounded by
/// [`vertex_magnitude_bound`] instead (sound, looser), and `notes` says so once.
pub fn upper_bound_within(
    poly: &Polynomial,
    polytope: &ParametricPolytope,
    limits: &Limits,
    notes: &mut Vec<String>,
) -> Result<BoundExpr, VertexError> {
    let (poly, reduced) = polytope.reduced_for(poly);
    let context = reduced.context();
    if context.is_empty() {
        return Ok(BoundExpr::zero());
    }
    let search = reduced.vertex_search_size();
    if search > MAX_SUBSETS {
        let bound = box_magnitude_bound(&poly, &reduced);
        notes.push(format!(
            "the polytope has {} variables and {} constraints: searching its vertices would try \
             {search} subsets, beyond {MAX_SUBSETS}: {}",
            reduced.vars.len(),
            reduced.constraints.len(),
            if bound.is_some() {
                "bounded by each variable's own bounds instead (sound, possibly looser)"
            } else {
                "∞, as a variable has no bounds of its own"
            }
        ));
        let expr = bound.unwrap_or(BoundExpr::Inf);
        let arm = Arm {
            guard: context.to_guard(),
            expr: simplify_in(&expr, &context),
        };
        return Ok(cases(vec![arm], BoundExpr::zero()));
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
    let degree = degree_in(&poly, &reduced.vars);
    let arms = reduced
        .chambers()?
        .iter()
        .map(|chamber| {
            let count = coefficient_count(chamber.vertices.len(), degree);
            let expr = if count <= limits.max_coefficients && degree <= limits.max_degree {
                chamber_bound(&poly, &reduced.vars, chamber)
            } else {
                let why = if degree > limits.max_degree {
                    format!(
                        "is of degree {degree}, beyond the budget of {}",
                        limits.max_degree
                    )
                } else {
                    let count = match count {
                        u128::MAX => "too many".to_string(),
                        count => count.to_string(),
                    };
                    format!(
                        "of degree {degree} over {} vertices would have {count} coefficients, \
                         beyond the budget of {}",
                        chamber.vertices.len(),
                        limits.max_coefficients
                    )
                };
                let note = format!(
                    "the Bernstein expansion {why}: bounded by the largest coordinates of the \
                     vertices instead (sound, possibly looser)"
                );
                if !notes.contains(&note) {
                    notes.push(note);
                }
                vertex_magnitude_bound(&poly, &reduced.vars, chamber)
            };
            Arm {
                guard: chamber.domain.to_guard(),
                expr,
            }
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
            // Each arm where its guard holds and no earlier one does, the default where none
            // does (as far as `beyond_arms` cuts them away).
            let mut bounds = Vec::new();
            for (index, arm) in arms.iter().enumerate() {
                for piece in beyond_arms(&cut_by(polytope, &arm.guard), &arms[..index]) {
                    bounds.push(bound_expr_over(&arm.expr, &piece)?);
                }
            }
            for piece in beyond_arms(polytope, arms) {
                bounds.push(bound_expr_over(default, &piece)?);
            }
            BoundExpr::Max(bounds)
        }
        BoundExpr::Inf => return Ok(infinite_where_not_empty(polytope)),
        BoundExpr::Pow { base, exponent } => where_not_empty(
            polytope,
            BoundExpr::Pow {
                base: base.clone(),
                exponent: Box::new(bound_expr_over(exponent, polytope)?),
            },
        ),
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
    where_not_empty(polytope, BoundExpr::Inf)
}

/// `bound` where the polytope may have points, 0 elsewhere (a power's bound is at least 1
/// even where its exponent's is 0 because there is nothing to bound).
fn where_not_empty(polytope: &ParametricPolytope, bound: BoundExpr) -> BoundExpr {
    let context = polytope.context();
    if context.is_empty() {
        return BoundExpr::zero();
    }
    let guard = context.to_guard();
    if guard.atoms.is_empty() {
        return bound;
    }
    cases(vec![Arm { guard, expr: bound }], BoundExpr::zero())
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
    // A non-negative constant times one factor: the constant times that factor's maximum,
    // whatever the factor's sign.
    if let ([factor], Some(c)) = (
        others.as_slice(),
        polynomial.as_polynomial().and_then(Polynomial::as_constant),
    ) && !c.is_negative()
    {
        let bound = bound_expr_over(factor, polytope)?;
        return Ok(BoundExpr::Mul(vec![
            BoundExpr::pol(Polynomial::constant(c)),
            bound,
        ]));
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
/// Most pieces the region of a `Cases`' default is cut into ([`beyond_arms`]).
const MAX_DEFAULT_PIECES: usize = 4;

/// Pieces of `polytope` that together hold every point of it where no guard of `arms` holds,
/// so a default is not bounded where an arm takes over: beyond a guard `a1 and … and ak` are
/// the points where `a1 … a(i-1)` hold and `ai` fails, one piece per `i` and per integer
/// complement of `ai` (`x = y` fails at `x <= y - 1` and at `x >= y + 1`). A guard with an
/// atom that is not linear is not cut away, nor any once the pieces would pass
/// [`MAX_DEFAULT_PIECES`]: the pieces then cover more than the default's region, never less.
fn beyond_arms(polytope: &ParametricPolytope, arms: &[Arm]) -> Vec<ParametricPolytope> {
    let names = polytope.names();
    let mut pieces = vec![polytope.clone()];
    for arm in arms {
        let Some(atoms) = arm
            .guard
            .atoms
            .iter()
            .map(|atom| {
                let expr = linear_to_affine(&atom.expr, &names)?;
                Some(Constraint {
                    expr,
                    rel: atom.rel,
                })
            })
            .collect::<Option<Vec<Constraint>>>()
        else {
            continue;
        };
        let beyond = beyond_conjunction(&atoms);
        if beyond.is_empty() || pieces.len() * beyond.len() > MAX_DEFAULT_PIECES {
            break;
        }
        pieces = pieces
            .iter()
            .flat_map(|piece| {
                beyond.iter().map(move |constraints| {
                    let mut cut = piece.clone();
                    cut.constraints.extend(constraints.iter().cloned());
                    cut
                })
            })
            .collect();
    }
    pieces
}

/// Disjoint conjunctions whose union holds every integer point where not all of `atoms` hold:
/// the first `i` atoms and the integer complement of atom `i`.
fn beyond_conjunction(atoms: &[Constraint]) -> Vec<Vec<Constraint>> {
    atoms
        .iter()
        .enumerate()
        .flat_map(|(i, atom)| {
            atom.integer_complement().into_iter().map(move |fails| {
                let mut constraints = atoms[..i].to_vec();
                constraints.push(fails);
                constraints
            })
        })
        .collect()
}

fn cut_by(polytope: &ParametricPolytope, guard: &Guard) -> ParametricPolytope {
    let names = polytope.names();
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

/// A bound of `poly` on a chamber without expanding it: with `c_α(p)` the coefficient of each
/// monomial `x^α` of the variables and `M_k` the largest `|v_k|` over the chamber's vertices,
/// `|poly(x)| <= Σ |c_α| Π M_k^α_k` on the polytope (every point is a convex combination of
/// the vertices, so `|x_k| <= M_k`). Exact for a positive polynomial whose every variable is
/// largest at one vertex (`i^15*j^15` on a box); loose otherwise.
pub fn vertex_magnitude_bound(poly: &Polynomial, vars: &[String], chamber: &Chamber) -> BoundExpr {
    let largest: Vec<BoundExpr> = (0..vars.len())
        .map(|k| absolute(chamber.vertices.iter().map(|v| v[k].clone()).collect()))
        .collect();
    magnitude_bound(poly, vars, &largest, &chamber.domain)
}

/// `max(|v|)` over `values`.
fn absolute(values: Vec<Polynomial>) -> BoundExpr {
    BoundExpr::Max(
        values
            .into_iter()
            .flat_map(|v| [-&v, v])
            .map(BoundExpr::pol)
            .collect(),
    )
}

/// `Σ |c_α| Π M_k^α_k` over the monomials `x^α` of the variables of `poly` (their coefficients
/// `c_α` polynomials in the parameters), where `|x_k| <= largest[k]`: a bound of `|poly|`,
/// simplified on `domain`.
fn magnitude_bound(
    poly: &Polynomial,
    vars: &[String],
    largest: &[BoundExpr],
    domain: &ParamDomain,
) -> BoundExpr {
    let largest: Vec<BoundExpr> = largest.iter().map(|m| simplify_in(m, domain)).collect();
    let terms = split_by_vars(poly, vars)
        .into_iter()
        .map(|(exponents, coefficient)| {
            let mut factors = vec![simplify_in(&absolute(vec![coefficient]), domain)];
            for (k, exponent) in exponents.iter().enumerate() {
                factors.extend(std::iter::repeat_n(largest[k].clone(), *exponent as usize));
            }
            BoundExpr::Mul(factors)
        });
    simplify_in(&BoundExpr::Sum(terms.collect()), domain)
}

/// A bound of `poly` from bounds each variable has on its own (`lo(p) <= x_k <= hi(p)`, one
/// constraint each, as in a box), without vertices: [`magnitude_bound`] with `|x_k| <=
/// max(hi, -lo)`. `None` when a variable has no such lower or upper bound.
fn box_magnitude_bound(poly: &Polynomial, polytope: &ParametricPolytope) -> Option<BoundExpr> {
    let np = polytope.params.len();
    let names = polytope.names();
    let mut largest = Vec::new();
    for k in 0..polytope.vars.len() {
        let (mut lower, mut upper) = (None, None);
        for c in &polytope.constraints {
            let alone = (0..polytope.vars.len()).all(|j| j == k || c.expr.coeff(np + j).is_zero());
            let a = c.expr.coeff(np + k);
            if !alone || a.is_zero() {
                continue;
            }
            // a·x_k + rest >= 0 (or = 0): x_k against -rest/a.
            let mut rest = c.expr.clone();
            rest.set_coeff(np + k, Rat::zero());
            let end = affine_to_linear(&rest.scale(&(Rat::from(-1) / a.clone())), &names);
            if a.is_positive() || c.is_equality() {
                lower.get_or_insert(end.clone());
            }
            if a.is_negative() || c.is_equality() {
                upper.get_or_insert(end);
            }
        }
        let (lower, upper) = (lower?, upper?);
        largest.push(BoundExpr::Max(vec![
            BoundExpr::pol(upper),
            BoundExpr::pol(-lower),
        ]));
    }
    Some(magnitude_bound(
        poly,
        &polytope.vars,
        &largest,
        &ParamDomain::universe(polytope.params.clone()),
    ))
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
        let total: usize = parts.iter().map(|p| p.coefficients.len()).sum();
        for (index, part) in parts.iter().enumerate() {
            let room = MAX_COEFFICIENTS.saturating_sub(total - part.coefficients.len());
            for replacement in refinements_of(poly, vars, part, room) {
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
/// point of the hull lies in one of the halves), and the degree elevated by one; only those
/// with at most `room` coefficients, which are counted before anything is expanded.
fn refinements_of(poly: &Polynomial, vars: &[String], part: &Part, room: usize) -> Vec<Vec<Part>> {
    let m = part.generators.len();
    let half = Rat::new(1, 2).unwrap_or_default();
    let fits = |count: u128| count <= room as u128;
    let mut options = Vec::new();
    if fits(coefficient_count(m, part.degree + 1)) {
        options.push(vec![Part::new(
            poly,
            vars,
            part.generators.clone(),
            part.degree + 1,
        )]);
    }
    if !fits(coefficient_count(m, part.degree).saturating_mul(2)) {
        return options;
    }
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

//! Exact maxima at the smallest parameter values.
//!
//! Bernstein bounds the rational relaxation of the set. At small parameter values the
//! relaxation is furthest from the integer points (for `i*(n - i)` on `0 <= i <= n`, n = 1 has
//! rational maximum 1/4 but integer maximum 0). For problems in one or two parameters, the first
//! few values of each parameter from its lower bound are solved exactly by enumerating the
//! integer points, and kept as `Cases` arms where they beat the symbolic bound.

use std::collections::BTreeMap;

use membound_polyhedra::{Affine, Constraint, Int, Polyhedron, Polynomial, Rat, Value};

use crate::expr::{Arm, BoundExpr};
use crate::guard::{Atom, Guard};
use crate::simplify::cases;
use crate::vertices::ParametricPolytope;

/// Values tried per parameter, from its lower bound up.
const VALUES_PER_PARAMETER: i64 = 3;
/// Most integer points enumerated for one parameter value.
const MAX_POINTS: usize = 4096;

/// `bound` preceded by exact arms at the smallest parameter values where they are tighter.
pub fn with_exact_small_values(
    poly: &Polynomial,
    polytope: &ParametricPolytope,
    bound: BoundExpr,
) -> BoundExpr {
    let params = effective_params(poly, polytope);
    if params.is_empty() || params.len() > 2 {
        return bound;
    }
    let context = polytope.context();
    let mut lowers = Vec::new();
    for param in &params {
        let Some(lower) = context.integer_interval(param).0 else {
            return bound;
        };
        lowers.push(lower);
    }
    let mut arms = Vec::new();
    for values in grid(&lowers) {
        let point: BTreeMap<String, Rat> = params
            .iter()
            .cloned()
            .zip(values.iter().map(Rat::from))
            .collect();
        let Some(exact) = exact_maximum(poly, polytope, &point) else {
            continue;
        };
        let all_params: BTreeMap<String, Rat> = polytope
            .params
            .iter()
            .map(|p| (p.clone(), point.get(p).cloned().unwrap_or_default()))
            .collect();
        let tighter = match bound.eval(&all_params) {
            Ok(Value::Finite(symbolic)) => exact < symbolic,
            Ok(Value::Infinite) => true,
            Err(_) => false,
        };
        if tighter {
            arms.push(Arm {
                guard: point_guard(&point),
                expr: BoundExpr::pol(Polynomial::constant(exact)),
            });
        }
    }
    cases(arms, bound)
}

/// Parameters the polynomial or the constraints mention, in the polytope's order.
fn effective_params(poly: &Polynomial, polytope: &ParametricPolytope) -> Vec<String> {
    let used = poly.variables();
    polytope
        .params
        .iter()
        .enumerate()
        .filter(|(index, name)| {
            used.contains(name)
                || polytope
                    .constraints
                    .iter()
                    .any(|c| !c.expr.coeff(*index).is_zero())
        })
        .map(|(_, name)| name.clone())
        .collect()
}

/// Every combination of `lower + k`, `0 <= k < VALUES_PER_PARAMETER`.
fn grid(lowers: &[Int]) -> Vec<Vec<Int>> {
    lowers.iter().fold(vec![Vec::new()], |acc, lower| {
        acc.iter()
            .flat_map(|prefix| {
                (0..VALUES_PER_PARAMETER).map(move |k| {
                    let mut next = prefix.clone();
                    next.push(lower + Int::from(k));
                    next
                })
            })
            .collect()
    })
}

fn point_guard(point: &BTreeMap<String, Rat>) -> Guard {
    let atoms = point
        .iter()
        .map(|(name, value)| {
            Atom::eq(Polynomial::var(name.clone()) - Polynomial::constant(value.clone()))
        })
        .collect();
    Guard::from_atoms(atoms)
}

/// The largest value of `poly` over the integer points of the polytope at `point` (`None`
/// when there is none, when the polytope is unbounded there, or when it has too many points).
fn exact_maximum(
    poly: &Polynomial,
    polytope: &ParametricPolytope,
    point: &BTreeMap<String, Rat>,
) -> Option<Rat> {
    let np = polytope.params.len();
    let nv = polytope.vars.len();
    let fixed: Vec<Constraint> = polytope
        .constraints
        .iter()
        .map(|c| {
            let constant = polytope
                .params
                .iter()
                .enumerate()
                .fold(c.expr.constant.clone(), |acc, (i, p)| {
                    acc + c.expr.coeff(i) * point.get(p).cloned().unwrap_or_default()
                });
            let coeffs = (0..nv).map(|j| c.expr.coeff(np + j)).collect();
            Constraint {
                expr: Affine::from_coeffs(coeffs, constant),
                rel: c.rel,
            }
        })
        .collect();
    let region = Polyhedron::from_constraints(nv, fixed);
    let generators = region.generators();
    if !generators.rays.is_empty() || !generators.lines.is_empty() || generators.vertices.is_empty()
    {
        return None;
    }
    let ranges: Vec<(Int, Int)> = (0..nv)
        .map(|j| {
            let lowest = generators
                .vertices
                .iter()
                .map(|v| v[j].ceil())
                .min()
                .unwrap_or_default();
            let highest = generators
                .vertices
                .iter()
                .map(|v| v[j].floor())
                .max()
                .unwrap_or_default();
            (lowest, highest)
        })
        .collect();
    let mut best: Option<Rat> = None;
    for x in integer_box(&ranges)? {
        if !region.contains(&x) {
            continue;
        }
        let value = poly.eval(&|name| {
            polytope.vars.iter().position(|v| v == name).map_or_else(
                || point.get(name).cloned().unwrap_or_default(),
                |j| x[j].clone(),
            )
        });
        if best.as_ref().is_none_or(|b| value > *b) {
            best = Some(value);
        }
    }
    best
}

/// The integer points of a box, or `None` when there are more than [`MAX_POINTS`].
fn integer_box(ranges: &[(Int, Int)]) -> Option<Vec<Vec<Rat>>> {
    let mut points: Vec<Vec<Rat>> = vec![Vec::new()];
    for (low, high) in ranges {
        let mut next = Vec::new();
        let mut value = low.clone();
        while value <= *high {
            for prefix in &points {
                let mut extended = prefix.clone();
                extended.push(Rat::from(&value));
                next.push(extended);
            }
            if next.len() > MAX_POINTS {
                return None;
            }
            value += Int::from(1);
        }
        points = next;
    }
    Some(points)
}

//! Brute-force counting and summing: enumerate the bounding box of the rational relaxation and
//! test membership point by point (existential witnesses are searched in their own box).

use membound_polyhedra::{Affine, BasicSet, Constraint, Polyhedron, QuasiPolynomial, Rat, Set};

/// Existential witnesses are searched within this many times the dims' radius.
const WITNESS_SCALE: i64 = 4;

/// Number of integer points of `set` at `params`; every dim must also lie in
/// `[-radius, radius]` (a safety net for unbounded relaxations).
pub fn brute_count(set: &Set, params: &[i64], radius: i64) -> u64 {
    let mut total = 0;
    for_each_point(set, params, radius, |_| total += 1);
    total
}

/// The sum of `weight` (over the set's params and dims, by name) at the integer points of
/// `set` at `params`, within `[-radius, radius]` as for [`brute_count`].
pub fn brute_sum(set: &Set, params: &[i64], radius: i64, weight: &QuasiPolynomial) -> Rat {
    let names: Vec<&String> = set.space.params.iter().chain(&set.space.dims).collect();
    let mut total = Rat::zero();
    for_each_point(set, params, radius, |dims| {
        let value = |name: &str| {
            let at = names
                .iter()
                .position(|n| *n == name)
                .expect("weight over set names");
            Rat::from(if at < params.len() {
                params[at]
            } else {
                dims[at - params.len()]
            })
        };
        total += weight.eval(&value);
    });
    total
}

/// Calls `visit` with the dims of every integer point of `set` at `params` (within
/// `[-radius, radius]`).
fn for_each_point(set: &Set, params: &[i64], radius: i64, mut visit: impl FnMut(&[i64])) {
    let ranges: Vec<(i64, i64)> = (0..set.space.dims.len())
        .map(|d| column_range(set, params, d, radius))
        .collect();
    if ranges.iter().any(|(lo, hi)| lo > hi) {
        return;
    }
    // Each part with the range of every local (used for its existentials).
    let parts: Vec<(&BasicSet, Vec<(i64, i64)>)> = set
        .parts
        .iter()
        .map(|part| {
            let alone = Set::from_basic(part.clone());
            let first_local = part.n_dims();
            let locals = (0..part.locals.len())
                .map(|l| column_range(&alone, params, first_local + l, WITNESS_SCALE * radius))
                .collect();
            (part, locals)
        })
        .collect();
    let params: Vec<Rat> = params.iter().map(|&p| Rat::from(p)).collect();
    let mut point: Vec<i64> = ranges.iter().map(|(lo, _)| *lo).collect();
    loop {
        let mut values: Vec<Rat> = params.clone();
        values.extend(point.iter().map(|&v| Rat::from(v)));
        if parts
            .iter()
            .any(|(part, locals)| member(part, locals, &mut values))
        {
            visit(&point);
        }
        let mut index = 0;
        loop {
            if index == point.len() {
                return;
            }
            point[index] += 1;
            if point[index] <= ranges[index].1 {
                break;
            }
            point[index] = ranges[index].0;
            index += 1;
        }
    }
}

/// Membership of the params and dims in `values`: divisions are computed, existentials take
/// every value of their range (`locals`). `values` is restored on return.
fn member(part: &BasicSet, locals: &[(i64, i64)], values: &mut Vec<Rat>) -> bool {
    let index = values.len() - part.n_params() - part.n_dims();
    let Some(local) = part.locals.get(index) else {
        return part.constraints.iter().all(|c| c.is_satisfied(values));
    };
    let candidates: Vec<Rat> = match &local.div {
        Some(div) => {
            let quotient = div.numerator.eval(values) / Rat::from(div.denominator.clone());
            vec![Rat::from(quotient.floor())]
        }
        None => (locals[index].0..=locals[index].1).map(Rat::from).collect(),
    };
    candidates.into_iter().any(|value| {
        values.push(value);
        let inside = member(part, locals, values);
        values.pop();
        inside
    })
}

/// Integer range of column `d` (counted after the params: dims, then a part's locals) over
/// the union of the parts' rational relaxations, within `[-radius, radius]`.
fn column_range(set: &Set, params: &[i64], d: usize, radius: i64) -> (i64, i64) {
    let mut range = (radius, -radius);
    for part in &set.parts {
        let n_params = part.n_params();
        let columns = part.n_columns() - n_params;
        let fixed: Vec<Constraint> = part
            .all_constraints()
            .iter()
            .map(|c| {
                let mut expr = Affine::constant(c.expr.constant.clone());
                for col in c.expr.support() {
                    if col < n_params {
                        expr.constant += c.expr.coeff(col) * Rat::from(params[col]);
                    } else {
                        expr.set_coeff(col - n_params, c.expr.coeff(col));
                    }
                }
                Constraint { expr, rel: c.rel }
            })
            .collect();
        let shadow = Polyhedron::from_constraints(columns, fixed).project_onto(&[d]);
        if shadow.is_empty() {
            continue;
        }
        let (mut lo, mut hi) = (-radius, radius);
        for c in shadow.constraints() {
            let a = c.expr.coeff(0);
            if a.is_zero() {
                continue;
            }
            let bound = -&c.expr.constant / &a;
            let (lower, upper) = (
                a.is_positive() || c.is_equality(),
                a.is_negative() || c.is_equality(),
            );
            if lower {
                lo = lo.max(bound.ceil().try_into().unwrap_or(-radius));
            }
            if upper {
                hi = hi.min(bound.floor().try_into().unwrap_or(radius));
            }
        }
        range = (range.0.min(lo), range.1.max(hi));
    }
    range
}

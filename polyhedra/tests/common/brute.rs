//! Brute-force counting: enumerate the bounding box of the rational relaxation and test
//! membership point by point.

use membound_polyhedra::{Affine, Constraint, Int, Polyhedron, Rat, Set};

/// Number of integer points of `set` at `params`; every dim must also lie in
/// `[-radius, radius]` (a safety net for unbounded relaxations).
pub fn brute_count(set: &Set, params: &[i64], radius: i64) -> u64 {
    let ranges: Vec<(i64, i64)> = (0..set.space.dims.len())
        .map(|d| dim_range(set, params, d, radius))
        .collect();
    let params: Vec<Int> = params.iter().map(|&p| Int::from(p)).collect();
    if ranges.iter().any(|(lo, hi)| lo > hi) {
        return 0;
    }
    let mut point: Vec<i64> = ranges.iter().map(|(lo, _)| *lo).collect();
    let mut total = 0;
    loop {
        let values: Vec<Int> = point.iter().map(|&v| Int::from(v)).collect();
        if set
            .contains(&params, &values)
            .expect("brute force needs sets without existentials")
        {
            total += 1;
        }
        let mut index = 0;
        loop {
            if index == point.len() {
                return total;
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

/// Integer range of dim `d` over the union of the parts' rational relaxations.
fn dim_range(set: &Set, params: &[i64], d: usize, radius: i64) -> (i64, i64) {
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

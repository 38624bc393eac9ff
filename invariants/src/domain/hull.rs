//! Convex hull for the join, eliminating one variable at a time so that redundant constraints
//! are removed between steps.
//!
//! The polyhedra crate's `Polyhedron::hull` projects the whole lifted system at once, which
//! blows up (gigabytes, minutes) on the 7–10 dimensional joins of a depth-3 nest. This is the
//! same lifted formulation (`x = y + z`, `y ∈ λ·A`, `z ∈ (1-λ)·B`, `0 <= λ <= 1`), restricted to
//! the variables either side constrains, eliminated one column at a time by exact
//! Fourier–Motzkin, with redundancy removal (linear programs, the costly part) only when the
//! system grows. Elimination can still grow the system exponentially; past a size limit the
//! join falls back to the envelope (each side's constraints the other side satisfies): it
//! contains both sides, so it stays sound, and costs one linear program per constraint.

use membound_polyhedra::{Affine, Constraint, Polyhedron, Rat};

/// The smallest closed convex polyhedron containing `a` and `b`.
pub fn convex_hull(a: &Polyhedron, b: &Polyhedron) -> Polyhedron {
    if a.is_empty() {
        return b.minimized();
    }
    if b.is_empty() || a.includes(b) {
        return a.minimized();
    }
    if b.includes(a) {
        return b.minimized();
    }
    let active = constrained_variables(a, b);
    let compact = |p: &Polyhedron| {
        let constraints = p
            .constraints()
            .iter()
            .map(|c| c.remap(|v| position(&active, v)))
            .collect();
        Polyhedron::from_constraints(active.len(), constraints)
    };
    let (small_a, small_b) = (compact(a), compact(b));
    let hull = lifted_hull(&small_a, &small_b, EXACT_HULL_LIMIT)
        .unwrap_or_else(|| envelope(&small_a, &small_b));
    let constraints = hull
        .constraints()
        .iter()
        .map(|c| c.remap(|k| active[k]))
        .collect();
    Polyhedron::from_constraints(a.dim().max(b.dim()), constraints)
}

fn position(list: &[usize], value: usize) -> usize {
    list.iter().position(|&v| v == value).unwrap_or(0)
}

/// The variables with a non-zero coefficient in some constraint of `a` or `b`, in order.
fn constrained_variables(a: &Polyhedron, b: &Polyhedron) -> Vec<usize> {
    let mut vars: Vec<usize> = a
        .constraints()
        .iter()
        .chain(b.constraints())
        .flat_map(|c| c.expr.support().collect::<Vec<_>>())
        .collect();
    vars.sort_unstable();
    vars.dedup();
    vars
}

/// The exact hull, or `None` when an elimination step makes more than `limit` constraints.
fn lifted_hull(a: &Polyhedron, b: &Polyhedron, limit: usize) -> Option<Polyhedron> {
    let dim = a.dim();
    // Columns: x = 0..dim, y = dim..2·dim, λ = 2·dim.
    let lambda = 2 * dim;
    let mut constraints = Vec::new();
    for c in a.constraints() {
        // a·y + c·λ (rel) 0
        let mut expr = Affine::from_coeffs(c.expr.remap(|i| i + dim).coeffs, Rat::zero());
        expr.set_coeff(lambda, c.expr.constant.clone());
        constraints.push(Constraint { expr, rel: c.rel });
    }
    for c in b.constraints() {
        // a·(x - y) + c·(1 - λ) (rel) 0
        let on_x = Affine::from_coeffs(c.expr.coeffs.clone(), c.expr.constant.clone());
        let mut expr = on_x.sub(&Affine::from_coeffs(
            c.expr.remap(|i| i + dim).coeffs,
            Rat::zero(),
        ));
        expr.set_coeff(lambda, -c.expr.constant.clone());
        constraints.push(Constraint { expr, rel: c.rel });
    }
    constraints.push(Constraint::ge(Affine::var(lambda)));
    constraints.push(Constraint::ge(
        Affine::constant(1).sub(&Affine::var(lambda)),
    ));
    let mut system = Polyhedron::from_constraints(2 * dim + 1, constraints)
        .minimized()
        .constraints()
        .to_vec();
    let mut remaining: Vec<usize> = (dim..=lambda).collect();
    while let Some(index) = cheapest(&system, &remaining) {
        // Eliminated columns keep their index with zero coefficients; nothing is renumbered.
        system = eliminate(system, remaining.swap_remove(index));
        if system.len() > limit {
            return None;
        }
        if system.len() > MINIMIZE_ABOVE {
            system = Polyhedron::from_constraints(2 * dim + 1, system)
                .minimized()
                .constraints()
                .to_vec();
        }
    }
    Some(Polyhedron::from_constraints(dim, system).minimized())
}

/// The constraints of each side that the other side satisfies (equalities as two inequalities,
/// so that a half still holding is kept): a polyhedron containing both.
fn envelope(a: &Polyhedron, b: &Polyhedron) -> Polyhedron {
    let kept = satisfied_by(a, b).chain(satisfied_by(b, a)).collect();
    Polyhedron::from_constraints(a.dim(), deduplicated(kept)).minimized()
}

/// The inequalities of `own` (an equality as two) that every point of `other` satisfies.
fn satisfied_by<'p>(
    own: &'p Polyhedron,
    other: &'p Polyhedron,
) -> impl Iterator<Item = Constraint> + 'p {
    inequalities(own).filter(|c| other.implies(c))
}

fn inequalities(p: &Polyhedron) -> impl Iterator<Item = Constraint> + '_ {
    p.constraints().iter().flat_map(|c| {
        if c.is_equality() {
            vec![Constraint::ge(c.expr.clone()), Constraint::ge(c.expr.neg())]
        } else {
            vec![c.clone()]
        }
    })
}

/// The position in `columns` of the column to eliminate next: one an equality mentions, else
/// the one whose step creates the fewest constraints.
fn cheapest(system: &[Constraint], columns: &[usize]) -> Option<usize> {
    let in_equality = |v: usize| {
        system
            .iter()
            .any(|c| c.is_equality() && c.expr.coeff_ref(v).is_some())
    };
    if let Some(index) = columns.iter().position(|&v| in_equality(v)) {
        return Some(index);
    }
    (0..columns.len()).min_by_key(|&index| {
        let signs = system.iter().map(|c| c.expr.coeff(columns[index]).signum());
        let (lower, upper) = signs.fold((0, 0), |(l, u), s| {
            (l + usize::from(s > 0), u + usize::from(s < 0))
        });
        lower * upper
    })
}

/// Fourier–Motzkin steps run without redundancy removal (exact rational arithmetic, no linear
/// programs) until the system grows past this many constraints.
const MINIMIZE_ABOVE: usize = 12;

/// An elimination step that makes more constraints than this gives the exact hull up: a
/// 12-dimensional join of a loop nest with a call was seen growing 39 → 148 → 520 → … and
/// never finishing, where the joins of the test programs stay under 40.
const EXACT_HULL_LIMIT: usize = 256;

/// One exact Fourier–Motzkin step: through an equality that mentions `column` when there is
/// one, else by combining each lower bound with each upper bound. Duplicates are dropped.
fn eliminate(system: Vec<Constraint>, column: usize) -> Vec<Constraint> {
    let (with, without): (Vec<Constraint>, Vec<Constraint>) = system
        .into_iter()
        .partition(|c| c.expr.coeff_ref(column).is_some());
    let mut result = without;
    if let Some(pivot) = with.iter().find(|c| c.is_equality()) {
        let solved = pivot
            .expr
            .scale(&(Rat::from(-1) / pivot.expr.coeff(column)));
        // pivot: a·column + rest = 0, so column = -rest / a.
        let mut replacement = solved;
        replacement.set_coeff(column, Rat::zero());
        for c in with.iter().filter(|c| !std::ptr::eq(*c, pivot)) {
            result.push(Constraint {
                expr: c.expr.substitute(column, &replacement),
                rel: c.rel,
            });
        }
    } else {
        let (lowers, uppers): (Vec<&Constraint>, Vec<&Constraint>) = with
            .iter()
            .partition(|c| c.expr.coeff(column).is_positive());
        for lower in &lowers {
            for upper in &uppers {
                let a = lower.expr.coeff(column);
                let b = -upper.expr.coeff(column);
                let mut expr = lower.expr.scale(&b).add(&upper.expr.scale(&a));
                expr.set_coeff(column, Rat::zero());
                result.push(Constraint::ge(expr));
            }
        }
    }
    deduplicated(result)
}

fn deduplicated(system: Vec<Constraint>) -> Vec<Constraint> {
    let mut unique: Vec<Constraint> = Vec::new();
    for constraint in system {
        let normal = Constraint {
            expr: constraint.expr.primitive(),
            rel: constraint.rel,
        };
        // A constant constraint is dropped when true and kept when false (an empty result).
        let trivial = normal.expr.is_constant() && normal.is_satisfied(&[]);
        if !trivial && !unique.contains(&normal) {
            unique.push(normal);
        }
    }
    unique
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `{(x, y) : x = v and y = w}` in two dimensions.
    fn point(v: i64, w: i64) -> Polyhedron {
        let at =
            |var: usize, value: i64| Constraint::eq(Affine::var(var).sub(&Affine::constant(value)));
        Polyhedron::from_constraints(2, vec![at(0, v), at(1, w)])
    }

    #[test]
    fn the_hull_keeps_the_dimension_of_its_sides_when_a_column_is_unconstrained() {
        // x0 = 0 and x2 = 0, or x0 = 1 and x2 = 1: column 1 appears in neither side.
        let side = |v: i64| {
            let at = |var: usize| Constraint::eq(Affine::var(var).sub(&Affine::constant(v)));
            Polyhedron::from_constraints(3, vec![at(0), at(2)])
        };
        let hull = convex_hull(&side(0), &side(1));
        assert_eq!(hull.dim(), 3);
        let at = |x: i64, y: i64, z: i64| [Rat::from(x), Rat::from(y), Rat::from(z)];
        assert!(hull.contains(&at(0, 7, 0)) && hull.contains(&at(1, -3, 1)));
        assert!(!hull.contains(&at(0, 0, 1)));
    }

    #[test]
    fn the_envelope_contains_the_exact_hull_when_the_limit_gives_it_up() {
        let (a, b) = (point(0, 0), point(2, 1));
        let exact = lifted_hull(&a, &b, EXACT_HULL_LIMIT).expect("a small hull is exact");
        assert!(lifted_hull(&a, &b, 0).is_none(), "a limit of 0 gives up");
        let coarse = envelope(&a, &b);
        assert!(coarse.includes(&exact) && exact.includes(&a) && exact.includes(&b));
        // The segment's diagonal constraint is lost; the bounding box is what stays.
        assert!(!exact.includes(&coarse));
        let corner = point(2, 0);
        assert!(coarse.includes(&corner) && !exact.includes(&corner));
    }
}

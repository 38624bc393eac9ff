//! Convex hull for the join, eliminating one variable at a time so that redundant constraints
//! are removed between steps.
//!
//! The polyhedra crate's `Polyhedron::hull` projects the whole lifted system at once, which
//! blows up (gigabytes, minutes) on the 7–10 dimensional joins of a depth-3 nest. This is the
//! same lifted formulation (`x = y + z`, `y ∈ λ·A`, `z ∈ (1-λ)·B`, `0 <= λ <= 1`), restricted to
//! the variables either side constrains, with each elimination followed by minimisation.

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
    let hull = lifted_hull(&compact(a), &compact(b));
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

fn lifted_hull(a: &Polyhedron, b: &Polyhedron) -> Polyhedron {
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
    let mut lifted = Polyhedron::from_constraints(2 * dim + 1, constraints).minimized();
    // Eliminated columns shift down, so the x columns stay first and the rest follow.
    while lifted.dim() > dim {
        let column = cheapest_column(&lifted, dim);
        lifted = lifted.project_out(&[column]);
    }
    lifted
}

/// Among the columns from `first` on: one an equality mentions, else the one whose
/// Fourier–Motzkin step creates the fewest constraints.
fn cheapest_column(poly: &Polyhedron, first: usize) -> usize {
    let columns = first..poly.dim();
    let in_equality = |v: usize| {
        poly.constraints()
            .iter()
            .any(|c| c.is_equality() && c.expr.coeff_ref(v).is_some())
    };
    if let Some(column) = columns.clone().find(|&v| in_equality(v)) {
        return column;
    }
    columns
        .min_by_key(|&v| {
            let signs = poly.constraints().iter().map(|c| c.expr.coeff(v).signum());
            let (lower, upper) = signs.fold((0, 0), |(l, u), s| {
                (l + usize::from(s > 0), u + usize::from(s < 0))
            });
            lower * upper
        })
        .unwrap_or(first)
}

//! Transfer functions and widening on the polyhedra crate's [`Polyhedron`]: assignment,
//! havoc, and the standard widening of Cousot–Halbwachs with Halbwachs's refinement and
//! thresholds ("widening up to").

use membound_polyhedra::{Affine, Constraint, Polyhedron, Rat, Relation};

/// `x_var := expr` (an affine form over the same variables).
pub fn assign(poly: &Polyhedron, var: usize, expr: &Affine) -> Polyhedron {
    let coeff = expr.coeff(var);
    if coeff.is_zero() {
        let mut forgotten = havoc(poly, var);
        forgotten.add_constraint(Constraint::eq(Affine::var(var).sub(expr)));
        return forgotten;
    }
    // Invertible: the old value is (new - rest) / coeff, substituted into every constraint.
    let mut rest = expr.clone();
    rest.set_coeff(var, Rat::zero());
    let old_value = Affine::var(var).sub(&rest).scale(&(Rat::one() / coeff));
    let constraints = poly
        .constraints()
        .iter()
        .map(|c| Constraint {
            expr: c.expr.substitute(var, &old_value),
            rel: c.rel,
        })
        .collect();
    Polyhedron::from_constraints(poly.dim(), constraints)
}

/// Forgets everything about `var`.
pub fn havoc(poly: &Polyhedron, var: usize) -> Polyhedron {
    havoc_all(poly, &[var])
}

/// Forgets everything about each of `vars` (in one projection).
pub fn havoc_all(poly: &Polyhedron, vars: &[usize]) -> Polyhedron {
    let constrained: Vec<usize> = vars
        .iter()
        .copied()
        .filter(|&var| {
            poly.constraints()
                .iter()
                .any(|c| c.expr.coeff_ref(var).is_some())
        })
        .collect();
    if constrained.is_empty() {
        return poly.clone();
    }
    let kept: Vec<usize> = (0..poly.dim())
        .filter(|v| !constrained.contains(v))
        .collect();
    let shadow = poly.project_out(&constrained);
    let constraints = shadow
        .constraints()
        .iter()
        .map(|c| c.remap(|i| kept[i]))
        .collect();
    Polyhedron::from_constraints(poly.dim(), constraints)
}

/// Inequalities `e >= 0` describing `poly`: its minimized constraints with each equality split
/// in two, so that widening can keep one side of an equality.
fn as_inequalities(poly: &Polyhedron) -> Vec<Affine> {
    poly.minimized()
        .constraints()
        .iter()
        .flat_map(|c| match c.rel {
            Relation::Ge => vec![c.expr.clone()],
            Relation::Eq => vec![c.expr.clone(), c.expr.neg()],
        })
        .collect()
}

/// `old ∇ newer` for `old ⊆ newer`: the constraints of `old` that `newer` satisfies, the
/// constraints of `newer` that are tight on all of `old` (a relation such as `j <= i` that held
/// as the equality `j = i` before; Halbwachs keeps those so the result does not depend on how
/// `old` happens to be written), and the thresholds `newer` satisfies.
pub fn widen(old: &Polyhedron, newer: &Polyhedron, thresholds: &[Constraint]) -> Polyhedron {
    if old.is_empty() {
        return newer.clone();
    }
    let mut kept: Vec<Affine> = as_inequalities(old)
        .into_iter()
        .filter(|e| newer.implies(&Constraint::ge(e.clone())))
        .collect();
    for candidate in as_inequalities(newer) {
        if !kept.contains(&candidate) && old.implies(&Constraint::eq(candidate.clone())) {
            kept.push(candidate);
        }
    }
    let mut result =
        Polyhedron::from_constraints(old.dim(), kept.into_iter().map(Constraint::ge).collect());
    for threshold in thresholds {
        if newer.implies(threshold) {
            result.add_constraint(threshold.clone());
        }
    }
    result.minimized()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(coeffs: &[i64], constant: i64) -> Affine {
        Affine::from_ints(coeffs, constant)
    }
    fn rats(values: &[i64]) -> Vec<Rat> {
        values.iter().map(|&v| Rat::from(v)).collect()
    }

    #[test]
    fn invertible_assignment_shifts_the_set() {
        // 0 <= x <= 3, then x := x + 2 gives 2 <= x <= 5.
        let poly = Polyhedron::from_constraints(
            1,
            vec![
                Constraint::ge(form(&[1], 0)),
                Constraint::ge(form(&[-1], 3)),
            ],
        );
        let moved = assign(&poly, 0, &form(&[1], 2));
        assert!(moved.contains(&rats(&[5])) && moved.contains(&rats(&[2])));
        assert!(!moved.contains(&rats(&[1])) && !moved.contains(&rats(&[6])));
    }

    #[test]
    fn non_invertible_assignment_relates_to_the_others() {
        // y := 2x on 0 <= x <= 1.
        let poly = Polyhedron::from_constraints(
            2,
            vec![
                Constraint::ge(form(&[1, 0], 0)),
                Constraint::ge(form(&[-1, 0], 1)),
            ],
        );
        let assigned = assign(&poly, 1, &form(&[2, 0], 0));
        assert!(assigned.contains(&rats(&[1, 2])));
        assert!(!assigned.contains(&rats(&[1, 1])));
    }

    #[test]
    fn widening_keeps_stable_constraints_equalities_and_thresholds() {
        // old: i = j = 0; newer: 0 <= i <= 1, j = i. Widening keeps i >= 0 and j = i.
        let old = Polyhedron::from_constraints(
            2,
            vec![
                Constraint::eq(form(&[1, 0], 0)),
                Constraint::eq(form(&[0, 1], 0)),
            ],
        );
        let newer = Polyhedron::from_constraints(
            2,
            vec![
                Constraint::ge(form(&[1, 0], 0)),
                Constraint::ge(form(&[-1, 0], 1)),
                Constraint::eq(form(&[1, -1], 0)),
            ],
        );
        let threshold = Constraint::ge(form(&[-1, 0], 10));
        let widened = widen(&old, &newer, std::slice::from_ref(&threshold));
        assert!(widened.contains(&rats(&[7, 7])));
        assert!(!widened.contains(&rats(&[7, 6])));
        assert!(!widened.contains(&rats(&[11, 11])));
        assert!(widened.implies(&threshold));
    }
}

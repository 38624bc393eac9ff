//! Closed forms of `Σ_l b^l · q(p - l·e_j)` over the levels `l` of a recursion that descends by
//! one in the formal `p_j` and makes `b >= 2` recursive calls per activation (see
//! [`super::recursion`]): the activations at level `l` are `b^l`, each with `p_j - l`.
//!
//! For one piece of `q` (a polynomial on a domain of linear constraints), the levels where the
//! piece applies form an interval `lo <= l <= hi` whose ends are the largest lower and the
//! smallest upper bound the constraints give (each `l >= 0`, `l <= p_j - g + 1` for the levels
//! that exist under the guard `p_j >= g`, and the domain's constraints with `p_j - l` put in);
//! the cases of which bounds are the largest and smallest become the arms of a `cases`. Over an
//! interval, with `P(l) = q(p - l·e_j)` a polynomial in `l`, the sum telescopes:
//! `Σ_{l=lo}^{hi} b^l P(l) = b^(hi+1) R(hi+1) - b^lo R(lo)` for the polynomial `R` of the same
//! degree with `b·R(l+1) - R(l) = P(l)` (solved from the highest coefficient down). The result is
//! exact; pieces with periodic coefficients or divisions in their domains are not handled.

use membound_bernstein::{Arm, Atom, BoundExpr, Guard, simplify};
use membound_polyhedra::{BasicSet, Int, Polynomial, Rat, Relation};

use super::qty::Qty;

/// The name of the level in the polynomials built here.
const LEVEL: &str = "level__";

/// `Σ_l b^l · qty(p - l·e_j)` over the levels under an activation with formals `params`, where
/// the recursion runs while `params[j] >= guard`.
pub(super) fn levels_sum(
    qty: &Qty,
    branching: u64,
    params: &[String],
    j: usize,
    guard: &Int,
) -> Result<Qty, String> {
    let pw = match qty {
        Qty::Inf => return Ok(Qty::Inf),
        Qty::Expr(_) => {
            return Err("an activation's own cost is itself exponential".to_string());
        }
        Qty::Finite(pw) => pw,
    };
    let b = Rat::from(Int::from(branching));
    let mut terms = Vec::new();
    for piece in &pw.pieces {
        let polynomial = piece
            .qp
            .as_polynomial()
            .ok_or_else(|| "an activation's cost has periodic coefficients".to_string())?;
        for part in &piece.domain.parts {
            terms.push(piece_sum(polynomial, part, &b, params, j, guard)?);
        }
    }
    Ok(Qty::Expr(simplify(
        &BoundExpr::Sum(terms),
        &Guard::always(),
    )))
}

/// A linear bound on the level: `l >= bound` or `l <= bound`, the bound linear in the
/// parameters.
struct LevelBounds {
    lower: Vec<Polynomial<String>>,
    upper: Vec<Polynomial<String>>,
    /// Constraints of the piece that do not involve the level.
    guards: Vec<Atom>,
}

/// The sum over the levels where `polynomial` applies (its domain `part`).
fn piece_sum(
    polynomial: &Polynomial<String>,
    part: &BasicSet,
    b: &Rat,
    params: &[String],
    j: usize,
    guard: &Int,
) -> Result<BoundExpr, String> {
    if !part.locals.is_empty() {
        return Err("an activation's cost has a domain with divisions".to_string());
    }
    let name = &params[j];
    let level = Polynomial::var(LEVEL.to_string());
    let descended = Polynomial::var(name.clone()) - level.clone();
    let mut bounds = LevelBounds {
        lower: vec![Polynomial::zero()],
        // The levels that exist: l <= p_j - g + 1 (l = 0 always does: see `levels_sum`'s callers).
        upper: vec![
            Polynomial::var(name.clone())
                - Polynomial::constant(Rat::from(guard.clone()) - Rat::from(1)),
        ],
        guards: Vec::new(),
    };
    for constraint in &part.constraints {
        let linear = linear_in(&constraint.expr, &part.space.params)?.substitute(name, &descended);
        add_bound(&mut bounds, linear, constraint.rel)?;
    }
    // l = 0 exists even when p_j < g: there the upper bound above is negative.
    let root_only = Atom::ge(
        Polynomial::constant(Rat::from(guard.clone()) - Rat::from(2))
            - Polynomial::var(name.clone()),
    );
    let substituted = polynomial.substitute(name, &descended);
    let r = telescoping(&substituted, b)?;
    let mut arms = Vec::new();
    for (li, lo) in bounds.lower.iter().enumerate() {
        for (ui, hi) in bounds.upper.iter().enumerate() {
            let mut atoms = bounds.guards.clone();
            atoms.extend(
                bounds
                    .lower
                    .iter()
                    .enumerate()
                    .filter(|&(other, _)| other != li)
                    .map(|(_, other)| Atom::ge(lo.clone() - other.clone())),
            );
            atoms.extend(
                bounds
                    .upper
                    .iter()
                    .enumerate()
                    .filter(|&(other, _)| other != ui)
                    .map(|(_, other)| Atom::ge(other.clone() - hi.clone())),
            );
            atoms.push(Atom::ge(hi.clone() - lo.clone()));
            let expr = interval_sum(&r, b, lo, &(hi.clone() + Polynomial::one()));
            arms.push(Arm {
                guard: Guard::from_atoms(atoms),
                expr,
            });
        }
    }
    // Below the guard only level 0 exists, with p itself.
    let mut root_atoms = bounds.guards.clone();
    root_atoms.push(root_only);
    root_atoms.extend(bounds.lower.iter().skip(1).map(|lo| Atom::ge(-lo.clone())));
    root_atoms.extend(bounds.upper.iter().skip(1).map(|hi| Atom::ge(hi.clone())));
    let at_root = BoundExpr::pol(polynomial.clone());
    let mut all = vec![Arm {
        guard: Guard::from_atoms(root_atoms),
        expr: at_root,
    }];
    all.extend(arms);
    Ok(BoundExpr::Cases {
        arms: all,
        default: Box::new(BoundExpr::zero()),
    })
}

/// A constraint `expr (>= | =) 0` in the level: a bound on it, or a guard when it does not
/// involve the level.
fn add_bound(
    bounds: &mut LevelBounds,
    expr: Polynomial<String>,
    rel: Relation,
) -> Result<(), String> {
    let coefficients = expr.coefficients_in(&LEVEL.to_string());
    let (rest, slope) = match coefficients.as_slice() {
        [rest] => (rest.clone(), Rat::from(0)),
        [rest, slope] => {
            let slope = slope
                .as_constant()
                .ok_or_else(|| "a level bound with a parametric slope".to_string())?;
            (rest.clone(), slope)
        }
        _ => return Err("a domain constraint is not linear".to_string()),
    };
    if slope.is_zero() {
        bounds.guards.push(match rel {
            Relation::Ge => Atom::ge(rest),
            Relation::Eq => Atom::eq(rest),
        });
        return Ok(());
    }
    if slope.abs() != Rat::from(1) {
        return Err("a level bound with a slope other than ±1".to_string());
    }
    // slope·l + rest >= 0: l >= -rest (slope 1) or l <= rest (slope -1).
    let bound = if slope > Rat::from(0) {
        -rest.clone()
    } else {
        rest.clone()
    };
    match rel {
        Relation::Ge if slope > Rat::from(0) => bounds.lower.push(bound),
        Relation::Ge => bounds.upper.push(bound),
        Relation::Eq => {
            bounds.lower.push(bound.clone());
            bounds.upper.push(bound);
        }
    }
    Ok(())
}

/// An affine form over the parameter columns as a polynomial in their names.
fn linear_in(
    expr: &membound_polyhedra::Affine,
    names: &[String],
) -> Result<Polynomial<String>, String> {
    let mut polynomial = Polynomial::constant(expr.constant.clone());
    for column in expr.support() {
        let name = names
            .get(column)
            .ok_or_else(|| "a domain constraint on a column that is not a parameter".to_string())?;
        polynomial = polynomial + Polynomial::var(name.clone()).scale(&expr.coeff(column));
    }
    Ok(polynomial)
}

/// The coefficients of `R` (in the level, lowest degree first) with `b·R(l+1) - R(l) = P(l)`.
fn telescoping(p: &Polynomial<String>, b: &Rat) -> Result<Vec<Polynomial<String>>, String> {
    let coefficients = p.coefficients_in(&LEVEL.to_string());
    let degree = coefficients.len();
    let denominator = b.clone() - Rat::from(1);
    let mut r = vec![Polynomial::zero(); degree];
    for i in (0..degree).rev() {
        // Coefficient of l^i in b·R(l+1) - R(l): (b - 1)·r_i + b·Σ_{m>i} C(m, i)·r_m.
        let mut known = Polynomial::zero();
        for (m, r_m) in r.iter().enumerate().skip(i + 1) {
            known = known + r_m.scale(&(b.clone() * Rat::from(binomial(m, i))));
        }
        r[i] = (coefficients[i].clone() - known).scale(&(Rat::from(1) / denominator.clone()));
    }
    Ok(r)
}

fn binomial(n: usize, k: usize) -> Int {
    (0..k).fold(Int::from(1), |acc, i| {
        acc * Int::from(n - i) / Int::from(i + 1)
    })
}

/// `b^end R(end) - b^start R(start)`: the sum over `start <= l < end`.
fn interval_sum(
    r: &[Polynomial<String>],
    b: &Rat,
    start: &Polynomial<String>,
    end: &Polynomial<String>,
) -> BoundExpr {
    let at = |n: &Polynomial<String>| {
        r.iter()
            .enumerate()
            .fold(Polynomial::zero(), |sum, (i, coefficient)| {
                sum + coefficient.clone() * n.pow(i as u32)
            })
    };
    let power = |n: &Polynomial<String>| BoundExpr::Pow {
        base: b.numer().clone(),
        exponent: Box::new(BoundExpr::pol(n.clone())),
    };
    BoundExpr::Sum(vec![
        BoundExpr::Mul(vec![power(end), BoundExpr::pol(at(end))]),
        BoundExpr::Mul(vec![power(start), BoundExpr::pol(-at(start))]),
    ])
}

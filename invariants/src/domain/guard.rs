//! Refining a part by a guard. Negations are pushed down to the atoms; `!=`, `||` and a
//! negated `mod` split the part into a disjunction, which is what keeps an `else` branch of
//! `i % 3 == 0` exact (`i mod 3 = 1` or `i mod 3 = 2`).

use membound_polyhedra::Int;
use num_traits::One;

use super::{Conjunct, MAX_PARTS, Value};
use crate::program::{Cond, Expr};

/// A negated `mod` with a larger modulus is not split (no refinement, which stays sound).
const MAX_SPLIT_MODULUS: i64 = 16;

/// The parts of `part` satisfying `cond` (or its negation when `positive` is false).
pub(super) fn refine(part: &Conjunct, cond: &Cond, positive: bool) -> Vec<Conjunct> {
    match (cond, positive) {
        (Cond::True, true) | (Cond::False, false) => vec![part.clone()],
        (Cond::True, false) | (Cond::False, true) => Vec::new(),
        (Cond::Ge(e), true) => part.meet_nonnegative(e).into_iter().collect(),
        (Cond::Ge(e), false) => part
            .meet_nonnegative(&(e.negated() - 1))
            .into_iter()
            .collect(),
        (Cond::Eq(e), true) | (Cond::Ne(e), false) => part.meet_zero(e).into_iter().collect(),
        (Cond::Eq(e), false) | (Cond::Ne(e), true) => {
            let above = Cond::Ge(e.clone() - 1);
            let below = Cond::Ge(e.negated() - 1);
            refine_any(part, &[above, below], true)
        }
        (
            Cond::Mod {
                expr,
                modulus,
                residue,
            },
            true,
        ) => part
            .meet_congruence(expr, modulus, residue)
            .into_iter()
            .collect(),
        (
            Cond::Mod {
                expr,
                modulus,
                residue,
            },
            false,
        ) => refine_other_residues(part, expr, modulus, residue),
        (Cond::Not(inner), _) => refine(part, inner, !positive),
        (Cond::And(parts), true) | (Cond::Or(parts), false) => refine_all(part, parts, positive),
        (Cond::Or(parts), true) | (Cond::And(parts), false) => refine_any(part, parts, positive),
    }
}

/// Every condition in turn (each with polarity `positive`).
fn refine_all(part: &Conjunct, conds: &[Cond], positive: bool) -> Vec<Conjunct> {
    conds.iter().fold(vec![part.clone()], |parts, cond| {
        let refined: Vec<Conjunct> = parts
            .iter()
            .flat_map(|p| refine(p, cond, positive))
            .collect();
        capped(refined)
    })
}

/// The union over the conditions.
fn refine_any(part: &Conjunct, conds: &[Cond], positive: bool) -> Vec<Conjunct> {
    capped(
        conds
            .iter()
            .flat_map(|cond| refine(part, cond, positive))
            .collect(),
    )
}

fn refine_other_residues(
    part: &Conjunct,
    expr: &Expr,
    modulus: &Int,
    residue: &Int,
) -> Vec<Conjunct> {
    if *modulus > Int::from(MAX_SPLIT_MODULUS) {
        return vec![part.clone()];
    }
    let mut parts = Vec::new();
    let mut other = Int::from(0);
    while other < *modulus {
        if other != *residue {
            parts.extend(part.meet_congruence(expr, modulus, &other));
        }
        other += Int::one();
    }
    capped(parts)
}

fn capped(parts: Vec<Conjunct>) -> Vec<Conjunct> {
    if parts.len() <= MAX_PARTS {
        return parts;
    }
    let dim = parts[0].dim();
    Value { dim, parts }.merged().parts
}

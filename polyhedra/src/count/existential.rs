//! Exact elimination of existentially quantified variables: a basic set with existential
//! locals becomes a union of basic sets whose locals are all integer divisions, with the same
//! integer points. Counting needs this twice: the engine sums over variables that are functions
//! of the dims (a division is, a free witness is not), and the disjoint decomposition of a union
//! negates constraints, which is exact only over divisions.
//!
//! Three exact rules, applied until no existential is left:
//! - a division over an existential is itself a witness: it becomes an existential bound by its
//!   defining inequalities (so divisions never mention existentials afterwards);
//! - an equality: a unimodular change of the existentials (which keeps the projection) leaves
//!   one existential `t` in it, `a*t + E = 0`; for `|a| = 1` `t` is substituted away, else `t`
//!   *is* the division `floor(-E/a)` (the equality checks `a | E`);
//! - inequalities: with lower bounds `a*t + e >= 0` and upper bounds `-b*t + f >= 0` (`a, b > 0`),
//!   an integer `t` exists iff `ceil(-e/a) <= floor(f/b)` for every pair (a max of ceilings is
//!   the ceiling of the max), that is `b*e + f >= 0` when `a = 1`, `e + a*f >= 0` when `b = 1`,
//!   and `f + b*floor(e/a) >= 0` otherwise, one new division and no case split. That division
//!   must not mention another existential `s`: when it would, `s` is first split by residue
//!   (`s = m*s' + r`, one part per `r`) so that its coefficient in `e` becomes a multiple of `a`
//!   and leaves the floor. The parts' projections may overlap; the caller counts them as a
//!   union.
//!
//! What it is not: a simplifier. Redundant divisions and constraints it creates stay (the
//! engine and the piece merging prune what matters).

use num_integer::Integer;
use num_traits::{One, Signed, Zero};

use crate::affine::Affine;
use crate::constraint::Constraint;
use crate::scalar::{Int, Rat};
use crate::set::{BasicSet, Div};

use super::CountError;
use super::piecewise::is_obviously_empty;

/// Above this many parts (from residue splits, counted before they are made) the elimination
/// stops.
const PART_LIMIT: usize = 4096;

/// `set` as a union of basic sets with the same integer points and only division locals.
pub(super) fn without_existentials(set: &BasicSet) -> Result<Vec<BasicSet>, CountError> {
    if set.has_only_divs() {
        return Ok(vec![set.clone()]);
    }
    let mut work = vec![divisions_over_witnesses_as_witnesses(set)];
    let mut done = Vec::new();
    while let Some(part) = work.pop() {
        if work.len() + done.len() > PART_LIMIT {
            return Err(CountError::TooComplex);
        }
        if is_obviously_empty(&part) {
            continue;
        }
        let witnesses = existential_columns(&part);
        if witnesses.is_empty() {
            done.push(part);
        } else if let Some(index) = part
            .constraints
            .iter()
            .position(|c| c.is_equality() && witnesses.iter().any(|&w| mentions(c, w)))
        {
            work.push(through_equality(part, index, &witnesses));
        } else {
            let (t, negate, splits) = cheapest_witness(&part, &witnesses);
            let residues = splits.iter().fold(Int::one(), |p, (_, m)| p * m);
            if residues > Int::from(PART_LIMIT) {
                return Err(CountError::TooComplex);
            }
            let part = if negate {
                substitute(part, t, &Affine::term(t, -Rat::one()))
            } else {
                part
            };
            let eliminated: Vec<BasicSet> = split_by_residue(part, &splits)
                .into_iter()
                .map(|p| through_bounds(p, t))
                .collect();
            work.extend(eliminated);
        }
    }
    Ok(done)
}

fn mentions(c: &Constraint, column: usize) -> bool {
    c.expr.coeff_ref(column).is_some()
}

fn existential_columns(set: &BasicSet) -> Vec<usize> {
    (0..set.locals.len())
        .filter(|&i| set.locals[i].div.is_none())
        .map(|i| set.local_column(i))
        .collect()
}

/// The same set with every division over an existential (directly or through another
/// division) turned into an existential bound by its defining inequalities, and every
/// constraint in lowest integer terms.
fn divisions_over_witnesses_as_witnesses(set: &BasicSet) -> BasicSet {
    let mut result = set.clone();
    for i in 0..result.locals.len() {
        let column = result.local_column(i);
        let witnesses = existential_columns(&result);
        let Some(div) = &result.locals[i].div else {
            continue;
        };
        if div.numerator.support().any(|c| witnesses.contains(&c)) {
            let defining = div.defining_constraints(column);
            result.constraints.extend(defining);
            result.locals[i].div = None;
        }
    }
    result.constraints = result
        .constraints
        .iter()
        .map(Constraint::normalized_for_integers)
        .collect();
    result
}

/// Replaces column `column` by `value` in every constraint.
fn substitute(mut set: BasicSet, column: usize, value: &Affine) -> BasicSet {
    for c in &mut set.constraints {
        *c = Constraint {
            expr: c.expr.substitute(column, value),
            rel: c.rel,
        }
        .normalized_for_integers();
    }
    set
}

/// Removes the local at `column`, which no constraint or division mentions any more.
fn remove_local(mut set: BasicSet, column: usize) -> BasicSet {
    let shift = |c: usize| if c > column { c - 1 } else { c };
    set.locals.remove(column - set.local_column(0));
    for local in &mut set.locals {
        if let Some(div) = &mut local.div {
            div.numerator = div.numerator.remap(shift);
        }
    }
    set.constraints = set.constraints.iter().map(|c| c.remap(shift)).collect();
    set
}

/// Removes the existentials from equality `index`: a unimodular change of the existentials
/// leaves one, `a*t + E = 0`, which is then substituted (`|a| = 1`) or becomes the division
/// `floor(-E/a)` (placed last, since `E` may mention later divisions).
fn through_equality(mut set: BasicSet, index: usize, witnesses: &[usize]) -> BasicSet {
    loop {
        let equality = set.constraints[index].expr.clone();
        let mut present: Vec<(usize, Int)> = witnesses
            .iter()
            .filter_map(|&w| equality.coeff_ref(w).map(|c| (w, c.numer())))
            .collect();
        present.sort_by_key(|(_, c)| c.abs());
        let (pivot, pivot_coeff) = present[0].clone();
        if present.len() > 1 {
            // pivot := pivot - q*other reduces other's coefficient modulo the pivot's.
            for (other, other_coeff) in &present[1..] {
                let q = other_coeff.div_floor(&pivot_coeff);
                let replacement = Affine::var(pivot).sub(&Affine::term(*other, Rat::from(q)));
                set = substitute(set, pivot, &replacement);
            }
            continue;
        }
        let mut rest = equality.clone();
        rest.set_coeff(pivot, Rat::zero());
        // pivot_coeff * t + rest = 0, so t = -rest / pivot_coeff.
        let value = rest.scale(&(-Rat::one() / Rat::from(pivot_coeff.clone())));
        if pivot_coeff.abs().is_one() {
            set.constraints.remove(index);
            return remove_local(substitute(set, pivot, &value), pivot);
        }
        let a = pivot_coeff.abs();
        let numerator = value.scale(&Rat::from(a.clone()));
        return define_as_division(
            set,
            pivot,
            Div {
                numerator,
                denominator: a,
            },
        );
    }
}

/// Makes existential `column` the division `div` (whose numerator mentions no existential),
/// moving it after every other local.
fn define_as_division(mut set: BasicSet, column: usize, div: Div) -> BasicSet {
    let name = set.locals[column - set.local_column(0)].name.clone();
    set.locals.push(crate::set::Local {
        name,
        div: Some(div),
    });
    let last = set.local_column(set.locals.len() - 1);
    set.constraints = set
        .constraints
        .iter()
        .map(|c| c.remap(|k| if k == column { last } else { k }))
        .collect();
    remove_local(set, column)
}

/// For existential `t`, the residue splits `(s, m)` of other existentials that make the
/// existential part of every floored bound (`e` in `a*t + e >= 0`, `a > 1`, when some upper
/// bound is non-unit too) a multiple of `a`; and whether `t` should be negated first, when
/// flooring the upper bounds needs smaller splits.
fn needed_splits(set: &BasicSet, t: usize, witnesses: &[usize]) -> (bool, Vec<(usize, Int)>) {
    let side = |sign: i32| -> Vec<(usize, Int)> {
        let coeff = |c: &Constraint| c.expr.coeff(t) * Rat::from(sign);
        let other_side_non_unit = set
            .constraints
            .iter()
            .any(|c| coeff(c).is_negative() && !coeff(c).abs().is_one());
        let mut splits: Vec<(usize, Int)> = Vec::new();
        if !other_side_non_unit {
            return splits;
        }
        for c in set.constraints.iter().filter(|c| coeff(c) > Rat::one()) {
            let a = coeff(c).numer();
            for &s in witnesses.iter().filter(|&&s| s != t) {
                let needed = &a / a.gcd(&c.expr.coeff(s).numer());
                if needed.is_one() {
                    continue;
                }
                match splits.iter_mut().find(|(w, _)| *w == s) {
                    Some((_, m)) => *m = m.lcm(&needed),
                    None => splits.push((s, needed)),
                }
            }
        }
        splits
    };
    let product = |splits: &[(usize, Int)]| splits.iter().fold(Int::one(), |p, (_, m)| p * m);
    let (lower, upper) = (side(1), side(-1));
    if product(&upper) < product(&lower) {
        (true, upper)
    } else {
        (false, lower)
    }
}

/// The existential cheapest to eliminate (fewest residue parts, then fewest bound pairs), with
/// its [`needed_splits`].
fn cheapest_witness(set: &BasicSet, witnesses: &[usize]) -> (usize, bool, Vec<(usize, Int)>) {
    let cost = |t: usize| {
        let (_, splits) = needed_splits(set, t, witnesses);
        let parts = splits.iter().fold(Int::one(), |p, (_, m)| p * m);
        let count = |positive: bool| {
            set.constraints
                .iter()
                .filter(|c| mentions(c, t) && c.expr.coeff(t).is_positive() == positive)
                .count()
        };
        (parts, count(true) * count(false))
    };
    let t = witnesses
        .iter()
        .copied()
        .min_by_key(|&t| cost(t))
        .unwrap_or(witnesses[0]);
    let (negate, splits) = needed_splits(set, t, witnesses);
    (t, negate, splits)
}

/// One part per residue class: `s = m*s + r` for each split `(s, m)`.
fn split_by_residue(set: BasicSet, splits: &[(usize, Int)]) -> Vec<BasicSet> {
    let mut parts = vec![set];
    for (s, m) in splits {
        let m_rat = Rat::from(m.clone());
        let mut next = Vec::new();
        for part in parts {
            let mut r = Int::zero();
            while &r < m {
                let value =
                    Affine::term(*s, m_rat.clone()).add(&Affine::constant(Rat::from(r.clone())));
                next.push(substitute(part.clone(), *s, &value));
                r += 1;
            }
        }
        parts = next;
    }
    parts
}

/// Removes existential `t`, which occurs only in inequalities whose floored bounds (the lower
/// ones, `a*t + e >= 0`) have an existential part divisible by `a` wherever a division is
/// needed: each pair of a lower and an upper bound becomes one constraint (module docs).
fn through_bounds(mut set: BasicSet, t: usize) -> BasicSet {
    let (mut lowers, mut uppers) = (Vec::new(), Vec::new());
    let mut kept = Vec::new();
    for c in std::mem::take(&mut set.constraints) {
        let coeff = c.expr.coeff(t);
        let mut rest = c.expr.clone();
        rest.set_coeff(t, Rat::zero());
        if coeff.is_zero() {
            kept.push(c);
        } else if coeff.is_positive() {
            lowers.push((coeff, rest));
        } else {
            uppers.push((-coeff, rest));
        }
    }
    set.constraints = kept;
    let witnesses = existential_columns(&set);
    for (a, e) in &lowers {
        for (b, f) in &uppers {
            let pair = if a.is_one() {
                e.scale(b).add(f)
            } else if b.is_one() {
                f.scale(a).add(e)
            } else {
                // floor(e/a) = e_w/a + floor(e_n/a), e_w (over existentials) divisible by a.
                let (mut e_w, mut e_n) = (Affine::zero(), e.clone());
                for &w in &witnesses {
                    e_w.set_coeff(w, e.coeff(w));
                    e_n.set_coeff(w, Rat::zero());
                }
                let floor = if e_n.is_constant() {
                    Affine::constant(Rat::from((&e_n.constant / a).floor()))
                } else {
                    Affine::var(set.add_div(e_n, a.numer()))
                };
                f.add(&e_w.scale(&(b / a)).add(&floor.scale(b)))
            };
            set.constraints
                .push(Constraint::ge(pair).normalized_for_integers());
        }
    }
    remove_local(set, t)
}

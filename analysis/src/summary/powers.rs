//! A call that passes a callee's formal as `1 << x` (`make(0, 0, 1 << levels)`,
//! [`crate::lowering::Lowered::power_of_two_arguments`]): the polyhedra cannot bind the formal
//! to `2^x`, so the callee's bound is read with the formal replaced by `2^x` instead, exact
//! where `0 <= x <= 30`. The JVM takes an `int` shift count modulo 32 and `1 << 31` is
//! negative, so for every other `x` the formal holds one of the 32 values `1 << k`
//! (`0 <= k <= 31`): there the call's bound is the callee's largest over them
//! ([`over_every_shift`]), finite where the callee's is at each.

use membound_bernstein::{Arm, Atom, BoundExpr, Guard, simplify};
use membound_polyhedra::{Affine, Constraint, Int, Polynomial, Rat, Set};

use crate::lowering::{CALLEE_PREFIX, MAX_INT_SHIFT};
use crate::memalloc::{Quantity, maximum};

/// A callee's formal (named `callee__<formal>`) passed as `1 << x`, with the caller's formal
/// holding `x`.
#[derive(Clone, Debug)]
pub(crate) struct PowerArgument {
    pub formal: String,
    pub exponent: String,
}

impl PowerArgument {
    /// From (callee formal, caller formal) pairs.
    pub(crate) fn of_pairs(pairs: Vec<(String, String)>) -> Vec<PowerArgument> {
        pairs
            .into_iter()
            .map(|(formal, exponent)| PowerArgument {
                formal: format!("{CALLEE_PREFIX}{formal}"),
                exponent,
            })
            .collect()
    }
}

/// `expr` (over the renamed callee formals) with every power argument it reads replaced by
/// `2^x`, simplified under the guard `0 <= x <= 30` it returns; `None` when it reads none or
/// the substitution has no form. The formals the call fixes to a constant (`fixed`, from the
/// call's set) are read at their value first, so a guard relating the power to them
/// (`size + y0 >= x0 + 1` at `x0 = y0 = 0`) reads the power alone.
pub(crate) fn substituted(
    expr: &Quantity,
    powers: &[PowerArgument],
    fixed: &[(String, Int)],
) -> Option<(Guard, Quantity)> {
    let (mut result, used) = at_fixed_values(expr, powers, fixed)?;
    let mut atoms = Vec::new();
    for power in used {
        let x = Polynomial::var(power.exponent.clone());
        result = result.with_power_of_two(&power.formal, &x)?;
        atoms.push(Atom::ge(x.clone()));
        atoms.push(Atom::ge(
            &Polynomial::constant(Rat::from(MAX_INT_SHIFT)) - &x,
        ));
    }
    let guard = Guard::from_atoms(atoms);
    let result = simplify(&result, &guard);
    Some((guard, result))
}

/// `expr` (over the renamed callee formals) with every power argument it reads replaced by
/// the largest of its values at the 32 values an `int` `1 << x` takes for any `x`: `2^k` for
/// `0 <= k <= 30` and `1 << 31 = -2^31` (the JVM takes the count modulo 32). It bounds the
/// callee at every execution of the call whatever `x` is, so also where `substituted`'s guard
/// fails; `None` when `expr` reads no power argument. The formals the call fixes are read at
/// their value first.
pub(crate) fn over_every_shift(
    expr: &Quantity,
    powers: &[PowerArgument],
    fixed: &[(String, Int)],
) -> Option<Quantity> {
    let (result, used) = at_fixed_values(expr, powers, fixed)?;
    let shifts: Vec<Int> = (0..=MAX_INT_SHIFT)
        .map(|k| Int::from(1i64 << k))
        .chain([Int::from(i64::from(i32::MIN))])
        .collect();
    Some(used.into_iter().fold(result, |e, power| {
        let at_each = shifts
            .iter()
            .map(|v| simplify(&e.with_value(&power.formal, v), &Guard::always()));
        maximum(at_each.collect())
    }))
}

/// `expr` read at the formals the call fixes (`fixed`) and the power arguments it reads;
/// `None` when it reads none.
fn at_fixed_values<'a>(
    expr: &Quantity,
    powers: &'a [PowerArgument],
    fixed: &[(String, Int)],
) -> Option<(Quantity, Vec<&'a PowerArgument>)> {
    let read = expr.params();
    let used: Vec<&PowerArgument> = powers.iter().filter(|p| read.contains(&p.formal)).collect();
    if used.is_empty() {
        return None;
    }
    let at_fixed = fixed
        .iter()
        .filter(|(name, _)| read.contains(name))
        .fold(expr.clone(), |e, (name, value)| e.with_value(name, value));
    Some((at_fixed, used))
}

/// `set` (a call's points, with the callee's renamed formals among its dims and the exponents
/// among its params) split where each power argument's exponent `x` lies: below 0, above 30,
/// or in `0..=30`, where the formal is `2^x`, so `x + 1 <= formal <= 2^30`. A set whose columns
/// do not name them is returned as it is.
pub(crate) fn value_range(set: &Set, powers: &[PowerArgument]) -> Set {
    let column = |name: &str| {
        let names = set.space.params.iter().chain(&set.space.dims);
        names.clone().position(|n| n == name)
    };
    powers.iter().fold(set.clone(), |set, power| {
        let (Some(x), Some(formal)) = (column(&power.exponent), column(&power.formal)) else {
            return set;
        };
        let x = Affine::var(x);
        let formal = Affine::var(formal);
        let constant = |c: i64| Affine::constant(Rat::from(c));
        let below = vec![Constraint::ge(x.neg().sub(&constant(1)))];
        let above = vec![Constraint::ge(x.sub(&constant(MAX_INT_SHIFT + 1)))];
        let power_of_two = vec![
            Constraint::ge(x.clone()),
            Constraint::ge(constant(MAX_INT_SHIFT).sub(&x)),
            Constraint::ge(formal.sub(&x).sub(&constant(1))),
            Constraint::ge(constant(1 << MAX_INT_SHIFT).sub(&formal)),
        ];
        let pieces = [below, above, power_of_two].map(|constraints| {
            constraints
                .into_iter()
                .fold(set.clone(), |piece, c| piece.constrain(c))
        });
        Set {
            space: set.space.clone(),
            parts: pieces.into_iter().flat_map(|piece| piece.parts).collect(),
        }
    })
}

/// `on_powers` where `guard` holds, `otherwise` elsewhere.
pub(crate) fn within(guard: Guard, on_powers: Quantity, otherwise: Quantity) -> Quantity {
    let cases = BoundExpr::Cases {
        arms: vec![Arm {
            guard,
            expr: on_powers,
        }],
        default: Box::new(otherwise),
    };
    simplify(&cases, &Guard::always())
}

//! Java's integer division and remainder by a constant, which truncate toward zero, as exact
//! relations between the dividend and a quotient variable: `x / k` is the quotient (negated for
//! `k < 0`) and `x % k` is `x - |k| * quotient`. Counted sets then hold floors (or ceilings, for
//! negative dividends), so a bound `i < n / 2` or a length `new T[n / 4]` counts exactly.

use membound_front::ir::{BinOp, Const, Operand};
use membound_invariants::builder::{and, ge, le, lt, or};
use membound_invariants::{Cond, Expr, VarId};
use membound_polyhedra::Int;

/// A division or remainder by a nonzero integer constant.
#[derive(Clone, Debug)]
pub struct ByConstant {
    pub remainder: bool,
    pub negative: bool,
    /// `|k|`.
    pub magnitude: Int,
}

impl ByConstant {
    /// `lhs / k` or `lhs % k` with a constant `k != 0` (`int` or `long`), if `op` is one.
    pub fn of(op: BinOp, rhs: &Operand) -> Option<ByConstant> {
        let remainder = match op {
            BinOp::Div => false,
            BinOp::Rem => true,
            _ => return None,
        };
        let divisor = match rhs {
            Operand::Const(Const::Int(k)) => i64::from(*k),
            Operand::Const(Const::Long(k)) => *k,
            _ => return None,
        };
        (divisor != 0).then(|| ByConstant {
            remainder,
            negative: divisor < 0,
            magnitude: Int::from(divisor.unsigned_abs()),
        })
    }

    /// The value of `dividend / k` or `dividend % k`, given `quotient` constrained by
    /// [`truncated_quotient`] with the divisor's magnitude.
    pub fn value(&self, dividend: &Expr, quotient: VarId) -> Expr {
        if self.remainder {
            // The remainder takes the dividend's sign whatever the divisor's.
            dividend.minus(&Expr::var(quotient).scaled(&self.magnitude))
        } else if self.negative {
            Expr::var(quotient).negated()
        } else {
            Expr::var(quotient)
        }
    }
}

/// `quotient = x / k` truncated toward zero, for `k > 0`: `k q <= x <= k q + k - 1` when
/// `x >= 0`, `k q - k + 1 <= x <= k q` when `x < 0`.
pub fn truncated_quotient(x: &Expr, k: &Int, quotient: VarId) -> Cond {
    let scaled = Expr::var(quotient).scaled(k);
    let slack = Expr::constant(k.clone() - Int::from(1));
    let nonnegative = and(vec![
        ge(x.clone(), 0),
        le(scaled.clone(), x.clone()),
        le(x.clone(), scaled.plus(&slack)),
    ]);
    let negative = and(vec![
        lt(x.clone(), 0),
        le(scaled.minus(&slack), x.clone()),
        le(x.clone(), scaled),
    ]);
    or(vec![nonnegative, negative])
}

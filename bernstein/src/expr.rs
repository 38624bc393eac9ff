//! Bound expressions: the evaluation trees bounds are written in (thesis Fig. 7.7), and their
//! exact evaluation.

use std::collections::BTreeMap;

use membound_polyhedra::{Int, Polynomial, QuasiPolynomial, Rat, Value};
use num_traits::Signed;
use serde::{Deserialize, Serialize};

use crate::guard::Guard;

/// A bound in the parameters.
///
/// `Cases` evaluates the expression of the first arm whose guard holds, else `default`.
/// `Inf` is an unbounded value; `Sum`, `Max` and `Mul` with an `Inf` operand are `Inf`, and so
/// are a power whose exponent is `Inf` and the logarithm of `Inf`.
///
/// The forms of recursion's closed forms (`2^d - 1`, `8/3*4^l - 8/3`, `n*2^n`,
/// `2^(floor_log2(n) + 1) - 1`):
/// - `Mul`: the product of its factors (1 when empty);
/// - `Pow`: `base^e` for an integer `base >= 2` ([`BoundExpr::pow`] checks it), where `e` is
///   the exponent's value rounded up to an integer (exact for the integer-valued exponents
///   closed forms have; a rational exponent, which only an over-approximation produces, is
///   rounded up so the value stays an upper bound); a negative `e` gives the exact fraction
///   `1/base^-e`;
/// - `Log2`: `⌊log2 max(x, 1)⌋` of its argument's value `x`: 0 up to 1, then the largest `k`
///   with `2^k <= x` (`floor_log2(8) = 3`, `floor_log2(9) = 3`).
///
/// Evaluation is exact in big integers; a power or product beyond [`MAX_VALUE_BITS`] bits is
/// an [`EvalError::TooLarge`], never a hang or an exhausted memory.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoundExpr {
    Sum(Vec<BoundExpr>),
    Max(Vec<BoundExpr>),
    Cases {
        arms: Vec<Arm>,
        default: Box<BoundExpr>,
    },
    Pol(QuasiPolynomial),
    Inf,
    Mul(Vec<BoundExpr>),
    Pow {
        base: Int,
        exponent: Box<BoundExpr>,
    },
    Log2 {
        arg: Box<BoundExpr>,
    },
}

/// The most bits a value computed by evaluation may have (2^24 bits, about 5 million decimal
/// digits): a power or product beyond it is refused instead of filling the memory.
pub const MAX_VALUE_BITS: u64 = 1 << 24;

/// One `guard → expr` arm of [`BoundExpr::Cases`].
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Arm {
    pub guard: Guard,
    pub expr: BoundExpr,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    #[error("no value given for parameter {0}")]
    Missing(String),
    #[error(
        "{what} would have about {bits} bits, beyond the {MAX_VALUE_BITS} bits of exact evaluation"
    )]
    TooLarge { what: String, bits: u64 },
    #[error("the base of a power is {0}; it must be an integer of at least 2")]
    BadBase(Int),
}

impl BoundExpr {
    pub fn zero() -> BoundExpr {
        BoundExpr::Pol(QuasiPolynomial::zero())
    }
    pub fn pol(poly: Polynomial) -> BoundExpr {
        BoundExpr::Pol(poly.into())
    }
    /// `base^exponent`; `None` when `base < 2` (a power of 0, 1 or a negative number is not
    /// monotone in its exponent, which bounds over a range rely on).
    pub fn pow(base: impl Into<Int>, exponent: BoundExpr) -> Option<BoundExpr> {
        let base = base.into();
        (base >= Int::from(2)).then(|| BoundExpr::Pow {
            base,
            exponent: Box::new(exponent),
        })
    }
    /// `⌊log2 max(arg, 1)⌋`.
    pub fn log2(arg: BoundExpr) -> BoundExpr {
        BoundExpr::Log2 { arg: Box::new(arg) }
    }
    /// The polynomial of a `Pol` leaf without periodic coefficients.
    pub fn as_polynomial(&self) -> Option<&Polynomial> {
        match self {
            BoundExpr::Pol(qp) => qp.as_polynomial(),
            _ => None,
        }
    }
    pub fn is_zero(&self) -> bool {
        matches!(self, BoundExpr::Pol(qp) if qp.is_zero())
    }

    /// The same expression over renamed parameters (in leaves and guards); `rename` must be
    /// injective.
    pub fn renamed(&self, rename: &dyn Fn(&str) -> String) -> BoundExpr {
        self.map_parameters(&|qp| qp.renamed(rename), &|guard| guard.renamed(rename))
    }

    /// The expression with integer parameter `name` fixed to `value` (in leaves and guards);
    /// [`crate::simplify()`] then folds the guards that became constant.
    pub fn with_value(&self, name: &str, value: &Int) -> BoundExpr {
        self.map_parameters(&|qp| qp.with_value(name, value), &|guard| {
            guard.with_value(name, value)
        })
    }

    /// The same tree with `leaf` applied to every polynomial and `guard` to every guard.
    fn map_parameters(
        &self,
        leaf: &dyn Fn(&QuasiPolynomial) -> QuasiPolynomial,
        guard: &dyn Fn(&Guard) -> Guard,
    ) -> BoundExpr {
        let all = |items: &[BoundExpr]| {
            items
                .iter()
                .map(|e| e.map_parameters(leaf, guard))
                .collect()
        };
        let boxed = |e: &BoundExpr| Box::new(e.map_parameters(leaf, guard));
        match self {
            BoundExpr::Sum(items) => BoundExpr::Sum(all(items)),
            BoundExpr::Max(items) => BoundExpr::Max(all(items)),
            BoundExpr::Mul(items) => BoundExpr::Mul(all(items)),
            BoundExpr::Cases { arms, default } => BoundExpr::Cases {
                arms: arms
                    .iter()
                    .map(|arm| Arm {
                        guard: guard(&arm.guard),
                        expr: arm.expr.map_parameters(leaf, guard),
                    })
                    .collect(),
                default: boxed(default),
            },
            BoundExpr::Pol(qp) => BoundExpr::Pol(leaf(qp)),
            BoundExpr::Inf => BoundExpr::Inf,
            BoundExpr::Pow { base, exponent } => BoundExpr::Pow {
                base: base.clone(),
                exponent: boxed(exponent),
            },
            BoundExpr::Log2 { arg } => BoundExpr::Log2 { arg: boxed(arg) },
        }
    }

    /// The expressions directly below this one (arms' guards aside).
    pub fn children(&self) -> Vec<&BoundExpr> {
        match self {
            BoundExpr::Sum(items) | BoundExpr::Max(items) | BoundExpr::Mul(items) => {
                items.iter().collect()
            }
            BoundExpr::Cases { arms, default } => arms
                .iter()
                .map(|arm| &arm.expr)
                .chain([default.as_ref()])
                .collect(),
            BoundExpr::Pow { exponent, .. } => vec![exponent],
            BoundExpr::Log2 { arg } => vec![arg],
            BoundExpr::Pol(_) | BoundExpr::Inf => Vec::new(),
        }
    }

    /// Whether some parameter values make the expression ∞ (it has an `Inf` leaf).
    pub fn may_be_infinite(&self) -> bool {
        matches!(self, BoundExpr::Inf) || self.children().into_iter().any(Self::may_be_infinite)
    }

    /// Whether the expression has a product, a power or a logarithm anywhere: a polynomial
    /// tree (sums, maxima, cases of quasi-polynomials) when not.
    pub fn has_exponential_forms(&self) -> bool {
        matches!(
            self,
            BoundExpr::Mul(_) | BoundExpr::Pow { .. } | BoundExpr::Log2 { .. }
        ) || self.children().into_iter().any(Self::has_exponential_forms)
    }

    /// Every parameter the expression mentions (in leaves and guards), sorted.
    pub fn params(&self) -> Vec<String> {
        let mut names = Vec::new();
        self.collect_params(&mut names);
        names.sort();
        names.dedup();
        names
    }
    fn collect_params(&self, names: &mut Vec<String>) {
        match self {
            BoundExpr::Pol(qp) => names.extend(qp.variables()),
            BoundExpr::Cases { arms, .. } => {
                for arm in arms {
                    names.extend(arm.guard.variables());
                }
            }
            _ => {}
        }
        for child in self.children() {
            child.collect_params(names);
        }
    }

    /// The exact value at `point`, which must give every parameter the expression mentions.
    pub fn eval(&self, point: &BTreeMap<String, Rat>) -> Result<Value, EvalError> {
        if let Some(missing) = self.params().into_iter().find(|p| !point.contains_key(p)) {
            return Err(EvalError::Missing(missing));
        }
        let value = |name: &String| point.get(name).cloned().unwrap_or_default();
        self.eval_with(&value)
    }

    fn eval_with(&self, value: &dyn Fn(&String) -> Rat) -> Result<Value, EvalError> {
        let each = |items: &[BoundExpr]| -> Result<Vec<Value>, EvalError> {
            items.iter().map(|e| e.eval_with(value)).collect()
        };
        Ok(match self {
            BoundExpr::Inf => Value::Infinite,
            BoundExpr::Pol(qp) => Value::Finite(qp.eval(&|name: &str| value(&name.to_string()))),
            BoundExpr::Sum(items) => each(items)?
                .into_iter()
                .fold(Value::Finite(Rat::zero()), |acc, v| acc + v),
            BoundExpr::Max(items) => {
                let mut values = each(items)?.into_iter();
                let first = values.next().unwrap_or(Value::Finite(Rat::zero()));
                values.fold(first, max)
            }
            BoundExpr::Cases { arms, default } => {
                match arms.iter().find(|arm| arm.guard.holds(value)) {
                    Some(arm) => arm.expr.eval_with(value)?,
                    None => default.eval_with(value)?,
                }
            }
            BoundExpr::Mul(items) => product(each(items)?)?,
            BoundExpr::Pow { base, exponent } => match exponent.eval_with(value)? {
                Value::Infinite => Value::Infinite,
                Value::Finite(e) => Value::Finite(power(base, &e.ceil())?),
            },
            BoundExpr::Log2 { arg } => match arg.eval_with(value)? {
                Value::Infinite => Value::Infinite,
                Value::Finite(x) => Value::Finite(Rat::from(Int::from(floor_log2(&x)))),
            },
        })
    }
}

/// The larger of two values (∞ is above every number).
fn max(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Finite(x), Value::Finite(y)) => Value::Finite(x.max(y)),
        _ => Value::Infinite,
    }
}

/// The product of values (∞ when one is ∞), refused when it would pass [`MAX_VALUE_BITS`].
fn product(values: Vec<Value>) -> Result<Value, EvalError> {
    if values.contains(&Value::Infinite) {
        return Ok(Value::Infinite);
    }
    let mut result = Rat::one();
    for v in values {
        let Value::Finite(v) = v else { continue };
        let bits = bit_size(&result) + bit_size(&v);
        if bits > MAX_VALUE_BITS {
            return Err(EvalError::TooLarge {
                what: "a product".to_string(),
                bits,
            });
        }
        result *= v;
    }
    Ok(Value::Finite(result))
}

/// Bits of the numerator and denominator together.
fn bit_size(value: &Rat) -> u64 {
    value.numer().bits() + value.denom().bits()
}

/// `base^exponent` exactly (a fraction for a negative exponent), for `base >= 2`.
pub fn power(base: &Int, exponent: &Int) -> Result<Rat, EvalError> {
    if *base < Int::from(2) {
        return Err(EvalError::BadBase(base.clone()));
    }
    let magnitude = exponent.magnitude();
    let too_large = || EvalError::TooLarge {
        what: format!("{base}^{exponent}"),
        bits: u64::try_from(magnitude)
            .unwrap_or(u64::MAX)
            .saturating_mul(base.bits().saturating_sub(1).max(1)),
    };
    let small = u32::try_from(magnitude).map_err(|_| too_large())?;
    // base^e has more than e·(bits(base) - 1) bits.
    if u64::from(small).saturating_mul(base.bits().saturating_sub(1).max(1)) > MAX_VALUE_BITS {
        return Err(too_large());
    }
    let value = Rat::from(base.pow(small));
    Ok(if exponent.is_negative() {
        value.recip().unwrap_or_default()
    } else {
        value
    })
}

/// `⌊log2 max(x, 1)⌋`.
pub fn floor_log2(x: &Rat) -> u64 {
    let whole = x.floor();
    if whole <= Int::from(1) {
        0
    } else {
        whole.bits() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::Atom;

    fn mc() -> Polynomial {
        Polynomial::var("mc".to_string())
    }

    #[test]
    fn cases_take_the_first_arm_that_holds() {
        let guard = Guard::from_atoms(vec![Atom::ge(mc() - Polynomial::constant(7))]);
        let expr = BoundExpr::Sum(vec![
            BoundExpr::pol(mc().scale(&Rat::from(3)) + Polynomial::one()),
            BoundExpr::Cases {
                arms: vec![Arm {
                    guard,
                    expr: BoundExpr::pol(&mc() * &mc()),
                }],
                default: Box::new(BoundExpr::pol(mc().scale(&Rat::from(6)))),
            },
        ]);
        let at = |v: i64| {
            expr.eval(&BTreeMap::from([("mc".to_string(), Rat::from(v))]))
                .unwrap()
        };
        assert_eq!(at(3), Value::Finite(Rat::from(28)));
        assert_eq!(at(7), Value::Finite(Rat::from(71)));
    }

    #[test]
    fn infinity_absorbs_sums_and_maxima() {
        let expr = BoundExpr::Max(vec![
            BoundExpr::zero(),
            BoundExpr::Sum(vec![BoundExpr::Inf, BoundExpr::zero()]),
        ]);
        assert_eq!(expr.eval(&BTreeMap::new()).unwrap(), Value::Infinite);
        let missing = BoundExpr::pol(mc()).eval(&BTreeMap::new());
        assert_eq!(missing, Err(EvalError::Missing("mc".to_string())));
    }
}

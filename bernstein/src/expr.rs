//! Bound expressions: the evaluation trees bounds are written in (thesis Fig. 7.7), and their
//! exact evaluation.

use std::collections::BTreeMap;

use membound_polyhedra::{Int, Polynomial, QuasiPolynomial, Rat, Value};
use serde::{Deserialize, Serialize};

use crate::guard::Guard;

/// A bound in the parameters.
///
/// `Cases` evaluates the expression of the first arm whose guard holds, else `default`.
/// `Inf` is an unbounded value; `Sum` and `Max` with an `Inf` operand are `Inf`.
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
}

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
}

impl BoundExpr {
    pub fn zero() -> BoundExpr {
        BoundExpr::Pol(QuasiPolynomial::zero())
    }
    pub fn pol(poly: Polynomial) -> BoundExpr {
        BoundExpr::Pol(poly.into())
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
        match self {
            BoundExpr::Sum(items) => BoundExpr::Sum(all(items)),
            BoundExpr::Max(items) => BoundExpr::Max(all(items)),
            BoundExpr::Cases { arms, default } => BoundExpr::Cases {
                arms: arms
                    .iter()
                    .map(|arm| Arm {
                        guard: guard(&arm.guard),
                        expr: arm.expr.map_parameters(leaf, guard),
                    })
                    .collect(),
                default: Box::new(default.map_parameters(leaf, guard)),
            },
            BoundExpr::Pol(qp) => BoundExpr::Pol(leaf(qp)),
            BoundExpr::Inf => BoundExpr::Inf,
        }
    }

    /// Whether some parameter values make the expression ∞ (it has an `Inf` leaf).
    pub fn may_be_infinite(&self) -> bool {
        match self {
            BoundExpr::Inf => true,
            BoundExpr::Pol(_) => false,
            BoundExpr::Sum(items) | BoundExpr::Max(items) => {
                items.iter().any(BoundExpr::may_be_infinite)
            }
            BoundExpr::Cases { arms, default } => {
                default.may_be_infinite() || arms.iter().any(|arm| arm.expr.may_be_infinite())
            }
        }
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
            BoundExpr::Sum(items) | BoundExpr::Max(items) => {
                items.iter().for_each(|e| e.collect_params(names))
            }
            BoundExpr::Cases { arms, default } => {
                for arm in arms {
                    names.extend(arm.guard.variables());
                    arm.expr.collect_params(names);
                }
                default.collect_params(names);
            }
            BoundExpr::Pol(qp) => names.extend(qp.variables()),
            BoundExpr::Inf => {}
        }
    }

    /// The exact value at `point`, which must give every parameter the expression mentions.
    pub fn eval(&self, point: &BTreeMap<String, Rat>) -> Result<Value, EvalError> {
        if let Some(missing) = self.params().into_iter().find(|p| !point.contains_key(p)) {
            return Err(EvalError::Missing(missing));
        }
        let value = |name: &String| point.get(name).cloned().unwrap_or_default();
        Ok(self.eval_with(&value))
    }

    fn eval_with(&self, value: &dyn Fn(&String) -> Rat) -> Value {
        match self {
            BoundExpr::Inf => Value::Infinite,
            BoundExpr::Pol(qp) => Value::Finite(qp.eval(&|name: &str| value(&name.to_string()))),
            BoundExpr::Sum(items) => items.iter().fold(Value::Finite(Rat::zero()), |acc, e| {
                acc + e.eval_with(value)
            }),
            BoundExpr::Max(items) => {
                let mut values = items.iter().map(|e| e.eval_with(value));
                let first = values.next().unwrap_or(Value::Finite(Rat::zero()));
                values.fold(first, max)
            }
            BoundExpr::Cases { arms, default } => {
                match arms.iter().find(|arm| arm.guard.holds(value)) {
                    Some(arm) => arm.expr.eval_with(value),
                    None => default.eval_with(value),
                }
            }
        }
    }
}

/// The larger of two values (∞ is above every number).
fn max(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Finite(x), Value::Finite(y)) => Value::Finite(x.max(y)),
        _ => Value::Infinite,
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

//! Fourier–Motzkin elimination with exact arithmetic: projection (and the convex hull built on
//! it) and the exact elimination of existential variables.
//!
//! Over the rationals the projection is exact. In *integer* mode every inequality is tightened
//! (integer coefficients with gcd 1, constant rounded down) before and after each step, which
//! keeps every integer point; callers use it only where the elimination is known to be exact
//! for integers.

use std::collections::HashMap;

use crate::affine::Affine;
use crate::constraint::Constraint;
use crate::scalar::Rat;

/// `expr > 0` when `strict`, else `expr >= 0`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Ineq {
    pub expr: Affine,
    pub strict: bool,
}

/// A conjunction of equalities `e = 0` and (possibly strict) inequalities.
#[derive(Clone, Debug, Default)]
pub(crate) struct System {
    pub eqs: Vec<Affine>,
    pub ineqs: Vec<Ineq>,
    /// Set once a constant constraint is false.
    pub infeasible: bool,
    pub integer: bool,
}

impl System {
    pub fn new(eqs: Vec<Affine>, ineqs: Vec<Ineq>, integer: bool) -> System {
        let mut system = System {
            eqs,
            ineqs,
            infeasible: false,
            integer,
        };
        system.normalize();
        system
    }

    /// The system of `= 0` and `>= 0` constraints.
    pub fn from_constraints(constraints: &[Constraint], integer: bool) -> System {
        let eqs = constraints
            .iter()
            .filter(|c| c.is_equality())
            .map(|c| c.expr.clone())
            .collect();
        let ineqs = constraints
            .iter()
            .filter(|c| !c.is_equality())
            .map(|c| Ineq {
                expr: c.expr.clone(),
                strict: false,
            })
            .collect();
        System::new(eqs, ineqs, integer)
    }

    /// Eliminates variable `var`: through an equality when one mentions it, else by
    /// combining every lower bound with every upper bound.
    pub fn eliminate(&mut self, var: usize) {
        if self.infeasible {
            return;
        }
        if let Some(pos) = self.eqs.iter().position(|e| e.coeff_ref(var).is_some()) {
            let eq = self.eqs.swap_remove(pos);
            self.substitute_from_equality(var, &eq);
        } else {
            self.combine_bounds(var);
        }
        self.normalize();
    }

    fn substitute_from_equality(&mut self, var: usize, eq: &Affine) {
        // eq: c*var + rest = 0  =>  var = -rest / c
        let coeff = eq.coeff(var);
        let mut rest = eq.clone();
        rest.set_coeff(var, Rat::zero());
        let replacement = rest.scale(&(Rat::from(-1) / &coeff));
        // In integer mode a non-unit pivot makes this a rational relaxation, which is all
        // integer mode promises.
        for e in &mut self.eqs {
            *e = e.substitute(var, &replacement);
        }
        for ineq in &mut self.ineqs {
            ineq.expr = ineq.expr.substitute(var, &replacement);
        }
    }

    fn combine_bounds(&mut self, var: usize) {
        let (with, without): (Vec<Ineq>, Vec<Ineq>) = std::mem::take(&mut self.ineqs)
            .into_iter()
            .partition(|i| i.expr.coeff_ref(var).is_some());
        let (lowers, uppers): (Vec<Ineq>, Vec<Ineq>) = with
            .into_iter()
            .partition(|i| i.expr.coeff(var).is_positive());
        self.ineqs = without;
        for lower in &lowers {
            for upper in &uppers {
                // a*var + l >= 0 (a > 0) and -b*var + u >= 0 (b > 0)  =>  b*l + a*u >= 0
                let a = lower.expr.coeff(var);
                let b = -upper.expr.coeff(var);
                let mut expr = lower.expr.scale(&b).add(&upper.expr.scale(&a));
                expr.set_coeff(var, Rat::zero());
                self.ineqs.push(Ineq {
                    expr,
                    strict: lower.strict || upper.strict,
                });
            }
        }
    }

    /// Scales every constraint to primitive integer form, drops duplicates (keeping the
    /// tightest) and detects constant contradictions.
    pub fn normalize(&mut self) {
        let mut eqs = Vec::new();
        for eq in std::mem::take(&mut self.eqs) {
            let eq = eq.primitive();
            if eq.is_constant() {
                self.infeasible |= !eq.constant.is_zero();
            } else if !eqs.contains(&eq) {
                eqs.push(eq);
            }
        }
        self.eqs = eqs;
        let mut tightest: HashMap<Vec<Rat>, (Rat, bool)> = HashMap::new();
        let mut order = Vec::new();
        for ineq in std::mem::take(&mut self.ineqs) {
            let (expr, strict) = self.normalized_ineq(ineq);
            if expr.is_constant() {
                let value = &expr.constant;
                self.infeasible |= value.is_negative() || (strict && value.is_zero());
                continue;
            }
            match tightest.get_mut(&expr.coeffs) {
                Some(entry) => {
                    if expr.constant < entry.0 || (expr.constant == entry.0 && strict) {
                        *entry = (expr.constant.clone(), strict);
                    }
                }
                None => {
                    order.push(expr.coeffs.clone());
                    tightest.insert(expr.coeffs, (expr.constant, strict));
                }
            }
        }
        self.ineqs = order
            .into_iter()
            .map(|coeffs| {
                let (constant, strict) = tightest.remove(&coeffs).unwrap_or_default();
                Ineq {
                    expr: Affine { coeffs, constant },
                    strict,
                }
            })
            .collect();
    }

    fn normalized_ineq(&self, ineq: Ineq) -> (Affine, bool) {
        if !self.integer {
            return (ineq.expr.primitive(), ineq.strict);
        }
        // Over integers with integer coefficients, e > 0 is e - 1 >= 0.
        let expr = ineq.expr.primitive();
        let expr = if ineq.strict {
            expr.add(&Affine::constant(-1))
        } else {
            expr
        };
        (expr.tightened_for_integers(), false)
    }
}

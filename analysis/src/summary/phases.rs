//! Recursions that run as a chain (one recursive call per activation at most) through phases:
//! `twoPhase(a, b)` calls `twoPhase(a - 1, b)` while `a > 0`, then `twoPhase(0, b - 1)` while
//! `b > 0`. No single affine measure shrinks on both calls (`a + b` grows on the second when
//! `a < 0`), but each call `c_i` has its own measure `μ_i`, positive where it runs, and the
//! calls can be ordered `c_1, …, c_m` so that, checked on the calls' bindings:
//!
//! - `c_i` decreases `μ_i` by at least one;
//! - `c_i` does not increase `μ_j` for any later phase `j > i`;
//! - after `c_i` the chain never makes an earlier call `c_j`, `j < i` (the callee's formals are
//!   outside `c_j`'s region).
//!
//! Then the chain makes its calls phase by phase, and phase `i` at most `μ_i` of them, `μ_i`
//! taken at the first activation (the earlier phases did not increase it): at most
//! `Σ_i max(μ_i, 0)` activations recurse, and one more ends the chain. A quantity of at most
//! `c_i` per activation in phase `i` (in the region of its call) and `c_out` in the last
//! totals at most `Σ_i c_i·max(μ_i, 0) + c_out` (exact for `twoPhase`: `a + b` cells, per
//! site too).

use membound_bernstein::guard::affine_to_linear;
use membound_bernstein::{Arm, Atom, BoundExpr, Guard, simplify};
use membound_polyhedra::{Affine, Constraint, Polyhedron, Polynomial, Rat};

use super::measured::{
    Binding, bindings, branching, guards_implied, never, next_choice, per_activation, regions,
};
use super::qty::Qty;
use crate::lowering::CallSet;

/// The most (order of the calls, measure of each) combinations tried.
const MAX_TRIES: usize = 512;

/// The most recursive calls ordered into phases.
const MAX_CALLS: usize = 5;

/// A chain of recursive calls through phases.
#[derive(Debug)]
pub(super) struct Phases {
    /// One measure per phase, in the order the chain goes through them (over the formals'
    /// columns).
    measures: Vec<Affine>,
    /// Where each phase's call runs, in the same order.
    regions: Vec<Vec<Polyhedron>>,
    /// Where the method recurses: every call's region.
    recursing: Vec<Polyhedron>,
}

impl Phases {
    /// The phases of these recursive calls (each one's set over `params`), or why there are
    /// none.
    pub(super) fn of(params: &[String], calls: &[(u32, CallSet)]) -> Result<Phases, String> {
        let n = params.len();
        let bindings = bindings(calls, n)?;
        if branching(&bindings) != 1 {
            return Err("more than one recursive call per activation: not a chain".to_string());
        }
        if bindings.len() > MAX_CALLS {
            return Err(format!("more than {MAX_CALLS} recursive calls to order"));
        }
        let candidates: Vec<Vec<Affine>> = bindings.iter().map(measures_of).collect();
        let mut tries = 0;
        for order in orders(bindings.len()) {
            let sizes: Vec<usize> = order.iter().map(|&call| candidates[call].len()).collect();
            let mut choice = vec![0usize; order.len()];
            loop {
                tries += 1;
                if tries > MAX_TRIES {
                    return Err("too many orders of its calls to try".to_string());
                }
                let Some(measures) = order
                    .iter()
                    .zip(&choice)
                    .map(|(&call, &index)| candidates[call].get(index).cloned())
                    .collect::<Option<Vec<Affine>>>()
                else {
                    break;
                };
                let phases: Vec<&Binding> = order.iter().map(|&call| &bindings[call]).collect();
                if chain_holds(&phases, &measures, n) {
                    return Ok(Phases {
                        measures,
                        regions: phases.iter().map(|b| b.region.clone()).collect(),
                        recursing: regions(&bindings),
                    });
                }
                if !next_choice(&mut choice, &sizes) {
                    break;
                }
            }
        }
        Err("no order of its calls has a measure per phase".to_string())
    }

    /// `Σ_i weight_i·max(μ_i, 0)`: with weights 1, at most how many activations recurse.
    fn weighted_phases(&self, params: &[String], weights: &[Rat]) -> BoundExpr {
        BoundExpr::Sum(
            self.measures
                .iter()
                .zip(weights)
                .map(|(measure, weight)| {
                    let mu = affine_to_linear(measure, params);
                    let guard = Guard::from_atoms(vec![Atom::ge(mu.clone() - Polynomial::one())]);
                    BoundExpr::Cases {
                        arms: vec![Arm {
                            guard,
                            expr: BoundExpr::pol(mu.scale(weight)),
                        }],
                        default: Box::new(BoundExpr::zero()),
                    }
                })
                .collect(),
        )
    }

    /// How many activations are on the stack at once under a call, at most: all of them.
    pub(super) fn depth(&self, params: &[String]) -> BoundExpr {
        simplify(
            &BoundExpr::Sum(vec![
                self.weighted_phases(params, &vec![Rat::from(1); self.measures.len()]),
                BoundExpr::pol(Polynomial::one()),
            ]),
            &Guard::always(),
        )
    }

    /// The total of `qty` (its value in one activation, over `params`) over the activations
    /// under a call.
    pub(super) fn total(&self, qty: &Qty, params: &[String]) -> Result<Qty, String> {
        let pw = match qty.aligned(params) {
            Qty::Inf => return Ok(Qty::Inf),
            Qty::Expr(_) => {
                return Err("an activation's own cost is not a quasi-polynomial".to_string());
            }
            Qty::Finite(pw) => pw,
        };
        // An activation of phase i runs its call: its formals are in that call's region.
        let mut weights = Vec::new();
        for region in &self.regions {
            weights.push(per_activation(&pw, region, None)?.0);
        }
        let (_, c_out) = per_activation(&pw, &self.recursing, None)?;
        Ok(Qty::Expr(simplify(
            &BoundExpr::Sum(vec![
                self.weighted_phases(params, &weights),
                BoundExpr::pol(Polynomial::constant(c_out)),
            ]),
            &Guard::always(),
        )))
    }
}

/// Measures `e + 1` for the constraints `e >= 0` on the formals alone that every part of the
/// call's region implies.
fn measures_of(binding: &Binding) -> Vec<Affine> {
    let parts: Vec<&Polyhedron> = binding.region.iter().collect();
    guards_implied(&binding.region[0], &parts)
        .into_iter()
        .map(|guard| guard.expr.add(&Affine::constant(Rat::from(1))))
        .collect()
}

/// Whether the calls, in this order, make a chain of phases with these measures (see the module
/// documentation).
fn chain_holds(phases: &[&Binding], measures: &[Affine], n: usize) -> bool {
    let callee = |measure: &Affine| measure.remap(|column| column + n);
    phases.iter().enumerate().all(|(i, call)| {
        let decreases = callee(&measures[i]).sub(&measures[i]);
        let later_keep = measures[i + 1..].iter().map(|later| {
            callee(later)
                .sub(later)
                .sub(&Affine::constant(Rat::from(1)))
        });
        let violations: Vec<Affine> = std::iter::once(decreases).chain(later_keep).collect();
        call.parts.iter().all(|part| {
            violations.iter().all(|violation| never(part, violation))
                && phases[..i].iter().all(|earlier| {
                    earlier
                        .region
                        .iter()
                        .all(|region| never_enters(part, region, n))
                })
        })
    })
}

/// Whether no callee of a binding part has its formals in `region`.
fn never_enters(part: &Polyhedron, region: &Polyhedron, n: usize) -> bool {
    let at_callee: Vec<Constraint> = region
        .constraints()
        .iter()
        .map(|c| c.remap(|column| column + n))
        .collect();
    part.intersect(&Polyhedron::from_constraints(part.dim(), at_callee))
        .is_empty()
}

/// Every order of `count` calls (the identity first).
fn orders(count: usize) -> Vec<Vec<usize>> {
    if count == 0 {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for first in 0..count {
        for rest in orders(count - 1) {
            let mut order = vec![first];
            order.extend(rest.into_iter().map(|c| if c >= first { c + 1 } else { c }));
            all.push(order);
        }
    }
    all
}

//! Recursions bounded by a measure: an affine `μ` of the formals such that the method calls
//! itself only where `μ >= 1`, and `μ` shrinks from an activation to each call it makes by one of
//! three laws (checked on the calls' bindings: a law holds when the polyhedron of its violation
//! is empty, rationally, which implies it has no integer point):
//!
//! - **split**: the calls' measures are `>= 0` and, over all the calls of one activation
//!   together, sum to at most `μ - 1` (a balanced tree over an interval cut at its middle). By
//!   induction a subtree holds at most `μ` activations with `μ >= 1`. Calls on distinct
//!   elements of a tree's array field (a loop `walk(v.children[i])`) pass sizes that sum to at
//!   most the array's, a caller formal ([`ElementShare`]): each execution a copy of its call;
//! - **halving**: each call's measure is at most half the caller's (`2·μ' <= μ`: a size divided
//!   by two). Activations with `μ >= 1` are at most `⌊log2 μ⌋ + 1` deep, `b^d` at depth `d`
//!   for `b` calls per activation; the law may hold for `μ + 2^k - 1` too, which makes the
//!   levels `⌊log2 (μ + 2^k - 1)⌋ - k + 1` (exact for `size / 2` under `size >= 2`);
//! - **ranked**: each call's measure is below the caller's by at least a step `δ >= 1`
//!   (`μ' <= μ - δ`: Fibonacci's `n - 1` and `n - 2` by 1, `i + 2` towards `n` by 2).
//!   Activations with `μ >= 1` are at most `⌈μ/δ⌉` deep.
//!
//! Where several laws hold, the one whose count is smallest at `μ = 1..=32` is used. The
//! measures tried are those the guard gives (its constraints, a formal's implied lower bound),
//! then those Farkas' lemma synthesizes ([`super::farkas`]).
//!
//! With `I` the number of activations with `μ >= 1` and `b` calls per activation (the most of one
//! call when the calls run for disjoint formals, as the branches of an `if`, their sum
//! otherwise), the activations that recurse are at most `I` and the others at most
//! `1 + (b - 1)·I`, so a quantity whose value per activation is at most `c_in` where the method
//! recurses (the calls' regions) and `c_out` elsewhere totals at most
//! `c_in·I + c_out·(1 + (b - 1)·I)`; under the split law, when every call's measure (shifted
//! up by a few, as the split allows) is at least 1, every activation is among the `I` and the
//! total is at most `max(c_in, c_out)·I` (a tree's node that calls itself only on the children it
//! has). This is exact where the law's count of activations is (a
//! split tree of `μ` nodes, a halving tree of `2^(⌊log2 μ⌋+1) - 1`), an upper bound otherwise
//! (Fibonacci's calls by `2^μ`). The value per activation must be a constant on each side:
//! deeper activations' formals are known only through their measure.

use membound_bernstein::guard::affine_to_linear;
use membound_bernstein::{Arm, Atom, BoundExpr, Guard, simplify};
use membound_jvm::MethodRef;
use membound_polyhedra::{
    Affine, BasicSet, Constraint, Int, Polyhedron, Polynomial, QuasiPolynomial, Rat, Relation,
    Space,
};

use super::Divergence;
use super::farkas;
use super::qty::Qty;
use super::recursion::executions_per_activation;
use crate::lowering::{CallSet, ElementShare};

/// How the measure shrinks from an activation to the calls it makes (see the module
/// documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Law {
    Split,
    /// `2·μ_k' <= μ_k` for `μ_k = μ + 2^k - 1`, which is at least `2^k` where the method
    /// recurses: `⌊log2 μ_k⌋ - k + 1` levels recurse (a larger `k` takes the guard's margin into
    /// account: `size / 2` under `size >= 2` recurses `⌊log2 size⌋` levels deep).
    Halving {
        k: u32,
    },
    /// `μ' <= μ - step` on every call.
    Ranked {
        step: u32,
    },
}

/// The most `k` tried for the halving law.
const MAX_HALVING_SHIFT: u32 = 6;
/// The largest step tried for the ranked law.
const MAX_RANKED_STEP: u32 = 64;

/// A recursion bounded by a measure.
#[derive(Debug)]
pub(super) struct Measured {
    /// `μ` over the formals' columns, with integer coefficients.
    measure: Affine,
    law: Law,
    /// Recursive calls per activation, at most.
    branching: u64,
    /// Where the method recurses: its calls' regions.
    recursing: Vec<Polyhedron>,
    /// `g` when the measure bounds the recursion only on `g(x) >= 0`, a region its calls do not
    /// leave: elsewhere no bound is claimed.
    within: Option<Affine>,
    /// Under the split law, `k` when `μ + k` splits too and every call's `μ + k` is at least 1
    /// ([`positive_split`]): every activation is then one of the at most `μ + k`.
    positive_shift: Option<i64>,
    /// Calls per activation, besides the `branching` ones, that only enter activations that
    /// make no recursive call (see [`Measured::on_kept_line`]).
    to_leaves: u64,
}

/// One recursive call: the polyhedra of its binding (columns: the formals, then the callee's
/// formals), where it runs (those projected on the formals) and how often per activation.
#[derive(Clone)]
pub(super) struct Binding {
    pub(super) parts: Vec<Polyhedron>,
    pub(super) region: Vec<Polyhedron>,
    times: u64,
    /// The callee formals that are sizes of distinct elements of an array whose sum is a
    /// caller formal, shared with the other calls of their group ([`ElementShare`]).
    shares: Vec<ElementShare>,
}

/// The most combinations of binding parts checked together for the split law.
const MAX_COMBINATIONS: usize = 256;

impl Measured {
    /// The measure of these recursive calls (each one's set over `params`) and its law, or
    /// why there is none.
    pub(super) fn of(params: &[String], calls: &[(u32, CallSet)]) -> Result<Measured, String> {
        let n = params.len();
        Self::of_bindings(&bindings(calls, n)?, n)
    }

    /// A measure on a region `g(x) >= 0` of the formals that every call from it stays in (a
    /// half-open interval cut at `(lo + hi) / 2`, which Java rounds towards zero, recurses for
    /// ever from `lo = -5, hi = 6`, and splits from `lo >= 0`): `g` a formal's sign or a
    /// constraint of a call's region. Outside the region the recursion is not bounded
    /// ([`Measured::unbounded_outside`]).
    pub(super) fn within_region(
        params: &[String],
        calls: &[(u32, CallSet)],
    ) -> Result<Measured, String> {
        let n = params.len();
        let bindings = bindings(calls, n)?;
        for g in region_candidates(&bindings, n) {
            if !kept_by_calls(&bindings, &g, n) {
                continue;
            }
            let restricted = restricted(&bindings, &g);
            if restricted.is_empty() {
                continue;
            }
            if let Ok(mut measured) = Self::of_bindings(&restricted, n) {
                measured.within = Some(g);
                return Ok(measured);
            }
        }
        Err("no region its calls keep has such a measure either".to_string())
    }

    fn of_bindings(bindings: &[Binding], n: usize) -> Result<Measured, String> {
        let branching = branching(bindings);
        let parts: Vec<&Polyhedron> = bindings.iter().flat_map(|b| &b.parts).collect();
        // The guard's measures first; a synthesized one only where it recurses only at μ >= 1.
        let recursing_at_one = |measure: &Affine| {
            let at_one = Constraint::ge(measure.sub(&Affine::constant(Rat::from(1))));
            parts.iter().all(|part| part.implies(&at_one))
        };
        let synthesized = farkas::synthesized(&parts, n)
            .into_iter()
            .filter(recursing_at_one);
        for measure in guard_candidates(bindings, n).into_iter().chain(synthesized) {
            if let Some(law) = strongest_law(bindings, &measure, n, branching) {
                let (measure, law) = split_if_fewer(bindings, measure, law, n, branching);
                let positive_shift = match law {
                    Law::Split => positive_split(bindings, &measure, n),
                    _ => None,
                };
                return Ok(Measured {
                    measure,
                    law,
                    branching,
                    recursing: regions(bindings),
                    within: None,
                    positive_shift,
                    to_leaves: 0,
                });
            }
        }
        Err("no measure of the formals shrinks on every recursive call".to_string())
    }

    /// A tighter count on a line `e(x) = 0` of the formals (`e` the difference of two of them)
    /// that the recursion keeps: from the line, each call either stays on it or enters an
    /// activation that makes no recursive call. Perimeter's quadtree over the diagonal
    /// (`x0 = y0`) recurses into two of its four quadrants and the other two are leaves: on the
    /// line the activations that recurse form a binary tree, not a four-ary one. The measure
    /// and its law come from the calls that stay, counted as `branching`; the others are
    /// `to_leaves`. `None` when no such line has a call that leaves it for a leaf.
    pub(super) fn on_kept_line(
        params: &[String],
        calls: &[(u32, CallSet)],
    ) -> Option<(Affine, Measured)> {
        let n = params.len();
        let bindings = bindings(calls, n).ok()?;
        let everywhere = regions(&bindings);
        (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| Affine::var(i).sub(&Affine::var(j))))
            .find_map(|e| {
                let on_line = restricted(&restricted(&bindings, &e), &e.neg());
                let (staying, to_leaves) = split_by_line(&on_line, &e, &everywhere, n)?;
                let mut measured = Self::of_bindings(&staying, n).ok()?;
                let recursing = regions(&staying);
                let mut budget = COVER_BUDGET;
                let leaves_covered = to_leaves
                    .iter()
                    .flat_map(|b| &b.region)
                    .all(|region| covered(region, &recursing, &mut budget));
                if !leaves_covered {
                    return None;
                }
                measured.to_leaves = to_leaves.iter().map(|b| b.times).sum();
                Some((e, measured))
            })
    }

    /// Where the recursion is not bounded, over `params`: outside the region the measure holds
    /// on, if it holds only on one.
    pub(super) fn unbounded_outside(
        &self,
        method: &MethodRef,
        params: &[String],
    ) -> Option<Divergence> {
        let g = self.within.as_ref()?;
        let mut region = BasicSet::universe(Space::new(params.to_vec(), Vec::new()));
        region.add_constraint(Constraint::ge(g.neg().sub(&Affine::constant(Rat::from(1)))));
        let kept = BoundExpr::pol(affine_to_linear(g, params)).to_readable();
        Some(Divergence {
            region,
            why: format!(
                "recursion through {method} is bounded only where {kept} >= 0, which its calls \
                 keep: elsewhere it may not stop"
            ),
        })
    }

    /// `μ` as a polynomial in the formals `params`.
    fn measure(&self, params: &[String]) -> Polynomial {
        affine_to_linear(&self.measure, params)
    }

    /// At most how many activations with `μ >= 1` a call with `μ >= 1` makes in all.
    fn internal_activations(&self, params: &[String]) -> BoundExpr {
        let depth = match self.law {
            Law::Split => return BoundExpr::pol(self.measure(params)),
            Law::Halving { k } => self.halving_levels(params, k),
            Law::Ranked { step } => self.ranked_levels(params, step),
        };
        if self.branching == 1 {
            return depth;
        }
        // 1 + b + … + b^(depth - 1).
        let b = Int::from(self.branching);
        let over = Rat::from(1) / Rat::from(b.clone() - Int::from(1));
        BoundExpr::Sum(vec![
            BoundExpr::Mul(vec![
                BoundExpr::pol(Polynomial::constant(over.clone())),
                BoundExpr::Pow {
                    base: b,
                    exponent: Box::new(depth),
                },
            ]),
            BoundExpr::pol(Polynomial::constant(-over)),
        ])
    }

    /// `⌊log2 (μ + 2^k - 1)⌋ - k + 1`: the levels that recurse under the halving law.
    fn halving_levels(&self, params: &[String], k: u32) -> BoundExpr {
        let shifted = self.measure(params) + Polynomial::constant(Rat::from((1i64 << k) - 1));
        BoundExpr::Sum(vec![
            BoundExpr::log2(BoundExpr::pol(shifted)),
            BoundExpr::pol(Polynomial::constant(Rat::from(1 - i64::from(k)))),
        ])
    }

    /// `⌈μ/step⌉`: the levels that recurse under the ranked law (`μ` itself for a step of 1).
    fn ranked_levels(&self, params: &[String], step: u32) -> BoundExpr {
        let mu = self.measure(params);
        if step == 1 {
            return BoundExpr::pol(mu);
        }
        let step = Rat::from(i64::from(step));
        let shifted =
            (mu + Polynomial::constant(step.clone() - Rat::from(1))).scale(&(Rat::from(1) / step));
        match QuasiPolynomial::from(shifted.clone()).floor_of_linear() {
            Some(levels) => BoundExpr::Pol(levels),
            // Too many residue classes: (μ + step - 1)/step is at least the levels' count.
            None => BoundExpr::pol(shifted),
        }
    }

    /// How many activations are on the stack at once under a call, at most: the leaf level
    /// under the deepest activations with `μ >= 1`.
    pub(super) fn depth(&self, params: &[String]) -> BoundExpr {
        let mu = self.measure(params);
        let recursing = match self.law {
            Law::Split => BoundExpr::pol(mu.clone() + Polynomial::one()),
            Law::Ranked { step } => BoundExpr::Sum(vec![
                self.ranked_levels(params, step),
                BoundExpr::pol(Polynomial::one()),
            ]),
            Law::Halving { k } => BoundExpr::Sum(vec![
                self.halving_levels(params, k),
                BoundExpr::pol(Polynomial::one()),
            ]),
        };
        self.where_recursing(&mu, recursing, BoundExpr::pol(Polynomial::one()), params)
    }

    /// The total of `qty` (its value in one activation, over `params`) over the activations
    /// under a call.
    pub(super) fn total(&self, qty: &Qty, params: &[String]) -> Result<Qty, String> {
        let aligned = qty.aligned(params);
        let pw = match &aligned {
            Qty::Inf => return Ok(Qty::Inf),
            Qty::Expr(_) => {
                return Err("an activation's own cost is not a quasi-polynomial".to_string());
            }
            Qty::Finite(pw) => pw,
        };
        let mu = self.measure(params);
        let (c_in, c_out) = per_activation(pw, &self.recursing, self.within.as_ref())?;
        let internal = self.internal_activations(params);
        let constant = |value: Rat| BoundExpr::pol(Polynomial::constant(value));
        let calls = self.branching + self.to_leaves;
        let others = BoundExpr::Sum(vec![
            constant(Rat::from(1)),
            BoundExpr::Mul(vec![
                constant(Rat::from(Int::from(calls - 1))),
                internal.clone(),
            ]),
        ]);
        let recursing = match self.positive_total(&c_in, &c_out, params) {
            Some(total) => total,
            None => BoundExpr::Sum(vec![
                BoundExpr::Mul(vec![constant(c_in), internal]),
                BoundExpr::Mul(vec![constant(c_out), others]),
            ]),
        };
        Ok(Qty::Expr(self.where_recursing(
            &mu,
            recursing,
            aligned.to_quantity(),
            params,
        )))
    }

    /// `max(c_in, c_out)·(μ + k)` when every activation under a call has `μ + k >= 1`
    /// ([`Measured::positive_shift`]) and that is at most `c_in·μ + c_out·(1 + (b - 1)·μ)` at
    /// `μ = 1..=32`: a node that calls itself only on the children it has (`if (left != null)
    /// left.count()`) is one of the tree's nodes whether it recurses or not.
    fn positive_total(&self, c_in: &Rat, c_out: &Rat, params: &[String]) -> Option<BoundExpr> {
        let k = self.positive_shift?;
        let most = c_in.clone().max(c_out.clone());
        let b = Rat::from(Int::from(self.branching));
        let fewer = (1..=32i64).all(|mu| {
            let mu = Rat::from(mu);
            let split = c_in.clone() * mu.clone()
                + c_out.clone() * (Rat::from(1) + (b.clone() - Rat::from(1)) * mu.clone());
            most.clone() * (mu + Rat::from(k)) <= split
        });
        let shifted = self.measure(params) + Polynomial::constant(Rat::from(k));
        fewer.then(|| BoundExpr::pol(shifted.scale(&most)))
    }

    /// `recursing` where `μ >= 1` and the constraints every call's region implies hold,
    /// `otherwise` elsewhere (an activation there makes no recursive call).
    fn where_recursing(
        &self,
        mu: &Polynomial,
        recursing: BoundExpr,
        otherwise: BoundExpr,
        params: &[String],
    ) -> BoundExpr {
        let mut atoms = vec![Atom::ge(mu.clone() - Polynomial::one())];
        let regions: Vec<&Polyhedron> = self.recursing.iter().collect();
        if let Some(first) = regions.first()
            && first.dim() == params.len()
        {
            for implied in guards_implied(first, &regions) {
                let atom = Atom::ge(affine_to_linear(&implied.expr, params));
                if !atoms.contains(&atom) {
                    atoms.push(atom);
                }
            }
        }
        let guard = Guard::from_atoms(atoms);
        simplify(
            &BoundExpr::Cases {
                arms: vec![Arm {
                    guard,
                    expr: recursing,
                }],
                default: Box::new(otherwise),
            },
            &Guard::always(),
        )
    }
}

/// The bindings of the recursive calls (each one's set over `n` formals).
pub(super) fn bindings(calls: &[(u32, CallSet)], n: usize) -> Result<Vec<Binding>, String> {
    calls
        .iter()
        .map(|(pc, call)| binding(call, n).map_err(|why| format!("the call at {pc}: {why}")))
        .collect()
}

/// Every call's region.
pub(super) fn regions(bindings: &[Binding]) -> Vec<Polyhedron> {
    bindings.iter().flat_map(|b| b.region.clone()).collect()
}

/// Recursive calls per activation, at most: the most of one call when no two calls run for
/// the same formals (the branches of an `if`), their sum otherwise.
pub(super) fn branching(bindings: &[Binding]) -> u64 {
    let exclusive = bindings.iter().enumerate().all(|(i, a)| {
        bindings[i + 1..].iter().all(|b| {
            a.region
                .iter()
                .all(|p| b.region.iter().all(|q| p.intersect(q).is_empty()))
        })
    });
    let times = bindings.iter().map(|b| b.times);
    if exclusive {
        times.max().unwrap_or(0)
    } else {
        times.sum()
    }
}

fn binding(call: &CallSet, n: usize) -> Result<Binding, String> {
    let formals: Vec<&str> = call.formals.iter().map(String::as_str).collect();
    let bound = call.set.project_onto(&formals);
    // Congruences only remove points: the laws proved on the polyhedra hold on the parts.
    let parts: Vec<Polyhedron> = bound
        .value
        .parts
        .iter()
        .map(|part| part.poly.minimized())
        .filter(|poly| !poly.is_empty())
        .collect();
    if parts.is_empty() {
        return Err("the call never runs".to_string());
    }
    let formals: Vec<usize> = (0..n).collect();
    let region = parts
        .iter()
        .map(|part| part.project_onto(&formals).minimized())
        .collect();
    Ok(Binding {
        parts,
        region,
        times: executions_per_activation(call)?,
        shares: call.shares.clone(),
    })
}

/// The regions `g >= 0` tried for [`Measured::within_region`]: each formal's sign, then the
/// constraints of the calls' regions, then their integer complements: the region beyond a part
/// where the method calls itself for ever (voronoi's `delaunay(s, lo, hi)` recurses on
/// `[lo, lo + n/2)` and `[lo + n/2, hi)` unless `n = hi - lo` is 2 or 3: for ever from `n <= 1`,
/// whose complement `n >= 2` its calls keep).
fn region_candidates(bindings: &[Binding], n: usize) -> Vec<Affine> {
    let signs = (0..n).map(Affine::var);
    let constraints: Vec<Affine> = bindings
        .iter()
        .flat_map(|b| &b.region)
        .flat_map(|region| region.constraints())
        .filter(|c| c.rel == Relation::Ge && c.expr.support().next().is_some())
        .map(|c| c.normalized_for_integers().expr)
        .collect();
    let complements: Vec<Affine> = constraints
        .iter()
        .map(|e| e.neg().sub(&Affine::constant(Rat::from(1))))
        .collect();
    let mut candidates: Vec<Affine> = Vec::new();
    for g in signs.chain(constraints).chain(complements) {
        if !candidates.contains(&g) {
            candidates.push(g);
        }
    }
    candidates
}

/// Whether every call from `g >= 0` lands in `g >= 0` (its violation, `g(x) >= 0` and
/// `g(x') <= -1`, is empty on every part).
fn kept_by_calls(bindings: &[Binding], g: &Affine, n: usize) -> bool {
    let inside = Constraint::ge(g.clone());
    let left = g
        .remap(|column| column + n)
        .neg()
        .sub(&Affine::constant(Rat::from(1)));
    bindings.iter().flat_map(|b| &b.parts).all(|part| {
        let from_inside = part.intersect(&Polyhedron::from_constraints(
            part.dim(),
            vec![inside.clone()],
        ));
        never(&from_inside, &left)
    })
}

/// The bindings' calls from `g >= 0` only (a call that never runs there left out).
fn restricted(bindings: &[Binding], g: &Affine) -> Vec<Binding> {
    let inside = |poly: &Polyhedron| {
        poly.intersect(&Polyhedron::from_constraints(
            poly.dim(),
            vec![Constraint::ge(g.clone())],
        ))
        .minimized()
    };
    bindings
        .iter()
        .filter_map(|b| {
            let parts: Vec<Polyhedron> = b
                .parts
                .iter()
                .map(inside)
                .filter(|p| !p.is_empty())
                .collect();
            let region: Vec<Polyhedron> = b
                .region
                .iter()
                .map(inside)
                .filter(|p| !p.is_empty())
                .collect();
            (!parts.is_empty()).then_some(Binding {
                parts,
                region,
                times: b.times,
                shares: b.shares.clone(),
            })
        })
        .collect()
}

/// Measures `e + 1` for the constraints `e >= 0` on the formals alone that every part of every
/// binding implies: the first part's own constraints, then each formal's lower bound where the
/// parts imply one only together (`x - y + s >= 1` and `y - x + s >= 1` give `s >= 1`). The
/// recursion calls only where `μ >= 1`.
fn guard_candidates(bindings: &[Binding], n: usize) -> Vec<Affine> {
    let parts: Vec<&Polyhedron> = bindings.iter().flat_map(|b| &b.parts).collect();
    let implied_by_all = |guard: &Constraint| parts.iter().all(|part| part.implies(guard));
    let own = guards_implied(&bindings[0].region[0], &parts);
    let lower_bounds = (0..n).filter_map(|j| {
        let at_least = |c: i64| Constraint::ge(Affine::var(j).sub(&Affine::constant(Rat::from(c))));
        let mut found = None;
        // The largest c in -LOWER_BOUND_SEARCH..=LOWER_BOUND_SEARCH with p_j >= c implied.
        let (mut lo, mut hi) = (-LOWER_BOUND_SEARCH, LOWER_BOUND_SEARCH);
        while lo <= hi {
            let mid = lo + (hi - lo) / 2;
            if implied_by_all(&at_least(mid)) {
                found = Some(mid);
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        found.map(at_least)
    });
    let mut candidates: Vec<Affine> = Vec::new();
    for guard in own.into_iter().chain(lower_bounds) {
        let measure = guard.expr.add(&Affine::constant(Rat::from(1)));
        if !candidates.contains(&measure) {
            candidates.push(measure);
        }
    }
    candidates
}

/// The constraints `e >= 0` of `first` (on the formals alone) that every one of `parts`
/// implies, in lowest integer terms.
pub(super) fn guards_implied(first: &Polyhedron, parts: &[&Polyhedron]) -> Vec<Constraint> {
    first
        .constraints()
        .iter()
        .filter(|c| c.rel == Relation::Ge && c.expr.support().next().is_some())
        .map(Constraint::normalized_for_integers)
        .filter(|guard| parts.iter().all(|part| part.implies(guard)))
        .collect()
}

/// How far from 0 a formal's implied lower bound is looked for.
const LOWER_BOUND_SEARCH: i64 = 1 << 20;

/// The law of `measure` that gives the smallest count of activations, if any holds: the
/// laws' counts are compared at `μ = 1..=32` (each is a function of `μ` alone).
fn strongest_law(bindings: &[Binding], measure: &Affine, n: usize, branching: u64) -> Option<Law> {
    let callee = measure.remap(|column| column + n);
    let every_part = |violation: &Affine| {
        bindings
            .iter()
            .flat_map(|b| &b.parts)
            .all(|part| never(part, violation))
    };
    let mut holding = Vec::new();
    if split_holds(bindings, measure, &callee, n) {
        holding.push(Law::Split);
    }
    // Violation of halving for μ + δ: 2·(μ' + δ) - (μ + δ) >= 1.
    let halving = |k: u32| {
        let delta = Affine::constant(Rat::from((1i64 << k) - 1));
        every_part(
            &callee
                .scale(&Rat::from(2))
                .sub(measure)
                .add(&delta)
                .sub(&Affine::constant(Rat::from(1))),
        )
    };
    if let Some(k) = (0..=MAX_HALVING_SHIFT).take_while(|&k| halving(k)).last() {
        holding.push(Law::Halving { k });
    }
    // Violation of ranked by a step δ: μ' - μ + δ >= 1.
    let ranked = |step: u32| {
        let slack = Affine::constant(Rat::from(i64::from(step) - 1));
        every_part(&callee.sub(measure).add(&slack))
    };
    if let Some(step) = (1..=MAX_RANKED_STEP)
        .take_while(|&step| ranked(step))
        .last()
    {
        holding.push(Law::Ranked { step });
    }
    holding.into_iter().min_by_key(|&law| {
        (1..=32)
            .map(|mu| activations(law, branching, mu))
            .fold(0u128, u128::saturating_add)
    })
}

/// The most a measure is shifted up for [`split_if_fewer`].
const MAX_SPLIT_SHIFT: i64 = 4;

/// `μ + k` under the split law for the least `k` in `1..=MAX_SPLIT_SHIFT` it holds for, when it
/// counts fewer activations than `law` does on `μ` at `μ = 1..=32`; else `μ` and `law`. A
/// tree's walk that recurses only from nodes with a child (`μ = size - 1` from the guard
/// `size >= 2`) calls itself on children of size 0 too, whose measure `-1` no split of `μ`
/// allows, while the size itself splits.
fn split_if_fewer(
    bindings: &[Binding],
    measure: Affine,
    law: Law,
    n: usize,
    branching: u64,
) -> (Affine, Law) {
    if law == Law::Split {
        return (measure, law);
    }
    let total = |count: &dyn Fn(u32) -> u128| (1..=32).map(count).fold(0u128, u128::saturating_add);
    for k in 1..=MAX_SPLIT_SHIFT {
        let shifted = measure.add(&Affine::constant(Rat::from(k)));
        let callee = shifted.remap(|column| column + n);
        if split_holds(bindings, &shifted, &callee, n) {
            let split = total(&|mu| u128::from(mu) + k as u128);
            let other = total(&|mu| activations(law, branching, mu));
            if split < other {
                return (shifted, Law::Split);
            }
            break;
        }
    }
    (measure, law)
}

/// The least `k` in `0..=MAX_SPLIT_SHIFT` for which `μ + k` splits (`measure` does) and every
/// call's `μ + k` is at least 1: by induction an activation with `μ + k >= 1` then has at most
/// `μ + k` activations under it, itself included.
fn positive_split(bindings: &[Binding], measure: &Affine, n: usize) -> Option<i64> {
    (0..=MAX_SPLIT_SHIFT).find(|&k| {
        let shifted = measure.add(&Affine::constant(Rat::from(k)));
        let callee = shifted.remap(|column| column + n);
        let below_one = callee.neg();
        let positive = bindings
            .iter()
            .flat_map(|b| &b.parts)
            .all(|part| never(part, &below_one));
        positive && (k == 0 || split_holds(bindings, &shifted, &callee, n))
    })
}

/// The count of activations with `μ >= 1` a law allows under one with measure `mu`.
fn activations(law: Law, branching: u64, mu: u32) -> u128 {
    let levels = match law {
        Law::Split => return u128::from(mu),
        Law::Halving { k } => (mu + (1 << k) - 1).ilog2() - k + 1,
        Law::Ranked { step } => mu.div_ceil(step),
    };
    let b = u128::from(branching);
    (0..levels).fold(0u128, |sum, level| {
        sum.saturating_add(b.saturating_pow(level))
    })
}

/// The calls from the line `e = 0` (`on_line`, restricted to it) split into those that stay on
/// it and those that only enter activations that call nothing (outside every call's region,
/// `everywhere`); `None` when a call does neither, or none leaves the line.
fn split_by_line(
    on_line: &[Binding],
    e: &Affine,
    everywhere: &[Polyhedron],
    n: usize,
) -> Option<(Vec<Binding>, Vec<Binding>)> {
    let callee_e = e.remap(|column| column + n);
    let stays = |part: &Polyhedron| {
        never(part, &callee_e.sub(&Affine::constant(Rat::from(1))))
            && never(part, &callee_e.neg().sub(&Affine::constant(Rat::from(1))))
    };
    let callee_regions: Vec<Polyhedron> = everywhere
        .iter()
        .map(|region| {
            let constraints = region
                .constraints()
                .iter()
                .map(|c| c.remap(|column| column + n))
                .collect();
            Polyhedron::from_constraints(2 * n, constraints)
        })
        .collect();
    let to_a_leaf = |part: &Polyhedron| {
        callee_regions.iter().all(|region| {
            let widened = Polyhedron::from_constraints(part.dim(), region.constraints().to_vec());
            part.intersect(&widened).is_empty()
        })
    };
    let (mut staying, mut leaving) = (Vec::new(), Vec::new());
    for binding in on_line {
        if binding.parts.iter().all(stays) {
            staying.push(binding.clone());
        } else if binding.parts.iter().all(to_a_leaf) {
            leaving.push(binding.clone());
        } else {
            return None;
        }
    }
    (!staying.is_empty() && !leaving.is_empty()).then_some((staying, leaving))
}

/// Whether `part` has no point with `violation >= 0` (over the integers).
pub(super) fn never(part: &Polyhedron, violation: &Affine) -> bool {
    part.intersect(&Polyhedron::from_constraints(
        part.dim(),
        vec![Constraint::ge(violation.clone()).normalized_for_integers()],
    ))
    .is_empty()
}

/// The split law: every call's measure is `>= 0`, and the measures of all the calls of one
/// activation sum to at most `μ - 1`, whichever parts of their bindings they take. The calls
/// that pass distinct elements of an array (a group of [`ElementShare`]s) pass sizes that sum to
/// at most the array's, over all their executions.
fn split_holds(bindings: &[Binding], measure: &Affine, callee: &Affine, n: usize) -> bool {
    let nonnegative = bindings
        .iter()
        .flat_map(|b| &b.parts)
        .all(|part| never(part, &callee.neg().sub(&Affine::constant(Rat::from(1)))));
    if !nonnegative {
        return false;
    }
    let copies: Vec<&Binding> = bindings
        .iter()
        .flat_map(|b| std::iter::repeat_n(b, b.times as usize))
        .collect();
    let combinations: usize = copies
        .iter()
        .map(|b| b.parts.len())
        .try_fold(1usize, |acc, len| acc.checked_mul(len))
        .unwrap_or(usize::MAX);
    if copies.len() > MAX_COMBINATIONS || combinations > MAX_COMBINATIONS {
        return false;
    }
    let dim = n + copies.len() * n;
    // Column of copy `t`'s callee formal `i`: n + t·n + i.
    let in_copy = |t: usize| move |column: usize| if column < n { column } else { column + t * n };
    let sizes: Vec<usize> = copies.iter().map(|copy| copy.parts.len()).collect();
    let mut choice = vec![0usize; copies.len()];
    loop {
        let mut constraints: Vec<Constraint> = Vec::new();
        let mut sum = measure.neg();
        for (t, (copy, &index)) in copies.iter().zip(&choice).enumerate() {
            constraints.extend(
                copy.parts[index]
                    .constraints()
                    .iter()
                    .map(|c| c.remap(in_copy(t))),
            );
            sum = sum.add(&callee.remap(in_copy(t)));
        }
        constraints.push(Constraint::ge(sum).normalized_for_integers());
        constraints.extend(shared_sums(&copies, n));
        if !Polyhedron::from_constraints(dim, constraints).is_empty() {
            return false;
        }
        if !next_choice(&mut choice, &sizes) {
            return true;
        }
    }
}

/// Per group of element shares among `copies` (each a call's execution, its callee formals in
/// columns `n + t·n ..`), the sum of the shared callee formals at most the caller's formal.
fn shared_sums(copies: &[&Binding], n: usize) -> Vec<Constraint> {
    let mut sums: Vec<((usize, usize), Affine)> = Vec::new();
    for (t, copy) in copies.iter().enumerate() {
        for share in &copy.shares {
            let key = (share.caller_formal, share.group);
            let term = Affine::var(n + t * n + share.callee_formal);
            match sums.iter_mut().find(|(k, _)| *k == key) {
                Some((_, sum)) => *sum = sum.add(&term),
                None => sums.push((key, term)),
            }
        }
    }
    sums.into_iter()
        .map(|((formal, _), sum)| Constraint::ge(Affine::var(formal).sub(&sum)))
        .collect()
}

/// The next choice of one of `sizes[i]` things per slot `i`, in odometer order; false after the
/// last.
pub(super) fn next_choice(choice: &mut [usize], sizes: &[usize]) -> bool {
    for (index, &size) in choice.iter_mut().zip(sizes) {
        *index += 1;
        if *index < size {
            return true;
        }
        *index = 0;
    }
    false
}

/// The most `pw` is in one activation that recurses (its formals in one of the calls'
/// regions `recursing`) and in one that does not: per region, the sum of the positive
/// constants of the pieces that meet it (pieces add where they overlap), the largest over the
/// regions; and the sum for the pieces not inside a single region. A piece that counts with a
/// value that varies is an error: the formals of deeper activations are not known. With
/// `within`, only activations where `within >= 0` count (the region a measure holds on).
pub(super) fn per_activation(
    pw: &membound_polyhedra::PiecewiseQuasiPolynomial,
    recursing: &[Polyhedron],
    within: Option<&Affine>,
) -> Result<(Rat, Rat), String> {
    let mut in_region = vec![Rat::from(0); recursing.len()];
    let mut outside = Rat::from(0);
    for piece in &pw.pieces {
        let parts: Vec<Polyhedron> = piece
            .domain
            .parts
            .iter()
            .map(BasicSet::to_polyhedron)
            .map(|part| match within {
                Some(g) => part.intersect(&Polyhedron::from_constraints(
                    part.dim(),
                    vec![Constraint::ge(g.clone())],
                )),
                None => part,
            })
            .filter(|part| !part.is_empty())
            .collect();
        let meets: Vec<bool> = recursing
            .iter()
            .map(|r| parts.iter().any(|part| !part.intersect(r).is_empty()))
            .collect();
        let leaves = parts.iter().any(|part| {
            let mut budget = COVER_BUDGET;
            !covered(part, recursing, &mut budget)
        });
        if !leaves && !meets.contains(&true) {
            continue;
        }
        let value = piece
            .qp
            .as_polynomial()
            .and_then(|p| p.as_constant())
            .ok_or_else(|| {
                "the cost of one activation depends on its formals, which only a measure bounds \
                 below the first call"
                    .to_string()
            })?;
        if value > Rat::from(0) {
            for (sum, _) in in_region.iter_mut().zip(&meets).filter(|(_, m)| **m) {
                *sum += value.clone();
            }
            if leaves {
                outside += value;
            }
        }
    }
    let inside = in_region.into_iter().max().unwrap_or_default();
    Ok((inside, outside))
}

/// The most polyhedra `covered` looks at before it answers no.
const COVER_BUDGET: usize = 4096;

/// Whether the integer points of `part` all lie in `regions` (an answer of no may be wrong:
/// beyond `budget` polyhedra, or where only rational points are left).
fn covered(part: &Polyhedron, regions: &[Polyhedron], budget: &mut usize) -> bool {
    if part.is_empty() {
        return true;
    }
    let Some((first, rest)) = regions.split_first() else {
        return false;
    };
    // part ⊆ first ∪ rest when every piece of part outside first (beyond one of its
    // constraints) lies in rest.
    first.constraints().iter().all(|constraint| {
        constraint.integer_complement().into_iter().all(|beyond| {
            if *budget == 0 {
                return false;
            }
            *budget -= 1;
            let outside = part.intersect(&Polyhedron::from_constraints(part.dim(), vec![beyond]));
            covered(&outside, rest, budget)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ge(coeffs: &[i64], constant: i64) -> Constraint {
        Constraint::ge(Affine::from_ints(coeffs, constant))
    }

    fn eq(coeffs: &[i64], constant: i64) -> Constraint {
        Constraint::eq(Affine::from_ints(coeffs, constant))
    }

    /// The formals of a tree walk `walk(t)`: `s` (t's size), `l` and `r` (its children's), then
    /// the callee's `s'`, `l'`, `r'`. Where `t` is not null its children's sizes sum to at most
    /// `s - 1`; `extra` narrows where it recurses.
    fn tree_region(extra: &[Constraint]) -> Vec<Constraint> {
        [
            vec![
                ge(&[1, 0, 0, 0, 0, 0], -1),
                ge(&[0, 1, 0, 0, 0, 0], 0),
                ge(&[0, 0, 1, 0, 0, 0], 0),
                ge(&[1, -1, -1, 0, 0, 0], -1),
            ],
            extra.to_vec(),
        ]
        .concat()
    }

    /// A call `walk(child)` from the regions `parts`: the callee's size is the child's.
    fn call_on(child: usize, parts: &[Vec<Constraint>]) -> Binding {
        let mut binds = vec![0; 6];
        binds[child] = 1;
        binds[3] = -1;
        let parts: Vec<Polyhedron> = parts
            .iter()
            .map(|region| {
                let mut constraints = region.clone();
                constraints.push(eq(&binds, 0));
                Polyhedron::from_constraints(6, constraints).minimized()
            })
            .collect();
        let region = parts
            .iter()
            .map(|p| p.project_onto(&[0, 1, 2]).minimized())
            .collect();
        Binding {
            parts,
            region,
            times: 1,
            shares: Vec::new(),
        }
    }

    #[test]
    fn a_recursion_on_both_children_splits_the_size() {
        let region = vec![tree_region(&[])];
        let bindings = [call_on(1, &region), call_on(2, &region)];
        let measured = Measured::of_bindings(&bindings, 3).expect("a measure");
        assert_eq!(measured.law, Law::Split);
        assert_eq!(measured.measure, Affine::var(0));
        assert_eq!(measured.branching, 2);
    }

    #[test]
    fn a_walk_recursing_only_from_nodes_with_a_child_splits_the_size_too() {
        // `if (t.left == null && t.right == null) leaf; else walk(left); walk(right)`: the
        // guard gives `s >= 2`, whose measure `s - 1` is -1 on a null child.
        let region = vec![
            tree_region(&[ge(&[0, 1, 0, 0, 0, 0], -1)]),
            tree_region(&[ge(&[0, 0, 1, 0, 0, 0], -1)]),
        ];
        let bindings = [call_on(1, &region), call_on(2, &region)];
        let measured = Measured::of_bindings(&bindings, 3).expect("a measure");
        assert_eq!(measured.law, Law::Split);
        assert_eq!(measured.measure, Affine::var(0));
    }

    #[test]
    fn a_recursion_only_on_children_it_has_counts_every_activation_once() {
        // `count()` on `this`, which is never null: `if (left != null) left.count()`, likewise
        // right. The guard's measure `s - 1` splits; so does `s`, and every call's `s'` is >= 1.
        let this = [ge(&[1, 0, 0, 0, 0, 0], -1), ge(&[1, -1, -1, 0, 0, 0], -1)];
        let left = vec![tree_region(&[this[0].clone(), ge(&[0, 1, 0, 0, 0, 0], -1)])];
        let right = vec![tree_region(&[this[1].clone(), ge(&[0, 0, 1, 0, 0, 0], -1)])];
        let bindings = [call_on(1, &left), call_on(2, &right)];
        let measured = Measured::of_bindings(&bindings, 3).expect("a measure");
        assert_eq!(measured.law, Law::Split);
        let shifted = measured.measure.add(&Affine::constant(Rat::from(
            measured.positive_shift.expect("positive"),
        )));
        assert_eq!(shifted, Affine::var(0));
        // One object per activation: s in all, not 2s - 1.
        let params = ["s".to_string(), "l".to_string(), "r".to_string()];
        let total = measured.positive_total(&Rat::from(1), &Rat::from(1), &params);
        let s = Polynomial::var("s".to_string());
        assert_eq!(total, Some(BoundExpr::pol(s)));
        // Calls on null children (`walk(t.left)` whatever it holds) are not all positive.
        let region = vec![tree_region(&[])];
        let nulls = [call_on(1, &region), call_on(2, &region)];
        let measured = Measured::of_bindings(&nulls, 3).expect("a measure");
        assert_eq!(measured.positive_shift, None);
    }

    /// A loop calling `walk(v.kids[i])` three times per activation: the formals are `s` (v's
    /// size) and `k` (the sum of the elements' sizes), the callee's `s'` at most `k`; with
    /// `share`, the calls pass distinct elements.
    fn element_loop(share: bool) -> Binding {
        let part = Polyhedron::from_constraints(
            4,
            vec![
                ge(&[1, 0, 0, 0], -1),
                ge(&[0, 1, 0, 0], 0),
                ge(&[1, -1, 0, 0], -1),
                ge(&[0, 0, 1, 0], 0),
                ge(&[0, 1, -1, 0], 0),
            ],
        );
        let region = vec![part.project_onto(&[0, 1]).minimized()];
        let shares = match share {
            true => vec![ElementShare {
                callee_formal: 0,
                caller_formal: 1,
                group: 0,
            }],
            false => Vec::new(),
        };
        Binding {
            parts: vec![part],
            region,
            times: 3,
            shares,
        }
    }

    #[test]
    fn calls_on_distinct_elements_split_the_size_by_the_loop() {
        let measured = Measured::of_bindings(&[element_loop(true)], 2).expect("a measure");
        assert_eq!(measured.law, Law::Split);
        assert_eq!(measured.measure, Affine::var(0));
        assert_eq!(measured.branching, 3);
        // Without the shared sum each call may take every element's size: no split.
        let measured = Measured::of_bindings(&[element_loop(false)], 2).expect("a measure");
        assert_ne!(measured.law, Law::Split);
    }

    #[test]
    fn a_recursion_on_one_child_twice_does_not_split() {
        let region = vec![tree_region(&[])];
        let bindings = [call_on(1, &region), call_on(1, &region)];
        let measured = Measured::of_bindings(&bindings, 3).expect("a measure");
        assert_ne!(measured.law, Law::Split);
    }
}

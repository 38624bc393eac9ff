//! A call's cost summed per execution, not per value of its callee's formals: where a callee's
//! quantity becomes its caller's ([`sum_through`]).
//!
//! A call's set has one point per execution of the call and per value the callee's formals may
//! take there. Where the formals are a function of the executions (each execution has one
//! point: `build(i)` in a loop over `i`), summing the callee's quantity over the set is exact.
//! Where the caller cannot bind them (a count the loop keeps without a closed form, a length
//! known only up to a bound), an execution has many points, and summing over them charges it
//! once per value its callee *might* get: sound, but `Integer.valueOf(k)` with `0 <= k <= i + 1`
//! costs `i - 126` at iteration `i` instead of at most 1, and `build(k)` with `0 <= k <= L`
//! costs `L(L+1)/2` instead of `L`. Each execution runs its callee with one formal vector, so the
//! cost is `Σ_executions max_{formals allowed there} quantity`, and that is what
//! [`sum_per_execution`] bounds, the first that applies of:
//! - for a quantity constant on pieces that may overlap, its largest constant over the formals
//!   the call allows, once per execution (a fiber's bound would add the overlapping pieces);
//! - the largest over each execution's formals (its fiber) by Bernstein expansion (piece by
//!   piece within the fiber where the pieces are disjoint), with the
//!   executions as parameters, summed exactly over the executions (the formals kept as
//!   existential variables, so only executions with a point count) where that largest is
//!   built of polynomials under affine guards;
//! - for a quantity constant on pieces, its largest constant over the formals the call allows,
//!   once per execution;
//! - for a bound expression (a recursion's closed form), the executions times its largest value
//!   over the fibers;
//! - the sum over the whole set, as where the formals are a function of the executions.
//!
//! Every one of these is sound; one is kept over the sum over the set only where it is not
//! above it at a few sample points, since a fiber's Bernstein bound can be loose.

use membound_bernstein::guard::linear_to_affine;
use membound_bernstein::{BoundExpr, ParametricPolytope, bound_expr_over};
use std::collections::BTreeMap;

use membound_polyhedra::set::Local;
use membound_polyhedra::{
    Affine, BasicSet, Constraint, CountError, Piece, PiecewiseQuasiPolynomial, QuasiPolynomial,
    Rat, Set, Space, Value,
};

use super::executions_count;
use super::qty::{Qty, disjoint_pieces, embedded};
use crate::lowering::CallSet;

/// `Σ qty` over a call's points (`set`, the call's set as a set), where `qty` is over the
/// callee's renamed formals, per execution at the largest value the formals allowed there give
/// it. Formals `qty` does not depend on are projected out first: a count that does not depend
/// on an argument the lowering cannot express must not become unbounded through it; nor does
/// one that is piecewise constant in such an argument (an exception's constructor, whatever its
/// message's length, or a cursor's `next()` whatever its chain's length): each execution of
/// the call then counts at most its largest constant over the values the call may pass
/// ([`largest_per_execution`]), and a call that allocates nothing there adds nothing however
/// often it runs.
///
/// A finite sum is kept as it is: where the formals are a function of the executions it is
/// exact, and elsewhere [`sum_per_execution`] has already taken each execution at its largest.
pub(super) fn sum_through(qty: &Qty, set: &Set, call_set: &CallSet) -> Result<Qty, CountError> {
    let sum = sum_over_formals(qty, set, call_set)?;
    if !sum.is_infinite() {
        return Ok(sum);
    }
    Ok(match largest_per_execution(qty, call_set) {
        Some(bound) if bound.is_zero() => Qty::zero(&set.space.params),
        Some(bound) => Some(executions_count(call_set).scale(&bound))
            .filter(|q| !q.is_infinite())
            .unwrap_or(sum),
        None => sum,
    })
}

/// The largest constant `qty` (over the callee's renamed formals) takes on the formals' values
/// the call may pass (the call's set projected onto them: an argument the caller cannot bind
/// ranges over what the call's facts allow, `next_length >= 1` after `hasNext()`); None when
/// it is not piecewise constant there.
pub(super) fn largest_per_execution(qty: &Qty, call_set: &CallSet) -> Option<Rat> {
    let qty = qty.over_its_variables();
    let used = qty.params();
    if !used.iter().all(|name| call_set.formals.contains(name)) {
        return qty.largest_constant();
    }
    let used: Vec<&str> = used.iter().map(String::as_str).collect();
    let region = call_set.set.project_onto(&used).to_set();
    qty.largest_constant_on(&region)
}

/// `Σ qty` over the call's executions and the formals `qty` reads ([`sum_per_execution`]).
fn sum_over_formals(qty: &Qty, set: &Set, call_set: &CallSet) -> Result<Qty, CountError> {
    if qty.is_zero() {
        return Ok(Qty::zero(&set.space.params));
    }
    let qty = qty.over_its_variables();
    let used = qty.variables();
    let formals: Vec<&str> = call_set
        .formals
        .iter()
        .filter(|f| used.contains(f))
        .map(String::as_str)
        .collect();
    let kept: Vec<&str> = call_set
        .executions
        .iter()
        .map(String::as_str)
        .chain(formals.iter().copied())
        .collect();
    let projected = if kept.len() == set.space.dims.len() {
        set.clone()
    } else {
        call_set.set.project_onto(&kept).to_set()
    };
    sum_per_execution(&qty, &projected, formals.len())
}

/// `Σ qty` over the executions of a call, each at the largest value `qty` takes on the
/// formals that execution allows. `projected` is the call's set over the executions' counters
/// followed by the `formals` last dims (the formals `qty` reads, its only parameters besides
/// the set's own).
fn sum_per_execution(qty: &Qty, projected: &Set, formals: usize) -> Result<Qty, CountError> {
    if formals == 0 || qty.is_infinite() || one_value_per_execution(projected, formals) {
        return qty.sum_over(projected);
    }
    let whole = qty.sum_over(projected);
    match per_execution_bound(qty, &Fibers::of(projected, formals)) {
        Some(bound) if !matches!(&whole, Ok(whole) if above_at_samples(&bound, whole)) => Ok(bound),
        _ => whole,
    }
}

/// Whether `bound` is above `other` at one of a few sample points (every parameter 1, 8, 64):
/// both are sound, and the per-execution bound, while below the sum over the set in every
/// case it is made for, may not be where a fiber's bound is loose (a bound expression's pieces
/// added up), so the sum over the set stays there.
fn above_at_samples(bound: &Qty, other: &Qty) -> bool {
    let (bound, other) = (bound.to_quantity(), other.to_quantity());
    let mut names = bound.params();
    names.extend(other.params());
    [1, 8, 64].iter().any(|&value| {
        let point: BTreeMap<String, Rat> = names
            .iter()
            .map(|name| (name.clone(), Rat::from(value)))
            .collect();
        match (bound.eval(&point), other.eval(&point)) {
            (Ok(Value::Finite(a)), Ok(Value::Finite(b))) => a > b,
            (_, Ok(Value::Infinite)) => false,
            _ => true,
        }
    })
}

/// The first of the per-execution bounds of the module's list that applies; `None` where none
/// does, or where a count it needs fails (the sum over the whole set is still sound).
fn per_execution_bound(qty: &Qty, fibers: &Fibers<'_>) -> Option<Qty> {
    let largest_constant = qty.largest_constant_on(&fibers.formal_values());
    let pieces_disjoint = matches!(qty, Qty::Finite(pw) if disjoint_pieces(pw));
    if let (Some(constant), false) = (&largest_constant, pieces_disjoint) {
        // Each fiber's bound would add overlapping pieces: the largest constant is below it.
        return Some(Qty::count_of(&fibers.executions()).ok()?.scale(constant));
    }
    let largest = fibers.largest(qty);
    if let Some(Ok(Some(sum))) = largest.as_ref().map(|bound| fibers.summed_exactly(bound)) {
        return Some(sum);
    }
    if let Some(constant) = largest_constant {
        let executions = Qty::count_of(&fibers.executions()).ok()?;
        return Some(executions.scale(&constant));
    }
    match (qty, largest) {
        (Qty::Expr(_), Some(bound)) => fibers.executions_times_largest(&bound).ok(),
        _ => None,
    }
}

/// Whether every execution has one formal vector in `set` (the `formals` last dims): no two
/// points with the same executions differ in a formal. Decided rationally (an empty rational
/// polyhedron has no integer point), then, where divisions or existential variables make the
/// rational answer loose, by counting (a count that fails answers no).
fn one_value_per_execution(set: &Set, formals: usize) -> bool {
    set.parts.iter().enumerate().all(|(index, first)| {
        set.parts[index..]
            .iter()
            .enumerate()
            .all(|(offset, second)| {
                let pair = Pair::new(first, second, formals);
                (0..formals).all(|formal| {
                    !pair.differ_in(formal) && (offset == 0 || !pair.swapped().differ_in(formal))
                })
            })
    })
}

/// Two parts of a call's set over the same executions, with formals of their own: columns
/// params, executions, the first's formals, the second's formals, the first's locals, the
/// second's locals.
struct Pair<'a> {
    first: &'a BasicSet,
    second: &'a BasicSet,
    formals: usize,
}

impl<'a> Pair<'a> {
    fn new(first: &'a BasicSet, second: &'a BasicSet, formals: usize) -> Pair<'a> {
        Pair {
            first,
            second,
            formals,
        }
    }

    fn swapped(&self) -> Pair<'a> {
        Pair::new(self.second, self.first, self.formals)
    }

    /// Whether some integer point of the first and one of the second share their executions
    /// while the first's `formal` is below the second's.
    fn differ_in(&self, formal: usize) -> bool {
        let both = self.joined(formal);
        if both.to_polyhedron().is_empty() {
            return false;
        }
        if both.locals.is_empty() {
            return true;
        }
        !matches!(Qty::count_of(&Set::from_basic(both)), Ok(count) if count.is_zero())
    }

    /// Both parts over the joined columns, with `first's formal + 1 <= second's formal`.
    fn joined(&self, formal: usize) -> BasicSet {
        let (first, second, formals) = (self.first, self.second, self.formals);
        let shared = first.n_params() + first.n_dims() - formals;
        let own_formals = shared + formals;
        let first_locals = own_formals + formals;
        let second_locals = first_locals + first.locals.len();
        let first_column = |c: usize| if c < own_formals { c } else { c + formals };
        let second_column = |c: usize| match c {
            c if c < shared => c,
            c if c < own_formals => c + formals,
            c => c - own_formals + second_locals,
        };
        let mut space = first.space.clone();
        space.dims.extend(
            second.space.dims[shared - first.n_params()..]
                .iter()
                .map(|d| format!("{d}'")),
        );
        let mut joined = first.moved_to(space, first_column);
        let second = second.moved_to(joined.space.clone(), second_column);
        joined
            .locals
            .extend(second.locals.into_iter().map(|local| Local {
                name: format!("{}'", local.name),
                div: local.div,
            }));
        joined.constraints.extend(second.constraints);
        let below = Affine::var(own_formals + formal)
            .sub(&Affine::var(shared + formal))
            .sub(&Affine::constant(1));
        joined.add_constraint(Constraint::ge(below));
        joined
    }
}

/// A call's set seen as executions, each with its fiber: the formals it allows.
struct Fibers<'a> {
    set: &'a Set,
    formals: usize,
}

/// Most sums of polynomials one largest value is split into before the exact sum gives up.
const MAX_SUMMED_PIECES: usize = 64;

impl<'a> Fibers<'a> {
    fn of(set: &'a Set, formals: usize) -> Fibers<'a> {
        Fibers { set, formals }
    }

    /// The names of the executions' counters.
    fn execution_names(&self) -> &[String] {
        let dims = &self.set.space.dims;
        &dims[..dims.len() - self.formals]
    }

    /// An upper bound of `qty` over each execution's fiber, in the set's parameters and the
    /// executions' counters: the largest of each part's bound, each 0 where the part has no
    /// fiber (so the largest is at least `qty` at a formal vector of the execution, where the
    /// parts overlap too); `None` where Bernstein expansion cannot bound it.
    fn largest(&self, qty: &Qty) -> Option<BoundExpr> {
        let params: Vec<String> = self
            .set
            .space
            .params
            .iter()
            .chain(self.execution_names())
            .cloned()
            .collect();
        let formals = self.set.space.dims[self.execution_names().len()..].to_vec();
        let over_fibers = |expr: &BoundExpr, part: &BasicSet| {
            let fiber = ParametricPolytope::of_part(params.clone(), formals.clone(), part);
            bound_expr_over(expr, &fiber).ok()
        };
        let bounds = match qty {
            // One piece's value at each formal vector: the largest of each piece's over the
            // fiber within its domain (its bound expression would add the pieces' bounds).
            Qty::Finite(pw) if disjoint_pieces(pw) => self
                .set
                .parts
                .iter()
                .flat_map(|part| {
                    pw.pieces.iter().flat_map(move |piece| {
                        piece.domain.parts.iter().map(move |domain| {
                            let within = part.intersect(&embedded(domain, &self.set.space));
                            (BoundExpr::Pol(piece.qp.clone()), within)
                        })
                    })
                })
                .map(|(expr, within)| over_fibers(&expr, &within))
                .collect::<Option<Vec<BoundExpr>>>()?,
            _ => {
                let expr = qty.to_quantity();
                self.set
                    .parts
                    .iter()
                    .map(|part| over_fibers(&expr, part))
                    .collect::<Option<Vec<BoundExpr>>>()?
            }
        };
        Some(match <[BoundExpr; 1]>::try_from(bounds) {
            Ok([bound]) => bound,
            Err(bounds) => BoundExpr::Max(bounds),
        })
    }

    /// Every execution of the call, once: each part with its formals kept as existential
    /// variables, so an execution counts only where some integer formal vector goes with it
    /// (the columns stay put: the formals, the last dims, become the first locals).
    fn executions(&self) -> Set {
        let space = Space::new(
            self.set.space.params.clone(),
            self.execution_names().to_vec(),
        );
        let formal_names = &self.set.space.dims[self.execution_names().len()..];
        let parts = self
            .set
            .parts
            .iter()
            .map(|part| {
                let mut locals: Vec<Local> = formal_names
                    .iter()
                    .map(|name| Local {
                        name: name.clone(),
                        div: None,
                    })
                    .collect();
                locals.extend(part.locals.iter().cloned());
                BasicSet {
                    space: space.clone(),
                    locals,
                    constraints: part.constraints.clone(),
                }
            })
            .collect();
        Set { space, parts }
    }

    /// The formal vectors the call may pass, over the parameters and the formals.
    fn formal_values(&self) -> Set {
        let executions: Vec<&str> = self.execution_names().iter().map(String::as_str).collect();
        self.set.project_out_dims(&executions)
    }

    /// `Σ largest` over the executions, exactly; `None` where it is not built of polynomials
    /// under affine guards (or splits into too many sums).
    fn summed_exactly(&self, largest: &BoundExpr) -> Result<Option<Qty>, CountError> {
        let mut budget = MAX_SUMMED_PIECES;
        sum_of_cases(largest, &self.executions(), &mut budget)
    }

    /// The executions times the largest of `largest` over them.
    fn executions_times_largest(&self, largest: &BoundExpr) -> Result<Qty, CountError> {
        Qty::Expr(largest.clone()).sum_over(&self.executions())
    }
}

/// `Σ expr(x)` over the integer points of `set`, exactly, where `expr` is polynomials under
/// sums, maxima and cases with affine guards (a maximum of polynomials whose differences are
/// affine, split where each is the largest); `None` otherwise, or past `budget` sums.
fn sum_of_cases(
    expr: &BoundExpr,
    set: &Set,
    budget: &mut usize,
) -> Result<Option<Qty>, CountError> {
    if set.parts.is_empty() || expr.is_zero() {
        return Ok(Some(Qty::zero(&set.space.params)));
    }
    match expr {
        BoundExpr::Pol(qp) => {
            if *budget == 0 {
                return Ok(None);
            }
            *budget -= 1;
            Qty::Finite(everywhere(qp)).sum_over(set).map(Some)
        }
        BoundExpr::Sum(items) => {
            let mut total = Qty::zero(&set.space.params);
            for item in items {
                match sum_of_cases(item, set, budget)? {
                    Some(sum) => total = total.add(&sum),
                    None => return Ok(None),
                }
            }
            Ok(Some(total))
        }
        BoundExpr::Cases { arms, default } => {
            let mut total = Qty::zero(&set.space.params);
            let mut rest = set.clone();
            for arm in arms {
                let Some(guard) = constraints_of(&arm.guard.atoms, set) else {
                    return Ok(None);
                };
                let within = guard
                    .iter()
                    .fold(rest.clone(), |s, c| s.constrain(c.clone()));
                match sum_of_cases(&arm.expr, &within, budget)? {
                    Some(sum) => total = total.add(&sum),
                    None => return Ok(None),
                }
                rest = outside(&rest, &guard);
            }
            Ok(sum_of_cases(default, &rest, budget)?.map(|sum| total.add(&sum)))
        }
        BoundExpr::Max(items) => match items.as_slice() {
            [] => Ok(Some(Qty::zero(&set.space.params))),
            [item] => sum_of_cases(item, set, budget),
            _ => sum_of_cases_of_max(items, set, budget),
        },
        _ => Ok(None),
    }
}

/// `Σ max(items)` over `set` (see [`sum_of_cases`]): a case among the items is taken out of the
/// maximum, and two polynomials whose difference is affine split the set where each is larger.
fn sum_of_cases_of_max(
    items: &[BoundExpr],
    set: &Set,
    budget: &mut usize,
) -> Result<Option<Qty>, CountError> {
    let items = flattened(items);
    if let [item] = items.as_slice() {
        return sum_of_cases(item, set, budget);
    }
    if let Some(index) = items
        .iter()
        .position(|item| matches!(item, BoundExpr::Cases { .. }))
    {
        let BoundExpr::Cases { arms, default } = &items[index] else {
            unreachable!("the item is a case");
        };
        let with = |expr: &BoundExpr| {
            let mut items = items.clone();
            items[index] = expr.clone();
            BoundExpr::Max(items)
        };
        let cases = BoundExpr::Cases {
            arms: arms
                .iter()
                .map(|arm| membound_bernstein::Arm {
                    guard: arm.guard.clone(),
                    expr: with(&arm.expr),
                })
                .collect(),
            default: Box::new(with(default)),
        };
        return sum_of_cases(&cases, set, budget);
    }
    let [BoundExpr::Pol(a), BoundExpr::Pol(b), rest @ ..] = items.as_slice() else {
        return Ok(None);
    };
    let names = column_names(set);
    let Some(difference) = a
        .sub(b)
        .as_polynomial()
        .and_then(|d| linear_to_affine(d, &names))
    else {
        return Ok(None);
    };
    let a_larger = [Constraint::ge(difference)];
    let with = |kept: &QuasiPolynomial| {
        let mut items = vec![BoundExpr::Pol(kept.clone())];
        items.extend(rest.iter().cloned());
        BoundExpr::Max(items)
    };
    let where_a = set.constrain(a_larger[0].clone());
    let Some(on_a) = sum_of_cases(&with(a), &where_a, budget)? else {
        return Ok(None);
    };
    let on_b = sum_of_cases(&with(b), &outside(set, &a_larger), budget)?;
    Ok(on_b.map(|sum| on_a.add(&sum)))
}

/// A maximum's items with nested maxima spread out and sums of polynomials added up.
fn flattened(items: &[BoundExpr]) -> Vec<BoundExpr> {
    items
        .iter()
        .flat_map(|item| match item {
            BoundExpr::Max(inner) => flattened(inner),
            BoundExpr::Sum(terms) => vec![polynomial_sum(terms).unwrap_or_else(|| item.clone())],
            other => vec![other.clone()],
        })
        .collect()
}

/// A sum of quasi-polynomials as one.
fn polynomial_sum(terms: &[BoundExpr]) -> Option<BoundExpr> {
    terms
        .iter()
        .try_fold(QuasiPolynomial::zero(), |sum, term| match term {
            BoundExpr::Pol(qp) => Some(sum.add(qp)),
            _ => None,
        })
        .map(BoundExpr::Pol)
}

/// The set's columns by name: its parameters, then its dims.
fn column_names(set: &Set) -> Vec<String> {
    set.space
        .params
        .iter()
        .chain(&set.space.dims)
        .cloned()
        .collect()
}

/// A guard's atoms as constraints over the set's columns; `None` when one is not affine in them.
fn constraints_of(atoms: &[membound_bernstein::Atom], set: &Set) -> Option<Vec<Constraint>> {
    let names = column_names(set);
    atoms
        .iter()
        .map(|atom| {
            let form = linear_to_affine(&atom.expr, &names)?;
            Some(Constraint {
                expr: form,
                rel: atom.rel,
            })
        })
        .collect()
}

/// The integer points of `set` where some constraint of `guard` fails, as disjoint parts: where
/// the first fails, where it holds and the second fails, and so on.
fn outside(set: &Set, guard: &[Constraint]) -> Set {
    let mut parts = Vec::new();
    let mut holding = set.clone();
    for constraint in guard {
        for complement in constraint.integer_complement() {
            parts.extend(holding.constrain(complement).parts);
        }
        holding = holding.constrain(constraint.clone());
    }
    Set {
        space: set.space.clone(),
        parts: parts
            .into_iter()
            .filter(|part: &BasicSet| !part.to_polyhedron().is_empty())
            .collect(),
    }
}

/// `qp` everywhere, over the names it reads.
fn everywhere(qp: &QuasiPolynomial) -> PiecewiseQuasiPolynomial {
    let space = Space::new(qp.variables(), Vec::new());
    PiecewiseQuasiPolynomial {
        pieces: vec![Piece {
            domain: Set::from_basic(BasicSet::universe(space.clone())),
            qp: qp.clone(),
        }],
        space,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use membound_polyhedra::{parse_piecewise, parse_set};

    fn set(text: &str) -> Set {
        parse_set(text).expect("a set")
    }

    /// `sum` of `weight` (over `k`) over `call` (dims `[i, k]`) at `n`.
    fn summed_at(weight: &str, call: &str, n: i64) -> Rat {
        let qty = Qty::Finite(parse_piecewise(weight).expect("a piecewise quasi-polynomial"));
        let sum = sum_per_execution(&qty, &set(call), 1).expect("summed");
        let point = BTreeMap::from([("n".to_string(), Rat::from(n))]);
        match sum.to_quantity().eval(&point).expect("a value") {
            Value::Finite(value) => value,
            Value::Infinite => panic!("∞ at n = {n}"),
        }
    }

    #[test]
    fn a_formal_equal_to_the_counter_or_its_half_is_one_value_per_execution() {
        let counter = set("[n] -> { [i, k] : 0 <= i < n and k = i }");
        let half = set("[n] -> { [i, k] : 0 <= i < n and 2k <= i <= 2k + 1 }");
        let even_half = set("[n] -> { [i, k] : 0 <= i < n and i = 2k + 2 * floor(i/4) }");
        for call in [counter, half, even_half] {
            assert!(one_value_per_execution(&call, 1), "{call:?}");
        }
    }

    #[test]
    fn a_formal_ranging_over_an_interval_per_execution_is_not() {
        let call = set("[n] -> { [i, k] : 0 <= i < n and 0 <= k <= i }");
        assert!(!one_value_per_execution(&call, 1));
        // Two parts, each a function of the counter, that disagree where they meet.
        let parts = set("[n] -> { [i, k] : 0 <= i < n and k = i; [i, k] : 0 <= i < n and k = 0 }");
        assert!(!one_value_per_execution(&parts, 1));
    }

    #[test]
    fn each_execution_counts_the_largest_value_its_formals_allow() {
        let prefixes = "[n] -> { [i, k] : 0 <= i < n and 0 <= k <= i + 1 }";
        // k nodes: Σ (i + 1) for i < n, not Σ_i Σ_{k <= i + 1} k.
        assert_eq!(
            summed_at("[k] -> { k : k >= 1 }", prefixes, 5),
            Rat::from(15)
        );
        // A box from k >= 3 on: iterations 2, 3 and 4.
        assert_eq!(
            summed_at("[k] -> { 1 : k >= 3 }", prefixes, 5),
            Rat::from(3)
        );
        // Two parts meeting on every execution: still the largest of the two, once.
        let parts = "[n] -> { [i, k] : 0 <= i < n and k = i; [i, k] : 0 <= i < n and k = 2i }";
        assert_eq!(summed_at("[k] -> { k : k >= 0 }", parts, 4), Rat::from(12));
    }

    #[test]
    fn a_formal_that_is_a_function_of_the_counter_is_summed_exactly() {
        let counter = "[n] -> { [i, k] : 0 <= i < n and k = i }";
        assert_eq!(
            summed_at("[k] -> { k : k >= 1 }", counter, 5),
            Rat::from(10)
        );
    }
}

//! Simplification of bound expressions under assumptions on the parameters (thesis §7.4.2):
//! sums of polynomials folded, `Cases` arms that cannot be taken dropped and those always
//! taken made the default, dominated `Max` operands pruned, common terms factored out of
//! `Max` (`max(a + c, b + c) = c + max(a, b)`), and maxima resolved by splitting the domain
//! where one operand wins (a linear difference splits along its zero hyperplane, a difference
//! in one parameter at its integer sign changes). What cannot be resolved stays a `Max`.
//! Products multiply their polynomial factors into one (a factor of 0 makes the product 0
//! unless another factor may be ∞); powers and logarithms of constants are folded when the
//! value is small; other products, powers and logarithms are left as they are.
//!
//! Every rewrite keeps the value at every integer point of the assumed domain.

use membound_polyhedra::{Constraint, Int, Monomial, Polynomial, QuasiPolynomial, Rat, Relation};

use crate::compare::{at_least, value_at};
use crate::expr::{Arm, BoundExpr, floor_log2, power};
use crate::guard::{Atom, Guard, ParamDomain, linear_to_affine};
use crate::univariate::{SignRun, UnivariatePolynomial};

/// How many nested domain splits one `Max` may use before it is left for run time.
const MAX_SPLIT_DEPTH: usize = 3;
/// Most sign runs a one-parameter split may produce.
const MAX_RUNS: usize = 4;
/// Most dominance tests one pruning makes (each a sign test of a difference of candidates,
/// which takes up to a millisecond at degree 8 in three parameters); the candidates left when
/// they run out are kept as they are.
const MAX_COMPARISONS: usize = 1000;

/// `expr` simplified for the integer parameter values satisfying `assumptions`.
pub fn simplify(expr: &BoundExpr, assumptions: &Guard) -> BoundExpr {
    let mut params = expr.params();
    params.extend(assumptions.variables());
    params.sort();
    params.dedup();
    let domain = ParamDomain::from_guard(params, assumptions);
    if domain.is_empty() {
        return expr.clone();
    }
    shared_guards_out(&simplify_in(expr, &domain), &domain)
}

/// `expr` with the guard of one-arm `Cases` that a sum, product, maximum, power or logarithm
/// holds more than one of (and no other guard of one-arm `Cases`) taken out, from the leaves
/// up: `cases(g -> 1/3)*4^cases(g -> l - 1) + cases(g -> -1/3)` reads
/// `cases(g -> 1/3*4^(l - 1) - 1/3; otherwise -> 0)`. Exact: each such `Cases` gives its arm
/// exactly where `g` holds, wherever it sits.
fn shared_guards_out(expr: &BoundExpr, domain: &ParamDomain) -> BoundExpr {
    let all = |items: &[BoundExpr]| -> Vec<BoundExpr> {
        items.iter().map(|e| shared_guards_out(e, domain)).collect()
    };
    let rebuilt = match expr {
        BoundExpr::Inf | BoundExpr::Pol(_) => return expr.clone(),
        BoundExpr::Cases { arms, default } => {
            return BoundExpr::Cases {
                arms: arms
                    .iter()
                    .map(|arm| Arm {
                        guard: arm.guard.clone(),
                        expr: shared_guards_out(&arm.expr, domain),
                    })
                    .collect(),
                default: Box::new(shared_guards_out(default, domain)),
            };
        }
        BoundExpr::Sum(items) => BoundExpr::Sum(all(items)),
        BoundExpr::Max(items) => BoundExpr::Max(all(items)),
        BoundExpr::Mul(items) => BoundExpr::Mul(all(items)),
        BoundExpr::Pow { base, exponent } => BoundExpr::Pow {
            base: base.clone(),
            exponent: Box::new(shared_guards_out(exponent, domain)),
        },
        BoundExpr::Log2 { arg } => BoundExpr::log2(shared_guards_out(arg, domain)),
    };
    let mut guards: Vec<(&Guard, usize)> = Vec::new();
    for child in rebuilt.children() {
        one_arm_guards(child, &mut guards);
    }
    // A maximum takes a lone guard out too: `max(0, cases(g -> x; otherwise -> 0))` is
    // `cases(g -> max(0, x); otherwise -> 0)`.
    let enough = if matches!(rebuilt, BoundExpr::Max(_)) {
        1
    } else {
        2
    };
    match guards.as_slice() {
        [(guard, uses)] if *uses >= enough => {
            let guard = (*guard).clone();
            let arm = Arm {
                guard: guard.clone(),
                expr: taking(&rebuilt, &guard, true),
            };
            cases_of(&[arm], &taking(&rebuilt, &guard, false), domain)
        }
        _ => rebuilt,
    }
}

/// The guards of the outermost one-arm `Cases` in `expr` (those inside another are that one's
/// business), with how often each occurs.
fn one_arm_guards<'e>(expr: &'e BoundExpr, guards: &mut Vec<(&'e Guard, usize)>) {
    if let BoundExpr::Cases { arms, .. } = expr
        && let [arm] = arms.as_slice()
    {
        match guards.iter_mut().find(|(g, _)| *g == &arm.guard) {
            Some((_, uses)) => *uses += 1,
            None => guards.push((&arm.guard, 1)),
        }
        return;
    }
    for child in expr.children() {
        one_arm_guards(child, guards);
    }
}

/// `expr` with every one-arm `Cases` guarded by `guard` replaced by its arm (`holds`) or its
/// default.
fn taking(expr: &BoundExpr, guard: &Guard, holds: bool) -> BoundExpr {
    let all = |items: &[BoundExpr]| -> Vec<BoundExpr> {
        items.iter().map(|e| taking(e, guard, holds)).collect()
    };
    match expr {
        BoundExpr::Cases { arms, default } => match arms.as_slice() {
            [arm] if arm.guard == *guard => {
                taking(if holds { &arm.expr } else { default }, guard, holds)
            }
            _ => BoundExpr::Cases {
                arms: arms
                    .iter()
                    .map(|arm| Arm {
                        guard: arm.guard.clone(),
                        expr: taking(&arm.expr, guard, holds),
                    })
                    .collect(),
                default: Box::new(taking(default, guard, holds)),
            },
        },
        BoundExpr::Inf | BoundExpr::Pol(_) => expr.clone(),
        BoundExpr::Sum(items) => BoundExpr::Sum(all(items)),
        BoundExpr::Max(items) => BoundExpr::Max(all(items)),
        BoundExpr::Mul(items) => BoundExpr::Mul(all(items)),
        BoundExpr::Pow { base, exponent } => BoundExpr::Pow {
            base: base.clone(),
            exponent: Box::new(taking(exponent, guard, holds)),
        },
        BoundExpr::Log2 { arg } => BoundExpr::log2(taking(arg, guard, holds)),
    }
}

/// `expr` simplified on `domain` (whose parameters include every one `expr` mentions).
pub fn simplify_in(expr: &BoundExpr, domain: &ParamDomain) -> BoundExpr {
    match expr {
        BoundExpr::Inf | BoundExpr::Pol(_) => expr.clone(),
        BoundExpr::Sum(items) => sum_of(items.iter().map(|e| simplify_in(e, domain)).collect()),
        BoundExpr::Max(items) => max_of(
            items.iter().map(|e| simplify_in(e, domain)).collect(),
            domain,
        ),
        BoundExpr::Cases { arms, default } => cases_of(arms, default, domain),
        BoundExpr::Mul(items) => product_of(items.iter().map(|e| simplify_in(e, domain)).collect()),
        BoundExpr::Pow { base, exponent } => power_of(base, simplify_in(exponent, domain)),
        BoundExpr::Log2 { arg } => log2_in(simplify_in(arg, domain), domain),
    }
}

/// Most bits of a power of a constant folded into a polynomial leaf (larger ones stay powers,
/// which read better and evaluate lazily).
const MAX_FOLDED_BITS: u64 = 128;

/// The maximum of `operands` when they are one-arm cases with a zero default whose guards no
/// point satisfies two of (`max(cases(l >= 3 -> l - 1; 0), cases(l = 2 -> 1; 0))`): one case
/// per guard, `cases(l >= 3 -> l - 1; l = 2 -> 1; otherwise -> 0)`, each arm the larger of its
/// value and 0. `None` for any other maximum.
fn disjoint_cases_joined(operands: &[BoundExpr], domain: &ParamDomain) -> Option<BoundExpr> {
    let arms: Vec<&Arm> = operands
        .iter()
        .map(|operand| match operand {
            BoundExpr::Cases { arms, default } if default.is_zero() => match arms.as_slice() {
                [arm] => Some(arm),
                _ => None,
            },
            _ => None,
        })
        .collect::<Option<_>>()?;
    if arms.len() < 2 {
        return None;
    }
    let disjoint = arms.iter().enumerate().all(|(i, a)| {
        arms[i + 1..]
            .iter()
            .all(|b| domain.with_guard(&a.guard).with_guard(&b.guard).is_empty())
    });
    if !disjoint {
        return None;
    }
    let joined: Vec<Arm> = arms
        .into_iter()
        .map(|arm| Arm {
            guard: arm.guard.clone(),
            expr: BoundExpr::Max(vec![arm.expr.clone(), BoundExpr::zero()]),
        })
        .collect();
    Some(cases_of(&joined, &BoundExpr::zero(), domain))
}

/// Whether `expr`, of the form `c·b^e + d` (`c > 0`, `e` affine), is at least `value` on
/// `domain`: where the domain keeps `e` at or above the least integer `k` with
/// `c·b^k + d >= value`.
fn power_at_least(expr: &BoundExpr, value: &Rat, domain: &ParamDomain) -> bool {
    let (power, rest): (Vec<&BoundExpr>, Vec<&BoundExpr>) = match expr {
        BoundExpr::Sum(items) => items.iter().partition(|e| e.as_polynomial().is_none()),
        other => (vec![other], Vec::new()),
    };
    let d = rest.iter().try_fold(Rat::zero(), |sum, e| {
        Some(sum + e.as_polynomial()?.as_constant()?)
    });
    let (Some(d), [power]) = (d, power.as_slice()) else {
        return false;
    };
    let (c, base, exponent) = match power {
        BoundExpr::Pow { base, exponent } => (Rat::one(), base, exponent),
        BoundExpr::Mul(items) => match items.as_slice() {
            [BoundExpr::Pol(c), BoundExpr::Pow { base, exponent }] => {
                let Some(c) = c.as_polynomial().and_then(Polynomial::as_constant) else {
                    return false;
                };
                (c, base, exponent)
            }
            _ => return false,
        },
        _ => return false,
    };
    let Some(exponent) = exponent.as_polynomial().filter(|e| e.degree() <= 1) else {
        return false;
    };
    if !c.is_positive() {
        return false;
    }
    // b^k >= t for the least such integer k >= 0 (b^e > 0, so t <= 0 needs nothing).
    let t = (value.clone() - d) / c;
    if !t.is_positive() {
        return true;
    }
    let mut k = 0i64;
    let mut reached = Rat::one();
    while reached < t {
        reached *= Rat::from(base.clone());
        k += 1;
    }
    domain.implies(&Atom::ge(exponent - &Polynomial::constant(Rat::from(k))))
}

/// A product with nested products flattened and its polynomial factors multiplied (first).
pub fn product_of(items: Vec<BoundExpr>) -> BoundExpr {
    let mut polynomial = QuasiPolynomial::constant(1);
    let mut rest = Vec::new();
    let mut pending = items;
    while let Some(item) = pending.pop() {
        match item {
            BoundExpr::Inf => return BoundExpr::Inf,
            BoundExpr::Pol(qp) => polynomial = polynomial.mul(&qp),
            BoundExpr::Mul(inner) => pending.extend(inner),
            other => rest.push(other),
        }
    }
    rest.reverse();
    if polynomial.is_zero() && !rest.iter().any(BoundExpr::may_be_infinite) {
        return BoundExpr::zero();
    }
    let unit = polynomial == QuasiPolynomial::constant(1);
    match (unit, rest.len()) {
        (_, 0) => BoundExpr::Pol(polynomial),
        (true, 1) => rest.remove(0),
        (true, _) => BoundExpr::Mul(rest),
        (false, _) => {
            rest.insert(0, BoundExpr::Pol(polynomial));
            BoundExpr::Mul(rest)
        }
    }
}

/// `base^exponent`, folded into a constant when the exponent is one and the value small.
fn power_of(base: &Int, exponent: BoundExpr) -> BoundExpr {
    if exponent == BoundExpr::Inf {
        return BoundExpr::Inf;
    }
    let constant = exponent.as_polynomial().and_then(Polynomial::as_constant);
    if let Some(value) = constant.and_then(|c| power(base, &c.ceil()).ok())
        && value.numer().bits() + value.denom().bits() <= MAX_FOLDED_BITS
    {
        return BoundExpr::pol(Polynomial::constant(value));
    }
    BoundExpr::Pow {
        base: base.clone(),
        exponent: Box::new(exponent),
    }
}

/// `floor_log2(arg)` on `domain`: into the arms of a `Cases` (the logarithm of the value the
/// arm gives), the exponent of a power of two where the domain keeps it non-negative
/// (`floor_log2(1/2*2^x) = x - 1` for `x >= 1`), folded for a constant.
fn log2_in(arg: BoundExpr, domain: &ParamDomain) -> BoundExpr {
    if let BoundExpr::Cases { arms, default } = &arg {
        let arms = arms
            .iter()
            .map(|arm| Arm {
                guard: arm.guard.clone(),
                expr: BoundExpr::log2(arm.expr.clone()),
            })
            .collect::<Vec<_>>();
        return cases_of(&arms, &BoundExpr::log2((**default).clone()), domain);
    }
    match binary_exponent(&arg) {
        Some(exponent) if domain.implies(&Atom::ge(exponent.clone())) => BoundExpr::pol(exponent),
        _ => log2_of(arg),
    }
}

/// `e` with `arg = 2^e`, `e` an affine integer-valued polynomial: for `2^(j·k)`-based powers
/// `(2^j)^k` and their products with a constant power of two (`1/2*2^x = 2^(x - 1)`).
fn binary_exponent(arg: &BoundExpr) -> Option<Polynomial> {
    let (factor, power) = match arg {
        BoundExpr::Pow { .. } => (Rat::one(), arg),
        BoundExpr::Mul(items) => match items.as_slice() {
            [BoundExpr::Pol(c), power @ BoundExpr::Pow { .. }] => {
                (c.as_polynomial()?.as_constant()?, power)
            }
            _ => return None,
        },
        _ => return None,
    };
    let BoundExpr::Pow { base, exponent } = power else {
        return None;
    };
    let exponent = exponent.as_polynomial()?;
    let integral = exponent.degree() <= 1 && exponent.terms().all(|(_, c)| c.is_integer());
    let j = exact_log(&Int::from(2), &Rat::from(base.clone()))?;
    let k = exact_log(&Int::from(2), &factor)?;
    integral.then(|| &exponent.scale(&Rat::from(j)) + &Polynomial::constant(Rat::from(k)))
}

/// `floor_log2(arg)`, folded when the argument is a constant.
fn log2_of(arg: BoundExpr) -> BoundExpr {
    if arg == BoundExpr::Inf {
        return BoundExpr::Inf;
    }
    match arg.as_polynomial().and_then(Polynomial::as_constant) {
        Some(value) => BoundExpr::pol(Polynomial::constant(Rat::from(Int::from(floor_log2(
            &value,
        ))))),
        None => BoundExpr::log2(arg),
    }
}

/// A sum with nested sums flattened, its polynomial terms added up (first) and its other
/// terms combined where they are the same expression up to a constant factor
/// (`2^(n - 1) + 2^(n - 1) = 2^n`, `1/3*4^(l + 1) + 3*(1/3*4^(l + 1) - 1/3) = 4/3*4^(l + 1) - 1`):
/// a constant factor of a product is distributed over a sum it multiplies, and a power's
/// integer shift of its exponent is a constant factor (`b^(e + k) = b^k·b^e`, also for the
/// exponent rounded up that evaluation takes).
pub fn sum_of(items: Vec<BoundExpr>) -> BoundExpr {
    let mut terms = LikeTerms::default();
    for item in under_shared_guards(items) {
        if item == BoundExpr::Inf {
            return BoundExpr::Inf;
        }
        terms.add(item, &Rat::one());
    }
    let LikeTerms { polynomial, others } = terms;
    if others.iter().any(|term| term.core == BoundExpr::Inf) {
        return BoundExpr::Inf;
    }
    let mut rest: Vec<BoundExpr> = others
        .into_iter()
        .filter(|term| !term.coefficient.is_zero() || term.core.may_be_infinite())
        .map(LikeTerm::into_expr)
        .collect();
    if rest.is_empty() {
        return BoundExpr::Pol(polynomial);
    }
    if polynomial.is_zero() && rest.len() == 1 {
        return rest.remove(0);
    }
    if !polynomial.is_zero() {
        // Largest terms first: the polynomial after powers and products (`2^n - 1`), before
        // maxima and cases of polynomials (`3*mc + 1 + cases(…)`).
        if rest.iter().any(BoundExpr::has_exponential_forms) {
            rest.push(BoundExpr::Pol(polynomial));
        } else {
            rest.insert(0, BoundExpr::Pol(polynomial));
        }
    }
    BoundExpr::Sum(rest)
}

/// A sum's terms (nested sums flattened) with the cases of one arm and a zero default that
/// share their guard added under it (`cases(g -> a; 0) + cases(g -> b; 0) = cases(g -> a + b;
/// 0)`), so a bound of the sum does not take each one's maximum apart (the maximum of
/// `cases(g -> -3; 0)` alone is 0).
fn under_shared_guards(items: Vec<BoundExpr>) -> Vec<BoundExpr> {
    let mut flat = Vec::new();
    let mut pending = items;
    pending.reverse();
    while let Some(item) = pending.pop() {
        match item {
            BoundExpr::Sum(inner) => pending.extend(inner.into_iter().rev()),
            other => flat.push(other),
        }
    }
    let mut merged: Vec<BoundExpr> = Vec::new();
    let mut guarded: Vec<(Guard, Vec<BoundExpr>)> = Vec::new();
    for item in flat {
        match item {
            BoundExpr::Cases { arms, default } if arms.len() == 1 && default.is_zero() => {
                let Arm { guard, expr } = arms.into_iter().next().expect("one arm");
                match guarded.iter_mut().find(|(g, _)| *g == guard) {
                    Some((_, exprs)) => exprs.push(expr),
                    None => guarded.push((guard, vec![expr])),
                }
            }
            other => merged.push(other),
        }
    }
    let under = |guard: &Guard, expr: BoundExpr| BoundExpr::Cases {
        arms: vec![Arm {
            guard: guard.clone(),
            expr,
        }],
        default: Box::new(BoundExpr::zero()),
    };
    for (guard, exprs) in guarded {
        // Equal terms stay apart: they add up as like terms (`2*cases(…)`).
        if exprs.iter().all(|e| *e == exprs[0]) {
            merged.extend(exprs.into_iter().map(|e| under(&guard, e)));
        } else {
            merged.push(under(&guard, sum_of(exprs)));
        }
    }
    merged
}

/// The terms of a sum: its polynomial part, and the others as multiples of distinct cores in
/// the order they were first seen.
#[derive(Default)]
struct LikeTerms {
    polynomial: QuasiPolynomial,
    others: Vec<LikeTerm>,
}

/// `coefficient · core`; for a power, `shift` is the integer the first such term added to the
/// core's exponent, which the sum is written back with (`1/3*4^(l + 1)` stays in `4^(l + 1)`).
struct LikeTerm {
    coefficient: Rat,
    core: BoundExpr,
    shift: Int,
}

/// The largest power shift taken out of an exponent (`b^k` is computed exactly).
const MAX_SHIFT: i64 = 64;

impl LikeTerms {
    /// Adds `scale · expr`.
    fn add(&mut self, expr: BoundExpr, scale: &Rat) {
        match expr {
            BoundExpr::Pol(qp) => self.polynomial = self.polynomial.add(&qp.scale(scale)),
            BoundExpr::Sum(items) => {
                for item in items {
                    self.add(item, scale);
                }
            }
            BoundExpr::Mul(items) => match constant_factor(&items) {
                Some((c, rest)) => self.add(rest, &(scale.clone() * c)),
                None => self.add_core(BoundExpr::Mul(items), scale.clone(), Int::from(0)),
            },
            BoundExpr::Pow { base, exponent } => match exponent_shift(&exponent) {
                Some((shift, core_exponent)) => {
                    let factor = power(&base, &shift).unwrap_or_else(|_| Rat::one());
                    let core = BoundExpr::Pow {
                        base,
                        exponent: Box::new(core_exponent),
                    };
                    self.add_core(core, scale.clone() * factor, shift);
                }
                None => self.add_core(
                    BoundExpr::Pow { base, exponent },
                    scale.clone(),
                    Int::from(0),
                ),
            },
            other => self.add_core(other, scale.clone(), Int::from(0)),
        }
    }

    fn add_core(&mut self, core: BoundExpr, coefficient: Rat, shift: Int) {
        match self.others.iter_mut().find(|term| term.core == core) {
            Some(term) => term.coefficient += coefficient,
            None => self.others.push(LikeTerm {
                coefficient,
                core,
                shift,
            }),
        }
    }
}

/// A product's constant factor and the product of the rest, when it has one (`3*(x - 1)`).
fn constant_factor(items: &[BoundExpr]) -> Option<(Rat, BoundExpr)> {
    let (first, rest) = items.split_first()?;
    let c = first.as_polynomial()?.as_constant()?;
    Some((c, product_of(rest.to_vec())))
}

/// The integer part `k` of an exponent's constant term, when not 0 and small, and the exponent
/// without it: `b^e = b^k·b^(e - k)`.
fn exponent_shift(exponent: &BoundExpr) -> Option<(Int, BoundExpr)> {
    let shift_of = |qp: &QuasiPolynomial| {
        let constant = qp
            .as_polynomial()?
            .terms()
            .find(|(m, _)| m.degree() == 0)
            .map(|(_, c)| c.floor())?;
        let k = i64::try_from(&constant).ok()?;
        (k != 0 && k.abs() <= MAX_SHIFT).then_some(constant)
    };
    let without =
        |qp: &QuasiPolynomial, k: &Int| qp.sub(&QuasiPolynomial::constant(Rat::from(k.clone())));
    match exponent {
        BoundExpr::Pol(qp) => {
            let k = shift_of(qp)?;
            Some((k.clone(), BoundExpr::Pol(without(qp, &k))))
        }
        BoundExpr::Sum(items) => {
            let (index, k) = items.iter().enumerate().find_map(|(i, item)| match item {
                BoundExpr::Pol(qp) => shift_of(qp).map(|k| (i, k)),
                _ => None,
            })?;
            let mut items = items.clone();
            let BoundExpr::Pol(qp) = &items[index] else {
                return None;
            };
            items[index] = BoundExpr::Pol(without(qp, &k));
            Some((k, sum_of(items)))
        }
        _ => None,
    }
}

impl LikeTerm {
    /// `coefficient · core` written back: a power's coefficient that is a power of its base
    /// goes into the exponent (`1·2^n`, `2·2^(n - 1) = 2^n`); otherwise the exponent keeps its
    /// first shift and the coefficient what is left.
    fn into_expr(self) -> BoundExpr {
        let LikeTerm {
            coefficient,
            core,
            shift,
        } = self;
        let BoundExpr::Pow { base, exponent } = core else {
            return scaled(coefficient, core);
        };
        let (factor, shift) = match exact_log(&base, &coefficient) {
            Some(k) => (Rat::one(), k),
            None => (
                coefficient / power(&base, &shift).unwrap_or_else(|_| Rat::one()),
                shift,
            ),
        };
        let exponent = sum_of(vec![
            *exponent,
            BoundExpr::pol(Polynomial::constant(Rat::from(shift))),
        ]);
        scaled(factor, power_of(&base, exponent))
    }
}

/// `c · expr`, without the factor when it is 1.
fn scaled(c: Rat, expr: BoundExpr) -> BoundExpr {
    if c.is_one() {
        expr
    } else {
        product_of(vec![BoundExpr::pol(Polynomial::constant(c)), expr])
    }
}

/// The integer `k` with `base^k = value`, if there is one (`base >= 2`).
fn exact_log(base: &Int, value: &Rat) -> Option<Int> {
    if !value.is_positive() {
        return None;
    }
    let (whole, inverse) = if value.denom() == Int::from(1) {
        (value.numer(), false)
    } else if value.numer() == Int::from(1) {
        (value.denom(), true)
    } else {
        return None;
    };
    let mut k = 0i64;
    let mut rest = whole;
    while rest > Int::from(1) {
        if (&rest % base) != Int::from(0) {
            return None;
        }
        rest /= base;
        k += 1;
    }
    Some(Int::from(if inverse { -k } else { k }))
}

fn max_of(items: Vec<BoundExpr>, domain: &ParamDomain) -> BoundExpr {
    let mut operands: Vec<BoundExpr> = Vec::new();
    for item in items {
        match item {
            BoundExpr::Inf => return BoundExpr::Inf,
            BoundExpr::Max(inner) => operands.extend(inner),
            other if !operands.contains(&other) => operands.push(other),
            _ => {}
        }
    }
    if let Some((common, rest)) = factor_common(&operands) {
        return sum_of(vec![BoundExpr::pol(common), max_of(rest, domain)]);
    }
    if let Some(joined) = disjoint_cases_joined(&operands, domain) {
        return joined;
    }
    // A constant below a power that the domain keeps above it (`max(0, 2^(l - 1) - 1)` for
    // `l >= 1`) is never the maximum.
    let dominated: Vec<bool> = operands
        .iter()
        .map(|operand| {
            operand
                .as_polynomial()
                .and_then(Polynomial::as_constant)
                .is_some_and(|c| operands.iter().any(|o| power_at_least(o, &c, domain)))
        })
        .collect();
    let mut dominated = dominated.into_iter();
    operands.retain(|_| !dominated.next().unwrap_or(false));
    let (polys, others): (Vec<BoundExpr>, Vec<BoundExpr>) = operands
        .into_iter()
        .partition(|e| e.as_polynomial().is_some());
    let polys: Vec<Polynomial> = polys
        .iter()
        .filter_map(BoundExpr::as_polynomial)
        .cloned()
        .collect();
    if others.is_empty() {
        return resolve_max(polys, domain);
    }
    let mut kept: Vec<BoundExpr> = prune(polys, domain)
        .into_iter()
        .map(BoundExpr::pol)
        .collect();
    kept.extend(others);
    if kept.len() == 1 {
        kept.remove(0)
    } else {
        BoundExpr::Max(kept)
    }
}

/// The polynomial part of a `Max` operand (`Pol`, or the leading `Pol` of a `Sum`).
fn polynomial_part(expr: &BoundExpr) -> Option<(Polynomial, Vec<BoundExpr>)> {
    match expr {
        BoundExpr::Pol(qp) => qp.as_polynomial().map(|p| (p.clone(), Vec::new())),
        BoundExpr::Sum(items) => match items.split_first() {
            Some((BoundExpr::Pol(qp), rest)) => {
                qp.as_polynomial().map(|p| (p.clone(), rest.to_vec()))
            }
            _ => Some((Polynomial::zero(), items.clone())),
        },
        _ => Some((Polynomial::zero(), vec![expr.clone()])),
    }
}

/// `c` and the operands minus `c`, where `c` takes each monomial's smallest coefficient over
/// the operands (0 where one lacks it); `None` when `c` is zero.
fn factor_common(operands: &[BoundExpr]) -> Option<(Polynomial, Vec<BoundExpr>)> {
    if operands.len() < 2 {
        return None;
    }
    let parts: Vec<(Polynomial, Vec<BoundExpr>)> = operands
        .iter()
        .map(polynomial_part)
        .collect::<Option<_>>()?;
    let mut monomials: Vec<Monomial<String>> = parts
        .iter()
        .flat_map(|(p, _)| p.terms().map(|(m, _)| m.clone()))
        .collect();
    monomials.sort();
    monomials.dedup();
    let coefficient = |p: &Polynomial, m: &Monomial<String>| {
        p.terms()
            .find(|(n, _)| *n == m)
            .map(|(_, c)| c.clone())
            .unwrap_or_default()
    };
    let common = Polynomial::from_terms(monomials.iter().map(|m| {
        let smallest = parts
            .iter()
            .map(|(p, _)| coefficient(p, m))
            .min()
            .unwrap_or_default();
        (m.clone(), smallest)
    }));
    if common.is_zero() {
        return None;
    }
    let rest = parts
        .into_iter()
        .map(|(p, others)| {
            let mut items = vec![BoundExpr::pol(&p - &common)];
            items.extend(others);
            sum_of(items)
        })
        .collect();
    Some((common, rest))
}

/// Candidates without those another candidate is proved to dominate on `domain`.
pub fn prune(candidates: Vec<Polynomial>, domain: &ParamDomain) -> Vec<Polynomial> {
    let mut unique: Vec<Polynomial> = Vec::new();
    for c in candidates {
        if !unique.contains(&c) {
            unique.push(c);
        }
    }
    // Trying the candidates that look largest first makes most later ones fall at once.
    if let Some(point) = domain.sample_points().last() {
        unique.sort_by_key(|p| std::cmp::Reverse(value_at(p, point)));
    }
    let mut kept: Vec<Polynomial> = Vec::new();
    let mut comparisons = 0usize;
    for candidate in unique {
        // Past the budget the rest are kept unpruned: their maximum is still a bound.
        if comparisons > MAX_COMPARISONS {
            kept.push(candidate);
            continue;
        }
        comparisons += 2 * kept.len();
        if kept.iter().any(|k| at_least(k, &candidate, domain)) {
            continue;
        }
        kept.retain(|k| !at_least(&candidate, k, domain));
        kept.push(candidate);
    }
    kept
}

/// The maximum of polynomial candidates on `domain`: one polynomial, or a `Cases` split of the
/// domain where single candidates win, or what is left as a `Max`.
pub fn resolve_max(candidates: Vec<Polynomial>, domain: &ParamDomain) -> BoundExpr {
    resolve_max_within(candidates, domain, 0)
}

fn resolve_max_within(
    candidates: Vec<Polynomial>,
    domain: &ParamDomain,
    depth: usize,
) -> BoundExpr {
    let survivors = prune(candidates, domain);
    match survivors.len() {
        0 => return BoundExpr::zero(),
        1 => return BoundExpr::pol(survivors[0].clone()),
        _ => {}
    }
    if depth < MAX_SPLIT_DEPTH {
        for (i, a) in survivors.iter().enumerate() {
            for b in &survivors[i + 1..] {
                if let Some(split) = split_on_difference(&(a - b), &survivors, domain, depth) {
                    return split;
                }
            }
        }
    }
    BoundExpr::Max(survivors.into_iter().map(BoundExpr::pol).collect())
}

fn split_on_difference(
    diff: &Polynomial,
    candidates: &[Polynomial],
    domain: &ParamDomain,
    depth: usize,
) -> Option<BoundExpr> {
    if let Some(mut form) = linear_to_affine(diff, domain.params()) {
        // Oriented so the guard reads "parameter large" (`n >= 250`), the default small.
        let diff = if form
            .support()
            .next()
            .is_some_and(|i| form.coeff(i).is_negative())
        {
            form = form.neg();
            -diff
        } else {
            diff.clone()
        };
        let (inside, outside) = domain.split(&Constraint::ge(form));
        let arm = Arm {
            guard: Guard::from_atoms(vec![Atom::ge(diff.clone())]),
            expr: resolve_max_within(candidates.to_vec(), &inside, depth + 1),
        };
        let default = resolve_max_within(candidates.to_vec(), &outside, depth + 1);
        return Some(cases(vec![arm], default));
    }
    let vars = diff.variables();
    let [var] = vars.as_slice() else { return None };
    let (from, to) = domain.integer_interval(var);
    let runs = without_zero_runs(
        UnivariatePolynomial::from_polynomial(diff, var)?.integer_sign_runs(from.clone(), to),
    );
    if runs.len() < 2 || runs.len() > MAX_RUNS {
        return None;
    }
    let piece = |run: &SignRun| {
        let guard = interval_guard(var, run, from.as_ref());
        let piece_domain = domain.with_guard(&interval_guard(var, run, None));
        (
            guard,
            resolve_max_within(candidates.to_vec(), &piece_domain, depth + 1),
        )
    };
    let (last, first) = runs.split_last()?;
    let arms = first.iter().map(|run| {
        let (guard, expr) = piece(run);
        Arm { guard, expr }
    });
    let arms: Vec<Arm> = arms.collect();
    Some(cases(arms, piece(last).1))
}

/// Zero runs joined to the run before them (or after, for a leading one): at a zero both
/// candidates are equal, so either side's winner is exact there.
fn without_zero_runs(runs: Vec<SignRun>) -> Vec<SignRun> {
    let mut joined: Vec<SignRun> = Vec::new();
    let mut pending_from: Option<Option<Int>> = None;
    for run in runs {
        if run.sign == 0 {
            match joined.last_mut() {
                Some(last) => last.to = run.to,
                None => pending_from = Some(run.from),
            }
            continue;
        }
        let from = pending_from.take().unwrap_or(run.from);
        match joined.last_mut() {
            Some(last) if last.sign == run.sign => last.to = run.to,
            _ => joined.push(SignRun {
                from,
                to: run.to,
                sign: run.sign,
            }),
        }
    }
    joined
}

/// `from <= var <= to`, leaving out a lower end equal to `known_from` (already implied).
fn interval_guard(var: &str, run: &SignRun, known_from: Option<&Int>) -> Guard {
    let v = Polynomial::var(var.to_string());
    let mut atoms = Vec::new();
    if let Some(from) = &run.from
        && known_from != Some(from)
    {
        atoms.push(Atom::ge(&v - &Polynomial::constant(Rat::from(from))));
    }
    if let Some(to) = &run.to {
        atoms.push(Atom::ge(&Polynomial::constant(Rat::from(to)) - &v));
    }
    Guard::from_atoms(atoms)
}

fn cases_of(arms: &[Arm], default: &BoundExpr, domain: &ParamDomain) -> BoundExpr {
    let mut kept: Vec<Arm> = Vec::new();
    // The points that reach the next arm: the domain minus the single-atom guards seen so far.
    let mut rest = domain.clone();
    for arm in arms {
        let arm_domain = rest.with_guard(&arm.guard);
        if arm_domain.is_empty() {
            continue;
        }
        let expr = simplify_in(&arm.expr, &arm_domain);
        let atoms: Vec<Atom> = arm
            .guard
            .atoms
            .iter()
            .filter(|a| !rest.implies(a))
            .cloned()
            .collect();
        if atoms.is_empty() {
            return cases(kept, expr);
        }
        if let [single] = atoms.as_slice()
            && single.rel == Relation::Ge
            && let Some(constraint) = rest.constraint_of(single)
        {
            rest = constraint
                .integer_complement()
                .into_iter()
                .fold(rest, |d, c| d.with_constraint(c));
        }
        kept.push(Arm {
            guard: Guard::from_atoms(atoms),
            expr,
        });
    }
    if rest.is_empty()
        && let Some(last) = kept.pop()
    {
        return cases(kept, last.expr);
    }
    cases(kept, simplify_in(default, &rest))
}

/// `Cases` without its trivial forms: no arm is the default; an arm whose guard is `true`
/// ends the list; a trailing arm equal to the default goes; a `Cases` default is flattened
/// into the list (`cases(a -> x; otherwise -> cases(b -> y; otherwise -> z))` is
/// `cases(a -> x; b -> y; otherwise -> z)`).
pub fn cases(mut arms: Vec<Arm>, default: BoundExpr) -> BoundExpr {
    if let Some(always) = arms.iter().position(|arm| arm.guard.atoms.is_empty()) {
        let taken = arms[always].expr.clone();
        arms.truncate(always);
        return cases(arms, taken);
    }
    let default = match default {
        BoundExpr::Cases {
            arms: inner,
            default,
        } if !arms.is_empty() => {
            arms.extend(inner);
            *default
        }
        other => other,
    };
    while arms.last().is_some_and(|arm| arm.expr == default) {
        arms.pop();
    }
    if arms.is_empty() {
        return default;
    }
    BoundExpr::Cases {
        arms,
        default: Box::new(default),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn mc() -> Polynomial {
        Polynomial::var("mc".to_string())
    }
    fn k(v: i64) -> Polynomial {
        Polynomial::constant(v)
    }

    #[test]
    fn running_example_tree_reduces_to_cases_split_at_six() {
        // Tree 1 of §7.4.2 with its Cases over mc >= 1.
        let at_least_one = Guard::from_atoms(vec![Atom::ge(mc() - k(1))]);
        let rsize_m3 = BoundExpr::Cases {
            arms: vec![Arm {
                guard: at_least_one.clone(),
                expr: BoundExpr::pol(mc() + k(1)),
            }],
            default: Box::new(BoundExpr::zero()),
        };
        let tree = BoundExpr::Sum(vec![
            BoundExpr::zero(),
            BoundExpr::Max(vec![
                BoundExpr::Sum(vec![
                    BoundExpr::pol(&mc() * &mc() + mc().scale(&Rat::from(2))),
                    rsize_m3,
                    BoundExpr::zero(),
                ]),
                BoundExpr::Sum(vec![
                    BoundExpr::pol(mc().scale(&Rat::from(6))),
                    BoundExpr::pol(mc().scale(&Rat::from(3)) + k(1)),
                    BoundExpr::zero(),
                ]),
            ]),
        ]);
        let reduced = simplify(&tree, &at_least_one);
        assert_eq!(
            reduced.to_readable(),
            "3*mc + 1 + cases(mc <= 6 -> 6*mc; otherwise -> mc^2)"
        );
        let at = |v: i64| {
            reduced
                .eval(&BTreeMap::from([("mc".to_string(), Rat::from(v))]))
                .unwrap()
        };
        assert_eq!(at(3), membound_polyhedra::Value::Finite(Rat::from(28)));
        assert_eq!(at(7), membound_polyhedra::Value::Finite(Rat::from(71)));
    }

    #[test]
    fn linear_difference_splits_at_250() {
        let n = Polynomial::var("n".to_string());
        let a = &n * &n + n.scale(&Rat::from(3)) - k(500);
        let b = &n * &n + n.clone();
        let domain = ParamDomain::universe(vec!["n".to_string()]).with(&Atom::ge(&n - &k(4)));
        let resolved = resolve_max(vec![a, b], &domain);
        assert_eq!(
            resolved.to_readable(),
            "cases(n >= 250 -> n^2 + 3*n - 500; otherwise -> n^2 + n)"
        );
    }

    #[test]
    fn dominated_candidates_fall_and_always_taken_arms_become_the_default() {
        let n = Polynomial::var("n".to_string());
        let domain = ParamDomain::universe(vec!["n".to_string()]).with(&Atom::ge(&n - &k(1)));
        let candidates = vec![
            &n * &n + k(1),
            (&n * &n).scale(&Rat::new(1, 2).unwrap()) + k(1),
            n.clone() + k(1),
        ];
        assert_eq!(prune(candidates, &domain), vec![&n * &n + k(1)]);
        let expr = BoundExpr::Cases {
            arms: vec![Arm {
                guard: Guard::from_atoms(vec![Atom::ge(n.clone())]),
                expr: BoundExpr::pol(n.clone()),
            }],
            default: Box::new(BoundExpr::zero()),
        };
        assert_eq!(simplify_in(&expr, &domain), BoundExpr::pol(n));
    }
    fn two_to(exponent: BoundExpr) -> BoundExpr {
        BoundExpr::pow(2, exponent).expect("base 2")
    }

    fn value_at_n(expr: &BoundExpr, n: i64) -> membound_polyhedra::Value {
        expr.eval(&BTreeMap::from([("n".to_string(), Rat::from(n))]))
            .unwrap()
    }

    #[test]
    fn equal_powers_add_up_into_one_power() {
        let n = Polynomial::var("n".to_string());
        let half = two_to(BoundExpr::pol(&n - &k(1)));
        let sum = BoundExpr::Sum(vec![half.clone(), half, BoundExpr::pol(k(-1))]);
        let simplified = simplify(&sum, &Guard::always());
        assert_eq!(simplified.to_readable(), "2^n - 1");
        for v in [0, 1, 5, 17] {
            assert_eq!(value_at_n(&simplified, v), value_at_n(&sum, v), "n={v}");
        }
        // Four of 2^(n - 2) and half of 2^(n + 1): 2^(n + 1) in all.
        let quarter = two_to(BoundExpr::pol(&n - &k(2)));
        let sum = BoundExpr::Sum(vec![
            BoundExpr::Mul(vec![BoundExpr::pol(k(4)), quarter]),
            BoundExpr::Mul(vec![
                BoundExpr::pol(Polynomial::constant(Rat::new(1, 2).unwrap())),
                two_to(BoundExpr::pol(&n + &k(1))),
            ]),
        ]);
        assert_eq!(simplify(&sum, &Guard::always()).to_readable(), "2^(n + 1)");
    }

    #[test]
    fn a_constant_factor_distributes_over_a_sum_so_like_terms_meet() {
        // 1/3*4^(floor_log2(n) + 1) + 3*(1/3*4^(floor_log2(n) + 1) - 1/3) + 2/3: a 4-ary
        // tree's inner and leaf activations.
        let n = Polynomial::var("n".to_string());
        let levels = BoundExpr::Sum(vec![
            BoundExpr::log2(BoundExpr::pol(n)),
            BoundExpr::pol(k(1)),
        ]);
        let power = BoundExpr::pow(4, levels).expect("base 4");
        let third = || BoundExpr::pol(Polynomial::constant(Rat::new(1, 3).unwrap()));
        let inner = BoundExpr::Sum(vec![
            BoundExpr::Mul(vec![third(), power.clone()]),
            BoundExpr::pol(Polynomial::constant(Rat::new(-1, 3).unwrap())),
        ]);
        let sum = BoundExpr::Sum(vec![
            BoundExpr::Mul(vec![third(), power]),
            BoundExpr::Mul(vec![BoundExpr::pol(k(3)), inner]),
            BoundExpr::pol(Polynomial::constant(Rat::new(2, 3).unwrap())),
        ]);
        let simplified = simplify(&sum, &Guard::always());
        assert_eq!(simplified.to_readable(), "4/3*4^(floor_log2(n) + 1) - 1/3");
        for v in [1, 2, 3, 8, 100] {
            assert_eq!(value_at_n(&simplified, v), value_at_n(&sum, v), "n={v}");
        }
    }

    #[test]
    fn equal_cases_add_up_and_an_unbounded_term_never_cancels() {
        let n = Polynomial::var("n".to_string());
        let positive = Guard::from_atoms(vec![Atom::ge(&n - &k(1))]);
        let term = |expr: BoundExpr| BoundExpr::Cases {
            arms: vec![Arm {
                guard: positive.clone(),
                expr,
            }],
            default: Box::new(BoundExpr::zero()),
        };
        let finite = term(BoundExpr::pol(n.clone()));
        let sum = BoundExpr::Sum(vec![finite.clone(), finite]);
        assert_eq!(
            simplify(&sum, &Guard::always()).to_readable(),
            "2*cases(n >= 1 -> n; otherwise -> 0)"
        );
        // x - x is 0 only where x is finite.
        let unbounded = term(BoundExpr::Inf);
        let cancelled = BoundExpr::Sum(vec![
            unbounded.clone(),
            BoundExpr::Mul(vec![BoundExpr::pol(k(-1)), unbounded]),
        ]);
        let simplified = simplify(&cancelled, &Guard::always());
        assert_eq!(
            value_at_n(&simplified, 3),
            membound_polyhedra::Value::Infinite
        );
    }

    #[test]
    fn a_guard_shared_below_a_sum_is_taken_out_and_the_value_kept() {
        let l = Polynomial::var("l".to_string());
        let at_two = Guard::from_atoms(vec![Atom::ge(&l - &k(2))]);
        let guarded = |expr: BoundExpr| BoundExpr::Cases {
            arms: vec![Arm {
                guard: at_two.clone(),
                expr,
            }],
            default: Box::new(BoundExpr::zero()),
        };
        let third = BoundExpr::pol(Polynomial::constant(Rat::new(1, 3).unwrap()));
        // cases(l >= 2 -> 1/3)*4^cases(l >= 2 -> l - 1) + cases(l >= 2 -> -1/3), as the
        // bound of a four-ary tree builder's calls reads before it is simplified.
        let tangled = BoundExpr::Sum(vec![
            BoundExpr::Mul(vec![
                guarded(third.clone()),
                BoundExpr::pow(4, guarded(BoundExpr::pol(&l - &k(1)))).unwrap(),
            ]),
            guarded(BoundExpr::pol(Polynomial::constant(
                Rat::new(-1, 3).unwrap(),
            ))),
        ]);
        let simplified = simplify(&tangled, &Guard::always());
        assert_eq!(
            simplified.to_readable(),
            "cases(l >= 2 -> 1/3*4^(l - 1) - 1/3; otherwise -> 0)"
        );
        for n in -2..8 {
            let point = BTreeMap::from([("l".to_string(), Rat::from(n))]);
            assert_eq!(
                simplified.eval(&point).unwrap(),
                tangled.eval(&point).unwrap(),
                "l = {n}"
            );
        }
        // A power the domain keeps at or above 1 leaves 0 out of a maximum.
        let power = sum_of(vec![
            BoundExpr::pow(2, BoundExpr::pol(&l - &k(1))).unwrap(),
            BoundExpr::pol(k(-1)),
        ]);
        let max = BoundExpr::Max(vec![BoundExpr::zero(), power.clone()]);
        let at_one = Guard::from_atoms(vec![Atom::ge(&l - &k(1))]);
        assert_eq!(simplify(&max, &at_one), power);
        assert_eq!(
            simplify(&max, &Guard::always()).to_readable(),
            "max(0, 2^(l - 1) - 1)"
        );
        // The maximum of cases on disjoint guards is one case per guard.
        let on = |guard: Atom, expr: Polynomial| BoundExpr::Cases {
            arms: vec![Arm {
                guard: Guard::from_atoms(vec![guard]),
                expr: BoundExpr::pol(expr),
            }],
            default: Box::new(BoundExpr::zero()),
        };
        let pieces = BoundExpr::Max(vec![
            on(Atom::ge(&l - &k(3)), &l - &k(1)),
            on(Atom::eq(&l - &k(2)), k(1)),
        ]);
        assert_eq!(
            simplify(&pieces, &Guard::always()).to_readable(),
            "cases(l >= 3 -> l - 1; l = 2 -> 1; otherwise -> 0)"
        );
    }
}

//! Quantities as bound expressions: the count of an integer set turned into a `BoundExpr`, sums
//! of scaled counts, and the sets whose integer points are an allocation's array cells or
//! aligned size units.

use membound_bernstein::simplify::simplify_in;
use membound_bernstein::{Arm, Atom, BoundExpr, Guard, ParamDomain, guard::affine_to_linear};
use membound_polyhedra::{
    Affine, BasicSet, Constraint, Count, CountError, Int, QuasiPolynomial, Rat, Relation, Set,
    count,
};

/// A number of objects, bytes or executions: exact where counting is, ∞ where the set is
/// unbounded or could not be counted.
pub type Quantity = BoundExpr;

/// The number of integer points of `set` as an expression in its parameters (∞ for an
/// unbounded set); an error when the counter cannot count it exactly.
pub fn count_quantity(set: &Set) -> Result<Quantity, CountError> {
    Ok(match count(set)? {
        Count::Finite(pw) => sum_of_pieces(
            pw.pieces
                .iter()
                .map(|piece| (&piece.domain, piece.qp.clone())),
        ),
        Count::Infinite => BoundExpr::Inf,
    })
}

/// `Σ factor · quantity`, with ∞ absorbing.
pub fn scaled_sum(terms: impl IntoIterator<Item = (Rat, Quantity)>) -> Quantity {
    let mut items = Vec::new();
    for (factor, quantity) in terms {
        if factor.is_zero() || quantity.is_zero() {
            continue;
        }
        let scaled = scale(&quantity, &factor);
        match scaled {
            BoundExpr::Inf => return BoundExpr::Inf,
            BoundExpr::Sum(inner) => items.extend(inner),
            other => items.push(other),
        }
    }
    merge_cases(items)
}

fn scale(quantity: &Quantity, factor: &Rat) -> Quantity {
    match quantity {
        BoundExpr::Pol(qp) => BoundExpr::Pol(qp.scale(factor)),
        BoundExpr::Sum(items) => BoundExpr::Sum(items.iter().map(|e| scale(e, factor)).collect()),
        BoundExpr::Max(items) => BoundExpr::Max(items.iter().map(|e| scale(e, factor)).collect()),
        BoundExpr::Cases { arms, default } => BoundExpr::Cases {
            arms: arms
                .iter()
                .map(|arm| Arm {
                    guard: arm.guard.clone(),
                    expr: scale(&arm.expr, factor),
                })
                .collect(),
            default: Box::new(scale(default, factor)),
        },
        BoundExpr::Inf => BoundExpr::Inf,
        BoundExpr::Mul(_) | BoundExpr::Pow { .. } | BoundExpr::Log2 { .. } => BoundExpr::Mul(vec![
            BoundExpr::Pol(QuasiPolynomial::constant(factor.clone())),
            quantity.clone(),
        ]),
    }
}

/// A sum of pieces, each its quasi-polynomial on its domain and 0 elsewhere (isl's reading).
fn sum_of_pieces<'s>(
    pieces: impl IntoIterator<Item = (&'s Set, membound_polyhedra::QuasiPolynomial)>,
) -> Quantity {
    let items = pieces
        .into_iter()
        .map(|(domain, qp)| on_domain(domain, BoundExpr::Pol(qp)))
        .collect();
    merge_cases(items)
}

/// `expr` on `domain`, 0 elsewhere. A part of the domain with integer divisions or
/// existential variables is widened to its constraints without them and `expr` to
/// `max(expr, 0)` there: the value only grows, which keeps sums of counts sound.
fn on_domain(domain: &Set, expr: Quantity) -> Quantity {
    let names = &domain.space.params;
    let mut arms = Vec::new();
    for part in &domain.parts {
        let (guard, widened) = guard_of(part, names);
        let value = if widened {
            BoundExpr::Max(vec![expr.clone(), BoundExpr::zero()])
        } else {
            expr.clone()
        };
        arms.push(Arm { guard, expr: value });
    }
    if arms.len() == 1 && arms[0].guard.atoms.is_empty() {
        return arms.remove(0).expr;
    }
    if let [arm] = arms.as_mut_slice() {
        tighten_lower_bound(arm);
    }
    BoundExpr::Cases {
        arms,
        default: Box::new(BoundExpr::zero()),
    }
}

/// How far a lower bound is raised while the value there is 0.
const TIGHTENING_STEPS: usize = 4;

/// For an arm `p + c >= 0 -> q(p)` in one parameter, raises the bound while `q` is 0 at it:
/// the value of the cases (0 outside the arm) does not change, and counts of nested loops then
/// share the guard `p >= 0` and add up into one arm.
fn tighten_lower_bound(arm: &mut Arm) {
    let BoundExpr::Pol(qp) = &arm.expr else {
        return;
    };
    let variables = qp.variables();
    let ([variable], [atom]) = (variables.as_slice(), arm.guard.atoms.as_mut_slice()) else {
        return;
    };
    if atom.rel != Relation::Ge || atom.expr.variables() != [variable.clone()] {
        return;
    }
    let Some(form) =
        membound_bernstein::guard::linear_to_affine(&atom.expr, std::slice::from_ref(variable))
    else {
        return;
    };
    if !form.coeff(0).is_one() || !form.constant.is_integer() {
        return;
    }
    let mut lowest = -form.constant.clone();
    for _ in 0..TIGHTENING_STEPS {
        if !qp.eval(&|_| lowest.clone()).is_zero() {
            break;
        }
        lowest += Rat::from(1);
    }
    let tightened = Affine::var(0).sub(&Affine::constant(lowest));
    *atom = Atom::ge(affine_to_linear(&tightened, std::slice::from_ref(variable)));
}

/// The guard of a basic set over parameters, and whether constraints on local variables were
/// dropped to write it.
fn guard_of(part: &BasicSet, names: &[String]) -> (Guard, bool) {
    let columns = names.len() + part.n_dims();
    let mut widened = false;
    let mut atoms = Vec::new();
    // A division's defining inequalities hold for every value of the other columns, so only
    // the constraints proper decide whether the guard needs its locals.
    for constraint in &part.constraints {
        if constraint.expr.support().any(|c| c >= columns) {
            widened = true;
            continue;
        }
        let linear = affine_to_linear(&constraint.expr, names);
        atoms.push(match constraint.rel {
            Relation::Ge => Atom::ge(linear),
            Relation::Eq => Atom::eq(linear),
        });
    }
    (Guard::from_atoms(atoms), widened)
}

/// Adds the leaves of cases with the same guards together, so a sum over many sites that share
/// their chambers reads as one `cases(…)`.
fn merge_cases(items: Vec<Quantity>) -> Quantity {
    let mut merged: Vec<Quantity> = Vec::new();
    for item in items {
        if item.is_zero() {
            continue;
        }
        if let Some((index, sum)) = merged
            .iter()
            .enumerate()
            .find_map(|(index, existing)| Some((index, leafwise_sum(existing, &item)?)))
        {
            merged[index] = sum;
        } else {
            merged.push(item);
        }
    }
    match merged.len() {
        0 => BoundExpr::zero(),
        1 => merged.remove(0),
        _ => BoundExpr::Sum(merged),
    }
}

/// `a + b` as one expression of their common shape: two polynomials added, or two cases with
/// the same guards whose arms (and defaults) add up. `None` when the shapes differ.
fn leafwise_sum(a: &Quantity, b: &Quantity) -> Option<Quantity> {
    let params = parameters_of(&[a, b]);
    leafwise(a, b, &ParamDomain::universe(params), &add_leaves, false)
}

/// The sum of two leaves (where they apply does not matter to a sum).
fn add_leaves(x: &QuasiPolynomial, y: &QuasiPolynomial, _: &ParamDomain) -> Option<Quantity> {
    Some(BoundExpr::Pol(x.add(y)))
}

/// The maximum of quantities that are never negative (counts, sizes, and upper bounds of
/// them), 0 for none. Zeros are dropped, and cases with the same guards merge into one whose
/// arms are the maxima of theirs, each resolved on its arm's guard where one polynomial
/// dominates: `max(cases(g -> a; 0), c + cases(g -> b; 0)) = cases(g -> max(a, b + c); c)`.
pub fn maximum(items: Vec<Quantity>) -> Quantity {
    let items: Vec<Quantity> = items.iter().map(polynomials_into_cases).collect();
    let params = parameters_of(&items.iter().collect::<Vec<_>>());
    let universe = ParamDomain::universe(params);
    let larger = |x: &QuasiPolynomial, y: &QuasiPolynomial, domain: &ParamDomain| {
        let max = BoundExpr::Max(vec![BoundExpr::Pol(x.clone()), BoundExpr::Pol(y.clone())]);
        Some(simplify_in(&max, domain))
    };
    let mut merged: Vec<Quantity> = Vec::new();
    for item in items {
        if item.is_zero() {
            continue;
        }
        if let Some((index, max)) = merged.iter().enumerate().find_map(|(index, existing)| {
            Some((index, leafwise(existing, &item, &universe, &larger, true)?))
        }) {
            merged[index] = max;
        } else {
            merged.push(item);
        }
    }
    match merged.len() {
        0 => BoundExpr::zero(),
        1 => merged.remove(0),
        _ => simplify_in(&BoundExpr::Max(merged), &universe),
    }
}

/// A quantity that is never negative rebuilt bottom-up with [`maximum`] and [`scaled_sum`]:
/// `max(0, x)` is `x` and cases of the same guards merge, which keeps bounds readable.
pub fn tidy(quantity: &Quantity) -> Quantity {
    let all = |items: &[Quantity]| items.iter().map(tidy).collect::<Vec<_>>();
    match quantity {
        BoundExpr::Max(items) => maximum(all(items)),
        BoundExpr::Sum(items) => scaled_sum(all(items).into_iter().map(|q| (Rat::from(1), q))),
        BoundExpr::Cases { arms, default } => BoundExpr::Cases {
            arms: arms
                .iter()
                .map(|arm| Arm {
                    guard: arm.guard.clone(),
                    expr: tidy(&arm.expr),
                })
                .collect(),
            default: Box::new(tidy(default)),
        },
        BoundExpr::Pol(_)
        | BoundExpr::Inf
        | BoundExpr::Mul(_)
        | BoundExpr::Pow { .. }
        | BoundExpr::Log2 { .. } => quantity.clone(),
    }
}

/// Every parameter some of `items` mention.
fn parameters_of(items: &[&Quantity]) -> Vec<String> {
    let mut params: Vec<String> = items.iter().flat_map(|q| q.params()).collect();
    params.sort();
    params.dedup();
    params
}

/// `p1 + … + cases(g -> a; d)` as `cases(g -> a + p1 + …; d + p1 + …)`: one shape that
/// [`leafwise`] can merge with other cases.
fn polynomials_into_cases(quantity: &Quantity) -> Quantity {
    let BoundExpr::Sum(items) = quantity else {
        return quantity.clone();
    };
    let (cases, polynomials): (Vec<&Quantity>, Vec<&Quantity>) = items
        .iter()
        .partition(|item| matches!(item, BoundExpr::Cases { .. }));
    let [single] = cases.as_slice() else {
        return quantity.clone();
    };
    polynomials
        .iter()
        .try_fold((*single).clone(), |sum, p| {
            leafwise(
                &sum,
                p,
                &ParamDomain::universe(Vec::new()),
                &add_leaves,
                true,
            )
        })
        .unwrap_or_else(|| quantity.clone())
}

/// `a` and `b` combined leaf by leaf where they have the same shape: `leaf` on two
/// polynomials (given the domain where they apply), arm by arm on two cases with the same
/// guards, and, when `broadcast`, a polynomial with every arm of a cases. `None` when the
/// shapes differ.
fn leafwise(
    a: &Quantity,
    b: &Quantity,
    domain: &ParamDomain,
    leaf: &dyn Fn(&QuasiPolynomial, &QuasiPolynomial, &ParamDomain) -> Option<Quantity>,
    broadcast: bool,
) -> Option<Quantity> {
    match (a, b) {
        (BoundExpr::Pol(x), BoundExpr::Pol(y)) => leaf(x, y, domain),
        (BoundExpr::Pol(_), BoundExpr::Cases { arms, default })
        | (BoundExpr::Cases { arms, default }, BoundExpr::Pol(_))
            if broadcast =>
        {
            let polynomial = if matches!(a, BoundExpr::Pol(_)) { a } else { b };
            let arms = arms
                .iter()
                .map(|arm| {
                    let guarded = domain.with_guard(&arm.guard);
                    Some(Arm {
                        guard: arm.guard.clone(),
                        expr: leafwise(&arm.expr, polynomial, &guarded, leaf, broadcast)?,
                    })
                })
                .collect::<Option<Vec<_>>>()?;
            Some(BoundExpr::Cases {
                arms,
                default: Box::new(leafwise(default, polynomial, domain, leaf, broadcast)?),
            })
        }
        (
            BoundExpr::Cases {
                arms: a,
                default: da,
            },
            BoundExpr::Cases {
                arms: b,
                default: db,
            },
        ) if a.len() == b.len() => {
            let arms = a
                .iter()
                .zip(b)
                .map(|(x, y)| {
                    (x.guard == y.guard).then_some(())?;
                    Some(Arm {
                        guard: x.guard.clone(),
                        expr: leafwise(
                            &x.expr,
                            &y.expr,
                            &domain.with_guard(&x.guard),
                            leaf,
                            broadcast,
                        )?,
                    })
                })
                .collect::<Option<Vec<_>>>()?;
            Some(BoundExpr::Cases {
                arms,
                default: Box::new(leafwise(da, db, domain, leaf, broadcast)?),
            })
        }
        _ => None,
    }
}

/// `set` with new dimensions `names` appended, constrained by `constraints` (over the
/// columns params ++ old dims ++ new dims).
pub fn extend_set(set: &Set, names: &[String], constraints: &[Constraint]) -> Set {
    constraints
        .iter()
        .fold(set.append_dims(names), |extended, c| {
            extended.constrain(c.clone())
        })
}

/// `lower <= column` as a constraint.
pub fn at_least(column: usize, lower: i64) -> Constraint {
    Constraint::ge(Affine::var(column).sub(&Affine::constant(Rat::from(Int::from(lower)))))
}

/// `column <= bound`.
pub fn at_most(column: usize, bound: &Affine) -> Constraint {
    Constraint::ge(bound.sub(&Affine::var(column)))
}

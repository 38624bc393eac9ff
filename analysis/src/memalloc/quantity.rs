//! Quantities as bound expressions: the count of an integer set turned into a `BoundExpr`, sums
//! of scaled counts, and the sets whose integer points are an allocation's array cells or
//! aligned size units.

use membound_bernstein::simplify::{cases, simplify_in};
use membound_bernstein::{Arm, Atom, BoundExpr, Guard, ParamDomain, guard::affine_to_linear};
use membound_polyhedra::{
    Affine, BasicSet, Constraint, Count, CountError, Int, Polynomial, QuasiPolynomial, Rat,
    Relation, Set, count,
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
        _ if *factor == Rat::from(1) => quantity.clone(),
        // The factor joins a product's polynomial factor (`product_of` multiplies them).
        BoundExpr::Mul(_) | BoundExpr::Pow { .. } | BoundExpr::Log2 { .. } => {
            membound_bernstein::simplify::product_of(vec![
                BoundExpr::Pol(QuasiPolynomial::constant(factor.clone())),
                quantity.clone(),
            ])
        }
    }
}

/// A piecewise quasi-polynomial (0 outside its pieces) as a bound expression.
pub fn pw_quantity(pw: &membound_polyhedra::PiecewiseQuasiPolynomial) -> Quantity {
    sum_of_pieces(
        pw.pieces
            .iter()
            .map(|piece| (&piece.domain, piece.qp.clone())),
    )
}

/// A sum of pieces, each its quasi-polynomial on its domain and 0 elsewhere (isl's reading).
/// `pw · expr`: each piece's quasi-polynomial times `expr` on the piece's domain.
pub fn pieces_times(
    pw: &membound_polyhedra::PiecewiseQuasiPolynomial,
    expr: &Quantity,
) -> Quantity {
    let items = pw
        .pieces
        .iter()
        .map(|piece| {
            let product = membound_bernstein::simplify::product_of(vec![
                BoundExpr::Pol(piece.qp.clone()),
                expr.clone(),
            ]);
            on_domain(&piece.domain, product)
        })
        .collect();
    merge_cases(items)
}

fn sum_of_pieces<'s>(
    pieces: impl IntoIterator<Item = (&'s Set, membound_polyhedra::QuasiPolynomial)>,
) -> Quantity {
    let items = pieces
        .into_iter()
        .map(|(domain, qp)| on_domain(domain, BoundExpr::Pol(qp)))
        .collect();
    merge_cases(items)
}

/// `expr` on `domain`, 0 elsewhere. A part of the domain whose integer divisions only say
/// which residue classes of the parameters it holds in (`n = 2*floor((n - 1)/2) + 1`: n odd) is
/// its other constraints with `expr` times the periodic indicator of those classes; another
/// part with divisions or existential variables is widened to its constraints without them and
/// `expr` to `max(expr, 0)` there: the value only grows, which keeps sums of counts sound.
fn on_domain(domain: &Set, expr: Quantity) -> Quantity {
    let names = &domain.space.params;
    let mut arms = Vec::new();
    let mut by_class = Vec::new();
    for part in &domain.parts {
        let (guard, widened) = guard_of(part, names);
        if !widened {
            arms.push(Arm {
                guard,
                expr: expr.clone(),
            });
            continue;
        }
        match (&expr, class_guards(part, names)) {
            (BoundExpr::Pol(qp), Some(groups)) => {
                for (atoms, indicator) in groups {
                    let mut all = guard.atoms.clone();
                    all.extend(atoms);
                    by_class.push(BoundExpr::Cases {
                        arms: vec![Arm {
                            guard: Guard::from_atoms(all),
                            expr: BoundExpr::Pol(qp.mul(&indicator)),
                        }],
                        default: Box::new(BoundExpr::zero()),
                    });
                }
            }
            _ => arms.push(Arm {
                guard,
                expr: BoundExpr::Max(vec![expr.clone(), BoundExpr::zero()]),
            }),
        }
    }
    if !by_class.is_empty() {
        // Each class's arm holds on its own classes only: they add up (the other parts, which
        // are disjoint from them, too).
        by_class.extend(arms.into_iter().map(|arm| BoundExpr::Cases {
            arms: vec![arm],
            default: Box::new(BoundExpr::zero()),
        }));
        return merge_cases(by_class);
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

/// The most residue classes a periodic indicator is spelled out for.
const INDICATOR_CLASSES: usize = 256;

/// The constraints of `part` that involve its integer divisions, class by class of the
/// parameters' residues: with every parameter `p` a division reads written `P·t + r` (`P` a
/// multiple of the denominators of the divisions reading it, times those of the divisions they
/// are nested in: `floor((n - 2*floor(n/2) + 5)/2)`, which sums over a call's strided argument
/// make), each division is affine in the `t`s, so each such constraint is linear in the
/// parameters within a class. Classes with the same linear guard are grouped: the result is,
/// per group, its guard and the periodic indicator of its classes (1 on them, 0 on the others);
/// none when the constraints hold in no class (the part is empty). `None` for existential
/// variables, or more than [`INDICATOR_CLASSES`] classes.
fn class_guards(part: &BasicSet, names: &[String]) -> Option<Vec<(Vec<Atom>, QuasiPolynomial)>> {
    let n = names.len();
    if part.n_dims() != 0 {
        return None;
    }
    let divs: Vec<&membound_polyhedra::set::Div> = part
        .locals
        .iter()
        .map(|local| local.div.as_ref())
        .collect::<Option<_>>()?;
    // Per division, the parameters it reads (through the divisions it nests too) and the
    // product of its denominator with those of the divisions it nests.
    let mut reads: Vec<(Vec<usize>, u32)> = Vec::new();
    for div in &divs {
        let mut columns = Vec::new();
        let mut scale = u32::try_from(div.denominator.clone()).ok()?;
        for column in div.numerator.support() {
            if column < n {
                columns.push(column);
                continue;
            }
            let (inner, inner_scale) = reads.get(column - n)?;
            columns.extend(inner);
            scale = scale.checked_mul(*inner_scale)?;
        }
        reads.push((columns, scale));
    }
    let mut periods = vec![1u32; n];
    for (columns, scale) in &reads {
        for &column in columns {
            periods[column] = num_integer::lcm(periods[column], *scale);
        }
    }
    let classes: usize = periods.iter().map(|&p| p as usize).product();
    if classes > INDICATOR_CLASSES {
        return None;
    }
    let involving: Vec<&Constraint> = part
        .constraints
        .iter()
        .filter(|c| c.expr.support().any(|column| column >= n))
        .collect();
    let mut groups: Vec<(Vec<Atom>, Vec<bool>)> = Vec::new();
    for class in 0..classes {
        // Row-major residues over the parameters in column order.
        let mut rest = class;
        let mut residues = vec![0i64; n];
        for column in (0..n).rev() {
            let period = periods[column] as usize;
            residues[column] = (rest % period) as i64;
            rest /= period;
        }
        let Some(atoms) = class_guard(&involving, &divs, &periods, &residues, names)? else {
            continue;
        };
        match groups.iter_mut().find(|(existing, _)| *existing == atoms) {
            Some((_, members)) => members[class] = true,
            None => {
                let mut members = vec![false; classes];
                members[class] = true;
                groups.push((atoms, members));
            }
        }
    }
    groups
        .into_iter()
        .map(|(atoms, members)| Some((atoms, indicator(&members, &periods, names)?)))
        .collect()
}

/// The periodic quasi-polynomial that is 1 on the classes `members` says (row-major over the
/// parameters in column order, with `periods`) and 0 on the others.
fn indicator(members: &[bool], periods: &[u32], names: &[String]) -> Option<QuasiPolynomial> {
    let periodic: Vec<usize> = (0..names.len()).filter(|&c| periods[c] > 1).collect();
    let mut sorted = periodic.clone();
    sorted.sort_by(|&a, &b| names[a].cmp(&names[b]));
    let sorted_shape: Vec<usize> = sorted.iter().map(|&c| periods[c] as usize).collect();
    let total: usize = sorted_shape.iter().product();
    let mut classes = vec![Polynomial::zero(); total];
    for (index, slot) in classes.iter_mut().enumerate() {
        // The residue of each periodic parameter in the quasi-polynomial's order (by name)…
        let mut rest = index;
        let mut residues = vec![0usize; names.len()];
        for (position, &column) in sorted.iter().enumerate().rev() {
            residues[column] = rest % sorted_shape[position];
            rest /= sorted_shape[position];
        }
        // …and the class's index row-major over all parameters in column order.
        let class = (0..names.len()).fold(0usize, |acc, column| {
            acc * periods[column] as usize + residues[column]
        });
        if members[class] {
            *slot = Polynomial::constant(Rat::from(1));
        }
    }
    let periods_by_name = sorted
        .iter()
        .map(|&c| (names[c].clone(), periods[c]))
        .collect();
    QuasiPolynomial::from_classes(periods_by_name, classes)
}

/// The constraints within the residue class `residues` (modulo `periods`) as linear atoms over
/// the parameters (`Some(None)` when one never holds there); `None` when a division is not
/// affine within the class.
fn class_guard(
    constraints: &[&Constraint],
    divs: &[&membound_polyhedra::set::Div],
    periods: &[u32],
    residues: &[i64],
    names: &[String],
) -> Option<Option<Vec<Atom>>> {
    let n = names.len();
    // Columns as affine forms in the t's, for p = P·t + r.
    let param = |column: usize| -> (Vec<Rat>, Rat) {
        let mut coefficients = vec![Rat::from(0); n];
        coefficients[column] = Rat::from(Int::from(periods[column]));
        (coefficients, Rat::from(Int::from(residues[column])))
    };
    let mut local_forms: Vec<(Vec<Rat>, Rat)> = Vec::new();
    for div in divs {
        let mut coefficients = vec![Rat::from(0); n];
        let mut constant = div.numerator.constant.clone();
        for column in div.numerator.support() {
            let (c, r) = if column < n {
                param(column)
            } else {
                local_forms.get(column - n)?.clone()
            };
            let a = div.numerator.coeff(column);
            for (slot, value) in coefficients.iter_mut().zip(c) {
                *slot += a.clone() * value;
            }
            constant += a * r;
        }
        let denominator = Rat::from(div.denominator.clone());
        let coefficients: Vec<Rat> = coefficients
            .into_iter()
            .map(|c| c / denominator.clone())
            .collect();
        // floor(k·t + c) = k·t + floor(c) only for integer k.
        if !coefficients.iter().all(Rat::is_integer) {
            return None;
        }
        local_forms.push((coefficients, Rat::from((constant / denominator).floor())));
    }
    let mut atoms = Vec::new();
    for constraint in constraints {
        let mut coefficients = vec![Rat::from(0); n];
        let mut constant = constraint.expr.constant.clone();
        for column in constraint.expr.support() {
            let (c, r) = if column < n {
                param(column)
            } else {
                local_forms.get(column - n)?.clone()
            };
            let a = constraint.expr.coeff(column);
            for (slot, value) in coefficients.iter_mut().zip(c) {
                *slot += a.clone() * value;
            }
            constant += a * r;
        }
        if coefficients.iter().all(Rat::is_zero) {
            let holds = match constraint.rel {
                Relation::Ge => constant >= Rat::from(0),
                Relation::Eq => constant.is_zero(),
            };
            if !holds {
                return Some(None);
            }
            continue;
        }
        // Back to the parameters: t = (p - r) / P.
        let mut linear = Polynomial::constant(constant);
        for (column, coefficient) in coefficients.iter().enumerate() {
            if coefficient.is_zero() {
                continue;
            }
            let period = Rat::from(Int::from(periods[column]));
            let per_unit = coefficient.clone() / period;
            linear = linear + Polynomial::var(names[column].clone()).scale(&per_unit)
                - Polynomial::constant(per_unit * Rat::from(Int::from(residues[column])));
        }
        atoms.push(match constraint.rel {
            Relation::Ge => Atom::ge(linear),
            Relation::Eq => Atom::eq(linear),
        });
    }
    Some(Some(atoms))
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
        _ => sum_with_repeats_combined(merged),
    }
}

/// `a + b` as one expression of their common shape: two polynomials added, or two cases with
/// the same guards whose arms (and defaults) add up. `None` when the shapes differ.
///
/// Where the arms apply does not matter to a sum, so no domain is built: merging many items
/// tries every pair, and reading their parameters for each try made that quadratic in their
/// size.
fn leafwise_sum(a: &Quantity, b: &Quantity) -> Option<Quantity> {
    match (a, b) {
        (BoundExpr::Pol(x), BoundExpr::Pol(y)) => Some(BoundExpr::Pol(x.add(y))),
        _ => zip_cases(a, b, |x, y, _| leafwise_sum(x, y)),
    }
}

/// Two cases with the same guards, arm by arm: `combine` of their arms' expressions (with the
/// arm's guard) and of their defaults (without). `None` when the shapes or guards differ or
/// `combine` gives up.
fn zip_cases(
    a: &Quantity,
    b: &Quantity,
    mut combine: impl FnMut(&Quantity, &Quantity, Option<&Guard>) -> Option<Quantity>,
) -> Option<Quantity> {
    let (
        BoundExpr::Cases {
            arms: a,
            default: da,
        },
        BoundExpr::Cases {
            arms: b,
            default: db,
        },
    ) = (a, b)
    else {
        return None;
    };
    if a.len() != b.len() {
        return None;
    }
    let arms = a
        .iter()
        .zip(b)
        .map(|(x, y)| {
            (x.guard == y.guard).then_some(())?;
            Some(Arm {
                guard: x.guard.clone(),
                expr: combine(&x.expr, &y.expr, Some(&x.guard))?,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(BoundExpr::Cases {
        arms,
        default: Box::new(combine(da, db, None)?),
    })
}

/// The sum of `items`, with items that appear more than once written once with their count
/// (`2*cases(…)`, through bernstein's like terms) when some do.
fn sum_with_repeats_combined(items: Vec<Quantity>) -> Quantity {
    let repeats = items
        .iter()
        .enumerate()
        .any(|(i, item)| items[i + 1..].contains(item));
    if repeats {
        membound_bernstein::simplify::sum_of(items)
    } else {
        BoundExpr::Sum(items)
    }
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

/// Most disjointness tests the merging of one sum makes (each an emptiness test of two
/// guards); the items left when they run out stay as they are.
const MAX_DISJOINTNESS_TESTS: usize = 2000;

/// `quantity` with its `cases` merged where that keeps its value at every point, for reading:
/// a `cases` without arms is its default, an arm whose guard an earlier arm already has (never
/// taken) goes, the `cases` of a sum with the same guards add arm by arm (as in
/// [`scaled_sum`]), and those whose guards exclude each other's become one:
/// `cases(g -> a; otherwise -> d) + cases(h -> b; otherwise -> e)`, with no point in both `g`
/// and `h`, is `cases(g -> a + e; h -> b + d; otherwise -> d + e)` (at a point at most one of
/// them takes an arm; the other gives its default).
pub fn merged_cases(quantity: &Quantity) -> Quantity {
    let all = |items: &[Quantity]| items.iter().map(merged_cases).collect::<Vec<_>>();
    match quantity {
        BoundExpr::Sum(items) => {
            match scaled_sum(all(items).into_iter().map(|q| (Rat::from(1), q))) {
                BoundExpr::Sum(items) => merge_disjoint(items),
                other => other,
            }
        }
        BoundExpr::Cases { arms, default } => {
            let mut kept: Vec<Arm> = Vec::new();
            for arm in arms {
                if !kept.iter().any(|earlier| earlier.guard == arm.guard) {
                    kept.push(Arm {
                        guard: arm.guard.clone(),
                        expr: merged_cases(&arm.expr),
                    });
                }
            }
            cases(kept, merged_cases(default))
        }
        BoundExpr::Max(items) => BoundExpr::Max(all(items)),
        BoundExpr::Mul(items) => BoundExpr::Mul(all(items)),
        BoundExpr::Pow { base, exponent } => BoundExpr::Pow {
            base: base.clone(),
            exponent: Box::new(merged_cases(exponent)),
        },
        BoundExpr::Log2 { arg } => BoundExpr::Log2 {
            arg: Box::new(merged_cases(arg)),
        },
        BoundExpr::Pol(_) | BoundExpr::Inf => quantity.clone(),
    }
}

/// The items of a sum with each `cases` merged into an earlier one whose guards exclude its
/// own (see [`merged_cases`]).
fn merge_disjoint(items: Vec<Quantity>) -> Quantity {
    let universe = ParamDomain::universe(parameters_of(&items.iter().collect::<Vec<_>>()));
    let mut tests_left = MAX_DISJOINTNESS_TESTS;
    let mut merged: Vec<Quantity> = Vec::new();
    for item in items {
        let joined = merged.iter().enumerate().find_map(|(index, existing)| {
            Some((
                index,
                disjoint_sum(existing, &item, &universe, &mut tests_left)?,
            ))
        });
        match joined {
            Some((index, sum)) => merged[index] = sum,
            None => merged.push(item),
        }
    }
    match merged.len() {
        1 => merged.remove(0),
        _ => sum_with_repeats_combined(merged),
    }
}

/// `a + b` as one `cases` when both are `cases` and no guard of one meets a guard of the
/// other; `None` otherwise, or when the tests allowed run out.
fn disjoint_sum(
    a: &Quantity,
    b: &Quantity,
    universe: &ParamDomain,
    tests_left: &mut usize,
) -> Option<Quantity> {
    let (
        BoundExpr::Cases {
            arms: a_arms,
            default: a_default,
        },
        BoundExpr::Cases {
            arms: b_arms,
            default: b_default,
        },
    ) = (a, b)
    else {
        return None;
    };
    for x in a_arms {
        let within_x = universe.with_guard(&x.guard);
        for y in b_arms {
            *tests_left = tests_left.checked_sub(1)?;
            if !within_x.with_guard(&y.guard).is_empty() {
                return None;
            }
        }
    }
    let plus = |expr: &Quantity, default: &Quantity| {
        scaled_sum([
            (Rat::from(1), expr.clone()),
            (Rat::from(1), default.clone()),
        ])
    };
    let arms = a_arms
        .iter()
        .map(|x| (x, &**b_default))
        .chain(b_arms.iter().map(|y| (y, &**a_default)))
        .map(|(arm, other_default)| Arm {
            guard: arm.guard.clone(),
            expr: plus(&arm.expr, other_default),
        })
        .collect();
    Some(cases(arms, plus(a_default, b_default)))
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
        (BoundExpr::Cases { .. }, BoundExpr::Cases { .. }) => {
            zip_cases(a, b, |x, y, guard| match guard {
                Some(guard) => leafwise(x, y, &domain.with_guard(guard), leaf, broadcast),
                None => leafwise(x, y, domain, leaf, broadcast),
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use membound_polyhedra::Value;
    use proptest::prelude::*;

    use super::*;

    fn var(name: &str) -> Polynomial {
        Polynomial::var(name.to_string())
    }

    /// `a*n + b*m + c >= 0`.
    fn atom(a: i64, b: i64, c: i64) -> Atom {
        Atom::ge(
            var("n") * Polynomial::constant(a)
                + var("m") * Polynomial::constant(b)
                + Polynomial::constant(c),
        )
    }

    /// `c0 + c1*n + c2*m + c3*n*m`.
    fn leaf(c: [i64; 4]) -> Quantity {
        BoundExpr::pol(
            Polynomial::constant(c[0])
                + var("n") * Polynomial::constant(c[1])
                + var("m") * Polynomial::constant(c[2])
                + var("n") * var("m") * Polynomial::constant(c[3]),
        )
    }

    fn value(quantity: &Quantity, n: i64, m: i64) -> Value {
        let point = BTreeMap::from([
            ("n".to_string(), Rat::from(n)),
            ("m".to_string(), Rat::from(m)),
        ]);
        quantity.eval(&point).expect("every parameter has a value")
    }

    fn guarded(guard: Vec<Atom>, then: Quantity, otherwise: Quantity) -> Quantity {
        BoundExpr::Cases {
            arms: vec![Arm {
                guard: Guard::from_atoms(guard),
                expr: then,
            }],
            default: Box::new(otherwise),
        }
    }

    #[test]
    fn a_sum_over_a_strided_argument_keeps_its_residue_classes_exact() {
        // A callee's bytes, 4p + [24, 28]_p (an array of p + 2 references), summed over a call
        // whose argument steps by two (`m2(a + 2*i)`): the sum's pieces hold on residue classes
        // of `a` written with nested divisions, some of them empty.
        let summed = membound_polyhedra::sum_text(
            "[a, b] -> { [i, p] -> 8*p + 24 - 8*floor(p/2) : 1 <= i <= 1 + 2*b + 2*a and p = a + 2*i and p + 5 >= 0 }",
        )
        .expect("sums");
        let membound_polyhedra::Count::Finite(pw) = summed else {
            panic!("a finite sum");
        };
        let quantity = pw_quantity(&pw);
        assert!(!quantity.to_string().contains("max"), "{quantity}");
        let bytes = |p: i64| {
            if p + 5 >= 0 {
                8 * p + 24 - 8 * p.div_euclid(2)
            } else {
                0
            }
        };
        for a in -3..8 {
            for b in -2..6 {
                let expected: i64 = (1..=1 + 2 * b + 2 * a).map(|i| bytes(a + 2 * i)).sum();
                let point = BTreeMap::from([
                    ("a".to_string(), Rat::from(a)),
                    ("b".to_string(), Rat::from(b)),
                ]);
                let value = quantity.eval(&point).expect("evaluates");
                assert_eq!(
                    value,
                    Value::Finite(Rat::from(expected)),
                    "a = {a}, b = {b}"
                );
            }
        }
    }

    #[test]
    fn cases_on_either_side_of_a_line_become_one() {
        // cases(n >= 1 -> n; 0) + cases(n <= 0 -> 1; 0) + cases(otherwise -> 0)
        let sum = BoundExpr::Sum(vec![
            guarded(vec![atom(1, 0, -1)], leaf([0, 1, 0, 0]), BoundExpr::zero()),
            guarded(vec![atom(-1, 0, 0)], leaf([1, 0, 0, 0]), BoundExpr::zero()),
            BoundExpr::Cases {
                arms: Vec::new(),
                default: Box::new(BoundExpr::zero()),
            },
        ]);
        let merged = merged_cases(&sum);
        let BoundExpr::Cases { arms, default } = &merged else {
            panic!("one cases expected: {}", merged.to_readable());
        };
        assert_eq!((arms.len(), default.is_zero()), (2, true));
        assert_eq!(
            merged.to_readable(),
            "cases(n >= 1 -> n; n <= 0 -> 1; otherwise -> 0)"
        );
    }

    #[test]
    fn overlapping_cases_stay_a_sum() {
        let sum = BoundExpr::Sum(vec![
            guarded(vec![atom(1, 0, -1)], leaf([0, 1, 0, 0]), BoundExpr::zero()),
            guarded(vec![atom(0, 1, -1)], leaf([0, 0, 1, 0]), BoundExpr::zero()),
        ]);
        assert_eq!(merged_cases(&sum), sum);
    }

    fn arb_atom() -> impl Strategy<Value = Atom> {
        (-2i64..=2, -2i64..=2, -4i64..=4).prop_map(|(a, b, c)| atom(a, b, c))
    }

    fn arb_leaf() -> impl Strategy<Value = Quantity> {
        prop_oneof![
            Just(BoundExpr::zero()),
            [-3i64..=3, -3i64..=3, -3i64..=3, -1i64..=1].prop_map(leaf),
        ]
    }

    fn arb_cases() -> impl Strategy<Value = Quantity> {
        let arm =
            (prop::collection::vec(arb_atom(), 1..=2), arb_leaf()).prop_map(|(atoms, expr)| Arm {
                guard: Guard::from_atoms(atoms),
                expr,
            });
        (prop::collection::vec(arm, 0..=3), arb_leaf()).prop_map(|(arms, default)| {
            BoundExpr::Cases {
                arms,
                default: Box::new(default),
            }
        })
    }

    fn arb_sum() -> impl Strategy<Value = Quantity> {
        let item = prop_oneof![arb_leaf(), arb_cases(), arb_cases()];
        prop::collection::vec(item, 1..=4).prop_map(BoundExpr::Sum)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Merging never changes a value: the merged sum and the sum agree at every point of a
        /// grid around the guards' lines.
        #[test]
        fn merging_cases_keeps_every_value(sum in arb_sum()) {
            let merged = merged_cases(&sum);
            for n in -6..=6 {
                for m in -6..=6 {
                    prop_assert_eq!(
                        value(&merged, n, m),
                        value(&sum, n, m),
                        "at n={}, m={}: {} from {}", n, m, merged.to_readable(), sum.to_readable()
                    );
                }
            }
        }
    }
}

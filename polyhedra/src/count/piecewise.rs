//! Piecewise quasi-polynomials over parameter domains, and the result type of counting.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::affine::Affine;
use crate::constraint::{Constraint, Relation};
use crate::isl::print;
use crate::lp;
use crate::quasipoly::QuasiPolynomial;
use crate::scalar::{Int, Rat};
use crate::set::{BasicSet, Set, Space};

use super::coalesce::coalesce;
use super::disjoint::minus;
use super::sample;

/// Above this many overlapping pieces a count keeps them overlapping (values add up).
pub const DISJOINT_PIECE_LIMIT: usize = 12;

/// A quasi-polynomial valid on `domain` (a set over the parameters, or over parameters and
/// dims for a parsed `[n] -> { [i] -> … }`).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Piece {
    pub domain: Set,
    pub qp: QuasiPolynomial,
}

/// A sum of quasi-polynomials on domains: the value at a point is the sum of the pieces whose
/// domain contains it (0 outside every domain), as in isl's text syntax. Counting returns
/// pairwise disjoint domains (chambers) unless there are more than [`DISJOINT_PIECE_LIMIT`]
/// overlapping pieces, where splitting them would cost more than the count itself.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct PiecewiseQuasiPolynomial {
    pub space: Space,
    pub pieces: Vec<Piece>,
}

/// The number of points: a piecewise quasi-polynomial, or ∞ for an unbounded set.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub enum Count {
    Finite(PiecewiseQuasiPolynomial),
    Infinite,
}

/// A count at one parameter point.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub enum Value {
    Finite(Rat),
    Infinite,
}

/// Sums of counts: ∞ absorbs.
impl std::ops::Add for Value {
    type Output = Value;
    fn add(self, other: Value) -> Value {
        match (self, other) {
            (Value::Finite(x), Value::Finite(y)) => Value::Finite(x + y),
            _ => Value::Infinite,
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Finite(v) => write!(f, "{v}"),
            Value::Infinite => write!(f, "infty"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    #[error("no value given for {0}")]
    Missing(String),
    #[error(
        "the domain of a piece has existential variables, so membership is not decidable by evaluation"
    )]
    Existential,
}

impl Count {
    /// The count at `point` (every parameter must be given).
    pub fn eval(&self, point: &BTreeMap<String, Int>) -> Result<Value, EvalError> {
        match self {
            Count::Infinite => Ok(Value::Infinite),
            Count::Finite(pw) => pw.eval(point).map(Value::Finite),
        }
    }
    /// isl's notation (`[n] -> { (1/2*n^2 + 1/2*n) : n >= 0 }`, or `infty`).
    pub fn to_isl(&self) -> String {
        match self {
            Count::Infinite => "infty".to_string(),
            Count::Finite(pw) => pw.to_isl(),
        }
    }
    /// The same count over renamed parameters (`rename` injective).
    pub fn renamed(&self, rename: &dyn Fn(&str) -> String) -> Count {
        match self {
            Count::Finite(pw) => Count::Finite(pw.renamed(rename)),
            Count::Infinite => Count::Infinite,
        }
    }
    /// One line per chamber, with periodic numbers in the thesis notation.
    pub fn to_readable(&self) -> String {
        match self {
            Count::Infinite => "∞".to_string(),
            Count::Finite(pw) => pw.to_readable(),
        }
    }
}

impl PiecewiseQuasiPolynomial {
    /// Builds disjoint pieces from pieces whose domains may overlap (values add up where they
    /// do), dropping pieces whose quasi-polynomial is zero; beyond [`DISJOINT_PIECE_LIMIT`]
    /// pieces only equal domains are merged.
    pub fn from_overlapping(space: Space, pieces: Vec<Piece>) -> PiecewiseQuasiPolynomial {
        // Pieces with the same domain add up first: that is cheap and common.
        let mut merged: Vec<(BasicSet, QuasiPolynomial)> = Vec::new();
        for piece in pieces {
            for part in piece.domain.parts {
                let part = without_redundant(part);
                match merged.iter_mut().find(|(domain, _)| *domain == part) {
                    Some((_, qp)) => *qp = qp.add(&piece.qp),
                    None => merged.push((part, piece.qp.clone())),
                }
            }
        }
        merged.retain(|(_, qp)| !qp.is_zero());
        let mut disjoint: Vec<(BasicSet, QuasiPolynomial)> = Vec::new();
        if merged.len() > DISJOINT_PIECE_LIMIT {
            disjoint = merged;
        } else {
            for (domain, qp) in merged {
                disjoint = insert_disjoint(disjoint, domain, &qp);
            }
            disjoint.retain(|(_, qp)| !qp.is_zero());
            disjoint = coalesce(disjoint);
        }
        let pieces = disjoint
            .into_iter()
            .filter(|(_, qp)| !qp.is_zero())
            .map(|(domain, qp)| {
                // Every domain here is already without redundant constraints; rewriting a
                // floor can make another constraint redundant.
                // A division's numerator may hold another division: peel until none changes.
                let mut floorless = without_simple_floors(domain.clone());
                loop {
                    let peeled = without_simple_floors(floorless.clone());
                    if peeled == floorless {
                        break;
                    }
                    floorless = peeled;
                }
                let domain = if floorless == domain {
                    domain
                } else {
                    without_redundant(floorless)
                };
                Piece {
                    domain: Set::from_basic(domain),
                    qp,
                }
            })
            .collect();
        PiecewiseQuasiPolynomial { space, pieces }
    }

    /// The same pieces over renamed parameters and dims (`rename` injective).
    pub fn renamed(&self, rename: &dyn Fn(&str) -> String) -> PiecewiseQuasiPolynomial {
        PiecewiseQuasiPolynomial {
            space: self.space.renamed(rename),
            pieces: self
                .pieces
                .iter()
                .map(|piece| Piece {
                    domain: piece.domain.renamed(rename),
                    qp: piece.qp.renamed(rename),
                })
                .collect(),
        }
    }

    /// The value at `point`, which gives every parameter (and dim, for pieces over dims).
    pub fn eval(&self, point: &BTreeMap<String, Int>) -> Result<Rat, EvalError> {
        let lookup = |name: &String| {
            point
                .get(name)
                .cloned()
                .ok_or_else(|| EvalError::Missing(name.clone()))
        };
        let params: Vec<Int> = self
            .space
            .params
            .iter()
            .map(lookup)
            .collect::<Result<_, _>>()?;
        let dims: Vec<Int> = self
            .space
            .dims
            .iter()
            .map(lookup)
            .collect::<Result<_, _>>()?;
        let value = |name: &str| point.get(name).map(Rat::from).unwrap_or_default();
        let mut total = Rat::zero();
        for piece in &self.pieces {
            if piece
                .domain
                .contains(&params, &dims)
                .ok_or(EvalError::Existential)?
            {
                total += piece.qp.eval(&value);
            }
        }
        Ok(total)
    }

    pub fn to_isl(&self) -> String {
        print::piecewise_to_isl(self)
    }
    pub fn to_readable(&self) -> String {
        print::piecewise_to_readable(self)
    }
}

/// Inserts `(domain, qp)` into pieces with disjoint domains, keeping them disjoint.
fn insert_disjoint(
    pieces: Vec<(BasicSet, QuasiPolynomial)>,
    domain: BasicSet,
    qp: &QuasiPolynomial,
) -> Vec<(BasicSet, QuasiPolynomial)> {
    let mut result = Vec::new();
    let mut uncovered = vec![domain.clone()];
    for (existing, existing_qp) in pieces {
        let overlap = existing.intersect(&domain);
        if is_obviously_empty(&overlap) {
            result.push((existing, existing_qp));
            continue;
        }
        result.push((without_redundant(overlap), existing_qp.add(qp)));
        for rest in subtract(&existing, &domain) {
            result.push((without_redundant(rest), existing_qp.clone()));
        }
        uncovered = minus(uncovered, &existing);
    }
    result.extend(
        uncovered
            .into_iter()
            .map(|u| (without_redundant(u), qp.clone())),
    );
    result
}

/// `set \ other` as disjoint basic sets; `other`'s locals must be divisions (which always
/// exist, so negating a constraint over them is exact).
pub(crate) fn subtract(set: &BasicSet, other: &BasicSet) -> Vec<BasicSet> {
    // `joined` holds set's constraints followed by other's, over set's and other's locals.
    let joined = set.intersect(other);
    let others: Vec<Constraint> = joined.constraints[set.constraints.len()..].to_vec();
    let prefix = BasicSet {
        constraints: set.constraints.clone(),
        ..joined
    };
    let mut pieces = Vec::new();
    let mut prefix = prefix;
    for constraint in others {
        for complement in constraint.integer_complement() {
            let mut piece = prefix.clone();
            piece.add_constraint(complement);
            if !is_obviously_empty(&piece) {
                pieces.push(piece);
            }
        }
        prefix.add_constraint(constraint);
    }
    pieces
}

/// Emptiness over integers, relaxed (false means "maybe non-empty").
pub(crate) fn is_obviously_empty(set: &BasicSet) -> bool {
    let tightened: Vec<Constraint> = set
        .all_constraints()
        .iter()
        .map(Constraint::normalized_for_integers)
        .collect();
    lp::is_infeasible(&tightened)
}

/// Drops constraints implied (over integers) by the others and the division definitions.
pub(super) fn without_redundant(mut set: BasicSet) -> BasicSet {
    set.constraints = without_parallel_duplicates(std::mem::take(&mut set.constraints));
    // Tightened once: every test below is a linear program over these plus one complement.
    let mut tightened: Vec<Constraint> = set
        .constraints
        .iter()
        .map(Constraint::normalized_for_integers)
        .collect();
    let divs: Vec<Constraint> = set
        .div_constraints()
        .iter()
        .map(Constraint::normalized_for_integers)
        .collect();
    // Which constraints hold at a few integer points: a point where only constraint `index`
    // fails is a solution of the linear program below, which then needs no solving.
    let mut holds: Vec<Vec<bool>> = sample::points_of(&set)
        .iter()
        .map(|point| {
            set.constraints
                .iter()
                .map(|c| c.is_satisfied(point))
                .collect()
        })
        .collect();
    let mut index = 0;
    while index < set.constraints.len() {
        let witnessed = holds
            .iter()
            .any(|row| (row.iter().enumerate()).all(|(k, &satisfied)| satisfied != (k == index)));
        if witnessed {
            index += 1;
            continue;
        }
        let implied = set.constraints[index]
            .integer_complement()
            .into_iter()
            .all(|complement| {
                let system: Vec<Constraint> = tightened
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != index)
                    .map(|(_, c)| c.clone())
                    .chain(divs.iter().cloned())
                    .chain([complement.normalized_for_integers()])
                    .collect();
                lp::is_infeasible(&system)
            });
        if implied {
            set.constraints.remove(index);
            tightened.remove(index);
            for row in &mut holds {
                row.remove(index);
            }
        } else {
            index += 1;
        }
    }
    set
}

/// Keeps, of the inequalities with the same linear part (in lowest integer terms), the one
/// with the smallest constant: over integers it implies the others. Needs no linear program.
pub(super) fn without_parallel_duplicates(constraints: Vec<Constraint>) -> Vec<Constraint> {
    let mut kept: Vec<(Constraint, Constraint)> = Vec::new();
    for constraint in constraints {
        let tight = constraint.normalized_for_integers();
        let parallel = kept.iter().position(|(_, k)| {
            k.rel == Relation::Ge && tight.rel == Relation::Ge && k.expr.coeffs == tight.expr.coeffs
        });
        match parallel {
            Some(i) if kept[i].1.expr.constant <= tight.expr.constant => {}
            Some(i) => kept[i] = (constraint, tight),
            None => kept.push((constraint, tight)),
        }
    }
    kept.into_iter().map(|(original, _)| original).collect()
}

/// Rewrites `±floor(e/k) + rest >= 0` (one division, unit coefficient) as the equivalent
/// constraint on `e`: `floor(e/k) >= -rest` is `e + k*rest >= 0`, and `floor(e/k) <= rest` is
/// `k*(rest + 1) - e - 1 >= 0` (`rest` is integer-valued).
fn without_simple_floors(mut set: BasicSet) -> BasicSet {
    let first_local = set.local_column(0);
    for constraint in &mut set.constraints {
        if constraint.is_equality() {
            continue;
        }
        let expr = constraint.expr.primitive();
        let divs: Vec<usize> = expr.support().filter(|&c| c >= first_local).collect();
        let [column] = divs[..] else { continue };
        let Some(div) = set.locals[column - first_local].div.clone() else {
            continue;
        };
        let coeff = expr.coeff(column);
        if !coeff.abs().is_one() {
            continue;
        }
        let mut rest = expr.clone();
        rest.set_coeff(column, Rat::zero());
        let k = Rat::from(div.denominator.clone());
        constraint.expr = if coeff.is_positive() {
            div.numerator.add(&rest.scale(&k))
        } else {
            rest.add(&Affine::constant(1))
                .scale(&k)
                .sub(&div.numerator)
                .sub(&Affine::constant(1))
        };
    }
    set
}

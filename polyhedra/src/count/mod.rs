//! Counting integer points: `count(set)` gives the number of integer points of a parametric set
//! as a piecewise quasi-polynomial in its parameters (or ∞ for an unbounded set).
//!
//! Every set is counted exactly, in three steps:
//! - existential variables are eliminated first (`existential.rs`): each part becomes a union of
//!   basic sets whose locals are all integer divisions, with the same integer points;
//! - each basic set is counted by `engine.rs`'s exact nested summation. A union is counted by
//!   inclusion–exclusion over its parts (intersections are basic sets again) up to
//!   `INCLUSION_EXCLUSION_PARTS` parts, and beyond that as a disjoint union (`disjoint.rs`):
//!   inclusion–exclusion costs up to `2^parts` counts, the disjoint pieces roughly `parts²`
//!   subtractions (measured: at 8 parts inclusion–exclusion is slightly faster, at 13 the
//!   disjoint route is 20 times faster);
//! - the finished cells are merged into pieces with pairwise disjoint domains.
//!
//! The only failure is [`CountError::TooComplex`], when a limit on the work is reached.

mod coalesce;
mod disjoint;
mod engine;
mod existential;
mod piecewise;

pub use piecewise::{Count, EvalError, Piece, PiecewiseQuasiPolynomial, Value};

use crate::affine::Affine;
use crate::constraint::Constraint;
use crate::quasipoly::QuasiPolynomial;
use crate::scalar::Rat;
use crate::set::{BasicSet, Div, Local, Set, Space};
use engine::{Engine, EngineResult, FinishedCell};

/// Unions of up to this many parts are counted by inclusion–exclusion, larger ones as a
/// disjoint union.
const INCLUSION_EXCLUSION_PARTS: usize = 12;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CountError {
    #[error("the set is too complex to count within the engine's limits")]
    TooComplex,
}

/// The number of integer points of `set` for each value of its parameters.
pub fn count(set: &Set) -> Result<Count, CountError> {
    let mut parts = Vec::new();
    for part in &set.parts {
        parts.extend(existential::without_existentials(part)?);
    }
    // Each basic set with its sign: the count is the signed sum of their counts.
    let signed_sets: Vec<(bool, BasicSet)> = if parts.len() <= INCLUSION_EXCLUSION_PARTS {
        intersections(&parts)
            .into_iter()
            .map(|(subset, intersection)| (subset.len() % 2 == 1, intersection))
            .collect()
    } else {
        disjoint::disjoint_parts(&parts)
            .into_iter()
            .map(|piece| (true, piece))
            .collect()
    };
    let mut engine = Engine::new(set.space.params.len());
    let mut signed_cells: Vec<(bool, FinishedCell)> = Vec::new();
    for (positive, basic) in signed_sets {
        match engine.count(&basic)? {
            EngineResult::Finite(cells) => {
                signed_cells.extend(cells.into_iter().map(|c| (positive, c)))
            }
            // An unbounded part makes the count infinite whatever the other parts hold (and
            // parts come before their intersections).
            EngineResult::Infinite => return Ok(Count::Infinite),
        }
    }
    let params_space = set.space.params_only();

    let pieces = signed_cells
        .into_iter()
        .map(|(positive, cell)| {
            let piece = to_piece(&engine, &params_space, cell)?;
            Ok(if positive {
                piece
            } else {
                Piece {
                    qp: piece.qp.neg(),
                    ..piece
                }
            })
        })
        .collect::<Result<Vec<_>, CountError>>()?;
    Ok(Count::Finite(PiecewiseQuasiPolynomial::from_overlapping(
        params_space,
        pieces,
    )))
}

/// Non-empty intersections of every non-empty subset of `parts` (supersets of an empty
/// intersection are skipped), with the subset; parts come first.
fn intersections(parts: &[BasicSet]) -> Vec<(Vec<usize>, BasicSet)> {
    let mut found: Vec<(Vec<usize>, BasicSet)> = Vec::new();
    let mut frontier: Vec<(Vec<usize>, BasicSet)> = parts
        .iter()
        .enumerate()
        .map(|(i, p)| (vec![i], p.clone()))
        .collect();
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for (subset, set) in &frontier {
            let last = *subset.last().unwrap_or(&0);
            for (j, part) in parts.iter().enumerate().skip(last + 1) {
                let joined = set.intersect(part);
                if !piecewise::is_obviously_empty(&joined) {
                    next.push(([subset.clone(), vec![j]].concat(), joined));
                }
            }
        }
        found.append(&mut frontier);
        frontier = next;
    }
    found
}

/// Turns an engine cell (over engine columns) into a piece over the parameters, keeping only
/// the divisions it uses.
fn to_piece(engine: &Engine, space: &Space, cell: FinishedCell) -> Result<Piece, CountError> {
    let n_params = space.params.len();
    let mut used = engine.divs_used_by(&cell.guard);
    used.extend(
        cell.summand
            .variables()
            .into_iter()
            .filter(|c| *c >= n_params),
    );
    used.extend(
        engine.divs_used_by(
            &used
                .iter()
                .map(|&c| Constraint::ge(Affine::var(c)))
                .collect::<Vec<_>>(),
        ),
    );
    let divs: Vec<&(usize, Div)> = engine
        .divs
        .iter()
        .filter(|(c, _)| used.contains(c))
        .collect();
    let column = |c: usize| {
        if c < n_params {
            c
        } else {
            divs.iter()
                .position(|(d, _)| *d == c)
                .map_or(c, |i| n_params + i)
        }
    };
    let mut domain = BasicSet::universe(space.clone());
    for (i, (_, div)) in divs.iter().enumerate() {
        let numerator = div.numerator.remap(column);
        domain.locals.push(Local {
            name: format!("_d{i}"),
            div: Some(Div {
                numerator,
                denominator: div.denominator.clone(),
            }),
        });
    }
    domain.constraints = cell.guard.iter().map(|c| c.remap(column)).collect();
    let atoms = atom_values(&domain).ok_or(CountError::TooComplex)?;
    let qp = cell
        .summand
        .terms()
        .fold(QuasiPolynomial::zero(), |acc, (monomial, coeff)| {
            let term = monomial.powers().iter().fold(
                QuasiPolynomial::constant(coeff.clone()),
                |t, (c, e)| {
                    let atom = &atoms[column(*c)];
                    (0..*e).fold(t, |t, _| t.mul(atom))
                },
            );
            acc.add(&term)
        });
    Ok(Piece {
        domain: Set::from_basic(domain),
        qp,
    })
}

/// The quasi-polynomial of every column of a parameter domain: parameters are variables,
/// divisions are floors of their numerators. `None` when a local is no division, or a floor's
/// period is too large to spell out (see [`crate::quasipoly::MAX_CLASSES`]).
pub(crate) fn atom_values(domain: &BasicSet) -> Option<Vec<QuasiPolynomial>> {
    let mut atoms: Vec<QuasiPolynomial> = domain
        .space
        .params
        .iter()
        .map(|p| QuasiPolynomial::var(p))
        .collect();
    for local in &domain.locals {
        let div = local.div.as_ref()?;
        let numerator = affine_qp(&div.numerator, &atoms);
        let quotient = numerator.scale(&(Rat::one() / Rat::from(div.denominator.clone())));
        atoms.push(quotient.floor_of_linear()?);
    }
    Some(atoms)
}

fn affine_qp(form: &Affine, atoms: &[QuasiPolynomial]) -> QuasiPolynomial {
    form.support().fold(
        QuasiPolynomial::constant(form.constant.clone()),
        |acc, i| {
            acc.add(
                &atoms
                    .get(i)
                    .cloned()
                    .unwrap_or_default()
                    .scale(&form.coeff(i)),
            )
        },
    )
}

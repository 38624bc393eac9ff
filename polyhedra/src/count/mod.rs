//! Counting integer points: `count(set)` gives the number of integer points of a parametric set
//! as a piecewise quasi-polynomial in its parameters (or ∞ for an unbounded set), and
//! `sum(set, weight)` the sum of a quasi-polynomial weight over them. Counting is summing with
//! weight 1: one code path.
//!
//! The weight is first split by `weight.rs` into polynomials the engine sums (one per residue
//! class of the dims it is periodic in). Then every set is summed exactly, in three steps:
//! - existential variables are eliminated first (`existential.rs`): each part becomes a union of
//!   basic sets whose locals are all integer divisions, with the same integer points;
//! - each basic set is summed by `engine.rs`'s exact nested summation. A union is summed by
//!   inclusion–exclusion over its parts (intersections are basic sets again) while it has at
//!   most `INCLUSION_EXCLUSION_SETS` non-empty intersections, and beyond that as a disjoint
//!   union (`disjoint.rs`): inclusion–exclusion costs one count per non-empty intersection (up
//!   to `2^parts`), the disjoint pieces roughly `parts²` subtractions. The number of parts
//!   alone does not tell which is cheaper (measured on unions of 9 to 12 parts: 34 to 126
//!   intersections, inclusion–exclusion up to 8 times faster; 1153, the disjoint union 300
//!   times faster), so the intersections are enumerated until there are too many;
//! - the finished cells are merged into pieces with pairwise disjoint domains.
//!
//! `count`, `sum` and `sum_piecewise` go through `cache.rs`: a set summed before with the same
//! weight, even under other names, is answered from the cache ([`clear_count_cache`] empties
//! it).
//!
//! The failures are [`CountError::TooComplex`], when a limit on the work is reached,
//! [`CountError::TimeLimit`], past the deadline [`with_deadline`] sets on the thread (never
//! cached: another caller may have the time), and [`CountError::UnknownVariable`] for a weight
//! over names the set does not have.

mod cache;
mod coalesce;
mod deadline;
mod disjoint;
mod engine;
mod existential;
mod piecewise;
mod sample;
mod weight;

pub use cache::clear_count_cache;
pub use deadline::with_deadline;
pub use piecewise::{Count, EvalError, Piece, PiecewiseQuasiPolynomial, Value};

use crate::affine::Affine;
use crate::constraint::Constraint;
use crate::quasipoly::QuasiPolynomial;
use crate::scalar::Rat;
use crate::set::{BasicSet, Div, Local, Set, Space};
use cache::Weight;
use engine::{Engine, EngineResult, FinishedCell};

/// Unions with up to this many non-empty intersections of parts are counted by
/// inclusion–exclusion, others as a disjoint union (every union of up to 8 parts has fewer).
const INCLUSION_EXCLUSION_SETS: usize = 256;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CountError {
    #[error("the set is too complex to count within the engine's limits")]
    TooComplex,
    #[error("the analysis reached its time limit while counting")]
    TimeLimit,
    #[error("the weight mentions '{0}', which is neither a dim nor a parameter of the set")]
    UnknownVariable(String),
}

/// The number of integer points of `set` for each value of its parameters: its sum with
/// weight 1.
pub fn count(set: &Set) -> Result<Count, CountError> {
    sum(set, &QuasiPolynomial::constant(1))
}

/// For each value of the set's parameters, the sum of `weight` over the integer points of
/// `set`, as a piecewise quasi-polynomial in the parameters; ∞ when a part of the set where
/// the weight is not 0 is unbounded. The weight's variables are the set's dims and parameters
/// (by name); it may be periodic in any of them.
pub fn sum(set: &Set, weight: &QuasiPolynomial) -> Result<Count, CountError> {
    cache::cached(set, Weight::Uniform(weight.clone()), || {
        sum_uncached(set, weight)
    })
}

fn sum_uncached(set: &Set, weight: &QuasiPolynomial) -> Result<Count, CountError> {
    let params_space = set.space.params_only();
    Ok(match signed_pieces(set, weight)? {
        Some(pieces) => Count::Finite(PiecewiseQuasiPolynomial::from_overlapping(
            params_space,
            pieces,
        )),
        None => Count::Infinite,
    })
}

/// The sum of a piecewise weight over `set`: each piece's quasi-polynomial summed over the
/// points of `set` in the piece's domain (pieces that overlap add up, as their values do). The
/// domains' parameters and dims are matched to the set's by name.
pub fn sum_piecewise(set: &Set, weight: &PiecewiseQuasiPolynomial) -> Result<Count, CountError> {
    cache::cached(set, Weight::Piecewise(weight.clone()), || {
        sum_piecewise_uncached(set, weight)
    })
}

fn sum_piecewise_uncached(
    set: &Set,
    weight: &PiecewiseQuasiPolynomial,
) -> Result<Count, CountError> {
    let mut pieces = Vec::new();
    for piece in &weight.pieces {
        let domain = domain_in_space(&piece.domain, &set.space)?;
        let within = Set {
            space: set.space.clone(),
            parts: set
                .parts
                .iter()
                .flat_map(|part| domain.iter().map(move |d| part.intersect(d)))
                .filter(|part| !piecewise::is_obviously_empty(part))
                .collect(),
        };
        match signed_pieces(&within, &piece.qp)? {
            Some(found) => pieces.extend(found),
            None => return Ok(Count::Infinite),
        }
    }
    Ok(Count::Finite(PiecewiseQuasiPolynomial::from_overlapping(
        set.space.params_only(),
        pieces,
    )))
}

/// The sum of `weight` over `set` as pieces whose domains may overlap (their values add up);
/// `None` when it is infinite.
fn signed_pieces(set: &Set, weight: &QuasiPolynomial) -> Result<Option<Vec<Piece>>, CountError> {
    let split = weight::split_weight(weight, &set.space)?;
    if split.classes.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let mut parts = Vec::new();
    for part in &set.parts {
        parts.extend(existential::without_existentials(part)?);
    }
    // An empty part adds nothing; left in, it would be subtracted from or intersected with
    // every other part.
    parts.retain(|part| !piecewise::is_obviously_empty(part));
    // Each basic set with its sign: the sum is the signed sum of their sums.
    let signed_sets: Vec<(bool, BasicSet)> = match intersections(&parts, INCLUSION_EXCLUSION_SETS) {
        Some(found) => found
            .into_iter()
            .map(|(subset, intersection)| (subset.len() % 2 == 1, intersection))
            .collect(),
        None => disjoint::disjoint_parts(&parts)
            .into_iter()
            .map(|piece| (true, piece))
            .collect(),
    };
    let params_space = set.space.params_only();
    let mut pieces = Vec::new();
    for (positive, basic) in signed_sets {
        for class in &split.classes {
            let mut in_class = basic.clone();
            for congruence in &class.congruences {
                in_class.add_mod_constraint(
                    &Affine::var(congruence.column),
                    congruence.modulus.clone(),
                    congruence.residue.clone(),
                );
            }
            deadline::check()?;
            let mut engine = Engine::new(set.space.params.len(), split.symbols.len());
            let cells = match engine.sum(&in_class, &class.summand)? {
                EngineResult::Finite(cells) => cells,
                // An unbounded part makes the sum infinite whatever the other parts hold (and
                // parts come before their intersections).
                EngineResult::Infinite => return Ok(None),
            };
            for cell in cells {
                deadline::check()?;
                let piece = to_piece(&engine, &params_space, &split.symbols, cell)?;
                pieces.push(if positive {
                    piece
                } else {
                    Piece {
                        qp: piece.qp.neg(),
                        ..piece
                    }
                });
            }
        }
    }
    Ok(Some(pieces))
}

/// The basic sets of `domain` over `space`: its params and dims are `space`'s of the same
/// name, its locals come after `space`'s dims.
fn domain_in_space(domain: &Set, space: &Space) -> Result<Vec<BasicSet>, CountError> {
    let named: Vec<&String> = domain
        .space
        .params
        .iter()
        .chain(&domain.space.dims)
        .collect();
    let mut columns = Vec::with_capacity(named.len());
    for name in named {
        let column = space
            .params
            .iter()
            .position(|p| p == name)
            .or_else(|| {
                let dim = space.dims.iter().position(|d| d == name)?;
                Some(space.params.len() + dim)
            })
            .ok_or_else(|| CountError::UnknownVariable(name.clone()))?;
        columns.push(column);
    }
    let first_local = space.params.len() + space.dims.len();
    let map = |c: usize| match columns.get(c) {
        Some(&column) => column,
        None => c - columns.len() + first_local,
    };
    Ok(domain
        .parts
        .iter()
        .map(|part| part.moved_to(space.clone(), map))
        .collect())
}

/// Non-empty intersections of every non-empty subset of `parts` (supersets of an empty
/// intersection are skipped), with the subset; parts come first. `None` when there are more
/// than `limit`.
fn intersections(parts: &[BasicSet], limit: usize) -> Option<Vec<(Vec<usize>, BasicSet)>> {
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
                    if found.len() + frontier.len() + next.len() > limit {
                        return None;
                    }
                }
            }
        }
        found.append(&mut frontier);
        frontier = next;
    }
    Some(found)
}

/// Turns an engine cell (over engine columns) into a piece over the parameters, keeping only
/// the divisions it uses.
fn to_piece(
    engine: &Engine,
    space: &Space,
    symbols: &[QuasiPolynomial],
    cell: FinishedCell,
) -> Result<Piece, CountError> {
    let n_params = space.params.len();
    let mut used = engine.divs_used_by(&cell.guard);
    used.extend(
        cell.summand
            .variables()
            .into_iter()
            .filter(|&c| c >= n_params && engine.symbol_of_column(c).is_none()),
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
    let qp = QuasiPolynomial::compose(&cell.summand, |&c| match engine.symbol_of_column(c) {
        Some(symbol) => symbols[symbol].clone(),
        None => atoms[column(c)].clone(),
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

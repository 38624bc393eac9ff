//! Disjoint decomposition of a union of basic sets: `A ∪ B ∪ C = A ⊎ (B \ A) ⊎ (C \ (A ∪ B))`,
//! so a union of any size is counted as a sum of basic sets, with work roughly quadratic in the
//! number of parts where inclusion–exclusion is exponential.
//!
//! A basic set minus a basic set is a union of basic sets, one per negated constraint of the
//! subtrahend (`B ∧ ¬c1`, `B ∧ c1 ∧ ¬c2`, …; `piecewise::subtract`). That is exact over integers only
//! when the subtrahend's locals are divisions (a division is defined at every point, an
//! existential witness is not), so the parts come here without existentials.

use crate::set::BasicSet;

use super::piecewise::{is_obviously_empty, subtract, without_redundant};

/// Pairwise disjoint basic sets whose union is the union of `parts` (all with division locals
/// only).
pub(super) fn disjoint_parts(parts: &[BasicSet]) -> Vec<BasicSet> {
    let mut pieces = Vec::new();
    for (index, part) in parts.iter().enumerate() {
        let rest = parts[..index].iter().fold(vec![part.clone()], minus);
        pieces.extend(
            rest.into_iter()
                .map(|piece| without_unused_divisions(without_redundant(piece))),
        );
    }
    pieces
}

/// `pieces \ other`; a piece that misses `other` stays whole.
pub(super) fn minus(pieces: Vec<BasicSet>, other: &BasicSet) -> Vec<BasicSet> {
    pieces
        .into_iter()
        .flat_map(|piece| {
            if is_obviously_empty(&piece.intersect(other)) {
                vec![piece]
            } else {
                subtract(&piece, other)
            }
        })
        .collect()
}

/// The set without the divisions that no constraint (or used division) mentions: a
/// subtraction brings in all the subtrahend's divisions, and each one left would be one more
/// variable for the engine to sum over.
fn without_unused_divisions(mut set: BasicSet) -> BasicSet {
    let first = set.local_column(0);
    let mut used = vec![false; set.locals.len()];
    for c in &set.constraints {
        for column in c.expr.support().filter(|&c| c >= first) {
            used[column - first] = true;
        }
    }
    // Numerators mention earlier columns only: one backward pass finds every used division.
    for i in (0..set.locals.len()).rev() {
        match &set.locals[i].div {
            Some(div) if used[i] => {
                for column in div.numerator.support().filter(|&c| c >= first) {
                    used[column - first] = true;
                }
            }
            Some(_) => {}
            None => used[i] = true,
        }
    }
    let mut new_column = Vec::with_capacity(set.n_columns());
    new_column.extend(0..first);
    let mut next = first;
    for &keep in &used {
        new_column.push(next);
        next += usize::from(keep);
    }
    let map = |c: usize| new_column[c];
    set.constraints = set.constraints.iter().map(|c| c.remap(map)).collect();
    let mut index = 0;
    set.locals.retain(|_| {
        index += 1;
        used[index - 1]
    });
    for local in &mut set.locals {
        if let Some(div) = &mut local.div {
            div.numerator = div.numerator.remap(map);
        }
    }
    set
}

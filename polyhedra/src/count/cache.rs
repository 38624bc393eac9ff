//! The counts already computed in this process, by canonical form: a set's parameters and dims
//! renamed in order (`p0, p1, …`, `d0, d1, …`, locals `l0, …`), and its weight renamed the
//! same way. An analysis counts the same loop-invariant set many times (once per allocation
//! site, call site and memRq term), often under other names; each is counted once.
//!
//! A miss counts the set as it is given (so a first count is exactly what counting without a
//! cache gives) and stores the result in canonical names; a hit renames the stored result to
//! the caller's names. Sets whose names are not all distinct, or whose weight mentions a name
//! the set does not have (an error to report with its name), bypass the cache.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use crate::quasipoly::QuasiPolynomial;
use crate::set::{Set, Space};

use super::{Count, CountError, PiecewiseQuasiPolynomial};

/// Above this many entries the cache starts over, so that a long analysis stays bounded.
const CACHE_LIMIT: usize = 4096;

/// What is summed over a set.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) enum Weight {
    /// One quasi-polynomial over the set's dims and parameters (1 for a count).
    Uniform(QuasiPolynomial),
    /// Pieces whose domains are matched to the set's names.
    Piecewise(PiecewiseQuasiPolynomial),
}

type Key = (Set, Weight);

static CACHE: LazyLock<Mutex<HashMap<Key, Result<Count, CountError>>>> =
    LazyLock::new(Mutex::default);

/// The result of `compute` (which sums `weight` over `set`), from the cache when a set of the
/// same canonical form was summed with the same weight before.
pub(super) fn cached(
    set: &Set,
    weight: Weight,
    compute: impl FnOnce() -> Result<Count, CountError>,
) -> Result<Count, CountError> {
    let Some(names) = Names::of(&set.space) else {
        return compute();
    };
    if !names.covers(&weight) {
        return compute();
    }
    let key = (names.canonical_set(set), names.canonical_weight(&weight));
    let stored = lock().get(&key).cloned();
    if let Some(stored) = stored {
        return stored.map(|count| count.renamed(&|name| names.original(name)));
    }
    let result = compute();
    if result == Err(CountError::TimeLimit) {
        // Another caller, or this one in a later run, may have the time.
        return result;
    }
    let canonical = result
        .clone()
        .map(|count| count.renamed(&|name| names.canonical(name)));
    let mut cache = lock();
    if cache.len() >= CACHE_LIMIT {
        cache.clear();
    }
    cache.insert(key, canonical);
    result
}

/// Empties the cache (its entries are only ever reused, never wrong: this bounds memory).
pub fn clear_count_cache() {
    lock().clear();
}

fn lock() -> std::sync::MutexGuard<'static, HashMap<Key, Result<Count, CountError>>> {
    // A panic while the lock was held leaves a map that is still consistent.
    CACHE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The canonical name of each parameter and dim of a space (all distinct).
struct Names {
    /// (original, canonical) pairs.
    pairs: Vec<(String, String)>,
}

impl Names {
    fn of(space: &Space) -> Option<Names> {
        let pairs: Vec<(String, String)> = (space.params.iter().enumerate())
            .map(|(i, name)| (name.clone(), format!("p{i}")))
            .chain((space.dims.iter().enumerate()).map(|(i, name)| (name.clone(), format!("d{i}"))))
            .collect();
        let mut originals: Vec<&String> = pairs.iter().map(|(name, _)| name).collect();
        originals.sort();
        originals.dedup();
        (originals.len() == pairs.len()).then_some(Names { pairs })
    }

    fn canonical(&self, name: &str) -> String {
        self.pairs
            .iter()
            .find(|(original, _)| original == name)
            .map_or_else(|| name.to_string(), |(_, canonical)| canonical.clone())
    }

    fn original(&self, name: &str) -> String {
        self.pairs
            .iter()
            .find(|(_, canonical)| canonical == name)
            .map_or_else(|| name.to_string(), |(original, _)| original.clone())
    }

    fn knows(&self, name: &str) -> bool {
        self.pairs.iter().any(|(original, _)| original == name)
    }

    /// True when every name the weight mentions is a parameter or dim of the set.
    fn covers(&self, weight: &Weight) -> bool {
        match weight {
            Weight::Uniform(qp) => qp.variables().iter().all(|v| self.knows(v)),
            Weight::Piecewise(pw) => pw.pieces.iter().all(|piece| {
                let space = &piece.domain.space;
                (space.params.iter().chain(&space.dims)).all(|v| self.knows(v))
                    && piece.qp.variables().iter().all(|v| self.knows(v))
            }),
        }
    }

    fn canonical_set(&self, set: &Set) -> Set {
        let mut set = set.renamed(&|name| self.canonical(name));
        for part in &mut set.parts {
            for (i, local) in part.locals.iter_mut().enumerate() {
                local.name = format!("l{i}");
            }
        }
        set
    }

    fn canonical_weight(&self, weight: &Weight) -> Weight {
        let rename = |name: &str| self.canonical(name);
        match weight {
            Weight::Uniform(qp) => Weight::Uniform(qp.renamed(&rename)),
            Weight::Piecewise(pw) => Weight::Piecewise(pw.renamed(&rename)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::parse_point;
    use crate::count::{count, sum};
    use crate::isl::parse_set;

    const FIRST: &str = "[n, m] -> { [i, j] : 0 <= i < n and 0 <= j <= i + m and i mod 2 = 0 }";
    const RENAMED: &str = "[a, b] -> { [x, y] : 0 <= x < a and 0 <= y <= x + b and x mod 2 = 0 }";

    fn key_of(text: &str) -> Key {
        let set = parse_set(text).unwrap();
        let names = Names::of(&set.space).unwrap();
        let weight = Weight::Uniform(QuasiPolynomial::constant(1));
        (names.canonical_set(&set), names.canonical_weight(&weight))
    }

    #[test]
    fn a_renamed_set_is_answered_from_the_cache() {
        count(&parse_set(FIRST).unwrap()).unwrap();
        // A marker in place of the stored count shows where the next answer comes from.
        lock().insert(key_of(FIRST), Ok(Count::Infinite));
        let again = count(&parse_set(RENAMED).unwrap());
        lock().remove(&key_of(FIRST));
        assert_eq!(again, Ok(Count::Infinite));
    }

    #[test]
    fn a_hit_gives_the_count_in_the_callers_names() {
        let first = count(&parse_set(FIRST).unwrap()).unwrap();
        let again = count(&parse_set(RENAMED).unwrap()).unwrap();
        let Count::Finite(pw) = &again else {
            panic!("a bounded set has a finite count")
        };
        assert_eq!(pw.space.params, ["a", "b"]);
        let value =
            |counted: &Count, point: String| counted.eval(&parse_point(&point).unwrap()).unwrap();
        for (n, m) in [(0, 0), (1, 3), (4, 0), (7, 2), (8, 5)] {
            assert_eq!(
                value(&again, format!("a={n}, b={m}")),
                value(&first, format!("n={n}, m={m}"))
            );
        }
    }

    #[test]
    fn a_weight_over_an_unknown_name_is_not_taken_for_a_canonical_one() {
        let set = parse_set("[n] -> { [i] : 0 <= i < n }").unwrap();
        sum(&set, &QuasiPolynomial::var("n")).unwrap();
        // `p0` is the canonical name of `n`, but here it names nothing of the set.
        let error = sum(&set, &QuasiPolynomial::var("p0")).unwrap_err();
        assert_eq!(error, CountError::UnknownVariable("p0".to_string()));
    }
}

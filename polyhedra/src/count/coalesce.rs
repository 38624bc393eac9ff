//! Fewer chambers: once counting has made its pieces disjoint, a piece whose value is 0 at each
//! of its integer points is dropped (0 is the value outside every piece), and two pieces merge
//! when one's quasi-polynomial is also the value on the other's points and their union is a
//! single basic set. Both steps are exact. A value is compared point by point only on a
//! bounded domain with few integer points (the degenerate chambers, like `n = -1`, that the
//! summation's relaxed ranges leave behind); elsewhere two pieces merge only when their
//! quasi-polynomials are equal. The union of two basic sets is taken to be the set of the
//! constraints of each that hold on the other, and accepted only when that set minus the two
//! is proved empty, so a merged chamber never holds a point that neither piece held.
//!
//! This is not isl's full coalescing (no wrapping of constraints, no unions of three or more
//! pieces at once): it removes the common redundancy of summation output, not every one.

use num_traits::ToPrimitive;

use super::piecewise::{is_obviously_empty, subtract, without_redundant};
use crate::affine::Affine;
use crate::constraint::Constraint;
use crate::lp::{self, LpResult};
use crate::quasipoly::QuasiPolynomial;
use crate::scalar::{Int, Rat};
use crate::set::BasicSet;

/// A bounded domain is enumerated when its bounding box holds at most this many points.
const ENUMERATION_LIMIT: i64 = 64;

/// A piece with the integer points of its domain when they are few and all known.
struct Candidate {
    domain: BasicSet,
    qp: QuasiPolynomial,
    points: Option<Vec<Vec<Int>>>,
}

impl Candidate {
    fn new(domain: BasicSet, qp: QuasiPolynomial) -> Candidate {
        let points = few_points(&domain);
        Candidate { domain, qp, points }
    }

    /// True when `qp` gives this piece's value at every one of its points.
    fn agrees_with(&self, qp: &QuasiPolynomial) -> bool {
        if *qp == self.qp {
            return true;
        }
        let Some(points) = &self.points else {
            return false;
        };
        let names = self
            .domain
            .space
            .params
            .iter()
            .chain(&self.domain.space.dims);
        let names: Vec<&String> = names.collect();
        points.iter().all(|point| {
            let value = |var: &str| {
                names
                    .iter()
                    .position(|n| *n == var)
                    .map_or_else(Rat::zero, |i| Rat::from(&point[i]))
            };
            qp.eval(&value) == self.qp.eval(&value)
        })
    }
}

/// Drops the pieces that vanish on their domain and merges pieces as described above; the
/// pieces must be pairwise disjoint, and stay so.
pub(super) fn coalesce(
    pieces: Vec<(BasicSet, QuasiPolynomial)>,
) -> Vec<(BasicSet, QuasiPolynomial)> {
    let zero = QuasiPolynomial::zero();
    let mut candidates: Vec<Candidate> = pieces
        .into_iter()
        .map(|(domain, qp)| Candidate::new(domain, qp))
        .filter(|c| !c.agrees_with(&zero))
        .collect();
    while let Some((keep, absorbed, union)) = find_merge(&candidates) {
        let qp = candidates[keep].qp.clone();
        candidates[keep] = Candidate::new(union, qp);
        candidates.remove(absorbed);
    }
    candidates.into_iter().map(|c| (c.domain, c.qp)).collect()
}

/// The first pair `(keep, absorbed)` whose union is a basic set on which `keep`'s value holds.
fn find_merge(candidates: &[Candidate]) -> Option<(usize, usize, BasicSet)> {
    for (keep, kept) in candidates.iter().enumerate() {
        for (absorbed, other) in candidates.iter().enumerate() {
            if keep == absorbed || !other.agrees_with(&kept.qp) {
                continue;
            }
            // Equal values are tried once per pair.
            if other.qp == kept.qp && absorbed < keep {
                continue;
            }
            if let Some(union) = convex_union(&kept.domain, &other.domain) {
                return Some((keep, absorbed, union));
            }
        }
    }
    None
}

/// `a ∪ b` as one basic set, when it is one (over integer points).
pub(crate) fn convex_union(a: &BasicSet, b: &BasicSet) -> Option<BasicSet> {
    // Both over the same locals: `joined` holds a's constraints, then b's.
    let joined = a.intersect(b);
    let split = a.constraints.len();
    let with = |constraints: &[Constraint]| BasicSet {
        constraints: constraints.to_vec(),
        ..joined.clone()
    };
    let (a, b) = (
        with(&joined.constraints[..split]),
        with(&joined.constraints[split..]),
    );
    let mut hull = with(&[]);
    for (own, other) in [(&a, &b), (&b, &a)] {
        for constraint in &own.constraints {
            if !hull.constraints.contains(constraint) && holds_on(other, constraint) {
                hull.add_constraint(constraint.clone());
            }
        }
    }
    // a ⊆ hull and b ⊆ hull by construction; the union is the hull when nothing else is in it.
    let beyond_both = subtract(&hull, &a)
        .iter()
        .any(|rest| !subtract(rest, &b).is_empty());
    (!beyond_both).then(|| without_redundant(hull))
}

/// True when every integer point of `set` satisfies `constraint`.
fn holds_on(set: &BasicSet, constraint: &Constraint) -> bool {
    constraint
        .integer_complement()
        .into_iter()
        .all(|complement| {
            let mut test = set.clone();
            test.add_constraint(complement);
            is_obviously_empty(&test)
        })
}

/// The integer points of a domain (over its params and dims) when its locals are divisions
/// and its rational bounding box is finite and small.
fn few_points(domain: &BasicSet) -> Option<Vec<Vec<Int>>> {
    if !domain.has_only_divs() {
        return None;
    }
    let constraints: Vec<Constraint> = domain
        .all_constraints()
        .iter()
        .map(Constraint::normalized_for_integers)
        .collect();
    let columns = domain.n_params() + domain.n_dims();
    let mut ranges: Vec<(i64, i64)> = Vec::new();
    let mut size: i64 = 1;
    for column in 0..columns {
        let lowest = match lp::minimize(&Affine::var(column), &constraints) {
            LpResult::Infeasible => return Some(Vec::new()),
            LpResult::Unbounded => return None,
            LpResult::Optimal(value) => value.ceil().to_i64()?,
        };
        let highest = match lp::minimize(&Affine::var(column).neg(), &constraints) {
            LpResult::Optimal(value) => (-value).floor().to_i64()?,
            _ => return None,
        };
        if highest < lowest {
            return Some(Vec::new());
        }
        size = size.checked_mul(highest.checked_sub(lowest)?.checked_add(1)?)?;
        if size > ENUMERATION_LIMIT {
            return None;
        }
        ranges.push((lowest, highest));
    }
    let mut points: Vec<Vec<Int>> = vec![Vec::new()];
    for (lowest, highest) in ranges {
        points = points
            .into_iter()
            .flat_map(|p| (lowest..=highest).map(move |x| [p.clone(), vec![Int::from(x)]].concat()))
            .collect();
    }
    let (n_params, mut kept) = (domain.n_params(), Vec::new());
    for point in points {
        if domain.contains(&point[..n_params], &point[n_params..])? {
            kept.push(point);
        }
    }
    Some(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::{Count, count};
    use crate::isl::parse_set;

    fn basic(text: &str) -> BasicSet {
        let mut set = parse_set(text).unwrap();
        assert_eq!(set.parts.len(), 1);
        set.parts.remove(0)
    }

    #[test]
    fn adjacent_intervals_merge_and_separated_ones_do_not() {
        let low = basic("[n] -> { [] : 0 <= n <= 5 }");
        let high = basic("[n] -> { [] : 6 <= n <= 9 }");
        let union = convex_union(&low, &high).unwrap();
        let inside: Vec<bool> = (-1..=10)
            .map(|n| union.contains(&[Int::from(n)], &[]).unwrap())
            .collect();
        assert_eq!(inside, [&[false][..], &[true; 10], &[false]].concat());
        let far = basic("[n] -> { [] : 7 <= n <= 9 }");
        assert!(convex_union(&low, &far).is_none());
    }

    #[test]
    fn an_l_shape_is_not_one_basic_set() {
        let left = basic("[n, m] -> { [] : 0 <= n <= 1 and 0 <= m <= 3 }");
        let bottom = basic("[n, m] -> { [] : 2 <= n <= 3 and 0 <= m <= 1 }");
        assert!(convex_union(&left, &bottom).is_none());
        let right = basic("[n, m] -> { [] : 2 <= n <= 3 and 0 <= m <= 3 }");
        assert!(convex_union(&left, &right).is_some());
    }

    #[test]
    fn unions_over_floors_are_exact() {
        // Even n in [0, 4] and odd n in [0, 4] make all of [0, 4].
        let even = basic("[n] -> { [] : 0 <= n <= 4 and n mod 2 = 0 }");
        let odd = basic("[n] -> { [] : 0 <= n <= 4 and n mod 2 = 1 }");
        let union = convex_union(&even, &odd).unwrap();
        for n in -2..=6 {
            let expected = (0..=4).contains(&n);
            assert_eq!(union.contains(&[Int::from(n)], &[]), Some(expected));
        }
    }

    #[test]
    fn a_chamber_where_the_count_is_zero_is_dropped() {
        // The summation leaves n = -1 (where the count is 0) as a chamber of its own.
        let set = parse_set("[n] -> { [i, w] : 0 <= i < n and 1 <= w and 8w <= 4i + 23 }");
        let Count::Finite(count) = count(&set.unwrap()).unwrap() else {
            panic!("finite set")
        };
        assert_eq!(
            count.to_isl(),
            "[n] -> { (1/4*n^2 - 1/4*floor((n - 1)/2) + 1/4*floor((n - 2)/2) + 2*n) : n >= 0 }"
        );
    }
}

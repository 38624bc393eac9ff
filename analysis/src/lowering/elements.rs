//! Which calls on the elements of a tree's array field share the sum of the elements' sizes
//! ([`super::trees`]): over one activation, a call site passes distinct elements when no two of
//! its executions (told apart by the counters of the loops around it) read the element at the
//! same index, and two such sites pass distinct elements when the indices they read never
//! meet. The elements' subtrees being disjoint (`TREE_SHAPED`), the sizes a group of such calls
//! passes sum to at most the array's: what the summaries' split law adds to each activation's
//! calls (`summary::measured`). Both are read off the invariants at the calls.

use std::collections::HashMap;

use membound_invariants::{Analysis, Invariant, ProcId, Program};
use membound_polyhedra::{Affine, Constraint, Polyhedron, Rat};

use super::body::{ElementCall, PointKey};
use membound_invariants::PointId;

/// A call's share of the sum of an array's element sizes: the callee's formal `callee_formal`
/// is the size of an element of the array whose sum is the caller's formal `caller_formal`;
/// the calls of one `group` pass distinct elements, over all their executions in one
/// activation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElementShare {
    pub callee_formal: usize,
    pub caller_formal: usize,
    pub group: usize,
}

/// The shares of every element call (by caller, offset and callee), from the invariants at the
/// calls (before their columns are narrowed); `inductive` names each point's loop counters.
pub(super) fn element_shares(
    program: &Program,
    analysis: &Analysis,
    points: &HashMap<(ProcId, PointKey), Option<PointId>>,
    inductive: &[Vec<String>],
    calls: &[(ProcId, Vec<ElementCall>)],
) -> HashMap<(ProcId, u32, ProcId), Vec<ElementShare>> {
    let mut shares: HashMap<(ProcId, u32, ProcId), Vec<ElementShare>> = HashMap::new();
    for (caller, calls) in calls {
        if analysis.procedures[caller.0].gave_up() {
            continue;
        }
        let procedure = program.procedure(*caller);
        // Per group: the array's formal and the indices each member reads.
        let mut groups: Vec<(usize, Vec<Invariant>)> = Vec::new();
        for call in calls {
            let Some(Some(point)) = points.get(&(*caller, PointKey::Call(call.pc, call.callee)))
            else {
                continue;
            };
            let invariant = &analysis.invariants[point.0];
            let index = procedure.var_name(call.index);
            let counters: Vec<&str> = inductive[point.0].iter().map(String::as_str).collect();
            if !distinct_per_execution(invariant, &counters, index) {
                continue;
            }
            let indices = invariant.project_onto(&[index]);
            let joins = groups.iter().position(|(formal, members)| {
                *formal == call.caller_formal && members.iter().all(|m| never_meet(m, &indices))
            });
            let group = match joins {
                Some(group) => {
                    groups[group].1.push(indices);
                    group
                }
                None => {
                    groups.push((call.caller_formal, vec![indices]));
                    groups.len() - 1
                }
            };
            shares
                .entry((*caller, call.pc, call.callee))
                .or_default()
                .push(ElementShare {
                    callee_formal: call.callee_formal,
                    caller_formal: call.caller_formal,
                    group,
                });
        }
    }
    shares
}

/// Whether no two points of `invariant` with the same parameters and `index` differ in
/// `counters`: two executions ordered lexicographically by their counters never read one index.
fn distinct_per_execution(invariant: &Invariant, counters: &[&str], index: &str) -> bool {
    let kept: Vec<&str> = counters.iter().copied().chain([index]).collect();
    let projected = invariant.project_onto(&kept);
    if projected.dims.len() != kept.len() {
        return false;
    }
    let params = projected.params.len();
    let width = counters.len() + 1;
    let dim = params + 2 * width;
    // Copy `c`'s column of dimension `d` (the index last).
    let column = |copy: usize, d: usize| params + copy * width + d;
    let in_copy = |copy: usize| {
        move |col: usize| match col < params {
            true => col,
            false => column(copy, col - params),
        }
    };
    let same = |d: usize| Constraint::eq(Affine::var(column(0, d)).sub(&Affine::var(column(1, d))));
    let parts = &projected.value.parts;
    parts.iter().all(|first| {
        parts.iter().all(|second| {
            (0..counters.len()).all(|level| {
                let mut constraints: Vec<Constraint> = first
                    .poly
                    .constraints()
                    .iter()
                    .map(|c| c.remap(in_copy(0)))
                    .chain(
                        second
                            .poly
                            .constraints()
                            .iter()
                            .map(|c| c.remap(in_copy(1))),
                    )
                    .collect();
                constraints.push(same(counters.len()));
                constraints.extend((0..level).map(same));
                // The first copy's counter at `level` is below the second's.
                let below = Affine::var(column(1, level))
                    .sub(&Affine::var(column(0, level)))
                    .sub(&Affine::constant(Rat::from(1)));
                constraints.push(Constraint::ge(below));
                Polyhedron::from_constraints(dim, constraints).is_empty()
            })
        })
    })
}

/// Whether two sets of one index (over the same parameters) have no point in common.
fn never_meet(one: &Invariant, other: &Invariant) -> bool {
    one.value.parts.iter().all(|a| {
        other
            .value
            .parts
            .iter()
            .all(|b| a.poly.intersect(&b.poly).is_empty())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use membound_polyhedra::{BasicSet, Set, Space};

    /// The invariant over parameter `n` and the dims `names` with these constraints (columns:
    /// `n`, then the dims).
    fn invariant(names: &[&str], constraints: &[(&[i64], i64, bool)]) -> Invariant {
        let space = Space::new(
            vec!["n".to_string()],
            names.iter().map(|n| n.to_string()).collect(),
        );
        let mut basic = BasicSet::universe(space);
        for (coeffs, constant, equal) in constraints {
            let expr = Affine::from_ints(coeffs, *constant);
            basic.add_constraint(match equal {
                true => Constraint::eq(expr),
                false => Constraint::ge(expr),
            });
        }
        Invariant::from_set(&Set::from_basic(basic))
    }

    #[test]
    fn a_loop_reading_the_element_at_its_counter_reads_distinct_elements() {
        // 0 <= c <= 3, i = c.
        let read = invariant(
            &["c", "i"],
            &[
                (&[0, 1, 0], 0, false),
                (&[0, -1, 0], 3, false),
                (&[0, 1, -1], 0, true),
            ],
        );
        assert!(distinct_per_execution(&read, &["c"], "i"));
        // i = 0 on every iteration: one element, four times.
        let first = invariant(
            &["c", "i"],
            &[
                (&[0, 1, 0], 0, false),
                (&[0, -1, 0], 3, false),
                (&[0, 0, 1], 0, true),
            ],
        );
        assert!(!distinct_per_execution(&first, &["c"], "i"));
        // No loop: one execution.
        let once = invariant(&["i"], &[(&[0, 1], 0, true)]);
        assert!(distinct_per_execution(&once, &[], "i"));
    }

    #[test]
    fn an_inner_loop_calling_on_one_element_repeats_it() {
        // Outer counter c, inner d in 0..=1, i = c: two executions per index.
        let read = invariant(
            &["c", "d", "i"],
            &[
                (&[0, 1, 0, 0], 0, false),
                (&[0, 0, 1, 0], 0, false),
                (&[0, 0, -1, 0], 1, false),
                (&[0, 1, 0, -1], 0, true),
            ],
        );
        assert!(!distinct_per_execution(&read, &["c", "d"], "i"));
    }

    #[test]
    fn constant_indices_that_differ_never_meet() {
        let zero = invariant(&["i"], &[(&[0, 1], 0, true)]);
        let one = invariant(&["i"], &[(&[0, 1], -1, true)]);
        assert!(never_meet(&zero, &one));
        assert!(!never_meet(&zero, &zero));
    }
}

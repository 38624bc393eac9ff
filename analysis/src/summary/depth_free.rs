//! Recursions whose cost does not grow with their depth: a decorator that hands each call to
//! the object it wraps (`return decorated().indexOf(o)`), a composite that asks its delegate.
//! Their depth follows objects, which no formal measures, so the solvers of [`super::recursion`]
//! find no law; but when an activation allocates nothing on its way into the component, what a
//! whole chain allocates is what its last activation does, whatever the depth.
//!
//! The members' summaries are iterated from none (a call into the component left out), each
//! round summarizing every member over the others' last summaries. When a round changes none,
//! they are a fixpoint `S = F(S)` of the summary equations, and any fixpoint bounds every
//! activation of finite depth: by induction, an activation of depth `d + 1` allocates at most
//! `F(bound at depth d) <= F(S) = S`. A per-level allocation makes every round grow, so no
//! fixpoint is reached within the rounds allowed and the component stays ∞. That the depth is
//! finite (no cycle among the objects followed) is the assumption [`DEPTH_FREE_RECURSION`].

use membound_front::callgraph::{Edge, NodeId};

use std::collections::HashSet;

use membound_polyhedra::Rat;

use super::{
    CLASS_INITIALIZER, Counted, Inputs, Layered, Levels, MethodSummary, Qty, Recursion, Summaries,
    method_summary,
};

/// The assumption a bound through such a recursion rests on.
pub const DEPTH_FREE_RECURSION: &str = "a recursion bounded without its depth (each activation allocating nothing on its way into the next, as a decorator delegating to the object it wraps) terminates: it reaches no object twice and its integer arguments reach a base case";

/// Components larger than this are left ∞: each round summarizes every member again.
const MAX_MEMBERS: usize = 24;

/// The members' summaries when the iteration reaches a fixpoint, each marked as an unbounded
/// number of levels ([`Levels::Unbounded`]) for the regions; `None` when it does not.
pub(super) fn summaries(
    inputs: &Inputs<'_>,
    done: &Summaries,
    members: &[NodeId],
    adjacency: &[Vec<&Edge>],
) -> Option<Vec<(NodeId, MethodSummary)>> {
    if members.is_empty() || members.len() > MAX_MEMBERS {
        return None;
    }
    let mut layered = Layered::over(done);
    // A chain's cost reaches a member through at most every other member once.
    for _ in 0..=members.len() + 1 {
        if inputs.out_of_time() {
            return None;
        }
        let mut changed = false;
        for &member in members {
            let summary = method_summary(inputs, &layered, &adjacency[member], member);
            changed |= layered.of(member).is_none_or(|last| !same(last, &summary));
            layered.set(member, summary);
        }
        if !changed {
            let once = initializers_reached(inputs, &layered, members, adjacency)?;
            return Some(marked(layered, members, adjacency, &once));
        }
    }
    None
}

/// Whether two summaries of one method have the same totals, finite and reaching no unseen
/// code. Only the totals settle: a call's entries add up over its targets, while its totals take
/// the largest target, so a site reached through a member and through the chain's last call
/// counts once more every round. The once parts do not settle either (a call adds its
/// targets' class initializers, and each round nests one more call):
/// [`initializers_reached`] bounds them instead.
fn same(a: &MethodSummary, b: &MethodSummary) -> bool {
    let settled = |s: &MethodSummary| {
        [&s.objects, &s.bytes, &s.once_objects, &s.once_bytes]
            .iter()
            .all(|qty| !qty.is_infinite())
            && s.unbounded.is_empty()
            && s.diverges.is_empty()
    };
    settled(a) && settled(b) && a.objects == b.objects && a.bytes == b.bytes
}

/// What the class initializers the component may reach allocate in all, objects and bytes:
/// each runs at most once in a run, so their totals with their own once parts, each taken
/// once, bound what any activation of a member adds once, however deep. None when one is not
/// a finite constant (or not summarized).
fn initializers_reached(
    inputs: &Inputs<'_>,
    layered: &Layered<'_>,
    members: &[NodeId],
    adjacency: &[Vec<&Edge>],
) -> Option<(Rat, Rat)> {
    let mut seen: HashSet<NodeId> = members.iter().copied().collect();
    let mut work: Vec<NodeId> = members.to_vec();
    let mut once = (Rat::zero(), Rat::zero());
    while let Some(node) = work.pop() {
        for edge in &adjacency[node] {
            if seen.insert(edge.callee) {
                work.push(edge.callee);
            }
        }
        if inputs.graph.methods[node].method.name.as_ref() != CLASS_INITIALIZER {
            continue;
        }
        let summary = layered.of(node)?;
        let whole = |total: &Qty, part: &Qty| total.add(part).largest_constant();
        once.0 += whole(&summary.objects, &summary.once_objects)?;
        once.1 += whole(&summary.bytes, &summary.once_bytes)?;
    }
    Some(once)
}

/// The fixpoint's summaries in the members' order, each site bounded by the totals, with the
/// calls among the members as the paths of its unbounded levels.
fn marked(
    mut layered: Layered<'_>,
    members: &[NodeId],
    adjacency: &[Vec<&Edge>],
    (once_objects, once_bytes): &(Rat, Rat),
) -> Vec<(NodeId, MethodSummary)> {
    let paths: Vec<Vec<(NodeId, u32, NodeId)>> = members
        .iter()
        .flat_map(|&member| &adjacency[member])
        .filter(|edge| members.contains(&edge.callee))
        .map(|edge| vec![(edge.caller, edge.pc, edge.callee)])
        .collect();
    for &member in members {
        if let Some(mut summary) = layered.new.remove(&member) {
            summary.once_objects = Qty::constant(&summary.params, once_objects.clone());
            summary.once_bytes = Qty::constant(&summary.params, once_bytes.clone());
            // No site allocates more than all of them together: the settled totals (with the
            // class initializers' once part) bound each.
            let objects = summary.objects.add(&summary.once_objects);
            let most = Counted {
                count: objects.clone(),
                objects,
                bytes: summary.bytes.add(&summary.once_bytes),
            };
            for site in &mut summary.sites {
                site.parts
                    .values_mut()
                    .for_each(|part| *part = most.clone());
            }
            summary.recursion = Some(Recursion {
                levels: Levels::Unbounded,
                paths: paths.clone(),
            });
            layered.push(member, summary);
        }
    }
    layered.into_ordered()
}

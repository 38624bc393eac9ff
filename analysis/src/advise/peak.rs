//! The peak of a method under garbage-collection semantics, as a bound expression: at each
//! point where the method allocates (its own allocations and its calls), what it has allocated
//! so far and may still reach, plus what the point itself needs (a call: the callee's stack of
//! regions over the call's binding, as memRq counts it). Objects of a tracked allocation no
//! place holds at the point are left out. With every object counted this is memRq's sum
//! (memEscapes + memCaptured + the largest call); leaving out only what was surely freed keeps
//! it a bound.

use std::collections::BTreeSet;

use membound_front::ir::Body;

use crate::memalloc::{Amount, maximum, tidy};
use crate::summary::{MethodSummary, Place, Qty};

use super::references::Point;

/// One entry of the method's summary and the statement that allocates it.
pub(super) struct Entry {
    /// Its index in the summary's sites.
    pub index: usize,
    pub at: Point,
    /// The tracked allocation it is, when it is one.
    pub tracked: Option<usize>,
}

/// The allocation points of one method and what each holds.
pub(super) struct Timeline<'a> {
    pub summary: &'a MethodSummary,
    pub entries: Vec<Entry>,
    /// Each allocating point with what it needs beyond what the method holds.
    pub points: Vec<(Point, Amount)>,
    /// Per block, the blocks control may reach from its end (exception edges included).
    reach: Vec<BTreeSet<usize>>,
}

/// Whether tracked allocation `t` has no object left that can be reached at `point`.
pub(super) type Freed<'f> = &'f dyn Fn(usize, Point) -> bool;

impl<'a> Timeline<'a> {
    pub fn new(
        body: &Body,
        summary: &'a MethodSummary,
        entries: Vec<Entry>,
        points: Vec<(Point, Amount)>,
    ) -> Timeline<'a> {
        Timeline {
            summary,
            entries,
            points,
            reach: reachable(body),
        }
    }

    /// Whether the entry's statement may have run before `point` (or is the point).
    fn allocated_by(&self, entry: &Entry, point: Point) -> bool {
        let (from, to) = (entry.at, point);
        (from.block == to.block && from.index <= to.index)
            || self.reach[from.block.0 as usize].contains(&(to.block.0 as usize))
    }

    /// The entries that count at `point`: allocated by then and not freed.
    fn counted(&self, point: Point, freed: Freed<'_>) -> Vec<&Entry> {
        self.entries
            .iter()
            .filter(|entry| self.allocated_by(entry, point))
            .filter(|entry| entry.at == point || !entry.tracked.is_some_and(|t| freed(t, point)))
            .collect()
    }

    /// What the method may hold at `point` (its own region and what escapes it).
    fn held(&self, entries: &[&Entry]) -> Amount {
        let params = &self.summary.params;
        let (mut objects, mut bytes) = (Qty::zero(params), Qty::zero(params));
        for entry in entries {
            let parts = &self.summary.sites[entry.index].parts;
            for (_, counted) in parts.iter().filter(|(place, _)| **place != Place::Below) {
                objects = objects.add(&counted.objects);
                bytes = bytes.add(&counted.bytes);
            }
        }
        Amount {
            objects: objects.to_quantity(),
            bytes: bytes.to_quantity(),
        }
    }

    /// The largest of what is held at each allocating point plus what the point needs.
    pub fn peak(&self, freed: Freed<'_>) -> Amount {
        let at_points: Vec<Amount> = self
            .points
            .iter()
            .map(|(point, needs)| self.held(&self.counted(*point, freed)).plus(needs))
            .collect();
        let pick = |quantity: fn(&Amount) -> &crate::memalloc::Quantity| {
            self.summary.guarded(maximum(
                at_points.iter().map(|a| tidy(quantity(a))).collect(),
            ))
        };
        Amount {
            objects: pick(|a| &a.objects),
            bytes: pick(|a| &a.bytes),
        }
    }

    /// What counts at `point` without an advice and not with it.
    pub fn freed_by(&self, point: Point, without: Freed<'_>, with: Freed<'_>) -> Amount {
        let kept: Vec<usize> = self.counted(point, with).iter().map(|e| e.index).collect();
        let dropped: Vec<&Entry> = self
            .counted(point, without)
            .into_iter()
            .filter(|entry| !kept.contains(&entry.index))
            .collect();
        self.held(&dropped)
    }
}

/// Per block, the blocks reachable from its end in one step or more.
fn reachable(body: &Body) -> Vec<BTreeSet<usize>> {
    let next: Vec<Vec<usize>> = body
        .blocks
        .iter()
        .map(|block| {
            let handlers = block.handlers.iter().map(|h| h.target);
            block
                .terminator
                .successors()
                .into_iter()
                .chain(handlers)
                .map(|b| b.0 as usize)
                .collect()
        })
        .collect();
    (0..body.blocks.len())
        .map(|start| {
            let mut seen = BTreeSet::new();
            let mut work = next[start].clone();
            while let Some(block) = work.pop() {
                if seen.insert(block) {
                    work.extend(next[block].iter().copied());
                }
            }
            seen
        })
        .collect()
}

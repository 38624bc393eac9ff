//! The most memory a run kept reachable: at each snapshot the bytes the selected roots reach,
//! plus, at a snapshot the agent took as the watched method allocated (`alloc … +N`), the
//! object being made (not stored anywhere yet, so no root reaches it). A walk from the roots
//! sees what a collection at that moment would keep.

use std::fmt::Write;

use serde_json::{Value as Json, json};

use crate::scope::{RootSelection, reachable};
use crate::snapshot::Snapshot;

/// One snapshot's share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeakPoint {
    pub moment: String,
    /// Bytes the roots reach.
    pub reached: u64,
    /// Bytes of the object being allocated (0 unless the moment is an allocation).
    pub allocating: u64,
}

impl PeakPoint {
    pub fn total(&self) -> u64 {
        self.reached + self.allocating
    }
}

/// Every snapshot's share and the largest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peak {
    pub points: Vec<PeakPoint>,
    pub bytes: u64,
}

/// The peak over `snapshots`, reached from `selection`'s roots.
pub fn peak(snapshots: &[Snapshot], selection: RootSelection) -> Peak {
    let points: Vec<PeakPoint> = snapshots
        .iter()
        .map(|snapshot| {
            let in_scope = reachable(snapshot, selection);
            let reached = snapshot
                .objects()
                .iter()
                .zip(&in_scope)
                .filter(|(_, seen)| **seen)
                .map(|(object, _)| object.bytes)
                .sum();
            PeakPoint {
                moment: snapshot.moment.clone(),
                reached,
                allocating: allocating_bytes(&snapshot.moment),
            }
        })
        .collect();
    let bytes = points.iter().map(PeakPoint::total).max().unwrap_or(0);
    Peak { points, bytes }
}

/// The size an allocation moment names: `alloc pkg.C.m(I)V@12 +4016` → 4016.
fn allocating_bytes(moment: &str) -> u64 {
    moment
        .strip_prefix("alloc ")
        .and_then(|rest| rest.rsplit_once(" +"))
        .and_then(|(_, size)| size.parse().ok())
        .unwrap_or(0)
}

impl Peak {
    pub fn to_text(&self) -> String {
        let mut out = format!("peak: {} bytes reachable\n", self.bytes);
        for point in &self.points {
            let _ = writeln!(
                out,
                "  {}: {} bytes reached{}",
                point.moment,
                point.reached,
                match point.allocating {
                    0 => String::new(),
                    n => format!(" + {n} being allocated"),
                }
            );
        }
        out
    }

    pub fn to_json(&self) -> Json {
        let points: Vec<Json> = self
            .points
            .iter()
            .map(|p| json!({"moment": p.moment, "reached": p.reached, "allocating": p.allocating}))
            .collect();
        json!({"peak_bytes": self.bytes, "snapshots": points})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_allocation_moment_names_the_new_object_size() {
        assert_eq!(allocating_bytes("alloc p.C.run(II)J@12 +4016"), 4016);
        assert_eq!(allocating_bytes("gc 3"), 0);
        assert_eq!(allocating_bytes("exit p.C.run(II)J"), 0);
        assert_eq!(allocating_bytes("alloc p.C.run(II)J@12 +x"), 0);
    }
}

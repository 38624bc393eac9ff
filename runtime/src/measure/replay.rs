//! Method-region replay: the memory a run needs when every object lives in the region of one
//! method activation and is freed when that activation returns (thesis ch. 1, scoped memory).
//! The caller decides which activation of an allocation's chain owns the object (the region the
//! escape analysis assigns to its creation site); the replay walks the event stream in order
//! and reports, per entry of the watched method, the peak of what is live above what was live
//! when it was entered (objects an earlier entry let escape are not its own): the thesis's
//! `peakForRun`, which memRq bounds.

use super::events::{Allocation, Event, EventStream};
use std::collections::HashMap;

/// Where the replay puts an allocated object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// In the region of the activation of `chain[index]`, freed when it returns.
    Frame(usize),
    /// Outlives the watched method: never freed during the replay.
    Escapes,
}

/// The peaks of live objects and live bytes (they may be reached at different moments).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct RegionPeak {
    pub objects: u64,
    pub bytes: u64,
}

#[derive(Clone, Copy, Default)]
struct Live {
    objects: u64,
    bytes: u64,
}

/// The peak of one entry of the watched method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct EntryPeak {
    /// The watched method's activation.
    pub activation: u64,
    pub peak: RegionPeak,
}

/// A replay fed one event at a time, so that a long run needs no stream in memory.
pub struct RegionReplay<P> {
    place: P,
    regions: HashMap<u64, Live>,
    live: Live,
    /// Per entry seen so far: what was live when it began, and its peak above that.
    entries: Vec<(u64, Live, RegionPeak)>,
}

impl<P: Fn(&Allocation) -> Placement> RegionReplay<P> {
    /// A replay that puts objects where `place` says.
    pub fn new(place: P) -> Self {
        RegionReplay {
            place,
            regions: HashMap::new(),
            live: Live::default(),
            entries: Vec::new(),
        }
    }

    /// Replays one event. VM-internal allocations are not part of the model and are left out.
    /// An object placed in a frame the agent could not track (a native method, activation 0)
    /// goes to the nearest tracked caller, whose region ends no earlier.
    pub fn add(&mut self, event: &Event) {
        match event {
            Event::Allocation(allocation) if allocation.by_program => {
                // Every chain starts at the watched method's activation.
                let entry = allocation.chain.first().map_or(0, |f| f.activation);
                if self.entries.last().is_none_or(|(a, _, _)| *a != entry) {
                    self.entries.push((entry, self.live, RegionPeak::default()));
                }
                if let Some(owner) = owner(allocation, (self.place)(allocation)) {
                    let region = self.regions.entry(owner).or_default();
                    region.objects += 1;
                    region.bytes += allocation.bytes;
                }
                self.live.objects += 1;
                self.live.bytes += allocation.bytes;
                if let Some((_, base, peak)) = self.entries.last_mut() {
                    peak.objects = peak.objects.max(self.live.objects - base.objects);
                    peak.bytes = peak.bytes.max(self.live.bytes - base.bytes);
                }
            }
            Event::Exit { activation, .. } => {
                if let Some(freed) = self.regions.remove(activation) {
                    self.live.objects -= freed.objects;
                    self.live.bytes -= freed.bytes;
                }
            }
            Event::Allocation(_) | Event::Enter { .. } | Event::Reached { .. } => {}
        }
    }

    /// The peak of every entry that allocated, in order (an entry that allocated nothing
    /// peaked at 0 and is not listed).
    pub fn finish(self) -> Vec<EntryPeak> {
        self.entries
            .into_iter()
            .map(|(activation, _, peak)| EntryPeak { activation, peak })
            .collect()
    }
}

/// Replays a whole stream (see [`RegionReplay`]).
pub fn replay_regions(
    stream: &EventStream,
    place: impl Fn(&Allocation) -> Placement,
) -> Vec<EntryPeak> {
    let mut replay = RegionReplay::new(place);
    for event in &stream.events {
        replay.add(event);
    }
    replay.finish()
}

/// The activation owning an object, None when it escapes.
pub(super) fn owner(allocation: &Allocation, placement: Placement) -> Option<u64> {
    let Placement::Frame(index) = placement else {
        return None;
    };
    let frames = allocation.chain.get(..=index).unwrap_or(&allocation.chain);
    frames
        .iter()
        .rev()
        .map(|frame| frame.activation)
        .find(|&activation| activation != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::parse_events;

    /// m (activation 1) calls f twice (activations 2 and 3); each f allocates two objects,
    /// m allocates one after the calls.
    const CALLS: &str = "membound-agent 4
watch T.m()V
method 1 T.m()V
method 2 T.f()V
target 1
enter 1 1 1
enter 1 2 2
alloc 1 T$A 16 1:1:1:- 2:2:0:-
alloc 1 T$A 16 1:1:1:- 2:2:5:-
exit 1 2
enter 1 3 2
alloc 1 T$A 16 1:1:4:- 3:2:0:-
alloc 1 T$A 16 1:1:4:- 3:2:5:-
exit 1 3
alloc 1 T$B 24 1:1:9:-
exit 1 1
end 0
";

    /// The peak of the one entry of `CALLS`.
    fn replay(place: impl Fn(&Allocation) -> Placement) -> RegionPeak {
        let peaks = replay_regions(
            &parse_events(CALLS.as_bytes()).expect("valid stream"),
            place,
        );
        assert_eq!(peaks.len(), 1, "{peaks:?}");
        peaks[0].peak
    }

    #[test]
    fn objects_captured_by_their_allocating_method_are_freed_on_its_return() {
        let peak = replay(|a| Placement::Frame(a.chain.len() - 1));
        assert_eq!(
            peak,
            RegionPeak {
                objects: 2,
                bytes: 32
            }
        );
    }

    #[test]
    fn objects_placed_in_the_caller_accumulate() {
        let peak = replay(|_| Placement::Frame(0));
        assert_eq!(
            peak,
            RegionPeak {
                objects: 5,
                bytes: 88
            }
        );
    }

    #[test]
    fn escaping_objects_are_never_freed() {
        let escaping_first = |a: &Allocation| {
            if a.chain.last().is_some_and(|f| f.offset == 0) {
                Placement::Escapes
            } else {
                Placement::Frame(a.chain.len() - 1)
            }
        };
        // Live objects: 1, 2, (f returns) 1, 2, 3, (f returns) 2, 3 with m's 24-byte B.
        assert_eq!(
            replay(escaping_first),
            RegionPeak {
                objects: 3,
                bytes: 56
            }
        );
    }

    #[test]
    fn untracked_frames_hand_their_objects_to_the_caller() {
        let native = CALLS.replace("2:2:0:-", "0:2:0:-");
        let stream = parse_events(native.as_bytes()).expect("valid stream");
        let peaks = replay_regions(&stream, |a| Placement::Frame(a.chain.len() - 1));
        // The first object lives in m's region until the end: 1 + 1 (f), then 1 + 2 (second f).
        assert_eq!(peaks[0].peak.objects, 3);
    }

    #[test]
    fn each_entry_peaks_above_what_earlier_entries_left_live() {
        // m runs twice; everything escapes, so the second entry starts with 5 objects live.
        let twice = CALLS.replace("exit 1 1\nend 0\n", "exit 1 1\n")
            + &CALLS
                .lines()
                .skip_while(|l| !l.starts_with("enter"))
                .map(|l| l.replace(" 1 1 1", " 1 4 1").replace(" 1:1:", " 4:1:"))
                .map(|l| l.replace("exit 1 1", "exit 1 4"))
                .collect::<Vec<_>>()
                .join("\n");
        let stream = parse_events(twice.as_bytes()).expect("valid stream");
        let peaks = replay_regions(&stream, |_| Placement::Escapes);
        let objects: Vec<(u64, u64)> = peaks
            .iter()
            .map(|p| (p.activation, p.peak.objects))
            .collect();
        assert_eq!(objects, [(1, 5), (4, 5)]);
    }
}

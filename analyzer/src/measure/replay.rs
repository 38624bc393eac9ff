//! Method-region replay: the memory a run needs when every object lives in the region of one
//! method activation and is freed when that activation returns (thesis ch. 1, scoped memory).
//! The caller decides which activation of an allocation's chain owns the object (the region the
//! escape analysis assigns to its creation site); the replay walks the event stream in order
//! and reports the peak of what is live.

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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RegionPeak {
    pub objects: u64,
    pub bytes: u64,
}

#[derive(Default)]
struct Live {
    objects: u64,
    bytes: u64,
}

/// Replays the program allocations of `stream` into regions chosen by `place`. VM-internal
/// allocations are not part of the model and are left out. An object placed in a frame the
/// agent could not track (a native method, activation 0) goes to the nearest tracked caller,
/// whose region ends no earlier.
pub fn replay_regions(
    stream: &EventStream,
    place: impl Fn(&Allocation) -> Placement,
) -> RegionPeak {
    let mut regions: HashMap<u64, Live> = HashMap::new();
    let mut live = Live::default();
    let mut peak = RegionPeak::default();
    for event in &stream.events {
        match event {
            Event::Allocation(allocation) if allocation.by_program => {
                if let Some(owner) = owner(allocation, place(allocation)) {
                    let region = regions.entry(owner).or_default();
                    region.objects += 1;
                    region.bytes += allocation.bytes;
                }
                live.objects += 1;
                live.bytes += allocation.bytes;
                peak.objects = peak.objects.max(live.objects);
                peak.bytes = peak.bytes.max(live.bytes);
            }
            Event::Exit { activation, .. } => {
                if let Some(freed) = regions.remove(activation) {
                    live.objects -= freed.objects;
                    live.bytes -= freed.bytes;
                }
            }
            Event::Allocation(_) | Event::Enter { .. } => {}
        }
    }
    peak
}

/// The activation owning an object, None when it escapes.
fn owner(allocation: &Allocation, placement: Placement) -> Option<u64> {
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
    const CALLS: &str = "membound-agent 1
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

    fn replay(place: impl Fn(&Allocation) -> Placement) -> RegionPeak {
        replay_regions(
            &parse_events(CALLS.as_bytes()).expect("valid stream"),
            place,
        )
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
        let peak = replay_regions(&stream, |a| Placement::Frame(a.chain.len() - 1));
        // The first object lives in m's region until the end: 1 + 1 (f), then 1 + 2 (second f).
        assert_eq!(peak.objects, 3);
    }
}

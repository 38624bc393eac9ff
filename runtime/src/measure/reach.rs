//! The region check (`validate --check-regions`): every object the certificate places in a
//! method activation's region must be unreachable once that activation has returned. The agent
//! walks the heap at the exits of the methods it is told to (`region=`), and lists the program
//! allocations made since the activation began that the heap still reaches (`reached` lines);
//! the caller says which activation's region certainly holds each allocation. An object listed
//! at the exit of its region's activation, or of any activation after its region's activation
//! returned, is a broken region: an object never becomes reachable again once it is not, so it
//! was reachable when its region ended.

use super::events::{Allocation, Event, HeldBy};
use super::replay::{Placement, owner};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Objects of one creation site found reachable after their region ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BrokenRegion {
    /// `type allocated at pkg.C.m(desc)@offset (line n)`.
    pub site: String,
    /// The method whose activation's region the certificate puts them in.
    pub region: String,
    /// How many were still reachable.
    pub objects: u64,
    /// What held them when the walk first reached them (`a static field`, `the returned
    /// value`, …).
    pub held_by: Vec<&'static str>,
}

/// What the region check found.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct RegionCheckReport {
    /// Heap walks made at exits.
    pub exits_walked: u64,
    pub broken: Vec<BrokenRegion>,
}

/// An object in a region, by its allocation's number.
struct Owned {
    activation: u64,
    /// Index in `sites`.
    site: usize,
    /// False once its region's activation has returned.
    alive: bool,
}

/// The check fed one event at a time, beside the other readers of a run.
pub struct RegionCheck<P> {
    /// Which frame's region certainly holds an allocation (the latest the certificate allows).
    place: P,
    owned: HashMap<u64, Owned>,
    by_activation: HashMap<u64, Vec<u64>>,
    by_entry: HashMap<u64, Vec<u64>>,
    /// (site text, region method), each once.
    sites: Vec<(String, String)>,
    site_index: HashMap<(String, String), usize>,
    exits_walked: u64,
    /// Site index → objects found reachable after their region ended, and what held them.
    broken: BTreeMap<usize, (u64, BTreeSet<HeldBy>)>,
}

impl<P: Fn(&Allocation) -> Placement> RegionCheck<P> {
    pub fn new(place: P) -> Self {
        RegionCheck {
            place,
            owned: HashMap::new(),
            by_activation: HashMap::new(),
            by_entry: HashMap::new(),
            sites: Vec::new(),
            site_index: HashMap::new(),
            exits_walked: 0,
            broken: BTreeMap::new(),
        }
    }

    pub fn add(&mut self, event: &Event) {
        match event {
            Event::Allocation(allocation) if allocation.by_program => self.allocated(allocation),
            Event::Reached {
                activation,
                objects,
                ..
            } => {
                self.exits_walked += 1;
                for &(number, held_by) in objects {
                    self.reached(*activation, number, held_by);
                }
            }
            Event::Exit { activation, .. } => self.exited(*activation),
            Event::Allocation(_) | Event::Enter { .. } => {}
        }
    }

    fn allocated(&mut self, allocation: &Allocation) {
        let placement = (self.place)(allocation);
        let (Placement::Frame(level), Some(activation)) = (placement, owner(allocation, placement))
        else {
            return;
        };
        let region = allocation.chain.get(level).map_or("?", |f| &*f.method);
        let site = self.site(site_text(allocation), region.to_owned());
        let entry = allocation.chain.first().map_or(0, |f| f.activation);
        self.owned.insert(
            allocation.number,
            Owned {
                activation,
                site,
                alive: true,
            },
        );
        self.by_activation
            .entry(activation)
            .or_default()
            .push(allocation.number);
        self.by_entry
            .entry(entry)
            .or_default()
            .push(allocation.number);
    }

    fn site(&mut self, text: String, region: String) -> usize {
        let key = (text, region);
        if let Some(&index) = self.site_index.get(&key) {
            return index;
        }
        self.sites.push(key.clone());
        self.site_index.insert(key, self.sites.len() - 1);
        self.sites.len() - 1
    }

    /// Object `number` is reachable as `activation` returns: a broken region if its region
    /// is that activation's or ended before. Counted once.
    fn reached(&mut self, activation: u64, number: u64, held_by: HeldBy) {
        let Some(owned) = self.owned.get(&number) else {
            return;
        };
        if owned.activation == activation || !owned.alive {
            let (objects, holders) = self.broken.entry(owned.site).or_default();
            *objects += 1;
            holders.insert(held_by);
            self.owned.remove(&number);
        }
    }

    fn exited(&mut self, activation: u64) {
        for number in self.by_activation.remove(&activation).unwrap_or_default() {
            if let Some(owned) = self.owned.get_mut(&number) {
                owned.alive = false;
            }
        }
        // Walks list only what was allocated since their activation began: once the watched
        // method's entry has returned, its objects are never listed again.
        for number in self.by_entry.remove(&activation).unwrap_or_default() {
            self.owned.remove(&number);
        }
    }

    pub fn finish(self) -> RegionCheckReport {
        let sites = self.sites;
        RegionCheckReport {
            exits_walked: self.exits_walked,
            broken: self
                .broken
                .into_iter()
                .map(|(index, (objects, holders))| BrokenRegion {
                    site: sites[index].0.clone(),
                    region: sites[index].1.clone(),
                    objects,
                    held_by: holders.into_iter().map(HeldBy::text).collect(),
                })
                .collect(),
        }
    }
}

/// `type allocated at pkg.C.m(desc)@offset (line n)`: the allocating instruction.
fn site_text(allocation: &Allocation) -> String {
    let Some(at) = allocation.chain.last() else {
        return allocation.type_name.clone();
    };
    let line = at.line.map_or_else(String::new, |l| format!(" (line {l})"));
    format!(
        "{} allocated at {}@{}{line}",
        allocation.type_name, at.method, at.offset
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::parse_events;

    /// m (activation 1) calls f (activation 2), which allocates objects 1 and 2; m allocates 3.
    /// The walk at f's exit reaches 1 (returned); the walk at m's exit reaches 2 (in a static
    /// field) and 3 (in a local of m's caller).
    const RUN: &str = "membound-agent 4
watch T.m()V
method 1 T.m()V
method 2 T.f()V
target 1
enter 1 1 1
enter 1 2 2
alloc 1 A 16 1:1:4:- 2:2:0:7
alloc 1 B 16 1:1:4:- 2:2:8:8
reached 1 2 1:returned
exit 1 2
alloc 1 C 16 1:1:9:3
reached 1 1 2:static 3:local
exit 1 1
end 0
";

    fn check(place: impl Fn(&Allocation) -> Placement) -> RegionCheckReport {
        let mut check = RegionCheck::new(place);
        for event in parse_events(RUN.as_bytes()).expect("valid").events {
            check.add(&event);
        }
        check.finish()
    }

    #[test]
    fn objects_of_a_region_reached_after_it_ended_are_broken() {
        // Everything in the region of the allocating frame: A at f's exit, B at m's (f's region
        // ended before), C at m's exit.
        let report = check(|a| Placement::Frame(a.chain.len() - 1));
        assert_eq!(report.exits_walked, 2);
        let broken: Vec<(&str, &str, u64, &str)> = report
            .broken
            .iter()
            .map(|b| (b.site.as_str(), b.region.as_str(), b.objects, b.held_by[0]))
            .collect();
        assert_eq!(
            broken,
            [
                (
                    "A allocated at T.f()V@0 (line 7)",
                    "T.f()V",
                    1,
                    HeldBy::Returned.text()
                ),
                (
                    "B allocated at T.f()V@8 (line 8)",
                    "T.f()V",
                    1,
                    HeldBy::StaticField.text()
                ),
                (
                    "C allocated at T.m()V@9 (line 3)",
                    "T.m()V",
                    1,
                    HeldBy::Local.text()
                ),
            ]
        );
    }

    #[test]
    fn objects_whose_region_is_still_alive_or_that_escape_are_not() {
        // f's objects in m's region: reached at f's exit, m's region is alive.
        let in_caller = check(|a| match a.type_name.as_str() {
            "C" => Placement::Escapes,
            _ => Placement::Frame(0),
        });
        let sites: Vec<&str> = in_caller.broken.iter().map(|b| b.site.as_str()).collect();
        // B is reached at m's exit, in m's region: broken; A only at f's exit: not.
        assert_eq!(sites, ["B allocated at T.f()V@8 (line 8)"]);
        let escaping = check(|_| Placement::Escapes);
        assert!(escaping.broken.is_empty());
    }
}

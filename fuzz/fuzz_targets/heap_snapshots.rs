//! Any bytes read as a heap snapshot: as an HPROF dump (plain, or gzip when the bytes say so)
//! and as the agent's snapshot file; every snapshot read is abstracted into a heap graph.
//! Nothing may panic: malformed input is an error value.

#![no_main]

use libfuzzer_sys::fuzz_target;
use membound_heap::graph::abstract_heap;
use membound_heap::scope::RootSelection;

fuzz_target!(|data: &[u8]| {
    if let Ok(snapshot) = membound_heap::hprof::read(data) {
        let _ = abstract_heap(&snapshot, RootSelection::All);
    }
    if let Ok(snapshots) = membound_heap::agent_file::read(data) {
        for snapshot in &snapshots {
            let _ = abstract_heap(snapshot, RootSelection::All);
        }
    }
});

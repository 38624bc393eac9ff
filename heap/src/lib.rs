//! membound-heap: what a running Java program's heap holds. It reads heap snapshots — HPROF
//! files written by the JVM (`jcmd <pid> GC.heap_dump`, `-XX:+HeapDumpOnOutOfMemoryError`,
//! `HotSpotDiagnosticMXBean.dumpHeap`) and the snapshots the membound JVMTI agent writes with
//! allocation sites — into one model of objects, references and roots ([`snapshot`]), and
//! computes from it:
//! - abstract heap graphs ([`graph`], after HeapDbg, Marron et al.): objects with the same role
//!   summarized into structures with a shape (`list`, `tree`, `dag`, `cyclic`, `atom`), edges
//!   with injectivity and sharing, rendered as text, JSON and DOT ([`render`]), and compared
//!   ([`diff`]);
//! - degree metrics ([`shape`], after ShapeUp, Jump & McKinley): per class of a recursive
//!   backbone, in- and out-degree histograms, fixed and range metrics learned from good runs and
//!   checked on later ones;
//! - heap invariants ([`invariants`], after the GC-piggybacked inference of US patent
//!   7,912,877): per class, properties that held in every snapshot of a run (never shared,
//!   acyclic, a field never null, constant or of one type, an instance count bound), checked
//!   against a later run with the allocation site of a violating object;
//! - the peak of reachable memory over a run's snapshots ([`peak`]).
//!
//! It knows nothing of bounds, certificates or bytecode analysis, and does not run programs:
//! the `membound` crate starts the JVM under the agent and hands the files here. Every input is
//! untrusted: a malformed or truncated file is an [`Error`] with a one-line message, never a
//! panic.

pub mod agent_file;
pub mod diff;
mod error;
#[cfg(test)]
mod fuzzing;
pub mod graph;
pub mod hprof;
pub mod invariants;
pub mod peak;
pub mod render;
pub mod scope;
pub mod shape;
pub mod snapshot;

pub use error::{Error, Result};
pub use snapshot::Snapshot;

use std::path::Path;

/// The snapshots in a file: an HPROF dump holds one, the agent's file one per moment it
/// snapshotted (each exit of a method, each collection). The format is told by the file's
/// first bytes.
pub fn read_snapshots(path: &Path) -> Result<Vec<Snapshot>> {
    let mut file = std::fs::File::open(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    let mut head = [0u8; 32];
    let read = read_prefix(&mut file, &mut head).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    let head = &head[..read];
    let file = std::fs::File::open(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    if agent_file::is_agent_file(head) {
        agent_file::read(std::io::BufReader::new(file))
    } else if hprof::is_hprof(head) || hprof::is_gzip(head) {
        Ok(vec![hprof::read(file)?])
    } else {
        Err(Error::Input(format!(
            "{} is neither an HPROF heap dump nor a membound-heap snapshot file",
            path.display()
        )))
    }
}

/// The abstract heap graph a file holds: a graph saved as JSON (`membound heap graph --format
/// json`), or the last snapshot of a snapshot file abstracted from the `selection` of roots.
pub fn read_graph(path: &Path, selection: scope::RootSelection) -> Result<graph::HeapGraph> {
    let unreadable = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(unreadable)?;
    let mut head = [0u8; 1];
    let read = read_prefix(&mut file, &mut head).map_err(unreadable)?;
    if head[..read] == *b"{" {
        let text = std::fs::read_to_string(path).map_err(unreadable)?;
        return serde_json::from_str(&text).map_err(|e| {
            Error::Input(format!(
                "{} is not a heap graph in JSON: {e}",
                path.display()
            ))
        });
    }
    let snapshot = read_snapshots(path)?
        .pop()
        .ok_or_else(|| Error::Input(format!("{} holds no snapshot", path.display())))?;
    Ok(graph::abstract_heap(&snapshot, selection).graph)
}

/// Whether `path` is a file of snapshots (an HPROF dump, plain or gzip-compressed, or an
/// agent snapshot file) rather than a program.
pub fn is_snapshot_file(path: &Path) -> bool {
    let mut head = [0u8; 32];
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let read = read_prefix(&mut file, &mut head).unwrap_or(0);
    let head = &head[..read];
    path.is_file()
        && (agent_file::is_agent_file(head) || hprof::is_hprof(head) || hprof::is_gzip(head))
}

/// Reads up to `buffer.len()` bytes, fewer only at the end of the file.
fn read_prefix(reader: &mut impl std::io::Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

//! membound's bound analysis: from a call graph to memAlloc, regions and memRq per method.
//!
//! Given the front end's program and call graph from a method, it enumerates the creation
//! sites, lowers the methods on their chains to the invariants crate's numeric program, counts
//! each site's executions (the polyhedra crate), decides each site's region by escape analysis
//! and bounds region sizes and memRq (the bernstein crate); [`certify`] writes the result as a
//! certificate.
//!
//! It knows creation sites, the numeric program, regions and bounds per method; it knows nothing
//! of the command line, of file formats beyond building a certificate value, or of the agent
//! and real runs.
//!
//! # Map
//! - [`sites`]: creation sites (allocation call chains).
//! - [`lowering`]: IR → numeric program, and per-site counting invariants.
//! - [`escape`]: escape analysis, each site's capturing method.
//! - [`memalloc`]: memAlloc per method and site; [`memrq`]: region sizes and memRq.
//! - [`advise`]: where clearing a reference lowers the peak under garbage collection.
//! - [`certify`]: the certificate of an analysis.

pub mod advise;
pub mod certify;
pub mod escape;
pub mod lowering;
pub mod memalloc;
pub mod memrq;
pub mod sites;
pub mod summary;

//! Region sizes and memRq: how much memory a method needs when every method's region is freed
//! as it returns (the thesis's chapter 7).
//!
//! memCaptured(m) sums, over the creation sites whose objects [`crate::escape`] places in `m`'s
//! region, what memAlloc counted for them; memEscapes(m) sums the sites whose objects outlive
//! `m`. It does not count or decide regions itself.

use crate::callgraph::CallGraph;
use crate::error::Result;
use crate::memalloc::{self, Amount, Bounds};
use crate::program::Program;
use crate::sites::Sites;
use crate::sizes::ObjectModel;

/// The region quantities of one method, in its own parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionAmounts {
    pub mem_captured: Amount,
    pub mem_escapes: Amount,
    pub mem_rq: Amount,
}

/// memAlloc of a method and its call tree ([`memalloc::analyze`]) with, where escape analysis
/// decides them, the regions of the sites and each method's region quantities.
pub fn analyze(
    program: &Program,
    graph: &CallGraph,
    sites: &Sites,
    model: ObjectModel,
    progress: &(dyn Fn() + Sync),
) -> Result<Bounds> {
    memalloc::analyze(program, graph, sites, model, progress)
}

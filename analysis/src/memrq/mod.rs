//! Region sizes and memRq: how much memory a method needs when every method's region is freed
//! as it returns (the thesis's chapter 7).
//!
//! For each method `m` of the call tree, memCaptured(m) sums what memAlloc counted for the
//! chain suffixes whose objects [`crate::escape`] places in `m`'s region, and memEscapes(m) those
//! whose objects outlive `m`; both are in `m`'s parameters. With `m` as the method under
//! analysis, its call tree (the chains of its sites, merged on common prefixes) has one region
//! per node: rSize of a node is the largest region its method can have when entered through
//! that chain, the maximum of memCaptured over the chain's binding invariant
//! ([`crate::lowering::Lowered::binding_invariant`]), bounded by Bernstein expansion
//! ([`membound_bernstein::bound_expr_over`]). Then
//! `memRq[node] = rSize[node] + max over children memRq[child]` (siblings never hold their
//! regions at the same time) and `memRq(m) = memEscapes(m) + memRq[root]`.
//!
//! Soundness: every object allocated under `m` is either in the region of some method on the
//! stack of its allocation (held by at most one region instance per stack frame, each bounded by
//! its node's rSize) or escapes `m`. What cannot be bounded is ∞ with a reason: a method
//! reaching unknown code has ∞ memCaptured and memEscapes (that code may allocate into any
//! region), an uncountable site makes its region ∞, and a binding the lowering or Bernstein
//! expansion cannot handle makes the node's rSize ∞.
//!
//! This module does not count points (memAlloc did) or decide regions (escape analysis did).

use std::collections::HashMap;

use rayon::prelude::*;

use membound_bernstein::{ParametricPolytope, bound_expr_over};
use membound_polyhedra::Rat;

mod render;

pub use render::{to_dot, to_text};

use crate::escape::{self, Regions, SiteRegion};
use crate::lowering::{self, Lowered};
use crate::memalloc::{
    self, Amount, Bounds, MethodBound, Quantity, SiteBound, maximum, scaled_sum, tidy,
};
use crate::sites::{ChainElement, Sites};
use membound_front::callgraph::CallGraph;
use membound_front::program::Program;
use membound_front::sizes::ObjectModel;
use membound_jvm::MethodRef;
use membound_jvm::error::Result;

/// The region quantities of one method, in its own parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionAmounts {
    pub mem_captured: Amount,
    pub mem_escapes: Amount,
    pub mem_rq: Amount,
    /// The method's region tree, root first, in depth-first order.
    pub tree: Vec<RegionNode>,
    /// Why a region quantity is ∞ beyond the reasons of the sites.
    pub reasons: Vec<String>,
}

/// One region of a method's call tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionNode {
    /// The calls from the tree's root to this region's method (each a caller and the offset of
    /// its call); empty for the root.
    pub calls: Vec<ChainElement>,
    /// The method whose region this is.
    pub method: MethodRef,
    /// The largest region this node's method can have when entered through the chain.
    pub r_size: Amount,
    /// The region and the largest stack of regions below it active at once.
    pub mem_rq: Amount,
    /// Indices of the nodes its method calls into (in the same tree).
    pub children: Vec<usize>,
}

/// memAlloc of a method and its call tree ([`memalloc::analyze`]) with, where escape analysis
/// decides them, the regions of the sites and each method's region quantities. `progress` is
/// called once per counted chain suffix and once per region bounded.
pub fn analyze(
    program: &Program,
    graph: &CallGraph,
    sites: &Sites,
    model: ObjectModel,
    progress: &(dyn Fn() + Sync),
) -> Result<Bounds> {
    let lowered = lowering::lower(program, graph, sites)?;
    let mut bounds = memalloc::analyze(program, &lowered, graph, sites, model, progress)?;
    match escape::analyze(program, graph, sites) {
        Ok(regions) => add_regions(&mut bounds, &lowered, sites, &regions, progress),
        Err(error) => bounds
            .assumptions
            .push(format!("regions were not computed: {error}")),
    }
    Ok(bounds)
}

/// Sets every site's region and every method's region quantities.
fn add_regions(
    bounds: &mut Bounds,
    lowered: &Lowered,
    sites: &Sites,
    regions: &Regions,
    progress: &(dyn Fn() + Sync),
) {
    for method in &mut bounds.methods {
        for site in &mut method.sites {
            site.region = Some(relative_region(sites, regions, site));
        }
    }
    let captured: HashMap<MethodRef, Amount> = bounds
        .methods
        .iter()
        .map(|m| {
            (
                m.method.clone(),
                region_total(m, |r| r == SiteRegion::CapturedBy(0)),
            )
        })
        .collect();
    let trees: Vec<(Vec<RegionNode>, Vec<String>)> = bounds
        .methods
        .par_iter()
        .map(|method| region_tree(method, &captured, lowered, sites, progress))
        .collect();
    for (method, (tree, reasons)) in bounds.methods.iter_mut().zip(trees) {
        let mem_escapes = region_total(method, |r| r == SiteRegion::EscapesEntry);
        let root = &tree[0];
        let mem_rq = Amount {
            objects: add(&mem_escapes.objects, &root.mem_rq.objects),
            bytes: add(&mem_escapes.bytes, &root.mem_rq.bytes),
        };
        method.regions = Some(RegionAmounts {
            mem_captured: root.r_size.clone(),
            mem_escapes,
            mem_rq,
            tree,
            reasons,
        });
    }
}

/// The region of `site` relative to its own chain (a suffix of the full site's chain): the
/// capturing method's index in it, or that the objects escape its first method.
fn relative_region(sites: &Sites, regions: &Regions, site: &SiteBound) -> SiteRegion {
    let from = sites.sites[site.site].chain.len() - site.chain.len();
    match regions.sites[site.site] {
        SiteRegion::CapturedBy(owner) if owner >= from => SiteRegion::CapturedBy(owner - from),
        _ => SiteRegion::EscapesEntry,
    }
}

/// The sum of the site amounts in the regions `pick` selects; ∞ when the method reaches code
/// the analysis cannot see (it may allocate into any region).
fn region_total(method: &MethodBound, pick: impl Fn(SiteRegion) -> bool) -> Amount {
    if !method.unbounded.is_empty() {
        return Amount {
            objects: Quantity::Inf,
            bytes: Quantity::Inf,
        };
    }
    let chosen: Vec<&SiteBound> = method
        .sites
        .iter()
        .filter(|s| s.region.is_some_and(&pick))
        .collect();
    let total = |quantity: fn(&SiteBound) -> &Quantity| {
        scaled_sum(chosen.iter().map(|s| (Rat::from(1), quantity(s).clone())))
    };
    Amount {
        objects: total(|s| &s.amount.objects),
        bytes: total(|s| &s.amount.bytes),
    }
}

/// A node of the call tree while it is built: its chain, a site and start index whose chain
/// has this node's chain as a prefix (to ask the lowering for the binding), and its children.
struct TreeNode {
    calls: Vec<ChainElement>,
    method: MethodRef,
    site: usize,
    from: usize,
    children: Vec<usize>,
}

/// The region tree of `method` as the method under analysis, with every node's rSize and
/// memRq, root first; and the reasons of the ∞ the bounding itself introduced.
fn region_tree(
    method: &MethodBound,
    captured: &HashMap<MethodRef, Amount>,
    lowered: &Lowered,
    sites: &Sites,
    progress: &(dyn Fn() + Sync),
) -> (Vec<RegionNode>, Vec<String>) {
    let nodes = call_tree(method, sites);
    let mut reasons = Vec::new();
    let mut sizes = Vec::new();
    for node in &nodes {
        sizes.push(
            r_size(node, captured, lowered, sites).unwrap_or_else(|reason| {
                reasons.push(reason);
                Amount {
                    objects: Quantity::Inf,
                    bytes: Quantity::Inf,
                }
            }),
        );
        progress();
    }
    let mut requirements = sizes.clone();
    // Children come after their parent, so a reverse pass sees every child's final value.
    for (index, node) in nodes.iter().enumerate().rev() {
        if node.children.is_empty() {
            continue;
        }
        let below = |quantity: fn(&Amount) -> &Quantity| {
            let items = node
                .children
                .iter()
                .map(|&c| quantity(&requirements[c]).clone());
            maximum(items.collect())
        };
        let objects = add(&sizes[index].objects, &below(|a| &a.objects));
        let bytes = add(&sizes[index].bytes, &below(|a| &a.bytes));
        requirements[index] = Amount { objects, bytes };
    }
    let tree = nodes
        .into_iter()
        .zip(sizes)
        .zip(requirements)
        .map(|((node, r_size), mem_rq)| RegionNode {
            calls: node.calls,
            method: node.method,
            r_size,
            mem_rq,
            children: node.children,
        })
        .collect();
    (tree, reasons)
}

/// The call tree of `method`'s chain suffixes, merged on common prefixes, root first and every
/// child after its parent.
fn call_tree(method: &MethodBound, sites: &Sites) -> Vec<TreeNode> {
    let root_site = method.sites.first().map_or(0, |s| s.site);
    let mut nodes = vec![TreeNode {
        calls: Vec::new(),
        method: method.method.clone(),
        site: root_site,
        from: method.sites.first().map_or(0, |s| from_of(sites, s)),
        children: Vec::new(),
    }];
    for site in &method.sites {
        let mut current = 0;
        for depth in 1..site.chain.len() {
            let calls = &site.chain[..depth];
            let entered = &site.chain[depth].method;
            let existing = nodes[current]
                .children
                .iter()
                .copied()
                .find(|&c| nodes[c].calls == calls && &nodes[c].method == entered);
            current = match existing {
                Some(child) => child,
                None => {
                    nodes.push(TreeNode {
                        calls: calls.to_vec(),
                        method: entered.clone(),
                        site: site.site,
                        from: from_of(sites, site),
                        children: Vec::new(),
                    });
                    let child = nodes.len() - 1;
                    nodes[current].children.push(child);
                    child
                }
            };
        }
    }
    nodes
}

fn from_of(sites: &Sites, site: &SiteBound) -> usize {
    sites.sites[site.site].chain.len() - site.chain.len()
}

/// rSize of one node: the root's is its method's memCaptured; another's is the maximum of its
/// method's memCaptured over the binding invariant of its chain.
fn r_size(
    node: &TreeNode,
    captured: &HashMap<MethodRef, Amount>,
    lowered: &Lowered,
    sites: &Sites,
) -> std::result::Result<Amount, String> {
    let depth = node.calls.len();
    let method = &node.method;
    let region = captured
        .get(method)
        .ok_or_else(|| format!("{method} has no memAlloc"))?;
    if depth == 0 || (region.objects.is_zero() && region.bytes.is_zero()) {
        return Ok(region.clone());
    }
    let binding = lowered
        .binding_invariant(&sites.sites[node.site], node.from, depth)
        .map_err(|e| format!("region of {method}: {e}"))?;
    let set = binding.to_set();
    let callee = |name: &str| format!("{name}'");
    let callee_formals: Vec<String> = set.space.dims.iter().map(|d| callee(d)).collect();
    let polytopes: Vec<ParametricPolytope> = set
        .parts
        .iter()
        .map(|part| {
            ParametricPolytope::of_part(set.space.params.clone(), callee_formals.clone(), part)
        })
        .collect();
    let over = |quantity: &Quantity| -> std::result::Result<Quantity, String> {
        let renamed = quantity.renamed(&callee);
        let bounds = polytopes
            .par_iter()
            .map(|polytope| bound_expr_over(&renamed, polytope))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| format!("region of {method}: {e}"))?;
        Ok(maximum(bounds.iter().map(tidy).collect()))
    };
    Ok(Amount {
        objects: over(&region.objects)?,
        bytes: over(&region.bytes)?,
    })
}

fn add(a: &Quantity, b: &Quantity) -> Quantity {
    scaled_sum([(Rat::from(1), a.clone()), (Rat::from(1), b.clone())])
}

//! Renderings of regions: the region tree from the entry method (one region per method
//! activation of the call tree, with the creation sites it captures) as indented text and as a
//! Graphviz graph. Only activations that capture something, and those on the way to them, are
//! shown. No sizes: those belong to the counting stages.

use std::fmt::Write;

use super::{Regions, SiteRegion};
use crate::sites::{ChainElement, CreationSite, Sites};

/// One activation of the call tree: reached through `call` from its parent, running `method`.
struct Activation<'s> {
    call: Option<&'s ChainElement>,
    /// How many calls lead to it from the entry.
    depth: usize,
    method: String,
    captured: Vec<&'s CreationSite>,
    /// Indices of the children in [`Tree::activations`].
    children: Vec<usize>,
}

struct Tree<'s> {
    /// `activations[0]` is the entry's.
    activations: Vec<Activation<'s>>,
    escaping: Vec<&'s CreationSite>,
}

/// Builds the tree: each captured site goes to the activation its chain reaches at the
/// capturing method.
fn tree<'s>(sites: &'s Sites, regions: &Regions) -> Tree<'s> {
    let mut tree = Tree {
        activations: vec![Activation {
            call: None,
            depth: 0,
            method: sites.entry.to_string(),
            captured: Vec::new(),
            children: Vec::new(),
        }],
        escaping: Vec::new(),
    };
    for (site, region) in sites.sites.iter().zip(&regions.sites) {
        let SiteRegion::CapturedBy(owner) = *region else {
            tree.escaping.push(site);
            continue;
        };
        let mut current = 0;
        for (depth, call) in site.chain[..owner].iter().enumerate() {
            let method = site.chain[depth + 1].method.to_string();
            let found = tree.activations[current]
                .children
                .iter()
                .copied()
                .find(|&c| {
                    tree.activations[c].call == Some(call) && tree.activations[c].method == method
                });
            current = match found {
                Some(child) => child,
                None => {
                    tree.activations.push(Activation {
                        call: Some(call),
                        depth: depth + 1,
                        method,
                        captured: Vec::new(),
                        children: Vec::new(),
                    });
                    let child = tree.activations.len() - 1;
                    tree.activations[current].children.push(child);
                    child
                }
            };
        }
        tree.activations[current].captured.push(site);
    }
    tree
}

/// The region tree as indented text: each activation as `@pc (line l) method`, its captured
/// sites below it, then the sites that escape the entry.
pub fn to_text(sites: &Sites, regions: &Regions) -> String {
    let tree = tree(sites, regions);
    let mut out = format!("regions from {}\n", sites.entry);
    write_activation(&mut out, &tree, 0);
    let _ = writeln!(
        out,
        "escaping {} ({} site{})",
        sites.entry,
        tree.escaping.len(),
        if tree.escaping.len() == 1 { "" } else { "s" }
    );
    for site in &tree.escaping {
        let _ = writeln!(out, "  {}", site_text(site, 0));
    }
    if !regions.unanalyzed.is_empty() {
        let _ = writeln!(
            out,
            "{} method{} with code treated as unknown (recursion too large to analyze, or no body)",
            regions.unanalyzed.len(),
            if regions.unanalyzed.len() == 1 {
                ""
            } else {
                "s"
            }
        );
    }
    out
}

fn write_activation(out: &mut String, tree: &Tree<'_>, index: usize) {
    let activation = &tree.activations[index];
    let depth = activation.depth;
    let indent = "  ".repeat(depth);
    match activation.call {
        Some(call) => {
            let _ = writeln!(out, "{indent}{} {}", position(call), activation.method);
        }
        None => {
            let _ = writeln!(out, "{indent}{}", activation.method);
        }
    }
    for site in &activation.captured {
        let _ = writeln!(out, "{indent}  captures {}", site_text(site, depth));
    }
    for &child in &activation.children {
        write_activation(out, tree, child);
    }
}

/// The region tree as a Graphviz digraph: one box per activation listing its sites, edges
/// labelled with the call, and a dashed box for the sites that escape the entry.
pub fn to_dot(sites: &Sites, regions: &Regions) -> String {
    let tree = tree(sites, regions);
    let mut out =
        String::from("digraph regions {\n  node [shape=box, fontname=monospace, labeljust=l];\n");
    for (index, activation) in tree.activations.iter().enumerate() {
        let mut label = format!("{}\\l", escape(&activation.method));
        for site in &activation.captured {
            let _ = write!(label, "{}\\l", escape(&site_text(site, activation.depth)));
        }
        let _ = writeln!(out, "  r{index} [label=\"{label}\"];");
        for &child in &activation.children {
            let call = tree.activations[child]
                .call
                .map(position)
                .unwrap_or_default();
            let _ = writeln!(out, "  r{index} -> r{child} [label=\"{}\"];", escape(&call));
        }
    }
    if !tree.escaping.is_empty() {
        let mut label = String::from("escapes the entry\\l");
        for site in &tree.escaping {
            let _ = write!(label, "{}\\l", escape(&site_text(site, 0)));
        }
        let _ = writeln!(out, "  escaping [style=dashed, label=\"{label}\"];");
    }
    out.push_str("}\n");
    out
}

/// A site seen from the activation at `depth` of its chain: the allocated type and the rest
/// of the chain from there, `thesis.B[] at m0@4 (line 17) > m2@1 (line 27)`.
fn site_text(site: &CreationSite, depth: usize) -> String {
    let steps: Vec<String> = site.chain[depth..]
        .iter()
        .map(|element| format!("{}{}", element.method.name, position(element)))
        .collect();
    format!("{} at {}", site.allocation.ty, steps.join(" > "))
}

fn position(element: &ChainElement) -> String {
    match element.line {
        Some(line) => format!("@{} (line {line})", element.pc),
        None => format!("@{}", element.pc),
    }
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

//! The region tree `membound regions` prints: from the entry method, one region per method
//! activation of the call tree with its size (rSize) and memRq, the creation sites it captures,
//! then the sites that escape the entry; as indented text, as JSON and as a Graphviz graph. Only
//! activations that capture something, and those on the way to them, are shown.

use std::fmt::Write;

use super::{RegionAmounts, RegionNode};
use crate::memalloc::{Amount, Bounds, MethodBound, SiteBound};

/// The region tree as indented text: each activation as `@pc (line l) method` with its sizes,
/// its captured sites below it, then the sites that escape the entry.
pub fn to_text(bounds: &Bounds) -> String {
    let Some((entry, regions)) = entry_regions(bounds) else {
        return not_computed(bounds);
    };
    let mut out = format!(
        "regions from {} (object model {})\n",
        entry.method,
        bounds.model.name()
    );
    write_node(&mut out, bounds, &regions.tree, 0);
    let escaping = escaping(entry);
    let _ = writeln!(
        out,
        "escaping {} ({} site{}): {}",
        entry.method,
        escaping.len(),
        if escaping.len() == 1 { "" } else { "s" },
        amount_text(&regions.mem_escapes)
    );
    for site in escaping {
        let _ = writeln!(out, "  {}", site_text(site));
    }
    let _ = writeln!(out, "memRq: {}", amount_text(&regions.mem_rq));
    for reason in &regions.reasons {
        let _ = writeln!(out, "∞: {reason}");
    }
    out
}

/// The region tree as a Graphviz digraph: one box per activation with its size and sites,
/// edges labelled with the call, and a dashed box for the sites that escape the entry.
pub fn to_dot(bounds: &Bounds) -> String {
    let Some((entry, regions)) = entry_regions(bounds) else {
        return not_computed(bounds);
    };
    let mut out =
        String::from("digraph regions {\n  node [shape=box, fontname=monospace, labeljust=l];\n");
    for (index, node) in regions.tree.iter().enumerate() {
        if !shown(bounds, &regions.tree, index) {
            continue;
        }
        let mut label = format!(
            "{}\\lregion {}\\l",
            escape(&node.method.to_string()),
            escape(&amount_text(&node.r_size))
        );
        for site in captured_by(bounds, node) {
            let _ = write!(label, "{}\\l", escape(&site_text(site)));
        }
        let _ = writeln!(out, "  r{index} [label=\"{label}\"];");
        for &child in node
            .children
            .iter()
            .filter(|&&c| shown(bounds, &regions.tree, c))
        {
            let call = regions.tree[child]
                .calls
                .last()
                .map(|c| c.position())
                .unwrap_or_default();
            let _ = writeln!(out, "  r{index} -> r{child} [label=\"{}\"];", escape(&call));
        }
    }
    let escaping = escaping(entry);
    if !escaping.is_empty() {
        let mut label = format!(
            "escapes the entry: {}\\l",
            escape(&amount_text(&regions.mem_escapes))
        );
        for site in escaping {
            let _ = write!(label, "{}\\l", escape(&site_text(site)));
        }
        let _ = writeln!(out, "  escaping [style=dashed, label=\"{label}\"];");
    }
    out.push_str("}\n");
    out
}

/// The region tree as JSON: `regions` lists the shown activations (each with its `calls` from
/// the entry, `method`, `region` (rSize), `mem_rq`, the sites it `captures` and the indices of
/// its shown `children`; the entry first), then `escaping` (amount and sites), `mem_rq` and the
/// `reasons` of an ∞. Amounts are `{objects, bytes}` in the certificate's expression text.
/// Without regions, `regions` is null and `reason` says why.
pub fn to_json(bounds: &Bounds) -> serde_json::Value {
    let Some((entry, regions)) = entry_regions(bounds) else {
        return serde_json::json!({"regions": null, "reason": not_computed(bounds).trim_end()});
    };
    let shown_nodes: Vec<usize> = (0..regions.tree.len())
        .filter(|&index| shown(bounds, &regions.tree, index))
        .collect();
    let position = |index: usize| shown_nodes.iter().position(|&shown| shown == index);
    let nodes: Vec<serde_json::Value> = shown_nodes
        .iter()
        .map(|&index| {
            let node = &regions.tree[index];
            let calls: Vec<String> = node.calls.iter().map(|call| call.position()).collect();
            let captures: Vec<String> = captured_by(bounds, node)
                .into_iter()
                .map(site_text)
                .collect();
            let children: Vec<usize> = node.children.iter().filter_map(|&c| position(c)).collect();
            serde_json::json!({
                "calls": calls,
                "method": node.method.to_string(),
                "region": amount_json(&node.r_size),
                "mem_rq": amount_json(&node.mem_rq),
                "captures": captures,
                "children": children,
            })
        })
        .collect();
    let escaping: Vec<String> = escaping(entry).into_iter().map(site_text).collect();
    serde_json::json!({
        "entry": entry.method.to_string(),
        "object_model": bounds.model.name(),
        "regions": nodes,
        "escaping": {"amount": amount_json(&regions.mem_escapes), "sites": escaping},
        "mem_rq": amount_json(&regions.mem_rq),
        "reasons": regions.reasons,
    })
}

fn amount_json(amount: &Amount) -> serde_json::Value {
    serde_json::json!({"objects": amount.objects.to_text(), "bytes": amount.bytes.to_text()})
}

fn entry_regions(bounds: &Bounds) -> Option<(&MethodBound, &RegionAmounts)> {
    let entry = bounds.methods.first()?;
    Some((entry, entry.regions.as_ref()?))
}

fn not_computed(bounds: &Bounds) -> String {
    let why: Vec<&str> = bounds
        .assumptions
        .iter()
        .filter(|a| a.starts_with("regions"))
        .map(String::as_str)
        .collect();
    format!("no regions: {}\n", why.join("; "))
}

fn write_node(out: &mut String, bounds: &Bounds, tree: &[RegionNode], index: usize) {
    let node = &tree[index];
    let depth = node.calls.len();
    let indent = "  ".repeat(depth);
    let call = node
        .calls
        .last()
        .map(|c| format!("{} ", c.position()))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "{indent}{call}{}: region {}; memRq {}",
        node.method,
        amount_text(&node.r_size),
        amount_text(&node.mem_rq)
    );
    for site in captured_by(bounds, node) {
        let _ = writeln!(out, "{indent}  captures {}", site_text(site));
    }
    for &child in &node.children {
        if shown(bounds, tree, child) {
            write_node(out, bounds, tree, child);
        }
    }
}

/// The sites `node`'s method places in its own region.
fn captured_by<'b>(bounds: &'b Bounds, node: &RegionNode) -> Vec<&'b SiteBound> {
    bounds
        .methods
        .iter()
        .find(|m| m.method == node.method)
        .map(|method| {
            method
                .sites
                .iter()
                .filter(|site| site.residence.is_some_and(|r| r.here))
                .collect()
        })
        .unwrap_or_default()
}

/// The entry's sites whose objects may outlive it.
fn escaping(entry: &MethodBound) -> Vec<&SiteBound> {
    entry
        .sites
        .iter()
        .filter(|site| site.residence.is_some_and(|r| r.escapes))
        .collect()
}

/// Whether an activation or one below it captures a site.
fn shown(bounds: &Bounds, tree: &[RegionNode], index: usize) -> bool {
    !captured_by(bounds, &tree[index]).is_empty()
        || tree[index]
            .children
            .iter()
            .any(|&child| shown(bounds, tree, child))
}

/// A site as its method sees it: the allocated type, where it is allocated and through which
/// call, `thesis.B[] at m2@1 (line 27) via @9 (line 16)`.
fn site_text(site: &SiteBound) -> String {
    let mut text = format!(
        "{} at {}{}",
        site.ty,
        site.at.method.name,
        site.at.position()
    );
    if let Some(via) = &site.via {
        let _ = write!(text, " via {}", via.position());
    }
    text
}

fn amount_text(amount: &Amount) -> String {
    format!(
        "{} objects, {} bytes",
        amount.objects.to_readable(),
        amount.bytes.to_readable()
    )
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

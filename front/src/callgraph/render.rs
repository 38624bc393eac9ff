//! Renderings of a call graph: readable text, Graphviz dot, and JSON.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::specs::SpecSource;

use super::{CallGraph, Dispatch, Edge, EdgeKind, NodeKind};

/// One line per reached method with its calls indented below it, then recursion and
/// unresolved calls.
pub fn to_text(graph: &CallGraph) -> String {
    let mut out = String::new();
    let adjacency = graph.adjacency();
    for (id, node) in graph.methods.iter().enumerate() {
        let _ = writeln!(out, "{}{}", node.method, kind_note(&node.kind));
        for edge in &adjacency[id] {
            let callee = &graph.methods[edge.callee].method;
            let _ = writeln!(
                out,
                "  @{}{} {} {}{}",
                edge.pc,
                line_note(edge.line),
                kind_name(edge.kind),
                callee,
                dispatch_note(edge.dispatch)
            );
        }
    }
    for component in graph.recursive_components() {
        let names: Vec<String> = component
            .iter()
            .map(|&id| graph.methods[id].method.to_string())
            .collect();
        let _ = writeln!(out, "recursion: {}", names.join(", "));
    }
    for call in &graph.unresolved {
        let _ = writeln!(
            out,
            "unresolved: {}@{} calls {}: {}",
            graph.methods[call.caller].method, call.pc, call.target, call.reason
        );
    }
    if let Some(reason) = &graph.budget_hit {
        let _ = writeln!(out, "incomplete: {reason}");
    }
    out
}

/// A Graphviz digraph: methods as boxes (recursive ones red, natives dashed), calls as edges
/// labelled with their bytecode offset.
pub fn to_dot(graph: &CallGraph) -> String {
    let recursive: Vec<usize> = graph.recursive_components().concat();
    let mut out = String::from("digraph callgraph {\n  node [shape=box, fontname=monospace];\n");
    for (id, node) in graph.methods.iter().enumerate() {
        let mut style = Vec::new();
        if recursive.contains(&id) {
            style.push("color=red".to_string());
        }
        if node.kind != NodeKind::Code {
            style.push("style=dashed".to_string());
        }
        if id == 0 {
            style.push("penwidth=2".to_string());
        }
        let attributes = if style.is_empty() {
            String::new()
        } else {
            format!(", {}", style.join(", "))
        };
        let _ = writeln!(
            out,
            "  n{id} [label={}{attributes}];",
            quote(&node.method.to_string())
        );
    }
    for edge in &graph.edges {
        let _ = writeln!(
            out,
            "  n{} -> n{} [label={}{}];",
            edge.caller,
            edge.callee,
            quote(&edge_label(edge)),
            if edge.kind == EdgeKind::ClassInit {
                ", style=dotted"
            } else {
                ""
            }
        );
    }
    out.push_str("}\n");
    out
}

/// The graph as JSON: `methods`, `edges`, `recursive_components`, `unresolved`, and
/// `budget_hit` (why the graph is incomplete, or null).
pub fn to_json(graph: &CallGraph) -> Value {
    let methods: Vec<Value> = graph
        .methods
        .iter()
        .map(|node| {
            json!({
                "method": node.method.to_string(),
                "kind": kind_label(&node.kind),
            })
        })
        .collect();
    let edges: Vec<Value> = graph
        .edges
        .iter()
        .map(|edge| {
            json!({
                "caller": graph.methods[edge.caller].method.to_string(),
                "offset": edge.pc,
                "line": edge.line,
                "callee": graph.methods[edge.callee].method.to_string(),
                "kind": kind_name(edge.kind),
                "dispatch": dispatch_name(edge.dispatch),
            })
        })
        .collect();
    let recursive: Vec<Vec<String>> = graph
        .recursive_components()
        .iter()
        .map(|component| {
            component
                .iter()
                .map(|&id| graph.methods[id].method.to_string())
                .collect()
        })
        .collect();
    let unresolved: Vec<Value> = graph
        .unresolved
        .iter()
        .map(|call| {
            json!({
                "caller": graph.methods[call.caller].method.to_string(),
                "offset": call.pc,
                "line": call.line,
                "target": call.target.to_string(),
                "reason": call.reason,
            })
        })
        .collect();
    json!({
        "entry": graph.entry().to_string(),
        "methods": methods,
        "edges": edges,
        "recursive_components": recursive,
        "unresolved": unresolved,
        "budget_hit": graph.budget_hit,
    })
}

fn edge_label(edge: &Edge) -> String {
    format!("@{}{}", edge.pc, line_note(edge.line))
}

fn line_note(line: Option<u32>) -> String {
    line.map(|l| format!(" (line {l})")).unwrap_or_default()
}

fn kind_note(kind: &NodeKind) -> String {
    match kind {
        NodeKind::Code => String::new(),
        NodeKind::Spec(spec) => match &spec.source {
            SpecSource::Bundled => "  [spec: bundled]".to_string(),
            SpecSource::File(path) => format!("  [spec: {path}]"),
        },
        NodeKind::Native => "  [native]".to_string(),
        NodeKind::Abstract => "  [abstract]".to_string(),
        NodeKind::Broken(why) => format!("  [not analyzed: {why}]"),
    }
}

fn kind_label(kind: &NodeKind) -> &'static str {
    match kind {
        NodeKind::Code => "code",
        NodeKind::Spec(_) => "spec",
        NodeKind::Native => "native",
        NodeKind::Abstract => "abstract",
        NodeKind::Broken(_) => "broken",
    }
}

fn kind_name(kind: EdgeKind) -> &'static str {
    match kind {
        EdgeKind::Static => "static",
        EdgeKind::Special => "special",
        EdgeKind::Virtual => "virtual",
        EdgeKind::Interface => "interface",
        EdgeKind::Lambda => "lambda",
        EdgeKind::ClassInit => "clinit",
    }
}

fn dispatch_name(dispatch: Dispatch) -> &'static str {
    match dispatch {
        Dispatch::Exact => "exact",
        Dispatch::Rta => "rta",
        Dispatch::Cha => "cha",
    }
}

fn dispatch_note(dispatch: Dispatch) -> &'static str {
    match dispatch {
        Dispatch::Cha => "  (CHA)",
        Dispatch::Exact | Dispatch::Rta => "",
    }
}

/// A dot string literal.
fn quote(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

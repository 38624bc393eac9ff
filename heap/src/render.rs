//! Abstract heap graphs as text, JSON and Graphviz DOT.
//!
//! The DOT picture follows HeapDbg's conventions: roots are boxes (the root object itself is
//! not drawn); a structure is an ellipse labelled with its classes, object count and bytes,
//! white for one object and shaded for more; its internal edges are one self-edge labelled
//! with the shape and the fields it holds over (`list{next}`); a field that may be null is
//! dashed; a non-injective edge (two sources, one target) is bold and orange; a legend
//! explains it.

use crate::graph::{HeapGraph, Shape, Structure};
use std::fmt::Write as _;

/// `12.3 KB`-style sizes (powers of 1024).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// `1 object`, `3 objects`.
fn objects_text(count: u64) -> String {
    if count == 1 {
        "1 object".to_owned()
    } else {
        format!("{count} objects")
    }
}

/// `list{next}`, `tree{left,right}`, `atom`.
pub fn shape_text(structure: &Structure) -> String {
    if structure.shape == Shape::Atom {
        return "atom".to_owned();
    }
    // A structure of many classes (the JDK's module graph) holds over dozens of fields.
    const SHOWN: usize = 6;
    let mut fields = structure
        .shape_fields
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(",");
    if structure.shape_fields.len() > SHOWN {
        let _ = write!(fields, ",… {} fields", structure.shape_fields.len());
    }
    format!("{}{{{fields}}}", structure.shape.name())
}

fn classes_text(structure: &Structure) -> String {
    const SHOWN: usize = 4;
    let mut text = structure
        .classes
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if structure.classes.len() > SHOWN {
        let _ = write!(text, ", … ({} classes)", structure.classes.len());
    }
    text
}

/// The readable report.
pub fn to_text(graph: &HeapGraph) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "heap at {}: {} objects, {} reached from the roots ({} objects, {} in the whole heap)",
        graph.moment,
        graph.objects,
        human_bytes(graph.bytes),
        graph.heap_objects,
        human_bytes(graph.heap_bytes)
    );
    if graph.structures.is_empty() {
        out.push_str("no object is reached from the roots\n");
        return out;
    }
    out.push_str("\nstructures:\n");
    for s in &graph.structures {
        let degrees = if s.shape == Shape::Atom {
            String::new()
        } else {
            format!(
                ", in-degree ≤ {}, out-degree ≤ {}",
                s.max_in_degree, s.max_out_degree
            )
        };
        let _ = writeln!(
            out,
            "  #{} {}: {}, {}, {}{degrees}",
            s.id,
            classes_text(s),
            objects_text(s.objects),
            human_bytes(s.bytes),
            shape_text(s),
        );
        if !s.excluded_fields.is_empty() {
            let _ = writeln!(
                out,
                "      ({} left out: cyclic with it)",
                s.excluded_fields.join(", ")
            );
        }
        for site in s.sites.iter().take(3) {
            let _ = writeln!(out, "      {} allocated at {}", site.objects, site.site);
        }
    }
    out.push_str("\nroots:\n");
    for root in &graph.roots {
        let count = if root.count > 1 {
            format!(" ×{}", root.count)
        } else {
            String::new()
        };
        let _ = writeln!(out, "  {} → #{}{count}", root.root, root.to);
    }
    out.push_str("\nedges:\n");
    for e in &graph.edges {
        let mut notes = vec![if e.injective {
            "injective"
        } else {
            "not injective"
        }];
        if e.shared {
            notes.push("shared");
        }
        if e.may_be_null {
            notes.push("may be null");
        }
        let _ = writeln!(
            out,
            "  #{} .{} → #{}  ×{}  {}",
            e.from,
            e.field,
            e.to,
            e.count,
            notes.join(", ")
        );
    }
    out
}

/// The JSON document (`structures[]`, `edges[]`, `roots[]`).
pub fn to_json(graph: &HeapGraph) -> serde_json::Value {
    // A HeapGraph always serializes: it holds only strings, numbers and lists.
    serde_json::to_value(graph).unwrap_or(serde_json::Value::Null)
}

fn quote(text: &str) -> String {
    let mut quoted = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// The Graphviz picture with its legend.
pub fn to_dot(graph: &HeapGraph) -> String {
    let mut out = String::from("digraph heap {\n");
    out.push_str("  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=11];\n");
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=10];\n");
    let _ = writeln!(
        out,
        "  label={};\n  labelloc=t;",
        quote(&format!(
            "heap at {}: {} objects, {}",
            graph.moment,
            graph.objects,
            human_bytes(graph.bytes)
        ))
    );
    // One box per root name (a frame's locals, a static field), with an edge to each
    // structure it holds.
    let mut names: Vec<&str> = graph.roots.iter().map(|r| r.root.as_str()).collect();
    names.dedup();
    for (index, name) in names.iter().enumerate() {
        let _ = writeln!(
            out,
            "  r{index} [shape=box, style=rounded, label={}];",
            quote(name)
        );
    }
    for root in &graph.roots {
        let index = names.iter().position(|n| *n == root.root).unwrap_or(0);
        let _ = writeln!(out, "  r{index} -> s{};", root.to);
    }
    for s in &graph.structures {
        let fill = if s.objects > 1 { "gray85" } else { "white" };
        let label = format!(
            "{}\n{}, {}",
            classes_text(s),
            objects_text(s.objects),
            human_bytes(s.bytes)
        );
        let _ = writeln!(
            out,
            "  s{} [shape=ellipse, style=filled, fillcolor={fill}, label={}];",
            s.id,
            quote(&label)
        );
    }
    for s in &graph.structures {
        if s.shape != Shape::Atom {
            let color = match s.shape.severity() {
                0 => "darkgreen",
                1 => "orange",
                _ => "red",
            };
            let _ = writeln!(
                out,
                "  s{0} -> s{0} [label={1}, color={color}, fontcolor={color}, penwidth=2];",
                s.id,
                quote(&shape_text(s))
            );
        }
    }
    for e in graph.edges.iter().filter(|e| e.from != e.to) {
        let mut style = Vec::new();
        if e.may_be_null {
            style.push("style=dashed");
        }
        if !e.injective {
            style.push("color=orange, penwidth=3");
        }
        let attributes = if style.is_empty() {
            String::new()
        } else {
            format!(", {}", style.join(", "))
        };
        let _ = writeln!(
            out,
            "  s{} -> s{} [label={}{attributes}];",
            e.from,
            e.to,
            quote(&format!("{} ×{}", e.field, e.count))
        );
    }
    out.push_str(LEGEND);
    out.push_str("}\n");
    out
}

const LEGEND: &str = r#"  subgraph cluster_legend {
    label="legend"; fontsize=10; style=dashed; color=gray50;
    node [fontsize=9];
    lr [shape=box, style=rounded, label="root: static field,\nlocal of a frame"];
    l1 [shape=ellipse, style=filled, fillcolor=white, label="one object"];
    l2 [shape=ellipse, style=filled, fillcolor=gray85, label="several objects\n(classes, count, bytes)"];
    l3 [shape=ellipse, style=filled, fillcolor=gray85, label="structure"];
    lr -> l1 [label="field ×count", fontsize=9];
    l1 -> l2 [label="may be null", style=dashed, fontsize=9];
    l2 -> l2 [label="shape{fields}", color=darkgreen, fontcolor=darkgreen, fontsize=9];
    l1 -> l3 [label="not injective\n(shared target)", color=orange, penwidth=3, fontsize=9];
  }
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::abstract_heap;
    use crate::scope::RootSelection;
    use crate::snapshot::tests::tiny;

    fn sample() -> HeapGraph {
        let snapshot = tiny(
            &[
                ("Node", &[("next", 2), ("data", 4)]),
                ("Node", &[("next", 3)]),
                ("Node", &[]),
                ("Data", &[]),
            ],
            &[("Main.head", 1)],
        );
        abstract_heap(&snapshot, RootSelection::All).graph
    }

    #[test]
    fn text_names_each_structure_with_its_shape() {
        let text = to_text(&sample());
        assert!(
            text.contains("#0 Node: 3 objects, 48 B, list{next}"),
            "{text}"
        );
        assert!(text.contains("static Main.head → #0"), "{text}");
        assert!(text.contains("#0 .data → #1  ×1  injective"), "{text}");
    }

    #[test]
    fn json_has_the_contract_fields() {
        let json = to_json(&sample());
        let first = &json["structures"][0];
        for field in [
            "classes",
            "objects",
            "bytes",
            "shape",
            "max_in_degree",
            "max_out_degree",
        ] {
            assert!(!first[field].is_null(), "{field} in {first}");
        }
        assert_eq!(first["shape"], "list");
        let edge = &json["edges"][0];
        for field in ["from", "to", "field", "count", "injective", "shared"] {
            assert!(!edge[field].is_null(), "{field} in {edge}");
        }
    }

    #[test]
    fn dot_draws_shapes_as_self_edges_and_a_legend() {
        let dot = to_dot(&sample());
        assert!(dot.contains("s0 -> s0 [label=\"list{next}\""), "{dot}");
        assert!(dot.contains("cluster_legend"));
        assert!(dot.starts_with("digraph heap {") && dot.ends_with("}\n"));
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(2048), "2.0 KB");
        assert_eq!(human_bytes(3 << 20), "3.0 MB");
    }
}

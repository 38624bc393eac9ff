//! Two abstract heap graphs compared: how each structure grew or shrank, which appeared or
//! went, and which lost its shape — the regressions.
//!
//! Structures are matched by their classes; where several structures of one graph have the same
//! classes, by the path from the roots that first reaches them (a root's name, then field
//! names). A shape regression is a structure that became less tree-like (a list or tree
//! became a DAG, anything became cyclic: the severity of [`Shape`] rose), one that keeps its
//! shape only by leaving out a field it held over before, or an edge that was injective and no
//! longer is (two sources now share a target).

use crate::graph::{HeapGraph, Shape, Structure};
use crate::render::{human_bytes, shape_text};
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;

/// One structure in both graphs, or in one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StructureChange {
    pub classes: Vec<String>,
    pub objects_before: u64,
    pub objects_after: u64,
    pub bytes_before: u64,
    pub bytes_after: u64,
    /// None where the structure is absent.
    pub shape_before: Option<String>,
    pub shape_after: Option<String>,
    /// Why this is a regression; empty when it is not one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub regressions: Vec<String>,
}

/// The comparison of two graphs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GraphDiff {
    pub before: String,
    pub after: String,
    pub objects_before: u64,
    pub objects_after: u64,
    pub bytes_before: u64,
    pub bytes_after: u64,
    /// Every structure whose size or shape changed, or that appeared or went.
    pub structures: Vec<StructureChange>,
    pub regressions: usize,
}

/// Compares `before` with `after`.
pub fn diff(before: &HeapGraph, after: &HeapGraph) -> GraphDiff {
    let keys_before = structure_keys(before);
    let keys_after = structure_keys(after);
    let mut structures = Vec::new();
    for (key, &old_id) in &keys_before {
        let old = &before.structures[old_id];
        let new = keys_after.get(key).map(|&id| &after.structures[id]);
        let mut change = change_of(Some(old), new);
        if let Some(new) = new {
            change.regressions = shape_regressions(old, new);
            change.regressions.extend(lost_injectivity(
                before,
                old_id,
                after,
                new.id,
                &keys_before,
                &keys_after,
            ));
        }
        if change.regressions.is_empty()
            && new.is_some_and(|n| {
                (n.objects, n.bytes, n.shape) == (old.objects, old.bytes, old.shape)
            })
        {
            continue;
        }
        structures.push(change);
    }
    for (key, &new_id) in &keys_after {
        if !keys_before.contains_key(key) {
            structures.push(change_of(None, Some(&after.structures[new_id])));
        }
    }
    let regressions = structures.iter().map(|s| s.regressions.len()).sum();
    GraphDiff {
        before: before.moment.clone(),
        after: after.moment.clone(),
        objects_before: before.objects,
        objects_after: after.objects,
        bytes_before: before.bytes,
        bytes_after: after.bytes,
        structures,
        regressions,
    }
}

fn change_of(old: Option<&Structure>, new: Option<&Structure>) -> StructureChange {
    let classes = old.or(new).map(|s| s.classes.clone()).unwrap_or_default();
    StructureChange {
        classes,
        objects_before: old.map_or(0, |s| s.objects),
        objects_after: new.map_or(0, |s| s.objects),
        bytes_before: old.map_or(0, |s| s.bytes),
        bytes_after: new.map_or(0, |s| s.bytes),
        shape_before: old.map(shape_text),
        shape_after: new.map(shape_text),
        regressions: Vec::new(),
    }
}

/// What makes `new` less of a shape than `old`.
fn shape_regressions(old: &Structure, new: &Structure) -> Vec<String> {
    let mut found = Vec::new();
    if new.shape.severity() > old.shape.severity() {
        found.push(format!("was {}, now {}", shape_text(old), shape_text(new)));
        return found;
    }
    if new.shape != Shape::Atom {
        let dropped: Vec<&String> = old
            .shape_fields
            .iter()
            .filter(|f| new.excluded_fields.contains(f))
            .collect();
        if !dropped.is_empty() {
            let names: Vec<&str> = dropped.iter().map(|f| f.as_str()).collect();
            found.push(format!(
                "was {}, now {} only without {} (cyclic with it)",
                shape_text(old),
                shape_text(new),
                names.join(", ")
            ));
        }
    }
    found
}

/// Edges out of the structure that were injective before and are not after.
fn lost_injectivity(
    before: &HeapGraph,
    old_id: usize,
    after: &HeapGraph,
    new_id: usize,
    keys_before: &BTreeMap<Key, usize>,
    keys_after: &BTreeMap<Key, usize>,
) -> Vec<String> {
    let key_of = |keys: &BTreeMap<Key, usize>, id: usize| {
        keys.iter().find(|(_, i)| **i == id).map(|(k, _)| k.clone())
    };
    let mut found = Vec::new();
    for old_edge in before
        .edges
        .iter()
        .filter(|e| e.from == old_id && e.injective)
    {
        let target = key_of(keys_before, old_edge.to);
        let lost = after.edges.iter().any(|e| {
            e.from == new_id
                && e.field == old_edge.field
                && !e.injective
                && key_of(keys_after, e.to) == target
        });
        if lost {
            let to = &before.structures[old_edge.to];
            found.push(format!(
                "field {} into {} is no longer injective: two objects now share a target",
                old_edge.field,
                to.classes.join(", ")
            ));
        }
    }
    found
}

/// A structure's key: its classes, and the path that first reaches it when its classes do not
/// name it alone.
type Key = (Vec<String>, Vec<String>);

fn structure_keys(graph: &HeapGraph) -> BTreeMap<Key, usize> {
    let paths = first_paths(graph);
    let mut by_classes: BTreeMap<&Vec<String>, Vec<usize>> = BTreeMap::new();
    for s in &graph.structures {
        by_classes.entry(&s.classes).or_default().push(s.id);
    }
    let mut keys = BTreeMap::new();
    for (classes, ids) in by_classes {
        for id in ids.iter().copied() {
            let path = if ids.len() == 1 {
                Vec::new()
            } else {
                paths
                    .get(&id)
                    .cloned()
                    .unwrap_or_else(|| vec![format!("#{id}")])
            };
            keys.insert((classes.clone(), path), id);
        }
    }
    keys
}

/// For each structure, the first path that reaches it: breadth first from the roots in name
/// order, edges in field order.
fn first_paths(graph: &HeapGraph) -> BTreeMap<usize, Vec<String>> {
    let mut paths: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut queue: VecDeque<usize> = VecDeque::new();
    let mut roots: Vec<_> = graph.roots.iter().collect();
    roots.sort_by(|a, b| (&a.root, a.to).cmp(&(&b.root, b.to)));
    for root in roots {
        if let std::collections::btree_map::Entry::Vacant(slot) = paths.entry(root.to) {
            slot.insert(vec![root.root.clone()]);
            queue.push_back(root.to);
        }
    }
    let mut edges: Vec<_> = graph.edges.iter().collect();
    edges.sort_by(|a, b| (a.from, &a.field, a.to).cmp(&(b.from, &b.field, b.to)));
    while let Some(node) = queue.pop_front() {
        let start = edges.partition_point(|e| e.from < node);
        for edge in edges[start..].iter().take_while(|e| e.from == node) {
            if !paths.contains_key(&edge.to) {
                let mut path = paths[&node].clone();
                path.push(edge.field.clone());
                paths.insert(edge.to, path);
                queue.push_back(edge.to);
            }
        }
    }
    paths
}

fn signed(delta: i128) -> String {
    if delta >= 0 {
        format!("+{delta}")
    } else {
        delta.to_string()
    }
}

impl GraphDiff {
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "heap at {} → heap at {}: {} → {} objects, {} → {}",
            self.before,
            self.after,
            self.objects_before,
            self.objects_after,
            human_bytes(self.bytes_before),
            human_bytes(self.bytes_after)
        );
        if self.structures.is_empty() {
            out.push_str("no structure changed\n");
        }
        for s in &self.structures {
            let what = match (&s.shape_before, &s.shape_after) {
                (None, Some(shape)) => format!("new, {} objects, {shape}", s.objects_after),
                (Some(shape), None) => format!("gone ({} objects, {shape})", s.objects_before),
                (Some(old), Some(new)) => {
                    let growth = signed(i128::from(s.objects_after) - i128::from(s.objects_before));
                    let shape = if old == new {
                        new.clone()
                    } else {
                        format!("{old} → {new}")
                    };
                    format!(
                        "{} → {} objects ({growth}), {} → {}, {shape}",
                        s.objects_before,
                        s.objects_after,
                        human_bytes(s.bytes_before),
                        human_bytes(s.bytes_after)
                    )
                }
                (None, None) => String::new(),
            };
            let _ = writeln!(out, "  {}: {what}", s.classes.join(", "));
            for regression in &s.regressions {
                let _ = writeln!(out, "    REGRESSION: {regression}");
            }
        }
        let _ = writeln!(out, "{} shape regression(s)", self.regressions);
        out
    }

    pub fn to_json(&self) -> serde_json::Value {
        // Strings, numbers and lists only: always serializable.
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::abstract_heap;
    use crate::scope::RootSelection;
    use crate::snapshot::tests::tiny;

    fn list(spoiled: bool, length: u64) -> HeapGraph {
        let objects: Vec<(&str, Vec<(&str, u64)>)> = (1..=length)
            .map(|i| {
                let next = if i < length {
                    vec![("next", i + 1)]
                } else if spoiled {
                    vec![("next", 1)]
                } else {
                    vec![]
                };
                ("Node", next)
            })
            .collect();
        let borrowed: Vec<(&str, &[(&str, u64)])> =
            objects.iter().map(|(c, f)| (*c, f.as_slice())).collect();
        abstract_heap(&tiny(&borrowed, &[("Main.head", 1)]), RootSelection::All).graph
    }

    #[test]
    fn growth_is_reported_and_is_no_regression() {
        let found = diff(&list(false, 3), &list(false, 5));
        assert_eq!(found.regressions, 0);
        assert_eq!(found.structures.len(), 1);
        assert_eq!(
            (
                found.structures[0].objects_before,
                found.structures[0].objects_after
            ),
            (3, 5)
        );
        assert!(
            found.to_text().contains("3 → 5 objects (+2)"),
            "{}",
            found.to_text()
        );
    }

    #[test]
    fn a_list_that_became_cyclic_is_a_regression() {
        let found = diff(&list(false, 4), &list(true, 4));
        assert_eq!(found.regressions, 1);
        assert!(
            found.to_text().contains("was list{next}, now cyclic{next}"),
            "{}",
            found.to_text()
        );
        assert_eq!(diff(&list(true, 4), &list(false, 4)).regressions, 0);
    }

    #[test]
    fn a_shape_kept_only_by_leaving_a_field_out_is_a_regression() {
        let tree = abstract_heap(
            &tiny(
                &[("T", &[("l", 2), ("r", 3)]), ("T", &[]), ("T", &[])],
                &[("M.t", 1)],
            ),
            RootSelection::All,
        )
        .graph;
        // The right child now points back to the root.
        let broken = abstract_heap(
            &tiny(
                &[("T", &[("l", 2), ("r", 3)]), ("T", &[]), ("T", &[("r", 1)])],
                &[("M.t", 1)],
            ),
            RootSelection::All,
        )
        .graph;
        assert_eq!(broken.structures[0].shape_fields, ["l"]);
        let found = diff(&tree, &broken);
        assert_eq!(found.regressions, 1, "{}", found.to_text());
    }

    #[test]
    fn sharing_that_appears_is_a_regression() {
        let owned = abstract_heap(
            &tiny(
                &[
                    ("A[]", &[("[]", 2), ("[]", 3)]),
                    ("A", &[("b", 4)]),
                    ("A", &[("b", 5)]),
                    ("B", &[]),
                    ("B", &[]),
                ],
                &[("M.a", 1)],
            ),
            RootSelection::All,
        )
        .graph;
        let shared = abstract_heap(
            &tiny(
                &[
                    ("A[]", &[("[]", 2), ("[]", 3)]),
                    ("A", &[("b", 4)]),
                    ("A", &[("b", 4)]),
                    ("B", &[]),
                ],
                &[("M.a", 1)],
            ),
            RootSelection::All,
        )
        .graph;
        let found = diff(&owned, &shared);
        assert_eq!(found.regressions, 1, "{}", found.to_text());
        assert!(
            found
                .to_text()
                .contains("field b into B is no longer injective")
        );
    }
}

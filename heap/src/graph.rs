//! Abstract heap graphs, after HeapDbg (Marron, Sanchez, Su, Fähndrich: "Abstracting Runtime
//! Heaps for Program Understanding"): a snapshot summarized into structures — sets of objects
//! with the same role — and the edges between them.
//!
//! The abstraction is the paper's union-find construction over the objects the roots reach:
//! 1. objects linked by a reference between two classes of one recursive type are merged, so a
//!    list, a tree or a graph of nodes becomes one structure. Classes are of one recursive type
//!    when they lie on a cycle of the class graph *observed* in the snapshot (an edge C → D when
//!    some C object references a D object): declared field types would join everything through
//!    `Object`-typed fields, the observed ones only what the program really links;
//! 2. the targets of references with the same label (a field name; every array index is `[]`;
//!    each root its own label) out of one structure are merged when their class sets
//!    overlap, until nothing changes: the elements of an array become one structure.
//!
//! Each structure gets its classes, object count and bytes, its degrees over its internal
//! edges, and a shape over them: `atom` (no internal edge), `list` (acyclic, no object with two
//! internal parents, none with two children), `tree` (the same with more children), `dag`
//! (acyclic, an object with two parents) or `cyclic`. As in the paper, fields that close cycles
//! (a doubly linked list's `prev`, a tree's `parent`) may be left out to find a shape: when the
//! structure is cyclic over all its fields, the largest set of fields over which it is acyclic
//! is taken (every set when there are at most 4 fields, each set lacking one field otherwise),
//! and the left-out fields are named. Sharing is never excused this way: a structure that is a
//! DAG over all its fields stays a DAG. Edges get their count, whether they are injective (no
//! two sources point to one target) and shared (a target with two incoming references of the
//! edge), and whether the field may be null.

use crate::scope::{RootSelection, reachable, selected_roots};
use crate::snapshot::{Label, ObjectIndex, Snapshot};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The shape of a structure over its internal edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    Atom,
    List,
    Tree,
    Dag,
    Cyclic,
}

impl Shape {
    pub fn name(self) -> &'static str {
        match self {
            Shape::Atom => "atom",
            Shape::List => "list",
            Shape::Tree => "tree",
            Shape::Dag => "dag",
            Shape::Cyclic => "cyclic",
        }
    }

    /// How far from a tree: 0 for atoms, lists and trees, 1 for DAGs (sharing), 2 for cycles.
    pub fn severity(self) -> u8 {
        match self {
            Shape::Atom | Shape::List | Shape::Tree => 0,
            Shape::Dag => 1,
            Shape::Cyclic => 2,
        }
    }
}

/// Objects with one role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Structure {
    pub id: usize,
    /// The classes of its objects, sorted.
    pub classes: Vec<String>,
    pub objects: u64,
    pub bytes: u64,
    pub shape: Shape,
    /// The fields the shape holds over (all internal fields unless some were left out).
    pub shape_fields: Vec<String>,
    /// Internal fields left out because they close cycles.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluded_fields: Vec<String>,
    /// Over internal edges: the most references an object receives from its own structure.
    pub max_in_degree: u64,
    /// Over internal edges: the most references an object holds into its own structure.
    pub max_out_degree: u64,
    /// Where its objects were allocated, most frequent first (empty when the snapshot does not
    /// say: HPROF dumps).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sites: Vec<SiteCount>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteCount {
    pub site: String,
    pub objects: u64,
}

/// All references with one label from one structure to another (or the same).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    /// A field name, or `[]` for array elements.
    pub field: String,
    pub count: u64,
    /// No two distinct source objects reference the same target.
    pub injective: bool,
    /// Some target receives more than one of these references.
    pub shared: bool,
    /// Some source object has this field (or an array slot) null.
    pub may_be_null: bool,
}

/// Root references of one name into one structure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootEdge {
    /// `static pkg.C.f`, `local pkg.C.m(desc)`, `thread`, ….
    pub root: String,
    pub to: usize,
    pub count: u64,
}

/// An abstract heap graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeapGraph {
    /// When the snapshot was taken.
    pub moment: String,
    /// Objects and bytes the roots reach, and in the whole snapshot.
    pub objects: u64,
    pub bytes: u64,
    pub heap_objects: u64,
    pub heap_bytes: u64,
    pub structures: Vec<Structure>,
    pub edges: Vec<Edge>,
    pub roots: Vec<RootEdge>,
}

/// A graph with the structure of each object, for the analyses that go back to objects.
pub struct Abstraction {
    pub graph: HeapGraph,
    /// The structure of each object; None for objects the roots do not reach.
    pub structure_of: Vec<Option<u32>>,
}

/// Abstracts a snapshot from the selected roots.
pub fn abstract_heap(snapshot: &Snapshot, selection: RootSelection) -> Abstraction {
    let in_scope = reachable(snapshot, selection);
    let mut partitions = UnionFind::new(snapshot.objects().len());
    merge_recursive_types(snapshot, &in_scope, &mut partitions);
    let root_names = root_labels(snapshot, selection);
    merge_equivalent_successors(snapshot, &in_scope, &root_names, &mut partitions);
    describe(snapshot, &in_scope, &root_names, &mut partitions)
}

/// A label key: field labels as they are, every array index one key, each root name its own.
type LabelKey = u32;
const ELEMENT_KEY: LabelKey = 1 << 31;
const ROOT_SOURCE: u32 = u32::MAX;

fn label_key(label: Label) -> LabelKey {
    label.field_name().unwrap_or(ELEMENT_KEY)
}

fn root_key(root_name: usize) -> LabelKey {
    ELEMENT_KEY + 1 + root_name as u32
}

/// The selected roots as (name index, target), with the names.
struct RootLabels {
    names: Vec<String>,
    edges: Vec<(usize, ObjectIndex)>,
}

fn root_labels(snapshot: &Snapshot, selection: RootSelection) -> RootLabels {
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut names = Vec::new();
    let mut edges = Vec::new();
    for root in selected_roots(snapshot, selection) {
        let name = root.name();
        let id = *index.entry(name.clone()).or_insert_with(|| {
            names.push(name);
            names.len() - 1
        });
        edges.push((id, root.target));
    }
    RootLabels { names, edges }
}

struct UnionFind {
    parent: Vec<u32>,
    rank: Vec<u8>,
}

impl UnionFind {
    fn new(size: usize) -> UnionFind {
        UnionFind {
            parent: (0..size as u32).collect(),
            rank: vec![0; size],
        }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grandparent = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grandparent;
            x = grandparent;
        }
        x
    }

    /// Whether the two were apart.
    fn union(&mut self, a: u32, b: u32) -> bool {
        let (a, b) = (self.find(a), self.find(b));
        if a == b {
            return false;
        }
        let (low, high) = if self.rank[a as usize] < self.rank[b as usize] {
            (a, b)
        } else {
            (b, a)
        };
        self.parent[low as usize] = high;
        if self.rank[low as usize] == self.rank[high as usize] {
            self.rank[high as usize] += 1;
        }
        true
    }
}

/// The recursive type of each class: the strongly connected component of the observed class
/// graph it lies on, when that component has a cycle (None otherwise).
pub fn recursive_types(snapshot: &Snapshot, in_scope: &[bool]) -> Vec<Option<u32>> {
    let class_count = snapshot.classes().len();
    let mut successors: Vec<FxHashSet<u32>> = vec![FxHashSet::default(); class_count];
    for (from, object) in snapshot.objects().iter().enumerate() {
        if !in_scope[from] {
            continue;
        }
        for reference in snapshot.references(from as ObjectIndex) {
            successors[object.class as usize].insert(snapshot.object(reference.target).class);
        }
    }
    let successors: Vec<Vec<u32>> = successors
        .into_iter()
        .map(|set| {
            let mut list: Vec<u32> = set.into_iter().collect();
            list.sort_unstable();
            list
        })
        .collect();
    let components = strongly_connected(&successors);
    let mut size = vec![0usize; class_count];
    for &c in &components {
        size[c as usize] += 1;
    }
    (0..class_count)
        .map(|class| {
            let component = components[class];
            let self_loop = successors[class].contains(&(class as u32));
            (size[component as usize] > 1 || self_loop).then_some(component)
        })
        .collect()
}

/// Tarjan's algorithm, iterative: the component number of each vertex.
pub(crate) fn strongly_connected(successors: &[Vec<u32>]) -> Vec<u32> {
    const UNSEEN: u32 = u32::MAX;
    let n = successors.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut component = vec![UNSEEN; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut next_index = 0u32;
    let mut next_component = 0u32;
    for start in 0..n as u32 {
        if index[start as usize] != UNSEEN {
            continue;
        }
        // (vertex, position in its successor list)
        let mut calls: Vec<(u32, usize)> = vec![(start, 0)];
        index[start as usize] = next_index;
        low[start as usize] = next_index;
        next_index += 1;
        stack.push(start);
        on_stack[start as usize] = true;
        while let Some(&mut (v, ref mut position)) = calls.last_mut() {
            if let Some(&w) = successors[v as usize].get(*position) {
                *position += 1;
                if index[w as usize] == UNSEEN {
                    index[w as usize] = next_index;
                    low[w as usize] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    calls.push((w, 0));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent as usize] = low[parent as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    component[w as usize] = next_component;
                    if w == v {
                        break;
                    }
                }
                next_component += 1;
            }
        }
    }
    component
}

/// Step 1: objects linked between classes of one recursive type become one partition.
fn merge_recursive_types(snapshot: &Snapshot, in_scope: &[bool], partitions: &mut UnionFind) {
    let types = recursive_types(snapshot, in_scope);
    for (from, object) in snapshot.objects().iter().enumerate() {
        let Some(kind) = types[object.class as usize].filter(|_| in_scope[from]) else {
            continue;
        };
        for reference in snapshot.references(from as ObjectIndex) {
            if types[snapshot.object(reference.target).class as usize] == Some(kind) {
                partitions.union(from as u32, reference.target);
            }
        }
    }
}

/// Step 2: targets of one label out of one partition whose class sets overlap are merged,
/// until nothing changes. Each round sorts the distinct (source partition, label, target
/// partition) triples and the (partition, class) pairs, so a round costs a sort of the
/// references; every round but the last merges something.
fn merge_equivalent_successors(
    snapshot: &Snapshot,
    in_scope: &[bool],
    roots: &RootLabels,
    partitions: &mut UnionFind,
) {
    loop {
        let classes = partition_classes(snapshot, in_scope, partitions);
        let mut triples: Vec<(u32, LabelKey, u32)> = Vec::new();
        for (name, target) in &roots.edges {
            triples.push((ROOT_SOURCE, root_key(*name), partitions.find(*target)));
        }
        for from in 0..snapshot.objects().len() as u32 {
            if !in_scope[from as usize] {
                continue;
            }
            let source = partitions.find(from);
            for reference in snapshot.references(from) {
                let target = partitions.find(reference.target);
                triples.push((source, label_key(reference.label), target));
            }
        }
        triples.sort_unstable();
        triples.dedup();
        let mut merged = false;
        for group in triples.chunk_by(|a, b| a.0 == b.0 && a.1 == b.1) {
            // Within one (source, label): targets sharing a class merge.
            let mut first_with_class: FxHashMap<u32, u32> = FxHashMap::default();
            for &(_, _, target) in group {
                for &class in classes.get(&target).map_or(&[][..], Vec::as_slice) {
                    match first_with_class.get(&class) {
                        Some(&other) => merged |= partitions.union(other, target),
                        None => {
                            first_with_class.insert(class, target);
                        }
                    }
                }
            }
        }
        if !merged {
            return;
        }
    }
}

/// The classes of each partition (by representative), sorted.
fn partition_classes(
    snapshot: &Snapshot,
    in_scope: &[bool],
    partitions: &mut UnionFind,
) -> FxHashMap<u32, Vec<u32>> {
    let mut pairs: Vec<(u32, u32)> = (0..snapshot.objects().len() as u32)
        .filter(|&o| in_scope[o as usize])
        .map(|o| (partitions.find(o), snapshot.object(o).class))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let mut classes: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    for (partition, class) in pairs {
        classes.entry(partition).or_default().push(class);
    }
    classes
}

/// Everything known about one partition while describing it.
#[derive(Default)]
struct PartitionFacts {
    objects: u64,
    bytes: u64,
    classes: FxHashSet<u32>,
    sites: FxHashMap<u32, u64>,
    /// (source, target, label) of references inside the partition.
    internal: Vec<(ObjectIndex, ObjectIndex, LabelKey)>,
    /// Labels some object of the partition holds null.
    null_labels: FxHashSet<LabelKey>,
}

fn describe(
    snapshot: &Snapshot,
    in_scope: &[bool],
    roots: &RootLabels,
    partitions: &mut UnionFind,
) -> Abstraction {
    let mut facts: FxHashMap<u32, PartitionFacts> = FxHashMap::default();
    // (source partition, label, target partition, target object, source object)
    let mut crossings: Vec<(u32, LabelKey, u32, ObjectIndex, ObjectIndex)> = Vec::new();
    for from in 0..snapshot.objects().len() as u32 {
        if !in_scope[from as usize] {
            continue;
        }
        let partition = partitions.find(from);
        let object = snapshot.object(from);
        let fact = facts.entry(partition).or_default();
        fact.objects += 1;
        fact.bytes += object.bytes;
        fact.classes.insert(object.class);
        if (object.site as usize) < snapshot.sites().len() {
            *fact.sites.entry(object.site).or_default() += 1;
        }
        note_nulls(snapshot, from, &mut fact.null_labels);
        for reference in snapshot.references(from) {
            let target = partitions.find(reference.target);
            let key = label_key(reference.label);
            if target == partition {
                let fact = facts.entry(partition).or_default();
                fact.internal.push((from, reference.target, key));
            }
            crossings.push((partition, key, target, reference.target, from));
        }
    }
    // Structures numbered by bytes, largest first, then by their classes' names.
    let mut order: Vec<(u32, PartitionFacts)> = facts.into_iter().collect();
    let class_names = |fact: &PartitionFacts| -> Vec<String> {
        let mut names: Vec<String> = fact
            .classes
            .iter()
            .map(|&c| snapshot.class(c).name.clone())
            .collect();
        names.sort();
        names
    };
    order.sort_by_cached_key(|(_, fact)| (std::cmp::Reverse(fact.bytes), class_names(fact)));
    let id_of: FxHashMap<u32, usize> = order
        .iter()
        .enumerate()
        .map(|(id, (partition, _))| (*partition, id))
        .collect();
    let mut scratch = DegreeScratch::new(snapshot.objects().len());
    let structures: Vec<Structure> = order
        .iter()
        .enumerate()
        .map(|(id, (_, fact))| structure(snapshot, id, fact, class_names(fact), &mut scratch))
        .collect();
    let null_labels: FxHashMap<u32, &FxHashSet<LabelKey>> = order
        .iter()
        .map(|(partition, fact)| (*partition, &fact.null_labels))
        .collect();
    let edges = abstract_edges(snapshot, crossings, &id_of, &null_labels);
    let mut root_counts: BTreeMap<(usize, usize), u64> = BTreeMap::new();
    for &(name, target) in &roots.edges {
        let to = id_of[&partitions.find(target)];
        *root_counts.entry((name, to)).or_default() += 1;
    }
    let mut root_edges: Vec<RootEdge> = root_counts
        .into_iter()
        .map(|((name, to), count)| RootEdge {
            root: roots.names[name].clone(),
            to,
            count,
        })
        .collect();
    root_edges.sort_by(|a, b| (&a.root, a.to).cmp(&(&b.root, b.to)));
    let structure_of = (0..snapshot.objects().len() as u32)
        .map(|o| in_scope[o as usize].then(|| id_of[&partitions.find(o)] as u32))
        .collect();
    let graph = HeapGraph {
        moment: snapshot.moment.clone(),
        objects: structures.iter().map(|s| s.objects).sum(),
        bytes: structures.iter().map(|s| s.bytes).sum(),
        heap_objects: snapshot.objects().len() as u64,
        heap_bytes: snapshot.total_bytes(),
        structures,
        edges,
        roots: root_edges,
    };
    Abstraction {
        graph,
        structure_of,
    }
}

/// Records the labels `object` holds null: reference fields of its class with no reference
/// out of it, and for an array, an element slot left null.
fn note_nulls(snapshot: &Snapshot, object: ObjectIndex, nulls: &mut FxHashSet<LabelKey>) {
    let references = snapshot.references(object);
    let info = snapshot.object(object);
    if let Some(length) = info.length {
        let elements = references.iter().filter(|r| r.label.is_element()).count();
        if (elements as u64) < u64::from(length) && snapshot.class(info.class).is_array {
            nulls.insert(ELEMENT_KEY);
        }
        return;
    }
    for &field in &snapshot.class(info.class).reference_fields {
        if !references
            .iter()
            .any(|r| r.label.field_name() == Some(field))
        {
            nulls.insert(field);
        }
    }
}

fn label_name(snapshot: &Snapshot, key: LabelKey) -> String {
    if key == ELEMENT_KEY {
        "[]".to_owned()
    } else {
        snapshot.labels()[key as usize].clone()
    }
}

fn abstract_edges(
    snapshot: &Snapshot,
    mut crossings: Vec<(u32, LabelKey, u32, ObjectIndex, ObjectIndex)>,
    id_of: &FxHashMap<u32, usize>,
    null_labels: &FxHashMap<u32, &FxHashSet<LabelKey>>,
) -> Vec<Edge> {
    crossings.sort_unstable();
    let mut edges: Vec<Edge> = crossings
        .chunk_by(|a, b| a.0 == b.0 && a.1 == b.1 && a.2 == b.2)
        .map(|group| {
            let (from, key, to, _, _) = group[0];
            let mut injective = true;
            let mut shared = false;
            for pair in group.windows(2) {
                // Sorted by target, then source: equal targets are neighbours.
                if pair[0].3 == pair[1].3 {
                    shared = true;
                    injective &= pair[0].4 == pair[1].4;
                }
            }
            Edge {
                from: id_of[&from],
                to: id_of[&to],
                field: label_name(snapshot, key),
                count: group.len() as u64,
                injective,
                shared,
                may_be_null: null_labels.get(&from).is_some_and(|n| n.contains(&key)),
            }
        })
        .collect();
    edges.sort_by(|a, b| (a.from, a.to, &a.field).cmp(&(b.from, b.to, &b.field)));
    edges
}

fn structure(
    snapshot: &Snapshot,
    id: usize,
    fact: &PartitionFacts,
    classes: Vec<String>,
    scratch: &mut DegreeScratch,
) -> Structure {
    let labels: Vec<LabelKey> = {
        let mut labels: Vec<LabelKey> = fact.internal.iter().map(|e| e.2).collect();
        labels.sort_unstable();
        labels.dedup();
        labels
    };
    let (max_in_degree, max_out_degree) = scratch.max_degrees(&fact.internal);
    let (shape, kept) = shape_of(&fact.internal, &labels, scratch);
    let names = |keys: &[LabelKey]| -> Vec<String> {
        let mut names: Vec<String> = keys.iter().map(|&k| label_name(snapshot, k)).collect();
        names.sort();
        names
    };
    let excluded: Vec<LabelKey> = labels
        .iter()
        .copied()
        .filter(|l| !kept.contains(l))
        .collect();
    let mut sites: Vec<SiteCount> = fact
        .sites
        .iter()
        .map(|(&site, &objects)| SiteCount {
            site: snapshot.sites()[site as usize].to_string(),
            objects,
        })
        .collect();
    sites.sort_by(|a, b| b.objects.cmp(&a.objects).then_with(|| a.site.cmp(&b.site)));
    Structure {
        id,
        classes,
        objects: fact.objects,
        bytes: fact.bytes,
        shape,
        shape_fields: names(&kept),
        excluded_fields: names(&excluded),
        max_in_degree,
        max_out_degree,
        sites,
    }
}

/// The shape of a partition's internal edges and the labels it holds over: over all labels,
/// or when that is cyclic, over the largest label set that is not (see the module's doc).
fn shape_of(
    internal: &[(ObjectIndex, ObjectIndex, LabelKey)],
    labels: &[LabelKey],
    scratch: &mut DegreeScratch,
) -> (Shape, Vec<LabelKey>) {
    if labels.is_empty() {
        return (Shape::Atom, Vec::new());
    }
    let full = scratch.classify(internal, labels);
    if full != Shape::Cyclic {
        return (full, labels.to_vec());
    }
    let candidates: Vec<Vec<LabelKey>> = if labels.len() <= 4 {
        (1..(1u32 << labels.len()) - 1)
            .map(|mask| {
                (0..labels.len())
                    .filter(|i| mask & (1 << i) != 0)
                    .map(|i| labels[i])
                    .collect()
            })
            .collect()
    } else {
        (0..labels.len())
            .map(|skip| {
                let mut subset = labels.to_vec();
                subset.remove(skip);
                subset
            })
            .collect()
    };
    let mut best: Option<(Shape, Vec<LabelKey>, usize)> = None;
    for subset in candidates {
        let shape = scratch.classify(internal, &subset);
        if shape == Shape::Cyclic {
            continue;
        }
        let covered = internal.iter().filter(|e| subset.contains(&e.2)).count();
        let better = match &best {
            None => true,
            Some((_, kept, kept_covered)) => (subset.len(), covered) > (kept.len(), *kept_covered),
        };
        if better {
            best = Some((shape, subset, covered));
        }
    }
    match best {
        Some((shape, kept, _)) => (shape, kept),
        None => (Shape::Cyclic, labels.to_vec()),
    }
}

/// Per-object counters reused across partitions (reset through the touched list).
struct DegreeScratch {
    in_degree: Vec<u32>,
    out_degree: Vec<u32>,
    touched: Vec<ObjectIndex>,
}

impl DegreeScratch {
    fn new(objects: usize) -> DegreeScratch {
        DegreeScratch {
            in_degree: vec![0; objects],
            out_degree: vec![0; objects],
            touched: Vec::new(),
        }
    }

    fn reset(&mut self) {
        for &o in &self.touched {
            self.in_degree[o as usize] = 0;
            self.out_degree[o as usize] = 0;
        }
        self.touched.clear();
    }

    fn count(&mut self, edges: impl Iterator<Item = (ObjectIndex, ObjectIndex)>) {
        self.reset();
        for (from, to) in edges {
            for o in [from, to] {
                if self.in_degree[o as usize] == 0 && self.out_degree[o as usize] == 0 {
                    self.touched.push(o);
                }
            }
            self.out_degree[from as usize] += 1;
            self.in_degree[to as usize] += 1;
        }
    }

    fn max_degrees(&mut self, internal: &[(ObjectIndex, ObjectIndex, LabelKey)]) -> (u64, u64) {
        self.count(internal.iter().map(|e| (e.0, e.1)));
        let max_in = self
            .touched
            .iter()
            .map(|&o| self.in_degree[o as usize])
            .max();
        let max_out = self
            .touched
            .iter()
            .map(|&o| self.out_degree[o as usize])
            .max();
        (
            u64::from(max_in.unwrap_or(0)),
            u64::from(max_out.unwrap_or(0)),
        )
    }

    /// The shape of the internal edges with a label in `labels` (Kahn's algorithm for cycles).
    fn classify(
        &mut self,
        internal: &[(ObjectIndex, ObjectIndex, LabelKey)],
        labels: &[LabelKey],
    ) -> Shape {
        let mut edges: Vec<(ObjectIndex, ObjectIndex)> = internal
            .iter()
            .filter(|e| labels.contains(&e.2))
            .map(|e| (e.0, e.1))
            .collect();
        self.count(edges.iter().copied());
        let shared = self.touched.iter().any(|&o| self.in_degree[o as usize] > 1);
        let branching = self
            .touched
            .iter()
            .any(|&o| self.out_degree[o as usize] > 1);
        edges.sort_unstable();
        let mut remaining: FxHashMap<ObjectIndex, u32> = self
            .touched
            .iter()
            .map(|&o| (o, self.in_degree[o as usize]))
            .collect();
        let mut ready: Vec<ObjectIndex> = remaining
            .iter()
            .filter(|(_, d)| **d == 0)
            .map(|(&o, _)| o)
            .collect();
        let mut done = 0usize;
        while let Some(o) = ready.pop() {
            done += 1;
            let start = edges.partition_point(|e| e.0 < o);
            for &(_, to) in edges[start..].iter().take_while(|e| e.0 == o) {
                if let Some(d) = remaining.get_mut(&to) {
                    *d -= 1;
                    if *d == 0 {
                        ready.push(to);
                    }
                }
            }
        }
        if done < remaining.len() {
            Shape::Cyclic
        } else if shared {
            Shape::Dag
        } else if branching {
            Shape::Tree
        } else {
            Shape::List
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::tests::tiny;

    fn graph_of(objects: &[(&str, &[(&str, u64)])], roots: &[(&str, u64)]) -> HeapGraph {
        abstract_heap(&tiny(objects, roots), RootSelection::All).graph
    }

    fn only_structure<'a>(graph: &'a HeapGraph, class: &str) -> &'a Structure {
        let found: Vec<&Structure> = graph
            .structures
            .iter()
            .filter(|s| s.classes.iter().any(|c| c == class))
            .collect();
        assert_eq!(found.len(), 1, "{graph:#?}");
        found[0]
    }

    #[test]
    fn a_list_of_nodes_is_one_list_structure() {
        let graph = graph_of(
            &[
                ("Node", &[("next", 2), ("data", 4)]),
                ("Node", &[("next", 3), ("data", 5)]),
                ("Node", &[("data", 6)]),
                ("Data", &[]),
                ("Data", &[]),
                ("Data", &[]),
            ],
            &[("Main.head", 1)],
        );
        let nodes = only_structure(&graph, "Node");
        assert_eq!((nodes.objects, nodes.shape), (3, Shape::List));
        assert_eq!(nodes.shape_fields, ["next"]);
        assert_eq!((nodes.max_in_degree, nodes.max_out_degree), (1, 1));
        // The data of every node is one structure, reached injectively.
        let data = only_structure(&graph, "Data");
        assert_eq!((data.objects, data.shape), (3, Shape::Atom));
        let edge = graph
            .edges
            .iter()
            .find(|e| e.field == "data")
            .expect("a data edge");
        assert!(edge.injective && !edge.shared && !edge.may_be_null);
        let next = graph
            .edges
            .iter()
            .find(|e| e.field == "next")
            .expect("next");
        assert_eq!(next.count, 2);
    }

    #[test]
    fn trees_dags_and_rings_are_told_apart() {
        let tree = graph_of(
            &[
                ("T", &[("l", 2), ("r", 3)]),
                ("T", &[]),
                ("T", &[("l", 4)]),
                ("T", &[]),
            ],
            &[("Main.t", 1)],
        );
        assert_eq!(only_structure(&tree, "T").shape, Shape::Tree);
        let dag = graph_of(
            &[("T", &[("l", 2), ("r", 3)]), ("T", &[("l", 3)]), ("T", &[])],
            &[("Main.t", 1)],
        );
        let shared = only_structure(&dag, "T");
        assert_eq!((shared.shape, shared.max_in_degree), (Shape::Dag, 2));
        assert_eq!(shared.shape_fields, ["l", "r"]);
        let ring = graph_of(
            &[
                ("R", &[("next", 2)]),
                ("R", &[("next", 3)]),
                ("R", &[("next", 1)]),
            ],
            &[("Main.r", 1)],
        );
        assert_eq!(only_structure(&ring, "R").shape, Shape::Cyclic);
    }

    #[test]
    fn back_pointers_are_left_out_to_find_the_shape() {
        let doubly = graph_of(
            &[
                ("D", &[("next", 2)]),
                ("D", &[("next", 3), ("prev", 1)]),
                ("D", &[("prev", 2)]),
            ],
            &[("Main.d", 1)],
        );
        let list = only_structure(&doubly, "D");
        assert_eq!(list.shape, Shape::List);
        assert_eq!(list.shape_fields, ["next"]);
        assert_eq!(list.excluded_fields, ["prev"]);
        assert_eq!((list.max_in_degree, list.max_out_degree), (2, 2));
    }

    #[test]
    fn array_elements_merge_and_sharing_is_seen() {
        let graph = graph_of(
            &[
                ("Holder", &[("items", 2)]),
                ("Item[]", &[("[]", 3), ("[]", 4), ("[]", 3)]),
                ("Item", &[]),
                ("Item", &[]),
            ],
            &[("Main.h", 1)],
        );
        let items = only_structure(&graph, "Item");
        assert_eq!(items.objects, 2);
        let elements = graph.edges.iter().find(|e| e.field == "[]").expect("[]");
        // The same array holds one item twice: shared, yet injective (one source).
        assert!(elements.shared && elements.injective);
        assert_eq!(elements.count, 3);
    }

    #[test]
    fn two_holders_of_one_object_make_a_non_injective_edge() {
        // The boxes are elements of one array, so they are one structure.
        let graph = graph_of(
            &[
                ("Box", &[("inner", 3)]),
                ("Box", &[("inner", 3)]),
                ("Inner", &[]),
                ("Box[]", &[("[]", 1), ("[]", 2)]),
            ],
            &[("Main.p", 4)],
        );
        let inner = graph
            .edges
            .iter()
            .find(|e| e.field == "inner")
            .expect("inner");
        assert!(!inner.injective && inner.shared);
    }

    #[test]
    fn tarjan_finds_components() {
        let successors = vec![vec![1], vec![2], vec![0], vec![3], vec![]];
        let components = strongly_connected(&successors);
        assert_eq!(components[0], components[1]);
        assert_eq!(components[1], components[2]);
        assert_ne!(components[3], components[0]);
        assert_ne!(components[4], components[3]);
    }
}

//! The heap-snapshot model: every object with its class, size and allocation site (where known),
//! its non-null references labelled by field name or array index, and the roots by kind. Both
//! readers ([`crate::hprof`], [`crate::agent_file`]) build it through [`SnapshotBuilder`], which
//! turns the files' object identities (addresses, agent tags) into dense indices.
//!
//! References are stored by source object in one flat array (compressed rows), 8 bytes each, so
//! a snapshot of a million objects stays in the tens of MB.

use crate::error::{Error, Result};
use rustc_hash::FxHashMap;
use std::fmt;

/// Index of an object in [`Snapshot::objects`].
pub type ObjectIndex = u32;
/// Index of a class in [`Snapshot::classes`].
pub type ClassIndex = u32;
/// Index of an allocation site in [`Snapshot::sites`].
pub type SiteIndex = u32;

/// How a reference is labelled: a field's name (an index into [`Snapshot::labels`]) or an array
/// element's index. Packed in 32 bits: the top bit marks an element (Java arrays have fewer than
/// 2^31 elements).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label(u32);

const ELEMENT_BIT: u32 = 1 << 31;

impl Label {
    pub fn field(name: u32) -> Label {
        Label(name & !ELEMENT_BIT)
    }

    pub fn element(index: u32) -> Label {
        Label(index | ELEMENT_BIT)
    }

    /// The field-name index, None for an array element.
    pub fn field_name(self) -> Option<u32> {
        (self.0 & ELEMENT_BIT == 0).then_some(self.0)
    }

    pub fn is_element(self) -> bool {
        self.0 & ELEMENT_BIT != 0
    }
}

/// One non-null reference out of an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reference {
    pub target: ObjectIndex,
    pub label: Label,
}

/// A class of objects in the snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassInfo {
    /// Java source form: `pkg.Node`, `pkg.Outer$Inner`, `int[]`, `pkg.Node[][]`.
    pub name: String,
    pub is_array: bool,
    /// The instance reference fields of the class and its superclasses (label indices): a field
    /// listed here without a reference out of an object is null in that object.
    pub reference_fields: Vec<u32>,
}

/// Where an object was allocated: the method and bytecode offset of the allocating frame.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Site {
    /// `pkg.C.m(desc)`.
    pub method: String,
    pub offset: Option<i64>,
    pub line: Option<u32>,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.method)?;
        match (self.line, self.offset) {
            (Some(line), _) => write!(f, " line {line}"),
            (None, Some(offset)) => write!(f, " @{offset}"),
            (None, None) => Ok(()),
        }
    }
}

/// Marks an object whose allocation site is not known.
pub const NO_SITE: SiteIndex = SiteIndex::MAX;

/// One object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Object {
    pub class: ClassIndex,
    /// Shallow size in bytes (the JVM's for agent snapshots, a model's for HPROF: see
    /// [`crate::hprof`]).
    pub bytes: u64,
    /// [`NO_SITE`] when unknown.
    pub site: SiteIndex,
    /// The identity the file gave it: an address in an HPROF dump (meaningless in another
    /// dump), an agent tag (stable across the snapshots of one run).
    pub identity: u64,
    /// The number of elements of an array, None for other objects.
    pub length: Option<u32>,
}

/// What holds a root reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RootKind {
    /// A static field.
    Static,
    /// A local variable or operand of a Java frame.
    Local,
    JniGlobal,
    JniLocal,
    /// A thread object, or an object a thread blocks on.
    Thread,
    /// An object used as a monitor.
    Monitor,
    /// A system class (an HPROF sticky class) or an unknown root.
    Other,
}

impl RootKind {
    pub fn name(self) -> &'static str {
        match self {
            RootKind::Static => "static",
            RootKind::Local => "local",
            RootKind::JniGlobal => "jni-global",
            RootKind::JniLocal => "jni-local",
            RootKind::Thread => "thread",
            RootKind::Monitor => "monitor",
            RootKind::Other => "other",
        }
    }

    pub fn parse(text: &str) -> Option<RootKind> {
        [
            RootKind::Static,
            RootKind::Local,
            RootKind::JniGlobal,
            RootKind::JniLocal,
            RootKind::Thread,
            RootKind::Monitor,
            RootKind::Other,
        ]
        .into_iter()
        .find(|kind| kind.name() == text)
    }
}

/// A root reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    pub kind: RootKind,
    /// What holds it: `pkg.C.f` for a static field, `pkg.C.m(desc)` for a frame's local (the
    /// method, when the file says which), empty otherwise.
    pub holder: String,
    pub target: ObjectIndex,
}

impl Root {
    /// `static pkg.C.f`, `local pkg.C.m(desc)`, `thread`.
    pub fn name(&self) -> String {
        if self.holder.is_empty() {
            self.kind.name().to_owned()
        } else {
            format!("{} {}", self.kind.name(), self.holder)
        }
    }
}

/// Where a snapshot came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Hprof,
    Agent,
}

/// One heap snapshot.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub source: Source,
    /// When it was taken: `dump` for an HPROF file, `exit pkg.C.m(desc)`, `gc 3`, ….
    pub moment: String,
    classes: Vec<ClassInfo>,
    labels: Vec<String>,
    sites: Vec<Site>,
    objects: Vec<Object>,
    /// `references[reference_start[o]..reference_start[o + 1]]` are object o's.
    reference_start: Vec<u32>,
    references: Vec<Reference>,
    roots: Vec<Root>,
    /// References to something that is not an object of the snapshot (a class object, a
    /// missing record): left out.
    pub dropped_references: u64,
}

impl Snapshot {
    pub fn objects(&self) -> &[Object] {
        &self.objects
    }

    pub fn object(&self, index: ObjectIndex) -> &Object {
        &self.objects[index as usize]
    }

    pub fn references(&self, from: ObjectIndex) -> &[Reference] {
        let from = from as usize;
        let (start, end) = (self.reference_start[from], self.reference_start[from + 1]);
        &self.references[start as usize..end as usize]
    }

    pub fn reference_count(&self) -> usize {
        self.references.len()
    }

    pub fn classes(&self) -> &[ClassInfo] {
        &self.classes
    }

    pub fn class(&self, index: ClassIndex) -> &ClassInfo {
        &self.classes[index as usize]
    }

    pub fn class_of(&self, object: ObjectIndex) -> &ClassInfo {
        self.class(self.object(object).class)
    }

    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// A field's name, or `[]` for an array element (its index dropped).
    pub fn label_name(&self, label: Label) -> &str {
        match label.field_name() {
            Some(name) => &self.labels[name as usize],
            None => "[]",
        }
    }

    pub fn sites(&self) -> &[Site] {
        &self.sites
    }

    pub fn site_of(&self, object: ObjectIndex) -> Option<&Site> {
        self.sites.get(self.object(object).site as usize)
    }

    pub fn roots(&self) -> &[Root] {
        &self.roots
    }

    pub fn total_bytes(&self) -> u64 {
        self.objects.iter().map(|o| o.bytes).sum()
    }

    /// The label index of a field name, if any object's class has such a field.
    pub fn label_index(&self, name: &str) -> Option<u32> {
        self.labels
            .iter()
            .position(|l| l == name)
            .and_then(|i| u32::try_from(i).ok())
    }
}

/// Builds a [`Snapshot`] from a file's records, in any order: references and roots name their
/// target by identity and are resolved by [`SnapshotBuilder::finish`].
pub struct SnapshotBuilder {
    source: Source,
    moment: String,
    classes: Vec<ClassInfo>,
    labels: Vec<String>,
    label_ids: FxHashMap<String, u32>,
    sites: Vec<Site>,
    objects: Vec<Object>,
    index: FxHashMap<u64, ObjectIndex>,
    /// (source index, label, target identity).
    pending: Vec<(ObjectIndex, Label, u64)>,
    roots: Vec<(RootKind, String, u64)>,
}

impl SnapshotBuilder {
    pub fn new(source: Source, moment: impl Into<String>) -> SnapshotBuilder {
        SnapshotBuilder {
            source,
            moment: moment.into(),
            classes: Vec::new(),
            labels: Vec::new(),
            label_ids: FxHashMap::default(),
            sites: Vec::new(),
            objects: Vec::new(),
            index: FxHashMap::default(),
            pending: Vec::new(),
            roots: Vec::new(),
        }
    }

    /// The index of a field name, interned.
    pub fn label(&mut self, name: &str) -> Result<u32> {
        if let Some(&id) = self.label_ids.get(name) {
            return Ok(id);
        }
        let id = u32::try_from(self.labels.len())
            .ok()
            .filter(|&id| id < ELEMENT_BIT)
            .ok_or_else(|| too_many("field names"))?;
        self.labels.push(name.to_owned());
        self.label_ids.insert(name.to_owned(), id);
        Ok(id)
    }

    pub fn add_class(&mut self, class: ClassInfo) -> Result<ClassIndex> {
        let id = ClassIndex::try_from(self.classes.len()).map_err(|_| too_many("classes"))?;
        self.classes.push(class);
        Ok(id)
    }

    pub fn class_count(&self) -> usize {
        self.classes.len()
    }

    pub fn add_site(&mut self, site: Site) -> Result<SiteIndex> {
        let id = SiteIndex::try_from(self.sites.len())
            .ok()
            .filter(|&id| id != NO_SITE)
            .ok_or_else(|| too_many("allocation sites"))?;
        self.sites.push(site);
        Ok(id)
    }

    /// Adds an object; its identity must be new.
    pub fn add_object(&mut self, object: Object) -> Result<ObjectIndex> {
        if object.class as usize >= self.classes.len() {
            return Err(Error::Input(format!(
                "object {:#x} names class #{} of {}",
                object.identity,
                object.class,
                self.classes.len()
            )));
        }
        if object.site != NO_SITE && object.site as usize >= self.sites.len() {
            return Err(Error::Input(format!(
                "object {:#x} names allocation site #{} of {}",
                object.identity,
                object.site,
                self.sites.len()
            )));
        }
        let index = ObjectIndex::try_from(self.objects.len())
            .ok()
            .filter(|&i| i != ObjectIndex::MAX)
            .ok_or_else(|| too_many("objects"))?;
        if self.index.insert(object.identity, index).is_some() {
            return Err(Error::Input(format!(
                "object {:#x} is defined twice",
                object.identity
            )));
        }
        self.objects.push(object);
        Ok(index)
    }

    /// The index of the object with this identity, if defined so far.
    pub fn index_of(&self, identity: u64) -> Option<ObjectIndex> {
        self.index.get(&identity).copied()
    }

    /// A reference out of the object at `from` (an index returned by `add_object`).
    pub fn add_reference(&mut self, from: ObjectIndex, label: Label, target: u64) {
        self.pending.push((from, label, target));
    }

    pub fn add_root(&mut self, kind: RootKind, holder: String, target: u64) {
        self.roots.push((kind, holder, target));
    }

    /// Resolves references and roots; those whose target is not an object are dropped and
    /// counted.
    pub fn finish(self) -> Result<Snapshot> {
        let object_count = self.objects.len();
        let mut dropped = 0u64;
        let mut resolved: Vec<(ObjectIndex, Reference)> = Vec::with_capacity(self.pending.len());
        for (from, label, target) in self.pending {
            if from as usize >= object_count {
                return Err(Error::Input(format!(
                    "a reference from object #{from} of {object_count}"
                )));
            }
            match self.index.get(&target) {
                Some(&target) => resolved.push((from, Reference { target, label })),
                None => dropped += 1,
            }
        }
        let (reference_start, references) = compress_rows(object_count, resolved)?;
        let mut roots = Vec::with_capacity(self.roots.len());
        for (kind, holder, target) in self.roots {
            match self.index.get(&target) {
                Some(&target) => roots.push(Root {
                    kind,
                    holder,
                    target,
                }),
                None => dropped += 1,
            }
        }
        Ok(Snapshot {
            source: self.source,
            moment: self.moment,
            classes: self.classes,
            labels: self.labels,
            sites: self.sites,
            objects: self.objects,
            reference_start,
            references,
            roots,
            dropped_references: dropped,
        })
    }
}

fn too_many(what: &str) -> Error {
    Error::Input(format!("the snapshot has too many {what} (more than 2^31)"))
}

/// Groups references by source (a counting sort, stable: each object's references keep their
/// file order).
fn compress_rows(
    object_count: usize,
    references: Vec<(ObjectIndex, Reference)>,
) -> Result<(Vec<u32>, Vec<Reference>)> {
    if u32::try_from(references.len()).is_err() {
        return Err(too_many("references"));
    }
    let mut start = vec![0u32; object_count + 1];
    for (from, _) in &references {
        start[*from as usize + 1] += 1;
    }
    for i in 0..object_count {
        start[i + 1] += start[i];
    }
    let mut next = start.clone();
    let placeholder = Reference {
        target: 0,
        label: Label(0),
    };
    let mut rows = vec![placeholder; references.len()];
    for (from, reference) in references {
        let slot = &mut next[from as usize];
        rows[*slot as usize] = reference;
        *slot += 1;
    }
    Ok((start, rows))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A snapshot built from `(class, [(field, target)])` objects (identities 1, 2, …) and
    /// static roots `(field, target)`, all objects of 16 bytes, each class declaring the
    /// fields its objects use: for the other modules' tests.
    pub(crate) fn tiny(objects: &[(&str, &[(&str, u64)])], roots: &[(&str, u64)]) -> Snapshot {
        let mut builder = SnapshotBuilder::new(Source::Agent, "test");
        let mut classes: FxHashMap<String, ClassIndex> = FxHashMap::default();
        for (identity, (class, fields)) in (1u64..).zip(objects) {
            let class = match classes.get(*class) {
                Some(&c) => c,
                None => {
                    let is_array = class.ends_with("[]");
                    // The class's reference fields: every field its objects use.
                    let mut names: Vec<&str> = objects
                        .iter()
                        .filter(|(c, _)| c == class)
                        .flat_map(|(_, fields)| fields.iter().map(|(f, _)| *f))
                        .filter(|f| *f != "[]")
                        .collect();
                    names.sort_unstable();
                    names.dedup();
                    let reference_fields = names
                        .iter()
                        .map(|n| builder.label(n).expect("label"))
                        .collect();
                    let id = builder
                        .add_class(ClassInfo {
                            name: (*class).to_owned(),
                            is_array,
                            reference_fields,
                        })
                        .expect("class");
                    classes.insert((*class).to_owned(), id);
                    id
                }
            };
            let from = builder
                .add_object(Object {
                    class,
                    bytes: 16,
                    site: NO_SITE,
                    identity,
                    length: None,
                })
                .expect("object");
            for (position, (field, target)) in (0u32..).zip(fields.iter()) {
                let label = if *field == "[]" {
                    Label::element(position)
                } else {
                    Label::field(builder.label(field).expect("label"))
                };
                builder.add_reference(from, label, *target);
            }
        }
        for (field, target) in roots {
            builder.add_root(RootKind::Static, (*field).to_owned(), *target);
        }
        builder.finish().expect("a valid snapshot")
    }

    #[test]
    fn references_are_grouped_by_source_in_file_order() {
        let snapshot = tiny(
            &[
                ("A", &[("x", 2), ("y", 3)]),
                ("B", &[]),
                ("B", &[("x", 99)]),
            ],
            &[("Main.a", 1), ("Main.gone", 42)],
        );
        let targets: Vec<u32> = snapshot.references(0).iter().map(|r| r.target).collect();
        assert_eq!(targets, [1, 2]);
        assert!(snapshot.references(1).is_empty());
        // The reference to 99 and the root to 42 name no object.
        assert!(snapshot.references(2).is_empty());
        assert_eq!(snapshot.dropped_references, 2);
        assert_eq!(snapshot.roots().len(), 1);
        assert_eq!(snapshot.roots()[0].name(), "static Main.a");
        assert_eq!(snapshot.label_name(snapshot.references(0)[1].label), "y");
    }

    #[test]
    fn an_identity_defined_twice_is_an_input_error() {
        let mut builder = SnapshotBuilder::new(Source::Hprof, "dump");
        let class = builder
            .add_class(ClassInfo {
                name: "A".into(),
                is_array: false,
                reference_fields: vec![],
            })
            .expect("class");
        let object = Object {
            class,
            bytes: 16,
            site: NO_SITE,
            identity: 7,
            length: None,
        };
        builder.add_object(object).expect("first");
        assert!(builder.add_object(object).is_err());
        let bad_class = Object {
            class: 5,
            identity: 8,
            ..object
        };
        assert!(builder.add_object(bad_class).is_err());
    }

    #[test]
    fn labels_pack_fields_and_elements_apart() {
        assert_eq!(Label::field(3).field_name(), Some(3));
        assert_eq!(Label::element(3).field_name(), None);
        assert!(Label::element(0).is_element());
    }
}

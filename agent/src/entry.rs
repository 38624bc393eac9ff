//! The integer values the agent records at each entry of the watched method, which a bound's
//! parameters are evaluated at: the declared parameters (integers, array and `String` lengths,
//! `size()` of collections and maps), the integer instance fields of `this`, and the static
//! integer fields the options name. The fields are looked up once, when their class is
//! prepared; at an entry they are only read.
//!
//! It does not decide which values a bound needs (the certificate's parameters do, in
//! `membound validate`) and writes nothing: the caller writes what it returns.
//!
//! Reading a collection's size calls Java code (`size()`) from the breakpoint callback. That
//! call is the agent's, not the program's: while it runs, [`inside_agent_call`] is true and the
//! agent records neither its allocations nor the activations it starts.

use crate::bytecode::{self, IntegerType, ParameterKind};
use crate::ffi::{self, Jclass, JfieldId, Jobject};
use crate::jvmti::{Jni, Jvmti, JvmtiFailure};
use std::cell::Cell;

/// An integer field, found once; its `jfieldID` stays valid while its class is loaded.
#[derive(Debug, Clone)]
pub struct FieldSlot {
    /// The declaring class, `pkg.C`.
    pub class: String,
    pub name: String,
    pub ty: IntegerType,
    /// The `jfieldID` address.
    id: usize,
}

impl FieldSlot {
    fn id(&self) -> JfieldId {
        self.id as JfieldId
    }
}

/// A static integer field the options name, with the class that declares it.
#[derive(Debug)]
pub struct StaticField {
    pub slot: FieldSlot,
    /// A global reference to the declaring class (never freed: the class stays loaded).
    class: usize,
}

/// The integer fields `class` declares (not inherited ones) whose static-ness is `statics`
/// and which `wanted` accepts by name.
fn declared_fields(
    jvmti: &Jvmti,
    class: Jclass,
    statics: bool,
    wanted: impl Fn(&str) -> bool,
) -> Result<Vec<FieldSlot>, JvmtiFailure> {
    let declaring = bytecode::java_type_name(&jvmti.class_signature(class)?);
    let mut slots = Vec::new();
    for id in jvmti.class_fields(class)? {
        let is_static = jvmti.field_modifiers(class, id)? & ffi::ACC_STATIC != 0;
        if is_static != statics {
            continue;
        }
        let (name, descriptor) = jvmti.field_name(class, id)?;
        if let Some(ty) = IntegerType::of_descriptor(&descriptor)
            && wanted(&name)
        {
            slots.push(FieldSlot {
                class: declaring.clone(),
                name,
                ty,
                id: id as usize,
            });
        }
    }
    Ok(slots)
}

/// The integer instance fields of `class` and of its superclasses, the class's own first: a
/// name's first field in this order is the one the JVM resolves `this.name` to in a method of
/// `class`.
pub fn instance_fields(
    jvmti: &Jvmti,
    jni: Jni,
    class: Jclass,
) -> Result<Vec<FieldSlot>, JvmtiFailure> {
    let mut fields = Vec::new();
    let mut current = class;
    while !current.is_null() {
        let declared = declared_fields(jvmti, current, false, |_| true);
        let next = declared.is_ok().then(|| jni.superclass(current));
        if current != class {
            jni.delete_local_ref(current);
        }
        fields.extend(declared?);
        current = next.unwrap_or(std::ptr::null_mut());
    }
    Ok(fields)
}

/// The static integer fields of a just-prepared `class` that `wanted` accepts by name.
pub fn static_fields(
    jvmti: &Jvmti,
    jni: Jni,
    class: Jclass,
    wanted: impl Fn(&str) -> bool,
) -> Result<Vec<StaticField>, JvmtiFailure> {
    let slots = declared_fields(jvmti, class, true, wanted)?;
    if slots.is_empty() {
        return Ok(Vec::new());
    }
    let global = jni.new_global_ref(class);
    if global.is_null() {
        return Err(JvmtiFailure(ffi::JVMTI_ERROR_OUT_OF_MEMORY));
    }
    Ok(slots
        .into_iter()
        .map(|slot| StaticField {
            slot,
            class: global as usize,
        })
        .collect())
}

/// `java.util.Collection` and `java.util.Map` with their `size()` methods, found at VM start.
#[derive(Debug)]
pub struct SizeMethods {
    /// Global references to the two interfaces, and the `jmethodID`s of their `size()`.
    collection: usize,
    collection_size: usize,
    map: usize,
    map_size: usize,
}

impl SizeMethods {
    /// Looks both interfaces up; the boot loader loaded and initialized them long before the VM
    /// started, so no Java code runs. None when either is missing.
    pub fn find(jni: Jni) -> Option<SizeMethods> {
        let lookup = |name: &std::ffi::CStr| -> Option<(usize, usize)> {
            let class = jni.find_loaded_class(name);
            if class.is_null() {
                return None;
            }
            let size = jni.method_id(class, c"size", c"()I");
            let global = jni.new_global_ref(class);
            jni.delete_local_ref(class);
            (!size.is_null() && !global.is_null()).then_some((global as usize, size as usize))
        };
        let (collection, collection_size) = lookup(c"java/util/Collection")?;
        let (map, map_size) = lookup(c"java/util/Map")?;
        Some(SizeMethods {
            collection,
            collection_size,
            map,
            map_size,
        })
    }

    /// `("collection" | "map", size())` of a non-null object; None for other objects or when
    /// `size()` threw.
    fn size_of(&self, jni: Jni, object: Jobject) -> Option<(&'static str, i64)> {
        let (kind, method) = if jni.is_instance_of(object, self.collection as Jclass) {
            ("collection", self.collection_size)
        } else if jni.is_instance_of(object, self.map as Jclass) {
            ("map", self.map_size)
        } else {
            return None;
        };
        let size = AGENT_CALL.with(|inside| {
            inside.set(true);
            // SAFETY: `object` is an instance of the interface that declares `method`, `()I`.
            let size = unsafe { jni.call_int_method(object, method as ffi::JmethodId) };
            inside.set(false);
            size
        });
        Some((kind, i64::from(size?)))
    }
}

thread_local! {
    /// Whether this thread is running Java code on the agent's behalf (a collection's `size()`).
    static AGENT_CALL: Cell<bool> = const { Cell::new(false) };
}

/// Whether the current thread is inside a Java call the agent made: what happens then is not
/// the program's doing.
pub fn inside_agent_call() -> bool {
    AGENT_CALL.try_with(Cell::get).unwrap_or(false)
}

/// What a parameter's `param` line says: its kind in the stream and its value (None for null).
pub type ParameterValue = (&'static str, Option<i64>);

/// The value of the parameter of `kind` in local `slot` of the top frame (the watched method at
/// its breakpoint); None when it is not recorded or cannot be read.
pub fn parameter_value(
    jvmti: &Jvmti,
    jni: Option<Jni>,
    sizes: Option<&SizeMethods>,
    kind: ParameterKind,
    slot: i32,
) -> Option<ParameterValue> {
    let reference =
        || -> Option<(Jni, Jobject)> { Some((jni?, jvmti.local_object(0, slot).ok()?)) };
    match kind {
        ParameterKind::Int => Some(("int", Some(i64::from(jvmti.local_int(0, slot).ok()?)))),
        ParameterKind::Long => Some(("long", Some(jvmti.local_long(0, slot).ok()?))),
        ParameterKind::Array | ParameterKind::String => {
            let name = if kind == ParameterKind::Array {
                "array"
            } else {
                "string"
            };
            let (jni, object) = reference()?;
            if object.is_null() {
                return Some((name, None));
            }
            // SAFETY: the descriptor says this parameter is an array (a String), and the
            // reference is live.
            let length = unsafe {
                if kind == ParameterKind::Array {
                    jni.array_length(object)
                } else {
                    jni.string_length(object)
                }
            };
            jni.delete_local_ref(object);
            Some((name, Some(i64::from(length))))
        }
        ParameterKind::Boxed(ty) => {
            let (jni, object) = reference()?;
            if object.is_null() {
                return Some(("boxed", None));
            }
            let value = boxed_value(jvmti, jni, object, ty);
            jni.delete_local_ref(object);
            Some(("boxed", Some(value?)))
        }
        ParameterKind::Object => {
            let (jni, object) = reference()?;
            if object.is_null() {
                return None;
            }
            let size = sizes.and_then(|sizes| sizes.size_of(jni, object));
            jni.delete_local_ref(object);
            size.map(|(kind, size)| (kind, Some(size)))
        }
        ParameterKind::Unrecorded { .. } => None,
    }
}

/// The `value` field of a non-null box of type `ty` (the JDK's `Integer.value`, …).
fn boxed_value(jvmti: &Jvmti, jni: Jni, object: Jobject, ty: IntegerType) -> Option<i64> {
    let class = jni.object_class(object);
    let slot = declared_fields(jvmti, class, false, |name| name == "value")
        .ok()
        .and_then(|slots| slots.into_iter().find(|slot| slot.ty == ty));
    jni.delete_local_ref(class);
    // SAFETY: `slot` is an instance field of type `ty` declared by `object`'s class.
    slot.map(|slot| unsafe { jni.field_value(object, slot.id(), ty) })
}

/// The most nodes a chain is followed for: a longer one is reported as such, not counted.
const CHAIN_CAP: i64 = 1 << 24;

/// What following a chain found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainLength {
    /// It reaches null after this many nodes.
    Nodes(i64),
    /// It comes back to a node it passed.
    Cycle,
    /// It runs on past [`CHAIN_CAP`] nodes.
    Long,
    /// A tree's walk reaches a node twice (a shared subtree or a cycle).
    Shared,
}

impl std::fmt::Display for ChainLength {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChainLength::Nodes(count) => write!(f, "{count}"),
            ChainLength::Cycle => f.write_str("cycle"),
            ChainLength::Long => f.write_str("long"),
            ChainLength::Shared => f.write_str("shared"),
        }
    }
}

/// A reference instance field by name, resolved from `class` (`pkg.C`) upwards as the JVM
/// resolves `getfield C.name`, or from the object's own class when None.
pub struct FieldName<'a> {
    pub class: Option<&'a str>,
    pub name: &'a str,
    /// The field holds an array whose elements are the children (a tree's `kids[]`).
    pub elements: bool,
}

/// The reference instance field `field` of `object`, the first in resolution order, with its
/// declaring class as a local reference.
fn reference_field(
    jvmti: &Jvmti,
    jni: Jni,
    object: Jobject,
    field: &FieldName<'_>,
) -> Option<(JfieldId, Jclass)> {
    let mut current = jni.object_class(object);
    let mut reached = field.class.is_none();
    while !current.is_null() {
        reached = reached
            || jvmti
                .class_signature(current)
                .is_ok_and(|s| Some(bytecode::java_type_name(&s).as_str()) == field.class);
        let found = reached.then(|| declared_reference_field(jvmti, current, field.name));
        if let Some(Some(id)) = found {
            return Some((id, current));
        }
        let next = jni.superclass(current);
        jni.delete_local_ref(current);
        current = next;
    }
    None
}

/// The reference instance field `name` that `class` itself declares.
fn declared_reference_field(jvmti: &Jvmti, class: Jclass, name: &str) -> Option<JfieldId> {
    jvmti.class_fields(class).ok()?.into_iter().find(|&id| {
        let is_static = jvmti
            .field_modifiers(class, id)
            .map_or(true, |m| m & ffi::ACC_STATIC != 0);
        let named = jvmti
            .field_name(class, id)
            .is_ok_and(|(field, descriptor)| {
                field == name && (descriptor.starts_with('L') || descriptor.starts_with('['))
            });
        !is_static && named
    })
}

/// The reference field `field` of `object` (non-null), a local reference; None when it has no
/// such field.
pub fn object_field_named(
    jvmti: &Jvmti,
    jni: Jni,
    object: Jobject,
    field: &FieldName<'_>,
) -> Option<Jobject> {
    let (id, declaring) = reference_field(jvmti, jni, object, field)?;
    jni.delete_local_ref(declaring);
    // SAFETY: `id` is a reference field of `object`'s class or a superclass.
    Some(unsafe { jni.object_field(object, id) })
}

/// The length of the chain from `start` along the reference field `field`: the nodes before
/// null, a cycle (Floyd's: a cursor at half speed meets the leading one inside a cycle), or
/// longer than the cap; None when a node has no such field.
pub fn chain_length(
    jvmti: &Jvmti,
    jni: Jni,
    start: Jobject,
    field: &FieldName<'_>,
) -> Option<ChainLength> {
    if start.is_null() {
        return Some(ChainLength::Nodes(0));
    }
    let (id, declaring) = reference_field(jvmti, jni, start, field)?;
    let step = |node: Jobject| -> Option<Jobject> {
        // SAFETY: the node is an instance of the class that declares the field.
        jni.is_instance_of(node, declaring)
            .then(|| unsafe { jni.object_field(node, id) })
    };
    let mut lead = jni.new_local_ref(start);
    let mut behind = jni.new_local_ref(start);
    let mut nodes = 0;
    let length = loop {
        if lead.is_null() {
            break Some(ChainLength::Nodes(nodes));
        }
        if nodes >= CHAIN_CAP {
            break Some(ChainLength::Long);
        }
        let Some(next) = step(lead) else { break None };
        jni.delete_local_ref(lead);
        lead = next;
        nodes += 1;
        if nodes % 2 == 0 {
            // Behind the lead, so not null.
            let Some(next) = step(behind) else { break None };
            jni.delete_local_ref(behind);
            behind = next;
        }
        if !lead.is_null() && jni.is_same_object(lead, behind) {
            break Some(ChainLength::Cycle);
        }
    };
    jni.delete_local_ref(lead);
    jni.delete_local_ref(behind);
    jni.delete_local_ref(declaring);
    length
}

/// The tags a tree's walk gives the nodes it has seen: `TREE_MARK + k` for the `k`-th, below
/// every tag the agent gives otherwise (allocation numbers, -1 for the returning thread).
const TREE_MARK: ffi::Jlong = ffi::Jlong::MIN / 2;

/// The size of the tree from `start` along the reference fields `fields` (each resolved from
/// the class of the first node; a node that lacks one has no child along it; an array field's
/// children are its non-null elements): the nodes reached, `Shared` when one is reached twice,
/// or `Long` past [`CHAIN_CAP`]; None when the first node has none of the fields or the tags
/// fail. A `start` that is an array (a root field holding the children) is no node: the tree
/// is its elements'. The walk marks each node it sees with a tag and puts its own tag back
/// afterwards.
pub fn tree_size(
    jvmti: &Jvmti,
    jni: Jni,
    start: Jobject,
    fields: &[FieldName<'_>],
) -> Option<ChainLength> {
    let tops = match is_array(jvmti, jni, start) {
        true => elements(jni, start),
        false => non_null(jni, vec![jni.new_local_ref(start)]),
    };
    let Some(&first) = tops.first() else {
        return Some(ChainLength::Nodes(0));
    };
    let resolved: Vec<(JfieldId, Jclass, bool)> = fields
        .iter()
        .filter_map(|field| {
            let (id, declaring) = reference_field(jvmti, jni, first, field)?;
            Some((id, declaring, field.elements))
        })
        .collect();
    if resolved.is_empty() {
        for top in tops {
            jni.delete_local_ref(top);
        }
        return None;
    }
    let children = |node: Jobject| -> Vec<Jobject> {
        let mut found = Vec::new();
        for &(id, declaring, holds_array) in &resolved {
            if !jni.is_instance_of(node, declaring) {
                continue;
            }
            // SAFETY: the node is an instance of the class that declares the field.
            let child = unsafe { jni.object_field(node, id) };
            if holds_array && !child.is_null() {
                found.extend(elements(jni, child));
                jni.delete_local_ref(child);
            } else {
                found.extend(non_null(jni, vec![child]));
            }
        }
        found
    };
    let restart: Vec<Jobject> = tops.iter().map(|&top| jni.new_local_ref(top)).collect();
    let mut saved: Vec<ffi::Jlong> = Vec::new();
    let mut pending = tops;
    let mut found = None;
    while let Some(node) = pending.pop() {
        found = match jvmti.tag(node) {
            Err(_) => Some(None),
            Ok(tag) if is_tree_mark(tag) => Some(Some(ChainLength::Shared)),
            Ok(_) if saved.len() as i64 >= CHAIN_CAP => Some(Some(ChainLength::Long)),
            Ok(tag) => match jvmti.set_tag(node, TREE_MARK + saved.len() as ffi::Jlong) {
                Err(_) => Some(None),
                Ok(()) => {
                    saved.push(tag);
                    pending.extend(children(node));
                    None
                }
            },
        };
        jni.delete_local_ref(node);
        if found.is_some() {
            break;
        }
    }
    for node in pending {
        jni.delete_local_ref(node);
    }
    let restored = restore_tags(jvmti, jni, restart, &saved, &children);
    for (_, declaring, _) in resolved {
        jni.delete_local_ref(declaring);
    }
    match found {
        Some(outcome) => outcome.filter(|_| restored),
        None => restored.then_some(ChainLength::Nodes(saved.len() as i64)),
    }
}

/// Whether `object` (non-null) is an array.
fn is_array(jvmti: &Jvmti, jni: Jni, object: Jobject) -> bool {
    if object.is_null() {
        return false;
    }
    let class = jni.object_class(object);
    let array = jvmti
        .class_signature(class)
        .is_ok_and(|signature| signature.starts_with('['));
    jni.delete_local_ref(class);
    array
}

/// The non-null elements of an array of references, as local references.
fn elements(jni: Jni, array: Jobject) -> Vec<Jobject> {
    // SAFETY: `array` is a live array of references: a field a tree's walk follows as one.
    let length = unsafe { jni.array_length(array) };
    let all = (0..length)
        // SAFETY: `index` is within the array's length.
        .map(|index| unsafe { jni.object_array_element(array, index) })
        .collect();
    non_null(jni, all)
}

/// `references` without the null ones.
fn non_null(jni: Jni, references: Vec<Jobject>) -> Vec<Jobject> {
    references
        .into_iter()
        .filter(|reference| {
            let keep = !reference.is_null();
            if !keep {
                jni.delete_local_ref(*reference);
            }
            keep
        })
        .collect()
}

/// Whether `tag` is one a tree's walk gave.
fn is_tree_mark(tag: ffi::Jlong) -> bool {
    (TREE_MARK..TREE_MARK + CHAIN_CAP).contains(&tag)
}

/// Gives back the tags a tree's walk from the nodes `tops` replaced (`saved`, by the marks'
/// order): a marked node is reached from them through marked nodes, each restored before its
/// children are looked at, so a node reached twice is restored once. False when a tag fails.
fn restore_tags(
    jvmti: &Jvmti,
    jni: Jni,
    tops: Vec<Jobject>,
    saved: &[ffi::Jlong],
    children: &dyn Fn(Jobject) -> Vec<Jobject>,
) -> bool {
    let mut pending = tops;
    let mut restored = true;
    while let Some(node) = pending.pop() {
        match jvmti.tag(node) {
            Ok(tag) if is_tree_mark(tag) => match saved.get((tag - TREE_MARK) as usize) {
                Some(&original) => {
                    restored &= jvmti.set_tag(node, original).is_ok();
                    pending.extend(children(node));
                }
                None => restored = false,
            },
            Ok(_) => {}
            Err(_) => restored = false,
        }
        jni.delete_local_ref(node);
    }
    restored
}

/// The values of `fields` in `this` (local 0 of the top frame, an instance method at its
/// breakpoint), in the order of `fields`.
pub fn this_field_values(
    jvmti: &Jvmti,
    jni: Jni,
    fields: &[FieldSlot],
) -> Result<Vec<i64>, JvmtiFailure> {
    if fields.is_empty() {
        return Ok(Vec::new());
    }
    let this = jvmti.local_object(0, 0)?;
    if this.is_null() {
        return Ok(Vec::new());
    }
    let values = fields
        .iter()
        // SAFETY: each field was found on the method's class or a superclass, and `this` is an
        // instance of the method's class.
        .map(|field| unsafe { jni.field_value(this, field.id(), field.ty) })
        .collect();
    jni.delete_local_ref(this);
    Ok(values)
}

/// The value of a static field, when its class is initialized: before that the field holds
/// its default, not the value the program will read once the class initializer ran.
pub fn static_field_value(
    jvmti: &Jvmti,
    jni: Jni,
    field: &StaticField,
) -> Result<Option<i64>, JvmtiFailure> {
    let class = field.class as Jclass;
    if jvmti.class_status(class)? & ffi::CLASS_STATUS_INITIALIZED == 0 {
        return Ok(None);
    }
    // SAFETY: the field is a static field of its type declared by this class.
    Ok(Some(unsafe {
        jni.static_field_value(class, field.slot.id(), field.slot.ty)
    }))
}

//! Object-size models: how many bytes (or thesis units) one instance of a class and one array of
//! a given length occupy on the heap, per `--object-model`.
//!
//! Three models replay 64-bit HotSpot, checked against a real JVM by `tests/object_sizes.rs`:
//!
//! - `hotspot-coops`: JDK 15+ defaults with a heap under 32 GB. Objects have a 12-byte header
//!   (8-byte mark word, 4-byte compressed class pointer) and 4-byte references; arrays keep their
//!   length at offset 12 and their elements from 16.
//! - `hotspot-nocoops`: `-XX:-UseCompressedOops`. Since JDK 15 the class pointer stays compressed
//!   (`UseCompressedClassPointers` is independent), so the header is still 12 bytes and arrays
//!   still start their elements at 16; only references grow to 8 bytes (8-aligned).
//! - `hotspot-compact`: `-XX:+UseCompactObjectHeaders` (JDK 24+, JEP 450/519): the class pointer
//!   lives in the 8-byte mark word, so objects have an 8-byte header; an array's length follows
//!   at offset 8 and its elements start at 12, or at 16 for 8-byte elements (long, double).
//!   References stay compressed (4 bytes), as by default; compact headers without compressed
//!   oops are not modelled.
//!
//! Every HotSpot object is a multiple of 8 bytes. Instance fields are placed as HotSpot 15+ does
//! ([`layout`]), including the fields the VM injects into a few JDK classes ([`injected`]) and
//! the padding of `@Contended` fields in JDK classes ([`contended`]). The fourth model, `count`,
//! is the thesis's unit: an instance counts 1 and an array counts its cells.
//!
//! This module sizes one object; it does not know how many are allocated, nor anything about
//! arrays beyond their element type (a multi-dimensional array is an array of references to
//! arrays, sized one level at a time by the caller).

mod contended;
mod injected;
mod layout;

use std::collections::HashSet;
use std::sync::Arc;

use crate::classfile::Class;
use crate::classpath::Origin;
use crate::program::Program;
use membound_jvm::error::{Error, Result};
use membound_jvm::{ClassName, Type};

use contended::Contention;
use layout::{Layout, Placed};

/// How objects are sized: a HotSpot configuration, or the thesis's object count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ObjectModel {
    HotspotCoops,
    HotspotCompact,
    HotspotNocoops,
    Count,
}

/// How an array of one element type is sized: `align_up(base + element_size * length, align)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayLayout {
    pub base: u64,
    pub element_size: u64,
    pub align: u64,
}

impl ArrayLayout {
    /// The size of an array of `length` elements.
    pub fn size(&self, length: u64) -> u64 {
        align_up(self.base + self.element_size * length, self.align)
    }
}

/// The byte geometry of one HotSpot configuration.
struct Geometry {
    /// Bytes before the first instance field: the mark word and the class pointer, if separate.
    header: u64,
    /// Bytes of a reference, in a field or an array element; also its alignment.
    reference: u64,
    /// The end of an array's length field; elements start there, aligned to their size.
    array_header: u64,
}

/// Every HotSpot object starts and ends on an 8-byte boundary (`ObjectAlignmentInBytes`).
const OBJECT_ALIGNMENT: u64 = 8;

const COOPS: Geometry = Geometry {
    header: 12,
    reference: 4,
    array_header: 16,
};
const NOCOOPS: Geometry = Geometry {
    header: 12,
    reference: 8,
    array_header: 16,
};
const COMPACT: Geometry = Geometry {
    header: 8,
    reference: 4,
    array_header: 12,
};

impl ObjectModel {
    pub const ALL: [ObjectModel; 4] = [
        ObjectModel::HotspotCoops,
        ObjectModel::HotspotCompact,
        ObjectModel::HotspotNocoops,
        ObjectModel::Count,
    ];

    /// The name used by `--object-model` and in certificates.
    pub fn name(self) -> &'static str {
        match self {
            ObjectModel::HotspotCoops => "hotspot-coops",
            ObjectModel::HotspotCompact => "hotspot-compact",
            ObjectModel::HotspotNocoops => "hotspot-nocoops",
            ObjectModel::Count => "count",
        }
    }

    /// The model of this name, if any.
    pub fn parse(text: &str) -> Option<ObjectModel> {
        ObjectModel::ALL
            .into_iter()
            .find(|model| model.name() == text)
    }

    fn geometry(self) -> Option<&'static Geometry> {
        match self {
            ObjectModel::HotspotCoops => Some(&COOPS),
            ObjectModel::HotspotCompact => Some(&COMPACT),
            ObjectModel::HotspotNocoops => Some(&NOCOOPS),
            ObjectModel::Count => None,
        }
    }

    /// Bytes of one instance of `class` (for `count`: 1): the fields of the class and of all
    /// its superclasses, static ones excluded, laid out as HotSpot does, rounded up to 8. A class
    /// missing from the classpath, its own or a superclass, is an input error.
    pub fn instance_size(self, program: &Program, class: &ClassName) -> Result<u64> {
        let chain = superclass_chain(program, class)?;
        let Some(geometry) = self.geometry() else {
            return Ok(1);
        };
        let mut inherited: Vec<Placed> = Vec::new();
        let mut sealed = None;
        let mut end = geometry.header;
        for class in chain.iter().rev() {
            let contention = if program.origin(&class.name) == Some(Origin::Jdk) {
                Contention::of(program, class)?
            } else {
                // HotSpot honours @Contended only in the JDK's own classes (RestrictContended).
                Contention::default()
            };
            let mut layout = Layout::inherit(geometry.header, &inherited, sealed);
            contention.place(&mut layout, &own_fields(class, geometry));
            inherited = layout.fields();
            sealed = contention.seals().then_some(contended::PADDING);
            end = layout.end();
        }
        Ok(align_up(end, OBJECT_ALIGNMENT))
    }

    /// Bytes of one object that a capturing lambda's creation makes (for `count`: 1): an
    /// instance of the class the JDK spins for it at run time, an `Object` with one final field
    /// per captured value, in order.
    pub fn captured_size(self, captured: &[Type]) -> u64 {
        let Some(geometry) = self.geometry() else {
            return 1;
        };
        let fields: Vec<OwnField> = captured
            .iter()
            .enumerate()
            .map(|(index, ty)| OwnField {
                name: Arc::from(format!("arg${}", index + 1)),
                size: value_size(ty, geometry),
                reference: ty.is_reference(),
            })
            .collect();
        let mut layout = Layout::inherit(geometry.header, &[], None);
        Contention::default().place(&mut layout, &fields);
        align_up(layout.end(), OBJECT_ALIGNMENT)
    }

    /// How an array of `element` is sized. For `count`: base 0, element size 1, alignment 1
    /// (an array counts its cells).
    pub fn array_layout(self, element: &Type) -> ArrayLayout {
        match self.geometry() {
            None => ArrayLayout {
                base: 0,
                element_size: 1,
                align: 1,
            },
            Some(geometry) => {
                let element_size = value_size(element, geometry);
                ArrayLayout {
                    base: align_up(geometry.array_header, element_size),
                    element_size,
                    align: OBJECT_ALIGNMENT,
                }
            }
        }
    }
}

/// An instance field of one class, as the layout needs it.
struct OwnField {
    name: Arc<str>,
    /// Bytes, which is also the alignment.
    size: u64,
    reference: bool,
}

/// The instance fields `class` declares, then those the VM injects into it, in that order.
fn own_fields(class: &Class, geometry: &Geometry) -> Vec<OwnField> {
    let declared = class
        .fields
        .iter()
        .filter(|field| !field.is_static())
        .map(|field| (field.name.clone(), field.ty.clone()));
    let injected = injected::fields(class)
        .into_iter()
        .map(|(name, ty)| (Arc::from(name), ty));
    declared
        .chain(injected)
        .map(|(name, ty)| OwnField {
            name,
            size: value_size(&ty, geometry),
            reference: ty.is_reference(),
        })
        .collect()
}

/// The class and its superclasses, the class first and `java.lang.Object` last.
fn superclass_chain(program: &Program, class: &ClassName) -> Result<Vec<Arc<Class>>> {
    let mut chain: Vec<Arc<Class>> = Vec::new();
    let mut seen = HashSet::new();
    let mut next = Some(class.clone());
    while let Some(name) = next {
        if !seen.insert(name.clone()) {
            return Err(Error::Input(format!(
                "cannot size {class}: its superclasses form a cycle through {name}"
            )));
        }
        let loaded = program.class(&name).map_err(|error| match error {
            Error::ClassNotFound(_) if name == *class => {
                Error::Input(format!("cannot size {class}: class not found"))
            }
            Error::ClassNotFound(missing) => Error::Input(format!(
                "cannot size {class}: its superclass {missing} is not on the classpath"
            )),
            other => other,
        })?;
        next = loaded.super_class.clone();
        chain.push(loaded);
    }
    Ok(chain)
}

/// Bytes of a value of this type in a field or an array element.
fn value_size(ty: &Type, geometry: &Geometry) -> u64 {
    match ty {
        Type::Boolean | Type::Byte => 1,
        Type::Char | Type::Short => 2,
        Type::Int | Type::Float => 4,
        Type::Long | Type::Double => 8,
        Type::Ref(_) | Type::Array(_) => geometry.reference,
    }
}

fn align_up(value: u64, alignment: u64) -> u64 {
    value.div_ceil(alignment) * alignment
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classpath::Classpath;

    #[test]
    fn names_parse_back_and_match_serde() {
        for model in ObjectModel::ALL {
            assert_eq!(ObjectModel::parse(model.name()), Some(model));
            let json = serde_json::to_string(&model).expect("serializes");
            assert_eq!(json, format!("\"{}\"", model.name()));
            let back: ObjectModel = serde_json::from_str(&json).expect("deserializes");
            assert_eq!(back, model);
        }
        assert_eq!(ObjectModel::parse("hotspot"), None);
    }

    #[test]
    fn array_layouts_follow_each_header() {
        let int = |model: ObjectModel| model.array_layout(&Type::Int);
        let long = |model: ObjectModel| model.array_layout(&Type::Long);
        let string = Type::Ref(ClassName::new("java/lang/String"));
        let byte_matrix = Type::Array(Box::new(Type::Byte));
        let layout = |base, element_size| ArrayLayout {
            base,
            element_size,
            align: 8,
        };
        assert_eq!(int(ObjectModel::HotspotCoops), layout(16, 4));
        assert_eq!(int(ObjectModel::HotspotNocoops), layout(16, 4));
        assert_eq!(int(ObjectModel::HotspotCompact), layout(12, 4));
        assert_eq!(long(ObjectModel::HotspotCompact), layout(16, 8));
        assert_eq!(
            ObjectModel::HotspotCompact.array_layout(&Type::Boolean),
            layout(12, 1)
        );
        assert_eq!(
            ObjectModel::HotspotCoops.array_layout(&string),
            layout(16, 4)
        );
        assert_eq!(
            ObjectModel::HotspotNocoops.array_layout(&byte_matrix),
            layout(16, 8)
        );
        let cells = ArrayLayout {
            base: 0,
            element_size: 1,
            align: 1,
        };
        assert_eq!(ObjectModel::Count.array_layout(&string), cells);
        assert_eq!(cells.size(7), 7);
    }

    #[test]
    fn array_sizes_round_up_to_eight() {
        let bytes = ObjectModel::HotspotCoops.array_layout(&Type::Byte);
        let sizes: Vec<u64> = (0..=9).map(|n| bytes.size(n)).collect();
        assert_eq!(sizes, [16, 24, 24, 24, 24, 24, 24, 24, 24, 32]);
        let compact = ObjectModel::HotspotCompact.array_layout(&Type::Int);
        assert_eq!([0, 1, 2, 3].map(|n| compact.size(n)), [16, 16, 24, 24]);
    }

    #[test]
    fn a_missing_class_is_an_input_error_in_every_model() {
        let program = Program::new(Classpath::new());
        for model in ObjectModel::ALL {
            let error = model
                .instance_size(&program, &ClassName::new("p/Missing"))
                .expect_err("no such class");
            assert!(
                matches!(&error, Error::Input(text) if text.contains("p.Missing")),
                "{error:?}"
            );
        }
    }
}

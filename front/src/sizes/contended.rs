//! `@jdk.internal.vm.annotation.Contended` in JDK classes: the fields HotSpot keeps apart from
//! the others by padding, so that they do not share a cache line (`Thread`'s random-number seeds,
//! `LongAdder`'s cells, `ConcurrentHashMap`'s counter cells).
//!
//! A contended class lays out all its fields after a padding; each contended field group (the
//! fields with one tag, or an untagged field alone) goes after a padding in its own region at
//! the end; one more padding ends the object. The subclasses of a class with contended fields
//! cannot reuse its gaps and start after a padding. HotSpot honours the annotation only in the
//! JDK's own classes (`-XX:+RestrictContended`, the default): the caller asks only for those.
//!
//! The class model (`classfile`) keeps no annotations, so this module reads them from the class
//! bytes. It does not place fields itself: [`super::layout`] does.

use std::collections::HashMap;
use std::sync::Arc;

use noak::reader::Class as NoakClass;
use noak::reader::attributes::RuntimeVisibleAnnotations;
use noak::reader::attributes::annotations::ElementValue;

use super::OwnField;
use super::layout::Layout;
use crate::classfile::{Class, Constant};
use crate::program::Program;
use membound_jvm::error::{Error, Result};

/// `-XX:ContendedPaddingWidth`'s default: bytes of padding around contended fields.
pub(super) const PADDING: u64 = 128;

const CONTENDED: &str = "Ljdk/internal/vm/annotation/Contended;";

/// What `@Contended` says about one class.
#[derive(Default)]
pub(super) struct Contention {
    /// The class itself is annotated.
    class: bool,
    /// The group of each contended instance field: its tag, or its own name when untagged.
    groups: HashMap<Arc<str>, Group>,
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum Group {
    Tagged(Arc<str>),
    Alone(Arc<str>),
}

impl Contention {
    /// Reads the annotations of `class` from its class file.
    pub fn of(program: &Program, class: &Class) -> Result<Contention> {
        // Almost no class names the annotation; those skip reading their bytes again.
        let names_it = (1..=u16::MAX)
            .map_while(|index| class.pool.get(index).ok())
            .any(|constant| matches!(constant, Constant::Utf8(text) if &**text == CONTENDED));
        if !names_it {
            return Ok(Contention::default());
        }
        let bytes = program.class_bytes(&class.name)?;
        let bad = |e: String| Error::Input(format!("bad class file for {}: {e}", class.name));
        let reader = NoakClass::new(&bytes).map_err(|e| bad(e.to_string()))?;
        let mut contention = Contention::default();
        for attribute in reader.attributes() {
            let attribute = attribute.map_err(|e| bad(e.to_string()))?;
            if contended_tag(class, &reader, &attribute)
                .map_err(bad)?
                .is_some()
            {
                contention.class = true;
            }
        }
        for field in reader.fields() {
            let field = field.map_err(|e| bad(e.to_string()))?;
            if field.access_flags().bits() & crate::classfile::AccessFlags::STATIC != 0 {
                continue;
            }
            let name = class.pool.utf8(field.name().as_u16()).map_err(bad)?;
            for attribute in field.attributes() {
                let attribute = attribute.map_err(|e| bad(e.to_string()))?;
                if let Some(tag) = contended_tag(class, &reader, &attribute).map_err(bad)? {
                    let group = match tag {
                        Some(tag) if !tag.is_empty() => Group::Tagged(tag),
                        _ => Group::Alone(name.clone()),
                    };
                    contention.groups.insert(name.clone(), group);
                }
            }
        }
        Ok(contention)
    }

    /// Whether subclasses must start after a padding, without reusing this class's gaps.
    pub fn seals(&self) -> bool {
        self.class || !self.groups.is_empty()
    }

    /// Places the class's own instance fields into `layout`.
    pub fn place(&self, layout: &mut Layout, fields: &[OwnField]) {
        if self.class {
            layout.append_only();
            layout.pad(PADDING);
        }
        let plain: Vec<&OwnField> = fields
            .iter()
            .filter(|field| !self.groups.contains_key(&field.name))
            .collect();
        layout.add(&placement_order(&plain));
        // Groups in the order their first field is declared, as HotSpot creates them.
        let mut order: Vec<&Group> = Vec::new();
        for field in fields {
            if let Some(group) = self.groups.get(&field.name)
                && !order.contains(&group)
            {
                order.push(group);
            }
        }
        for group in &order {
            let members: Vec<&OwnField> = fields
                .iter()
                .filter(|field| self.groups.get(&field.name) == Some(group))
                .collect();
            layout.contended_group(PADDING, &placement_order(&members));
        }
        if self.class || !order.is_empty() {
            layout.pad(PADDING);
        }
    }
}

/// The order HotSpot places one group's fields in: primitives largest first (stable), then
/// references in declaration order.
pub(super) fn placement_order(fields: &[&OwnField]) -> Vec<u64> {
    let mut primitives: Vec<u64> = fields
        .iter()
        .filter(|field| !field.reference)
        .map(|field| field.size)
        .collect();
    primitives.sort_by(|a, b| b.cmp(a));
    let references = fields
        .iter()
        .filter(|field| field.reference)
        .map(|field| field.size);
    primitives.extend(references);
    primitives
}

/// If `attribute` holds `@Contended`: `Some(its tag)` (`Some(None)` without one).
fn contended_tag(
    class: &Class,
    reader: &NoakClass<'_>,
    attribute: &noak::reader::Attribute<'_>,
) -> std::result::Result<Option<Option<Arc<str>>>, String> {
    let name = class.pool.utf8(attribute.name().as_u16())?;
    if &**name != "RuntimeVisibleAnnotations" {
        return Ok(None);
    }
    let annotations: RuntimeVisibleAnnotations<'_> = attribute
        .read_content(reader.pool())
        .and_then(TryInto::try_into)
        .map_err(|e| e.to_string())?;
    for annotation in annotations.annotations() {
        let annotation = annotation.map_err(|e| e.to_string())?;
        if &**class.pool.utf8(annotation.type_().as_u16())? != CONTENDED {
            continue;
        }
        let mut tag = None;
        for pair in annotation.pairs() {
            let pair = pair.map_err(|e| e.to_string())?;
            if let ElementValue::String(value) = pair.value() {
                tag = Some(class.pool.utf8(value.as_u16())?.clone());
            }
        }
        return Ok(Some(tag));
    }
    Ok(None)
}

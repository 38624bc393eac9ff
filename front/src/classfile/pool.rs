//! The constant pool of one class, owned and checked on access (JVMS §4.4).
//!
//! Entries keep the indices the class file gives them; the accessors follow those indices and
//! check every tag, so a bad index in a method's bytecode becomes a one-line error at the moment
//! the lifter asks for it rather than a panic. This module knows nothing of bytecode or the IR.

use std::sync::Arc;

use noak::reader::cpool::{ConstantPool as NoakPool, Item};

use super::mutf8_to_str;
use membound_jvm::{ClassName, FieldRef, MethodRef, Type};

/// What a method handle does with its member (JVMS §5.4.3.5, `reference_kind` 1 to 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleKind {
    GetField,
    GetStatic,
    PutField,
    PutStatic,
    InvokeVirtual,
    InvokeStatic,
    InvokeSpecial,
    NewInvokeSpecial,
    InvokeInterface,
}

/// One constant-pool entry; indices point into the same pool.
#[derive(Clone, Debug)]
pub enum Constant {
    /// Index 0 and the slot after a `long` or `double`.
    Unusable,
    Utf8(Arc<str>),
    Integer(i32),
    Float(f32),
    Long(i64),
    Double(f64),
    Class {
        name: u16,
    },
    String {
        utf8: u16,
    },
    FieldRef {
        class: u16,
        name_and_type: u16,
    },
    MethodRef {
        class: u16,
        name_and_type: u16,
        interface: bool,
    },
    NameAndType {
        name: u16,
        descriptor: u16,
    },
    MethodHandle {
        kind: HandleKind,
        reference: u16,
    },
    MethodType {
        descriptor: u16,
    },
    Dynamic {
        bootstrap: u16,
        name_and_type: u16,
    },
    InvokeDynamic {
        bootstrap: u16,
        name_and_type: u16,
    },
    Module {
        name: u16,
    },
    Package {
        name: u16,
    },
}

impl Constant {
    /// The tag's name, for error messages.
    fn tag_name(&self) -> &'static str {
        match self {
            Constant::Unusable => "unusable",
            Constant::Utf8(_) => "Utf8",
            Constant::Integer(_) => "Integer",
            Constant::Float(_) => "Float",
            Constant::Long(_) => "Long",
            Constant::Double(_) => "Double",
            Constant::Class { .. } => "Class",
            Constant::String { .. } => "String",
            Constant::FieldRef { .. } => "Fieldref",
            Constant::MethodRef { .. } => "Methodref",
            Constant::NameAndType { .. } => "NameAndType",
            Constant::MethodHandle { .. } => "MethodHandle",
            Constant::MethodType { .. } => "MethodType",
            Constant::Dynamic { .. } => "Dynamic",
            Constant::InvokeDynamic { .. } => "InvokeDynamic",
            Constant::Module { .. } => "Module",
            Constant::Package { .. } => "Package",
        }
    }
}

/// A method handle constant, resolved to the member it names.
#[derive(Clone, Debug, PartialEq)]
pub enum Handle {
    Field(HandleKind, FieldRef),
    Method(HandleKind, MethodRef),
}

/// A value `ldc` can push, or a static argument of a bootstrap method.
#[derive(Clone, Debug, PartialEq)]
pub enum Loadable {
    Integer(i32),
    Float(f32),
    Long(i64),
    Double(f64),
    String(Arc<str>),
    Class(Type),
    MethodType(Arc<str>),
    MethodHandle(Handle),
    /// A dynamically computed constant: its name and field descriptor.
    Dynamic {
        name: Arc<str>,
        ty: Type,
    },
}

/// The owned constant pool. `entries[0]` is the unusable index 0.
#[derive(Clone, Debug, Default)]
pub struct ConstantPool {
    entries: Vec<Constant>,
}

/// Errors of the accessors: one line, naming the index and what was wrong with it.
pub type PoolResult<T> = std::result::Result<T, String>;

impl ConstantPool {
    /// Copies noak's pool. `long` and `double` take two indices, as in the class file.
    pub(super) fn from_noak(pool: &NoakPool<'_>) -> Self {
        let mut entries = vec![Constant::Unusable];
        for (index, item) in pool.iter_indices() {
            // noak skips the second slot of wide constants; keep indices aligned with the file.
            while entries.len() < usize::from(index.as_u16()) {
                entries.push(Constant::Unusable);
            }
            entries.push(convert_item(item));
        }
        ConstantPool { entries }
    }

    /// The entry at `index`, if the index is in range.
    pub fn get(&self, index: u16) -> PoolResult<&Constant> {
        self.entries
            .get(usize::from(index))
            .ok_or_else(|| format!("constant-pool index {index} is out of range"))
    }

    fn mismatch<T>(&self, index: u16, wanted: &str) -> PoolResult<T> {
        let found = self.get(index).map(Constant::tag_name).unwrap_or("nothing");
        Err(format!(
            "constant-pool index {index} is {found}, expected {wanted}"
        ))
    }

    pub fn utf8(&self, index: u16) -> PoolResult<&Arc<str>> {
        match self.get(index)? {
            Constant::Utf8(text) => Ok(text),
            _ => self.mismatch(index, "Utf8"),
        }
    }

    /// The text of a `CONSTANT_Class`: an internal name or an array descriptor.
    pub fn class_text(&self, index: u16) -> PoolResult<&Arc<str>> {
        match self.get(index)? {
            Constant::Class { name } => self.utf8(*name),
            _ => self.mismatch(index, "Class"),
        }
    }

    /// A `CONSTANT_Class` as a class name; array classes are refused (they name no class file).
    pub fn class_name(&self, index: u16) -> PoolResult<ClassName> {
        let text = self.class_text(index)?;
        if text.is_empty() || text.starts_with('[') {
            return Err(format!(
                "constant-pool index {index} names '{text}', expected a class"
            ));
        }
        Ok(ClassName::new(text))
    }

    /// A `CONSTANT_Class` as a type: a class, or an array type.
    pub fn class_type(&self, index: u16) -> PoolResult<Type> {
        let text = self.class_text(index)?;
        Type::from_class_constant(text).map_err(|e| format!("constant-pool index {index}: {e}"))
    }

    /// Name and descriptor of a `CONSTANT_NameAndType`.
    pub fn name_and_type(&self, index: u16) -> PoolResult<(&Arc<str>, &Arc<str>)> {
        match self.get(index)? {
            Constant::NameAndType { name, descriptor } => {
                Ok((self.utf8(*name)?, self.utf8(*descriptor)?))
            }
            _ => self.mismatch(index, "NameAndType"),
        }
    }

    pub fn field_ref(&self, index: u16) -> PoolResult<FieldRef> {
        match self.get(index)? {
            Constant::FieldRef {
                class,
                name_and_type,
            } => {
                let (name, descriptor) = self.name_and_type(*name_and_type)?;
                let ty = Type::parse(descriptor)
                    .map_err(|e| format!("field at constant-pool index {index}: {e}"))?;
                Ok(FieldRef {
                    class: self.owner_class(*class)?,
                    name: name.clone(),
                    ty,
                })
            }
            _ => self.mismatch(index, "Fieldref"),
        }
    }

    /// A `Methodref` or `InterfaceMethodref`, with whether it was the interface form.
    pub fn method_ref(&self, index: u16) -> PoolResult<(MethodRef, bool)> {
        match self.get(index)? {
            Constant::MethodRef {
                class,
                name_and_type,
                interface,
            } => {
                let (name, descriptor) = self.name_and_type(*name_and_type)?;
                let method = MethodRef {
                    class: self.owner_class(*class)?,
                    name: name.clone(),
                    descriptor: descriptor.clone(),
                };
                Ok((method, *interface))
            }
            _ => self.mismatch(index, "Methodref"),
        }
    }

    /// The class declaring a member. Methods of arrays (`int[].clone()`) are declared by an
    /// array class; they are named after `java/lang/Object`, which declares them all.
    fn owner_class(&self, index: u16) -> PoolResult<ClassName> {
        let text = self.class_text(index)?;
        if text.starts_with('[') {
            Ok(ClassName::object())
        } else {
            self.class_name(index)
        }
    }

    /// Bootstrap-table index, name and descriptor of a `CONSTANT_InvokeDynamic`.
    pub fn invoke_dynamic(&self, index: u16) -> PoolResult<(u16, &Arc<str>, &Arc<str>)> {
        match self.get(index)? {
            Constant::InvokeDynamic {
                bootstrap,
                name_and_type,
            } => {
                let (name, descriptor) = self.name_and_type(*name_and_type)?;
                Ok((*bootstrap, name, descriptor))
            }
            _ => self.mismatch(index, "InvokeDynamic"),
        }
    }

    pub fn method_handle(&self, index: u16) -> PoolResult<Handle> {
        match self.get(index)? {
            Constant::MethodHandle { kind, reference } => match kind {
                HandleKind::GetField
                | HandleKind::GetStatic
                | HandleKind::PutField
                | HandleKind::PutStatic => Ok(Handle::Field(*kind, self.field_ref(*reference)?)),
                _ => Ok(Handle::Method(*kind, self.method_ref(*reference)?.0)),
            },
            _ => self.mismatch(index, "MethodHandle"),
        }
    }

    /// A constant `ldc` may load, or a static bootstrap argument (JVMS §4.4, loadable kinds).
    pub fn loadable(&self, index: u16) -> PoolResult<Loadable> {
        let value = match self.get(index)? {
            Constant::Integer(v) => Loadable::Integer(*v),
            Constant::Float(v) => Loadable::Float(*v),
            Constant::Long(v) => Loadable::Long(*v),
            Constant::Double(v) => Loadable::Double(*v),
            Constant::String { utf8 } => Loadable::String(self.utf8(*utf8)?.clone()),
            Constant::Class { .. } => Loadable::Class(self.class_type(index)?),
            Constant::MethodType { descriptor } => {
                Loadable::MethodType(self.utf8(*descriptor)?.clone())
            }
            Constant::MethodHandle { .. } => Loadable::MethodHandle(self.method_handle(index)?),
            Constant::Dynamic { name_and_type, .. } => {
                let (name, descriptor) = self.name_and_type(*name_and_type)?;
                let ty = Type::parse(descriptor)
                    .map_err(|e| format!("dynamic constant at index {index}: {e}"))?;
                Loadable::Dynamic {
                    name: name.clone(),
                    ty,
                }
            }
            _ => return self.mismatch(index, "a loadable constant"),
        };
        Ok(value)
    }
}

fn convert_item(item: &Item<'_>) -> Constant {
    match item {
        Item::Class(c) => Constant::Class {
            name: c.name.as_u16(),
        },
        Item::FieldRef(r) => Constant::FieldRef {
            class: r.class.as_u16(),
            name_and_type: r.name_and_type.as_u16(),
        },
        Item::MethodRef(r) => Constant::MethodRef {
            class: r.class.as_u16(),
            name_and_type: r.name_and_type.as_u16(),
            interface: false,
        },
        Item::InterfaceMethodRef(r) => Constant::MethodRef {
            class: r.class.as_u16(),
            name_and_type: r.name_and_type.as_u16(),
            interface: true,
        },
        Item::String(s) => Constant::String {
            utf8: s.string.as_u16(),
        },
        Item::Integer(v) => Constant::Integer(v.value),
        Item::Long(v) => Constant::Long(v.value),
        Item::Float(v) => Constant::Float(v.value),
        Item::Double(v) => Constant::Double(v.value),
        Item::NameAndType(nt) => Constant::NameAndType {
            name: nt.name.as_u16(),
            descriptor: nt.descriptor.as_u16(),
        },
        Item::Utf8(text) => Constant::Utf8(mutf8_to_str(text.content)),
        Item::MethodHandle(h) => Constant::MethodHandle {
            kind: convert_handle_kind(h.kind),
            reference: h.reference.as_u16(),
        },
        Item::MethodType(t) => Constant::MethodType {
            descriptor: t.descriptor.as_u16(),
        },
        Item::Dynamic(d) => Constant::Dynamic {
            bootstrap: d.bootstrap_method_attr,
            name_and_type: d.name_and_type.as_u16(),
        },
        Item::InvokeDynamic(d) => Constant::InvokeDynamic {
            bootstrap: d.bootstrap_method_attr,
            name_and_type: d.name_and_type.as_u16(),
        },
        Item::Module(m) => Constant::Module {
            name: m.name.as_u16(),
        },
        Item::Package(p) => Constant::Package {
            name: p.name.as_u16(),
        },
    }
}

fn convert_handle_kind(kind: noak::reader::cpool::MethodKind) -> HandleKind {
    use noak::reader::cpool::MethodKind as K;
    match kind {
        K::GetField => HandleKind::GetField,
        K::GetStatic => HandleKind::GetStatic,
        K::PutField => HandleKind::PutField,
        K::PutStatic => HandleKind::PutStatic,
        K::InvokeVirtual => HandleKind::InvokeVirtual,
        K::InvokeStatic => HandleKind::InvokeStatic,
        K::InvokeSpecial => HandleKind::InvokeSpecial,
        K::NewInvokeSpecial => HandleKind::NewInvokeSpecial,
        K::InvokeInterface => HandleKind::InvokeInterface,
    }
}

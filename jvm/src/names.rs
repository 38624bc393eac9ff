//! Class names and references to members, as the constant pool gives them.

use std::fmt;
use std::sync::Arc;

use super::{MethodDescriptor, Type};
use crate::error::{Error, Result};

/// A class or interface name in internal form (`java/lang/String`, `pkg/Outer$Inner`).
///
/// Cheap to clone; ordered and hashed by its text.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClassName(Arc<str>);

impl ClassName {
    /// A name in internal form, as the class file writes it.
    pub fn new(internal: &str) -> Self {
        ClassName(Arc::from(internal))
    }

    /// A name in source form (`java.lang.String`), as a user types it.
    pub fn from_source(dotted: &str) -> Self {
        ClassName(Arc::from(dotted.replace('.', "/")))
    }

    /// The internal form, `java/lang/String`.
    pub fn internal(&self) -> &str {
        &self.0
    }

    /// The source form, `java.lang.String`.
    pub fn source(&self) -> String {
        self.0.replace('/', ".")
    }

    /// The last component of the name, `String` for `java/lang/String`.
    pub fn simple(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }

    /// `java/lang/Object`, the root of the class hierarchy.
    pub fn object() -> Self {
        ClassName::new("java/lang/Object")
    }
}

impl fmt::Display for ClassName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source())
    }
}

impl fmt::Debug for ClassName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A method as named by a call instruction or by a user: declaring class, name, descriptor.
///
/// Displays as `pkg.Class.name(I)V`, the form used in certificates and reports.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MethodRef {
    pub class: ClassName,
    pub name: Arc<str>,
    pub descriptor: Arc<str>,
}

impl MethodRef {
    pub fn new(class: ClassName, name: &str, descriptor: &str) -> Self {
        MethodRef {
            class,
            name: Arc::from(name),
            descriptor: Arc::from(descriptor),
        }
    }

    /// The parsed descriptor; an error names the method when the descriptor is malformed.
    pub fn parsed_descriptor(&self) -> Result<MethodDescriptor> {
        MethodDescriptor::parse(&self.descriptor)
            .map_err(|e| Error::Input(format!("method {self}: {e}")))
    }

    /// Whether this is an instance or class initializer (`<init>` or `<clinit>`).
    pub fn is_initializer(&self) -> bool {
        self.name.starts_with('<')
    }

    /// `name(desc)`, the part that identifies the method inside its class.
    pub fn signature(&self) -> String {
        format!("{}{}", self.name, self.descriptor)
    }
}

impl fmt::Display for MethodRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}{}", self.class, self.name, self.descriptor)
    }
}

impl fmt::Debug for MethodRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A field as named by a field instruction: declaring class, name and type.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldRef {
    pub class: ClassName,
    pub name: Arc<str>,
    pub ty: Type,
}

impl fmt::Display for FieldRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{}: {} {}>", self.class, self.ty, self.name)
    }
}

impl fmt::Debug for FieldRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_convert_between_forms() {
        let name = ClassName::from_source("java.util.Map$Entry");
        assert_eq!(name.internal(), "java/util/Map$Entry");
        assert_eq!(name.source(), "java.util.Map$Entry");
        assert_eq!(name.simple(), "Map$Entry");
    }

    #[test]
    fn method_refs_display_in_certificate_form() {
        let m = MethodRef::new(ClassName::new("pkg/C"), "m", "(I)V");
        assert_eq!(m.to_string(), "pkg.C.m(I)V");
        assert_eq!(m.signature(), "m(I)V");
    }
}

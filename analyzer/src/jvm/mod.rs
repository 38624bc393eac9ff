//! Names and types of the JVM: class names, field and method descriptors, references to methods
//! and fields, and their parsing from class-file strings.
//!
//! Everything here is a value type with no access to any class file: turning a name into a loaded
//! class is the job of [`crate::program`]. Class names are kept in internal form
//! (`java/lang/String`) and shown in source form (`java.lang.String`).

mod descriptor;
mod names;

pub use descriptor::{MethodDescriptor, Type};
pub use names::{ClassName, FieldRef, MethodRef};

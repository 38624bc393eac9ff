//! Names and types of the JVM: class names, field and method descriptors, references to methods
//! and fields, and their parsing from class-file strings.
//!
//! Everything here is a value type with no access to any class file: turning a name into a loaded
//! class is the front end's job (`membound-front`). Class names are kept in internal form
//! (`java/lang/String`) and shown in source form (`java.lang.String`). It also holds [`error`],
//! the one input error every membound crate returns (each maps to exit code 2). It knows nothing
//! of class files, analysis, bounds or certificates; every crate may use it.

pub mod chain;
mod descriptor;
pub mod error;
mod names;
pub mod selector;

pub use descriptor::{MethodDescriptor, NumericMeasure, Type};
pub use names::{ClassName, FieldRef, MethodRef};

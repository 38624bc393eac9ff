//! The entry points of a whole-program run (`analyze --entry-points`): every public method of
//! the input's public classes, or every `main`, sorted by name so that a run (and a shard of
//! it) is the same on every machine.

use crate::classfile::{AccessFlags, Class, Method};
use crate::classpath::Classpath;
use crate::program::Program;
use membound_jvm::MethodRef;
use membound_jvm::error::Result;

/// Which methods of the input are entry points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// Every public method with code (constructors included; bridges and synthetic methods,
    /// which the compiler writes, and class initializers left out) of every public class.
    Public,
    /// Every `public static void main(String[])`.
    Mains,
}

/// The entry points of kind `kind` among the classes of `input` (the input alone, not the
/// rest of the classpath), read through `program`, sorted by their names.
pub fn entry_points(
    program: &Program,
    input: &Classpath,
    kind: EntryKind,
) -> Result<Vec<MethodRef>> {
    let mut entries = Vec::new();
    for name in input.user_classes() {
        let class = program.class(name)?;
        entries.extend(
            class
                .methods
                .iter()
                .filter(|method| is_entry(&class, method, kind))
                .map(|method| method.reference(&class.name)),
        );
    }
    entries.sort_by_key(|method| method.to_string());
    entries.dedup();
    Ok(entries)
}

fn is_entry(class: &Class, method: &Method, kind: EntryKind) -> bool {
    let compiler_written = method.access.has(AccessFlags::BRIDGE) || method.access.is_synthetic();
    let public = class.access.is_public() && method.access.is_public() && !compiler_written;
    match kind {
        EntryKind::Public => public && method.code.is_some() && &*method.name != "<clinit>",
        EntryKind::Mains => {
            public
                && method.is_static()
                && &*method.name == "main"
                && &*method.descriptor == "([Ljava/lang/String;)V"
        }
    }
}

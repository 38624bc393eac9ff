//! The header of a class file alone (name, superclass, interfaces, access flags), read without
//! building the whole model: scanning every class of a JDK for the hierarchy would otherwise
//! parse and keep gigabytes of constant pools and code.

use noak::reader::Class as NoakClass;
use noak::reader::cpool::{self, Index};

use super::AccessFlags;
use membound_jvm::ClassName;
use membound_jvm::error::{Error, Result};

/// Where a class sits in the hierarchy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassHeader {
    pub name: ClassName,
    pub super_class: Option<ClassName>,
    pub interfaces: Vec<ClassName>,
    pub access: AccessFlags,
}

impl ClassHeader {
    /// Reads the header of a class file; errors are one-line messages.
    pub fn parse(bytes: &[u8]) -> Result<ClassHeader> {
        let bad = |e: String| Error::Input(format!("bad class file: {e}"));
        let reader = NoakClass::new(bytes).map_err(|e| bad(e.to_string()))?;
        let name = class_name(&reader, reader.this_class()).map_err(bad)?;
        let super_class = match reader.super_class() {
            Some(index) => Some(class_name(&reader, index).map_err(bad)?),
            None => None,
        };
        let mut interfaces = Vec::new();
        for index in reader.interfaces() {
            let index = index.map_err(|e| bad(e.to_string()))?;
            interfaces.push(class_name(&reader, index).map_err(bad)?);
        }
        Ok(ClassHeader {
            name,
            super_class,
            interfaces,
            access: AccessFlags(reader.access_flags().bits()),
        })
    }
}

fn class_name<'input>(
    reader: &NoakClass<'input>,
    index: Index<cpool::Class<'input>>,
) -> std::result::Result<ClassName, String> {
    let class = reader.pool().retrieve(index).map_err(|e| e.to_string())?;
    let text = class
        .name
        .to_str()
        .ok_or_else(|| "class name is not valid UTF-8".to_string())?;
    Ok(ClassName::new(text))
}

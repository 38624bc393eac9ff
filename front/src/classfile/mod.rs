//! Our own owned model of one class file (JVMS chapter 4), built from noak's zero-copy reader.
//!
//! A [`Class`] holds what the rest of the analyzer needs: names, access flags, the super class
//! and interfaces for the hierarchy, fields with their types for object-size models, methods with
//! their code (bytecode bytes, exception table, line numbers, local-variable names), the bootstrap
//! methods of `invokedynamic`, and the constant pool the bytecode indexes into. Parsing checks the
//! class-file version (45 to 69, Java 1.1 to 25) and every structure noak decodes; the bytecode
//! itself is decoded and checked by the lifter (`ir::lift`), not here. Annotations, generic
//! signatures, stack maps and module attributes are not kept.

mod header;
mod pool;

use std::sync::Arc;

use noak::MStr;
use noak::reader::attributes::{BootstrapMethods, Code as NoakCode, SourceFile};
use noak::reader::cpool::{self, ConstantPool as NoakPool};
use noak::reader::{Attribute, Class as NoakClass};

pub use pool::{Constant, ConstantPool, Handle, HandleKind, Loadable, PoolResult};

use membound_jvm::error::{Error, Result};
use membound_jvm::{ClassName, MethodDescriptor, MethodRef, Type};

pub use header::ClassHeader;

/// The oldest class-file major version we read (Java 1.1).
pub const MIN_MAJOR_VERSION: u16 = 45;
/// The newest class-file major version we know (Java 26); newer ones are read with a warning:
/// a new release's class files keep the instructions and attributes this reader uses.
pub const MAX_MAJOR_VERSION: u16 = 70;

/// Access flags of a class, field or method (JVMS tables 4.1-B, 4.5-A, 4.6-A); the meaning of
/// a bit depends on where it stands, so there is one accessor per meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AccessFlags(pub u16);

impl AccessFlags {
    pub const PUBLIC: u16 = 0x0001;
    pub const PRIVATE: u16 = 0x0002;
    pub const PROTECTED: u16 = 0x0004;
    pub const STATIC: u16 = 0x0008;
    pub const FINAL: u16 = 0x0010;
    pub const SYNCHRONIZED: u16 = 0x0020;
    pub const BRIDGE: u16 = 0x0040;
    pub const VARARGS: u16 = 0x0080;
    pub const NATIVE: u16 = 0x0100;
    pub const INTERFACE: u16 = 0x0200;
    pub const ABSTRACT: u16 = 0x0400;
    pub const SYNTHETIC: u16 = 0x1000;
    pub const ANNOTATION: u16 = 0x2000;
    pub const ENUM: u16 = 0x4000;

    pub fn has(self, flag: u16) -> bool {
        self.0 & flag != 0
    }
    pub fn is_public(self) -> bool {
        self.has(Self::PUBLIC)
    }
    pub fn is_private(self) -> bool {
        self.has(Self::PRIVATE)
    }
    pub fn is_protected(self) -> bool {
        self.has(Self::PROTECTED)
    }
    pub fn is_static(self) -> bool {
        self.has(Self::STATIC)
    }
    pub fn is_final(self) -> bool {
        self.has(Self::FINAL)
    }
    pub fn is_native(self) -> bool {
        self.has(Self::NATIVE)
    }
    pub fn is_interface(self) -> bool {
        self.has(Self::INTERFACE)
    }
    pub fn is_abstract(self) -> bool {
        self.has(Self::ABSTRACT)
    }
    pub fn is_synthetic(self) -> bool {
        self.has(Self::SYNTHETIC)
    }
}

/// A class-file version, `major.minor` (52.0 is Java 8, 69.0 is Java 25).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u16,
    pub minor: u16,
}

/// One class or interface.
#[derive(Clone, Debug)]
pub struct Class {
    pub name: ClassName,
    /// `None` only for `java/lang/Object` (and module-info, which we do not load).
    pub super_class: Option<ClassName>,
    pub interfaces: Vec<ClassName>,
    pub access: AccessFlags,
    pub version: Version,
    pub source_file: Option<Arc<str>>,
    pub fields: Vec<Field>,
    pub methods: Vec<Method>,
    pub bootstrap_methods: Vec<BootstrapMethod>,
    pub pool: ConstantPool,
}

/// A declared field.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: Arc<str>,
    pub ty: Type,
    pub access: AccessFlags,
}

impl Field {
    pub fn is_static(&self) -> bool {
        self.access.is_static()
    }
}

/// A declared method; `code` is `None` for abstract and native methods.
#[derive(Clone, Debug)]
pub struct Method {
    pub name: Arc<str>,
    pub descriptor: Arc<str>,
    pub parsed_descriptor: MethodDescriptor,
    pub access: AccessFlags,
    pub code: Option<Code>,
}

impl Method {
    pub fn is_static(&self) -> bool {
        self.access.is_static()
    }

    pub fn is_abstract(&self) -> bool {
        self.access.is_abstract()
    }

    pub fn is_native(&self) -> bool {
        self.access.is_native()
    }

    /// The reference naming this method as declared by `class`.
    pub fn reference(&self, class: &ClassName) -> MethodRef {
        MethodRef {
            class: class.clone(),
            name: self.name.clone(),
            descriptor: self.descriptor.clone(),
        }
    }
}

/// The `Code` attribute of a method (JVMS §4.7.3) with its debug tables.
#[derive(Clone, Debug, Default)]
pub struct Code {
    pub max_stack: u16,
    pub max_locals: u16,
    pub bytecode: Vec<u8>,
    pub exception_table: Vec<ExceptionHandler>,
    /// Sorted by `start_pc`.
    pub line_numbers: Vec<LineNumber>,
    pub local_variables: Vec<LocalVariable>,
}

impl Code {
    /// The source line of the instruction at `pc`: the entry with the greatest start at or
    /// before `pc`.
    pub fn line_at(&self, pc: u32) -> Option<u32> {
        let after = self.line_numbers.partition_point(|l| l.start_pc <= pc);
        after
            .checked_sub(1)
            .and_then(|i| self.line_numbers.get(i))
            .map(|l| l.line)
    }
}

/// One row of the exception table: instructions in `start_pc..end_pc` jump to `handler_pc`
/// when they throw a `catch_type` (any throwable when `None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExceptionHandler {
    pub start_pc: u32,
    pub end_pc: u32,
    pub handler_pc: u32,
    pub catch_type: Option<ClassName>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineNumber {
    pub start_pc: u32,
    pub line: u32,
}

/// One row of the LocalVariableTable: slot `slot` holds `name` of type `descriptor` for
/// instructions in `start_pc..start_pc + length`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalVariable {
    pub start_pc: u32,
    pub length: u32,
    pub name: Arc<str>,
    pub descriptor: Arc<str>,
    pub slot: u16,
}

/// An entry of the BootstrapMethods attribute: a method handle and constant-pool indices of
/// its static arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct BootstrapMethod {
    pub method: Handle,
    pub arguments: Vec<u16>,
}

/// Converts modified UTF-8; text that is not plain UTF-8 (NUL, surrogates) is decoded as
/// Java would, with unpaired surrogates replaced.
pub(crate) fn mutf8_to_str(text: &MStr) -> Arc<str> {
    match text.to_str() {
        Some(plain) => Arc::from(plain),
        None => Arc::from(text.chars_lossy().collect::<String>()),
    }
}

impl Class {
    /// What the class declares, without its code: its access, name and supertypes, and its
    /// fields and methods by name, type and access, a line each. Two class files with the same
    /// declaration differ only in what their methods do.
    pub fn declaration_text(&self) -> String {
        let mut text = format!(
            "{:#06x} {} extends {}",
            self.access.0,
            self.name,
            self.super_class
                .as_ref()
                .map_or_else(String::new, ToString::to_string)
        );
        for interface in &self.interfaces {
            text.push_str(&format!(" {interface}"));
        }
        for field in &self.fields {
            text.push_str(&format!(
                "\nfield {:#06x} {} {}",
                field.access.0, field.name, field.ty
            ));
        }
        for method in &self.methods {
            text.push_str(&format!(
                "\nmethod {:#06x} {}{}",
                method.access.0, method.name, method.descriptor
            ));
        }
        text
    }

    /// Parses a class file. Errors are one line and start with "bad class file".
    pub fn parse(bytes: &[u8]) -> Result<Class> {
        let bad = |e: String| Error::Input(format!("bad class file: {e}"));
        let reader = NoakClass::new(bytes).map_err(|e| bad(e.to_string()))?;
        let version = Version {
            major: reader.version().major,
            minor: reader.version().minor,
        };
        check_version(version).map_err(bad)?;
        let pool = ConstantPool::from_noak(reader.pool());
        let name = pool.class_name(reader.this_class().as_u16()).map_err(bad)?;
        Parser {
            reader: &reader,
            pool,
            name: name.clone(),
        }
        .class(version)
        .map_err(|e| Error::Input(format!("bad class file for {name}: {e}")))
    }

    /// The declared method with this name and descriptor.
    pub fn method(&self, name: &str, descriptor: &str) -> Option<&Method> {
        self.methods
            .iter()
            .find(|m| &*m.name == name && &*m.descriptor == descriptor)
    }

    pub fn is_interface(&self) -> bool {
        self.access.is_interface()
    }

    pub fn is_abstract(&self) -> bool {
        self.access.is_abstract()
    }
}

fn check_version(version: Version) -> std::result::Result<(), String> {
    if version.major < MIN_MAJOR_VERSION {
        return Err(format!(
            "class-file version {}.{} is not supported (major versions {MIN_MAJOR_VERSION} and \
             later, Java 1.1 and later)",
            version.major, version.minor
        ));
    }
    if version.major > MAX_MAJOR_VERSION {
        warn_newer_version(version);
    }
    Ok(())
}

/// One warning per process for class files newer than [`MAX_MAJOR_VERSION`].
fn warn_newer_version(version: Version) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        eprintln!(
            "membound: warning: class-file version {}.{} is newer than this membound knows \
             ({MAX_MAJOR_VERSION}, Java 26); reading it as {MAX_MAJOR_VERSION}",
            version.major, version.minor
        );
    });
}

type ParseResult<T> = std::result::Result<T, String>;

/// Walks noak's reader and builds the owned model.
struct Parser<'r, 'input> {
    reader: &'r NoakClass<'input>,
    pool: ConstantPool,
    name: ClassName,
}

impl<'input> Parser<'_, 'input> {
    fn noak_pool(&self) -> &NoakPool<'input> {
        self.reader.pool()
    }

    fn class(self, version: Version) -> ParseResult<Class> {
        let super_class = match self.reader.super_class() {
            Some(index) => Some(self.pool.class_name(index.as_u16())?),
            None => None,
        };
        let mut interfaces = Vec::new();
        for index in self.reader.interfaces() {
            interfaces.push(self.pool.class_name(index.map_err(str_err)?.as_u16())?);
        }
        let fields = self.fields()?;
        let methods = self.methods()?;
        let (source_file, bootstrap_methods) = self.class_attributes()?;
        Ok(Class {
            name: self.name,
            super_class,
            interfaces,
            access: AccessFlags(self.reader.access_flags().bits()),
            version,
            source_file,
            fields,
            methods,
            bootstrap_methods,
            pool: self.pool,
        })
    }

    fn fields(&self) -> ParseResult<Vec<Field>> {
        let mut fields = Vec::new();
        for field in self.reader.fields() {
            let field = field.map_err(str_err)?;
            let name = self.pool.utf8(field.name().as_u16())?.clone();
            let descriptor = self.pool.utf8(field.descriptor().as_u16())?;
            let ty = Type::parse(descriptor).map_err(|e| format!("field {name}: {e}"))?;
            fields.push(Field {
                name,
                ty,
                access: AccessFlags(field.access_flags().bits()),
            });
        }
        Ok(fields)
    }

    fn methods(&self) -> ParseResult<Vec<Method>> {
        let mut methods = Vec::new();
        for method in self.reader.methods() {
            let method = method.map_err(str_err)?;
            let name = self.pool.utf8(method.name().as_u16())?.clone();
            let descriptor = self.pool.utf8(method.descriptor().as_u16())?.clone();
            let parsed_descriptor =
                MethodDescriptor::parse(&descriptor).map_err(|e| format!("method {name}: {e}"))?;
            let mut code = None;
            for attribute in method.attributes() {
                let attribute = attribute.map_err(str_err)?;
                if &**self.attribute_name(&attribute)? == "Code" {
                    code = Some(
                        self.code(&attribute)
                            .map_err(|e| format!("method {name}{descriptor}: {e}"))?,
                    );
                }
            }
            methods.push(Method {
                name,
                descriptor,
                parsed_descriptor,
                access: AccessFlags(method.access_flags().bits()),
                code,
            });
        }
        Ok(methods)
    }

    fn attribute_name(&self, attribute: &Attribute<'input>) -> ParseResult<&Arc<str>> {
        self.pool.utf8(attribute.name().as_u16())
    }

    fn code(&self, attribute: &Attribute<'input>) -> ParseResult<Code> {
        let code: NoakCode<'input> = attribute
            .read_content(self.noak_pool())
            .and_then(TryInto::try_into)
            .map_err(str_err)?;
        let mut result = Code {
            max_stack: code.max_stack(),
            max_locals: code.max_locals(),
            bytecode: bytecode_bytes(attribute.content())?.to_vec(),
            ..Code::default()
        };
        for handler in code.exception_handlers() {
            let catch_type = match handler.catch_type() {
                Some(index) => Some(self.pool.class_name(index.as_u16())?),
                None => None,
            };
            result.exception_table.push(ExceptionHandler {
                start_pc: handler.start().as_u32(),
                end_pc: handler.end().as_u32(),
                handler_pc: handler.handler().as_u32(),
                catch_type,
            });
        }
        for attribute in code.attributes() {
            let attribute = attribute.map_err(str_err)?;
            match &**self.attribute_name(&attribute)? {
                "LineNumberTable" => self.line_numbers(&attribute, &mut result.line_numbers)?,
                "LocalVariableTable" => {
                    self.local_variables(&attribute, &mut result.local_variables)?
                }
                _ => {}
            }
        }
        result.line_numbers.sort_by_key(|l| l.start_pc);
        Ok(result)
    }

    /// LineNumberTable (JVMS §4.7.12), read from the raw bytes: noak 0.7 decodes its
    /// `start_pc` as four bytes instead of two.
    fn line_numbers(
        &self,
        attribute: &Attribute<'input>,
        lines: &mut Vec<LineNumber>,
    ) -> ParseResult<()> {
        let mut table = Table::new(attribute.content(), "LineNumberTable");
        for _ in 0..table.u16()? {
            lines.push(LineNumber {
                start_pc: u32::from(table.u16()?),
                line: u32::from(table.u16()?),
            });
        }
        Ok(())
    }

    /// LocalVariableTable (JVMS §4.7.13), read from the raw bytes like the line numbers.
    fn local_variables(
        &self,
        attribute: &Attribute<'input>,
        locals: &mut Vec<LocalVariable>,
    ) -> ParseResult<()> {
        let mut table = Table::new(attribute.content(), "LocalVariableTable");
        for _ in 0..table.u16()? {
            let start_pc = u32::from(table.u16()?);
            let length = u32::from(table.u16()?);
            let name = self.pool.utf8(table.u16()?)?.clone();
            let descriptor = self.pool.utf8(table.u16()?)?.clone();
            let slot = table.u16()?;
            locals.push(LocalVariable {
                start_pc,
                length,
                name,
                descriptor,
                slot,
            });
        }
        Ok(())
    }

    fn class_attributes(&self) -> ParseResult<(Option<Arc<str>>, Vec<BootstrapMethod>)> {
        let mut source_file = None;
        let mut bootstrap_methods = Vec::new();
        for attribute in self.reader.attributes() {
            let attribute = attribute.map_err(str_err)?;
            match &**self.attribute_name(&attribute)? {
                "SourceFile" => {
                    let content: SourceFile<'input> = attribute
                        .read_content(self.noak_pool())
                        .and_then(TryInto::try_into)
                        .map_err(str_err)?;
                    source_file = Some(self.pool.utf8(content.source_file().as_u16())?.clone());
                }
                "BootstrapMethods" => {
                    bootstrap_methods = self.bootstrap_methods(&attribute)?;
                }
                _ => {}
            }
        }
        Ok((source_file, bootstrap_methods))
    }

    fn bootstrap_methods(
        &self,
        attribute: &Attribute<'input>,
    ) -> ParseResult<Vec<BootstrapMethod>> {
        let table: BootstrapMethods<'input> = attribute
            .read_content(self.noak_pool())
            .and_then(TryInto::try_into)
            .map_err(str_err)?;
        let mut methods = Vec::new();
        for entry in table.methods() {
            let entry = entry.map_err(str_err)?;
            let method = self.pool.method_handle(entry.method_ref().as_u16())?;
            let mut arguments = Vec::new();
            for argument in entry.arguments() {
                let argument: cpool::Index<cpool::Item<'input>> = argument.map_err(str_err)?;
                arguments.push(argument.as_u16());
            }
            methods.push(BootstrapMethod { method, arguments });
        }
        Ok(methods)
    }
}

/// The bytecode inside a `Code` attribute's content: after `max_stack`, `max_locals` and the
/// 4-byte `code_length` (noak decodes the rest of the attribute but does not hand out the bytes).
fn bytecode_bytes(content: &[u8]) -> ParseResult<&[u8]> {
    let length_bytes: [u8; 4] = content
        .get(4..8)
        .and_then(|b| b.try_into().ok())
        .ok_or("Code attribute is truncated")?;
    let length = u32::from_be_bytes(length_bytes) as usize;
    if length == 0 || length >= 65536 {
        return Err(format!("code length {length} is not in 1..65535"));
    }
    content
        .get(8..8 + length)
        .ok_or_else(|| "Code attribute is truncated".to_string())
}

/// A cursor over an attribute's bytes, for the tables we read ourselves.
struct Table<'a> {
    bytes: &'a [u8],
    at: usize,
    what: &'static str,
}

impl<'a> Table<'a> {
    fn new(bytes: &'a [u8], what: &'static str) -> Self {
        Table { bytes, at: 0, what }
    }

    fn u16(&mut self) -> ParseResult<u16> {
        let pair = self
            .bytes
            .get(self.at..self.at + 2)
            .ok_or_else(|| format!("{} is truncated", self.what))?;
        self.at += 2;
        Ok(u16::from_be_bytes([pair[0], pair[1]]))
    }
}

fn str_err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

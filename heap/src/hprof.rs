//! A streaming reader of HPROF heap dumps (format `JAVA PROFILE 1.0.1` and `1.0.2`, as written
//! by HotSpot's `jcmd GC.heap_dump`, `jmap -dump`, `-XX:+HeapDumpOnOutOfMemoryError` and
//! `HotSpotDiagnosticMXBean.dumpHeap`; plain or gzip-compressed with `-gz`).
//!
//! The file is read once, front to back, through a buffer: records are never held whole, and
//! an instance's field bytes are decoded as soon as its class layout is known (HotSpot writes
//! every class before the instances; an instance seen before its class is kept raw until the
//! end). Only what the snapshot model needs is kept: names, class layouts, each object's class,
//! size and non-null references, and the roots.
//!
//! What a dump does not say: allocation sites (HotSpot writes a dummy stack-trace serial for
//! every object) and object sizes. Sizes are modelled for a 64-bit HotSpot with compressed oops
//! and class pointers (its default below 32 GB of heap): a 12-byte header, fields at their
//! sizes with references of 4 bytes, arrays a 16-byte header, all rounded up to 8 bytes.
//! Objects are identified by their addresses, which mean nothing in another dump.
//! `java.lang.Class` objects are not objects of the model: static fields become roots.

use crate::error::{Error, Result};
use crate::snapshot::{
    ClassIndex, ClassInfo, Label, NO_SITE, Object, RootKind, Snapshot, SnapshotBuilder, Source,
};
use rustc_hash::FxHashMap;
use std::io::{BufReader, Read};

const MAGIC: &[u8] = b"JAVA PROFILE 1.0.";
const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];

/// Whether a file starting with `head` is an HPROF dump.
pub fn is_hprof(head: &[u8]) -> bool {
    head.starts_with(MAGIC)
}

/// Whether a file starting with `head` is gzip-compressed (as `jcmd GC.heap_dump -gz=1` writes).
pub fn is_gzip(head: &[u8]) -> bool {
    head.starts_with(GZIP_MAGIC)
}

/// Reads a whole dump (plain or gzip-compressed) into one snapshot.
pub fn read(mut input: impl Read) -> Result<Snapshot> {
    let mut head = [0u8; 2];
    let got = crate::read_prefix(&mut input, &mut head).map_err(io_error)?;
    let prefix = std::io::Cursor::new(head[..got].to_vec());
    let whole = prefix.chain(input);
    if is_gzip(&head[..got]) {
        Reader::new(flate2::read::MultiGzDecoder::new(whole)).read_all()
    } else {
        Reader::new(whole).read_all()
    }
}

fn io_error(error: std::io::Error) -> Error {
    Error::Input(format!("cannot read the HPROF dump: {error}"))
}

// Top-level record tags.
const UTF8: u8 = 0x01;
const LOAD_CLASS: u8 = 0x02;
const STACK_FRAME: u8 = 0x04;
const STACK_TRACE: u8 = 0x05;
const HEAP_DUMP: u8 = 0x0C;
const HEAP_DUMP_SEGMENT: u8 = 0x1C;

// Heap-dump sub-record tags.
const ROOT_UNKNOWN: u8 = 0xFF;
const ROOT_JNI_GLOBAL: u8 = 0x01;
const ROOT_JNI_LOCAL: u8 = 0x02;
const ROOT_JAVA_FRAME: u8 = 0x03;
const ROOT_NATIVE_STACK: u8 = 0x04;
const ROOT_STICKY_CLASS: u8 = 0x05;
const ROOT_THREAD_BLOCK: u8 = 0x06;
const ROOT_MONITOR_USED: u8 = 0x07;
const ROOT_THREAD_OBJECT: u8 = 0x08;
const CLASS_DUMP: u8 = 0x20;
const INSTANCE_DUMP: u8 = 0x21;
const OBJECT_ARRAY_DUMP: u8 = 0x22;
const PRIMITIVE_ARRAY_DUMP: u8 = 0x23;

// Basic types of fields and array elements.
const TYPE_OBJECT: u8 = 2;

/// Bytes of a value of basic type `ty` in the dump (references: the identifier size).
fn value_size(ty: u8, id_size: u32) -> Option<u32> {
    Some(match ty {
        TYPE_OBJECT => id_size,
        4 | 8 => 1,  // boolean, byte
        5 | 9 => 2,  // char, short
        6 | 10 => 4, // float, int
        7 | 11 => 8, // double, long
        _ => return None,
    })
}

/// Bytes of a value of basic type `ty` in a HotSpot object with compressed oops.
fn heap_size(ty: u8) -> u64 {
    match ty {
        4 | 8 => 1,
        5 | 9 => 2,
        TYPE_OBJECT | 6 | 10 => 4,
        _ => 8,
    }
}

fn primitive_array_name(ty: u8) -> Option<&'static str> {
    Some(match ty {
        4 => "boolean[]",
        5 => "char[]",
        6 => "float[]",
        7 => "double[]",
        8 => "byte[]",
        9 => "short[]",
        10 => "int[]",
        11 => "long[]",
        _ => return None,
    })
}

fn align8(bytes: u64) -> u64 {
    bytes.div_ceil(8) * 8
}

/// A class as its CLASS DUMP record describes it.
struct ClassDump {
    super_id: u64,
    /// (name string id, basic type), in the order of the instance's field bytes.
    instance_fields: Vec<(u64, u8)>,
}

/// Where an instance's references sit in its field bytes, and its modelled size.
struct Layout {
    /// Byte count of the instance data of the whole superclass chain.
    data_bytes: u64,
    /// (offset in the instance data, label index).
    references: Vec<(usize, u32)>,
    heap_bytes: u64,
}

/// A frame of a stack trace: enough to name the method of a root.
struct Frame {
    method_name: u64,
    signature: u64,
    class_serial: u32,
}

/// A root whose holder (a frame's method) is named at the end, once every trace is read.
enum RawRoot {
    Named(RootKind, String, u64),
    InFrame(RootKind, u32, u32, u64),
}

/// The counting input: big-endian values, with the byte position for messages.
struct Input<R> {
    inner: BufReader<R>,
    position: u64,
}

impl<R: Read> Input<R> {
    fn fill(&mut self, buffer: &mut [u8]) -> Result<()> {
        self.inner.read_exact(buffer).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                Error::Input(format!(
                    "the HPROF dump is truncated (it ends inside a record near byte {})",
                    self.position
                ))
            } else {
                io_error(e)
            }
        })?;
        self.position += buffer.len() as u64;
        Ok(())
    }

    fn u1(&mut self) -> Result<u8> {
        let mut b = [0u8; 1];
        self.fill(&mut b)?;
        Ok(b[0])
    }

    fn u2(&mut self) -> Result<u16> {
        let mut b = [0u8; 2];
        self.fill(&mut b)?;
        Ok(u16::from_be_bytes(b))
    }

    fn u4(&mut self) -> Result<u32> {
        let mut b = [0u8; 4];
        self.fill(&mut b)?;
        Ok(u32::from_be_bytes(b))
    }

    fn u8(&mut self) -> Result<u64> {
        let mut b = [0u8; 8];
        self.fill(&mut b)?;
        Ok(u64::from_be_bytes(b))
    }

    fn id(&mut self, size: u32) -> Result<u64> {
        if size == 4 {
            self.u4().map(u64::from)
        } else {
            self.u8()
        }
    }

    /// Reads `count` bytes into `buffer` (replacing its contents), in steps, so that a lying
    /// length costs no more memory than the file really has.
    fn bytes_into(&mut self, count: u64, buffer: &mut Vec<u8>) -> Result<()> {
        buffer.clear();
        let taken = (&mut self.inner).take(count).read_to_end(buffer);
        let read = taken.map_err(io_error)?;
        self.position += read as u64;
        if (read as u64) < count {
            return Err(Error::Input(format!(
                "the HPROF dump is truncated (a record runs past its end at byte {})",
                self.position
            )));
        }
        Ok(())
    }

    fn skip(&mut self, count: u64) -> Result<()> {
        let skipped = std::io::copy(&mut (&mut self.inner).take(count), &mut std::io::sink())
            .map_err(io_error)?;
        self.position += skipped;
        if skipped < count {
            return Err(Error::Input(format!(
                "the HPROF dump is truncated (a record runs past its end at byte {})",
                self.position
            )));
        }
        Ok(())
    }

    /// Whether the input is at its end (no byte left).
    fn at_end(&mut self) -> Result<bool> {
        use std::io::BufRead;
        Ok(self.inner.fill_buf().map_err(io_error)?.is_empty())
    }
}

struct Reader<R> {
    input: Input<R>,
    id_size: u32,
    strings: FxHashMap<u64, String>,
    /// Class object id → class-name string id.
    class_names: FxHashMap<u64, u64>,
    class_serials: FxHashMap<u32, u64>,
    frames: FxHashMap<u64, Frame>,
    /// Stack-trace serial → frame ids, innermost first.
    traces: FxHashMap<u32, Vec<u64>>,
    /// Thread serial → its stack-trace serial.
    thread_traces: FxHashMap<u32, u32>,
    class_dumps: FxHashMap<u64, ClassDump>,
    layouts: FxHashMap<u64, Layout>,
    /// Class object id → the snapshot's class.
    class_index: FxHashMap<u64, ClassIndex>,
    primitive_arrays: FxHashMap<u8, ClassIndex>,
    /// Instances read before their class's layout was known: (id, class id, field bytes).
    deferred: Vec<(u64, u64, Vec<u8>)>,
    roots: Vec<RawRoot>,
    builder: SnapshotBuilder,
    buffer: Vec<u8>,
}

impl<R: Read> Reader<R> {
    fn new(inner: R) -> Reader<R> {
        Reader {
            input: Input {
                inner: BufReader::with_capacity(1 << 16, inner),
                position: 0,
            },
            id_size: 0,
            strings: FxHashMap::default(),
            class_names: FxHashMap::default(),
            class_serials: FxHashMap::default(),
            frames: FxHashMap::default(),
            traces: FxHashMap::default(),
            thread_traces: FxHashMap::default(),
            class_dumps: FxHashMap::default(),
            layouts: FxHashMap::default(),
            class_index: FxHashMap::default(),
            primitive_arrays: FxHashMap::default(),
            deferred: Vec::new(),
            roots: Vec::new(),
            builder: SnapshotBuilder::new(Source::Hprof, "dump"),
            buffer: Vec::new(),
        }
    }

    fn read_all(mut self) -> Result<Snapshot> {
        self.read_header()?;
        while !self.input.at_end()? {
            self.read_record()?;
        }
        self.finish()
    }

    fn read_header(&mut self) -> Result<()> {
        let mut format = Vec::new();
        loop {
            match self.input.u1()? {
                0 => break,
                byte if format.len() < 32 => format.push(byte),
                _ => return Err(Error::Input("not an HPROF dump (no format name)".into())),
            }
        }
        if !format.starts_with(MAGIC) {
            return Err(Error::Input(format!(
                "not an HPROF dump (format `{}`)",
                String::from_utf8_lossy(&format)
            )));
        }
        self.id_size = self.input.u4()?;
        if self.id_size != 4 && self.id_size != 8 {
            return Err(Error::Input(format!(
                "HPROF identifiers of {} bytes (only 4 and 8 exist)",
                self.id_size
            )));
        }
        self.input.u8()?; // the time stamp
        Ok(())
    }

    fn read_record(&mut self) -> Result<()> {
        let tag = self.input.u1()?;
        self.input.u4()?; // microseconds since the header's time stamp
        let length = u64::from(self.input.u4()?);
        let start = self.input.position;
        match tag {
            UTF8 => {
                let id = self.id()?;
                let text_length = length
                    .checked_sub(u64::from(self.id_size))
                    .ok_or_else(|| self.bad("a string record shorter than its identifier"))?;
                let mut text = Vec::new();
                self.input.bytes_into(text_length, &mut text)?;
                self.strings
                    .insert(id, String::from_utf8_lossy(&text).into_owned());
            }
            LOAD_CLASS => {
                let serial = self.input.u4()?;
                let class = self.id()?;
                self.input.u4()?; // stack trace serial
                let name = self.id()?;
                self.class_names.insert(class, name);
                self.class_serials.insert(serial, class);
            }
            STACK_FRAME => {
                let id = self.id()?;
                let method_name = self.id()?;
                let signature = self.id()?;
                self.id()?; // source file name
                let class_serial = self.input.u4()?;
                self.input.u4()?; // line number
                self.frames.insert(
                    id,
                    Frame {
                        method_name,
                        signature,
                        class_serial,
                    },
                );
            }
            STACK_TRACE => {
                let serial = self.input.u4()?;
                self.input.u4()?; // thread serial
                let count = self.input.u4()?;
                let expected = 12 + u64::from(count) * u64::from(self.id_size);
                if expected != length {
                    return Err(
                        self.bad("a stack trace whose frame count disagrees with its length")
                    );
                }
                let frames = (0..count).map(|_| self.id()).collect::<Result<_>>()?;
                self.traces.insert(serial, frames);
            }
            HEAP_DUMP | HEAP_DUMP_SEGMENT => self.read_heap_dump(start + length)?,
            _ => self.input.skip(length)?,
        }
        if self.input.position != start + length {
            return Err(self.bad(&format!(
                "record 0x{tag:02x} at byte {} is {length} bytes long but holds {}",
                start - 9,
                self.input.position - start
            )));
        }
        Ok(())
    }

    fn id(&mut self) -> Result<u64> {
        self.input.id(self.id_size)
    }

    fn bad(&self, what: &str) -> Error {
        Error::Input(format!(
            "malformed HPROF dump near byte {}: {what}",
            self.input.position
        ))
    }

    fn read_heap_dump(&mut self, end: u64) -> Result<()> {
        while self.input.position < end {
            let tag = self.input.u1()?;
            self.read_sub_record(tag)?;
            if self.input.position > end {
                return Err(self.bad(&format!(
                    "sub-record 0x{tag:02x} runs past the end of its heap-dump segment"
                )));
            }
        }
        Ok(())
    }

    fn read_sub_record(&mut self, tag: u8) -> Result<()> {
        match tag {
            ROOT_UNKNOWN | ROOT_STICKY_CLASS | ROOT_MONITOR_USED => {
                let target = self.id()?;
                let kind = if tag == ROOT_MONITOR_USED {
                    RootKind::Monitor
                } else {
                    RootKind::Other
                };
                self.roots.push(RawRoot::Named(kind, String::new(), target));
            }
            ROOT_JNI_GLOBAL => {
                let target = self.id()?;
                self.id()?; // the global reference's own id
                let root = RawRoot::Named(RootKind::JniGlobal, String::new(), target);
                self.roots.push(root);
            }
            ROOT_JNI_LOCAL | ROOT_JAVA_FRAME => {
                let target = self.id()?;
                let thread = self.input.u4()?;
                let depth = self.input.u4()?;
                let kind = if tag == ROOT_JAVA_FRAME {
                    RootKind::Local
                } else {
                    RootKind::JniLocal
                };
                self.roots
                    .push(RawRoot::InFrame(kind, thread, depth, target));
            }
            ROOT_NATIVE_STACK | ROOT_THREAD_BLOCK => {
                let target = self.id()?;
                self.input.u4()?; // thread serial
                let kind = if tag == ROOT_THREAD_BLOCK {
                    RootKind::Thread
                } else {
                    RootKind::Other
                };
                self.roots.push(RawRoot::Named(kind, String::new(), target));
            }
            ROOT_THREAD_OBJECT => {
                let target = self.id()?;
                let thread = self.input.u4()?;
                let trace = self.input.u4()?;
                self.thread_traces.insert(thread, trace);
                let root = RawRoot::Named(RootKind::Thread, String::new(), target);
                self.roots.push(root);
            }
            CLASS_DUMP => self.read_class_dump()?,
            INSTANCE_DUMP => self.read_instance()?,
            OBJECT_ARRAY_DUMP => self.read_object_array()?,
            PRIMITIVE_ARRAY_DUMP => self.read_primitive_array()?,
            _ => return Err(self.bad(&format!("unknown heap-dump sub-record 0x{tag:02x}"))),
        }
        Ok(())
    }

    fn read_class_dump(&mut self) -> Result<()> {
        let class = self.id()?;
        self.input.u4()?; // stack trace serial
        let super_id = self.id()?;
        for _ in 0..5 {
            self.id()?; // class loader, signers, protection domain, two reserved
        }
        self.input.u4()?; // instance size
        let constants = self.input.u2()?;
        for _ in 0..constants {
            self.input.u2()?;
            let ty = self.input.u1()?;
            self.skip_value(ty)?;
        }
        let statics = self.input.u2()?;
        for _ in 0..statics {
            let name = self.id()?;
            let ty = self.input.u1()?;
            if ty == TYPE_OBJECT {
                let value = self.id()?;
                if value != 0 {
                    let field = self.string(name);
                    // HotSpot dumps a class's resolved constants as `<resolved_references>`:
                    // held by the JVM, not by a field of the program.
                    let kind = if field.starts_with('<') {
                        RootKind::Other
                    } else {
                        RootKind::Static
                    };
                    let holder = format!("{}.{field}", self.class_name(class));
                    self.roots.push(RawRoot::Named(kind, holder, value));
                }
            } else {
                self.skip_value(ty)?;
            }
        }
        let fields = self.input.u2()?;
        let instance_fields = (0..fields)
            .map(|_| {
                let name = self.id()?;
                let ty = self.input.u1()?;
                value_size(ty, self.id_size)
                    .ok_or_else(|| self.bad(&format!("a field of unknown type {ty}")))?;
                Ok((name, ty))
            })
            .collect::<Result<Vec<_>>>()?;
        let dump = ClassDump {
            super_id,
            instance_fields,
        };
        if self.class_dumps.insert(class, dump).is_some() {
            return Err(self.bad(&format!("class {class:#x} is dumped twice")));
        }
        Ok(())
    }

    fn skip_value(&mut self, ty: u8) -> Result<()> {
        let size = value_size(ty, self.id_size)
            .ok_or_else(|| self.bad(&format!("a value of unknown type {ty}")))?;
        self.input.skip(u64::from(size))
    }

    fn read_instance(&mut self) -> Result<()> {
        let id = self.id()?;
        self.input.u4()?; // stack trace serial
        let class = self.id()?;
        let length = u64::from(self.input.u4()?);
        let mut data = std::mem::take(&mut self.buffer);
        self.input.bytes_into(length, &mut data)?;
        if self.layout(class)?.is_some() {
            self.add_instance(id, class, &data)?;
            self.buffer = data;
        } else {
            self.deferred.push((id, class, data));
        }
        Ok(())
    }

    /// Adds an instance whose class layout is known.
    fn add_instance(&mut self, id: u64, class: u64, data: &[u8]) -> Result<()> {
        let index = self.class_for(class)?;
        let layout = &self.layouts[&class];
        if data.len() as u64 != layout.data_bytes {
            return Err(Error::Input(format!(
                "malformed HPROF dump: instance {id:#x} has {} bytes of fields, its class {} declares {}",
                data.len(),
                self.class_name(class),
                layout.data_bytes
            )));
        }
        let references: Vec<(Label, u64)> = layout
            .references
            .iter()
            .map(|&(offset, label)| (Label::field(label), read_id(data, offset, self.id_size)))
            .filter(|&(_, target)| target != 0)
            .collect();
        let object = Object {
            class: index,
            bytes: layout.heap_bytes,
            site: NO_SITE,
            identity: id,
            length: None,
        };
        let from = self.builder.add_object(object)?;
        for (label, target) in references {
            self.builder.add_reference(from, label, target);
        }
        Ok(())
    }

    fn read_object_array(&mut self) -> Result<()> {
        let id = self.id()?;
        self.input.u4()?; // stack trace serial
        let length = self.input.u4()?;
        let class = self.id()?;
        let index = self.class_for(class)?;
        let object = Object {
            class: index,
            bytes: align8(16 + 4 * u64::from(length)),
            site: NO_SITE,
            identity: id,
            length: Some(length),
        };
        let from = self.builder.add_object(object)?;
        for element in 0..length {
            let target = self.id()?;
            if target != 0 {
                self.builder
                    .add_reference(from, Label::element(element), target);
            }
        }
        Ok(())
    }

    fn read_primitive_array(&mut self) -> Result<()> {
        let id = self.id()?;
        self.input.u4()?; // stack trace serial
        let length = self.input.u4()?;
        let ty = self.input.u1()?;
        let name = primitive_array_name(ty)
            .ok_or_else(|| self.bad(&format!("a primitive array of unknown type {ty}")))?;
        let element_size = value_size(ty, self.id_size).unwrap_or(1);
        self.input
            .skip(u64::from(length) * u64::from(element_size))?;
        let class = match self.primitive_arrays.get(&ty) {
            Some(&class) => class,
            None => {
                let class = self.builder.add_class(ClassInfo {
                    name: name.to_owned(),
                    is_array: true,
                    reference_fields: Vec::new(),
                })?;
                self.primitive_arrays.insert(ty, class);
                class
            }
        };
        let object = Object {
            class,
            bytes: align8(16 + heap_size(ty) * u64::from(length)),
            site: NO_SITE,
            identity: id,
            length: Some(length),
        };
        self.builder.add_object(object)?;
        Ok(())
    }

    fn string(&self, id: u64) -> &str {
        self.strings.get(&id).map_or("?", String::as_str)
    }

    /// A class's name in Java form, from its LOAD CLASS record.
    fn class_name(&self, class: u64) -> String {
        match self.class_names.get(&class) {
            Some(&name) => java_name(self.string(name)),
            None => format!("class@{class:#x}"),
        }
    }

    /// The snapshot's class for a class object id, made on first use.
    fn class_for(&mut self, class: u64) -> Result<ClassIndex> {
        if let Some(&index) = self.class_index.get(&class) {
            return Ok(index);
        }
        let name = self.class_name(class);
        let is_array = name.ends_with("[]");
        let reference_fields = self
            .layouts
            .get(&class)
            .map(|l| l.references.iter().map(|&(_, label)| label).collect())
            .unwrap_or_default();
        let index = self.builder.add_class(ClassInfo {
            name,
            is_array,
            reference_fields,
        })?;
        self.class_index.insert(class, index);
        Ok(index)
    }

    /// The layout of a class's instances, computed once its whole superclass chain is dumped;
    /// None before that.
    fn layout(&mut self, class: u64) -> Result<Option<&Layout>> {
        if !self.layouts.contains_key(&class) {
            let Some(chain) = self.superclass_chain(class)? else {
                return Ok(None);
            };
            let layout = self.compute_layout(&chain)?;
            self.layouts.insert(class, layout);
        }
        Ok(self.layouts.get(&class))
    }

    /// The class and its superclasses, the class first; None while one is not dumped yet.
    fn superclass_chain(&self, class: u64) -> Result<Option<Vec<u64>>> {
        let mut chain = Vec::new();
        let mut current = class;
        while current != 0 {
            if chain.len() > 4096 || chain.contains(&current) {
                return Err(Error::Input(format!(
                    "malformed HPROF dump: the superclasses of {} form a loop",
                    self.class_name(class)
                )));
            }
            let Some(dump) = self.class_dumps.get(&current) else {
                return Ok(None);
            };
            chain.push(current);
            current = dump.super_id;
        }
        Ok(Some(chain))
    }

    fn compute_layout(&mut self, chain: &[u64]) -> Result<Layout> {
        let mut offset = 0usize;
        let mut heap_bytes = 12u64;
        let mut references = Vec::new();
        let fields: Vec<(u64, u8)> = chain
            .iter()
            .flat_map(|class| self.class_dumps[class].instance_fields.iter().copied())
            .collect();
        for (name, ty) in fields {
            if ty == TYPE_OBJECT {
                let name = self.string(name).to_owned();
                references.push((offset, self.builder.label(&name)?));
            }
            // Checked when the class dump was read.
            offset += value_size(ty, self.id_size).unwrap_or(0) as usize;
            heap_bytes += heap_size(ty);
        }
        Ok(Layout {
            data_bytes: offset as u64,
            references,
            heap_bytes: align8(heap_bytes),
        })
    }

    fn finish(mut self) -> Result<Snapshot> {
        for (id, class, data) in std::mem::take(&mut self.deferred) {
            if self.layout(class)?.is_none() {
                return Err(Error::Input(format!(
                    "malformed HPROF dump: instance {id:#x} is of class {}, whose class dump (or a superclass's) is missing",
                    self.class_name(class)
                )));
            }
            self.add_instance(id, class, &data)?;
        }
        for root in std::mem::take(&mut self.roots) {
            let (kind, holder, target) = match root {
                RawRoot::Named(kind, holder, target) => (kind, holder, target),
                RawRoot::InFrame(kind, thread, depth, target) => {
                    (kind, self.frame_method(thread, depth), target)
                }
            };
            // Roots of class objects (sticky classes) name no object of the model.
            if !self.class_dumps.contains_key(&target) {
                self.builder.add_root(kind, holder, target);
            }
        }
        self.builder.finish()
    }

    /// `pkg.C.m(desc)` of frame `depth` of a thread's stack; empty when the dump does not say.
    fn frame_method(&self, thread: u32, depth: u32) -> String {
        let frame = self
            .thread_traces
            .get(&thread)
            .and_then(|trace| self.traces.get(trace))
            .and_then(|frames| frames.get(depth as usize))
            .and_then(|id| self.frames.get(id));
        let Some(frame) = frame else {
            return String::new();
        };
        let class = self
            .class_serials
            .get(&frame.class_serial)
            .map_or_else(|| "?".to_owned(), |&class| self.class_name(class));
        format!(
            "{class}.{}{}",
            self.string(frame.method_name),
            self.string(frame.signature)
        )
    }
}

fn read_id(data: &[u8], offset: usize, id_size: u32) -> u64 {
    // The layout's offsets were checked against the data's length.
    if id_size == 4 {
        let bytes: [u8; 4] = data[offset..offset + 4].try_into().unwrap_or([0; 4]);
        u64::from(u32::from_be_bytes(bytes))
    } else {
        let bytes: [u8; 8] = data[offset..offset + 8].try_into().unwrap_or([0; 8]);
        u64::from_be_bytes(bytes)
    }
}

/// `java/util/HashMap$Node` → `java.util.HashMap$Node`; `[I` → `int[]`;
/// `[[Lpkg/Node;` → `pkg.Node[][]`.
pub fn java_name(internal: &str) -> String {
    let dimensions = internal.bytes().take_while(|&b| b == b'[').count();
    if dimensions == 0 {
        return internal.replace('/', ".");
    }
    let element = &internal[dimensions..];
    let base = match element {
        "Z" => "boolean".to_owned(),
        "C" => "char".to_owned(),
        "F" => "float".to_owned(),
        "D" => "double".to_owned(),
        "B" => "byte".to_owned(),
        "S" => "short".to_owned(),
        "I" => "int".to_owned(),
        "J" => "long".to_owned(),
        other => other
            .strip_prefix('L')
            .and_then(|s| s.strip_suffix(';'))
            .unwrap_or(other)
            .replace('/', "."),
    };
    format!("{base}{}", "[]".repeat(dimensions))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Writes HPROF files for tests, record by record (8-byte identifiers).
    #[derive(Default)]
    pub(crate) struct Writer {
        pub(crate) bytes: Vec<u8>,
        segment: Vec<u8>,
    }

    impl Writer {
        pub(crate) fn new() -> Writer {
            let mut writer = Writer::default();
            writer.bytes.extend_from_slice(b"JAVA PROFILE 1.0.2\0");
            writer.bytes.extend_from_slice(&8u32.to_be_bytes());
            writer.bytes.extend_from_slice(&0u64.to_be_bytes());
            writer
        }

        fn record(&mut self, tag: u8, body: &[u8]) {
            self.bytes.push(tag);
            self.bytes.extend_from_slice(&0u32.to_be_bytes());
            self.bytes
                .extend_from_slice(&(body.len() as u32).to_be_bytes());
            self.bytes.extend_from_slice(body);
        }

        pub(crate) fn string(&mut self, id: u64, text: &str) {
            let mut body = id.to_be_bytes().to_vec();
            body.extend_from_slice(text.as_bytes());
            self.record(UTF8, &body);
        }

        pub(crate) fn load_class(&mut self, serial: u32, class: u64, name_id: u64) {
            let mut body = serial.to_be_bytes().to_vec();
            body.extend_from_slice(&class.to_be_bytes());
            body.extend_from_slice(&0u32.to_be_bytes());
            body.extend_from_slice(&name_id.to_be_bytes());
            self.record(LOAD_CLASS, &body);
        }

        /// A class dump with object-typed instance fields and static fields.
        pub(crate) fn class_dump(
            &mut self,
            class: u64,
            super_id: u64,
            statics: &[(u64, u64)],
            fields: &[u64],
        ) {
            let s = &mut self.segment;
            s.push(CLASS_DUMP);
            s.extend_from_slice(&class.to_be_bytes());
            s.extend_from_slice(&0u32.to_be_bytes());
            s.extend_from_slice(&super_id.to_be_bytes());
            s.extend_from_slice(&[0u8; 40]);
            s.extend_from_slice(&0u32.to_be_bytes());
            s.extend_from_slice(&0u16.to_be_bytes());
            s.extend_from_slice(&(statics.len() as u16).to_be_bytes());
            for (name, value) in statics {
                s.extend_from_slice(&name.to_be_bytes());
                s.push(TYPE_OBJECT);
                s.extend_from_slice(&value.to_be_bytes());
            }
            s.extend_from_slice(&(fields.len() as u16).to_be_bytes());
            for name in fields {
                s.extend_from_slice(&name.to_be_bytes());
                s.push(TYPE_OBJECT);
            }
        }

        pub(crate) fn instance(&mut self, id: u64, class: u64, values: &[u64]) {
            let s = &mut self.segment;
            s.push(INSTANCE_DUMP);
            s.extend_from_slice(&id.to_be_bytes());
            s.extend_from_slice(&0u32.to_be_bytes());
            s.extend_from_slice(&class.to_be_bytes());
            s.extend_from_slice(&((values.len() * 8) as u32).to_be_bytes());
            for value in values {
                s.extend_from_slice(&value.to_be_bytes());
            }
        }

        pub(crate) fn object_array(&mut self, id: u64, class: u64, elements: &[u64]) {
            let s = &mut self.segment;
            s.push(OBJECT_ARRAY_DUMP);
            s.extend_from_slice(&id.to_be_bytes());
            s.extend_from_slice(&0u32.to_be_bytes());
            s.extend_from_slice(&(elements.len() as u32).to_be_bytes());
            s.extend_from_slice(&class.to_be_bytes());
            for element in elements {
                s.extend_from_slice(&element.to_be_bytes());
            }
        }

        pub(crate) fn int_array(&mut self, id: u64, length: u32) {
            let s = &mut self.segment;
            s.push(PRIMITIVE_ARRAY_DUMP);
            s.extend_from_slice(&id.to_be_bytes());
            s.extend_from_slice(&0u32.to_be_bytes());
            s.extend_from_slice(&length.to_be_bytes());
            s.push(10);
            s.extend(std::iter::repeat_n(0u8, 4 * length as usize));
        }

        pub(crate) fn thread_root(&mut self, id: u64) {
            let s = &mut self.segment;
            s.push(ROOT_THREAD_OBJECT);
            s.extend_from_slice(&id.to_be_bytes());
            s.extend_from_slice(&1u32.to_be_bytes());
            s.extend_from_slice(&1u32.to_be_bytes());
        }

        /// Closes the heap-dump segment written so far.
        pub(crate) fn end_segment(&mut self) {
            let segment = std::mem::take(&mut self.segment);
            self.record(HEAP_DUMP_SEGMENT, &segment);
        }
    }

    /// Two classes `Node { next, data }` and `Main { static head }`, a list of three nodes
    /// from `Main.head`, one node's data an int array, and an array of nodes held by a thread.
    pub(crate) fn small_dump() -> Vec<u8> {
        let mut w = Writer::new();
        for (id, text) in [
            (1, "pkg/Node"),
            (2, "next"),
            (3, "data"),
            (4, "pkg/Main"),
            (5, "head"),
            (6, "java/lang/Object"),
            (7, "[Lpkg/Node;"),
        ] {
            w.string(id, text);
        }
        w.load_class(1, 0x100, 1);
        w.load_class(2, 0x200, 4);
        w.load_class(3, 0x300, 6);
        w.load_class(4, 0x400, 7);
        w.class_dump(0x300, 0, &[], &[]);
        w.class_dump(0x100, 0x300, &[], &[2, 3]);
        w.class_dump(0x200, 0x300, &[(5, 0x1000)], &[]);
        w.instance(0x1000, 0x100, &[0x1010, 0x2000]);
        w.end_segment();
        w.instance(0x1010, 0x100, &[0x1020, 0]);
        w.instance(0x1020, 0x100, &[0, 0]);
        w.int_array(0x2000, 3);
        w.object_array(0x3000, 0x400, &[0x1000, 0, 0x1020]);
        w.thread_root(0x3000);
        w.end_segment();
        w.bytes
    }

    #[test]
    fn a_small_dump_becomes_objects_references_and_roots() {
        let snapshot = read(small_dump().as_slice()).expect("a valid dump");
        assert_eq!(snapshot.objects().len(), 5);
        let names: Vec<&str> = snapshot
            .objects()
            .iter()
            .map(|o| snapshot.class(o.class).name.as_str())
            .collect();
        assert_eq!(
            names,
            ["pkg.Node", "pkg.Node", "pkg.Node", "int[]", "pkg.Node[]"]
        );
        let first: Vec<(&str, u32)> = snapshot
            .references(0)
            .iter()
            .map(|r| (snapshot.label_name(r.label), r.target))
            .collect();
        assert_eq!(first, [("next", 1), ("data", 3)]);
        assert_eq!(snapshot.references(4).len(), 2);
        let roots: Vec<String> = snapshot.roots().iter().map(|r| r.name()).collect();
        assert_eq!(roots, ["static pkg.Main.head", "thread"]);
        // Two references of 4 bytes after a 12-byte header; 3 ints after 16 bytes.
        assert_eq!(snapshot.object(0).bytes, 24);
        assert_eq!(snapshot.object(3).bytes, 32);
        assert_eq!(snapshot.object(4).length, Some(3));
    }

    #[test]
    fn a_gzip_compressed_dump_reads_the_same() {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(&small_dump()).expect("compress");
        let compressed = encoder.finish().expect("compress");
        let snapshot = read(compressed.as_slice()).expect("a valid dump");
        assert_eq!(snapshot.objects().len(), 5);
    }

    #[test]
    fn internal_names_become_java_names() {
        assert_eq!(
            java_name("java/util/HashMap$Node"),
            "java.util.HashMap$Node"
        );
        assert_eq!(java_name("[I"), "int[]");
        assert_eq!(java_name("[[Lpkg/Node;"), "pkg.Node[][]");
    }

    #[test]
    fn every_truncation_is_an_input_error() {
        let whole = small_dump();
        for end in 0..whole.len() {
            let result = read(&whole[..end]);
            // Cutting exactly between two records leaves a valid, shorter dump.
            if let Err(error) = result {
                assert!(matches!(error, Error::Input(_)), "{error}");
            }
        }
    }
}

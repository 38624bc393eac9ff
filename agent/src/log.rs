//! The event stream the agent writes: one line per event, space-separated fields, in the order the
//! events happened on each thread (lines of different threads interleave). The format is described
//! in the crate documentation; this module is the only place that writes it.

use std::fmt::{self, Write as _};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// First line of every stream; bumped when a line's meaning changes.
pub const HEADER: &str = "membound-agent 4";

/// One frame of a recorded chain.
pub struct FrameToken {
    /// Activation id; 0 when the frame is not tracked (native frames, VM-internal allocations).
    pub activation: u64,
    pub method: u32,
    pub offset: i64,
    pub line: Option<i32>,
}

/// A file of lines that never fails the caller: a line that cannot be written (a full disk) is
/// counted and reported in the last line, since the JVM's callbacks have no other way to
/// report it. Both of the agent's files (this event stream, heap mode's snapshots) are one.
pub struct LineFile {
    out: BufWriter<File>,
    failed_writes: u64,
}

impl LineFile {
    /// Creates the file and writes its header line.
    pub fn create(path: &Path, header: &str) -> io::Result<LineFile> {
        let mut out = BufWriter::with_capacity(1 << 16, File::create(path)?);
        writeln!(out, "{header}")?;
        Ok(LineFile {
            out,
            failed_writes: 0,
        })
    }

    pub fn line(&mut self, text: fmt::Arguments) {
        if writeln!(self.out, "{text}").is_err() {
            self.failed_writes += 1;
        }
    }

    /// Hands what is buffered to the file.
    pub fn flush(&mut self) {
        if self.out.flush().is_err() {
            self.failed_writes += 1;
        }
    }

    /// The last line, `end <errors>`: `errors` failures of the caller plus the lines that
    /// could not be written.
    pub fn finish(mut self, errors: u64) {
        let errors = errors + self.failed_writes;
        let _ = writeln!(self.out, "end {errors}");
        let _ = self.out.flush();
    }
}

/// The open event stream.
pub struct EventLog {
    file: LineFile,
}

impl EventLog {
    pub fn create(path: &Path) -> io::Result<EventLog> {
        Ok(EventLog {
            file: LineFile::create(path, HEADER)?,
        })
    }

    fn line(&mut self, text: fmt::Arguments) {
        self.file.line(text);
    }

    pub fn watch(&mut self, method: &str) {
        self.line(format_args!("watch {method}"));
    }

    pub fn method(&mut self, id: u32, name: &str) {
        self.line(format_args!("method {id} {name}"));
    }

    pub fn target(&mut self, id: u32) {
        self.line(format_args!("target {id}"));
    }

    pub fn enter(&mut self, thread: u32, activation: u64, method: u32) {
        self.line(format_args!("enter {thread} {activation} {method}"));
    }

    pub fn exit(&mut self, thread: u32, activation: u64) {
        self.line(format_args!("exit {thread} {activation}"));
    }

    /// A parameter value; `None` is a null array or string.
    pub fn param(
        &mut self,
        activation: u64,
        index: usize,
        name: &str,
        kind: &str,
        value: Option<i64>,
    ) {
        let value = value.map_or_else(|| "null".to_owned(), |v| v.to_string());
        self.line(format_args!(
            "param {activation} {index} {name} {kind} {value}"
        ));
    }

    /// The length of a chain (`<root>/<field>`) at an entry of the watched method: a count,
    /// `cycle` or `long`.
    pub fn chain(&mut self, activation: u64, chain: &str, length: &str) {
        self.line(format_args!("chain {activation} {chain} {length}"));
    }

    /// An integer instance field of `this` (`tag` `field`) or a static integer field (`static`)
    /// at an entry of the watched method.
    pub fn field_value(
        &mut self,
        tag: &str,
        activation: u64,
        class: &str,
        name: &str,
        ty: &str,
        value: i64,
    ) {
        self.line(format_args!(
            "{tag} {activation} {class} {name} {ty} {value}"
        ));
    }

    /// A static integer field once the instruction at `pc` of a watched activation completed.
    pub fn static_after(
        &mut self,
        activation: u64,
        pc: u32,
        class: &str,
        name: &str,
        ty: &str,
        value: i64,
    ) {
        self.line(format_args!(
            "after {activation} {pc} {class} {name} {ty} {value}"
        ));
    }

    /// An integer local once the call or store at `pc` of a watched activation set it.
    pub fn local_after(&mut self, activation: u64, pc: u32, name: &str, value: i64) {
        self.line(format_args!("local {activation} {pc} {name} {value}"));
    }

    /// An allocation; `program` says whether it was made by an allocating instruction reached
    /// through calls (`alloc`) or by the VM (`vm`).
    pub fn allocation(
        &mut self,
        program: bool,
        thread: u32,
        type_name: &str,
        bytes: i64,
        chain: &[FrameToken],
    ) {
        let tag = if program { "alloc" } else { "vm" };
        let mut text = format!("{tag} {thread} {type_name} {bytes}");
        for frame in chain {
            let line = frame.line.map_or_else(|| "-".to_owned(), |l| l.to_string());
            // Writing to a String cannot fail.
            let _ = write!(
                text,
                " {}:{}:{}:{line}",
                frame.activation, frame.method, frame.offset
            );
        }
        self.line(format_args!("{text}"));
    }

    /// The program allocations (by number, from 1 in the order of the `alloc` lines) that the
    /// heap still reaches as `activation` returns, each with what held it.
    pub fn reached(&mut self, thread: u32, activation: u64, objects: &[(u64, &str)]) {
        let mut text = format!("reached {thread} {activation}");
        for (number, holder) in objects {
            // Writing to a String cannot fail.
            let _ = write!(text, " {number}:{holder}");
        }
        self.line(format_args!("{text}"));
    }

    /// A note about something the agent could not do, for the reader to report.
    pub fn problem(&mut self, text: &str) {
        self.line(format_args!("problem {text}"));
    }

    /// The last line: the stream is complete; `errors` JVMTI calls or writes failed.
    pub fn finish(self, errors: u64) {
        self.file.finish(errors);
    }
}

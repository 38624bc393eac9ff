//! The snapshot file of heap mode: one line per record, space-separated fields. The format is
//! described (and read) in the `membound-heap` crate (`heap/src/agent_file.rs`); this module is
//! the only place that writes it.

use crate::log::LineFile;
use std::fmt::{self, Write as _};
use std::io;
use std::path::Path;

/// First line of every snapshot file; bumped when a line's meaning changes.
pub const HEADER: &str = "membound-heap 1";

/// The open snapshot file.
pub struct HeapLog {
    file: LineFile,
}

impl HeapLog {
    pub fn create(path: &Path) -> io::Result<HeapLog> {
        Ok(HeapLog {
            file: LineFile::create(path, HEADER)?,
        })
    }

    fn line(&mut self, text: fmt::Arguments) {
        self.file.line(text);
    }

    pub fn label(&mut self, id: u32, name: &str) {
        self.line(format_args!("label {id} {name}"));
    }

    /// A class with its instance reference fields (label ids).
    pub fn class(&mut self, id: u32, is_array: bool, name: &str, references: &[u32]) {
        let mut text = format!("class {id} {} {name}", u8::from(is_array));
        for label in references {
            // Writing to a String cannot fail.
            let _ = write!(text, " {label}");
        }
        self.line(format_args!("{text}"));
    }

    pub fn site(&mut self, id: u32, offset: i64, line: Option<i32>, method: &str) {
        let line = line.map_or_else(|| "-".to_owned(), |l| l.to_string());
        self.line(format_args!("site {id} {offset} {line} {method}"));
    }

    pub fn snapshot(&mut self, moment: &str) {
        self.line(format_args!("snapshot {moment}"));
    }

    pub fn object(
        &mut self,
        identity: u64,
        class: u32,
        bytes: i64,
        site: Option<u32>,
        length: Option<i32>,
    ) {
        let site = site.map_or_else(|| "-".to_owned(), |s| s.to_string());
        let length = length.map_or_else(|| "-".to_owned(), |l| l.to_string());
        self.line(format_args!("o {identity} {class} {bytes} {site} {length}"));
    }

    pub fn field(&mut self, from: u64, to: u64, label: u32) {
        self.line(format_args!("r {from} {to} {label}"));
    }

    pub fn element(&mut self, from: u64, to: u64, index: i32) {
        self.line(format_args!("e {from} {to} {index}"));
    }

    /// A root; an empty holder is written `-`.
    pub fn root(&mut self, kind: &str, to: u64, holder: &str) {
        let holder = if holder.is_empty() { "-" } else { holder };
        self.line(format_args!("root {kind} {to} {holder}"));
    }

    pub fn end_snapshot(&mut self) {
        self.line(format_args!("end-snapshot"));
        self.file.flush();
    }

    pub fn problem(&mut self, text: &str) {
        self.line(format_args!("problem {text}"));
    }

    /// The last line: the file is complete; `errors` JVMTI calls or writes failed.
    pub fn finish(self, errors: u64) {
        self.file.finish(errors);
    }
}

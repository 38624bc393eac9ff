//! Helpers of the front-end tests: compiling Java with `javac` into a fresh directory, lifting
//! and printing one method, and assembling class files byte by byte for what javac no longer
//! emits (`jsr`/`ret`, hand-picked malformed input).

#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};
use std::process::Command;

use membound_front::classpath::Classpath;
use membound_front::ir::{lift_method, print_body};
use membound_jvm::ClassName;

/// A small deterministic generator (xorshift), so failures reproduce.
pub struct Random(pub u64);

impl Random {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn bytes(&mut self, length: usize) -> Vec<u8> {
        (0..length).map(|_| self.next() as u8).collect()
    }
}

/// A fresh, empty directory for one test.
pub fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("membound-frontend-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Compiles Java sources (file name, text) with `javac -g` and the given options; returns the
/// directory of class files.
pub fn javac(test: &str, options: &[&str], sources: &[(&str, &str)]) -> PathBuf {
    let dir = temp_dir(test);
    let src = dir.join("src");
    let out = dir.join("classes");
    std::fs::create_dir_all(&src).expect("create src dir");
    let mut command = Command::new("javac");
    command
        .arg("-g")
        .arg("-nowarn")
        .arg("-d")
        .arg(&out)
        .args(options);
    for (name, text) in sources {
        let path = src.join(name);
        std::fs::write(&path, text).expect("write source");
        command.arg(path);
    }
    let output = command.output().expect("run javac (is a JDK on PATH?)");
    assert!(
        output.status.success(),
        "javac failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    out
}

/// The printed IR of method `method` (by name; the only one of that name) of `class` found
/// on `classpath`.
pub fn lifted(classpath: &Path, class: &str, method: &str) -> String {
    let classpath = Classpath::from_spec(&classpath.display().to_string()).expect("classpath");
    let class = classpath.load(&ClassName::new(class)).expect("load class");
    let mut methods = class.methods.iter().filter(|m| &*m.name == method);
    let found = methods.next().expect("method exists");
    assert!(methods.next().is_none(), "several methods named {method}");
    print_body(&lift_method(&class, found).expect("lift"))
}

/// A minimal class-file assembler: one class, its constant pool, and static methods with
/// given bytecode.
pub struct ClassFile {
    pub major: u16,
    pool: Vec<Vec<u8>>,
    methods: Vec<Vec<u8>>,
    this_class: u16,
    super_class: u16,
}

/// A hand-written method: bytecode and limits.
pub struct RawMethod<'a> {
    pub name: &'a str,
    pub descriptor: &'a str,
    pub max_stack: u16,
    pub max_locals: u16,
    pub code: &'a [u8],
    /// (start, end, handler, catch type class index or 0)
    pub exceptions: &'a [(u16, u16, u16, u16)],
}

impl ClassFile {
    pub fn new(name: &str, major: u16) -> Self {
        let mut class = ClassFile {
            major,
            pool: Vec::new(),
            methods: Vec::new(),
            this_class: 0,
            super_class: 0,
        };
        class.this_class = class.class(name);
        class.super_class = class.class("java/lang/Object");
        class
    }

    /// Adds a constant-pool entry; its index.
    fn constant(&mut self, bytes: Vec<u8>) -> u16 {
        self.pool.push(bytes);
        self.pool.len() as u16
    }

    pub fn utf8(&mut self, text: &str) -> u16 {
        let mut bytes = vec![1];
        bytes.extend((text.len() as u16).to_be_bytes());
        bytes.extend(text.as_bytes());
        self.constant(bytes)
    }

    pub fn class(&mut self, name: &str) -> u16 {
        let name = self.utf8(name);
        let mut bytes = vec![7];
        bytes.extend(name.to_be_bytes());
        self.constant(bytes)
    }

    pub fn method(&mut self, method: RawMethod<'_>) {
        let name = self.utf8(method.name);
        let descriptor = self.utf8(method.descriptor);
        let code_name = self.utf8("Code");
        let mut code = Vec::new();
        code.extend(method.max_stack.to_be_bytes());
        code.extend(method.max_locals.to_be_bytes());
        code.extend((method.code.len() as u32).to_be_bytes());
        code.extend(method.code);
        code.extend((method.exceptions.len() as u16).to_be_bytes());
        for (start, end, handler, catch) in method.exceptions {
            for value in [start, end, handler, catch] {
                code.extend(value.to_be_bytes());
            }
        }
        code.extend(0u16.to_be_bytes()); // no attributes
        let mut bytes = Vec::new();
        bytes.extend(0x0009u16.to_be_bytes()); // public static
        bytes.extend(name.to_be_bytes());
        bytes.extend(descriptor.to_be_bytes());
        bytes.extend(1u16.to_be_bytes());
        bytes.extend(code_name.to_be_bytes());
        bytes.extend((code.len() as u32).to_be_bytes());
        bytes.extend(code);
        self.methods.push(bytes);
    }

    pub fn bytes(&self) -> Vec<u8> {
        let mut out = vec![0xCA, 0xFE, 0xBA, 0xBE, 0, 0];
        out.extend(self.major.to_be_bytes());
        out.extend((self.pool.len() as u16 + 1).to_be_bytes());
        for entry in &self.pool {
            out.extend(entry);
        }
        out.extend(0x0021u16.to_be_bytes()); // public super
        out.extend(self.this_class.to_be_bytes());
        out.extend(self.super_class.to_be_bytes());
        out.extend(0u16.to_be_bytes()); // interfaces
        out.extend(0u16.to_be_bytes()); // fields
        out.extend((self.methods.len() as u16).to_be_bytes());
        for method in &self.methods {
            out.extend(method);
        }
        out.extend(0u16.to_be_bytes()); // attributes
        out
    }
}

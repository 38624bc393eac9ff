//! Fuzzes the lifter with bytecode inside a well-formed class: the input chooses the limits,
//! the exception table, the debug tables and the code of one method, whose constant pool has
//! entries of every kind the instructions use (fields, methods, classes, arrays, constants, an
//! `invokedynamic` with its bootstrap method). Lifting and printing must never panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use membound_front::classfile::Class;
use membound_front::ir::{lift_method, print_body};

fuzz_target!(|data: &[u8]| {
    let Some(bytes) = class_around(data) else {
        return;
    };
    let Ok(class) = Class::parse(&bytes) else {
        return;
    };
    for method in &class.methods {
        if let Ok(body) = lift_method(&class, method) {
            let _ = print_body(&body);
        }
    }
});

/// Reads the input front to back.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> Option<u8> {
        let (first, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(*first)
    }

    fn take(&mut self, n: usize) -> Option<Vec<u8>> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head.to_vec())
    }
}

fn utf8(text: &str) -> Vec<u8> {
    let mut bytes = vec![1];
    bytes.extend((text.len() as u16).to_be_bytes());
    bytes.extend(text.as_bytes());
    bytes
}

fn pair(tag: u8, a: u16, b: u16) -> Vec<u8> {
    let mut bytes = vec![tag];
    bytes.extend(a.to_be_bytes());
    bytes.extend(b.to_be_bytes());
    bytes
}

fn single(tag: u8, a: u16) -> Vec<u8> {
    let mut bytes = vec![tag];
    bytes.extend(a.to_be_bytes());
    bytes
}

/// The constant pool, in index order (`long` and `double` take two indices).
fn pool() -> Vec<Vec<u8>> {
    vec![
        utf8("Fuzz"),                                    // 1
        single(7, 1),                                    // 2 class Fuzz
        utf8("java/lang/Object"),                        // 3
        single(7, 3),                                    // 4 class Object
        utf8("f"),                                       // 5
        utf8("I"),                                       // 6
        pair(12, 5, 6),                                  // 7
        pair(9, 2, 7),                                   // 8 field int f
        utf8("g"),                                       // 9
        utf8("J"),                                       // 10
        pair(12, 9, 10),                                 // 11
        pair(9, 2, 11),                                  // 12 field long g
        utf8("m"),                                       // 13
        utf8("(IJLjava/lang/Object;)Ljava/lang/Object;"), // 14
        pair(12, 13, 14),                                // 15
        pair(10, 2, 15),                                 // 16 method m
        pair(11, 4, 15),                                 // 17 interface method
        single(8, 1),                                    // 18 string
        [vec![3], 42i32.to_be_bytes().to_vec()].concat(), // 19 int
        [vec![5], 7i64.to_be_bytes().to_vec()].concat(), // 20-21 long
        [vec![6], 1.5f64.to_be_bytes().to_vec()].concat(), // 22-23 double
        [vec![4], 2.5f32.to_be_bytes().to_vec()].concat(), // 24 float
        utf8("Code"),                                    // 25
        utf8("[I"),                                      // 26
        single(7, 26),                                   // 27 class int[]
        utf8("[[Ljava/lang/Object;"),                    // 28
        single(7, 28),                                   // 29 class Object[][]
        utf8("java/lang/invoke/StringConcatFactory"),    // 30
        single(7, 30),                                   // 31
        utf8("makeConcatWithConstants"),                 // 32
        utf8("(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;Ljava/lang/String;[Ljava/lang/Object;)Ljava/lang/invoke/CallSite;"), // 33
        pair(12, 32, 33),                                // 34
        pair(10, 31, 34),                                // 35
        [vec![15, 6], 35u16.to_be_bytes().to_vec()].concat(), // 36 method handle
        utf8("concat"),                                  // 37
        utf8("(ILjava/lang/Object;)Ljava/lang/String;"), // 38
        pair(12, 37, 38),                                // 39
        pair(18, 0, 39),                                 // 40 invokedynamic
        utf8("BootstrapMethods"),                        // 41
        utf8("\u{1}x\u{1}"),                             // 42
        single(8, 42),                                   // 43 recipe
        utf8("LineNumberTable"),                         // 44
        utf8("LocalVariableTable"),                      // 45
        utf8("Ljava/lang/Object;"),                      // 46
        single(16, 14),                                  // 47 method type
    ]
}

/// A class file with one method whose code and tables come from the input.
fn class_around(data: &[u8]) -> Option<Vec<u8>> {
    let mut input = Input(data);
    let flags = input.byte()?;
    let max_stack = input.byte()?;
    let max_locals = input.byte()?;
    let handlers = input.byte()? % 4;
    let handler_bytes = input.take(usize::from(handlers) * 8)?;
    let lines = input.byte()? % 4;
    let line_bytes = input.take(usize::from(lines) * 4)?;
    let locals = input.byte()? % 4;
    let local_bytes = input.take(usize::from(locals) * 10)?;
    let code = input.0;
    if code.is_empty() {
        return None;
    }

    let mut attributes = Vec::new();
    let mut attribute = |name: u16, body: Vec<u8>| {
        attributes.extend(name.to_be_bytes());
        attributes.extend((body.len() as u32).to_be_bytes());
        attributes.extend(body);
    };
    attribute(44, [u16::from(lines).to_be_bytes().to_vec(), line_bytes].concat());
    attribute(45, [u16::from(locals).to_be_bytes().to_vec(), local_bytes].concat());
    let code_attribute = [
        u16::from(max_stack).to_be_bytes().to_vec(),
        u16::from(max_locals).to_be_bytes().to_vec(),
        (code.len() as u32).to_be_bytes().to_vec(),
        code.to_vec(),
        u16::from(handlers).to_be_bytes().to_vec(),
        handler_bytes,
        2u16.to_be_bytes().to_vec(),
        attributes,
    ]
    .concat();

    let pool = pool();
    let mut out = vec![0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, if flags & 2 == 0 { 52 } else { 49 }];
    // Two pool slots are taken by each of the long and the double.
    out.extend((pool.len() as u16 + 3).to_be_bytes());
    for entry in &pool {
        out.extend(entry);
    }
    out.extend(0x0021u16.to_be_bytes());
    out.extend(2u16.to_be_bytes());
    out.extend(4u16.to_be_bytes());
    out.extend(0u16.to_be_bytes()); // interfaces
    out.extend(0u16.to_be_bytes()); // fields
    out.extend(1u16.to_be_bytes()); // methods
    let access: u16 = if flags & 1 == 0 { 0x0001 } else { 0x0009 };
    out.extend(access.to_be_bytes());
    out.extend(13u16.to_be_bytes());
    out.extend(14u16.to_be_bytes());
    out.extend(1u16.to_be_bytes());
    out.extend(25u16.to_be_bytes());
    out.extend((code_attribute.len() as u32).to_be_bytes());
    out.extend(code_attribute);
    // BootstrapMethods: one entry, handle 36 with the recipe 43.
    out.extend(1u16.to_be_bytes());
    out.extend(41u16.to_be_bytes());
    let bootstrap = [1u16, 36, 1, 43];
    out.extend(((bootstrap.len() * 2) as u32).to_be_bytes());
    for value in bootstrap {
        out.extend(value.to_be_bytes());
    }
    Some(out)
}

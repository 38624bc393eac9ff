//! Fuzzes the front end: any bytes parsed as a class file, and every method of a class that
//! parses lifted to IR and printed, must give a value or an error, never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use membound_front::classfile::Class;
use membound_front::ir::{lift_method, print_body};

fuzz_target!(|data: &[u8]| {
    let Ok(class) = Class::parse(data) else {
        return;
    };
    for method in &class.methods {
        if let Ok(body) = lift_method(&class, method) {
            let _ = print_body(&body);
        }
    }
});

//! Fuzzes the spec reader: any text read as a spec file is specs or an error, never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use membound_front::specs::{SpecSource, Specs};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = Specs::none().add_yaml(&text, SpecSource::File("fuzz.yaml".to_string()));
});

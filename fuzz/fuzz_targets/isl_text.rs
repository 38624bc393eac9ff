//! Fuzzes the isl readers and what `membound count` and `membound bound` do with what they
//! read: any text is a set or piecewise polynomial or an error, counted or bounded within the
//! budgets, never a panic or a hang.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(set) = membound_polyhedra::parse_set(&text) {
        let _ = membound_polyhedra::count(&set);
    }
    if let Ok(bound) = membound_bernstein::bound_text(&text) {
        let _ = membound_bernstein::parse_bound(&bound.to_text());
    }
});

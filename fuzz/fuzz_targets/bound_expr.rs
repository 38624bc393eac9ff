//! Fuzzes the bound-expression text form: any text is an expression or an error; one that
//! reads is printed back the same, evaluated at a point (a value or a size error), simplified
//! to the same value and compiled to Java, never a panic or a hang.

#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use membound_bernstein::{Guard, parse_bound, simplify, to_java};
use membound_polyhedra::Rat;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(expr) = parse_bound(&text) else { return };
    let printed = expr.to_text();
    assert!(parse_bound(&printed).is_ok(), "{printed}");
    let _ = expr.to_readable();
    let point: BTreeMap<String, Rat> = expr
        .params()
        .into_iter()
        .enumerate()
        .map(|(k, name)| (name, Rat::from(k as i64 * 3 - 2)))
        .collect();
    let value = expr.eval(&point);
    if let Ok(value) = &value {
        let simplified = simplify(&expr, &Guard::always());
        if let Ok(again) = simplified.eval(&point) {
            assert_eq!(&again, value, "{printed}");
        }
    }
    let _ = to_java(&expr, "Fuzz", "bound");
});

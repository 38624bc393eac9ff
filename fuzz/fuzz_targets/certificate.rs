//! Fuzzes certificate reading and what `eval`, `check`, `diff` and `codegen` do with a
//! certificate that reads: never a panic or a hang.

#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use membound_certificate::budget::{Budget, Range, Scope, check};
use membound_certificate::{Certificate, JavaOptions, diff, evaluate, to_java};
use membound_polyhedra::Rat;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(certificate) = Certificate::parse(&text) else {
        return;
    };
    let Some(entry) = certificate.methods.first() else {
        return;
    };
    let point: BTreeMap<String, Rat> = entry
        .params
        .iter()
        .map(|p| (p.name.clone(), Rat::from(5)))
        .collect();
    let _ = evaluate(&certificate, Some(&entry.method), &point);
    if let Ok(budget) = Budget::parse("memAlloc <= 1 MiB") {
        let _ = check(&certificate, &entry.method, &budget, &Scope::At(point.clone()));
        let range = entry
            .params
            .iter()
            .map(|p| format!("0 <= {} <= 20", p.name))
            .collect::<Vec<_>>()
            .join(" and ");
        let _ = check(&certificate, &entry.method, &budget, &Scope::Over(Range { text: range }));
    }
    let _ = diff::diff(&certificate, &certificate, &[point]);
    let options = JavaOptions {
        class_name: "Bounds".to_string(),
        package: None,
    };
    let _ = to_java(&certificate, &options);
});

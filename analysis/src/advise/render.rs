//! The advice as text, JSON and SARIF: amounts as bound expressions, or as numbers at `--at`.

use std::collections::BTreeMap;

use membound_certificate::{sarif_location, value_json, value_text};
use membound_polyhedra::Rat;
use serde_json::{Value as Json, json};

use super::{Advice, Report, value};
use crate::memalloc::{Amount, Quantity};
use membound_jvm::error::Result;

/// The SARIF rule of an advice.
const RULE: &str = "null-out";

/// One quantity for people: its expression, or its value at `at`.
fn text(quantity: &Quantity, at: Option<&BTreeMap<String, Rat>>) -> Result<String> {
    Ok(match at {
        Some(point) => value_text(&value(quantity, point)?),
        None => quantity.to_string(),
    })
}

fn amount_text(amount: &Amount, at: Option<&BTreeMap<String, Rat>>) -> Result<String> {
    Ok(format!(
        "{} objects, {} bytes",
        text(&amount.objects, at)?,
        text(&amount.bytes, at)?
    ))
}

fn amount_json(amount: &Amount, at: Option<&BTreeMap<String, Rat>>) -> Result<Json> {
    let one = |quantity: &Quantity| -> Result<Json> {
        Ok(match at {
            Some(point) => value_json(&value(quantity, point)?),
            None => json!(quantity.to_string()),
        })
    };
    Ok(json!({"objects": one(&amount.objects)?, "bytes": one(&amount.bytes)?}))
}

/// The advice, best first, one paragraph each.
pub fn to_text(report: &Report, at: Option<&BTreeMap<String, Rat>>) -> Result<String> {
    let mut out = format!(
        "{}\n  memRq: {}\n  peak under GC without advice: {}\n",
        report.method,
        amount_text(&report.mem_rq_before, at)?,
        amount_text(&report.gc_peak_before, at)?
    );
    for note in &report.notes {
        out.push_str(&format!("  note: {note}\n"));
    }
    if report.advice.is_empty() && report.notes.is_empty() {
        out.push_str("  no advice: clearing no reference lowers the peak\n");
    }
    for (rank, advice) in report.advice.iter().enumerate() {
        out.push_str(&format!(
            "{}. line {}: `{} = null;` before the line\n     frees {}\n     memRq {} -> {}\n",
            rank + 1,
            advice.line,
            advice.target,
            amount_text(&advice.frees, at)?,
            text(&report.mem_rq_before.bytes, at)?,
            text(&advice.mem_rq_after.bytes, at)?,
        ));
    }
    Ok(out)
}

fn advice_json(
    report: &Report,
    advice: &Advice,
    at: Option<&BTreeMap<String, Rat>>,
) -> Result<Json> {
    Ok(json!({
        "method": report.method.to_string(),
        "line": advice.line,
        "action": RULE,
        "target": advice.target,
        "frees": amount_json(&advice.frees, at)?,
        "mem_rq_before": amount_json(&report.mem_rq_before, at)?,
        "mem_rq_after": amount_json(&advice.mem_rq_after, at)?,
    }))
}

/// `{method, gc_peak_before, advice: [...], notes}`.
pub fn to_json(report: &Report, at: Option<&BTreeMap<String, Rat>>) -> Result<Json> {
    let advice = report
        .advice
        .iter()
        .map(|advice| advice_json(report, advice, at))
        .collect::<Result<Vec<_>>>()?;
    Ok(json!({
        "method": report.method.to_string(),
        "gc_peak_before": amount_json(&report.gc_peak_before, at)?,
        "advice": advice,
        "notes": report.notes,
    }))
}

/// A SARIF 2.1.0 log with one note per advice, the saving in its message. `source_file` gives
/// a class's `SourceFile` attribute from its dotted name.
pub fn to_sarif(
    report: &Report,
    at: Option<&BTreeMap<String, Rat>>,
    source_file: &dyn Fn(&str) -> Option<String>,
) -> Result<Json> {
    let method = report.method.to_string();
    let results = report
        .advice
        .iter()
        .map(|advice| {
            Ok(json!({
                "ruleId": RULE,
                "ruleIndex": 0,
                "level": "note",
                "message": {"text": format!(
                    "`{} = null;` before this line frees {}: memRq {} -> {} bytes",
                    advice.target,
                    amount_text(&advice.frees, at)?,
                    text(&report.mem_rq_before.bytes, at)?,
                    text(&advice.mem_rq_after.bytes, at)?,
                )},
                "locations": [sarif_location(source_file, &method, Some(advice.line))],
            }))
        })
        .collect::<Result<Vec<Json>>>()?;
    Ok(json!({
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/schemas/sarif-schema-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "membound",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": [{
                    "id": RULE,
                    "shortDescription": {"text": "a reference kept after its last use holds memory"},
                    "fullDescription": {"text": "Clearing the reference after its last use lets the garbage collector free what only it keeps, before a later allocation: the method's peak is lower."},
                    "defaultConfiguration": {"level": "note"},
                }],
            }},
            "results": results,
        }],
    }))
}

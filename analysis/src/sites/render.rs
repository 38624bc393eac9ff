//! Renderings of creation sites: a call tree whose shared prefixes are printed once, and JSON.

use std::fmt::Write;

use serde_json::{Value, json};

use super::{Allocation, AllocationKind, ChainElement, CreationSite, Sites};
use membound_jvm::Type;

/// The sites as an indented call tree from the entry, then cycles, unknown methods and the
/// truncation note.
pub fn to_text(sites: &Sites) -> String {
    let mut out = format!(
        "{}: {} creation site{}\n",
        sites.entry,
        sites.sites.len(),
        if sites.sites.len() == 1 { "" } else { "s" }
    );
    let mut previous: &[ChainElement] = &[];
    for site in &sites.sites {
        let calls = &site.chain[..site.chain.len() - 1];
        let shared = previous
            .iter()
            .zip(calls)
            .take_while(|(a, b)| a == b)
            .count();
        for (depth, element) in calls.iter().enumerate().skip(shared) {
            let callee = &site.chain[depth + 1].method;
            let _ = writeln!(out, "{}{} {callee}", indent(depth), element.position());
        }
        let last = &site.chain[site.chain.len() - 1];
        let _ = writeln!(
            out,
            "{}{} {}",
            indent(calls.len()),
            last.position(),
            allocation_text(&site.allocation)
        );
        previous = calls;
    }
    for cycle in &sites.cycles {
        let names: Vec<String> = cycle.iter().map(ToString::to_string).collect();
        let _ = writeln!(out, "recursion (not followed): {}", names.join(" -> "));
    }
    for (method, why) in &sites.unknown {
        let _ = writeln!(out, "unknown allocations: {method}: {why}");
    }
    if let Some(limit) = sites.truncated_at {
        let _ = writeln!(
            out,
            "stopped after {limit} chains (the enumeration's budget): raise --budget-chains to see more"
        );
    }
    out
}

/// The sites as JSON: `{"entry", "sites": [{"chain", "type", "kind", "dims"}], "cycles",
/// "unknown", "truncated_at"}`.
pub fn to_json(sites: &Sites) -> Value {
    let list: Vec<Value> = sites.sites.iter().map(site_json).collect();
    let cycles: Vec<Vec<String>> = sites
        .cycles
        .iter()
        .map(|cycle| cycle.iter().map(ToString::to_string).collect())
        .collect();
    let unknown: Vec<Value> = sites
        .unknown
        .iter()
        .map(|(method, why)| json!({"method": method.to_string(), "reason": why}))
        .collect();
    json!({
        "entry": sites.entry.to_string(),
        "sites": list,
        "cycles": cycles,
        "unknown": unknown,
        "truncated_at": sites.truncated_at,
    })
}

fn site_json(site: &CreationSite) -> Value {
    let chain: Vec<Value> = site
        .chain
        .iter()
        .map(|element| {
            json!({
                "method": element.method.to_string(),
                "offset": element.pc,
                "line": element.line,
            })
        })
        .collect();
    json!({
        "chain": chain,
        "type": site.allocation.ty.to_string(),
        "kind": kind_name(&site.allocation.kind),
        "dims": site.allocation.dims,
    })
}

fn kind_name(kind: &AllocationKind) -> &'static str {
    match kind {
        AllocationKind::Object => "object",
        AllocationKind::Array => "array",
        AllocationKind::StringConcat(_) => "string-concat",
        AllocationKind::Format(_) => "format",
        AllocationKind::FormatLocaleData => "format-locale-data",
        AllocationKind::ConstructorReference => "constructor-reference",
        AllocationKind::CapturingLambda(_) => "capturing-lambda",
    }
}

/// `new thesis.A`, `new int[n][]`, `string concatenation`, `String.format`, `new C
/// (constructor reference)`, a capturing lambda's object.
fn allocation_text(allocation: &Allocation) -> String {
    match allocation.kind {
        AllocationKind::Format(_) => format!("String.format (new {})", allocation.ty),
        AllocationKind::FormatLocaleData => {
            format!(
                "String.format's first use of the locale's number data (new {}, …)",
                allocation.ty
            )
        }
        AllocationKind::Object => format!("new {}", allocation.ty),
        AllocationKind::Array => format!("new {}", array_text(&allocation.ty, &allocation.dims)),
        AllocationKind::StringConcat(_) => {
            "string concatenation (new java.lang.String)".to_string()
        }
        AllocationKind::ConstructorReference => {
            format!("new {} (constructor reference)", allocation.ty)
        }
        AllocationKind::CapturingLambda(_) => {
            format!(
                "a capturing lambda's {} (its class made at run time)",
                allocation.ty
            )
        }
    }
}

/// The array type with its given dimensions in brackets: `int[n][]` for `int[][]` and `[n]`.
fn array_text(ty: &Type, dims: &[String]) -> String {
    let mut base = ty;
    while let Some(element) = base.element() {
        base = element;
    }
    let given: String = dims.iter().map(|d| format!("[{d}]")).collect();
    let rest = "[]".repeat(ty.rank().saturating_sub(dims.len()));
    format!("{base}{given}{rest}")
}

fn indent(depth: usize) -> String {
    "  ".repeat(depth + 1)
}

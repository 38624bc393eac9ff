//! The readable summary `membound analyze` prints: the call tree with memAlloc per method, then
//! per method its region quantities (memCaptured, memEscapes, memRq) and its own sites with
//! their count and region.

use std::fmt::Write;

use super::{Bounds, MethodBound, Quantity};
use membound_certificate::diff::growth_text;
use membound_jvm::MethodRef;

/// The summary of `bounds` (see the module documentation).
pub fn to_text(bounds: &Bounds) -> String {
    let mut out = String::new();
    let Some(entry) = bounds.methods.first() else {
        return out;
    };
    let model = match bounds.model {
        membound_front::sizes::ObjectModel::Count => {
            "count: \"bytes\" are the thesis's units, 1 per object and 1 per array cell".to_string()
        }
        other => other.name().to_string(),
    };
    let _ = writeln!(out, "memAlloc of {} (object model {model})", entry.method);
    let _ = writeln!(out, "{}", leading_terms(entry));
    if let Some(regions) = &entry.regions {
        let _ = writeln!(
            out,
            "memRq: {} objects, {} bytes",
            readable(&regions.mem_rq.objects),
            readable(&regions.mem_rq.bytes)
        );
    }
    let _ = writeln!(out, "\ncall tree:");
    let mut walk = TreeWalk::default();
    tree(&mut out, bounds, &entry.method, None, &mut walk);
    for method in &bounds.methods {
        method_details(&mut out, method);
    }
    let _ = writeln!(out, "\nassumptions:");
    for assumption in &bounds.assumptions {
        let _ = writeln!(out, "  - {assumption}");
    }
    out
}

/// `leading terms: memAlloc ~ 1/2*k^2 objects, ~ 8*k^2 bytes; memRq ~ 2*k objects, ~ 32*k bytes`:
/// how the entry's bounds grow with its parameters.
fn leading_terms(entry: &MethodBound) -> String {
    let about = |quantity: &Quantity| match growth_text(quantity) {
        infinite if infinite == "∞" => infinite,
        finite => format!("~ {finite}"),
    };
    let growth = |amount: &super::Amount| {
        format!(
            "{} objects, {} bytes",
            about(&amount.objects),
            about(&amount.bytes)
        )
    };
    let mut line = format!("leading terms: memAlloc {}", growth(&entry.mem_alloc));
    if let Some(regions) = &entry.regions {
        let _ = write!(line, "; memRq {}", growth(&regions.mem_rq));
    }
    line
}

/// Where the call tree's walk is: the methods from the entry to the current one, and those
/// whose calls are already shown.
#[derive(Default)]
struct TreeWalk {
    path: Vec<MethodRef>,
    expanded: std::collections::HashSet<MethodRef>,
}

/// One line per method of the call tree (the methods its sites' chains go through), children
/// indented under their caller (the last of the path); a method already on the path is not
/// expanded again, and one met again elsewhere is listed without its calls, shown at its first
/// appearance (expanding a shared callee under every caller grows exponentially with depth).
/// A method's bound is in its own parameters: where its caller's call makes it ∞, its line
/// says so.
fn tree(
    out: &mut String,
    bounds: &Bounds,
    method: &MethodRef,
    caller: Option<&MethodBound>,
    walk: &mut TreeWalk,
) {
    let Some(bound) = bounds.methods.iter().find(|m| &m.method == method) else {
        return;
    };
    let _ = write!(
        out,
        "{}{}: {} objects, {} bytes",
        "  ".repeat(walk.path.len() + 1),
        method,
        readable(&bound.mem_alloc.objects),
        readable(&bound.mem_alloc.bytes)
    );
    let infinite_here =
        bound.mem_alloc.objects.may_be_infinite() || bound.mem_alloc.bytes.may_be_infinite();
    if let Some(caller) = caller.filter(|_| !infinite_here) {
        for reason in infinite_calls(caller, method) {
            let _ = write!(out, "; ∞ through this call: {reason}");
        }
    }
    let mut callees: Vec<&MethodRef> = Vec::new();
    for next in &bounds.callees[..] {
        if next.0 == *method && !callees.contains(&&next.1) && !walk.path.contains(&next.1) {
            callees.push(&next.1);
        }
    }
    if !callees.is_empty() && !walk.expanded.insert(method.clone()) {
        out.push_str(" (its calls as above)\n");
        return;
    }
    out.push('\n');
    walk.path.push(method.clone());
    for callee in callees {
        tree(out, bounds, callee, Some(bound), walk);
    }
    walk.path.pop();
}

/// Why `caller`'s calls to `callee` are ∞ although `callee`'s own bound is finite: the reasons
/// of the caller's ∞ sites that name a call to it (as the summaries write them), each once,
/// with what removes it.
fn infinite_calls(caller: &MethodBound, callee: &MethodRef) -> Vec<String> {
    let call = format!(" to {callee}: ");
    let mut reasons: Vec<String> = Vec::new();
    let unbounded = caller.sites.iter().filter(|s| {
        s.via.is_some() && (s.amount.objects.may_be_infinite() || s.amount.bytes.may_be_infinite())
    });
    for reason in unbounded.flat_map(|site| &site.reasons) {
        let reason = with_remedy(reason);
        if reason.contains(&call) && !reasons.contains(&reason) {
            reasons.push(reason);
        }
    }
    reasons
}

fn method_details(out: &mut String, method: &MethodBound) {
    let _ = writeln!(out, "\n{}", method.method);
    if !method.params.is_empty() {
        let params: Vec<String> = method
            .params
            .iter()
            .map(|p| format!("{} = {}", p.name, p.origin))
            .collect();
        let _ = writeln!(out, "  parameters: {}", params.join("; "));
    }
    let _ = writeln!(
        out,
        "  memAlloc objects: {}",
        readable(&method.mem_alloc.objects)
    );
    let _ = writeln!(
        out,
        "  memAlloc bytes:   {}",
        readable(&method.mem_alloc.bytes)
    );
    for reason in &method.unbounded {
        let _ = writeln!(out, "  ∞: {}", with_remedy(reason));
    }
    if let Some(regions) = &method.regions {
        let quantities = [
            ("memCaptured", &regions.mem_captured),
            ("memEscapes", &regions.mem_escapes),
            ("memRq", &regions.mem_rq),
        ];
        for (name, amount) in quantities {
            let _ = writeln!(
                out,
                "  {name}: {} objects, {} bytes",
                readable(&amount.objects),
                readable(&amount.bytes)
            );
        }
        for reason in &regions.reasons {
            let _ = writeln!(out, "  ∞ (regions): {reason}");
        }
    }
    for site in method.sites.iter().filter(|s| s.via.is_none()) {
        let _ = writeln!(out, "  {}", site_line(&method.method, site));
    }
    let through_calls = method.sites.iter().filter(|s| s.via.is_some()).count();
    if through_calls > 0 {
        let _ = writeln!(out, "  (+ {through_calls} sites in callees)");
    }
    for cause in infinite_through_calls(method) {
        let _ = writeln!(out, "  ∞ through a call: {cause}");
    }
}

/// Why the sites a method reaches through its calls are ∞, each reason once, with what removes
/// it.
fn infinite_through_calls(method: &MethodBound) -> Vec<String> {
    let mut causes: Vec<String> = Vec::new();
    let unbounded = method.sites.iter().filter(|s| {
        s.via.is_some() && (s.amount.objects.may_be_infinite() || s.amount.bytes.may_be_infinite())
    });
    for site in unbounded {
        let reasons: Vec<String> = if site.reasons.is_empty() {
            vec![format!("new {} (no reason recorded)", site.ty)]
        } else {
            site.reasons.iter().map(|r| with_remedy(r)).collect()
        };
        for reason in reasons {
            if !causes.contains(&reason) {
                causes.push(reason);
            }
        }
    }
    causes
}

/// A reason with what the user can do about it.
fn with_remedy(reason: &str) -> String {
    let remedy = if reason.starts_with("recursion through") {
        "; a --spec for the recursive method states its allocation instead (docs/specs.md)"
    } else if reason.contains("the values the call passes") {
        "; the callee's own certificate (--method on it) bounds it in its parameters"
    } else if reason.contains("native") || reason.contains("not on the classpath") {
        "; a --spec or --classpath entry for that code removes it"
    } else {
        ""
    };
    format!("{reason}{remedy}")
}

fn site_line(method: &MethodRef, site: &super::SiteBound) -> String {
    let location = site.at.position();
    let mut line = format!(
        "{location} new {}: runs {}, {} objects, {} bytes",
        site.ty,
        readable(&site.count),
        readable(&site.amount.objects),
        readable(&site.amount.bytes)
    );
    if let Some(residence) = site.residence {
        if residence.here {
            let _ = write!(line, "; region {method}");
        }
        if residence.callees {
            line.push_str("; regions of callees");
        }
        if residence.escapes {
            line.push_str("; escapes");
        }
    }
    for reason in &site.reasons {
        let _ = write!(line, " [∞: {reason}]");
    }
    line
}

fn readable(quantity: &Quantity) -> String {
    quantity.to_readable()
}

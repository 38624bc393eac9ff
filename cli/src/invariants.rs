//! `membound invariants`: per creation site of a method, its chain and the invariant whose
//! integer points are its executions, in isl syntax. The chains come from [`membound_analysis::sites`], the
//! invariants from [`membound_analysis::lowering`]; this module only renders them.

use std::fmt::Write;

use serde_json::{Value, json};

use super::{ListFormat, MethodInput, json_text};
use membound_analysis::lowering;
use membound_analysis::sites::{self, CreationSite};
use membound_jvm::error::Result;

/// Runs the command and returns what it prints.
pub(super) fn invariants(
    target: &MethodInput,
    max_chains: usize,
    format: ListFormat,
) -> Result<String> {
    let (program, graph, found) = target.sites(max_chains)?;
    let local = sites::local_sites(&program, &graph)?;
    let lowered = lowering::lower(&program, &graph, &local, lowering::Exceptions::Followed)?;
    let invariants: Vec<Result<String>> = found
        .sites
        .iter()
        .map(|site| {
            lowered
                .site_invariant(site)
                .map(|i| i.executions_set().to_isl())
        })
        .collect();
    Ok(match format {
        ListFormat::Text => to_text(&found.sites, &invariants),
        ListFormat::Json => json_text(&to_json(&found, &invariants)),
    })
}

/// `{"sites": [{"chain", "type", "invariant"}]}`, the chain and type exactly as `membound sites`
/// prints them; a site without an invariant has `"invariant": null` and an `"error"`.
fn to_json(found: &sites::Sites, invariants: &[Result<String>]) -> Value {
    let listed = sites::to_json(found);
    let empty = Vec::new();
    let list: Vec<Value> = listed["sites"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .zip(invariants)
        .map(|(site, invariant)| {
            let mut entry = json!({"chain": site["chain"], "type": site["type"]});
            match invariant {
                Ok(set) => entry["invariant"] = json!(set),
                Err(error) => {
                    entry["invariant"] = Value::Null;
                    entry["error"] = json!(error.to_string());
                }
            }
            entry
        })
        .collect();
    json!({ "sites": list })
}

/// One paragraph per site: the chain (`method@offset` steps), the type, then the invariant.
fn to_text(sites: &[CreationSite], invariants: &[Result<String>]) -> String {
    let mut out = String::new();
    for (site, invariant) in sites.iter().zip(invariants) {
        let chain =
            membound_jvm::chain::join(site.chain.iter().map(|element| {
                membound_jvm::chain::step(&element.method, element.pc, element.line)
            }));
        let _ = writeln!(out, "{chain}: {}", site.allocation.ty);
        match invariant {
            Ok(set) => {
                let _ = writeln!(out, "  {set}");
            }
            Err(error) => {
                let _ = writeln!(out, "  no invariant: {error}");
            }
        }
    }
    out
}

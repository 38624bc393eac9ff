//! One certificate of several entry points (`analyze --entry-points`, `membound merge`): the
//! certificates of single entries, or of shards of them, joined. Joining is a function of the
//! set of entries' certificates, whatever their grouping: joining the shards' certificates
//! writes exactly what joining every entry's at once writes.
//!
//! - An entry point's own bounds are those of its own analysis.
//! - A method that is no entry point but lies in the call trees of several entries may have been
//!   bounded differently from each (each entry's call graph has its own classes): it is written
//!   once, with the largest of its bounds (`max(…)` of the different ones, per quantity and per
//!   site), or as ∞ when the entries gave it different parameters.
//! - Assumptions are the union of the entries', methods are sorted by name.

use std::collections::{BTreeMap, BTreeSet};

use membound_jvm::error::{Error, Result};

use crate::{AmountEntry, Certificate, Entry, FORMAT_VERSION, MethodEntry, Places, SiteEntry};

/// Why a method that is no entry point is ∞ in a joined certificate.
pub const DIFFERENT_PARAMETERS: &str = "the entry points that reach it give it different \
     parameters, so their bounds are not joined: analyze one of them alone (--method) for its bounds";

/// The certificate of every entry point of `parts` (each a certificate of one entry or of
/// several), as described in the module documentation. The parts must come from the same
/// membound, input and object model.
pub fn join(parts: &[Certificate]) -> Result<Certificate> {
    let first = parts
        .first()
        .ok_or_else(|| Error::Input("no certificate to join".to_string()))?;
    for part in parts {
        if part.tool != first.tool || part.input != first.input {
            return Err(Error::Input(format!(
                "certificates of different runs: {} of {} ({}, membound {}) and {} ({}, membound {})",
                first.input.path,
                first.input.sha256,
                first.tool.object_model,
                first.tool.version,
                part.input.sha256,
                part.tool.object_model,
                part.tool.version
            )));
        }
    }
    let own = own_bounds(parts)?;
    let mut others: BTreeMap<&str, Vec<&MethodEntry>> = BTreeMap::new();
    for part in parts {
        for method in &part.methods {
            if !own.contains_key(method.method.as_str()) {
                others.entry(&method.method).or_default().push(method);
            }
        }
    }
    let mut methods: Vec<MethodEntry> = own.values().map(|m| (*m).clone()).collect();
    methods.extend(others.into_values().map(|variants| largest(&variants)));
    methods.sort_by(|a, b| a.method.cmp(&b.method));
    let assumptions: BTreeSet<&String> = parts.iter().flat_map(|p| &p.assumptions).collect();
    let entries: Vec<String> = own.keys().map(|name| name.to_string()).collect();
    Ok(Certificate {
        membound: FORMAT_VERSION,
        tool: first.tool.clone(),
        input: first.input.clone(),
        entry: Entry {
            method: entries.first().cloned().unwrap_or_default(),
        },
        entries,
        assumptions: assumptions.into_iter().cloned().collect(),
        methods,
    })
}

/// The entry points of a certificate: its `entries`, or its one `entry`.
pub fn entry_points(certificate: &Certificate) -> Vec<&str> {
    if certificate.entries.is_empty() {
        vec![certificate.entry.method.as_str()]
    } else {
        certificate.entries.iter().map(String::as_str).collect()
    }
}

/// Every entry point of the parts with its own bounds; an entry two parts hold must have the
/// same bounds in both.
fn own_bounds(parts: &[Certificate]) -> Result<BTreeMap<&str, &MethodEntry>> {
    let mut own: BTreeMap<&str, &MethodEntry> = BTreeMap::new();
    for part in parts {
        for name in entry_points(part) {
            let bounds = part.method(name)?;
            match own.insert(name, bounds) {
                Some(earlier) if earlier != bounds => {
                    return Err(Error::Input(format!(
                        "entry point {name} has different bounds in two of the certificates"
                    )));
                }
                _ => {}
            }
        }
    }
    Ok(own)
}

/// One method's bounds from its variants: the largest of each quantity.
fn largest(variants: &[&MethodEntry]) -> MethodEntry {
    let mut distinct: Vec<&MethodEntry> = Vec::new();
    for variant in variants {
        if !distinct.contains(variant) {
            distinct.push(variant);
        }
    }
    if let [one] = distinct.as_slice() {
        return (*one).clone();
    }
    let first = distinct[0];
    let unjoinable = distinct
        .iter()
        .any(|m| m.params != first.params || m.unbounded.iter().any(|r| r == DIFFERENT_PARAMETERS));
    if unjoinable {
        return MethodEntry::unbounded(&first.method, DIFFERENT_PARAMETERS.to_string());
    }
    let amount = |get: fn(&MethodEntry) -> Option<&AmountEntry>| -> Option<AmountEntry> {
        let amounts: Option<Vec<&AmountEntry>> = distinct.iter().map(|m| get(m)).collect();
        amounts.map(|amounts| largest_amount(&amounts))
    };
    MethodEntry {
        method: first.method.clone(),
        params: first.params.clone(),
        mem_alloc: largest_amount(&distinct.iter().map(|m| &m.mem_alloc).collect::<Vec<_>>()),
        mem_captured: amount(|m| m.mem_captured.as_ref()),
        mem_escapes: amount(|m| m.mem_escapes.as_ref()),
        mem_rq: amount(|m| m.mem_rq.as_ref()),
        unbounded: union(distinct.iter().map(|m| &m.unbounded)),
        region_reasons: union(distinct.iter().map(|m| &m.region_reasons)),
        spec: distinct.iter().filter_map(|m| m.spec.clone()).min(),
        callees: union(distinct.iter().map(|m| &m.callees)),
        sites: largest_sites(&first.method, &distinct),
    }
}

fn largest_amount(amounts: &[&AmountEntry]) -> AmountEntry {
    AmountEntry {
        objects: largest_text(amounts.iter().map(|a| a.objects.as_str())),
        bytes: largest_text(amounts.iter().map(|a| a.bytes.as_str())),
    }
}

/// Per site (allocation, call, type), the largest of its variants' quantities; a site some
/// variants lack is bounded by the others'. Sites in the order of their keys.
fn largest_sites(method: &str, variants: &[&MethodEntry]) -> Vec<SiteEntry> {
    type Key = (String, u32, Option<(String, u32)>, String);
    let mut groups: BTreeMap<Key, Vec<&SiteEntry>> = BTreeMap::new();
    for site in variants.iter().flat_map(|m| &m.sites) {
        let key = (
            site.at.method.clone(),
            site.at.offset,
            site.via.as_ref().map(|v| (v.method.clone(), v.offset)),
            site.ty.clone(),
        );
        groups.entry(key).or_default().push(site);
    }
    groups
        .into_values()
        .map(|sites| {
            let first = sites[0];
            let places: Option<Vec<Places>> = sites.iter().map(|s| s.places(method)).collect();
            SiteEntry {
                at: first.at.clone(),
                via: first.via.clone(),
                ty: first.ty.clone(),
                count: largest_text(sites.iter().map(|s| s.count.as_str())),
                objects: largest_text(sites.iter().map(|s| s.objects.as_str())),
                bytes: largest_text(sites.iter().map(|s| s.bytes.as_str())),
                region: places.map(|places| {
                    places
                        .iter()
                        .fold(Places::default(), |all, p| Places {
                            here: all.here || p.here,
                            callees: all.callees || p.callees,
                            escapes: all.escapes || p.escapes,
                        })
                        .text(method)
                }),
                reasons: union(sites.iter().map(|s| &s.reasons)),
            }
        })
        .collect()
}

/// The largest of bound expressions: the one when they are all the same, else `max(…)` of
/// their items sorted (an item that is itself a `max(…)` gives its items), `infty` when one
/// is. The same whether the texts are joined at once or in groups.
fn largest_text<'t>(texts: impl Iterator<Item = &'t str>) -> String {
    let texts: Vec<&str> = texts.collect();
    if texts.iter().all(|t| *t == texts[0]) {
        return texts[0].to_string();
    }
    let items: BTreeSet<&str> = texts.iter().flat_map(|t| max_items(t)).collect();
    if items.contains("infty") {
        return "infty".to_string();
    }
    match items.len() {
        1 => items.into_iter().next().unwrap_or_default().to_string(),
        _ => format!("max({})", items.into_iter().collect::<Vec<_>>().join(", ")),
    }
}

/// The items of a text that is one `max(…)`, or the text itself.
fn max_items(text: &str) -> Vec<&str> {
    let Some(inner) = text.strip_prefix("max(").and_then(|t| t.strip_suffix(')')) else {
        return vec![text];
    };
    let mut items = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (at, c) in inner.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                // The `)` after `max(` closes before the end: the text is not one max.
                if depth < 0 {
                    return vec![text];
                }
            }
            ',' if depth == 0 => {
                items.push(inner[start..at].trim());
                start = at + 1;
            }
            _ => {}
        }
    }
    items.push(inner[start..].trim());
    items
}

/// The sorted union of string lists.
fn union<'a>(lists: impl Iterator<Item = &'a Vec<String>>) -> Vec<String> {
    let all: BTreeSet<&String> = lists.flatten().collect();
    all.into_iter().cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_text_is_the_same_joined_at_once_or_in_groups() {
        let at_once = largest_text(["(n)", "(2*n)", "(n)", "(m)"].into_iter());
        let left = largest_text(["(n)", "(2*n)"].into_iter());
        let right = largest_text(["(n)", "(m)"].into_iter());
        let grouped = largest_text([left.as_str(), right.as_str()].into_iter());
        assert_eq!(at_once, "max((2*n), (m), (n))");
        assert_eq!(grouped, at_once);
    }

    #[test]
    fn infinity_absorbs_and_equal_texts_stay_as_they_are() {
        assert_eq!(
            largest_text(["max(a, b)", "max(a, b)"].into_iter()),
            "max(a, b)"
        );
        assert_eq!(largest_text(["(n)", "infty"].into_iter()), "infty");
        assert_eq!(
            max_items("max(a, b) + max(c, d)"),
            vec!["max(a, b) + max(c, d)"]
        );
        assert_eq!(
            max_items("max(cases(n >= 1 -> (n); otherwise -> (0)), (1))").len(),
            2
        );
    }
}

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

use crate::{
    AmountEntry, Certificate, Entry, FORMAT_VERSION, Input, MethodEntry, Places, SiteEntry, Tool,
};

/// Why a method that is no entry point is ∞ in a joined certificate.
pub const DIFFERENT_PARAMETERS: &str = "the entry points that reach it give it different \
     parameters, so their bounds are not joined: analyze one of them alone (--method) for its bounds";

/// The certificate of every entry point of the parts added (each a certificate of one entry or
/// of several), as described in the module documentation; the parts must come from the same
/// membound, input and object model, in any order. It keeps of each method the largest of its
/// bounds so far (the largest of all is the same joined at once or in groups): a run of many
/// entry points holds the joined certificate, not every entry's.
#[derive(Default)]
pub struct Joiner {
    /// The tool and input of the first part, which every other must share.
    run: Option<(Tool, Input)>,
    /// Every entry point with its own bounds.
    own: BTreeMap<String, MethodEntry>,
    /// Every other method with the largest of its bounds so far (an entry point's included
    /// until the end: a part that reaches it may come before the part of which it is the entry).
    others: BTreeMap<String, MethodEntry>,
    assumptions: BTreeSet<String>,
}

impl Joiner {
    /// Adds a part; an entry point two parts hold must have the same bounds in both.
    pub fn add(&mut self, part: Certificate) -> Result<()> {
        let (tool, input) = self
            .run
            .get_or_insert_with(|| (part.tool.clone(), part.input.clone()));
        if part.tool != *tool || part.input != *input {
            return Err(Error::Input(format!(
                "certificates of different runs: {} of {} ({}, membound {}) and {} ({}, membound {})",
                input.path,
                input.sha256,
                tool.object_model,
                tool.version,
                part.input.sha256,
                part.tool.object_model,
                part.tool.version
            )));
        }
        let entries: BTreeSet<String> = entry_points(&part)
            .into_iter()
            .map(str::to_string)
            .collect();
        for name in &entries {
            part.method(name)?;
        }
        self.assumptions.extend(part.assumptions);
        for method in part.methods {
            if !entries.contains(&method.method) {
                match self.others.get_mut(&method.method) {
                    Some(earlier) if *earlier != method => {
                        *earlier = largest(&[earlier, &method]);
                    }
                    Some(_) => {}
                    None => {
                        self.others.insert(method.method.clone(), method);
                    }
                }
                continue;
            }
            match self.own.get(&method.method) {
                Some(earlier) if *earlier != method => {
                    return Err(Error::Input(format!(
                        "entry point {} has different bounds in two of the certificates",
                        method.method
                    )));
                }
                Some(_) => {}
                None => {
                    self.own.insert(method.method.clone(), method);
                }
            }
        }
        Ok(())
    }

    /// The joined certificate of the parts added.
    pub fn finish(self) -> Result<Certificate> {
        let (tool, input) = self
            .run
            .ok_or_else(|| Error::Input("no certificate to join".to_string()))?;
        let entries: Vec<String> = self.own.keys().cloned().collect();
        let mut methods: Vec<MethodEntry> = self.own.into_values().collect();
        let own = &entries;
        methods.extend(
            self.others
                .into_iter()
                .filter(|(name, _)| own.binary_search(name).is_err())
                .map(|(_, method)| method),
        );
        methods.sort_by(|a, b| a.method.cmp(&b.method));
        Ok(Certificate {
            membound: FORMAT_VERSION,
            tool,
            input,
            entry: Entry {
                method: entries.first().cloned().unwrap_or_default(),
            },
            entries,
            assumptions: self.assumptions.into_iter().collect(),
            methods,
        })
    }
}

/// The entry points of a certificate: its `entries`, or its one `entry`.
pub fn entry_points(certificate: &Certificate) -> Vec<&str> {
    if certificate.entries.is_empty() {
        vec![certificate.entry.method.as_str()]
    } else {
        certificate.entries.iter().map(String::as_str).collect()
    }
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

    /// A method allocating `bytes`, calling `callees`.
    fn method(name: &str, bytes: &str, callees: &[&str]) -> MethodEntry {
        let amount = AmountEntry {
            objects: "(1)".to_string(),
            bytes: bytes.to_string(),
        };
        MethodEntry {
            mem_alloc: amount,
            unbounded: Vec::new(),
            callees: callees.iter().map(|c| c.to_string()).collect(),
            ..MethodEntry::unbounded(name, String::new())
        }
    }

    /// The certificate of entry `name`, which reaches `helper` bounded by `helper_bytes`.
    fn part(name: &str, helper_bytes: &str) -> Certificate {
        let input = Input {
            path: "in.jar".to_string(),
            sha256: "0".to_string(),
        };
        let methods = vec![
            method(name, "(8)", &["h.helper()V"]),
            method("h.helper()V", helper_bytes, &[]),
        ];
        Certificate::of_input(input, "model", vec![format!("from {name}")], methods)
    }

    fn joined(parts: impl IntoIterator<Item = Certificate>) -> Certificate {
        let mut joiner = Joiner::default();
        for part in parts {
            joiner.add(part).expect("parts of one run");
        }
        joiner.finish().expect("some part")
    }

    #[test]
    fn the_joined_certificate_is_the_same_in_any_order_and_grouping() {
        let parts = [
            part("a.A.f()V", "(n)"),
            part("b.B.g()V", "(2*n)"),
            part("c.C.h()V", "(n)"),
        ];
        let at_once = joined(parts.clone());
        let helper = at_once.method("h.helper()V").expect("the helper is listed");
        assert_eq!(helper.mem_alloc.bytes, "max((2*n), (n))");
        assert_eq!(at_once.entries, ["a.A.f()V", "b.B.g()V", "c.C.h()V"]);
        let reversed = joined(parts.iter().rev().cloned());
        let grouped = joined([
            joined([parts[2].clone(), parts[0].clone()]),
            parts[1].clone(),
        ]);
        assert_eq!(reversed, at_once);
        assert_eq!(grouped, at_once);
    }

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

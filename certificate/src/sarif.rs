//! SARIF 2.1.0 from a certificate (`membound analyze --format sarif`), for code-scanning views:
//! what keeps a bound from being finite, at its place in the source.
//!
//! Rules (their ids are stable; docs/ci.md lists them):
//! - `unbounded-allocation`: a creation site whose count, objects or bytes are ∞ (a string
//!   concatenation, a set the counter could not count exactly, a length the analysis cannot
//!   follow), at the allocating instruction;
//! - `recursion-without-spec`: a creation site reached through recursion that membound found
//!   no bound for and no specification states, at the allocating instruction;
//! - `unknown-code`: a method's memAlloc is ∞ because it reaches code the analysis cannot see
//!   (a native method, an unresolved call, a missing implementation), one result per such code,
//!   at the certificate method reaching it that calls no other such method on the certificate's
//!   chains (the closest to the code).
//!
//! A site gives one result per allocating instruction and rule (its reasons joined), however
//! many methods' chains reach the instruction.
//!
//! Locations name the class's source file (its `SourceFile` attribute, looked up by the caller)
//! under its package's directory, relative to the source root (`uriBaseId` `SRCROOT`), or the
//! class file when the class has no `SourceFile`; a call chain longer than one method is a code
//! flow. This module reads only the certificate and the source file names given to it.

use std::collections::BTreeSet;

use serde_json::{Value as Json, json};

use super::{Certificate, ChainEntry, SiteEntry};

/// The rules, in the order of `tool.driver.rules`: (id, short description, full description).
const RULES: [(&str, &str, &str); 3] = [
    (
        UNBOUNDED_ALLOCATION,
        "Allocation without a finite bound",
        "membound found no finite bound for what this allocation creates (a string \
         concatenation, a set that could not be counted exactly, or a length it cannot follow), \
         so the enclosing methods' memAlloc is infinite.",
    ),
    (
        RECURSION,
        "Allocation under recursion without a specification",
        "This allocation is reached through a recursive call that membound found no bound for \
         and that no specification states, so the enclosing methods' memAlloc is infinite.",
    ),
    (
        UNKNOWN_CODE,
        "Call into code the analysis cannot see",
        "The method reaches a native method, an unresolved call or a method without an \
         implementation; what that code allocates is unknown, so the method's memAlloc is \
         infinite.",
    ),
];

const UNBOUNDED_ALLOCATION: &str = "unbounded-allocation";
const RECURSION: &str = "recursion-without-spec";
const UNKNOWN_CODE: &str = "unknown-code";

/// The start of the reason memalloc gives a site reached through recursion.
const RECURSION_REASON: &str = "recursion through ";

/// The SARIF log of `certificate`. `source_file` gives a class's `SourceFile` attribute from
/// its dotted name, when the class has one.
pub fn to_sarif(certificate: &Certificate, source_file: &dyn Fn(&str) -> Option<String>) -> Json {
    let locate = Locator { source_file };
    let mut results = Vec::new();
    let mut reported: BTreeSet<(String, u32, &str)> = BTreeSet::new();
    for method in &certificate.methods {
        for site in &method.sites {
            let allocation = &site.at;
            let mut by_rule: Vec<(&str, Vec<&str>)> = Vec::new();
            for reason in &site.reasons {
                let rule = rule_of(reason);
                match by_rule.iter_mut().find(|(r, _)| *r == rule) {
                    Some((_, reasons)) => reasons.push(reason),
                    None => by_rule.push((rule, vec![reason])),
                }
            }
            if by_rule.is_empty() && is_unbounded(site) {
                by_rule.push((UNBOUNDED_ALLOCATION, vec!["no reason recorded"]));
            }
            for (rule, reasons) in by_rule {
                // The same instruction is a site of every method on its chain (and a recursion
                // names the method its chain enters it by): report it once per rule, with the
                // longest chain (the first method listed is the entry).
                if reported.insert((allocation.method.clone(), allocation.offset, rule)) {
                    results.push(site_result(
                        &locate,
                        &method.method,
                        site,
                        rule,
                        &reasons.join("; "),
                    ));
                }
            }
        }
    }
    let mut unknown: Vec<&str> = Vec::new();
    for method in &certificate.methods {
        for reason in &method.unbounded {
            if !unknown.contains(&reason.as_str()) {
                unknown.push(reason);
            }
        }
    }
    for reason in unknown {
        let affected: Vec<&str> = certificate
            .methods
            .iter()
            .filter(|m| m.unbounded.contains(&reason.to_string()))
            .map(|m| m.method.as_str())
            .collect();
        results.push(unknown_code_result(&locate, certificate, &affected, reason));
    }
    let rules: Vec<Json> = RULES
        .iter()
        .map(|(id, short, full)| {
            json!({
                "id": id,
                "shortDescription": {"text": short},
                "fullDescription": {"text": full},
                "defaultConfiguration": {"level": "warning"},
            })
        })
        .collect();
    json!({
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/schemas/sarif-schema-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "membound",
                "version": certificate.tool.version,
                "rules": rules,
            }},
            "properties": {
                "entry": certificate.entry.method,
                "objectModel": certificate.tool.object_model,
            },
            "results": results,
        }],
    })
}

/// The SARIF location of `method` (dotted, as certificates write it) at `line`.
pub fn sarif_location(
    source_file: &dyn Fn(&str) -> Option<String>,
    method: &str,
    line: Option<u32>,
) -> Json {
    Locator { source_file }.location(method, line)
}

/// Whether a quantity of the site is ∞ somewhere (`infty` is the text form of ∞).
fn is_unbounded(site: &SiteEntry) -> bool {
    [&site.count, &site.objects, &site.bytes]
        .iter()
        .any(|text| text.contains("infty"))
}

/// The rule of a site's reason.
fn rule_of(reason: &str) -> &'static str {
    if reason.starts_with(RECURSION_REASON) {
        RECURSION
    } else {
        UNBOUNDED_ALLOCATION
    }
}

fn site_result(locate: &Locator, method: &str, site: &SiteEntry, rule: &str, reason: &str) -> Json {
    let entry = method;
    let mut result = json!({
        "ruleId": rule,
        "ruleIndex": rule_index(rule),
        "level": "warning",
        "message": {"text": format!(
            "memAlloc of {entry} is unbounded: this allocation of {} has no finite bound ({reason})",
            site.ty
        )},
        "locations": [locate.at(&site.at)],
    });
    if site.via.is_some() {
        let steps: Vec<Json> = site
            .steps()
            .map(|element| json!({"location": locate.at(element)}))
            .collect();
        result["codeFlows"] = json!([{"threadFlows": [{"locations": steps}]}]);
    }
    result
}

fn unknown_code_result(
    locate: &Locator,
    certificate: &Certificate,
    affected: &[&str],
    reason: &str,
) -> Json {
    let closest = deepest(certificate, affected);
    let others = match affected.len().saturating_sub(1) {
        0 => String::new(),
        1 => " and of 1 caller".to_string(),
        n => format!(" and of {n} callers"),
    };
    json!({
        "ruleId": UNKNOWN_CODE,
        "ruleIndex": rule_index(UNKNOWN_CODE),
        "level": "warning",
        "message": {"text": format!(
            "memAlloc of {closest}{others} is unbounded: it {reason}"
        )},
        "locations": [locate.method(certificate, closest)],
    })
}

/// The method of `affected` that reaches none of the others through the certificate's calls
/// (the last one when recursion leaves none): the one closest to the code they all reach.
fn deepest<'a>(certificate: &Certificate, affected: &[&'a str]) -> &'a str {
    let calls_another = |method: &str| {
        let mut seen: BTreeSet<&str> = BTreeSet::from([method]);
        let mut work = vec![method];
        while let Some(current) = work.pop() {
            let callees = certificate
                .methods
                .iter()
                .filter(|m| m.method == current)
                .flat_map(|m| &m.callees);
            for callee in callees {
                if affected.contains(&callee.as_str()) && callee != method {
                    return true;
                }
                if seen.insert(callee) {
                    work.push(callee);
                }
            }
        }
        false
    };
    affected
        .iter()
        .copied()
        .find(|m| !calls_another(m))
        .or_else(|| affected.last().copied())
        .unwrap_or_default()
}

fn rule_index(rule: &str) -> usize {
    RULES
        .iter()
        .position(|(id, _, _)| *id == rule)
        .unwrap_or_default()
}

/// Turns certificate places into SARIF locations.
struct Locator<'a> {
    source_file: &'a dyn Fn(&str) -> Option<String>,
}

impl Locator<'_> {
    /// A chain element: its method and line.
    fn at(&self, element: &ChainEntry) -> Json {
        self.location(&element.method, element.line)
    }

    /// A method, at the first of its lines the certificate's chains know (none when no chain
    /// passes through it with a line).
    fn method(&self, certificate: &Certificate, method: &str) -> Json {
        let line = certificate
            .methods
            .iter()
            .flat_map(|m| &m.sites)
            .flat_map(|s| s.steps())
            .filter(|e| e.method == method)
            .filter_map(|e| e.line)
            .min();
        self.location(method, line)
    }

    fn location(&self, method: &str, line: Option<u32>) -> Json {
        let mut physical = json!({
            "artifactLocation": {"uri": self.uri(method), "uriBaseId": "SRCROOT"},
        });
        if let Some(line) = line {
            physical["region"] = json!({"startLine": line});
        }
        json!({
            "physicalLocation": physical,
            "logicalLocations": [{"fullyQualifiedName": method, "kind": "function"}],
        })
    }

    /// `pkg/Source.java` for a method of `pkg.C`, or `pkg/C.class` without a `SourceFile`.
    fn uri(&self, method: &str) -> String {
        let qualified = method.split('(').next().unwrap_or(method);
        let class = qualified
            .rsplit_once('.')
            .map_or(qualified, |(class, _)| class);
        let (package, simple) = class.rsplit_once('.').unwrap_or(("", class));
        let directory: String = package
            .split('.')
            .filter(|p| !p.is_empty())
            .map(|p| format!("{p}/"))
            .collect();
        match (self.source_file)(class) {
            Some(file) => format!("{directory}{file}"),
            None => format!("{directory}{simple}.class"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entry `a.Main.run(I)V` reaches a recursive `a.Rec.down(I)V` and a native method; its
    /// helper allocates a string by concatenation.
    const CERTIFICATE: &str = "\
membound: 2
tool: {version: 0.1.0, object_model: count}
input: {path: x, sha256: '0000000000000000000000000000000000000000000000000000000000000000'}
entry: {method: 'a.Main.run(I)V'}
assumptions: []
methods:
- method: 'a.Main.run(I)V'
  params: [{name: n, origin: x}]
  mem_alloc: {objects: infty, bytes: infty}
  unbounded: ['reaches a.Main.nat()V (native method)']
  callees: ['a.Main.help(I)V']
  sites:
  - via: {method: 'a.Main.run(I)V', offset: 3, line: 10}
    at: {method: 'a.Rec.down(I)V', offset: 5, line: 20}
    type: a.Node
    count: infty
    objects: infty
    bytes: infty
    reasons: ['recursion through a.Rec.down(I)V']
  - via: {method: 'a.Main.run(I)V', offset: 9, line: 11}
    at: {method: 'a.Main.help(I)V', offset: 2, line: 30}
    type: java.lang.String
    count: (n)
    objects: infty
    bytes: infty
    reasons: ['string concatenation: not analyzed']
- method: 'a.Main.help(I)V'
  params: [{name: n, origin: x}]
  mem_alloc: {objects: infty, bytes: infty}
  unbounded: ['reaches a.Main.nat()V (native method)']
  sites:
  - at: {method: 'a.Main.help(I)V', offset: 2, line: 30}
    type: java.lang.String
    count: (n)
    objects: infty
    bytes: infty
    reasons: ['string concatenation: not analyzed']
";

    #[test]
    fn each_cause_of_infinity_is_one_result_of_its_rule() {
        let certificate = Certificate::parse(CERTIFICATE).unwrap();
        // a.Rec has no SourceFile attribute.
        let log = to_sarif(&certificate, &|class| {
            (class == "a.Main").then(|| "Main.java".to_string())
        });
        let results = log["runs"][0]["results"].as_array().unwrap();
        let summary: Vec<(&str, &str, Option<u64>)> = results
            .iter()
            .map(|r| {
                let physical = &r["locations"][0]["physicalLocation"];
                (
                    r["ruleId"].as_str().unwrap(),
                    physical["artifactLocation"]["uri"].as_str().unwrap(),
                    physical["region"]["startLine"].as_u64(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                (RECURSION, "a/Rec.class", Some(20)),
                (UNBOUNDED_ALLOCATION, "a/Main.java", Some(30)),
                (UNKNOWN_CODE, "a/Main.java", Some(30)),
            ]
        );
        assert_eq!(
            results[2]["message"]["text"],
            "memAlloc of a.Main.help(I)V and of 1 caller is unbounded: it reaches a.Main.nat()V \
             (native method)"
        );
        // The closest method is found from the chains, not from the order of the methods.
        let mut reordered = certificate.clone();
        reordered.methods.reverse();
        let log = to_sarif(&reordered, &|_| None);
        assert_eq!(
            log["runs"][0]["results"][2]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
            "a.Main.help(I)V"
        );
        // The chain through the recursion is a code flow from the entry's call.
        let flow = &results[0]["codeFlows"][0]["threadFlows"][0]["locations"];
        assert_eq!(
            flow[0]["location"]["physicalLocation"]["region"]["startLine"],
            10
        );
        for result in results {
            let rule = result["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(RULES[rule].0, result["ruleId"]);
        }
    }
}

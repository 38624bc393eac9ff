//! Checking a certificate as it is read, the same for every command (`eval`, `check`, `diff`,
//! `codegen`, `validate` all read through [`Certificate::read`] / [`Certificate::parse`]):
//!
//! - the text: a UTF-8 byte-order mark is skipped; at most [`MAX_BYTES`] bytes; collections
//!   nested at most [`MAX_FLOW_NESTING`] deep in brackets and [`MAX_BLOCK_NESTING`] deep in
//!   YAML's indented blocks, checked by a scan before any parser runs (a parser given 100000
//!   nested lists takes minutes);
//! - what docs/certificate.schema.json says: the fields it names and no other (an unknown field
//!   is refused with its path), the SHA-256 and method-name patterns;
//! - meaning: every expression parses (so no division by zero), names only the parameters its
//!   method lists, and is not a negative constant where it gives an amount (an expression's
//!   value, a `max` item, a `cases` arm; a negative term of a sum, as in `2^d - 1`, is fine).
//!
//! A certificate that fails any of these is an input error naming the place; nothing is
//! evaluated here.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use membound_bernstein::{BoundExpr, parse_bound};
use membound_polyhedra::Rat;
use serde::de::DeserializeOwned;

use crate::{AmountEntry, Certificate, MethodEntry};
use membound_jvm::error::{Error, Result};

/// The largest certificate read (64 MiB): far above any analysis's, far below a memory problem.
pub const MAX_BYTES: u64 = 64 << 20;
/// How deeply `[`/`{` collections may nest (a certificate needs 4).
pub const MAX_FLOW_NESTING: usize = 64;
/// How deeply indented YAML blocks may nest, counted as indentation columns plus `- ` markers
/// on one line (a certificate needs about 12).
pub const MAX_BLOCK_NESTING: usize = 256;

/// The text of the certificate file at `path` (`-`: standard input), refused before reading
/// when it is too large.
pub(crate) fn read_text(path: &Path) -> Result<String> {
    let cannot = |e: std::io::Error| {
        Error::Input(format!("cannot read certificate {}: {e}", path.display()))
    };
    if path == Path::new("-") {
        return read_stdin().map_err(cannot);
    }
    let size = std::fs::metadata(path).map_err(cannot)?.len();
    if size > MAX_BYTES {
        return Err(Error::Input(format!(
            "{}: not a membound certificate: {size} bytes, beyond the {MAX_BYTES} bytes a certificate may have",
            path.display()
        )));
    }
    std::fs::read_to_string(path).map_err(cannot)
}

/// Standard input, up to one byte past [`MAX_BYTES`] (which [`deserialize`] then refuses).
fn read_stdin() -> std::io::Result<String> {
    let mut text = String::new();
    std::io::stdin()
        .lock()
        .take(MAX_BYTES + 1)
        .read_to_string(&mut text)?;
    Ok(text)
}

/// Deserializes certificate text (JSON when it starts with `{`, else YAML) after the checks of
/// the text, refusing fields the format does not have.
pub(crate) fn deserialize<T: DeserializeOwned>(text: &str) -> std::result::Result<T, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.len() as u64 > MAX_BYTES {
        return Err(format!(
            "{} bytes, beyond the {MAX_BYTES} bytes a certificate may have",
            text.len()
        ));
    }
    check_nesting(text)?;
    let mut unknown: Vec<String> = Vec::new();
    let record = |path: serde_ignored::Path| unknown.push(dotted(&path));
    let value: T = if text.trim_start().starts_with('{') {
        let mut json = serde_json::Deserializer::from_str(text);
        serde_ignored::deserialize(&mut json, record).map_err(|e| e.to_string())?
    } else {
        serde_ignored::deserialize(serde_norway::Deserializer::from_str(text), record)
            .map_err(|e| e.to_string())?
    };
    if let Some(first) = unknown.first() {
        return Err(format!(
            "unknown field `{first}`{} (docs/certificate.md lists the fields)",
            match unknown.len() {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            }
        ));
    }
    Ok(value)
}

/// A field's path as `methods.0.sites.0.chain.0.color`: serde_ignored marks the inside of an
/// optional field with a `?` segment, which names nothing a reader of the file could find.
fn dotted(path: &serde_ignored::Path) -> String {
    use serde_ignored::Path;
    let join = |parent: &Path, segment: String| match dotted(parent) {
        root if root.is_empty() => segment,
        parent => format!("{parent}.{segment}"),
    };
    match path {
        Path::Root => String::new(),
        Path::Seq { parent, index } => join(parent, index.to_string()),
        Path::Map { parent, key } => join(parent, key.clone()),
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => dotted(parent),
    }
}

/// Where the scan is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    None,
    Single,
    Double,
}

/// Refuses collections nested deeper than the limits, scanning the text as YAML (JSON is
/// YAML's flow style): brackets count inside flow collections and where a value starts; in a
/// plain (unquoted) scalar outside them they are text (`Foo.main([Ljava/lang/String;)V`).
fn check_nesting(text: &str) -> std::result::Result<(), String> {
    let mut flow = 0usize;
    let mut quote = Quote::None;
    for (number, line) in text.lines().enumerate() {
        let deep = |what: &str, limit: usize| {
            format!(
                "line {}: {what} nested deeper than {limit} levels",
                number + 1
            )
        };
        let chars: Vec<char> = line.chars().collect();
        let mut at = 0;
        // A new line in block context: its indentation and `- ` markers are its depth.
        let mut value_start = flow == 0 && quote == Quote::None;
        if value_start {
            let mut depth = 0;
            while at < chars.len() && chars[at] == ' ' {
                depth += 1;
                at += 1;
            }
            while at + 1 < chars.len() && matches!(chars[at], '-' | '?') && chars[at + 1] == ' ' {
                depth += 2;
                at += 2;
                while at < chars.len() && chars[at] == ' ' {
                    at += 1;
                }
            }
            if depth > MAX_BLOCK_NESTING {
                return Err(deep("indented blocks", MAX_BLOCK_NESTING));
            }
        }
        while at < chars.len() {
            let c = chars[at];
            at += 1;
            match quote {
                Quote::Single => {
                    if c == '\'' {
                        if chars.get(at) == Some(&'\'') {
                            at += 1;
                        } else {
                            quote = Quote::None;
                        }
                    }
                    continue;
                }
                Quote::Double => {
                    match c {
                        '\\' => at += 1,
                        '"' => quote = Quote::None,
                        _ => {}
                    }
                    continue;
                }
                Quote::None => {}
            }
            if c == '#' && (at == 1 || chars[at - 2] == ' ') {
                break;
            }
            let opens_here = flow > 0 || value_start;
            match c {
                '[' | '{' if opens_here => {
                    flow += 1;
                    if flow > MAX_FLOW_NESTING {
                        return Err(deep("collections", MAX_FLOW_NESTING));
                    }
                }
                ']' | '}' if flow > 0 => flow -= 1,
                '\'' if opens_here => quote = Quote::Single,
                '"' if opens_here => quote = Quote::Double,
                ' ' => {}
                // In block context, `: ` ends a key and starts a value.
                ':' if flow == 0 => value_start = chars.get(at).is_none_or(|n| *n == ' '),
                // Anything else there starts a plain scalar, whose brackets are text.
                _ if flow == 0 => value_start = false,
                _ => {}
            }
        }
    }
    Ok(())
}

/// The schema's patterns and the meaning of every expression (see the module documentation).
pub(crate) fn check_meaning(certificate: &Certificate) -> std::result::Result<(), String> {
    let sha = &certificate.input.sha256;
    if sha.len() != 64
        || !sha
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
    {
        return Err(format!(
            "input.sha256 `{sha}` is not 64 lowercase hexadecimal digits"
        ));
    }
    check_method_name("entry.method", &certificate.entry.method)?;
    for (index, entry) in certificate.entries.iter().enumerate() {
        check_method_name(&format!("entries[{index}]"), entry)?;
        if !certificate.methods.iter().any(|m| m.method == *entry) {
            return Err(format!(
                "entries[{index}] `{entry}` is not among the methods"
            ));
        }
    }
    for (index, method) in certificate.methods.iter().enumerate() {
        let place = format!("methods[{index}]");
        check_method_name(&format!("{place}.method"), &method.method)?;
        check_method(method).map_err(|e| format!("{place} ({}): {e}", method.method))?;
    }
    Ok(())
}

/// `pkg.Class.name(descriptor)`, as the schema's pattern says.
fn check_method_name(place: &str, name: &str) -> std::result::Result<(), String> {
    let well_formed = name.split_once('(').is_some_and(|(head, rest)| {
        let qualified = head.rsplit_once('.').is_some_and(|(class, method)| {
            !class.is_empty() && !method.is_empty() && !class.contains(')')
        });
        rest.rsplit_once(')')
            .is_some_and(|(_, returns)| !returns.is_empty())
            && qualified
    });
    if well_formed {
        Ok(())
    } else {
        Err(format!(
            "{place} `{name}` is not a method as pkg.Class.name(descriptor)"
        ))
    }
}

/// One method's parameters and expressions.
fn check_method(method: &MethodEntry) -> std::result::Result<(), String> {
    let mut names: Vec<&str> = Vec::new();
    for param in &method.params {
        if names.contains(&param.name.as_str()) {
            return Err(format!("parameter `{}` is listed twice", param.name));
        }
        names.push(&param.name);
    }
    let amounts = [
        ("mem_alloc", Some(&method.mem_alloc)),
        ("mem_captured", method.mem_captured.as_ref()),
        ("mem_escapes", method.mem_escapes.as_ref()),
        ("mem_rq", method.mem_rq.as_ref()),
    ];
    for (key, amount) in amounts {
        let Some(AmountEntry { objects, bytes }) = amount else {
            continue;
        };
        check_expression(&format!("{key}.objects"), objects, &names)?;
        check_expression(&format!("{key}.bytes"), bytes, &names)?;
    }
    for (index, site) in method.sites.iter().enumerate() {
        for (key, text) in [
            ("count", &site.count),
            ("objects", &site.objects),
            ("bytes", &site.bytes),
        ] {
            check_expression(&format!("sites[{index}].{key}"), text, &names)?;
        }
    }
    Ok(())
}

/// One expression: it parses, names only `params`, and gives no negative constant amount.
fn check_expression(place: &str, text: &str, params: &[&str]) -> std::result::Result<(), String> {
    let expr = parse_bound(text).map_err(|e| format!("{place} `{text}`: {e}"))?;
    if let Some(unknown) = expr.params().iter().find(|p| !params.contains(&p.as_str())) {
        return Err(format!(
            "{place} `{text}` uses `{unknown}`, which is not one of the method's parameters ({})",
            if params.is_empty() {
                "it has none".to_string()
            } else {
                params.join(", ")
            }
        ));
    }
    if let Some(value) = negative_amount(&expr) {
        return Err(format!(
            "{place} `{text}` gives the negative amount {value}: an amount is never below 0"
        ));
    }
    Ok(())
}

/// A negative constant where the expression gives its value (itself, a `max` item, a `cases`
/// arm or default), if there is one.
fn negative_amount(expr: &BoundExpr) -> Option<String> {
    match expr {
        BoundExpr::Pol(qp) => qp
            .as_polynomial()
            .and_then(|p| p.as_constant())
            .filter(|c| c.is_negative())
            .map(|c| c.to_string()),
        BoundExpr::Max(_) | BoundExpr::Cases { .. } => {
            expr.children().into_iter().find_map(negative_amount)
        }
        _ => None,
    }
}

/// Refuses a parameter value given for a name none of `methods` has, naming their parameters
/// (a misspelt `--param` or `--at` would otherwise be ignored silently).
pub fn check_point_names(point: &BTreeMap<String, Rat>, methods: &[&MethodEntry]) -> Result<()> {
    let mut known: Vec<&str> = methods
        .iter()
        .flat_map(|m| m.params.iter().map(|p| p.name.as_str()))
        .collect();
    known.sort_unstable();
    known.dedup();
    let Some(unknown) = point.keys().find(|name| !known.contains(&name.as_str())) else {
        return Ok(());
    };
    let listed = if known.is_empty() {
        "none".to_string()
    } else {
        known.join(", ")
    };
    Err(Error::Input(match methods {
        [one] => format!(
            "{} has no parameter `{unknown}` (its parameters: {listed})",
            one.method
        ),
        _ => format!(
            "no method of the certificate has a parameter `{unknown}` (their parameters: {listed})"
        ),
    }))
}

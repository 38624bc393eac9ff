//! Evaluating a certificate at parameter values: `membound eval`, and the predictions
//! `validate` compares with a real run.

use std::collections::BTreeMap;
use std::fmt::Write;

use membound_bernstein::parse_bound;
use membound_polyhedra::{Rat, Value};
use serde_json::{Value as Json, json};

use super::{AmountEntry, Certificate, ChainEntry, MethodEntry};
use membound_jvm::error::{Error, Result};

/// A certificate's quantities at one parameter point.
#[derive(Clone, Debug)]
pub struct Evaluation {
    pub methods: Vec<MethodValues>,
    /// Methods left out because a parameter of theirs has no value: (method, missing names).
    pub skipped: Vec<(String, Vec<String>)>,
}

#[derive(Clone, Debug)]
pub struct MethodValues {
    pub method: String,
    pub mem_alloc: Pair,
    /// Absent when the certificate has no regions.
    pub mem_captured: Option<Pair>,
    pub mem_escapes: Option<Pair>,
    pub mem_rq: Option<Pair>,
    pub sites: Vec<SiteValues>,
}

/// Objects and bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    pub objects: Value,
    pub bytes: Value,
}

#[derive(Clone, Debug)]
pub struct SiteValues {
    pub at: ChainEntry,
    pub via: Option<ChainEntry>,
    pub ty: String,
    pub count: Value,
    pub amount: Pair,
}

/// Evaluates the methods of `certificate` (only `method` when given) at `point`. A method
/// whose parameters are not all given is skipped, unless it was asked for by name.
pub fn evaluate(
    certificate: &Certificate,
    method: Option<&str>,
    point: &BTreeMap<String, Rat>,
) -> Result<Evaluation> {
    let chosen: Vec<&MethodEntry> = match method {
        Some(name) => vec![certificate.method(name)?],
        None => certificate.methods.iter().collect(),
    };
    crate::check_read::check_point_names(point, &chosen)?;
    let mut evaluation = Evaluation {
        methods: Vec::new(),
        skipped: Vec::new(),
    };
    for entry in chosen {
        let missing: Vec<String> = entry
            .params
            .iter()
            .filter(|p| !point.contains_key(&p.name))
            .map(|p| p.name.clone())
            .collect();
        if !missing.is_empty() {
            if method.is_some() {
                return Err(Error::Input(format!(
                    "{} needs a value for {} (give --param {}=…)",
                    entry.method,
                    missing.join(", "),
                    missing[0]
                )));
            }
            evaluation.skipped.push((entry.method.clone(), missing));
            continue;
        }
        evaluation.methods.push(method_values(entry, point)?);
    }
    Ok(evaluation)
}

fn method_values(entry: &MethodEntry, point: &BTreeMap<String, Rat>) -> Result<MethodValues> {
    let at = |text: &str| value_of(&entry.method, text, point);
    let sites = entry
        .sites
        .iter()
        .map(|site| {
            Ok(SiteValues {
                at: site.at.clone(),
                via: site.via.clone(),
                ty: site.ty.clone(),
                count: at(&site.count)?,
                amount: Pair {
                    objects: at(&site.objects)?,
                    bytes: at(&site.bytes)?,
                },
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let pair = |amount: &AmountEntry| -> Result<Pair> {
        Ok(Pair {
            objects: at(&amount.objects)?,
            bytes: at(&amount.bytes)?,
        })
    };
    let optional = |amount: &Option<AmountEntry>| amount.as_ref().map(pair).transpose();
    Ok(MethodValues {
        method: entry.method.clone(),
        mem_alloc: pair(&entry.mem_alloc)?,
        mem_captured: optional(&entry.mem_captured)?,
        mem_escapes: optional(&entry.mem_escapes)?,
        mem_rq: optional(&entry.mem_rq)?,
        sites,
    })
}

/// The value of one certificate expression; a malformed one is an input error.
pub fn value_of(method: &str, text: &str, point: &BTreeMap<String, Rat>) -> Result<Value> {
    let expr = parse_bound(text)
        .map_err(|e| Error::Input(format!("{method}: bad expression `{text}`: {e}")))?;
    expr.eval(point)
        .map_err(|e| Error::Input(format!("{method}: {e}")))
}

/// The parameters a bound expression of `method` mentions.
pub fn params_of(method: &str, text: &str) -> Result<Vec<String>> {
    let expr = parse_bound(text)
        .map_err(|e| Error::Input(format!("{method}: bad expression `{text}`: {e}")))?;
    Ok(expr.params())
}

/// A value as JSON: an integer number when it fits, `"p/q"` for a fraction, `"infty"` for ∞
/// (as certificates write it).
pub fn value_json(value: &Value) -> Json {
    match value {
        Value::Infinite => json!("infty"),
        Value::Finite(v) => {
            let text = v.to_string();
            text.parse::<i64>()
                .map_or_else(|_| json!(text), |n| json!(n))
        }
    }
}

/// A value for people: the number, or `∞`.
pub fn value_text(value: &Value) -> String {
    match value {
        Value::Infinite => "∞".to_string(),
        Value::Finite(v) => v.to_string(),
    }
}

/// A number of bytes for people: `8024000 bytes (7.65 MiB)`, binary units beside the exact
/// number from 1 KiB.
pub fn bytes_text(value: &Value) -> String {
    let exact = format!("{} bytes", value_text(value));
    let Value::Finite(v) = value else {
        return exact;
    };
    let approximate = v.to_f64_lossy();
    let units = [("GiB", 1u64 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    match units.iter().find(|(_, size)| approximate >= *size as f64) {
        Some((unit, size)) => format!("{exact} ({:.2} {unit})", approximate / *size as f64),
        None => exact,
    }
}

impl Pair {
    fn to_json(&self) -> Json {
        json!({"objects": value_json(&self.objects), "bytes": value_json(&self.bytes)})
    }
}

impl Evaluation {
    /// `{"methods": [{"method", "mem_alloc", "mem_captured", "mem_escapes", "mem_rq",
    /// "sites"}], "skipped": [...]}` (the region quantities when the certificate has them).
    pub fn to_json(&self) -> Json {
        let methods: Vec<Json> = self
            .methods
            .iter()
            .map(|m| {
                let sites: Vec<Json> = m
                    .sites
                    .iter()
                    .map(|s| {
                        json!({
                            "at": s.at,
                            "via": s.via,
                            "type": s.ty,
                            "count": value_json(&s.count),
                            "objects": value_json(&s.amount.objects),
                            "bytes": value_json(&s.amount.bytes),
                        })
                    })
                    .collect();
                let mut method = json!({"method": m.method, "mem_alloc": m.mem_alloc.to_json()});
                let regions = [
                    ("mem_captured", &m.mem_captured),
                    ("mem_escapes", &m.mem_escapes),
                    ("mem_rq", &m.mem_rq),
                ];
                for (key, pair) in regions {
                    if let Some(pair) = pair {
                        method[key] = pair.to_json();
                    }
                }
                method["sites"] = json!(sites);
                method
            })
            .collect();
        let skipped: Vec<Json> = self
            .skipped
            .iter()
            .map(|(method, missing)| json!({"method": method, "missing_params": missing}))
            .collect();
        json!({"methods": methods, "skipped": skipped})
    }

    /// One line per method (memAlloc), its region quantities, then one indented line per site.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for m in &self.methods {
            let _ = writeln!(
                out,
                "{}: memAlloc {} objects, {}",
                m.method,
                value_text(&m.mem_alloc.objects),
                bytes_text(&m.mem_alloc.bytes)
            );
            let regions = [
                ("memCaptured", &m.mem_captured),
                ("memEscapes", &m.mem_escapes),
                ("memRq", &m.mem_rq),
            ];
            for (name, pair) in regions {
                if let Some(pair) = pair {
                    let _ = writeln!(
                        out,
                        "  {name} {} objects, {}",
                        value_text(&pair.objects),
                        bytes_text(&pair.bytes)
                    );
                }
            }
            for s in &m.sites {
                let chain = membound_jvm::chain::join(
                    s.via
                        .iter()
                        .chain(std::iter::once(&s.at))
                        .map(|e| membound_jvm::chain::step(&e.method, e.offset, e.line)),
                );
                let _ = writeln!(
                    out,
                    "  {} x {}: {} objects, {}  [{}]",
                    value_text(&s.count),
                    s.ty,
                    value_text(&s.amount.objects),
                    bytes_text(&s.amount.bytes),
                    chain
                );
            }
        }
        for (method, missing) in &self.skipped {
            let _ = writeln!(
                out,
                "{method}: not evaluated (no value for {})",
                missing.join(", ")
            );
        }
        out
    }
}

//! Memory budgets: the `QUANTITY <= AMOUNT UNIT` grammar of `membound check`, the
//! `membound.toml` file that pins budgets per method, and checking a budget against a
//! certificate, exactly at a parameter point or over a parameter range.
//!
//! A budget is checked against the certificate's expressions only (nothing is re-analyzed), so
//! an edited or stale certificate is what gets checked. At a point the quantity is evaluated
//! exactly. Over a range (`0 <= n <= 10000`) the quantity is bounded from above by Bernstein
//! expansion over pieces of the range, and evaluated exactly around their vertices (`range.rs`):
//! BROKEN names a point where the value is above the limit; a bound above the limit with no
//! such point found means "could not prove". This module does not compare certificates (that is [`crate::diff`]) and
//! does not read the command line; docs/check-and-diff.md is the user's reference.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use membound_bernstein::{BoundExpr, EvalError, parse_bound};
use membound_polyhedra::{Rat, Set, Value, parse_set};
use serde::Deserialize;

use crate::diff::{Degree, degree, parse_expression, point_text};
use crate::{AmountEntry, Certificate, MethodEntry, value_json};
use membound_jvm::error::{Error, Result};

mod range;

/// One of the four per-method quantities of a certificate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Quantity {
    MemAlloc,
    MemCaptured,
    MemEscapes,
    MemRq,
}

impl Quantity {
    pub const ALL: [Quantity; 4] = [
        Quantity::MemAlloc,
        Quantity::MemCaptured,
        Quantity::MemEscapes,
        Quantity::MemRq,
    ];

    /// The name budgets and reports use: `memRq`.
    pub fn name(self) -> &'static str {
        match self {
            Quantity::MemAlloc => "memAlloc",
            Quantity::MemCaptured => "memCaptured",
            Quantity::MemEscapes => "memEscapes",
            Quantity::MemRq => "memRq",
        }
    }

    /// The quantity in a method's entry; only memAlloc is always there (the others need the
    /// escape analysis).
    pub fn of(self, method: &MethodEntry) -> Option<&AmountEntry> {
        match self {
            Quantity::MemAlloc => Some(&method.mem_alloc),
            Quantity::MemCaptured => method.mem_captured.as_ref(),
            Quantity::MemEscapes => method.mem_escapes.as_ref(),
            Quantity::MemRq => method.mem_rq.as_ref(),
        }
    }
}

/// Which of a quantity's two expressions a budget limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unit {
    Objects,
    Bytes,
}

impl Unit {
    pub const BOTH: [Unit; 2] = [Unit::Objects, Unit::Bytes];

    pub fn name(self) -> &'static str {
        match self {
            Unit::Objects => "objects",
            Unit::Bytes => "bytes",
        }
    }

    /// The expression text of `amount` in this unit.
    pub fn of(self, amount: &AmountEntry) -> &str {
        match self {
            Unit::Objects => &amount.objects,
            Unit::Bytes => &amount.bytes,
        }
    }
}

/// `QUANTITY <= AMOUNT UNIT`, with the amount converted to objects or bytes exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    pub quantity: Quantity,
    pub unit: Unit,
    /// The largest allowed value, a whole number of objects or bytes.
    pub limit: Rat,
    /// The budget as written.
    pub text: String,
}

/// Byte units are binary; decimal ones would be a second, easily confused meaning of `MB`.
const BYTE_UNITS: [(&str, i64); 4] = [
    ("b", 1),
    ("kib", 1 << 10),
    ("mib", 1 << 20),
    ("gib", 1 << 30),
];

impl Budget {
    /// Parses `memRq <= 64MiB`, `memAlloc <= 1.5 KiB`, `memEscapes <= 1000 objects`
    /// (quantity and unit in any case). A malformed budget is an input error saying what is
    /// wrong.
    pub fn parse(text: &str) -> Result<Budget> {
        let bad = |why: String| Error::Input(format!("bad budget `{text}`: {why}"));
        let Some((left, right)) = text.split_once("<=") else {
            return Err(bad(
                "expected `QUANTITY <= AMOUNT UNIT`, e.g. `memRq <= 64MiB` (a budget is an upper limit, written with `<=`)"
                    .to_string(),
            ));
        };
        let quantity = Quantity::ALL
            .into_iter()
            .find(|q| q.name().eq_ignore_ascii_case(left.trim()))
            .ok_or_else(|| {
                bad(format!(
                    "unknown quantity `{}` (one of memAlloc, memCaptured, memEscapes, memRq)",
                    left.trim()
                ))
            })?;
        let right = right.trim();
        let number_end = right
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
            .unwrap_or(right.len());
        let (number, unit) = (&right[..number_end], right[number_end..].trim());
        let amount = parse_decimal(number).ok_or_else(|| {
            bad(format!(
                "expected a non-negative amount after `<=`, found `{right}`"
            ))
        })?;
        let (unit, factor) = parse_unit(unit).map_err(bad)?;
        let limit = amount * Rat::from(factor);
        if !limit.is_integer() {
            return Err(bad(format!(
                "`{number} {}` is not a whole number of {} ({limit})",
                right[number_end..].trim(),
                unit.name()
            )));
        }
        Ok(Budget {
            quantity,
            unit,
            limit,
            text: text.trim().to_string(),
        })
    }
}

/// `1_000`, `64`, `1.5` as an exact rational; `None` for anything else.
fn parse_decimal(text: &str) -> Option<Rat> {
    let digits = text.replace('_', "");
    let (whole, fraction) = digits.split_once('.').unwrap_or((&digits, ""));
    let all_digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if whole.is_empty() || !all_digits(whole) || !all_digits(fraction) {
        return None;
    }
    let scale = Rat::from(10).pow(u32::try_from(fraction.len()).ok()?);
    let numer: Rat = format!("{whole}{fraction}").parse().ok()?;
    Some(numer / scale)
}

/// The unit and its size in objects or bytes.
fn parse_unit(unit: &str) -> std::result::Result<(Unit, i64), String> {
    let lower = unit.to_ascii_lowercase();
    if lower == "objects" || lower == "object" {
        return Ok((Unit::Objects, 1));
    }
    if let Some((_, factor)) = BYTE_UNITS.iter().find(|(name, _)| *name == lower) {
        return Ok((Unit::Bytes, *factor));
    }
    if unit.is_empty() {
        return Err("missing unit after the amount (B, KiB, MiB, GiB or objects)".to_string());
    }
    if matches!(lower.as_str(), "kb" | "mb" | "gb" | "k" | "m" | "g") {
        return Err(format!(
            "`{unit}` is not a unit here: byte units are binary, KiB, MiB, GiB (1 MiB = 1048576 B)"
        ));
    }
    Err(format!(
        "unknown unit `{unit}` (B, KiB, MiB, GiB or objects)"
    ))
}

/// A parameter range: a conjunction of linear constraints over a method's parameters in isl
/// syntax, `0 <= n <= 10000 and m <= n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    pub text: String,
}

/// Where a budget is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// At one point: every parameter of the method has a value.
    At(BTreeMap<String, Rat>),
    /// At every integer point of a range.
    Over(Range),
}

impl Scope {
    fn describe(&self) -> String {
        match self {
            Scope::At(point) if point.is_empty() => "(no parameters)".to_string(),
            Scope::At(point) => format!("at {}", point_text(point)),
            Scope::Over(range) => format!("for {}", range.text),
        }
    }
}

/// A budget pinned to a method, with where to check it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pinned {
    /// `pkg.C.m` or with its descriptor; the certificate's entry when absent.
    pub method: Option<String>,
    pub budget: Budget,
    pub at: Option<BTreeMap<String, Rat>>,
    pub range: Option<Range>,
}

/// `membound.toml`: a list of `[[budget]]` tables.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    budget: Vec<ConfigEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigEntry {
    method: Option<String>,
    limit: String,
    at: Option<BTreeMap<String, ConfigValue>>,
    #[serde(rename = "for")]
    range: Option<String>,
}

/// A parameter value in `membound.toml`: a TOML integer, or a string of digits for one beyond
/// what TOML's integers hold (`k = "100000000000000000000000"`).
#[derive(Deserialize)]
#[serde(untagged)]
enum ConfigValue {
    Integer(i64),
    Digits(String),
}

impl ConfigValue {
    fn value(&self, name: &str) -> std::result::Result<Rat, String> {
        match self {
            ConfigValue::Integer(v) => Ok(Rat::from(membound_polyhedra::Int::from(*v))),
            ConfigValue::Digits(text) => text
                .trim()
                .parse::<membound_polyhedra::Int>()
                .map(Rat::from)
                .map_err(|_| format!("`at.{name}` = \"{text}\" is not an integer")),
        }
    }
}

/// Reads the budgets a `membound.toml` pins.
pub fn read_config(path: &Path) -> Result<Vec<Pinned>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Input(format!("cannot read {}: {e}", path.display())))?;
    parse_config(&text).map_err(|e| Error::Input(format!("{}: {e}", path.display())))
}

/// Parses `membound.toml` text: `[[budget]]` tables with `limit` (a budget), and optional
/// `method`, `at` (a table of integer parameter values) and `for` (a range).
pub fn parse_config(text: &str) -> Result<Vec<Pinned>> {
    let file: ConfigFile = toml::from_str(text).map_err(|e| {
        let message = e.to_string().trim_end().replace('\n', " ");
        let hint = if message.contains("integer") {
            " (a value beyond 64 bits goes in quotes: k = \"100000000000000000000000\")"
        } else {
            ""
        };
        Error::Input(format!("not a budget file: {message}{hint}"))
    })?;
    if file.budget.is_empty() {
        return Err(Error::Input(
            "no [[budget]] table: nothing to check".to_string(),
        ));
    }
    file.budget
        .into_iter()
        .enumerate()
        .map(|(index, entry)| {
            let budget = Budget::parse(&entry.limit)
                .map_err(|e| Error::Input(format!("[[budget]] number {}: {e}", index + 1)))?;
            let at = entry
                .at
                .map(|point| {
                    point
                        .iter()
                        .map(|(name, value)| Ok((name.clone(), value.value(name)?)))
                        .collect::<std::result::Result<BTreeMap<String, Rat>, String>>()
                })
                .transpose()
                .map_err(|e| Error::Input(format!("[[budget]] number {}: {e}", index + 1)))?;
            Ok(Pinned {
                method: entry.method,
                budget,
                at,
                range: entry.range.map(|text| Range { text }),
            })
        })
        .collect()
}

/// What a check found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// At a point: the value is within the limit.
    Holds,
    /// At a point, or at a point of a range (the witness): the value is above the limit.
    Broken,
    /// Over a range: the upper bound is within the limit.
    Proved,
    /// Over a range: the upper bound is above the limit (the budget may still hold).
    NotProved,
}

impl Verdict {
    pub fn failed(self) -> bool {
        matches!(self, Verdict::Broken | Verdict::NotProved)
    }
    fn label(self) -> &'static str {
        match self {
            Verdict::Holds => "OK",
            Verdict::Broken => "BROKEN",
            Verdict::Proved => "PROVED",
            Verdict::NotProved => "UNPROVED",
        }
    }
}

/// One budget checked for one method in one scope.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub method: String,
    pub budget: Budget,
    pub scope: Scope,
    pub verdict: Verdict,
    /// The value at the point, or the upper bound over the range, or the value at the witness.
    pub value: Value,
    /// Over a range: a point of it where the budget is broken.
    pub witness: Option<BTreeMap<String, Rat>>,
    /// The certificate's expression of the checked quantity.
    pub expression: String,
    /// Why the value is ∞ (the method's and its sites' reasons in the certificate).
    pub reasons: Vec<String>,
    /// Why a range check could not succeed, when the bound alone does not say.
    pub note: Option<String>,
}

/// Checks `budget` for the method named `method` of `certificate` in `scope`.
pub fn check(
    certificate: &Certificate,
    method: &str,
    budget: &Budget,
    scope: &Scope,
) -> Result<Outcome> {
    let entry = certificate.method(method)?;
    let amount = budget.quantity.of(entry).ok_or_else(|| {
        Error::Input(format!(
            "the certificate gives no {} for {} (it is written when escape analysis ran; analyze again with a membound that computes it)",
            budget.quantity.name(),
            entry.method
        ))
    })?;
    let text = budget.unit.of(amount);
    let expr = parse_expression(&entry.method, text)?;
    let (value, note, witness) = match scope {
        Scope::At(point) => {
            crate::check_read::check_point_names(point, &[entry])?;
            (at_point(&entry.method, &expr, point)?, None, None)
        }
        Scope::Over(range) => {
            let set = range_set(&entry.method, entry, range)?;
            let searched = range::search(&entry.method, &expr, &set, range, &budget.limit)?;
            match searched.witness {
                Some((point, value)) => (value, None, Some(point)),
                None => (searched.bound, searched.note, None),
            }
        }
    };
    let within = range::within_limit(&value, &budget.limit);
    let verdict = match (scope, within) {
        (Scope::At(_), true) => Verdict::Holds,
        (Scope::At(_), false) => Verdict::Broken,
        (Scope::Over(_), true) => Verdict::Proved,
        (Scope::Over(_), false) if witness.is_some() => Verdict::Broken,
        (Scope::Over(_), false) => Verdict::NotProved,
    };
    let reasons = if value == Value::Infinite && degree(&expr) == Degree::Infinite {
        infinity_reasons(entry, budget.unit)
    } else {
        Vec::new()
    };
    Ok(Outcome {
        method: entry.method.clone(),
        budget: budget.clone(),
        scope: scope.clone(),
        verdict,
        value,
        witness,
        expression: text.to_string(),
        reasons,
        note,
    })
}

fn at_point(method: &str, expr: &BoundExpr, point: &BTreeMap<String, Rat>) -> Result<Value> {
    expr.eval(point).map_err(|e| match &e {
        EvalError::Missing(name) => Error::Input(format!(
            "{method}: {e} (give it with --at {name}=… or in the budget's `at`)"
        )),
        _ => Error::Input(format!("{method}: {e}")),
    })
}

/// The range's constraints as a set over the method's parameters.
fn range_set(method: &str, entry: &MethodEntry, range: &Range) -> Result<Set> {
    let params: Vec<&str> = entry.params.iter().map(|p| p.name.as_str()).collect();
    // The text goes inside a set we write around it: braces or tuples of its own would make
    // the parser's complaint point into our wrapping.
    if range.text.contains(['{', '}', '[', ']', ';']) {
        return Err(Error::Input(format!(
            "bad range `{}`: give only constraints on the parameters ({}), e.g. `0 <= {} <= 10000`, without braces or tuples",
            range.text,
            params.join(", "),
            params.first().unwrap_or(&"n")
        )));
    }
    let prefix = format!("{{ [{}] : ", params.join(", "));
    parse_set(&format!("{prefix}{} }}", range.text)).map_err(|e| {
        Error::Input(format!(
            "bad range `{}` for {method} (parameters: {}): column {}: {}",
            range.text,
            params.join(", "),
            e.column.saturating_sub(prefix.chars().count()),
            e.message
        ))
    })
}

/// The certificate's reasons for an ∞ in `unit`: the method's own, then those of every site
/// whose expression in that unit has an ∞.
fn infinity_reasons(entry: &MethodEntry, unit: Unit) -> Vec<String> {
    let mut reasons = entry.unbounded.clone();
    for site in &entry.sites {
        let text = match unit {
            Unit::Objects => &site.objects,
            Unit::Bytes => &site.bytes,
        };
        let infinite = parse_bound(text).is_ok_and(|e| degree(&e) == Degree::Infinite);
        if infinite {
            for reason in &site.reasons {
                if !reasons.contains(reason) {
                    reasons.push(reason.clone());
                }
            }
        }
    }
    reasons
}

impl Outcome {
    /// The outcome as JSON: the budget (`quantity`, `unit`, `limit`), where it was checked
    /// (`at` a point or `for` a range), the `verdict`, the `value` (the bound over a range), the
    /// `witness` point of a broken range, the `expression` and the reasons of an ∞.
    pub fn to_json(&self) -> serde_json::Value {
        let point_json = |point: &BTreeMap<String, Rat>| -> serde_json::Value {
            point
                .iter()
                .map(|(name, value)| (name.clone(), value_json(&Value::Finite(value.clone()))))
                .collect::<serde_json::Map<_, _>>()
                .into()
        };
        let mut json = serde_json::json!({
            "method": self.method,
            "budget": self.budget.text,
            "quantity": self.budget.quantity.name(),
            "unit": self.budget.unit.name(),
            "limit": value_json(&Value::Finite(self.budget.limit.clone())),
            "verdict": self.verdict.label(),
            "value": value_json(&self.value),
            "expression": self.expression,
            "reasons": self.reasons,
        });
        match &self.scope {
            Scope::At(point) => json["at"] = point_json(point),
            Scope::Over(range) => json["for"] = range.text.clone().into(),
        }
        if let Some(witness) = &self.witness {
            json["witness"] = point_json(witness);
        }
        if let Some(note) = &self.note {
            json["note"] = note.clone().into();
        }
        json
    }

    /// `OK  M: memRq <= 64MiB at n=10: 2040 bytes`, and for a failure the expression and the
    /// reasons on indented lines.
    pub fn to_text(&self) -> String {
        let unit = self.budget.unit.name();
        let value = match &self.value {
            Value::Finite(v) => format!("{v} {unit}"),
            Value::Infinite => format!("∞ {unit}"),
        };
        let found = match (&self.scope, &self.value) {
            (Scope::At(_), _) => value,
            (Scope::Over(_), _) if let Some(point) = &self.witness => {
                format!("{value} at {}", point_text(point))
            }
            (Scope::Over(_), Value::Finite(_)) => format!("at most {value} (Bernstein bound)"),
            (Scope::Over(_), Value::Infinite) => "no finite bound".to_string(),
        };
        let mut out = format!(
            "{:<9}{}: {} {}: {found}",
            self.verdict.label(),
            self.method,
            self.budget.text,
            self.scope.describe(),
        );
        if self.verdict.failed() {
            let _ = write!(out, ", limit {} {unit}", self.budget.limit);
            if self.verdict == Verdict::NotProved && self.value != Value::Infinite {
                out.push_str(" (the bound over-approximates: the budget may still hold)");
            }
            let _ = write!(
                out,
                "\n         {} {unit} = {}",
                self.budget.quantity.name(),
                self.expression
            );
            if let Some(note) = &self.note {
                let _ = write!(out, "\n         {note}");
            }
            if self.value == Value::Infinite {
                if self.reasons.is_empty() && self.note.is_none() {
                    out.push_str("\n         ∞: the certificate gives no reason");
                }
                for reason in &self.reasons {
                    let _ = write!(out, "\n         ∞ because: {reason}");
                }
            }
        }
        out.push('\n');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> (Quantity, Unit, Rat) {
        let budget = Budget::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        (budget.quantity, budget.unit, budget.limit)
    }

    fn error(text: &str) -> String {
        match Budget::parse(text) {
            Ok(budget) => panic!("{text} parsed as {budget:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn amounts_convert_exactly_to_bytes_or_objects() {
        assert_eq!(
            parsed("memRq <= 64MiB"),
            (Quantity::MemRq, Unit::Bytes, Rat::from(64 << 20))
        );
        assert_eq!(
            parsed("  memalloc<=1.5 KiB "),
            (Quantity::MemAlloc, Unit::Bytes, Rat::from(1536))
        );
        assert_eq!(
            parsed("MEMESCAPES <= 1_000 objects"),
            (Quantity::MemEscapes, Unit::Objects, Rat::from(1000))
        );
        assert_eq!(
            parsed("memCaptured <= 3 gib"),
            (Quantity::MemCaptured, Unit::Bytes, Rat::from(3_i64 << 30))
        );
        assert_eq!(
            parsed("memRq <= 0 B"),
            (Quantity::MemRq, Unit::Bytes, Rat::zero())
        );
    }

    #[test]
    fn malformed_budgets_say_what_is_wrong() {
        assert!(error("memRq < 64MiB").contains("`<=`"));
        assert!(error("memory <= 64MiB").contains("unknown quantity `memory`"));
        assert!(error("memRq <= MiB").contains("expected a non-negative amount"));
        assert!(error("memRq <= -5 B").contains("expected a non-negative amount"));
        assert!(error("memRq <= 64").contains("missing unit"));
        assert!(error("memRq <= 64 MB").contains("binary"));
        assert!(error("memRq <= 64 furlongs").contains("unknown unit `furlongs`"));
        assert!(error("memRq <= 1.3 KiB").contains("not a whole number of bytes"));
        assert!(error("memRq <= 2.5 objects").contains("not a whole number of objects"));
        assert!(error("memRq <= 1.2.3 B").contains("expected a non-negative amount"));
    }

    #[test]
    fn a_config_pins_budgets_with_points_and_ranges() {
        let pinned = parse_config(
            r#"
            [[budget]]
            method = "Intro.m1"
            at = { k = 1000 }
            limit = "memRq <= 64MiB"

            [[budget]]
            for = "0 <= k <= 10000"
            limit = "memAlloc <= 20 objects"
            "#,
        )
        .expect("a valid file");
        assert_eq!(pinned.len(), 2);
        assert_eq!(pinned[0].method.as_deref(), Some("Intro.m1"));
        assert_eq!(
            pinned[0].at,
            Some(BTreeMap::from([("k".to_string(), Rat::from(1000))]))
        );
        assert_eq!(pinned[0].budget.limit, Rat::from(64 << 20));
        assert_eq!(pinned[1].method, None);
        assert_eq!(
            pinned[1].range,
            Some(Range {
                text: "0 <= k <= 10000".to_string()
            })
        );
        assert_eq!(pinned[1].budget.unit, Unit::Objects);
    }

    #[test]
    fn config_values_may_be_beyond_64_bits() {
        let pinned = parse_config(
            "[[budget]]\nlimit = \"memRq <= 1 B\"\nat = { k = 9000000000000000000, n = \"123456789012345678901234567890\" }\n",
        )
        .expect("a valid file");
        let at = pinned[0].at.as_ref().expect("a point");
        assert_eq!(at["k"].to_string(), "9000000000000000000");
        assert_eq!(at["n"].to_string(), "123456789012345678901234567890");
        let huge = parse_config(&format!(
            "[[budget]]\nlimit = \"memRq <= 1 B\"\nat = {{ k = 1{} }}\n",
            "0".repeat(60)
        ));
        let message = huge.expect_err("beyond TOML's integers").to_string();
        assert!(message.contains("goes in quotes"), "{message}");
        let text = parse_config("[[budget]]\nlimit = \"memRq <= 1 B\"\nat = { k = \"1e30\" }\n");
        let message = text.expect_err("not an integer").to_string();
        assert!(
            message.contains("`at.k` = \"1e30\" is not an integer"),
            "{message}"
        );
    }

    #[test]
    fn a_malformed_config_is_an_error_naming_the_entry() {
        let bad_limit = parse_config("[[budget]]\nlimit = \"memRq <= 64 MB\"\n");
        let message = bad_limit.expect_err("a decimal unit").to_string();
        assert!(message.contains("[[budget]] number 1"), "{message}");
        let unknown_key = parse_config("[[budget]]\nlimit = \"memRq <= 1 B\"\nwhere = 1\n");
        let message = unknown_key.expect_err("an unknown key").to_string();
        assert!(message.contains("where"), "{message}");
        let empty = parse_config("");
        assert!(
            empty
                .expect_err("no budget")
                .to_string()
                .contains("[[budget]]")
        );
    }
}

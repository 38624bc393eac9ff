//! `membound check`: a certificate's bounds against budgets given on the command line or pinned
//! in a `membound.toml` (see `membound_certificate::budget` and docs/check-and-diff.md).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Args;

use super::analyze::parse_params;
use super::{ListFormat, json_text};
use membound_certificate::Certificate;
use membound_certificate::budget::{self, Budget, Pinned, Range, Scope};
use membound_jvm::error::{Error, Result};
use membound_polyhedra::Rat;

/// The budget file looked for in the current directory when no `--budget` is given.
const CONFIG_FILE: &str = "membound.toml";

#[derive(Debug, Args)]
pub(super) struct CheckArgs {
    /// A certificate written by `membound analyze -o` (`-`: read it from stdin).
    certificate: PathBuf,
    /// A budget, `QUANTITY <= AMOUNT UNIT`: `memRq <= 64MiB`, `memAlloc <= 1000 objects`
    /// (repeatable). Without one, the budgets of membound.toml are checked.
    #[arg(long = "budget", value_name = "BUDGET")]
    budgets: Vec<String>,
    /// Check at this parameter point: `n=1000,m=10`. Repeatable: pieces naming other
    /// parameters join one point (`--at n=10 --at m=2`), a parameter named again starts the next
    /// point (`--at k=5 --at k=50` checks both).
    #[arg(long, value_name = "POINT", visible_alias = "param")]
    at: Vec<String>,
    /// Check at every integer point of this parameter range: linear constraints in isl
    /// syntax, `0 <= n <= 10000 and m <= n`.
    #[arg(long = "for", value_name = "RANGE")]
    range: Option<String>,
    /// The method whose bounds are checked (default: the certificate's entry); repeatable:
    /// every budget is checked for each method given.
    #[arg(long = "method")]
    methods: Vec<String>,
    /// A budget file (default: ./membound.toml when no --budget is given).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    format: ListFormat,
}

/// The report, and whether a budget was broken or could not be proved.
pub(super) fn check(args: &CheckArgs) -> Result<(String, bool)> {
    let certificate = Certificate::read(&args.certificate)?;
    // No --at: no point (a range, or a method without parameters); no --method: the
    // certificate's entry.
    let points: Vec<Option<BTreeMap<String, Rat>>> = if args.at.is_empty() {
        vec![None]
    } else {
        points(&args.at)?.into_iter().map(Some).collect()
    };
    let methods: Vec<Option<String>> = if args.methods.is_empty() {
        vec![None]
    } else {
        args.methods.iter().cloned().map(Some).collect()
    };
    let defaults = |budget: &Budget| -> Vec<Pinned> {
        let mut pins = Vec::new();
        for method in &methods {
            for at in &points {
                pins.push(Pinned {
                    method: method.clone(),
                    budget: budget.clone(),
                    at: at.clone(),
                    range: args.range.clone().map(|text| Range { text }),
                });
            }
        }
        pins
    };
    let mut pinned: Vec<Pinned> = Vec::new();
    for text in &args.budgets {
        pinned.extend(defaults(&Budget::parse(text)?));
    }
    let config = match &args.config {
        Some(path) => Some(path.clone()),
        None => (pinned.is_empty() && Path::new(CONFIG_FILE).exists())
            .then(|| PathBuf::from(CONFIG_FILE)),
    };
    if let Some(path) = config {
        // The file's entries take what they do not say from the command line.
        for entry in budget::read_config(&path)? {
            let mut pins: Vec<Pinned> = Vec::new();
            for fallback in defaults(&entry.budget) {
                let pin = Pinned {
                    method: entry.method.clone().or(fallback.method),
                    budget: entry.budget.clone(),
                    at: entry.at.clone().or(fallback.at),
                    range: entry.range.clone().or(fallback.range),
                };
                // What the entry names itself is not repeated per method or point given.
                if !pins.contains(&pin) {
                    pins.push(pin);
                }
            }
            pinned.extend(pins);
        }
    }
    if pinned.is_empty() {
        return Err(Error::Input(format!(
            "no budget to check: give --budget 'memRq <= 64MiB' or a budget file ({CONFIG_FILE} here, or --config FILE)"
        )));
    }
    let mut outcomes = Vec::new();
    for entry in &pinned {
        let method = entry
            .method
            .clone()
            .unwrap_or_else(|| certificate.entry.method.clone());
        let mut scopes: Vec<Scope> = Vec::new();
        scopes.extend(entry.at.clone().map(Scope::At));
        scopes.extend(entry.range.clone().map(Scope::Over));
        // A method without parameters has one value: no point to give.
        if scopes.is_empty() && certificate.method(&method)?.params.is_empty() {
            scopes.push(Scope::At(Default::default()));
        }
        if scopes.is_empty() {
            return Err(Error::Input(format!(
                "budget `{}` for {method}: give a point (--at n=1000) or a range (--for '0 <= n <= 10000'), or `at`/`for` in {CONFIG_FILE}",
                entry.budget.text
            )));
        }
        for scope in &scopes {
            outcomes.push(budget::check(&certificate, &method, &entry.budget, scope)?);
        }
    }
    let failed = outcomes.iter().any(|outcome| outcome.verdict.failed());
    let report = match args.format {
        ListFormat::Text => outcomes.iter().map(budget::Outcome::to_text).collect(),
        ListFormat::Json => json_text(&serde_json::json!({
            "outcomes": outcomes.iter().map(budget::Outcome::to_json).collect::<Vec<_>>(),
            "failed": failed,
        })),
    };
    Ok((report, failed))
}

/// The points of repeated `--at`s: pieces naming other parameters join the point before them
/// (`--at n=10 --at m=2` is one point), and a piece naming a parameter that point already has
/// starts the next one (`--at k=5 --at k=50` checks both).
fn points(texts: &[String]) -> Result<Vec<BTreeMap<String, Rat>>> {
    let mut points: Vec<BTreeMap<String, Rat>> = Vec::new();
    for text in texts {
        let piece = parse_params("--at", std::slice::from_ref(text))?;
        match points.last_mut() {
            Some(point) if piece.keys().all(|name| !point.contains_key(name)) => {
                point.extend(piece);
            }
            _ => points.push(piece),
        }
    }
    Ok(points)
}

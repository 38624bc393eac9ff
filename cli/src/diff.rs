//! `membound diff`: two certificates compared method by method (see
//! `membound_certificate::diff` for the classes of change).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::analyze::parse_params;
use membound_certificate::{Certificate, diff as compare};
use membound_jvm::error::{Error, Result};

#[derive(Debug, Args)]
pub(super) struct DiffArgs {
    /// The certificate before the change (e.g. the main branch's; `-`: read it from stdin).
    old: PathBuf,
    /// The certificate after the change (`-`: read it from stdin).
    new: PathBuf,
    /// Also compare values at this parameter point: `n=1000,m=10` (repeatable: one point each).
    #[arg(long, value_name = "POINT", visible_alias = "param")]
    at: Vec<String>,
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    format: DiffFormat,
    /// Compare certificates of different object models or entry methods anyway (their
    /// differences then say little about the change).
    #[arg(long)]
    force: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum DiffFormat {
    Text,
    /// For a pull-request comment.
    Markdown,
    Json,
}

/// The report, and whether the new certificate regresses.
pub(super) fn diff(args: &DiffArgs) -> Result<(String, bool)> {
    let stdin = std::path::Path::new("-");
    if args.old == stdin && args.new == stdin {
        return Err(Error::Input(
            "only one of the two certificates can be read from stdin (`-`)".to_string(),
        ));
    }
    let old = Certificate::read(&args.old)?;
    let new = Certificate::read(&args.new)?;
    let mismatches = mismatches(&old, &new);
    if !mismatches.is_empty() && !args.force {
        return Err(Error::Input(format!(
            "the certificates are not comparable: {} (--force compares them anyway)",
            mismatches.join("; ")
        )));
    }
    for mismatch in &mismatches {
        eprintln!("membound: warning: comparing anyway, but {mismatch}");
    }
    // Two builds of one program differ in their input's hash, not in its path.
    if old.input.path != new.input.path {
        eprintln!(
            "membound: warning: the certificates are of different inputs ({} and {}): compared as two builds of one program",
            old.input.path, new.input.path
        );
    }
    let points = args
        .at
        .iter()
        .map(|point| parse_params("--at", std::slice::from_ref(point)))
        .collect::<Result<Vec<_>>>()?;
    let found = compare::diff(&old, &new, &points)?;
    let report = match args.format {
        DiffFormat::Text => found.to_text(),
        DiffFormat::Markdown => found.to_markdown(),
        DiffFormat::Json => super::json_text(&found.to_json()),
    };
    Ok((report, found.regressions() > 0))
}

/// What makes two certificates' bounds incomparable: another object model (bytes differ for
/// every object) or another entry method. Their inputs' hashes differ by design (a diff compares
/// two builds); another input path gets a warning.
fn mismatches(old: &Certificate, new: &Certificate) -> Vec<String> {
    let mut found = Vec::new();
    if old.tool.object_model != new.tool.object_model {
        found.push(format!(
            "the old one is for object model {}, the new one for {}",
            old.tool.object_model, new.tool.object_model
        ));
    }
    if old.entry.method != new.entry.method {
        found.push(format!(
            "the old one is for entry {}, the new one for {}",
            old.entry.method, new.entry.method
        ));
    }
    found
}

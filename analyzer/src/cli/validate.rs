//! `membound validate`: runs the program under the agent and checks a certificate against it.

use std::path::PathBuf;

use clap::Args;

use super::analyze::parse_params;
use super::{ListFormat, json_text};
use crate::certificate::Certificate;
use crate::error::Result;
use crate::measure::{self, MeasureOptions};

#[derive(Debug, Args)]
pub(super) struct ValidateArgs {
    /// A certificate written by `membound analyze -o`.
    certificate: PathBuf,
    /// The watched method (default: the certificate's entry).
    #[arg(long)]
    method: Option<String>,
    /// The program (default: the certificate's input path).
    #[arg(long)]
    input: Option<PathBuf>,
    /// The main class (default: the jar manifest's Main-Class).
    #[arg(long)]
    main: Option<String>,
    /// A parameter value to use instead of the recorded one, `n=7` (repeatable).
    #[arg(long = "param")]
    params: Vec<String>,
    /// The java launcher (default: $JAVA_HOME/bin/java, then java on PATH).
    #[arg(long)]
    java: Option<PathBuf>,
    /// An extra JVM option (repeatable).
    #[arg(long = "jvm-arg", allow_hyphen_values = true)]
    jvm_args: Vec<String>,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    format: ListFormat,
    /// The program's arguments, after `--`.
    #[arg(last = true)]
    program_args: Vec<String>,
}

/// The report, and whether the certificate failed (some prediction below the run).
pub(super) fn validate(args: &ValidateArgs) -> Result<(String, bool)> {
    let certificate = Certificate::read(&args.certificate)?;
    let given = parse_params(&args.params)?;
    let method = args
        .method
        .clone()
        .unwrap_or_else(|| certificate.entry.method.clone());
    let entry = certificate.method(&method)?;
    let measurement = measure::measure(&MeasureOptions {
        input: args
            .input
            .clone()
            .unwrap_or_else(|| PathBuf::from(&certificate.input.path)),
        method: entry.method.clone(),
        main: args.main.clone(),
        java: args.java.clone(),
        agent: None,
        jvm_args: args.jvm_args.clone(),
        program_args: args.program_args.clone(),
    })?;
    eprint!("{}", measurement.program_stdout);
    let validation = crate::validate::validate(&certificate, &method, &measurement, &given)?;
    let failed = validation.broken().next().is_some();
    let output = match args.format {
        ListFormat::Text => validation.to_text(),
        ListFormat::Json => json_text(&validation.to_json()),
    };
    Ok((output, failed))
}

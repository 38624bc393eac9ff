//! `membound validate`: runs the program under the agent and checks a certificate against it.

use std::path::PathBuf;

use clap::Args;

use super::analyze::parse_params;
use super::{ListFormat, ProgramRun, RUN_PHASE, json_text};
use membound_certificate::Certificate;
use membound_jvm::error::{Error, Result};

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
    /// A parameter value to use instead of the recorded one, `n=7` (repeatable).
    #[arg(long = "param", visible_alias = "at")]
    params: Vec<String>,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    format: ListFormat,
    /// Also check the certificate's regions: the heap is walked at the exits of the methods
    /// whose regions hold objects, and an object still reachable after its region's
    /// activation returned is a broken region (slower: one heap walk per exit, at most 1000).
    #[arg(long)]
    check_regions: bool,
    #[command(flatten)]
    run: ProgramRun,
}

/// The report, and whether the certificate failed (some prediction below the run).
pub(super) fn validate(args: &ValidateArgs) -> Result<(String, bool)> {
    let certificate = Certificate::read(&args.certificate)?;
    let given = parse_params("--param", &args.params)?;
    let method = args
        .method
        .clone()
        .unwrap_or_else(|| certificate.entry.method.clone());
    let entry = certificate.method(&method)?;
    membound_certificate::check_read::check_point_names(&given, &[entry])?;
    let input = args
        .input
        .clone()
        .unwrap_or_else(|| PathBuf::from(&certificate.input.path));
    let options = args.run.options(input, entry.method.clone())?;
    let progress = args.run.verbosity.progress();
    progress.phase(RUN_PHASE);
    // With regions in the certificate, the run is also replayed into them, for memRq.
    let measurement =
        membound_runtime::validate::measure_for(&certificate, entry, &options, args.check_regions)?;
    progress.phase("comparing the run with the certificate");
    let validation =
        membound_runtime::validate::validate(&certificate, &method, &measurement, &given)?;
    progress.finish();
    eprint!("{}", measurement.program_stdout);
    // A broken assumption is a finding (exit 1), not a run that could not be checked.
    if let Some(reason) = &validation.unchecked
        && validation.broken_assumptions.is_empty()
    {
        // What the agent could not record may be why a value is missing.
        let warnings = validation.warnings.iter().map(|w| format!("; {w}"));
        return Err(Error::Input(format!(
            "{reason}{}",
            warnings.collect::<String>()
        )));
    }
    let failed = validation.failed();
    let output = match args.format {
        ListFormat::Text => validation.to_text(),
        ListFormat::Json => json_text(&validation.to_json()),
    };
    Ok((output, failed))
}

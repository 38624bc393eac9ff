//! The JOlden harness: for every analyzed method of the suite ([`suite`]), analyzes it with the
//! library (timed, under a time limit), runs its program under the JVMTI agent at each setting,
//! validates the certificate against each run, and writes `RESULTS.md` ([`report`]).
//!
//! `cargo run --release -p benchmarks-jolden [-- --small] [--out FILE]`. Progress goes to stderr.
//! Exit 1 when a prediction is below a run (unsound), 2 when an analysis or a run failed (an
//! analysis stopped at a limit, time or creation sites, is reported in the table, not a failure). The harness decides nothing about bounds:
//! analysis, measurement and validation are the `membound` library's.

mod analysis;
mod call_trees;
mod check;
mod programs;
mod report;
mod sample;
mod setup;
mod suite;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};

use analysis::{Analysis, Limits};
use report::{Context, MethodResult};

/// Analyzes, runs and validates the JOlden-style programs and writes RESULTS.md.
#[derive(Debug, Parser)]
#[command(name = "benchmarks-jolden")]
struct Cli {
    /// Small parameter settings (for CI: a few minutes in all).
    #[arg(long)]
    small: bool,
    /// Where to write the table (default: RESULTS.md beside this crate's README).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seconds an analysis may take before it is stopped and reported as a timeout
    /// (default: 60, or 20 with --small).
    #[arg(long)]
    time_limit: Option<u64>,
    /// The agent library (default: $MEMBOUND_AGENT, else the workspace's, built by cargo).
    #[arg(long)]
    agent: Option<PathBuf>,
    /// Only the methods whose name contains this text (repeatable); the programs table keeps
    /// its rows whose method contains it.
    #[arg(long)]
    only: Vec<String>,
    /// Also analyze the random sample of public methods of the library jars (40 per jar, each
    /// up to 30 s: up to an hour).
    #[arg(long)]
    sample: bool,
    /// Peak resident memory, in MB, past which an analysis is killed and reported as stopped.
    #[arg(long, default_value_t = 4000)]
    memory_limit: u64,
    #[command(subcommand)]
    child: Option<Child>,
}

#[derive(Debug, Subcommand)]
enum Child {
    /// Analyze one method and write its certificate (the harness runs this in a child process
    /// so that it can stop a slow analysis).
    #[command(hide = true)]
    AnalyzeOne {
        classes: PathBuf,
        method: String,
        out: PathBuf,
    },
}

/// A failure of the harness itself (it cannot compile, build or write), as one line.
#[derive(Debug)]
pub struct Failure(pub String);

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    if let Some(Child::AnalyzeOne {
        classes,
        method,
        out,
    }) = &cli.child
    {
        return analysis::analyze_one(classes, method, out);
    }
    match harness(&cli) {
        Ok(code) => code,
        Err(Failure(message)) => {
            eprintln!("benchmarks-jolden: {message}");
            ExitCode::from(2)
        }
    }
}

fn harness(cli: &Cli) -> Result<ExitCode, Failure> {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = cli
        .out
        .clone()
        .unwrap_or_else(|| crate_dir.join("RESULTS.md"));
    let limit = cli.time_limit.unwrap_or(if cli.small { 20 } else { 60 });
    let limits = Limits {
        time: Duration::from_secs(limit),
        memory_mb: cli.memory_limit,
    };
    // The programs table and the sample stop each analysis at 30 s (issue 18's sample limit).
    let program_limits = Limits {
        time: Duration::from_secs(limit.min(PROGRAM_SECONDS)),
        ..limits
    };
    eprintln!("compiling the programs and building the agent");
    let work = setup::compile(&crate_dir.join("java"))?;
    let agent = setup::agent(cli.agent.as_deref())?;
    let selected: Vec<&'static suite::Benchmark> = suite::SUITE
        .iter()
        .filter(|b| cli.only.is_empty() || cli.only.iter().any(|o| b.method.contains(o.as_str())))
        .collect();
    let mut results = Vec::new();
    for (index, benchmark) in selected.iter().enumerate() {
        eprint!("[{}/{}] {}: ", index + 1, selected.len(), benchmark.method);
        let analysis = analysis::analyze(&work, benchmark.method, limits);
        let mut runs = Vec::new();
        match &analysis {
            Analysis::Done {
                certificate,
                seconds,
                ..
            } => {
                eprintln!("analyzed in {seconds:.2} s");
                for setting in benchmark.settings(cli.small) {
                    let run = check::check(
                        certificate,
                        &work.classes(),
                        &agent,
                        benchmark.main,
                        benchmark.args(setting),
                    );
                    eprintln!("    {}: {}", setting.join(" "), progress(&run));
                    runs.push((setting.iter().map(|s| (*s).to_string()).collect(), run));
                }
            }
            Analysis::Stopped { why, .. } => eprintln!("stopped: {why}"),
            Analysis::Failed(message) => eprintln!("analysis failed: {message}"),
        }
        results.push(MethodResult {
            benchmark,
            analysis,
            runs,
        });
    }
    let command = match (cli.small, cli.sample) {
        (true, _) => "cargo run --release -p benchmarks-jolden -- --small",
        (false, true) => "cargo run --release -p benchmarks-jolden -- --sample",
        (false, false) => "cargo run --release -p benchmarks-jolden",
    };
    // The call trees belong to the whole table, not to a selection of methods.
    let call_trees = if cli.only.is_empty() {
        Some(call_trees::table(cli.small)?)
    } else {
        None
    };
    // Whole programs and library methods: full runs only (CI's small run keeps to the suite).
    let (program_rows, program_load) = if cli.small {
        (Vec::new(), (String::new(), String::new()))
    } else {
        let jars: Vec<&Path> = programs::JARS.iter().map(Path::new).collect();
        setup::compile_drivers(&work, &crate_dir.join("drivers"), &jars)?;
        let before = analysis::load_average();
        let rows = programs::measure(&work, &agent, program_limits, &cli.only);
        (rows, (before, analysis::load_average()))
    };
    let sample = if cli.sample {
        let before = analysis::load_average();
        let sampled = sample::measure(&work, program_limits)?;
        let load = (before, analysis::load_average());
        Some(sample::render(&sampled, program_limits, &load))
    } else {
        None
    };
    let programs_table =
        (!program_rows.is_empty()).then(|| programs::render(&program_rows, &program_load));
    let text = report::render(
        &results,
        &Context {
            small: cli.small,
            time_limit_seconds: limit,
            command,
            call_trees: call_trees.as_deref(),
            programs: programs_table.as_deref(),
            sample: sample.as_deref(),
        },
    );
    std::fs::write(&out, text)
        .map_err(|e| Failure(format!("cannot write {}: {e}", out.display())))?;
    let unsound: usize = results.iter().map(MethodResult::unsound).sum::<usize>()
        + program_rows.iter().filter(|r| r.unsound()).count();
    let errors: usize = results.iter().map(MethodResult::errors).sum::<usize>()
        + program_rows.iter().filter(|r| r.error()).count();
    eprintln!(
        "wrote {}: unsound {unsound}, errors {errors}",
        out.display()
    );
    Ok(if unsound > 0 {
        ExitCode::from(1)
    } else if errors > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

/// The time limit of each analysis of the programs table and of the sample, in seconds.
const PROGRAM_SECONDS: u64 = 30;

/// One line of progress for a run.
fn progress(run: &Result<check::Checked, String>) -> String {
    match run {
        Err(message) => format!("error: {message}"),
        Ok(checked) if checked.validation.unchecked.is_some() => {
            format!(
                "not checked: {}",
                checked.validation.unchecked.as_deref().unwrap_or_default()
            )
        }
        Ok(checked) => {
            let broken = checked.validation.broken().count();
            let objects = checked.total("objects").map_or_else(String::new, |c| {
                format!("objects observed {}, estimate {}", c.observed, c.predicted)
            });
            if broken == 0 {
                format!("{objects}: ok")
            } else {
                format!("{objects}: {broken} prediction(s) below the run")
            }
        }
    }
}

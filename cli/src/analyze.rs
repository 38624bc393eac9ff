//! `membound analyze` and `membound eval`: memAlloc of a method and its call tree, written as a
//! certificate; a certificate's numbers at parameter values.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use membound_polyhedra::{Int, Rat};

use super::progress::Verbosity;
use super::whole::{self, Setting, WholeOptions};
use super::{ListFormat, MethodInput, ModelArg, json_text};
use membound_analysis::lowering::Exceptions;
use membound_analysis::memalloc;
use membound_analysis::memrq;
use membound_certificate::{self as certificate, Certificate};
use membound_front::program::Program;
use membound_jvm::error::{Error, Result};

/// How to read a bound, after the options of `analyze --help` and `eval --help` (the README's
/// "Reading bounds" at more length).
const READING_BOUNDS: &str = "\
Reading bounds:
  cases(g1 -> e1; g2 -> e2; otherwise -> e0)
      the first arm whose guard holds (guards are linear in the parameters)
  [a0, a1, a2]_n
      a periodic coefficient: a_r when n ≡ r (mod 3), so 1/2*n + [0, -1/2]_n is ⌊n/2⌋;
      [a00, a01, a10, a11]_(n,m) is indexed by the residues of n and m, row-major
      (certificates write the same as floor(…) terms)
  2^e, floor_log2(e)
      from recursion (floor_log2(e) is ⌊log2 max(e, 1)⌋)
  max(…)
      from calls whose arguments vary
  ∞
      nothing bounds the value; the report gives the reason (JSON and certificates: infty)
  Bytes are exact, with KiB/MiB/GiB beside them; `leading terms` is the highest degree.";

#[derive(Debug, Args)]
#[command(mut_arg("method", |arg| arg.required(false).required_unless_present("entry_points")))]
#[command(after_long_help = READING_BOUNDS)]
pub(super) struct AnalyzeArgs {
    #[command(flatten)]
    target: MethodInput,
    /// Write the certificate to this file, in the format its extension names (`.yaml`/`.yml`,
    /// `.json`, `.sarif`, `.txt` for the summary; any case), else in `--format` when that is a
    /// certificate format, else YAML.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// What to print: a readable summary, or the certificate itself.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    format: ReportFormat,
    /// How object sizes are computed.
    #[arg(long, value_enum, default_value_t = ModelArg::DEFAULT)]
    object_model: ModelArg,
    /// Name a parameter of the analyzed method, `NEW=OLD` (`--param levels=p0`), or pin one to
    /// a value, `NAME=INTEGER` (`--param n=100`: the certificate then holds only for runs with
    /// that value, an assumption it lists); repeatable, `a=b,c=d` also works.
    #[arg(long = "param", value_name = "NEW=OLD|NAME=INTEGER")]
    params: Vec<String>,
    #[command(flatten)]
    verbosity: Verbosity,
    /// Analyze under an assumption the certificate then names; repeatable.
    #[arg(long, value_enum)]
    assume: Vec<Assumption>,
    #[command(flatten)]
    whole: WholeOptions,
}

/// What `analyze --assume` lets the analysis take for granted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Assumption {
    /// No exception is thrown: handlers and `throw`s (the exception and its stack trace) are
    /// left out, so the bounds hold only for runs that throw nothing.
    NoExceptions,
}

/// One `--param` of `analyze`.
enum ParamEdit {
    Rename { new: String, old: String },
    Pin { name: String, value: i64 },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ReportFormat {
    Text,
    Yaml,
    Json,
    /// SARIF 2.1.0: what keeps bounds from being finite, for code-scanning views.
    Sarif,
}

pub(super) fn analyze(args: &AnalyzeArgs) -> Result<String> {
    let progress = args.verbosity.progress();
    if args.whole.whole_run() || args.target.code.method.len() > 1 {
        if !args.params.is_empty() {
            return Err(Error::Input(
                "--param names a parameter of one method: give it with one --method, without \
                 --entry-points, --cache or --shard"
                    .to_string(),
            ));
        }
        let run = whole::analyze(&args.target, &args.whole, args.setting(), &progress)?;
        return report(args, &run.program, &run.certificate, &run.summary);
    }
    // Bad `--param` text is refused before the analysis runs.
    let edits = parse_param_edits(&args.params)?;
    let deadline = args.whole.deadline()?;
    progress.phase("loading the classes and building the call graph");
    let setting = args.setting();
    let (program, graph) = args
        .target
        .call_graph_within(deadline, setting.exceptions)?;
    let mut bounds = memrq::analyze(
        &program,
        &graph,
        setting.model,
        memrq::Options {
            exceptions: setting.exceptions,
            deadline,
            ..memrq::Options::default()
        },
        &|step| progress.step(step),
    )?;
    progress.finish();
    if let Some(entry) = bounds.methods.first_mut() {
        for edit in edits {
            match edit {
                ParamEdit::Rename { new, old } => entry.rename_param(&old, &new)?,
                ParamEdit::Pin { name, value } => {
                    let pinned = entry.pin_param(&name, value)?;
                    bounds.assumptions.push(pinned);
                }
            }
        }
    }
    let certificate = membound_analysis::certify::certificate(&args.target.code.input, &bounds)?;
    report(args, &program, &certificate, &memalloc::to_text(&bounds))
}

impl AnalyzeArgs {
    fn setting(&self) -> Setting {
        Setting {
            model: self.object_model.0,
            exceptions: if self.assume.contains(&Assumption::NoExceptions) {
                Exceptions::Dropped
            } else {
                Exceptions::Followed
            },
        }
    }
}

/// Writes the certificate to `-o` and returns what `--format` prints (`summary` for text).
fn report(
    args: &AnalyzeArgs,
    program: &Program,
    certificate: &Certificate,
    summary: &str,
) -> Result<String> {
    let render = |format: ReportFormat| match format {
        ReportFormat::Text => summary.to_string(),
        ReportFormat::Yaml => certificate.to_yaml(),
        ReportFormat::Json => certificate.to_json(),
        ReportFormat::Sarif => json_text(&certificate::to_sarif(certificate, &|class| {
            let class = program
                .class(&membound_jvm::ClassName::from_source(class))
                .ok()?;
            class.source_file.as_deref().map(str::to_string)
        })),
    };
    if let Some(path) = &args.output {
        let text = render(file_format(path, args.format));
        std::fs::write(path, text)
            .map_err(|e| Error::Input(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(render(args.format))
}

/// The format of the file `-o` names: its extension's, else `--format`'s when that is a
/// certificate format, else YAML.
fn file_format(path: &Path, asked: ReportFormat) -> ReportFormat {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("json") => ReportFormat::Json,
        Some("yaml" | "yml") => ReportFormat::Yaml,
        Some("sarif") => ReportFormat::Sarif,
        Some("txt") => ReportFormat::Text,
        _ => match asked {
            ReportFormat::Text => ReportFormat::Yaml,
            other => other,
        },
    }
}

#[derive(Debug, Args)]
#[command(after_long_help = READING_BOUNDS)]
pub(super) struct EvalArgs {
    /// A certificate written by `membound analyze -o` (`-`: read it from stdin).
    certificate: PathBuf,
    /// Only this method (`pkg.C.m` or with its descriptor).
    #[arg(long)]
    method: Option<String>,
    /// A parameter value, `n=7` (repeatable; `n=7,m=5` also works; `--at` is the same).
    #[arg(long = "param", visible_alias = "at")]
    params: Vec<String>,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    format: ListFormat,
}

pub(super) fn eval(args: &EvalArgs) -> Result<String> {
    let certificate = Certificate::read(&args.certificate)?;
    let point = parse_params("--param", &args.params)?;
    let evaluation = certificate::evaluate(&certificate, args.method.as_deref(), &point)?;
    Ok(match args.format {
        ListFormat::Text => evaluation.to_text(),
        ListFormat::Json => json_text(&evaluation.to_json()),
    })
}

/// `["levels=p0", "n=100", "a=b,c=d"]` as parameter edits, in order: `NEW=OLD` renames,
/// `NAME=INTEGER` pins.
fn parse_param_edits(params: &[String]) -> Result<Vec<ParamEdit>> {
    params
        .iter()
        .flat_map(|p| p.split(','))
        .map(|text| {
            let (left, right) = text
                .split_once('=')
                .map(|(left, right)| (left.trim(), right.trim()))
                .filter(|(left, right)| !left.is_empty() && !right.is_empty())
                .ok_or_else(|| {
                    Error::Input(format!(
                        "bad --param `{text}`: expected NEW=OLD or NAME=INTEGER"
                    ))
                })?;
            if right.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '-' | '+' | '.')) {
                let value = integer_value("--param", text, right)?;
                let value = i64::try_from(&value).map_err(|_| {
                    Error::Input(format!(
                        "bad --param `{text}`: {value} is beyond 64 bits (a pinned value is a Java int or long)"
                    ))
                })?;
                return Ok(ParamEdit::Pin {
                    name: left.to_string(),
                    value,
                });
            }
            if membound_analysis::lowering::identifier(left) != left {
                return Err(Error::Input(format!(
                    "--param {text}: `{left}` is not a name (letters, digits and _, starting \
                     with a letter)"
                )));
            }
            Ok(ParamEdit::Rename {
                new: left.to_string(),
                old: right.to_string(),
            })
        })
        .collect()
}

/// `["n=7", "m=5,k=1"]` as values by name, integers of any size; malformed text is an input
/// error naming `option` (`--param`, `--at`).
pub(super) fn parse_params(option: &str, params: &[String]) -> Result<BTreeMap<String, Rat>> {
    let mut point = BTreeMap::new();
    for text in params.iter().flat_map(|p| p.split(',')) {
        let (name, value) = text
            .split_once('=')
            .map(|(name, value)| (name.trim(), value.trim()))
            .filter(|(name, _)| !name.is_empty())
            .ok_or_else(|| Error::Input(format!("bad {option} `{text}`: expected NAME=INTEGER")))?;
        point.insert(
            name.to_string(),
            Rat::from(integer_value(option, text, value)?),
        );
    }
    Ok(point)
}

/// The integer `value` of `option`'s `text`, of any size; anything else (`1e30`, `1.5`) is an
/// input error saying so.
fn integer_value(option: &str, text: &str, value: &str) -> Result<Int> {
    value
        .strip_prefix('+')
        .unwrap_or(value)
        .parse::<Int>()
        .map_err(|_| {
            Error::Input(format!(
                "bad {option} `{text}`: `{value}` is not an integer (write it in decimal digits, e.g. 1000000)"
            ))
        })
}

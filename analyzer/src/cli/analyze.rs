//! `membound analyze` and `membound eval`: memAlloc of a method and its call tree, written as a
//! certificate; a certificate's numbers at parameter values.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use membound_polyhedra::Rat;

use super::{ListFormat, MethodInput, json_text};
use crate::certificate::{self, Certificate};
use crate::error::{Error, Result};
use crate::sizes::ObjectModel;
use crate::{memalloc, memrq};

#[derive(Debug, Args)]
pub(super) struct AnalyzeArgs {
    #[command(flatten)]
    target: MethodInput,
    /// Write the certificate to this file (YAML, or JSON when it ends in .json).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// What to print: a readable summary, or the certificate itself.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    format: ReportFormat,
    /// How object sizes are computed.
    #[arg(long, value_enum, default_value_t = ModelArg::HotspotCoops)]
    object_model: ModelArg,
    /// Stop enumerating creation sites after this many chains.
    #[arg(long, default_value_t = crate::sites::DEFAULT_MAX_CHAINS)]
    max_chains: usize,
    /// Name a parameter of the analyzed method, `NEW=OLD` (`--param levels=p0`; repeatable,
    /// `a=b,c=d` also works).
    #[arg(long = "param", value_name = "NEW=OLD")]
    params: Vec<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ReportFormat {
    Text,
    Yaml,
    Json,
    /// SARIF 2.1.0: what keeps bounds from being finite, for code-scanning views.
    Sarif,
}

/// `--object-model`, as clap spells the values.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum ModelArg {
    HotspotCoops,
    HotspotCompact,
    HotspotNocoops,
    Count,
}

impl ModelArg {
    fn model(self) -> ObjectModel {
        match self {
            ModelArg::HotspotCoops => ObjectModel::HotspotCoops,
            ModelArg::HotspotCompact => ObjectModel::HotspotCompact,
            ModelArg::HotspotNocoops => ObjectModel::HotspotNocoops,
            ModelArg::Count => ObjectModel::Count,
        }
    }
}

pub(super) fn analyze(args: &AnalyzeArgs) -> Result<String> {
    let (program, graph, sites) = args.target.sites(args.max_chains)?;
    if let Some(limit) = sites.truncated_at {
        return Err(Error::Input(format!(
            "{} reaches more than {limit} creation sites; raise --max-chains to analyze them all",
            sites.entry
        )));
    }
    let bar = progress_bar();
    let mut bounds = memrq::analyze(&program, &graph, &sites, args.object_model.model(), &|| {
        bar.inc(1)
    })?;
    bar.finish_and_clear();
    if let Some(entry) = bounds.methods.first_mut() {
        for (new, old) in parse_renames(&args.params)? {
            rename_param(entry, &old, &new)?;
        }
    }
    let certificate = Certificate::new(&args.target.input, &bounds)?;
    if let Some(path) = &args.output {
        write_certificate(&certificate, path)?;
    }
    Ok(match args.format {
        ReportFormat::Text => memalloc::to_text(&bounds),
        ReportFormat::Yaml => certificate.to_yaml(),
        ReportFormat::Json => certificate.to_json(),
        ReportFormat::Sarif => json_text(&certificate::to_sarif(&certificate, &|class| {
            let class = program
                .class(&crate::jvm::ClassName::from_source(class))
                .ok()?;
            class.source_file.as_deref().map(str::to_string)
        })),
    })
}

/// A spinner on stderr (drawn only on a terminal) counting chains as they are counted.
fn progress_bar() -> ProgressBar {
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} counting chains: {pos} done [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

fn write_certificate(certificate: &Certificate, path: &Path) -> Result<()> {
    let text = if path.extension().is_some_and(|e| e == "json") {
        certificate.to_json()
    } else {
        certificate.to_yaml()
    };
    std::fs::write(path, text)
        .map_err(|e| Error::Input(format!("cannot write {}: {e}", path.display())))
}

#[derive(Debug, Args)]
pub(super) struct EvalArgs {
    /// A certificate written by `membound analyze -o`.
    certificate: PathBuf,
    /// Only this method (`pkg.C.m` or with its descriptor).
    #[arg(long)]
    method: Option<String>,
    /// A parameter value, `n=7` (repeatable; `n=7,m=5` also works).
    #[arg(long = "param")]
    params: Vec<String>,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    format: ListFormat,
}

pub(super) fn eval(args: &EvalArgs) -> Result<String> {
    let certificate = Certificate::read(&args.certificate)?;
    let point = parse_params(&args.params)?;
    let evaluation = certificate::evaluate(&certificate, args.method.as_deref(), &point)?;
    Ok(match args.format {
        ListFormat::Text => evaluation.to_text(),
        ListFormat::Json => json_text(&evaluation.to_json()),
    })
}

/// `["levels=p0", "a=b,c=d"]` as (new name, old name) pairs, in order.
fn parse_renames(params: &[String]) -> Result<Vec<(String, String)>> {
    params
        .iter()
        .flat_map(|p| p.split(','))
        .map(|text| {
            let (new, old) = text
                .split_once('=')
                .map(|(new, old)| (new.trim(), old.trim()))
                .filter(|(new, old)| !new.is_empty() && !old.is_empty())
                .ok_or_else(|| Error::Input(format!("bad --param `{text}`: expected NEW=OLD")))?;
            if old.parse::<i64>().is_ok() {
                return Err(Error::Input(format!(
                    "--param {text}: pinning a parameter to a value is not supported; \
                     give the value to `membound eval --param {text}` instead"
                )));
            }
            if crate::lowering::identifier(new) != new {
                return Err(Error::Input(format!(
                    "--param {text}: `{new}` is not a name (letters, digits and _, starting \
                     with a letter)"
                )));
            }
            Ok((new.to_string(), old.to_string()))
        })
        .collect()
}

/// Renames parameter `old` of `method` to `new` in its parameter list and in every quantity
/// of its bounds; an unknown `old` or a `new` already taken is an input error listing the
/// parameters.
fn rename_param(method: &mut memalloc::MethodBound, old: &str, new: &str) -> Result<()> {
    let names: Vec<&str> = method.params.iter().map(|p| p.name.as_str()).collect();
    let list = if names.is_empty() {
        "it has none".to_string()
    } else {
        format!("its parameters: {}", names.join(", "))
    };
    if !names.contains(&old) {
        return Err(Error::Input(format!(
            "--param {new}={old}: {} has no parameter `{old}`; {list}",
            method.method
        )));
    }
    if new != old && names.contains(&new) {
        return Err(Error::Input(format!(
            "--param {new}={old}: {} already has a parameter `{new}`; {list}",
            method.method
        )));
    }
    let rename = |name: &str| {
        if name == old {
            new.to_string()
        } else {
            name.to_string()
        }
    };
    let amount = |amount: &mut memalloc::Amount| {
        amount.objects = amount.objects.renamed(&rename);
        amount.bytes = amount.bytes.renamed(&rename);
    };
    for param in method.params.iter_mut().filter(|p| p.name == old) {
        param.name = new.to_string();
        param.origin = format!("{}; named {new} by --param", param.origin);
    }
    amount(&mut method.mem_alloc);
    for site in &mut method.sites {
        site.count = site.count.renamed(&rename);
        amount(&mut site.amount);
    }
    if let Some(regions) = &mut method.regions {
        amount(&mut regions.mem_captured);
        amount(&mut regions.mem_escapes);
        amount(&mut regions.mem_rq);
        for node in &mut regions.tree {
            amount(&mut node.r_size);
            amount(&mut node.mem_rq);
        }
    }
    Ok(())
}

/// `["n=7", "m=5,k=1"]` as values by name; malformed text is an input error.
pub(super) fn parse_params(params: &[String]) -> Result<BTreeMap<String, Rat>> {
    let mut point = BTreeMap::new();
    for text in params.iter().flat_map(|p| p.split(',')) {
        let bad = || Error::Input(format!("bad --param `{text}`: expected NAME=INTEGER"));
        let (name, value) = text.split_once('=').ok_or_else(bad)?;
        let value: i64 = value.trim().parse().map_err(|_| bad())?;
        point.insert(name.trim().to_string(), Rat::from(value));
    }
    Ok(point)
}

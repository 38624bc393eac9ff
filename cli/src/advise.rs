//! `membound advise`: where clearing a reference lowers a method's peak, and by how much.

use clap::{Args, ValueEnum};

use super::analyze::parse_params;
use super::{MethodInput, ModelArg, json_text};
use membound_analysis::{advise, memrq};
use membound_jvm::error::Result;

#[derive(Debug, Args)]
pub(super) struct AdviseArgs {
    #[command(flatten)]
    target: MethodInput,
    /// Parameter values, `n=1000` (repeatable, `a=1,b=2` also works): amounts as numbers, and
    /// an advice kept when it lowers the peak there.
    #[arg(long, visible_alias = "param", value_name = "NAME=INTEGER")]
    at: Vec<String>,
    #[arg(long, value_enum, default_value_t = AdviceFormat::Text)]
    format: AdviceFormat,
    /// How object sizes are computed.
    #[arg(long, value_enum, default_value_t = ModelArg::DEFAULT)]
    object_model: ModelArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum AdviceFormat {
    Text,
    Json,
    /// SARIF 2.1.0: one note per advice, for code-scanning views.
    Sarif,
}

pub(super) fn advise(args: &AdviseArgs) -> Result<String> {
    let point = parse_params("--at", &args.at)?;
    let at = (!args.at.is_empty()).then_some(&point);
    let (program, graph) = args.target.call_graph()?;
    let report = advise::advise(
        &program,
        &graph,
        args.object_model.0,
        memrq::Options::default(),
        at,
    )?;
    match args.format {
        AdviceFormat::Text => advise::to_text(&report, at),
        AdviceFormat::Json => Ok(json_text(&advise::to_json(&report, at)?)),
        AdviceFormat::Sarif => Ok(json_text(&advise::to_sarif(&report, at, &|class| {
            let class = program
                .class(&membound_jvm::ClassName::from_source(class))
                .ok()?;
            class.source_file.as_deref().map(str::to_string)
        })?)),
    }
}

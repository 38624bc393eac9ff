//! `membound heap`: what a running program's heap holds (the `membound-heap` crate): abstract
//! heap graphs of snapshots taken by the agent or read from HPROF dumps.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use membound_heap::graph::abstract_heap;
use membound_heap::invariants;
use membound_heap::scope::RootSelection;
use membound_heap::shape::{self, ShapeFile};
use membound_heap::{Snapshot, render};

use super::{ListFormat, ProgramRun, RUN_PHASE, json_text};
use membound_jvm::error::{Error, Result};
use membound_runtime::measure::{SnapshotMoment, run_for_snapshots};

#[derive(Debug, Args)]
pub(super) struct HeapArgs {
    #[command(subcommand)]
    command: HeapCommand,
}

#[derive(Debug, Subcommand)]
enum HeapCommand {
    /// Summarize a heap snapshot into structures with their shapes and the edges between them
    /// (an abstract heap graph).
    Graph(GraphArgs),
    /// Compare two heaps (HPROF dumps, agent snapshot files, or graphs saved with `graph
    /// --format json`): growth per structure and shape changes; exit 1 on a shape regression.
    Diff(DiffArgs),
    /// Degree metrics of recursive structures (ShapeUp): learn them from good runs, check a
    /// later run against them.
    #[command(subcommand)]
    Shape(ShapeCommand),
    /// Per application class, the invariants that held at every garbage collection of a run
    /// (never shared, acyclic, a field never null, of one type or constant, an instance
    /// count); with --check, a run compared with saved ones: exit 1 on a violation.
    Invariants(InvariantsArgs),
    /// The most memory a run kept reachable: per snapshot the bytes reached from the roots
    /// (at `--at alloc:pkg.Class.method`, at each allocation that method's code makes, plus
    /// the object being made), and the largest.
    Peak(PeakArgs),
}

#[derive(Debug, Args)]
struct PeakArgs {
    #[command(flatten)]
    input: HeapInput,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    format: ListFormat,
}

#[derive(Debug, Args)]
struct InvariantsArgs {
    #[command(flatten)]
    input: HeapInput,
    /// Invariants saved with `--format json`: report those this run violates, with the
    /// allocation site of a violating object, and exit 1 if any.
    #[arg(long, value_name = "FILE")]
    check: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    format: ListFormat,
}

#[derive(Debug, Subcommand)]
enum ShapeCommand {
    /// Learn degree metrics from the snapshots of a run (every snapshot is a sample), adding to
    /// the file's samples when it exists.
    Learn(ShapeLearnArgs),
    /// Check each snapshot of a run against learned metrics: exit 1 when a fixed metric breaks
    /// (range metrics only warn).
    Check(ShapeCheckArgs),
}

#[derive(Debug, Args)]
struct ShapeLearnArgs {
    /// The metrics file (YAML) to write; samples already in it are kept.
    #[arg(short = 'o', long = "output")]
    output: PathBuf,
    #[command(flatten)]
    input: HeapInput,
}

#[derive(Debug, Args)]
struct ShapeCheckArgs {
    /// A metrics file written by `heap shape learn`.
    metrics: PathBuf,
    #[command(flatten)]
    input: HeapInput,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    format: ListFormat,
}

/// Where the snapshots come from: a file, or a run of the program under the agent.
#[derive(Debug, Args)]
struct HeapInput {
    /// An HPROF dump (`jcmd PID GC.heap_dump`, `-XX:+HeapDumpOnOutOfMemoryError`), a snapshot
    /// file of the agent, or the program to run: a jar or a directory of classes.
    input: PathBuf,
    /// When to snapshot the program's heap: `end` (as main returns), `exit:pkg.Class.method`
    /// (at each exit of that method), `alloc:pkg.Class.method` (at each allocation that
    /// method's own code makes), `gc` (after each garbage collection). Default: end (gc for
    /// `peak`).
    #[arg(long)]
    at: Option<String>,
    /// The roots the structures are reached from: the program's (statics of application
    /// classes, locals of application methods) or all of the JVM's.
    #[arg(long, value_enum, default_value_t = Roots::Program)]
    roots: Roots,
    #[command(flatten)]
    run: ProgramRun,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Roots {
    Program,
    All,
}

impl Roots {
    fn selection(self) -> RootSelection {
        match self {
            Roots::Program => RootSelection::Program,
            Roots::All => RootSelection::All,
        }
    }
}

impl HeapInput {
    /// The snapshots of the file, or of a run of the program at `--at` (default `default_at`).
    fn snapshots(&self, default_at: &str) -> Result<Vec<Snapshot>> {
        if membound_heap::is_snapshot_file(&self.input) {
            if self.at.is_some() || self.run.main.is_some() {
                return Err(Error::Input(format!(
                    "{} is a heap snapshot file: --at and --main apply to a program run",
                    self.input.display()
                )));
            }
            let progress = self.run.verbosity.progress();
            progress.phase("reading the heap");
            let snapshots = membound_heap::read_snapshots(&self.input).map_err(heap_error);
            progress.finish();
            return snapshots;
        }
        let moment = SnapshotMoment::parse(self.at.as_deref().unwrap_or(default_at))?;
        let options = self.run.options(self.input.clone(), String::new())?;
        let progress = self.run.verbosity.progress();
        progress.phase(RUN_PHASE);
        let run = run_for_snapshots(&options, &moment)?;
        // The program's own output goes to stderr, so stdout stays the report.
        progress.print(&run.stdout);
        if let Some(code) = run.exit_code.filter(|&c| c != 0) {
            progress.print(&format!(
                "membound: warning: the program ended with status {code}\n"
            ));
        }
        progress.phase("reading the snapshots");
        let file = std::fs::File::open(run.path()).map_err(|source| Error::Io {
            path: run.path().to_owned(),
            source,
        })?;
        let (snapshots, report) =
            membound_heap::agent_file::read_with_report(std::io::BufReader::new(file))
                .map_err(heap_error)?;
        progress.finish();
        for problem in &report.problems {
            eprintln!("membound: warning: agent: {problem}");
        }
        match report.errors {
            Some(0) => {}
            Some(errors) => {
                eprintln!("membound: warning: {errors} JVMTI calls failed in the agent")
            }
            None => {
                eprintln!("membound: warning: the agent's file has no end (the JVM was killed?)")
            }
        }
        Ok(snapshots)
    }

    /// The last snapshot: what the heap held at the latest moment asked for.
    fn last_snapshot(&self, default_at: &str) -> Result<Snapshot> {
        self.snapshots(default_at)?.pop().ok_or_else(|| {
            Error::Input(format!(
                "no snapshot was taken (the moment `{}` never came in this run)",
                self.at.as_deref().unwrap_or(default_at)
            ))
        })
    }
}

fn heap_error(error: membound_heap::Error) -> Error {
    Error::Input(error.to_string())
}

#[derive(Debug, Args)]
struct GraphArgs {
    #[command(flatten)]
    input: HeapInput,
    #[arg(long, value_enum, default_value_t = GraphFormat::Text)]
    format: GraphFormat,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum GraphFormat {
    Text,
    Json,
    Dot,
    /// DOT rendered by graphviz's `dot` (Debian package graphviz).
    Svg,
}

#[derive(Debug, Args)]
struct DiffArgs {
    /// The heap before.
    before: PathBuf,
    /// The heap after.
    after: PathBuf,
    /// The roots the structures of a snapshot are reached from (graphs saved as JSON keep
    /// theirs).
    #[arg(long, value_enum, default_value_t = Roots::Program)]
    roots: Roots,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    format: ListFormat,
}

/// Runs `membound heap …`: the report, and whether a check failed.
pub(super) fn heap(args: &HeapArgs) -> Result<(String, bool)> {
    match &args.command {
        HeapCommand::Graph(graph) => graph_command(graph).map(|out| (out, false)),
        HeapCommand::Diff(diff) => diff_command(diff),
        HeapCommand::Shape(ShapeCommand::Learn(learn)) => {
            shape_learn(learn).map(|out| (out, false))
        }
        HeapCommand::Shape(ShapeCommand::Check(check)) => shape_check(check),
        HeapCommand::Invariants(args) => invariants_command(args),
        HeapCommand::Peak(args) => {
            let snapshots = args.input.snapshots("gc")?;
            let peak = membound_heap::peak::peak(&snapshots, args.input.roots.selection());
            Ok(match args.format {
                ListFormat::Text => (peak.to_text(), false),
                ListFormat::Json => (json_text(&peak.to_json()), false),
            })
        }
    }
}

fn invariants_command(args: &InvariantsArgs) -> Result<(String, bool)> {
    let saved = match &args.check {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })?;
            Some(
                invariants::Report::parse(&text, &path.display().to_string())
                    .map_err(heap_error)?,
            )
        }
        None => None,
    };
    let snapshots = args.input.snapshots("gc")?;
    if snapshots.is_empty() {
        return Err(Error::Input(
            "no snapshot was taken: the run had no garbage collection (a program can ask for one with System.gc() where it should be observed)".to_owned(),
        ));
    }
    let selection = args.input.roots.selection();
    let Some(saved) = saved else {
        let report = invariants::infer(&snapshots, selection);
        return Ok((
            match args.format {
                ListFormat::Text => report.to_text(),
                ListFormat::Json => json_text(&report.to_json()),
            },
            false,
        ));
    };
    let violations = invariants::check(&saved, &snapshots, selection);
    let report = match args.format {
        ListFormat::Text => {
            let mut out: String = violations.iter().map(|v| v.text() + "\n").collect();
            out.push_str(&format!(
                "{} invariant(s) checked in {} snapshot(s): {} violation(s)\n",
                saved.invariants.len(),
                snapshots.len(),
                violations.len()
            ));
            out
        }
        ListFormat::Json => json_text(&serde_json::json!({
            "checked": saved.invariants.len(),
            "snapshots": snapshots.len(),
            "violations": violations,
        })),
    };
    Ok((report, !violations.is_empty()))
}

fn read_shape_file(path: &std::path::Path) -> Result<ShapeFile> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    ShapeFile::parse(&text, &path.display().to_string()).map_err(heap_error)
}

fn shape_learn(args: &ShapeLearnArgs) -> Result<String> {
    let mut file = if args.output.exists() {
        read_shape_file(&args.output)?
    } else {
        ShapeFile::new()
    };
    let snapshots = args.input.snapshots("end")?;
    let selection = args.input.roots.selection();
    for snapshot in &snapshots {
        file.learn(shape::samples(snapshot, selection));
    }
    std::fs::write(&args.output, file.to_yaml()).map_err(|source| Error::Io {
        path: args.output.clone(),
        source,
    })?;
    Ok(format!(
        "{} sample(s) learned into {}: {} class(es) of recursive structures\n",
        snapshots.len(),
        args.output.display(),
        file.classes.len()
    ))
}

fn shape_check(args: &ShapeCheckArgs) -> Result<(String, bool)> {
    let file = read_shape_file(&args.metrics)?;
    let snapshots = args.input.snapshots("end")?;
    let selection = args.input.roots.selection();
    let findings: Vec<shape::Finding> = snapshots
        .iter()
        .flat_map(|snapshot| file.check(&snapshot.moment, &shape::samples(snapshot, selection)))
        .collect();
    let broken = findings.iter().filter(|f| f.fixed).count();
    let report = match args.format {
        ListFormat::Text => {
            let mut out: String = findings.iter().map(|f| f.text() + "\n").collect();
            out.push_str(&format!(
                "{} snapshot(s) checked: {broken} fixed metric(s) broken, {} range warning(s)\n",
                snapshots.len(),
                findings.len() - broken
            ));
            out
        }
        ListFormat::Json => json_text(&serde_json::json!({
            "snapshots": snapshots.len(),
            "broken": broken,
            "findings": findings,
        })),
    };
    Ok((report, broken > 0))
}

fn diff_command(args: &DiffArgs) -> Result<(String, bool)> {
    let selection = args.roots.selection();
    let before = membound_heap::read_graph(&args.before, selection).map_err(heap_error)?;
    let after = membound_heap::read_graph(&args.after, selection).map_err(heap_error)?;
    let found = membound_heap::diff::diff(&before, &after);
    let report = match args.format {
        ListFormat::Text => found.to_text(),
        ListFormat::Json => json_text(&found.to_json()),
    };
    Ok((report, found.regressions > 0))
}

fn graph_command(args: &GraphArgs) -> Result<String> {
    let snapshot = args.input.last_snapshot("end")?;
    let graph = abstract_heap(&snapshot, args.input.roots.selection()).graph;
    Ok(match args.format {
        GraphFormat::Text => render::to_text(&graph),
        GraphFormat::Json => json_text(&render::to_json(&graph)),
        GraphFormat::Dot => render::to_dot(&graph),
        GraphFormat::Svg => svg(&render::to_dot(&graph))?,
    })
}

/// Renders DOT as SVG with graphviz's `dot`.
fn svg(dot: &str) -> Result<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            Error::Input(format!(
                "--format svg needs graphviz's `dot`, which cannot be run ({e}): install graphviz (Debian: apt-get install graphviz), or use --format dot"
            ))
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(dot.as_bytes())
            .map_err(|e| Error::Input(format!("cannot hand the graph to `dot`: {e}")))?;
    }
    let output = child
        .wait_with_output()
        .map_err(|e| Error::Input(format!("`dot` failed: {e}")))?;
    if !output.status.success() {
        return Err(Error::Input(format!(
            "`dot` failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

//! The `membound` command: parses arguments with clap and calls the libraries. Keep it thin:
//! every command loads its input, calls one library function, and prints one of its
//! renderings. Errors print as one line on stderr and exit with code 2. It knows no algorithm.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod advise;
mod agent;
mod analyze;
mod cache;
mod check;
mod codegen;
mod completions;
mod diff;
mod heap;
mod invariants;
mod math;
mod progress;
mod validate;
mod whole;

use membound_analysis::memrq;
use membound_analysis::sites;
use membound_analysis::sites::Sites;
use membound_certificate::Certificate;
use membound_front::callgraph;
use membound_front::callgraph::CallGraph;
use membound_front::classpath::{Classpath, Jdk};
use membound_front::hierarchy::Hierarchy;
use membound_front::ir::{self, Exceptions};
use membound_front::program::Program;
use membound_front::select::select_method;
use membound_front::sizes::ObjectModel;
use membound_front::specs::Specs;
use membound_jvm::MethodRef;
use membound_jvm::error::{Error, Result};
use membound_runtime::measure;

/// The version `--version` prints: the crate's, with the commit it was built from (cli/build.rs).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("MEMBOUND_COMMIT"),
    ")"
);

/// Parametric heap-memory bounds for Java bytecode.
#[derive(Debug, Parser)]
#[command(name = "membound", version = VERSION, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Bound what a method and every method of its call tree allocate (memAlloc), print a
    /// summary and write the certificate; with --entry-points, every entry point of the input.
    Analyze(analyze::AnalyzeArgs),
    /// Evaluate a certificate at parameter values.
    Eval(analyze::EvalArgs),
    /// Join the certificates of shards (`analyze --entry-points … --shard I/N`) into the one
    /// the whole run writes.
    Merge(whole::MergeArgs),
    /// Where clearing a reference (`x = null`) after its last use lowers a method's peak, and
    /// by how much.
    Advise(advise::AdviseArgs),
    /// Run the program under the allocation agent and check the certificate against the run:
    /// exit 1 if any prediction is below what was observed.
    Validate(validate::ValidateArgs),
    /// Check a certificate's bounds against budgets: exit 1 if one is broken.
    Check(check::CheckArgs),
    /// Compare two certificates method by method: exit 1 on a regression.
    Diff(diff::DiffArgs),
    /// Write code that evaluates a certificate's bounds at run time.
    Codegen(codegen::CodegenArgs),
    /// Print a method's IR (typed three-address code with its control-flow graph).
    Ir {
        #[command(flatten)]
        target: ProgramInput,
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
    },
    /// Print the call graph reachable from a method.
    Callgraph {
        #[command(flatten)]
        target: MethodInput,
        #[arg(long, value_enum, default_value_t = GraphFormat::Text)]
        format: GraphFormat,
    },
    /// List the creation sites (allocation call chains) reachable from a method.
    Sites {
        #[command(flatten)]
        target: MethodInput,
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
        /// Stop enumerating after this many chains (no bound depends on them).
        #[arg(long, visible_alias = "budget-chains", default_value_t = sites::DEFAULT_MAX_CHAINS)]
        max_chains: usize,
    },
    /// Print, per creation site of a method, its chain and the invariant counted for it (isl).
    Invariants {
        #[command(flatten)]
        target: MethodInput,
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
        /// Stop enumerating after this many chains (no bound depends on them).
        #[arg(long, visible_alias = "budget-chains", default_value_t = sites::DEFAULT_MAX_CHAINS)]
        max_chains: usize,
    },
    /// Print the region tree of a method: each activation with its region's size, memRq and
    /// the creation sites its region captures, and the sites that escape the method.
    Regions {
        #[command(flatten)]
        target: MethodInput,
        #[arg(long, value_enum, default_value_t = TreeFormat::Text)]
        format: TreeFormat,
        /// How object sizes are computed.
        #[arg(long, value_enum, default_value_t = ModelArg::DEFAULT)]
        object_model: ModelArg,
        #[command(flatten)]
        verbosity: progress::Verbosity,
    },
    /// Run the program on a real JVM under the allocation agent and count, per creation site,
    /// what the method allocates.
    Measure(MeasureArgs),
    /// What a running program's heap holds: abstract heap graphs, their differences, degree
    /// metrics and invariants, from snapshots the agent takes or HPROF dumps.
    Heap(heap::HeapArgs),
    /// Count the integer points of a parametric set given in isl syntax, e.g.
    /// '[n] -> { [i,j] : 1 <= i <= n and 1 <= j <= i }'.
    Count {
        /// The set (omit with --file; `-`: read it from stdin).
        set: Option<String>,
        /// Count each line of this file instead (blank lines and # comments skipped; `-`:
        /// stdin).
        #[arg(long)]
        file: Option<PathBuf>,
        /// Also print the count at this point, alone on the last line: n=7,m=5.
        #[arg(long, visible_alias = "param")]
        at: Option<String>,
        #[arg(long, value_enum, default_value_t = math::MathFormat::Text)]
        format: math::MathFormat,
    },
    /// Bound a polynomial from above over a parametric set, in the parameters, e.g.
    /// '[n] -> { [i] -> i*(n - i) : 0 <= i <= n }'.
    Bound {
        /// The piecewise polynomial in isl syntax (`-`: read it from stdin).
        polynomial: String,
        /// Also print the bound's value at this point, alone on the last line: n=10.
        #[arg(long, visible_alias = "param")]
        at: Option<String>,
        /// Most Bernstein coefficients expanded per chamber; past it (or past
        /// --budget-degree) a chamber is bounded by its vertices' largest coordinates, which
        /// may be looser, and a note says so.
        #[arg(long, default_value_t = membound_bernstein::DEFAULT_MAX_COEFFICIENTS)]
        budget_coefficients: u128,
        /// Highest total degree expanded by Bernstein.
        #[arg(long, default_value_t = membound_bernstein::DEFAULT_MAX_DEGREE)]
        budget_degree: u32,
        #[arg(long, value_enum, default_value_t = math::MathFormat::Text)]
        format: math::MathFormat,
    },
    /// Print the shell completion script, e.g. `membound completions bash >
    /// /etc/bash_completion.d/membound`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), e.g. `membound man > membound.1`.
    #[command(alias = "manpage")]
    Man,
}

#[derive(Debug, Args)]
struct MeasureArgs {
    /// A .jar or a directory of classes.
    input: PathBuf,
    /// The watched method, written as for `analyze --method`.
    #[arg(long)]
    method: String,
    /// A certificate with regions: also report the peak of the run replayed into them (each
    /// object freed when the method whose region holds it returns).
    #[arg(long)]
    cert: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    format: ListFormat,
    #[command(flatten)]
    run: ProgramRun,
}

/// How to run the program under the agent (shared by `measure` and `validate`).
#[derive(Debug, Args)]
struct ProgramRun {
    /// The main class (default: the jar manifest's Main-Class).
    #[arg(long)]
    main: Option<String>,
    /// The java launcher (default: $JAVA_HOME/bin/java, then java on PATH).
    #[arg(long)]
    java: Option<PathBuf>,
    /// The agent library (default: $MEMBOUND_AGENT, then the one built into membound).
    #[arg(long)]
    agent: Option<PathBuf>,
    /// An extra JVM option, such as -Xmx2g (repeatable).
    #[arg(long = "jvm-arg", allow_hyphen_values = true)]
    jvm_args: Vec<String>,
    /// The program's arguments, after `--`.
    #[arg(last = true)]
    program_args: Vec<String>,
    #[command(flatten)]
    verbosity: progress::Verbosity,
}

impl ProgramRun {
    fn options(&self, input: PathBuf, method: String) -> Result<measure::MeasureOptions> {
        Ok(measure::MeasureOptions {
            input,
            method,
            main: self.main.clone(),
            java: self.java.clone(),
            agent: Some(agent::agent_library(self.agent.as_deref())?),
            jvm_args: self.jvm_args.clone(),
            program_args: self.program_args.clone(),
        })
    }
}

/// The phase of a command that runs the program under the agent, which reads the agent's events
/// as the program ends.
const RUN_PHASE: &str = "running the program under the agent";

/// The program to load and the method to look at.
#[derive(Debug, Args)]
struct ProgramInput {
    /// A .jar, a directory of classes, or a .class file.
    input: PathBuf,
    /// The method: `pkg.Class.method`; for an overload `pkg.Class.method(int, String)` or
    /// `pkg.Class.method(ILjava/lang/String;)V`; or a Soot signature
    /// `<pkg.Class: void method(int)>`. Nested classes as `Outer.Inner` or `Outer$Inner`.
    /// `analyze` takes several (repeated): each an entry point of one certificate.
    #[arg(long, required = true)]
    method: Vec<String>,
    /// More classpath entries, separated by ':'.
    #[arg(long)]
    classpath: Option<String>,
    /// The JDK whose classes to use (default: $JAVA_HOME, then the java on PATH).
    #[arg(long)]
    jdk: Option<PathBuf>,
}

/// The program and method, and what decides how far the analysis reaches from the method:
/// the specs and the call graph's budget. (`ir` looks at one body and takes only the
/// program.)
#[derive(Debug, Args)]
struct MethodInput {
    #[command(flatten)]
    code: ProgramInput,
    /// A library spec file (YAML, docs/specs.md): what the methods it names allocate, stated
    /// instead of analyzed; its entries override the bundled ones. Repeatable.
    #[arg(long = "spec", value_name = "FILE")]
    specs: Vec<PathBuf>,
    /// Analyze the JDK from its bytecode only, without the bundled specs of JDK methods.
    #[arg(long)]
    no_bundled_specs: bool,
    /// Most methods with code in the call graph (spec'd methods and natives do not count): past
    /// it, the methods not read yet are not analyzed and every virtual call a class not seen may
    /// still reach is unresolved, so what reaches them is ∞ with the budget as reason.
    #[arg(long, value_name = "METHODS", default_value_t = callgraph::DEFAULT_MAX_METHODS)]
    budget_methods: usize,
}

/// `--object-model`, which takes the models' own names.
#[derive(Debug, Clone, Copy)]
struct ModelArg(ObjectModel);

impl ModelArg {
    const DEFAULT: ModelArg = ModelArg(ObjectModel::HotspotCoops);
}

impl std::fmt::Display for ModelArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name())
    }
}

impl ValueEnum for ModelArg {
    fn value_variants<'a>() -> &'a [Self] {
        const ALL: [ModelArg; ObjectModel::ALL.len()] = {
            let mut all = [ModelArg::DEFAULT; ObjectModel::ALL.len()];
            let mut index = 0;
            while index < all.len() {
                all[index] = ModelArg(ObjectModel::ALL[index]);
                index += 1;
            }
            all
        };
        &ALL
    }
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.0.name()))
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum GraphFormat {
    Text,
    Dot,
    Json,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum TreeFormat {
    Text,
    Json,
    Dot,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ListFormat {
    Text,
    Json,
}

/// Entry point of the `membound` binary.
fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match run(cli.command) {
        Ok((output, failed)) => {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (`membound … | head`) is not an error of ours.
            let _ = stdout.write_all(output.as_bytes());
            // A check that failed (an unsound certificate) exits 1, after its report.
            ExitCode::from(u8::from(failed))
        }
        Err(error) => {
            eprintln!("membound: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}

/// Runs one command and returns what it prints and whether a check it made failed.
fn run(command: Command) -> Result<(String, bool)> {
    let output = match command {
        Command::Validate(args) => return validate::validate(&args),
        Command::Check(args) => return check::check(&args),
        Command::Diff(args) => return diff::diff(&args),
        Command::Codegen(args) => return codegen::codegen(&args),
        Command::Heap(args) => return heap::heap(&args),
        Command::Analyze(args) => analyze::analyze(&args),
        Command::Eval(args) => analyze::eval(&args),
        Command::Merge(args) => whole::merge(&args),
        Command::Advise(args) => advise::advise(&args),
        Command::Ir { target, format } => {
            let (program, method) = target.load()?;
            let body = program.body(&method)?;
            Ok(match format {
                ListFormat::Text => ir::print_body(&body),
                ListFormat::Json => json_text(&ir::body_to_json(&body)),
            })
        }
        Command::Callgraph { target, format } => {
            let (_, graph) = target.call_graph()?;
            Ok(match format {
                GraphFormat::Text => callgraph::to_text(&graph),
                GraphFormat::Dot => callgraph::to_dot(&graph),
                GraphFormat::Json => json_text(&callgraph::to_json(&graph)),
            })
        }
        Command::Sites {
            target,
            format,
            max_chains,
        } => {
            let (_, _, found) = target.sites(max_chains)?;
            Ok(match format {
                ListFormat::Text => sites::to_text(&found),
                ListFormat::Json => json_text(&sites::to_json(&found)),
            })
        }
        Command::Invariants {
            target,
            format,
            max_chains,
        } => invariants::invariants(&target, max_chains, format),
        Command::Regions {
            target,
            format,
            object_model,
            verbosity,
        } => {
            let progress = verbosity.progress();
            progress.phase("loading the classes and building the call graph");
            let (program, graph) = target.call_graph()?;
            let bounds = memrq::analyze(
                &program,
                &graph,
                object_model.0,
                memrq::Options {
                    region_tree: true,
                    ..memrq::Options::default()
                },
                &|step| progress.step(step),
            )?;
            progress.finish();
            Ok(match format {
                TreeFormat::Text => memrq::to_text(&bounds),
                TreeFormat::Json => json_text(&memrq::to_json(&bounds)),
                TreeFormat::Dot => memrq::to_dot(&bounds),
            })
        }
        Command::Count {
            set,
            file,
            at,
            format,
        } => math::count(set.as_deref(), file.as_deref(), at.as_deref(), format),
        Command::Bound {
            polynomial,
            at,
            budget_coefficients,
            budget_degree,
            format,
        } => {
            let limits = membound_bernstein::Limits {
                max_coefficients: budget_coefficients,
                max_degree: budget_degree,
            };
            math::bound(&polynomial, at.as_deref(), limits, format)
        }
        Command::Completions { shell } => Ok(completions::completions(shell)),
        Command::Man => completions::man_page(),
        Command::Measure(args) => {
            let options = args.run.options(args.input.clone(), args.method.clone())?;
            let progress = args.run.verbosity.progress();
            progress.phase(RUN_PHASE);
            let measurement = match &args.cert {
                Some(path) => {
                    let certificate = Certificate::read(path)?;
                    let entry = certificate.method(&args.method)?;
                    if entry.mem_rq.is_none() {
                        return Err(Error::Input(format!(
                            "{} has no regions for {} (analyze it again with this membound)",
                            path.display(),
                            entry.method
                        )));
                    }
                    measure::measure_regions(
                        &options,
                        membound_runtime::validate::placement(
                            &certificate,
                            entry,
                            membound_runtime::validate::Freed::Earliest,
                        ),
                    )?
                }
                None => measure::measure(&options)?,
            };
            progress.finish();
            // The program's own output goes to stderr, so stdout stays the report.
            eprint!("{}", measurement.program_stdout);
            Ok(match args.format {
                ListFormat::Text => measurement.to_text(),
                ListFormat::Json => json_text(&measurement.to_json()),
            })
        }
    }?;
    Ok((output, false))
}

impl MethodInput {
    /// Loads the program and builds the call graph from the method.
    fn call_graph(&self) -> Result<(Program, CallGraph)> {
        self.call_graph_within(None, Exceptions::Followed)
    }

    /// [`Self::call_graph`], stopping at `deadline` (`analyze --entry-time-limit`), without
    /// the calls of exceptional paths where `exceptions` drops them.
    fn call_graph_within(
        &self,
        deadline: Option<Instant>,
        exceptions: Exceptions,
    ) -> Result<(Program, CallGraph)> {
        let (program, method) = self.load()?;
        let options = callgraph::BuildOptions {
            max_methods: self.budget_methods,
            deadline,
            exceptions,
        };
        let graph =
            callgraph::build_within(&Hierarchy::new(&program), &method, &self.specs()?, &options)?;
        Ok((program, graph))
    }

    /// The bundled specs (unless turned off), then the `--spec` files in order.
    fn specs(&self) -> Result<Specs> {
        let mut specs = if self.no_bundled_specs {
            Specs::none()
        } else {
            Specs::bundled()
        };
        for path in &self.specs {
            specs.add_file(path)?;
        }
        Ok(specs)
    }

    /// Loads the program and enumerates the creation sites of the method, with the call graph
    /// they were found in.
    fn sites(&self, max_chains: usize) -> Result<(Program, CallGraph, Sites)> {
        let (program, graph) = self.call_graph()?;
        let found = sites::enumerate(&program, &graph, max_chains)?;
        Ok((program, graph, found))
    }

    /// Opens the classpath and selects the method.
    fn load(&self) -> Result<(Program, MethodRef)> {
        self.code.load()
    }
}

impl ProgramInput {
    /// Opens the classpath (input, extra entries, JDK) and selects the method.
    fn load(&self) -> Result<(Program, MethodRef)> {
        let text = match self.method.as_slice() {
            [] => return Err(Error::Input("no --method given".to_string())),
            [one] => one,
            several => {
                return Err(Error::Input(format!(
                    "{} methods given: this command looks at one --method (`analyze` takes several, each an entry point)",
                    several.len()
                )));
            }
        };
        let program = self.program()?;
        let method = select_method(&program, text)?;
        Ok((program, method))
    }

    /// Opens the classpath: the input, the extra entries, the JDK.
    fn program(&self) -> Result<Program> {
        let mut classpath = Classpath::new();
        classpath.add_entry(&self.input)?;
        for entry in self.classpath.iter().flat_map(|spec| spec.split(':')) {
            if !entry.is_empty() {
                classpath.add_entry(std::path::Path::new(entry))?;
            }
        }
        classpath.add_jdk(&Jdk::locate(self.jdk.as_deref())?)?;
        Ok(Program::new(classpath))
    }
}

/// Pretty-printed JSON with a final newline.
fn json_text(value: &serde_json::Value) -> String {
    format!("{value:#}\n")
}

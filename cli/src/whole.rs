//! `membound analyze --entry-points public|mains|FILE`: every entry point of an input in one
//! run, in parallel, into one certificate (joined by `membound_certificate::join`), with a
//! summary table; `--cache`, `--shard`; and `membound merge`, which joins shards' certificates.
//!
//! Each entry point is analyzed on its own, from its own call graph, so its result depends only
//! on it (and can be cached and sharded). A failure or a time limit in one entry point makes
//! that entry ∞ with the reason; the run goes on.

use std::any::Any;
use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use clap::Args;
use rayon::prelude::*;

use super::cache::Cache;
use super::progress::Progress;
use super::{MethodInput, VERSION};
use membound_analysis::lowering::Exceptions;
use membound_analysis::memrq;
use membound_certificate::join::Joiner;
use membound_certificate::{Certificate, Input, MethodEntry, value_text};
use membound_front::callgraph;
use membound_front::classpath::{Classpath, Jdk};
use membound_front::entry_points::{EntryKind, entry_points};
use membound_front::hierarchy::Hierarchy;
use membound_front::program::Program;
use membound_front::select::select_method;
use membound_front::sizes::ObjectModel;
use membound_front::specs::Specs;
use membound_jvm::MethodRef;
use membound_jvm::error::{Error, Result};
use membound_polyhedra::{Rat, Value};

#[derive(Debug, Args)]
pub(super) struct WholeOptions {
    /// Analyze every entry point instead of one method: `public` (every public method, with
    /// code, of the input's public classes), `mains` (every `public static void
    /// main(String[])`), or a file naming one method per line as `--method` takes it (blank
    /// lines and `#` comments skipped). One certificate lists them all (`entries`).
    #[arg(long, value_name = "public|mains|FILE", conflicts_with_all = ["method", "params"])]
    pub(super) entry_points: Option<String>,
    /// Keep each entry point's result in this directory, and reuse it while the classes it
    /// depends on, the options and membound are unchanged (with `--method`, a whole run of the
    /// methods given).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Analyze shard I of N (1 <= I <= N): the entry points at positions I, I + N, I + 2N, …
    /// of their sorted list. `membound merge` joins the shards' certificates.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Stop an entry point's analysis (or the one `--method`'s) after this many seconds: what
    /// it has not bounded by then is ∞ with the time limit as its reason. The limit is a deadline looked at for each method
    /// the call graph visits, each edge transfer of the invariant fixpoints, each invariant read
    /// off them, each component summarized and each call and site summed in a summary, so one
    /// long count may still run past it.
    #[arg(long, value_name = "SECONDS")]
    entry_time_limit: Option<f64>,
}

impl WholeOptions {
    /// Whether the options ask for a whole run even of one `--method`: a cache and shards
    /// are the whole run's.
    pub(super) fn whole_run(&self) -> bool {
        self.entry_points.is_some() || self.cache.is_some() || self.shard.is_some()
    }

    /// When one method's analysis must stop (`--entry-time-limit`), counted from now.
    pub(super) fn deadline(&self) -> Result<Option<Instant>> {
        Ok(deadline_after(time_limit(self.entry_time_limit)?))
    }
}

/// How every entry point is analyzed.
#[derive(Clone, Copy, Debug)]
pub(super) struct Setting {
    pub(super) model: ObjectModel,
    pub(super) exceptions: Exceptions,
}

/// How one entry point's analysis went (its certificate goes to the joined one).
struct Outcome {
    method: MethodRef,
    /// The analysis's time in this run (0 from the cache).
    seconds: f64,
    cached: bool,
}

/// What a whole run gives: the program (for SARIF's source files), the joined certificate and
/// the summary table.
pub(super) struct WholeRun {
    pub(super) program: Program,
    pub(super) certificate: Certificate,
    pub(super) summary: String,
}

/// Shards stack well beyond the 2 MiB of a thread's default: the analysis recurses.
const STACK_SIZE: usize = 256 << 20;

pub(super) fn analyze(
    target: &MethodInput,
    options: &WholeOptions,
    setting: Setting,
    progress: &Progress,
) -> Result<WholeRun> {
    let shard = options.shard.as_deref().map(parse_shard).transpose()?;
    let limit = time_limit(options.entry_time_limit)?;
    progress.phase("loading the classes and listing the entry points");
    let program = target.code.program()?;
    let specs = target.specs()?;
    let all = match options.entry_points.as_deref() {
        Some(kind) => list_entries(&program, &target.code.input, kind)?,
        None => methods_given(&program, &target.code.method)?,
    };
    let entries = match shard {
        Some(shard) => shard_of(&all, shard)?,
        None => all,
    };
    let input = Input::of(&target.code.input)?;
    let cache = match &options.cache {
        Some(dir) => Some(Cache::open(
            dir,
            &program,
            &cache_setting(target, setting, options.entry_time_limit)?,
            &Jdk::locate(target.code.jdk.as_deref())?,
        )?),
        None => None,
    };
    let started = Instant::now();
    progress.entries(entries.len());
    let pool = rayon::ThreadPoolBuilder::new()
        .stack_size(STACK_SIZE)
        .build()
        .map_err(|e| Error::Input(format!("cannot start the analysis threads: {e}")))?;
    let run = EntryRun {
        program: &program,
        specs: &specs,
        setting,
        input: &input,
        limit,
        max_methods: target.budget_methods,
        cache: cache.as_ref(),
    };
    // Each entry's certificate is joined as it comes, so the run holds the joined methods'
    // variants rather than every entry's whole certificate.
    let joiner = Mutex::new(Joiner::default());
    let outcomes: Vec<Outcome> = pool.install(|| {
        entries
            .par_iter()
            .map(|method| {
                let (outcome, certificate) = run.outcome(method);
                let joined = lock(&joiner).add(certificate);
                progress.entry_done();
                joined.map(|()| outcome)
            })
            .collect::<Result<_>>()
    })?;
    progress.finish();
    let certificate = joiner
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .finish()?;
    let summary = summary_table(
        &outcomes,
        &certificate,
        shard,
        started.elapsed().as_secs_f64(),
    );
    progress.note(&count_line(&outcomes));
    Ok(WholeRun {
        program,
        certificate,
        summary,
    })
}

/// What every entry point's analysis shares.
struct EntryRun<'r> {
    program: &'r Program,
    specs: &'r Specs,
    setting: Setting,
    input: &'r Input,
    limit: Option<f64>,
    /// `--budget-methods`: each entry's call graph stops growing there.
    max_methods: usize,
    cache: Option<&'r Cache<'r>>,
}

impl EntryRun<'_> {
    /// The entry point's certificate: from the cache, or analyzed (and then stored).
    fn outcome(&self, method: &MethodRef) -> (Outcome, Certificate) {
        if let Some(mut certificate) = self.cache.and_then(|cache| cache.lookup(method)) {
            // The input's hash changes with any of its classes; the result did not.
            certificate.input = self.input.clone();
            let outcome = Outcome {
                method: method.clone(),
                seconds: 0.0,
                cached: true,
            };
            return (outcome, certificate);
        }
        let started = Instant::now();
        let view = self.program.recording();
        let certificate = self.certificate(&view, method);
        let seconds = started.elapsed().as_secs_f64();
        if let Some(cache) = self.cache {
            cache.store(method, &view.reads().unwrap_or_default(), &certificate);
        }
        let outcome = Outcome {
            method: method.clone(),
            seconds,
            cached: false,
        };
        (outcome, certificate)
    }

    /// The analysis of one entry point through `view`; a failure or a panic gives a
    /// certificate in which the entry is ∞ with the reason. The time limit is a deadline every
    /// phase checks: what it leaves unbounded is ∞ with the time limit as its reason.
    fn certificate(&self, view: &Program, method: &MethodRef) -> Certificate {
        let deadline = deadline_after(self.limit);
        let analysis = || -> Result<Certificate> {
            let hierarchy = Hierarchy::new(view);
            let build = callgraph::BuildOptions {
                max_methods: self.max_methods,
                deadline,
                exceptions: self.setting.exceptions,
            };
            let graph = callgraph::build_within(&hierarchy, method, self.specs, &build)?;
            let options = memrq::Options {
                exceptions: self.setting.exceptions,
                deadline,
                ..memrq::Options::default()
            };
            let bounds = memrq::analyze(view, &graph, self.setting.model, options, &|_| {})?;
            Ok(membound_analysis::certify::certificate_of(
                self.input.clone(),
                &bounds,
            ))
        };
        let reason = match std::panic::catch_unwind(AssertUnwindSafe(analysis)) {
            Ok(Ok(certificate)) => return certificate,
            Ok(Err(error)) => format!("the analysis of this entry point failed: {error}"),
            Err(payload) => failure_reason(payload.as_ref()),
        };
        Certificate::of_input(
            self.input.clone(),
            self.setting.model.name(),
            Vec::new(),
            vec![MethodEntry::unbounded(&method.to_string(), reason)],
        )
    }
}

/// The joiner (an entry's analysis, where a panic is caught, runs outside the lock).
fn lock(joiner: &Mutex<Joiner>) -> MutexGuard<'_, Joiner> {
    joiner.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The reason of an entry whose analysis panicked (a bug: it is contained to that entry).
fn failure_reason(payload: &(dyn Any + Send)) -> String {
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("no message");
    format!("the analysis of this entry point failed: internal error: {message}")
}

/// The entry points `kind` names: `public`, `mains`, or a file of methods.
fn list_entries(program: &Program, input: &Path, kind: &str) -> Result<Vec<MethodRef>> {
    let of_input = |kind| {
        let mut classes = Classpath::new();
        classes.add_entry(input)?;
        entry_points(program, &classes, kind)
    };
    let entries = match kind {
        "public" => of_input(EntryKind::Public)?,
        "mains" => of_input(EntryKind::Mains)?,
        file => entries_of_file(program, Path::new(file))?,
    };
    if entries.is_empty() {
        return Err(Error::Input(format!(
            "--entry-points {kind}: {} has no such entry point",
            input.display()
        )));
    }
    Ok(entries)
}

/// The methods of repeated `--method`s, sorted and without repeats.
fn methods_given(program: &Program, texts: &[String]) -> Result<Vec<MethodRef>> {
    let entries = texts
        .iter()
        .map(|text| select_method(program, text))
        .collect::<Result<Vec<_>>>()?;
    Ok(sorted_entries(entries))
}

/// The methods a file names, one per line, sorted and without repeats.
fn entries_of_file(program: &Program, file: &Path) -> Result<Vec<MethodRef>> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        Error::Input(format!(
            "--entry-points {}: cannot read it: {e}",
            file.display()
        ))
    })?;
    let mut entries = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let method = select_method(program, line)
            .map_err(|e| Error::Input(format!("{}:{}: {e}", file.display(), number + 1)))?;
        entries.push(method);
    }
    Ok(sorted_entries(entries))
}

/// Entry points in the order of their names, each once.
fn sorted_entries(mut entries: Vec<MethodRef>) -> Vec<MethodRef> {
    entries.sort_by_key(|method| method.to_string());
    entries.dedup();
    entries
}

/// `I/N` with `1 <= I <= N`.
fn parse_shard(text: &str) -> Result<(usize, usize)> {
    let parsed = text
        .split_once('/')
        .and_then(|(i, n)| Some((i.trim().parse().ok()?, n.trim().parse().ok()?)))
        .filter(|&(i, n): &(usize, usize)| 1 <= i && i <= n);
    parsed.ok_or_else(|| {
        Error::Input(format!(
            "bad --shard `{text}`: expected I/N with 1 <= I <= N, e.g. 2/4"
        ))
    })
}

/// The entry points of shard `index` of `count`: every `count`-th of the sorted list.
fn shard_of(all: &[MethodRef], (index, count): (usize, usize)) -> Result<Vec<MethodRef>> {
    let shard: Vec<MethodRef> = all.iter().skip(index - 1).step_by(count).cloned().collect();
    if shard.is_empty() {
        return Err(Error::Input(format!(
            "--shard {index}/{count}: no entry point falls in it (there are {}: use at most that many shards)",
            all.len()
        )));
    }
    Ok(shard)
}

/// The instant `limit` seconds from now, when there is a limit.
fn deadline_after(limit: Option<f64>) -> Option<Instant> {
    limit.map(|limit| Instant::now() + Duration::from_secs_f64(limit))
}

fn time_limit(seconds: Option<f64>) -> Result<Option<f64>> {
    match seconds {
        Some(s) if !(s.is_finite() && s > 0.0) => Err(Error::Input(format!(
            "bad --entry-time-limit {s}: expected a positive number of seconds"
        ))),
        other => Ok(other),
    }
}

/// What every cached result depends on besides the classes: membound, the options, the specs.
fn cache_setting(
    target: &MethodInput,
    setting: Setting,
    limit: Option<f64>,
) -> Result<Vec<String>> {
    let mut parts = vec![
        VERSION.to_string(),
        setting.model.name().to_string(),
        format!("{:?}", setting.exceptions),
        format!("time limit {limit:?}"),
        format!("budget of methods {}", target.budget_methods),
        format!("bundled specs {}", !target.no_bundled_specs),
    ];
    for spec in &target.specs {
        let text = std::fs::read_to_string(spec)
            .map_err(|e| Error::Input(format!("cannot read {}: {e}", spec.display())))?;
        parts.push(format!("spec {}\n{text}", spec.display()));
    }
    Ok(parts)
}

/// How many entries were analyzed and how many came from the cache, and the peak memory
/// (`-v` prints it).
fn count_line(outcomes: &[Outcome]) -> String {
    let cached = outcomes.iter().filter(|o| o.cached).count();
    let peak = peak_memory_kib().map_or_else(String::new, |kib| {
        format!("; peak memory {} MiB", kib.div_ceil(1024))
    });
    format!(
        "membound: {} entry points: {} analyzed, {cached} from the cache{peak}",
        outcomes.len(),
        outcomes.len() - cached
    )
}

/// The process's peak resident memory in KiB (`VmHWM`, Linux only).
fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Rows per list of the summary table.
const TOP: usize = 10;

/// The value every parameter takes for ranking the largest bounds.
const RANKING_POINT: i64 = 100;

/// The summary table: counts, the largest finite memAlloc, the ∞ entries with their first
/// reason, and the slowest analyses of this run.
fn summary_table(
    outcomes: &[Outcome],
    certificate: &Certificate,
    shard: Option<(usize, usize)>,
    seconds: f64,
) -> String {
    let entries: Vec<&MethodEntry> = outcomes
        .iter()
        .filter_map(|o| certificate.method(&o.method.to_string()).ok())
        .collect();
    let (finite, infinite): (Vec<&MethodEntry>, Vec<&MethodEntry>) = entries
        .iter()
        .partition(|m| !m.mem_alloc.bytes.contains("infty"));
    let cached = outcomes.iter().filter(|o| o.cached).count();
    let mut out = format!(
        "{} entry points{}: {} finite, {} ∞; {} analyzed, {cached} from the cache; {seconds:.1} s\n",
        entries.len(),
        shard.map_or_else(String::new, |(i, n)| format!(" (shard {i}/{n})")),
        finite.len(),
        infinite.len(),
        outcomes.len() - cached,
    );
    out += &format!("\nlargest memAlloc, in bytes with every parameter = {RANKING_POINT}:\n");
    for (value, method) in largest(&finite).into_iter().take(TOP) {
        out += &format!("  {value:>20}  {method}\n");
    }
    out += "\n∞ (the first reason):\n";
    for method in infinite.iter().take(TOP) {
        out += &format!("  {}  {}\n", method.method, first_reason(method));
    }
    if infinite.len() > TOP {
        out += &format!("  … and {} more\n", infinite.len() - TOP);
    }
    let mut analyzed: Vec<&Outcome> = outcomes.iter().filter(|o| !o.cached).collect();
    analyzed.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    out += "\nslowest analyses of this run:\n";
    for outcome in analyzed.iter().take(TOP) {
        out += &format!("  {:>8.2} s  {}\n", outcome.seconds, outcome.method);
    }
    out
}

/// The finite entries by their memAlloc in bytes at the ranking point, largest first.
fn largest<'m>(finite: &[&'m MethodEntry]) -> Vec<(String, &'m str)> {
    let mut valued: Vec<(Rat, &str)> = finite
        .iter()
        .filter_map(|m| {
            let point: BTreeMap<String, Rat> = m
                .params
                .iter()
                .map(|p| (p.name.clone(), Rat::from(RANKING_POINT)))
                .collect();
            match membound_certificate::value_of(&m.method, &m.mem_alloc.bytes, &point) {
                Ok(Value::Finite(value)) => Some((value, m.method.as_str())),
                _ => None,
            }
        })
        .collect();
    valued.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    valued
        .into_iter()
        .map(|(value, method)| (value_text(&Value::Finite(value)), method))
        .collect()
}

fn first_reason(method: &MethodEntry) -> &str {
    method
        .unbounded
        .iter()
        .chain(method.sites.iter().flat_map(|s| &s.reasons))
        .chain(&method.region_reasons)
        .next()
        .map_or("", String::as_str)
}

#[derive(Debug, Args)]
pub(super) struct MergeArgs {
    /// Certificates of shards of one run (`analyze --entry-points … --shard I/N`).
    #[arg(required = true)]
    certificates: Vec<PathBuf>,
    /// Where to write the joined certificate: JSON for `.json`, else YAML.
    #[arg(short, long)]
    output: PathBuf,
}

/// `membound merge`: the shards' certificates joined into the one the whole run writes.
pub(super) fn merge(args: &MergeArgs) -> Result<String> {
    let mut joiner = Joiner::default();
    for path in &args.certificates {
        joiner.add(Certificate::read(path)?)?;
    }
    let joined = joiner.finish()?;
    let json = args
        .output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let text = if json {
        joined.to_json()
    } else {
        joined.to_yaml()
    };
    std::fs::write(&args.output, text)
        .map_err(|e| Error::Input(format!("cannot write {}: {e}", args.output.display())))?;
    Ok(String::new())
}

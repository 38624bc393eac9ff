//! Every public method of Debian's commons-lang3 and commons-collections4 jars analyzed in one
//! run (`analyze --entry-points public`), then again from the cache with nothing changed:
//! total time, methods per second, peak memory, the finite share and how many entry points
//! reached the per-entry time limit. Prints a Markdown table and writes it to
//! `benchmarks-jolden/WHOLE.md`; it asserts no time.
//!
//! `cargo bench -p membound --bench whole_jars` (release build); `MEMBOUND_ENTRY_LIMIT` sets the
//! per-entry time limit in seconds (default 5), `MEMBOUND_WHOLE_JARS` the jars
//! (colon-separated), `MEMBOUND_WHOLE_SHARD` (`I/N`) a deterministic sample of the public
//! methods (`--shard`) when the whole jars take too long for the machine.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const JARS: &str = "/usr/share/java/commons-lang3.jar:/usr/share/java/commons-collections4.jar";

/// One run of `membound analyze --entry-points public`.
struct Run {
    seconds: f64,
    entries: usize,
    analyzed: usize,
    cached: usize,
    finite: usize,
    peak_mib: u64,
    time_limited: usize,
    /// The machine's 1-minute load average at the run's start and end (it is shared).
    load: (String, String),
}

fn main() {
    let limit = std::env::var("MEMBOUND_ENTRY_LIMIT").unwrap_or_else(|_| "5".to_string());
    let jars = std::env::var("MEMBOUND_WHOLE_JARS").unwrap_or_else(|_| JARS.to_string());
    let shard = std::env::var("MEMBOUND_WHOLE_SHARD").ok();
    let scratch = std::env::temp_dir().join(format!("membound-whole-jars-{}", std::process::id()));
    let mut table = format!(
        "# Whole jars: every public method\n\n\
         `cargo bench -p membound --bench whole_jars`: `membound analyze JAR --entry-points public \
         --cache DIR --entry-time-limit {limit}{}` on {} (cores: {}), then the same command again \
         with nothing changed. Peak memory is the process's resident peak; finite counts the \
         entry points whose memAlloc is finite for every parameter value.\n\n\
         | jar | entry points | first run | methods/s | peak memory | finite | reached the {limit} s limit | cached re-run | re-run / first | load (1 min) at start → end |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
        shard
            .as_ref()
            .map_or_else(String::new, |s| format!(" --shard {s}")),
        date(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    for jar in jars.split(':').filter(|j| !j.is_empty()) {
        let jar = Path::new(jar);
        let name = jar
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().to_string());
        let cache = scratch.join(format!("{name}.cache"));
        let _ = std::fs::remove_dir_all(&cache);
        let certificate = scratch.join(format!("{name}.json"));
        let first = analyze(jar, &cache, &certificate, &limit, shard.as_deref());
        let again = analyze(jar, &cache, &certificate, &limit, shard.as_deref());
        table += &format!(
            "| {name} | {} | {:.1} s | {:.1} | {} MiB | {} ({:.0} %) | {} | {:.2} s ({} analyzed, {} cached) | {:.3} | {} → {}, re-run {} → {} |\n",
            first.entries,
            first.seconds,
            first.entries as f64 / first.seconds,
            first.peak_mib,
            first.finite,
            100.0 * first.finite as f64 / first.entries.max(1) as f64,
            first.time_limited,
            again.seconds,
            again.analyzed,
            again.cached,
            again.seconds / first.seconds,
            first.load.0,
            first.load.1,
            again.load.0,
            again.load.1,
        );
        assert_eq!(
            first.analyzed, first.entries,
            "a fresh cache analyzes every entry"
        );
    }
    print!("{table}");
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../benchmarks-jolden/WHOLE.md");
    if let Err(e) = std::fs::write(&out, &table) {
        eprintln!("cannot write {}: {e}", out.display());
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

fn analyze(
    jar: &Path,
    cache: &Path,
    certificate: &PathBuf,
    limit: &str,
    shard: Option<&str>,
) -> Run {
    let load_at_start = load_average();
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_membound"))
        .arg("analyze")
        .args(shard.map(|s| ["--shard", s]).into_iter().flatten())
        .arg(jar)
        .args([
            "--entry-points",
            "public",
            "--entry-time-limit",
            limit,
            "-v",
            "--cache",
        ])
        .arg(cache)
        .arg("-o")
        .arg(certificate)
        .output()
        .expect("membound runs");
    let seconds = started.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "membound failed: {stderr}");
    let summary = stdout.lines().next().unwrap_or_default();
    let counts = stderr
        .lines()
        .find(|l| l.contains("from the cache"))
        .unwrap_or_default();
    let text = std::fs::read_to_string(certificate).expect("the certificate");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let entries: Vec<&serde_json::Value> =
        json["entries"].as_array().into_iter().flatten().collect();
    let time_limited = json["methods"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| entries.contains(&&m["method"]))
        // The limit is a reason of the entry or of its sites (a method summarized after it).
        .filter(|m| m.to_string().contains("reached its time limit"))
        .count();
    Run {
        seconds,
        entries: number_before(summary, " entry points"),
        analyzed: number_before(counts, " analyzed"),
        cached: number_before(counts, " from the cache"),
        finite: number_before(summary, " finite"),
        peak_mib: number_before(counts, " MiB") as u64,
        time_limited,
        load: (load_at_start, load_average()),
    }
}

/// The 1-minute load average (`/proc/loadavg`, Linux; empty elsewhere).
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_string))
        .unwrap_or_default()
}

/// The number just before `word` in `line`.
fn number_before(line: &str, word: &str) -> usize {
    let head = line.split(word).next().unwrap_or_default();
    head.rsplit([' ', ':'])
        .find(|t| !t.is_empty())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no number before `{word}` in `{line}`"))
}

fn date() -> String {
    Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

//! Analyzing one method under a time and a memory limit. The library cannot be interrupted, so
//! each analysis runs in a child process (this executable's hidden `analyze-one` command), which
//! writes the certificate to a file and prints the analysis time and its peak resident memory; a
//! child past a limit is killed and the method reported as stopped. The parent follows the
//! child's peak resident memory (`VmHWM` of `/proc/<pid>/status`, Linux) while it waits, so a
//! killed child has a peak too. The certificate is then read back from the file, as `membound
//! validate` reads one.
//!
//! It does not run the programs.

use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use membound_analysis::memrq;
use membound_certificate::Certificate;
use membound_front::callgraph;
use membound_front::classpath::{Classpath, Jdk};
use membound_front::hierarchy::Hierarchy;
use membound_front::program::Program;
use membound_front::select::select_method;
use membound_front::sizes::ObjectModel;
use membound_jvm::error::{Error, Result};

use crate::setup::WorkDir;

/// How the analysis of one method ended.
pub enum Analysis {
    Done {
        certificate: Box<Certificate>,
        /// Loading the program, the call graph, the creation sites and the bounds.
        seconds: f64,
        /// The child's peak resident memory, in kB (None where `/proc` does not tell).
        peak_kb: Option<u64>,
    },
    /// Stopped at a resource limit (still running at the time limit, or over the memory limit,
    /// and killed): reported in the table, not a failure.
    Stopped {
        why: String,
        seconds: f64,
        peak_kb: Option<u64>,
    },
    Failed(String),
}

impl Analysis {
    /// The child's peak resident memory in kB, when known.
    pub fn peak_kb(&self) -> Option<u64> {
        match self {
            Analysis::Done { peak_kb, .. } | Analysis::Stopped { peak_kb, .. } => *peak_kb,
            Analysis::Failed(_) => None,
        }
    }
}

/// The resources one analysis may take before it is killed.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub time: Duration,
    /// Peak resident memory, in MB: a runaway analysis must not take the shared machine down.
    pub memory_mb: u64,
}

/// Analyzes `method` of the compiled programs in a child process, killed past `limits`.
pub fn analyze(work: &WorkDir, method: &str, limits: Limits) -> Analysis {
    let (out, messages) = work.certificate(method);
    analyze_input(&work.classes(), method, (&out, &messages), limits)
}

/// Analyzes `method` of the classes at `input` (a directory or a jar) in a child process that
/// writes its certificate and its messages to `files`, killed past `limits`.
pub fn analyze_input(
    input: &Path,
    method: &str,
    files: (&Path, &Path),
    limits: Limits,
) -> Analysis {
    match run_child(input, method, files, limits) {
        Ok(analysis) => analysis,
        Err(message) => Analysis::Failed(message),
    }
}

fn run_child(
    input: &Path,
    method: &str,
    (out, messages): (&Path, &Path),
    limits: Limits,
) -> std::result::Result<Analysis, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate this executable: {e}"))?;
    let stderr = std::fs::File::create(messages)
        .map_err(|e| format!("cannot create {}: {e}", messages.display()))?;
    let mut child = Command::new(exe)
        .arg("analyze-one")
        .arg(input)
        .arg(method)
        .arg(out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("cannot start the analysis: {e}"))?;
    let start = Instant::now();
    let mut peak_kb = None;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        peak_kb = peak_kb.max(peak_resident_kb(&format!("/proc/{}/status", child.id())));
        let over = if start.elapsed() > limits.time {
            Some(format!("timeout after {} s", limits.time.as_secs()))
        } else if peak_kb.is_some_and(|kb| kb > limits.memory_mb * 1024) {
            Some(format!("over {} MB of memory", limits.memory_mb))
        } else {
            None
        };
        if let Some(why) = over {
            // Only our own child, by its handle.
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Analysis::Stopped {
                why,
                seconds: start.elapsed().as_secs_f64(),
                peak_kb,
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let said = std::fs::read_to_string(messages).unwrap_or_default();
    if !status.success() {
        // A panic or a signal may leave nothing said; the status then tells what happened.
        return Err(match said.trim() {
            "" => format!("the analysis ended with {status}"),
            message => message.to_string(),
        });
    }
    let reported = |prefix: &str| {
        said.lines()
            .find_map(|line| line.strip_prefix(prefix)?.trim().parse::<f64>().ok())
    };
    let seconds =
        reported(SECONDS_LINE).ok_or_else(|| format!("the analysis printed no time: {said}"))?;
    // The child's own figure covers its last moments, which polling may miss.
    let own_peak = reported(PEAK_LINE).map(|kb| kb as u64);
    let certificate = Certificate::read(out).map_err(|e| e.to_string())?;
    Ok(Analysis::Done {
        certificate: Box::new(certificate),
        seconds,
        peak_kb: peak_kb.max(own_peak),
    })
}

/// How the child reports the analysis time on stderr.
const SECONDS_LINE: &str = "analysis seconds:";
/// How the child reports its peak resident memory (kB) on stderr.
const PEAK_LINE: &str = "peak resident kB:";

/// The machine's 1-minute load average (`/proc/loadavg`), "?" where the system has none: the
/// times of a table depend on what else runs on the machine, so the tables say it.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".to_string())
}

/// The peak resident memory (`VmHWM`, kB) in a `/proc/<pid>/status` file; None when the file
/// is gone or the system has none.
fn peak_resident_kb(status_file: &str) -> Option<u64> {
    let status = std::fs::read_to_string(status_file).ok()?;
    status.lines().find_map(|line| {
        line.strip_prefix("VmHWM:")?
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()
    })
}

/// The child's side: analyzes `method` of the classes at `input` with the HotSpot object model
/// the agent's sizes follow, writes the certificate to `out` (JSON) and prints the time; the
/// exit status says how it ended.
pub fn analyze_one(input: &Path, method: &str, out: &Path) -> ExitCode {
    match write_certificate(input, method, out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::from(error.exit_code())
        }
    }
}

/// The analysis of [`analyze_one`].
fn write_certificate(input: &Path, method: &str, out: &Path) -> Result<()> {
    let start = Instant::now();
    let mut classpath = Classpath::new();
    classpath.add_entry(input)?;
    classpath.add_jdk(&Jdk::locate(None)?)?;
    let program = Program::new(classpath);
    let entry = select_method(&program, method)?;
    let graph = callgraph::build(
        &Hierarchy::new(&program),
        &entry,
        &membound_front::specs::Specs::bundled(),
    )?;
    let bounds = memrq::analyze(
        &program,
        &graph,
        ObjectModel::HotspotCoops,
        memrq::Options::default(),
        &|_| {},
    )?;
    let seconds = start.elapsed().as_secs_f64();
    let certificate = membound_analysis::certify::certificate(input, &bounds)?;
    std::fs::write(out, certificate.to_json()).map_err(|source| Error::Io {
        path: out.to_path_buf(),
        source,
    })?;
    eprintln!("{SECONDS_LINE} {seconds:.3}");
    if let Some(kb) = peak_resident_kb("/proc/self/status") {
        eprintln!("{PEAK_LINE} {kb}");
    }
    Ok(())
}

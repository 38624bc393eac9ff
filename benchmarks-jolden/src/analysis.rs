//! Analyzing one method under a time limit. The library cannot be interrupted, so each analysis
//! runs in a child process (this executable's hidden `analyze-one` command), which writes the
//! certificate to a file and prints the analysis time; a child past the limit is killed and the
//! method reported as a timeout. The certificate is then read back from the file, as
//! `membound validate` reads one.
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
    },
    /// Stopped at a resource limit (still running at the time limit, and killed): reported in
    /// the table, not a failure.
    Stopped {
        why: String,
        seconds: f64,
    },
    Failed(String),
}

/// Analyzes `method` of the compiled programs in a child process, killed after `limit`.
pub fn analyze(work: &WorkDir, method: &str, limit: Duration) -> Analysis {
    match run_child(work, method, limit) {
        Ok(analysis) => analysis,
        Err(message) => Analysis::Failed(message),
    }
}

fn run_child(
    work: &WorkDir,
    method: &str,
    limit: Duration,
) -> std::result::Result<Analysis, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate this executable: {e}"))?;
    let (out, messages) = work.certificate(method);
    let stderr = std::fs::File::create(&messages)
        .map_err(|e| format!("cannot create {}: {e}", messages.display()))?;
    let mut child = Command::new(exe)
        .arg("analyze-one")
        .arg(work.classes())
        .arg(method)
        .arg(&out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("cannot start the analysis: {e}"))?;
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if start.elapsed() > limit {
            // Only our own child, by its handle.
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Analysis::Stopped {
                why: format!("timeout after {} s", limit.as_secs()),
                seconds: start.elapsed().as_secs_f64(),
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let said = std::fs::read_to_string(&messages).unwrap_or_default();
    if !status.success() {
        // A panic or a signal may leave nothing said; the status then tells what happened.
        return Err(match said.trim() {
            "" => format!("the analysis ended with {status}"),
            message => message.to_string(),
        });
    }
    let seconds = said
        .lines()
        .find_map(|line| line.strip_prefix(SECONDS_LINE)?.trim().parse::<f64>().ok())
        .ok_or_else(|| format!("the analysis printed no time: {said}"))?;
    let certificate = Certificate::read(&out).map_err(|e| e.to_string())?;
    Ok(Analysis::Done {
        certificate: Box::new(certificate),
        seconds,
    })
}

/// How the child reports the analysis time on stderr.
const SECONDS_LINE: &str = "analysis seconds:";

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
    Ok(())
}

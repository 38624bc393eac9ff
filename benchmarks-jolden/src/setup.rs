//! What the runs need before they start: a private temporary directory (removed when the
//! harness ends) holding the compiled programs and the certificates, and the JVMTI agent, built
//! by cargo next to this executable unless the user names one.
//!
//! It does not run the programs or analyze them.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use membound_runtime::measure::{AGENT_ENV, agent_file_name};

use crate::Failure;

/// The harness's temporary directory: `classes/` and `certificates/`, deleted when dropped.
pub struct WorkDir {
    dir: PathBuf,
}

impl WorkDir {
    /// The compiled programs (the certificates' input).
    pub fn classes(&self) -> PathBuf {
        self.dir.join("classes")
    }

    /// Where the certificate of `method` is written, and the analysis's messages beside it. Kept
    /// apart from the classes, whose hash each certificate records.
    pub fn certificate(&self, method: &str) -> (PathBuf, PathBuf) {
        let dir = self.dir.join("certificates");
        (
            dir.join(format!("{method}.json")),
            dir.join(format!("{method}.stderr")),
        )
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        // Best effort: a leftover directory in the temporary directory is harmless.
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Compiles every `.java` file under `sources` with `javac -g` (line numbers and local names,
/// which the certificates' chains and parameters use) into a fresh temporary directory.
pub fn compile(sources: &Path) -> Result<WorkDir, Failure> {
    let mut files = Vec::new();
    java_files(sources, &mut files)?;
    if files.is_empty() {
        return Err(Failure(format!(
            "no .java files under {}",
            sources.display()
        )));
    }
    files.sort();
    let dir = std::env::temp_dir().join(format!("benchmarks-jolden-{}", std::process::id()));
    // A directory left by an earlier process of the same id holds nothing of ours.
    let _ = fs::remove_dir_all(&dir);
    let work = WorkDir { dir };
    for sub in [work.classes(), work.dir.join("certificates")] {
        fs::create_dir_all(&sub)
            .map_err(|e| Failure(format!("cannot create {}: {e}", sub.display())))?;
    }
    let output = Command::new("javac")
        .args(["-g", "--release", "11", "-d"])
        .arg(work.classes())
        .args(&files)
        .output()
        .map_err(|e| Failure(format!("cannot run javac: {e}")))?;
    if !output.status.success() {
        return Err(Failure(format!(
            "javac failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    Ok(work)
}

fn java_files(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), Failure> {
    let entries =
        fs::read_dir(dir).map_err(|e| Failure(format!("cannot read {}: {e}", dir.display())))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            java_files(&path, found)?;
        } else if path.extension().is_some_and(|e| e == "java") {
            found.push(path);
        }
    }
    Ok(())
}

/// The agent library to run under: `explicit`, else `$MEMBOUND_AGENT`, else the workspace's
/// agent, brought up to date by cargo in this executable's target directory and profile (a
/// no-op when nothing changed), so a run never uses a stale agent.
pub fn agent(explicit: Option<&Path>) -> Result<PathBuf, Failure> {
    if let Some(path) = explicit
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os(AGENT_ENV).map(PathBuf::from))
    {
        return Ok(path);
    }
    let exe = std::env::current_exe()
        .map_err(|e| Failure(format!("cannot locate this executable: {e}")))?;
    let profile_dir = exe
        .parent()
        .ok_or_else(|| Failure(format!("{} has no directory", exe.display())))?;
    let target_dir = profile_dir.parent().ok_or_else(|| {
        Failure(format!(
            "{} is not in a cargo target directory: pass --agent",
            exe.display()
        ))
    })?;
    // Cargo runs us with CARGO set; otherwise the cargo that built us.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let mut build = Command::new(cargo);
    build
        .args(["build", "--quiet", "-p", "membound-agent", "--target-dir"])
        .arg(target_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    if profile_dir
        .file_name()
        .is_some_and(|name| name == "release")
    {
        build.arg("--release");
    }
    let status = build
        .status()
        .map_err(|e| Failure(format!("cannot run cargo to build the agent: {e}")))?;
    if !status.success() {
        return Err(Failure(
            "building the agent (membound-agent) failed; pass --agent".to_string(),
        ));
    }
    Ok(profile_dir.join(agent_file_name()))
}

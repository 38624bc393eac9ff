//! What the runs need before they start: a private temporary directory (removed when the
//! harness ends) holding the compiled programs and the certificates, and the JVMTI agent, built
//! by cargo next to this executable unless the user names one.
//!
//! It does not run the programs or analyze them.

use std::collections::hash_map::DefaultHasher;
use std::fs;
use std::hash::{Hash, Hasher};
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

    /// The library drivers and the classes of the jars they call ([`compile_drivers`]).
    pub fn drivers(&self) -> PathBuf {
        self.dir.join("drivers")
    }

    /// Where the certificate of `method` is written, and the analysis's messages beside it. Kept
    /// apart from the classes, whose hash each certificate records. A selector's descriptor
    /// (`(Ljava/lang/String;)V`) becomes characters a file name can hold, and a long selector
    /// (ten-parameter overloads) is cut and told apart by a hash of the whole.
    pub fn certificate(&self, method: &str) -> (PathBuf, PathBuf) {
        let dir = self.dir.join("certificates");
        let mut name: String = method
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if name.len() > MAX_NAME {
            let mut hasher = DefaultHasher::new();
            method.hash(&mut hasher);
            name.truncate(MAX_NAME);
            name.push_str(&format!("-{:016x}", hasher.finish()));
        }
        (
            dir.join(format!("{name}.json")),
            dir.join(format!("{name}.stderr")),
        )
    }
}

/// The longest certificate name kept whole: with its hash and extension it stays well under the
/// 255 bytes a file name may have.
const MAX_NAME: usize = 160;

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
    run_tool(
        Command::new("javac")
            .args(["-g", "--release", "11", "-d"])
            .arg(work.classes())
            .args(&files),
        "javac",
    )?;
    Ok(work)
}

/// Unpacks `jars` into the work directory's `drivers/` and compiles the drivers under `sources`
/// beside them against the jars: one directory that is both the analysis's input (the library
/// methods are analyzed there, so the certificate names it) and the classpath of the runs that
/// validate it.
pub fn compile_drivers(work: &WorkDir, sources: &Path, jars: &[&Path]) -> Result<PathBuf, Failure> {
    let dir = work.drivers();
    fs::create_dir_all(&dir)
        .map_err(|e| Failure(format!("cannot create {}: {e}", dir.display())))?;
    for jar in jars {
        run_tool(
            Command::new("jar").arg("xf").arg(jar).current_dir(&dir),
            "jar xf",
        )?;
    }
    let mut files = Vec::new();
    java_files(sources, &mut files)?;
    files.sort();
    let classpath = std::env::join_paths(jars)
        .map_err(|e| Failure(format!("cannot join the jars into a classpath: {e}")))?;
    run_tool(
        Command::new("javac")
            .args(["-g", "-nowarn", "--release", "11", "-cp"])
            .arg(classpath)
            .arg("-d")
            .arg(&dir)
            .args(&files),
        "javac (drivers)",
    )?;
    Ok(dir)
}

/// Runs a JDK tool, its error output in the failure.
fn run_tool(command: &mut Command, name: &str) -> Result<(), Failure> {
    let output = command
        .output()
        .map_err(|e| Failure(format!("cannot run {name}: {e}")))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(Failure(format!(
            "{name} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )))
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_selector_gets_a_short_distinct_file_name() {
        let work = WorkDir {
            dir: PathBuf::from("/nonexistent/work"),
        };
        // The sampled guava overload whose name was too long for a file.
        let long = format!(
            "com.google.common.collect.ImmutableSetMultimap.of({})Lcom/google/common/collect/ImmutableSetMultimap;",
            "Ljava/lang/Object;".repeat(10)
        );
        let other = long.replacen("of(", "copyOf(", 1);
        let (first, _) = work.certificate(&long);
        let (second, _) = work.certificate(&other);
        let name = first.file_name().map_or(0, |n| n.len());
        assert!(name < 255, "{}", first.display());
        assert_ne!(first, second);
        let (short, _) = work.certificate("a.B.m(I)V");
        assert!(short.ends_with("a.B.m_I_V.json"), "{}", short.display());
    }
}

//! Two things the binary carries from its build:
//! - the git commit it is built from, for `membound --version`. Outside a git checkout (a crate
//!   tarball, `cargo install` from a copy) it says so instead: a build never fails for want of
//!   git;
//! - the JVMTI agent (`agent/`), compiled here as a shared library that `src/agent.rs` embeds,
//!   so a `membound` installed anywhere (`cargo install --path cli`) runs `measure` and
//!   `validate` without looking for a second file.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    record_commit();
    build_agent();
}

fn record_commit() {
    let commit = commit().unwrap_or_else(|| "unknown commit".to_string());
    println!("cargo:rustc-env=MEMBOUND_COMMIT={commit}");
    // Rebuild when HEAD moves, so the version never names an older commit.
    if let Some(git_dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        println!("cargo:rerun-if-changed={git_dir}/HEAD");
        println!("cargo:rerun-if-changed={git_dir}/logs/HEAD");
    }
}

/// The short hash of HEAD, when the sources are a git checkout with git on PATH.
fn commit() -> Option<String> {
    git(&["rev-parse", "--short", "HEAD"]).map(|hash| format!("commit {hash}"))
}

/// What `git ARGS` prints, trimmed; `None` when git is missing or fails.
fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    (output.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

/// Compiles `agent/src/lib.rs` with rustc into OUT_DIR and names the library in
/// `MEMBOUND_AGENT_LIBRARY`. rustc is called directly, not cargo: the agent depends on nothing
/// but std, and a cargo inside a build script would contend for the locks of the cargo running
/// it. Always optimized: the agent runs at every allocation of the program it watches.
fn build_agent() {
    let manifest_dir = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let source_dir = manifest_dir.join("../agent/src");
    println!("cargo:rerun-if-changed={}", source_dir.display());
    let library = Path::new(&env("OUT_DIR")).join("membound_agent.library");
    let mut rustc = Command::new(env("RUSTC"));
    rustc
        // The workspace's edition, the agent's as well as ours.
        .args(["--edition", "2024", "--crate-type", "cdylib"])
        .args(["--crate-name", "membound_agent", "--cap-lints", "allow"])
        .args(["-C", "opt-level=3", "-C", "strip=debuginfo", "-o"])
        .arg(&library)
        .arg(source_dir.join("lib.rs"));
    let target = env("TARGET");
    if target != env("HOST") {
        rustc.args(["--target", &target]);
    }
    let status = rustc
        .status()
        .unwrap_or_else(|e| panic!("cannot run rustc to build the agent: {e}"));
    assert!(
        status.success(),
        "rustc failed to build the agent (agent/src)"
    );
    println!(
        "cargo:rustc-env=MEMBOUND_AGENT_LIBRARY={}",
        library.display()
    );
}

/// A variable cargo sets for every build script.
fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo sets {name} for build scripts"))
}

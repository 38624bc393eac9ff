//! Records the git commit the binary is built from, for `membound --version`. Outside a git
//! checkout (a crate tarball, `cargo install` from a copy) it says so instead: a build never
//! fails for want of git.

use std::process::Command;

fn main() {
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

//! Set-up as the README tells it: `membound` carries its JVMTI agent, so a binary copied (or
//! installed) alone into another directory runs `measure`; the agent is written under the cache
//! directory; a missing or unwritable agent is an error that names the fix; the install command
//! names the binary's package, and `.ci/run` installs what the README says the tests need.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use membound_tests::{Run, membound_bin, scratch_dir, workspace_root};
use serde_json::Value;

/// `membound measure` of the bundled example at k = 4, run by the binary at `binary` with
/// `env` set and `$MEMBOUND_AGENT` unset unless `env` sets it.
fn measure_intro(binary: &Path, env: &[(&str, &Path)]) -> Run {
    let mut command = Command::new(binary);
    command
        .args([
            "measure",
            "examples/intro/intro.jar",
            "--method",
            "Intro.m1",
        ])
        .args(["--format", "json", "--", "4"])
        .current_dir(workspace_root())
        .env_remove("MEMBOUND_AGENT");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("membound starts").into()
}

/// A copy of the built binary, alone in a directory of its own: no agent library beside it.
fn lone_binary(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).expect("a bin directory");
    let copy = bin.join("membound");
    fs::copy(membound_bin(), &copy).expect("the binary copies");
    copy
}

/// Exit 2, with each of `fixes` in the message.
fn assert_refused_naming(run: &Run, fixes: &[&str]) {
    assert_eq!(run.code, 2, "{}", run.stderr);
    for fix in fixes {
        assert!(run.stderr.contains(fix), "no `{fix}` in {}", run.stderr);
    }
}

#[test]
fn a_binary_alone_in_its_directory_runs_measure_with_the_agent_it_carries() {
    let dir = scratch_dir("setup-lone");
    let cache = dir.join("cache");
    let run = measure_intro(&lone_binary(&dir), &[("XDG_CACHE_HOME", &cache)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    // k objects A and k(k+1)/2 objects B at k = 4.
    assert_eq!(json["total"]["objects"].as_u64(), Some(4 + 10), "{json}");
    let written: Vec<PathBuf> = fs::read_dir(cache.join("membound"))
        .expect("the agent's cache directory")
        .flatten()
        .map(|entry| entry.path().join("libmembound_agent.so"))
        .filter(|library| library.is_file())
        .collect();
    assert_eq!(written.len(), 1, "one agent under {}", cache.display());
    // A second run reuses the file rather than writing it again.
    let modified = || fs::metadata(&written[0]).and_then(|m| m.modified()).ok();
    let before = modified();
    let again = measure_intro(&lone_binary(&dir), &[("XDG_CACHE_HOME", &cache)]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(modified(), before);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_agent_named_by_the_environment_names_the_fix() {
    let missing = Path::new("/nonexistent/libmembound_agent.so");
    let run = measure_intro(&membound_bin(), &[("MEMBOUND_AGENT", missing)]);
    assert_refused_naming(
        &run,
        &[
            "/nonexistent/libmembound_agent.so",
            "unset MEMBOUND_AGENT",
            "`cargo build --release -p membound-agent`",
        ],
    );
}

#[test]
fn an_unwritable_cache_names_the_ways_around_it() {
    let dir = scratch_dir("setup-unwritable");
    // A file where the cache directory should be: nothing can be created under it.
    let not_a_dir = dir.join("file");
    fs::write(&not_a_dir, "").expect("a file");
    let run = measure_intro(&membound_bin(), &[("XDG_CACHE_HOME", &not_a_dir)]);
    assert_refused_naming(
        &run,
        &[
            "XDG_CACHE_HOME",
            "MEMBOUND_AGENT",
            "`cargo build --release -p membound-agent`",
        ],
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn the_readme_install_command_names_the_membound_package() {
    let readme = fs::read_to_string(workspace_root().join("README.md")).expect("README");
    let install = readme
        .lines()
        .find(|line| line.starts_with("cargo install"))
        .expect("a `cargo install` line in the README");
    let path = install
        .split_whitespace()
        .skip_while(|word| *word != "--path")
        .nth(1)
        .expect("cargo install --path DIR");
    let manifest = fs::read_to_string(workspace_root().join(path).join("Cargo.toml"))
        .expect("the install path holds a Cargo.toml");
    assert!(manifest.contains("name = \"membound\""), "{manifest}");
}

#[test]
fn what_ci_installs_is_what_the_readme_lists_for_the_tests() {
    let root = workspace_root();
    let readme = fs::read_to_string(root.join("README.md")).expect("README");
    let ci = fs::read_to_string(root.join(".ci/run")).expect(".ci/run");
    let tests_section = &readme[readme.find("## Tests").expect("a Tests section")..];
    for needed in [
        "cargo-nextest",
        "openjdk-17-jdk-headless",
        "libguava-java",
        "libcommons-lang3-java",
        "libcommons-collections4-java",
        "graphviz",
        "jq",
        "python3-venv",
        "ensure-oracle-venv.sh",
    ] {
        assert!(ci.contains(needed), "`.ci/run` does not install {needed}");
        assert!(
            tests_section.contains(needed),
            "the README does not list {needed}"
        );
    }
    assert!(
        tests_section.contains("PyPI"),
        "the README does not say PyPI is needed"
    );
    let last_command = ci.lines().rev().find(|line| !line.trim().is_empty());
    assert_eq!(last_command, Some("cargo nextest run --workspace"));
}

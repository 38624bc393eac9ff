//! The README's first command (the main job on the bundled example) runs and prints a result:
//! the README stays true.

use membound_tests::{membound, workspace_root};

#[test]
fn the_readme_main_job_runs() {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).expect("README");
    let line = readme
        .lines()
        .find(|l| l.starts_with("cargo run"))
        .expect("the README opens with a cargo run command");
    let command = line.split('#').next().unwrap_or(line);
    let args: Vec<&str> = command
        .split_once(" -- ")
        .expect("cargo run … -- <membound arguments>")
        .1
        .split_whitespace()
        .collect();
    let run = membound(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("Intro.m1(I)V"), "{}", run.stdout);
}

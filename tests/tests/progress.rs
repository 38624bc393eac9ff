//! Progress on the commands whose phases can take more than a second (`regions`, `measure`,
//! `validate`, `heap` on a run): the phases on a terminal, each phase's time with `-v`,
//! nothing with `-q`, and nothing but the program's own output when stderr is not a terminal.

use std::process::Command;

use membound_tests::{Run, analyze_into, membound, membound_bin, scratch_dir, workspace_root};

const INTRO: [&str; 4] = ["examples/intro/intro.jar", "--method", "Intro.m1", "--"];

/// The lines `membound: PHASE: 0.12 s` of a verbose run, by phase.
fn timed_phases(run: &Run) -> Vec<&str> {
    run.stderr
        .lines()
        .filter(|line| line.ends_with(" s"))
        .filter_map(|line| line.strip_prefix("membound: "))
        .filter_map(|line| line.rsplit_once(": ").map(|(phase, _)| phase))
        .collect()
}

fn assert_phases(run: &Run, phases: &[&str]) {
    assert_eq!(run.code, 0, "{}", run.stderr);
    let timed = timed_phases(run);
    for phase in phases {
        assert!(
            timed.contains(phase),
            "no time for `{phase}` in {}",
            run.stderr
        );
    }
}

#[test]
fn measure_times_its_run_when_verbose_and_says_nothing_when_quiet_or_piped() {
    let run = |flag: &str| membound([&["measure", flag][..], &INTRO, &["3"]].concat());
    let verbose = run("-v");
    assert_phases(&verbose, &["running the program under the agent"]);
    let quiet = run("-q");
    assert_eq!((quiet.code, quiet.stderr.as_str()), (0, ""));
    assert_eq!(quiet.stdout, verbose.stdout);
    // stderr is a pipe here: no spinner is drawn.
    let piped = membound([&["measure"][..], &INTRO, &["3"]].concat());
    assert_eq!((piped.code, piped.stderr.as_str()), (0, ""));
}

#[test]
fn validate_times_the_run_and_the_comparison() {
    let certificate = scratch_dir("progress-validate").join("intro.yaml");
    analyze_into(
        "examples/intro/intro.jar".as_ref(),
        "Intro.m1",
        "hotspot-coops",
        &certificate,
    );
    let path = certificate.to_str().expect("a path");
    let verbose = membound(["validate", path, "-v", "--", "3"]);
    assert_phases(
        &verbose,
        &[
            "running the program under the agent",
            "comparing the run with the certificate",
        ],
    );
    let quiet = membound(["validate", path, "-q", "--", "3"]);
    assert_eq!((quiet.code, quiet.stderr.as_str()), (0, ""));
}

#[test]
fn regions_shows_the_analysis_phases() {
    let run = |flag: &str| membound([&["regions", flag][..], &INTRO[..3]].concat());
    let verbose = run("-v");
    assert_phases(
        &verbose,
        &[
            "loading the classes and building the call graph",
            "summarizing methods",
            "memAlloc, regions and memRq",
        ],
    );
    let quiet = run("-q");
    assert_eq!((quiet.code, quiet.stderr.as_str()), (0, ""));
    assert_eq!(quiet.stdout, verbose.stdout);
}

#[test]
fn on_a_terminal_measure_names_its_phase() {
    // `script` gives membound a pseudo-terminal and copies what it drew.
    let command = format!(
        "{} measure examples/intro/intro.jar --method Intro.m1 -- 3",
        membound_bin().display()
    );
    let output = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(workspace_root())
        .output()
        .expect("script (util-linux) runs");
    let drawn = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{drawn}");
    assert!(
        drawn.contains("running the program under the agent"),
        "{drawn}"
    );
    assert!(drawn.contains("Intro$B"), "the report follows: {drawn}");
}

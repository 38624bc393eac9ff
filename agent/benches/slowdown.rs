//! Prints how much the agent slows a program down against plain `java`, and how many of a
//! program's allocations the agent sees under other JVM flags than `EXACT_ALLOCATION_FLAGS`
//! (the empirical reason for those flags). Ratios measured in one run each; nothing is asserted.
//!
//! Run with `cargo bench -p membound-agent --bench slowdown` (builds the agent first).

use membound_runtime::measure::{self, MeasureOptions};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A test program run: main class, watched method, arguments, and how many objects the watched
/// method allocates (from the hand counts, or the program's own counters).
struct Workload {
    main: &'static str,
    method: &'static str,
    args: Vec<String>,
    expected_objects: u64,
}

/// Full-size workloads under `cargo bench` (which passes `--bench`); small ones when the bench
/// is only run as a smoke test (`cargo test --all-targets`).
fn workloads(full_size: bool) -> Vec<Workload> {
    let (mc, hot): (u64, u64) = if full_size {
        (150, 300_000)
    } else {
        (20, 10_000)
    };
    vec![
        Workload {
            main: "Fig14",
            method: "Fig14.m0(I)V",
            args: vec![mc.to_string()],
            // mc A + mc B[] + 2 * mc(mc+1)/2 (B and C) in m1; one B[] and 2mc B and C in m0's m2.
            expected_objects: 6 * mc + mc * (mc + 1) + 1,
        },
        Workload {
            main: "Hot",
            method: "Hot.run(I)J",
            args: vec![hot.to_string()],
            expected_objects: hot,
        },
    ]
}

fn jdk_tool(name: &str) -> PathBuf {
    std::env::var_os("JAVA_HOME")
        .map(|home| PathBuf::from(home).join("bin").join(name))
        .filter(|path| path.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}

fn compile_test_programs() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("agent-bench");
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let sources = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/java");
    let status = Command::new(jdk_tool("javac"))
        .arg("-g")
        .arg("-d")
        .arg(&dir)
        .arg(sources.join("Fig14.java"))
        .arg(sources.join("Hot.java"))
        .status()
        .expect("javac runs");
    assert!(status.success(), "javac failed");
    dir
}

fn timed(command: &mut Command) -> Duration {
    let start = Instant::now();
    let status = command.stdout(Stdio::null()).status().expect("java runs");
    assert!(status.success(), "{command:?} failed");
    start.elapsed()
}

/// `java <flags> -cp <classes> <main> <args>`.
fn java(classes: &Path, work: &Workload, flags: &[OsString]) -> Command {
    let mut command = Command::new(jdk_tool("java"));
    command
        .args(flags)
        .arg("-cp")
        .arg(classes)
        .arg(work.main)
        .args(&work.args);
    command
}

fn os_strings(flags: &[&str]) -> Vec<OsString> {
    flags.iter().map(OsString::from).collect()
}

fn print_slowdown(classes: &Path, work: &Workload) {
    let plain = timed(&mut java(classes, work, &[]));
    let flags_only = timed(&mut java(
        classes,
        work,
        &os_strings(&measure::EXACT_ALLOCATION_FLAGS),
    ));
    let options = MeasureOptions {
        input: classes.to_owned(),
        method: work.method.to_owned(),
        main: Some(work.main.to_owned()),
        program_args: work.args.clone(),
        ..MeasureOptions::default()
    };
    let start = Instant::now();
    let measurement = measure::measure(&options).expect("measure runs");
    let agent = start.elapsed();
    println!(
        "{:<6} {:>8} objects  plain {:>6.2}s  flags only {:>6.2}s  agent {:>6.2}s  slowdown x{:.1} (x{:.1} over the flags alone)",
        work.main,
        measurement.total.objects,
        plain.as_secs_f64(),
        flags_only.as_secs_f64(),
        agent.as_secs_f64(),
        agent.as_secs_f64() / plain.as_secs_f64(),
        agent.as_secs_f64() / flags_only.as_secs_f64(),
    );
}

/// Runs the agent under `flags` instead of the exact ones and counts what it saw.
fn objects_seen(classes: &Path, work: &Workload, flags: &[&str]) -> u64 {
    let agent = measure::find_agent(None).expect("the agent is built");
    let events = Path::new(env!("CARGO_TARGET_TMPDIR")).join("agent-bench.events");
    let mut agent_option = OsString::from("-agentpath:");
    agent_option.push(&agent);
    agent_option.push(format!("=method={},out=", work.method));
    agent_option.push(&events);
    let mut all_flags = vec![agent_option];
    all_flags.extend(os_strings(flags));
    timed(&mut java(classes, work, &all_flags));
    let file = std::fs::File::open(&events).expect("events written");
    let stream = measure::parse_events(std::io::BufReader::new(file)).expect("a valid stream");
    measure::aggregate(&stream)
        .expect("the method ran")
        .total
        .objects
}

fn print_visibility(classes: &Path, work: &Workload) {
    let flag_sets: [&[&str]; 5] = [
        &measure::EXACT_ALLOCATION_FLAGS,
        &["-XX:+UseG1GC", "-Xint"],
        &["-XX:+UseSerialGC", "-XX:-UseTLAB", "-Xint"],
        &["-XX:+UseParallelGC", "-XX:-UseTLAB", "-Xint"],
        &["-XX:+UseG1GC", "-XX:-UseTLAB"],
    ];
    for flags in flag_sets {
        let seen = objects_seen(classes, work, flags);
        println!(
            "{:<6} {:<45} saw {:>8} of {:>8} allocations ({:.1}%)",
            work.main,
            flags.join(" "),
            seen,
            work.expected_objects,
            100.0 * seen as f64 / work.expected_objects as f64
        );
    }
}

fn main() {
    let full_size = std::env::args().any(|arg| arg == "--bench");
    let classes = compile_test_programs();
    println!("agent slowdown (wall clock, one run each):");
    for work in &workloads(full_size) {
        print_slowdown(&classes, work);
    }
    println!("\nallocations the agent sees under other JVM flags:");
    for work in &workloads(full_size) {
        print_visibility(&classes, work);
    }
}

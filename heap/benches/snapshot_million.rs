//! Prints what a heap snapshot of about a million objects costs: the JVM writing an HPROF dump
//! and membound reading and abstracting it; the agent walking the same heap at the end of
//! `main` (against the same run without a snapshot) and membound reading its file. Times are
//! wall clock of one run each, memory the peak resident size; nothing is asserted.
//!
//! Run with `cargo bench -p membound-heap --bench snapshot_million` (builds the agent first:
//! `cargo build --release -p membound-agent`). Without `--bench` (a smoke run under `cargo test
//! --all-targets`) the heap holds 30,000 objects.

use membound_heap::graph::abstract_heap;
use membound_heap::scope::RootSelection;
use membound_runtime::measure::{self, EXACT_ALLOCATION_FLAGS};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn jdk_tool(name: &str) -> PathBuf {
    std::env::var_os("JAVA_HOME")
        .map(|home| PathBuf::from(home).join("bin").join(name))
        .filter(|path| path.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}

fn scratch() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("heap-bench");
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

fn compile(dir: &Path) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/java/Million.java");
    let status = Command::new(jdk_tool("javac"))
        .arg("-d")
        .arg(dir)
        .arg(source)
        .status()
        .expect("javac runs");
    assert!(status.success(), "javac failed");
}

/// Peak resident size of a process in KB (`VmHWM`), None once it is gone.
fn peak_kb(pid: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs a command to its end: its wall-clock time and its peak resident size (sampled).
fn run(command: &mut Command) -> (Duration, u64) {
    let start = Instant::now();
    let mut child = command
        .stdout(Stdio::null())
        .spawn()
        .expect("the program starts");
    let pid = child.id().to_string();
    let mut peak = 0;
    loop {
        if let Some(kb) = peak_kb(&pid) {
            peak = peak.max(kb);
        }
        if let Some(status) = child.try_wait().expect("wait") {
            assert!(status.success(), "{command:?} failed");
            return (start.elapsed(), peak);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn mb(kb: u64) -> String {
    format!("{:.0} MB", kb as f64 / 1024.0)
}

fn java(dir: &Path, flags: &[OsString], args: &[OsString]) -> Command {
    let mut command = Command::new(jdk_tool("java"));
    command
        .args(flags)
        .arg("-cp")
        .arg(dir)
        .arg("Million")
        .args(args);
    command
}

/// Reads a snapshot file and abstracts it, printing the times and this process's peak.
fn read_and_abstract(what: &str, path: &Path) {
    let start = Instant::now();
    let snapshot = membound_heap::read_snapshots(path)
        .expect("a valid file")
        .pop()
        .expect("one snapshot");
    let read = start.elapsed();
    let start = Instant::now();
    let graph = abstract_heap(&snapshot, RootSelection::All).graph;
    let abstracted = start.elapsed();
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    println!(
        "  {what}: {} objects, {} references, file {}; read {:.2} s, abstracted {:.2} s into {} structures; membound's peak so far {}",
        snapshot.objects().len(),
        snapshot.reference_count(),
        mb(size / 1024),
        read.as_secs_f64(),
        abstracted.as_secs_f64(),
        graph.structures.len(),
        mb(peak_kb("self").unwrap_or(0)),
    );
}

fn main() {
    let full_size = std::env::args().any(|arg| arg == "--bench");
    let objects: u64 = if full_size { 1_000_000 } else { 30_000 };
    let dir = scratch();
    compile(&dir);
    let n = OsString::from(objects.to_string());
    println!("a heap of about {objects} objects kept by the program (plus the JDK's own):");

    let dump = dir.join("million.hprof");
    let _ = std::fs::remove_file(&dump);
    let (dumped, dump_peak) = run(&mut java(&dir, &[], &[n.clone(), dump.clone().into()]));
    println!(
        "  the JVM dumping it (HotSpotDiagnosticMXBean, JIT on): {:.2} s for the whole run, JVM peak {}",
        dumped.as_secs_f64(),
        mb(dump_peak)
    );
    read_and_abstract("HPROF", &dump);

    let flags: Vec<OsString> = EXACT_ALLOCATION_FLAGS.iter().map(OsString::from).collect();
    let (plain, plain_peak) = run(&mut java(&dir, &flags, std::slice::from_ref(&n)));
    let agent = measure::find_agent(None).expect("the agent is built");
    let file = dir.join("million.heap");
    let mut agent_option = OsString::from("-agentpath:");
    agent_option.push(&agent);
    agent_option.push("=snapshot=exit:Million.main([Ljava/lang/String;)V,out=");
    agent_option.push(&file);
    let mut with_agent = vec![agent_option];
    with_agent.extend(flags);
    let (snapshotted, agent_peak) = run(&mut java(&dir, &with_agent, &[n]));
    println!(
        "  the agent (-Xint, every allocation tagged, one walk at the end of main): {:.2} s against {:.2} s without it ({:.1}x), JVM peak {} against {}",
        snapshotted.as_secs_f64(),
        plain.as_secs_f64(),
        snapshotted.as_secs_f64() / plain.as_secs_f64().max(1e-9),
        mb(agent_peak),
        mb(plain_peak)
    );
    read_and_abstract("agent snapshot", &file);
}

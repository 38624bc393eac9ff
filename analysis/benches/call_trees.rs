//! Analysis time of generated call trees: method `m_i` runs a loop of `n` iterations whose body
//! allocates one object and calls `m_{i+1}` `fan_out` times, down to depth `depth`. The number
//! of call chains is `fan_out^depth` (2^20 at depth 20, fan-out 2), the number of methods
//! `depth + 1` and of call sites `depth · fan_out`. Summaries make the work grow with methods and
//! call sites: the table prints the time per method and, per fan-out, the ratio of each depth's
//! time per method to the smallest depth's (near 1 when the growth is linear). A second family
//! nests a loop in every method of a chain (`for j < n` around the call): loop nests through
//! calls. Figures, not assertions.
//!
//! `cargo bench -p membound-analysis --bench call_trees`

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use membound_analysis::memrq;
use membound_front::callgraph;
use membound_front::classpath::{Classpath, Jdk};
use membound_front::hierarchy::Hierarchy;
use membound_front::program::Program;
use membound_front::select::select_method;
use membound_front::sizes::ObjectModel;

/// A generated program: `Tree.m0(int n)` down to `m{depth}`.
fn call_tree(depth: usize, fan_out: usize, nested: bool) -> String {
    let mut source = String::from("public class Tree {\n    static class Cell { int v; }\n");
    for level in 0..=depth {
        let _ = writeln!(source, "    static void m{level}(int n) {{");
        let _ = writeln!(source, "        for (int i = 0; i < n; i++) {{");
        let _ = writeln!(source, "            Cell c = new Cell();");
        if level < depth {
            let argument = if nested { "i" } else { "n" };
            for _ in 0..fan_out {
                let _ = writeln!(source, "            m{}({argument});", level + 1);
            }
        }
        source.push_str("        }\n    }\n");
    }
    source.push_str("}\n");
    source
}

fn compile(source: &str, name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("membound-call-trees-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let file = dir.join("Tree.java");
    std::fs::write(&file, source).expect("source written");
    let status = Command::new("javac")
        .args(["-g", "-nowarn", "-d"])
        .arg(&dir)
        .arg(&file)
        .status()
        .expect("javac runs");
    assert!(status.success(), "javac failed on {name}");
    dir
}

/// Seconds to analyze `Tree.m0` of the classes in `dir`, and whether its memAlloc is finite.
fn analyze(dir: &Path) -> (f64, bool) {
    let start = Instant::now();
    let mut classpath = Classpath::new();
    classpath.add_entry(dir).expect("classes");
    classpath
        .add_jdk(&Jdk::locate(None).expect("a JDK"))
        .expect("the JDK");
    let program = Program::new(classpath);
    let entry = select_method(&program, "Tree.m0").expect("m0");
    let specs = membound_front::specs::Specs::bundled();
    let graph = callgraph::build(&Hierarchy::new(&program), &entry, &specs).expect("call graph");
    let bounds = memrq::analyze(
        &program,
        &graph,
        ObjectModel::Count,
        memrq::Options::default(),
        &|| {},
    )
    .expect("bounds");
    let finite = !bounds.methods[0].mem_alloc.objects.may_be_infinite();
    (start.elapsed().as_secs_f64(), finite)
}

fn main() {
    println!(
        "{:<8} {:>6} {:>8} {:>8} {:>12} {:>10} {:>12} {:>8}",
        "family", "depth", "fan-out", "methods", "chains", "seconds", "ms/method", "ratio"
    );
    for (family, nested) in [("flat", false), ("nested", true)] {
        for fan_out in [2usize, 3, 4] {
            let mut first: Option<f64> = None;
            for depth in [5usize, 10, 15, 20, 25] {
                let name = format!("{family}-{depth}-{fan_out}");
                let dir = compile(&call_tree(depth, fan_out, nested), &name);
                let (seconds, finite) = analyze(&dir);
                let methods = depth + 1;
                let per_method = 1000.0 * seconds / methods as f64;
                let ratio = per_method / *first.get_or_insert(per_method);
                let chains = (fan_out as f64).powi(depth as i32);
                println!(
                    "{family:<8} {depth:>6} {fan_out:>8} {methods:>8} {chains:>12.3e} {seconds:>10.3} {per_method:>12.2} {ratio:>8.2}{}",
                    if finite { "" } else { "  (∞)" }
                );
                let _ = std::fs::remove_dir_all(&dir);
            }
        }
    }
}

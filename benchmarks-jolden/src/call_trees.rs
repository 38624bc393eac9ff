//! Analysis time of generated call trees (issue 19): method `m_i` runs a loop of `n` iterations
//! whose body allocates one object and calls `m_{i+1}` `fan_out` times, down to depth `depth`.
//! The number of call chains is `fan_out^depth` (2^20 at depth 20, fan-out 2), the number of
//! methods `depth + 1` and of call sites `depth · fan_out`. Summaries make the work grow with
//! methods and call sites: the table gives the time per method and, per family and fan-out, the
//! ratio of each depth's time per method to the smallest depth's (near 1 when the growth is
//! linear). The nested family puts the call inside a loop over `i < n` passing `i`: a loop nest
//! through calls, whose count is a polynomial of degree `depth + 1` (its summaries grow with
//! the degree). Figures, not assertions: the harness decides nothing about bounds.

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

use crate::Failure;

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

fn compile(source: &str, scratch: &Path, name: &str) -> Result<PathBuf, Failure> {
    let dir = scratch.join(name);
    std::fs::create_dir_all(&dir)
        .map_err(|e| Failure(format!("cannot create {}: {e}", dir.display())))?;
    let file = dir.join("Tree.java");
    std::fs::write(&file, source)
        .map_err(|e| Failure(format!("cannot write {}: {e}", file.display())))?;
    let status = Command::new("javac")
        .args(["-g", "-nowarn", "-d"])
        .arg(&dir)
        .arg(&file)
        .status()
        .map_err(|e| Failure(format!("cannot run javac: {e}")))?;
    if !status.success() {
        return Err(Failure(format!("javac failed on the call tree {name}")));
    }
    Ok(dir)
}

/// Seconds to analyze `Tree.m0` of the classes in `dir`, and whether its memAlloc is finite.
fn analyze(dir: &Path) -> Result<(f64, bool), Failure> {
    let failed = |e: &dyn std::fmt::Display| Failure(format!("call tree analysis: {e}"));
    let start = Instant::now();
    let mut classpath = Classpath::new();
    classpath.add_entry(dir).map_err(|e| failed(&e))?;
    let jdk = Jdk::locate(None).map_err(|e| failed(&e))?;
    classpath.add_jdk(&jdk).map_err(|e| failed(&e))?;
    let program = Program::new(classpath);
    let entry = select_method(&program, "Tree.m0").map_err(|e| failed(&e))?;
    let specs = membound_front::specs::Specs::bundled();
    let graph =
        callgraph::build(&Hierarchy::new(&program), &entry, &specs).map_err(|e| failed(&e))?;
    let options = memrq::Options::default();
    let bounds = memrq::analyze(&program, &graph, ObjectModel::Count, options, &|_| {})
        .map_err(|e| failed(&e))?;
    let finite = !bounds.methods[0].mem_alloc.objects.may_be_infinite();
    Ok((start.elapsed().as_secs_f64(), finite))
}

/// The table of both families, in Markdown; `small` stops at depth 10.
pub fn table(small: bool) -> Result<String, Failure> {
    let depths: &[usize] = if small {
        &[5, 10]
    } else {
        &[5, 10, 15, 20, 25]
    };
    let scratch = std::env::temp_dir().join(format!("jolden-call-trees-{}", std::process::id()));
    let mut out = String::from(
        "| Family | Depth | Fan-out | Methods | Call chains | Time | ms per method | Ratio |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for (family, nested) in [("flat", false), ("nested", true)] {
        for fan_out in [2usize, 3, 4] {
            let mut first: Option<f64> = None;
            for &depth in depths {
                let name = format!("{family}-{depth}-{fan_out}");
                eprintln!("call tree {name}");
                let dir = compile(&call_tree(depth, fan_out, nested), &scratch, &name)?;
                let (seconds, finite) = analyze(&dir)?;
                let methods = depth + 1;
                let per_method = 1000.0 * seconds / methods as f64;
                let ratio = per_method / *first.get_or_insert(per_method);
                let chains = (fan_out as f64).powi(depth as i32);
                let _ = writeln!(
                    out,
                    "| {family} | {depth} | {fan_out} | {methods} | {chains:.3e} | {seconds:.3} s | \
                     {per_method:.2} | {ratio:.2}{} |",
                    if finite { "" } else { " (∞)" }
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(out)
}

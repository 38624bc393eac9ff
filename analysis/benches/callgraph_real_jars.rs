//! Builds the call graph and enumerates the creation sites from public entry methods of real
//! jars (Debian's guava and commons-lang3), whose reach takes in most of the JDK, and prints the
//! size of each graph and the time it took. Figures, not assertions.
//!
//! `cargo bench -p membound --bench callgraph_real_jars`

use std::path::Path;
use std::time::Instant;

use membound_analysis::sites;
use membound_front::callgraph;
use membound_front::classpath::{Classpath, Jdk};
use membound_front::hierarchy::Hierarchy;
use membound_front::program::Program;
use membound_front::select::select_method;

const ENTRIES: &[(&str, &str)] = &[
    (
        "/usr/share/java/guava.jar",
        "com.google.common.collect.Lists.newArrayList()Ljava/util/ArrayList;",
    ),
    (
        "/usr/share/java/guava.jar",
        "com.google.common.base.Strings.repeat",
    ),
    (
        "/usr/share/java/commons-lang3.jar",
        "org.apache.commons.lang3.ArrayUtils.reverse([I)V",
    ),
];

fn main() {
    println!(
        "{:<70} {:>8} {:>9} {:>8} {:>9} {:>9}",
        "entry", "methods", "edges", "cha", "sites", "seconds"
    );
    for (jar, method) in ENTRIES {
        match measure(jar, method) {
            Ok(line) => println!("{line}"),
            Err(e) => println!("{method:<70} failed: {e}"),
        }
    }
}

fn measure(jar: &str, method: &str) -> membound_jvm::error::Result<String> {
    let start = Instant::now();
    let mut classpath = Classpath::new();
    classpath.add_entry(Path::new(jar))?;
    classpath.add_jdk(&Jdk::locate(None)?)?;
    let program = Program::new(classpath);
    let entry = select_method(&program, method)?;
    let graph = callgraph::build(
        &Hierarchy::new(&program),
        &entry,
        &membound_front::specs::Specs::bundled(),
    )?;
    let found = sites::enumerate(&program, &graph, sites::DEFAULT_MAX_CHAINS)?;
    let cha = graph
        .edges
        .iter()
        .filter(|e| e.dispatch == callgraph::Dispatch::Cha)
        .count();
    Ok(format!(
        "{:<70} {:>8} {:>9} {:>8} {:>9} {:>9.1}",
        method,
        graph.methods.len(),
        graph.edges.len(),
        cha,
        found.sites.len(),
        start.elapsed().as_secs_f64()
    ))
}

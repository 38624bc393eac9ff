//! Lifts every method of the JDK's java.base to IR, in parallel, and reports methods per
//! second and the total time (reading and parsing the classes included).
//!
//! `cargo bench -p membound --bench lift_java_base [-- JDK_HOME]`; the JDK defaults to the one
//! found from `JAVA_HOME` or the `java` on `PATH`.

use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

use membound_front::classfile::Class;
use membound_front::classpath::{Classpath, Jdk};
use membound_front::ir::lift_method;

fn main() {
    let explicit = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let jdk = match Jdk::locate(explicit.as_deref().map(Path::new)) {
        Ok(jdk) => jdk,
        Err(e) => {
            eprintln!("lift_java_base: {e}");
            std::process::exit(2);
        }
    };
    let start = Instant::now();
    let mut classpath = Classpath::new();
    if let Err(e) = classpath.add_jdk(&jdk) {
        eprintln!("lift_java_base: {e}");
        std::process::exit(2);
    }
    let names = classpath.module_classes("java.base");
    let indexed = start.elapsed();

    let classes: Vec<Class> = names
        .par_iter()
        .filter_map(|name| classpath.load(name).ok())
        .collect();
    let parsed = start.elapsed();

    let (methods, failures) = classes
        .par_iter()
        .map(|class| {
            let with_code = class.methods.iter().filter(|m| m.code.is_some());
            with_code.fold((0usize, 0usize), |(ok, failed), method| {
                match lift_method(class, method) {
                    Ok(_) => (ok + 1, failed),
                    Err(_) => (ok, failed + 1),
                }
            })
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let total = start.elapsed();
    let failures = failures + (names.len() - classes.len());

    println!("JDK: {} ({:?})", jdk.home.display(), jdk.image);
    println!("threads: {}", rayon::current_num_threads());
    println!(
        "classes: {} (indexed in {:.3} s)",
        names.len(),
        indexed.as_secs_f64()
    );
    println!(
        "read and parsed in {:.3} s",
        (parsed - indexed).as_secs_f64()
    );
    println!("lifted in {:.3} s", (total - parsed).as_secs_f64());
    println!("methods lifted: {methods}, failures: {failures}");
    println!("total: {:.3} s", total.as_secs_f64());
    println!(
        "methods per second: {:.0}",
        methods as f64 / total.as_secs_f64()
    );
}

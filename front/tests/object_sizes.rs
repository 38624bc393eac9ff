//! The object-size models against real JVMs: every class of the corpus in
//! `tests/fixtures/sizes/` (field mixes, inheritance with gaps, JDK superclasses), a list of JDK
//! classes (injected fields, `@Contended`), arrays of every element type and lengths 0 to 10, and
//! multi-dimensional arrays, sized by the model and by `Instrumentation.getObjectSize` in a JVM
//! with the model's flags: JDK 17 for `hotspot-coops` and `hotspot-nocoops`, JDK 25 for
//! `hotspot-compact` (and `hotspot-coops` again, with JDK 25's classes).
//!
//! The probe (`probe/SizeProbe.java`) is compiled with the corpus and packaged as a Java agent
//! with the `jar` tool at test time.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use membound_front::classpath::{Classpath, Jdk};
use membound_front::program::Program;
use membound_front::sizes::ObjectModel;
use membound_jvm::{ClassName, Type};

const JDK17: &str = "/usr/lib/jvm/java-17-openjdk-amd64";
const JDK25: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";

/// JDK classes worth checking: common allocations, classes with injected fields, classes with
/// `@Contended` fields or annotations, and subclasses of those.
const JDK_CLASSES: &[&str] = &[
    "java.lang.Object",
    "java.lang.String",
    "java.lang.Integer",
    "java.lang.Long",
    "java.lang.Double",
    "java.lang.Character",
    "java.lang.StringBuilder",
    "java.lang.Throwable",
    "java.lang.RuntimeException",
    "java.lang.InternalError",
    "java.lang.Thread",
    "java.lang.StackFrameInfo",
    "java.lang.Module",
    "java.lang.invoke.MemberName",
    "java.lang.invoke.ResolvedMethodName",
    "java.lang.ref.WeakReference",
    "java.net.URLClassLoader",
    "java.math.BigInteger",
    "java.util.ArrayList",
    "java.util.LinkedList",
    "java.util.LinkedList$Node",
    "java.util.HashMap",
    "java.util.HashMap$Node",
    "java.util.TreeMap",
    "java.util.TreeMap$Entry",
    "java.util.ArrayDeque",
    "java.util.Random",
    "java.util.concurrent.ConcurrentHashMap",
    "java.util.concurrent.ConcurrentHashMap$CounterCell",
    "java.util.concurrent.atomic.Striped64$Cell",
    "java.util.concurrent.atomic.LongAdder",
    "java.util.concurrent.Exchanger$Node",
    "java.util.concurrent.ForkJoinPool",
    "java.util.concurrent.locks.ReentrantLock",
];

/// JDK classes with injected fields that exist only in JDK 17 or only in JDK 25.
const JDK17_ONLY: &[&str] = &["java.lang.invoke.MethodHandleNatives$CallSiteContext"];
const JDK25_ONLY: &[&str] = &["jdk.internal.vm.StackChunk", "java.lang.VirtualThread"];

/// Element types of the one-dimensional arrays, as descriptors.
const ELEMENTS: &[&str] = &[
    "Z",
    "B",
    "C",
    "S",
    "I",
    "F",
    "J",
    "D",
    "Ljava/lang/Object;",
    "[I",
    "[Ljava/lang/String;",
];

/// Multi-dimensional arrays: descriptor and the dimensions given to `multianewarray`.
const MULTI: &[(&str, &[u64])] = &[
    ("[[I", &[3, 4]),
    ("[[I", &[0, 5]),
    ("[[I", &[3]),
    ("[[Z", &[4, 1]),
    ("[[J", &[2, 7]),
    ("[[[B", &[1, 2, 3]),
    ("[[[J", &[2, 3, 4]),
    ("[[Ljava/lang/String;", &[2, 5]),
    ("[[[Ljava/lang/Object;", &[3, 0, 2]),
];

#[test]
fn coops_model_equals_jdk17_defaults() {
    check("coops17", ObjectModel::HotspotCoops, JDK17, &[]);
}

#[test]
fn nocoops_model_equals_jdk17_without_compressed_oops() {
    check(
        "nocoops17",
        ObjectModel::HotspotNocoops,
        JDK17,
        &["-XX:-UseCompressedOops"],
    );
}

#[test]
fn compact_model_equals_jdk25_compact_headers() {
    check(
        "compact25",
        ObjectModel::HotspotCompact,
        JDK25,
        &["-XX:+UseCompactObjectHeaders"],
    );
}

#[test]
fn coops_model_equals_jdk25_defaults() {
    check("coops25", ObjectModel::HotspotCoops, JDK25, &[]);
}

#[test]
fn nocoops_model_equals_jdk25_without_compressed_oops() {
    check(
        "nocoops25",
        ObjectModel::HotspotNocoops,
        JDK25,
        &["-XX:-UseCompressedOops"],
    );
}

/// Sizes everything with `model` and with the JVM of `jdk` run with `flags`, and asserts they
/// agree on every class and every array.
fn check(test: &str, model: ObjectModel, jdk: &str, flags: &[&str]) {
    let classes = compile_corpus(test);
    let agent = package_agent(test, &classes);
    let mut classpath = Classpath::from_spec(&classes.display().to_string()).expect("classpath");
    classpath
        .add_jdk(&Jdk::at(Path::new(jdk)).expect("JDK"))
        .expect("JDK classes");
    let program = Program::new(classpath);

    let mut expected: BTreeMap<String, String> = BTreeMap::new();
    let corpus: Vec<ClassName> = program
        .user_classes()
        .filter(|name| name.internal().starts_with("corpus/"))
        .cloned()
        .collect();
    assert!(corpus.len() > 70, "the corpus compiled: {}", corpus.len());
    for name in corpus {
        let class = program.class(&name).expect("corpus class loads");
        if class.is_abstract() || class.is_interface() {
            continue;
        }
        let size = model.instance_size(&program, &name).expect("size");
        expected.insert(name.source(), size.to_string());
    }
    let only = if jdk == JDK17 { JDK17_ONLY } else { JDK25_ONLY };
    for &name in JDK_CLASSES.iter().chain(only) {
        let size = model
            .instance_size(&program, &ClassName::from_source(name))
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        expected.insert(name.to_string(), size.to_string());
    }
    for element in ELEMENTS {
        let array = format!("[{element}");
        for length in 0..=10 {
            let (shallow, deep) = array_sizes(model, &array, &[length]);
            expected.insert(
                probe_array_arg(&array, &[length]),
                format!("{shallow} {deep}"),
            );
        }
    }
    for (array, dims) in MULTI {
        let (shallow, deep) = array_sizes(model, array, dims);
        expected.insert(probe_array_arg(array, dims), format!("{shallow} {deep}"));
    }

    let measured = run_probe(jdk, flags, &classes, &agent, expected.keys());
    let mut mismatches = Vec::new();
    for (what, size) in &expected {
        match measured.get(what) {
            Some(real) if real == size => {}
            Some(real) => mismatches.push(format!("{what}: model {size}, JVM {real}")),
            None => mismatches.push(format!("{what}: the JVM reported nothing")),
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} sizes differ under {}:\n{}",
        mismatches.len(),
        expected.len(),
        model.name(),
        mismatches.join("\n")
    );
}

/// The model's size of the outer array of these dimensions, and of all its arrays together.
fn array_sizes(model: ObjectModel, descriptor: &str, dims: &[u64]) -> (u64, u64) {
    let mut ty = Type::parse(descriptor).expect("array descriptor");
    let mut count = 1;
    let mut shallow = None;
    let mut deep = 0;
    for &length in dims {
        let element = ty
            .element()
            .expect("as many dimensions as the rank")
            .clone();
        let size = model.array_layout(&element).size(length);
        shallow.get_or_insert(size);
        deep += count * size;
        count *= length;
        ty = element;
    }
    (shallow.expect("at least one dimension"), deep)
}

/// The probe's argument for an array: its class name for `Class.forName` and its dimensions.
fn probe_array_arg(descriptor: &str, dims: &[u64]) -> String {
    let dims: Vec<String> = dims.iter().map(u64::to_string).collect();
    format!("{}:{}", descriptor.replace('/', "."), dims.join(","))
}

/// Compiles the corpus and the probe with JDK 17's javac.
fn compile_corpus(test: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/sizes/src");
    let mut files = Vec::new();
    for package in ["corpus", "probe"] {
        for entry in std::fs::read_dir(root.join(package)).expect("fixture directory") {
            let path = entry.expect("fixture entry").path();
            let name = path
                .file_name()
                .expect("file name")
                .to_string_lossy()
                .into_owned();
            files.push((
                name,
                std::fs::read_to_string(&path).expect("fixture source"),
            ));
        }
    }
    let sources: Vec<(&str, &str)> = files
        .iter()
        .map(|(name, text)| (name.as_str(), text.as_str()))
        .collect();
    support::javac(test, &["--release", "17"], &sources)
}

/// The probe packaged as a Java agent.
fn package_agent(test: &str, classes: &Path) -> PathBuf {
    let dir = classes
        .parent()
        .expect("classes have a parent")
        .to_path_buf();
    let manifest = dir.join("manifest.txt");
    std::fs::write(&manifest, "Premain-Class: probe.SizeProbe\n").expect("manifest");
    let jar = dir.join(format!("probe-{test}.jar"));
    let mut command = Command::new(Path::new(JDK17).join("bin/jar"));
    command
        .arg("cfm")
        .arg(&jar)
        .arg(&manifest)
        .arg("-C")
        .arg(classes);
    stdout_of(command.arg("probe"));
    jar
}

/// Runs the probe on `what` and returns its answers: for a class its size, for an array its
/// size and the size of all its arrays.
fn run_probe<'a>(
    jdk: &str,
    flags: &[&str],
    classes: &Path,
    agent: &Path,
    what: impl Iterator<Item = &'a String>,
) -> BTreeMap<String, String> {
    let mut command = Command::new(Path::new(jdk).join("bin/java"));
    command
        .args(flags)
        .arg(format!("-javaagent:{}", agent.display()))
        .arg("-cp")
        .arg(classes);
    stdout_of(command.arg("probe.SizeProbe").args(what))
        .lines()
        .filter_map(|line| {
            let (_, rest) = line.split_once(' ')?;
            let (name, sizes) = rest.split_once(' ')?;
            Some((name.to_string(), sizes.to_string()))
        })
        .collect()
}

/// Runs a command that must succeed and returns what it printed.
fn stdout_of(command: &mut Command) -> String {
    let output = command.output().expect("the command starts");
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

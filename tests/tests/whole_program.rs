//! `analyze --entry-points`: every entry point of a fixture in one run, the cache (a re-run
//! that analyzes nothing, a changed class re-analyzing only what read it), shards merged into
//! the whole run's certificate, and an entry point stopped by its time limit.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;
use membound_tests::{
    Run, compile_fixture, compile_java_tree, membound, scratch_dir, workspace_root,
};

/// The public methods of the `whole_program` fixture (its constructors are private).
const ENTRIES: [&str; 6] = [
    "wp.Grid.grid(II)[[I",
    "wp.Grid.prefixSums(I)[J",
    "wp.Lists.make(I)[I",
    "wp.Lists.pairs(I)[Ljava/lang/Object;",
    "wp.Main.main([Ljava/lang/String;)V",
    "wp.Uses.twice(I)I",
];

fn analyze_entries(classes: &Path, extra: &[&str]) -> Run {
    analyze_kind(classes, "public", extra)
}

fn analyze_kind(classes: &Path, kind: &str, extra: &[&str]) -> Run {
    let mut args: Vec<&std::ffi::OsStr> = vec!["analyze".as_ref(), classes.as_os_str()];
    args.extend(["--entry-points", kind, "-q"].map(std::ffi::OsStr::new));
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    let run = membound(args);
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    run
}

fn certificate_json(path: &Path) -> serde_json::Value {
    let text = fs::read_to_string(path).expect("the certificate was written");
    serde_json::from_str(&text).expect("a JSON certificate")
}

/// The first line of the summary: `N entry points…: F finite, I ∞; A analyzed, C from the cache`.
fn counts(run: &Run) -> (usize, usize) {
    let line = run.stdout.lines().next().unwrap_or_default();
    let number_before = |word: &str| -> usize {
        let head = line.split(word).next().unwrap_or_default();
        let digits = head.rsplit(' ').find(|t| !t.is_empty()).unwrap_or_default();
        digits
            .parse()
            .unwrap_or_else(|_| panic!("no count before `{word}` in {line}"))
    };
    (number_before(" analyzed"), number_before(" from the cache"))
}

/// The entry points the summary lists under "slowest analyses of this run".
fn analyzed_now(run: &Run) -> Vec<String> {
    let mut lines = run.stdout.lines().skip_while(|l| !l.starts_with("slowest"));
    lines.next();
    let mut names: Vec<String> = lines
        .filter_map(|l| l.split("  ").last())
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
        .collect();
    names.sort();
    names
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("a directory");
    for entry in fs::read_dir(from).expect("readable").flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).expect("copied");
        }
    }
}

#[test]
fn every_public_method_is_an_entry_of_one_certificate() {
    let classes = compile_fixture("whole_program");
    let dir = scratch_dir("whole-all");
    let certificate = dir.join("all.json");
    let run = analyze_entries(&classes, &["-o", certificate.to_str().unwrap()]);
    let json = certificate_json(&certificate);
    assert_eq!(membound_tests::certificate_entries(&certificate), ENTRIES);
    assert_eq!(json["entry"]["method"], ENTRIES[0]);
    assert!(
        run.stdout
            .starts_with("6 entry points: 6 finite, 0 ∞; 6 analyzed, 0 from the cache"),
        "{}",
        run.stdout
    );
    // Each entry's own bounds: evaluating one gives its exact allocation (twice: n + 2n ints).
    let eval = membound([
        "eval",
        certificate.to_str().unwrap(),
        "--method",
        "wp.Uses.twice",
        "--param",
        "n=10",
        "--format",
        "json",
    ]);
    assert_eq!(eval.code, 0, "{}", eval.stderr);
    let values: serde_json::Value = serde_json::from_str(&eval.stdout).expect("JSON");
    // int[10] (16 + 40 = 56 bytes) and int[20] (16 + 80 = 96 bytes).
    assert_eq!(values["methods"][0]["mem_alloc"]["bytes"], 152);
    // The callee reached from two entries is listed once.
    let methods = json["methods"].as_array().expect("methods");
    let makes = methods
        .iter()
        .filter(|m| m["method"] == "wp.Lists.make(I)[I")
        .count();
    assert_eq!(makes, 1);
}

#[test]
fn mains_and_a_file_name_the_entries() {
    let classes = compile_fixture("whole_program");
    let dir = scratch_dir("whole-kinds");
    let mains = dir.join("mains.json");
    analyze_kind(&classes, "mains", &["-o", mains.to_str().unwrap()]);
    assert_eq!(
        certificate_json(&mains)["entries"],
        serde_json::json!([ENTRIES[4]])
    );
    let list = dir.join("entries.txt");
    fs::write(
        &list,
        "# two entries\nwp.Uses.twice\n\nwp.Grid.grid(int, int)\n",
    )
    .expect("written");
    let listed = dir.join("listed.json");
    analyze_kind(
        &classes,
        list.to_str().unwrap(),
        &["-o", listed.to_str().unwrap()],
    );
    assert_eq!(
        certificate_json(&listed)["entries"],
        serde_json::json!([ENTRIES[0], ENTRIES[5]])
    );
    fs::write(&list, "wp.Uses.nothing\n").expect("written");
    let bad = membound([
        "analyze",
        classes.to_str().unwrap(),
        "--entry-points",
        list.to_str().unwrap(),
    ]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("entries.txt:1"), "{}", bad.stderr);
}

#[test]
fn a_cached_rerun_analyzes_nothing_and_a_changed_class_only_what_read_it() {
    let classes = compile_fixture("whole_program");
    let dir = scratch_dir("whole-cache");
    let cache = dir.join("cache");
    let cache_arg = cache.to_str().unwrap();
    let first = dir.join("first.yaml");
    let run = analyze_entries(
        &classes,
        &["--cache", cache_arg, "-o", first.to_str().unwrap()],
    );
    assert_eq!(counts(&run), (6, 0));
    let again = dir.join("again.yaml");
    let rerun = analyze_entries(
        &classes,
        &["--cache", cache_arg, "-o", again.to_str().unwrap()],
    );
    assert_eq!(counts(&rerun), (0, 6), "{}", rerun.stdout);
    assert_eq!(fs::read(&first).unwrap(), fs::read(&again).unwrap());

    // The same classes with Lists changed: Lists's methods and those that call it run again.
    let changed = dir.join("changed");
    copy_dir(&classes, &changed);
    let lists = compile_java_tree(
        "whole_program_changed",
        &workspace_root().join("tests/fixtures/whole_program_changed/src"),
    );
    fs::copy(lists.join("wp/Lists.class"), changed.join("wp/Lists.class")).expect("copied");
    let after = analyze_entries(&changed, &["--cache", cache_arg]);
    assert_eq!(counts(&after), (4, 2), "{}", after.stdout);
    assert_eq!(
        analyzed_now(&after),
        [ENTRIES[2], ENTRIES[3], ENTRIES[4], ENTRIES[5]],
        "{}",
        after.stdout
    );
}

#[test]
fn a_record_is_its_entrys_certificate_compressed() {
    let classes = compile_fixture("whole_program");
    let dir = scratch_dir("whole-cache-records");
    let cache = dir.join("cache");
    let whole = dir.join("whole.json");
    analyze_entries(
        &classes,
        &[
            "--cache",
            cache.to_str().unwrap(),
            "-o",
            whole.to_str().unwrap(),
        ],
    );
    let whole = certificate_json(&whole);
    let mut recorded = Vec::new();
    for file in fs::read_dir(&cache).expect("the cache").flatten() {
        let compressed = fs::read(file.path()).expect("readable");
        let mut text = Vec::new();
        GzDecoder::new(compressed.as_slice())
            .read_to_end(&mut text)
            .expect("a gzip stream");
        // A fixture's small certificates compress less than a jar's (about 15-fold).
        assert!(
            compressed.len() < text.len(),
            "{} bytes compressed to {}",
            text.len(),
            compressed.len()
        );
        let record: serde_json::Value = serde_json::from_slice(&text).expect("JSON");
        let method = record["method"].as_str().expect("the entry's name");
        let own = |certificate: &serde_json::Value| {
            certificate["methods"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|m| m["method"] == method)
                .cloned()
        };
        // The entry's own bounds are what the whole run's certificate lists for it.
        assert_eq!(own(&record["certificate"]), own(&whole), "{method}");
        recorded.push(method.to_string());
    }
    recorded.sort();
    assert_eq!(recorded, ENTRIES);
}

#[test]
fn two_shards_merged_are_the_whole_run() {
    let classes = compile_fixture("whole_program");
    let dir = scratch_dir("whole-shards");
    let whole = dir.join("whole.yaml");
    analyze_entries(&classes, &["-o", whole.to_str().unwrap()]);
    let shards: Vec<PathBuf> = (1..=2)
        .map(|i| dir.join(format!("shard{i}.yaml")))
        .collect();
    for (index, shard) in shards.iter().enumerate() {
        let which = format!("{}/2", index + 1);
        analyze_entries(
            &classes,
            &["--shard", &which, "-o", shard.to_str().unwrap()],
        );
    }
    let one = fs::read_to_string(&shards[0]).unwrap();
    assert!(
        one.contains(ENTRIES[0]) && !one.contains("- wp.Grid.prefixSums"),
        "{one}"
    );
    let merged = dir.join("merged.yaml");
    let run = membound([
        "merge",
        shards[1].to_str().unwrap(),
        shards[0].to_str().unwrap(),
        "-o",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        fs::read_to_string(&merged).unwrap(),
        fs::read_to_string(&whole).unwrap()
    );
    let bad = membound([
        "analyze",
        classes.to_str().unwrap(),
        "--entry-points",
        "public",
        "--shard",
        "3/2",
    ]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}

#[test]
fn an_entry_past_its_time_limit_is_unbounded_and_the_run_goes_on() {
    let classes = compile_fixture("whole_program");
    let dir = scratch_dir("whole-limit");
    let certificate = dir.join("limited.json");
    let run = analyze_entries(
        &classes,
        &[
            "--entry-time-limit",
            "1e-9",
            "-o",
            certificate.to_str().unwrap(),
        ],
    );
    assert!(
        run.stdout.starts_with("6 entry points: 0 finite, 6 ∞"),
        "{}",
        run.stdout
    );
    let json = certificate_json(&certificate);
    for entry in ENTRIES {
        let method = json["methods"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["method"] == entry)
            .expect("every entry is listed");
        assert_eq!(method["mem_alloc"]["bytes"], "infty");
        assert!(
            method["unbounded"][0]
                .as_str()
                .unwrap()
                .contains("the analysis reached its time limit while building the call graph"),
            "{method}"
        );
    }
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

#[test]
fn one_method_past_its_time_limit_is_unbounded_with_that_reason() {
    let classes = compile_fixture("whole_program");
    let dir = scratch_dir("method-limit");
    let certificate = dir.join("limited.json");
    let run = membound([
        "analyze",
        classes.to_str().unwrap(),
        "--method",
        "wp.Lists.pairs",
        "--entry-time-limit",
        "1e-9",
        "-o",
        certificate.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json = certificate_json(&certificate);
    let entry = &json["methods"][0];
    assert_eq!(entry["method"], "wp.Lists.pairs(I)[Ljava/lang/Object;");
    assert_eq!(entry["mem_alloc"]["bytes"], "infty", "{entry}");
    assert!(
        json.to_string()
            .contains("the analysis reached its time limit"),
        "{json}"
    );
    let bad = membound([
        "analyze",
        classes.to_str().unwrap(),
        "--method",
        "wp.Lists.pairs",
        "--entry-time-limit",
        "0",
    ]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("bad --entry-time-limit"),
        "{}",
        bad.stderr
    );
}

/// `scan.Other`'s class file in `fixtures/whole_program_scan/<variant>` copied over `classes`.
fn replace_other(classes: &Path, variant: &str, into: &Path) {
    copy_dir(classes, into);
    let changed = compile_java_tree(
        &format!("whole_program_scan_{variant}"),
        &workspace_root()
            .join("tests/fixtures/whole_program_scan")
            .join(variant),
    );
    fs::copy(
        changed.join("scan/Other.class"),
        into.join("scan/Other.class"),
    )
    .expect("copied");
}

#[test]
fn a_scan_of_the_classes_depends_on_what_they_declare_not_on_their_code() {
    let classes = compile_fixture("whole_program_scan");
    let dir = scratch_dir("whole-scan-cache");
    let cache = dir.join("cache");
    let cache_arg = cache.to_str().unwrap();
    let first = analyze_entries(&classes, &["--cache", cache_arg]);
    assert_eq!(counts(&first), (2, 0), "{}", first.stdout);

    // A change inside Other.make: the instance method that only scanned Other stays cached.
    let body = dir.join("body_changed");
    replace_other(&classes, "body_changed", &body);
    let after_body = analyze_entries(&body, &["--cache", cache_arg]);
    assert_eq!(counts(&after_body), (1, 1), "{}", after_body.stdout);
    assert_eq!(analyzed_now(&after_body), ["scan.Other.make(I)[J"]);

    // A method added to Other: the scan may find something else, so the instance method runs
    // again (and Other's entries: make, and the new one).
    let declaration = dir.join("declaration_changed");
    replace_other(&classes, "declaration_changed", &declaration);
    let after_declaration = analyze_entries(&declaration, &["--cache", cache_arg]);
    assert_eq!(
        analyzed_now(&after_declaration),
        [
            "scan.Counter.cells(I)[I",
            "scan.Other.make(I)[J",
            "scan.Other.more(I)[I"
        ],
        "{}",
        after_declaration.stdout
    );
}

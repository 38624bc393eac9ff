//! `membound callgraph` and `sites` on real jars nobody here wrote (Debian's guava and
//! commons-lang3; `.ci/run` installs them): the call graph from public entry methods completes,
//! crosses into the JDK, and the creation sites are listed.

use std::path::Path;

use membound_tests::{membound, scratch_dir};
use serde_json::Value;

fn jar(name: &str, package: &str) -> String {
    let path = format!("/usr/share/java/{name}");
    assert!(
        Path::new(&path).exists(),
        "{path} is missing: install the Debian package {package} (bash .ci/run does)"
    );
    path
}

fn callgraph(input: &str, method: &str, extra: &[&str]) -> Value {
    let mut args = vec!["callgraph", input, "--method", method, "--format", "json"];
    args.extend_from_slice(extra);
    let run = membound(args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("valid JSON")
}

fn method_names(graph: &Value) -> Vec<String> {
    graph["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .map(|m| m["method"].as_str().expect("method name").to_string())
        .collect()
}

#[test]
fn guava_entry_reaches_into_the_jdk() {
    let guava = jar("guava.jar", "libguava-java");
    let entry = "com.google.common.collect.Lists.newArrayList()Ljava/util/ArrayList;";
    // The bundled spec of `ArrayList.<init>` stands for its code…
    let graph = callgraph(&guava, entry, &[]);
    let constructor = graph["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .find(|m| m["method"] == "java.util.ArrayList.<init>()V")
        .unwrap_or_else(|| panic!("{graph:#}"));
    assert_eq!(constructor["kind"], "spec", "{constructor:#}");
    // …which the graph follows without the bundled specs.
    let graph = callgraph(&guava, entry, &["--no-bundled-specs"]);
    let methods = method_names(&graph);
    assert!(
        methods.contains(&"java.lang.Object.<init>()V".to_string()),
        "{methods:?}"
    );
    let sites = membound([
        "sites",
        &guava,
        "--method",
        "com.google.common.collect.Lists.newArrayList()Ljava/util/ArrayList;",
        "--format",
        "json",
    ]);
    assert_eq!(sites.code, 0, "{}", sites.stderr);
    let json: Value = serde_json::from_str(&sites.stdout).expect("valid JSON");
    let types: Vec<&str> = json["sites"]
        .as_array()
        .expect("sites")
        .iter()
        .map(|s| s["type"].as_str().expect("type"))
        .collect();
    assert!(types.contains(&"java.util.ArrayList"), "{types:?}");
}

#[test]
fn commons_lang_entry_completes() {
    let lang = jar("commons-lang3.jar", "libcommons-lang3-java");
    let graph = callgraph(
        &lang,
        "org.apache.commons.lang3.ArrayUtils.isEmpty([I)Z",
        &[],
    );
    let methods = method_names(&graph);
    assert_eq!(
        methods[0],
        "org.apache.commons.lang3.ArrayUtils.isEmpty([I)Z"
    );
    assert!(methods.len() > 1, "{methods:?}");
    assert_eq!(
        graph["unresolved"].as_array().map(Vec::len),
        Some(0),
        "{graph:#}"
    );
}

/// An entry point whose analysis runs long past a short time limit (commons-lang3's
/// `ToStringStyle.append` of a `short`: its invariant fixpoints give up, and reading their
/// invariants off and keeping "any state" at every node of its large procedures used to
/// take minutes and gigabytes after the limit): it ends ∞ with the time limit as its reason.
#[test]
fn an_entry_past_its_time_limit_ends_unbounded_with_the_limit_as_reason() {
    let lang = jar("commons-lang3.jar", "libcommons-lang3-java");
    let entry = "org.apache.commons.lang3.builder.ToStringStyle.append(Ljava/lang/StringBuffer;Ljava/lang/String;S)V";
    let dir = scratch_dir("long-entry");
    let list = dir.join("entries.txt");
    std::fs::write(&list, format!("{entry}\n")).expect("written");
    let certificate = dir.join("limited.json");
    let run = membound([
        "analyze",
        &lang,
        "--entry-points",
        list.to_str().unwrap(),
        "--entry-time-limit",
        "2",
        "-q",
        "-o",
        certificate.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(&certificate).expect("the certificate");
    let json: Value = serde_json::from_str(&text).expect("JSON");
    let record = json["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .find(|m| m["method"] == entry)
        .expect("the entry is listed");
    assert_eq!(record["mem_alloc"]["bytes"], "infty", "{record:#}");
    assert!(
        record.to_string().contains("reached its time limit"),
        "{record:#}"
    );
}

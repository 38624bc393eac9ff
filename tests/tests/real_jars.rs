//! `membound callgraph` and `sites` on real jars nobody here wrote (Debian's guava and
//! commons-lang3; `.ci/run` installs them): the call graph from public entry methods completes,
//! crosses into the JDK, and the creation sites are listed.

use std::path::Path;

use membound_tests::membound;
use serde_json::Value;

fn jar(name: &str, package: &str) -> String {
    let path = format!("/usr/share/java/{name}");
    assert!(
        Path::new(&path).exists(),
        "{path} is missing: install the Debian package {package} (bash .ci/run does)"
    );
    path
}

fn callgraph(input: &str, method: &str) -> Value {
    let run = membound(["callgraph", input, "--method", method, "--format", "json"]);
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
    let graph = callgraph(
        &guava,
        "com.google.common.collect.Lists.newArrayList()Ljava/util/ArrayList;",
    );
    let methods = method_names(&graph);
    assert!(
        methods.contains(&"java.util.ArrayList.<init>()V".to_string()),
        "{methods:?}"
    );
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
    let graph = callgraph(&lang, "org.apache.commons.lang3.ArrayUtils.isEmpty([I)Z");
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

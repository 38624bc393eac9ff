//! `membound heap graph`: abstract heap graphs of the `heap_shapes` fixture — a tree, a ring, a
//! DAG with shared leaves, a list spoiled into a cycle — from snapshots the agent takes and
//! from HPROF dumps the JVM writes (`HotSpotDiagnosticMXBean.dumpHeap`, `jcmd GC.heap_dump`,
//! plain and compressed); the agent's and the JVM's view of one heap agree; pictures are
//! rendered by graphviz.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use membound_tests::{compile_fixture, membound, scratch_dir};
use serde_json::Value;

/// `membound heap graph <classes> --main heapshapes.Shapes --format json [extra] -- KIND N`.
fn graph_of_run(kind: &str, n: usize, extra: &[&str]) -> Value {
    let classes = compile_fixture("heap_shapes");
    let mut args: Vec<String> = vec![
        "heap".into(),
        "graph".into(),
        classes.display().to_string(),
        "--main".into(),
        "heapshapes.Shapes".into(),
        "--format".into(),
        "json".into(),
    ];
    args.extend(extra.iter().map(|a| a.to_string()));
    args.extend(["--".into(), kind.into(), n.to_string()]);
    let run = membound(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

/// `membound heap graph <file> --format json`.
fn graph_of_file(path: &Path) -> Value {
    let run = membound([
        "heap".as_ref(),
        "graph".as_ref(),
        path.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

/// The one structure holding objects of `class`.
fn structure<'a>(graph: &'a Value, class: &str) -> &'a Value {
    let found: Vec<&Value> = graph["structures"]
        .as_array()
        .expect("structures")
        .iter()
        .filter(|s| {
            s["classes"]
                .as_array()
                .is_some_and(|c| c.iter().any(|n| n == class))
        })
        .collect();
    assert_eq!(found.len(), 1, "one structure of {class} in {graph:#}");
    found[0]
}

/// The edges out of and into the structure with this id, by field.
fn internal_edge<'a>(graph: &'a Value, id: &Value, field: &str) -> &'a Value {
    graph["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .find(|e| &e["from"] == id && &e["to"] == id && e["field"] == field)
        .unwrap_or_else(|| panic!("no internal edge {field} in {graph:#}"))
}

fn shape(structure: &Value) -> (&str, u64, u64, u64) {
    (
        structure["shape"].as_str().expect("shape"),
        structure["objects"].as_u64().expect("objects"),
        structure["max_in_degree"].as_u64().expect("in"),
        structure["max_out_degree"].as_u64().expect("out"),
    )
}

/// Checks the four structures of the issue in a graph of each.
fn check_the_four_shapes(graph_of: impl Fn(&str) -> Value) {
    // 15 nodes: a complete tree of depth 4.
    let tree = graph_of("tree");
    let nodes = structure(&tree, "heapshapes.TreeNode");
    assert_eq!(shape(nodes), ("tree", 15, 1, 2));
    assert_eq!(nodes["shape_fields"], serde_json::json!(["left", "right"]));
    let left = internal_edge(&tree, &nodes["id"], "left");
    assert_eq!(
        (left["count"].as_u64(), &left["injective"], &left["shared"]),
        (Some(7), &Value::Bool(true), &Value::Bool(false))
    );

    let ring = graph_of("ring");
    assert_eq!(
        shape(structure(&ring, "heapshapes.RingNode")),
        ("cyclic", 15, 1, 1)
    );

    // Depth 4: 7 inner nodes whose 8 leaf slots take 3 shared leaves.
    let dag = graph_of("dag");
    let nodes = structure(&dag, "heapshapes.DagNode");
    assert_eq!(shape(nodes), ("dag", 10, 3, 2));
    let right = internal_edge(&dag, &nodes["id"], "right");
    assert_eq!(
        (&right["injective"], &right["shared"]),
        (&Value::Bool(false), &Value::Bool(true))
    );

    let spoiled = graph_of("spoiled");
    assert_eq!(
        shape(structure(&spoiled, "heapshapes.ListNode")),
        ("cyclic", 15, 2, 1)
    );
    let payloads = structure(&spoiled, "heapshapes.Payload");
    assert_eq!(shape(payloads), ("atom", 15, 0, 0));
    let list = graph_of("list");
    assert_eq!(
        shape(structure(&list, "heapshapes.ListNode")),
        ("list", 15, 1, 1)
    );
}

#[test]
fn the_agent_snapshot_at_the_end_of_main_shows_each_shape() {
    check_the_four_shapes(|kind| graph_of_run(kind, 15, &[]));
}

#[test]
fn structures_carry_their_allocation_sites_from_the_agent() {
    let graph = graph_of_run("list", 5, &[]);
    let payloads = structure(&graph, "heapshapes.Payload");
    let site = &payloads["sites"][0];
    assert_eq!(site["objects"], 5);
    let text = site["site"].as_str().expect("site");
    assert!(
        text.starts_with("heapshapes.ListNode.list(I)Lheapshapes/ListNode; line "),
        "{text}"
    );
}

#[test]
fn a_snapshot_at_the_exit_of_a_method_sees_its_result_before_main_keeps_it() {
    let graph = graph_of_run("dag", 15, &["--at", "exit:heapshapes.Shapes.build"]);
    assert_eq!(shape(structure(&graph, "heapshapes.DagNode")).0, "dag");
    assert!(
        graph["moment"]
            .as_str()
            .is_some_and(|m| m.starts_with("exit heapshapes.Shapes.build(")),
        "{}",
        graph["moment"]
    );
    // `kept` is only assigned after build returns.
    let roots: Vec<&str> = graph["roots"]
        .as_array()
        .expect("roots")
        .iter()
        .filter_map(|r| r["root"].as_str())
        .collect();
    assert!(
        !roots.contains(&"static heapshapes.Shapes.kept"),
        "{roots:?}"
    );
}

/// Runs the fixture on a plain JVM (no agent) that dumps its own heap; returns the dump.
fn dump_written_by_the_program(kind: &str, dir: &Path) -> PathBuf {
    let classes = compile_fixture("heap_shapes");
    let dump = dir.join(format!("{kind}.hprof"));
    let status = Command::new("java")
        .arg("-cp")
        .arg(&classes)
        .args(["heapshapes.Shapes", kind, "15"])
        .arg(&dump)
        .stdout(Stdio::null())
        .status()
        .expect("java runs");
    assert!(status.success());
    dump
}

#[test]
fn dumps_the_jvm_writes_show_each_shape() {
    let dir = scratch_dir("heap-graph-dumps");
    check_the_four_shapes(|kind| graph_of_file(&dump_written_by_the_program(kind, &dir)));
}

#[test]
fn the_agent_and_an_hprof_dump_of_one_heap_agree_on_its_application_structures() {
    // Fields declared by an interface, a superclass and the class itself: JVMTI numbers them
    // in one sequence the agent must follow; HPROF names them.
    let dir = scratch_dir("heap-graph-agree");
    let from_agent = graph_of_run("fields", 6, &[]);
    let classes = compile_fixture("heap_shapes");
    let dump = dir.join("fields.hprof");
    let status = Command::new("java")
        .arg("-cp")
        .arg(&classes)
        .args(["heapshapes.Shapes", "fields", "6"])
        .arg(&dump)
        .stdout(Stdio::null())
        .status()
        .expect("java runs");
    assert!(status.success());
    let from_dump = graph_of_file(&dump);
    let derived_agent = structure(&from_agent, "heapshapes.Derived");
    let derived_dump = structure(&from_dump, "heapshapes.Derived");
    for key in [
        "classes",
        "objects",
        "shape",
        "shape_fields",
        "max_in_degree",
        "max_out_degree",
    ] {
        assert_eq!(derived_agent[key], derived_dump[key], "{key}");
    }
    let fields_out = |graph: &Value, from: &Value| -> Vec<(String, u64, bool)> {
        let mut fields: Vec<(String, u64, bool)> = graph["edges"]
            .as_array()
            .expect("edges")
            .iter()
            .filter(|e| &e["from"] == from)
            .map(|e| {
                (
                    e["field"].as_str().unwrap_or("").to_owned(),
                    e["count"].as_u64().unwrap_or(0),
                    e["injective"].as_bool().unwrap_or(false),
                )
            })
            .collect();
        fields.sort();
        fields
    };
    let expected: Vec<(String, u64, bool)> = ["[]", "first", "fourth", "second", "third"]
        .iter()
        .map(|f| (f.to_string(), 6, true))
        .collect();
    assert_eq!(fields_out(&from_agent, &derived_agent["id"]), expected);
    assert_eq!(fields_out(&from_dump, &derived_dump["id"]), expected);
    // The size model of HPROF dumps gives the JVM's sizes for these objects.
    assert_eq!(derived_agent["bytes"], derived_dump["bytes"]);
    let statics = |graph: &Value| -> Vec<String> {
        let mut roots: Vec<String> = graph["roots"]
            .as_array()
            .expect("roots")
            .iter()
            .filter_map(|r| r["root"].as_str())
            .filter(|r| r.starts_with("static heapshapes."))
            .map(str::to_owned)
            .collect();
        roots.sort();
        roots.dedup();
        roots
    };
    assert_eq!(statics(&from_agent), statics(&from_dump));
    assert!(statics(&from_agent).contains(&"static heapshapes.Base.baseShared".to_owned()));
}

/// Starts the waiting fixture, dumps it with `jcmd PID GC.heap_dump [-gz=1]`, lets it end.
fn jcmd_dump(kind: &str, dump: &Path, compressed: bool) {
    let classes = compile_fixture("heap_shapes");
    let mut child = Command::new("java")
        .arg("-cp")
        .arg(&classes)
        .args(["heapshapes.Waiting", kind, "15"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("java runs");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    stdout
        .read_line(&mut line)
        .expect("the program says it is ready");
    assert_eq!(line.trim(), "ready");
    let mut jcmd = Command::new("jcmd");
    jcmd.arg(child.id().to_string()).arg("GC.heap_dump");
    if compressed {
        jcmd.arg("-gz=1");
    }
    let status = jcmd
        .arg(dump)
        .stdout(Stdio::null())
        .status()
        .expect("jcmd runs");
    drop(child.stdin.take());
    let finished = child.wait().expect("the program ends");
    assert!(status.success() && finished.success());
}

#[test]
fn dumps_taken_by_jcmd_read_plain_and_compressed() {
    let dir = scratch_dir("heap-graph-jcmd");
    let plain = dir.join("waiting.hprof");
    jcmd_dump("tree", &plain, false);
    let graph = graph_of_file(&plain);
    assert_eq!(
        shape(structure(&graph, "heapshapes.TreeNode")),
        ("tree", 15, 1, 2)
    );
    let compressed = dir.join("waiting.hprof.gz");
    jcmd_dump("spoiled", &compressed, true);
    let graph = graph_of_file(&compressed);
    assert_eq!(shape(structure(&graph, "heapshapes.ListNode")).0, "cyclic");
}

#[test]
fn graphviz_renders_the_picture_as_svg() {
    let dir = scratch_dir("heap-graph-svg");
    let dump = dump_written_by_the_program("dag", &dir);
    let run = membound([
        "heap".as_ref(),
        "graph".as_ref(),
        dump.as_os_str(),
        "--format".as_ref(),
        "svg".as_ref(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("<svg"), "{}", run.stdout);
    // The shape label and the legend are drawn.
    assert!(run.stdout.contains("dag{left,right}"), "{}", run.stdout);
    assert!(run.stdout.contains("legend"));
}

#[test]
fn without_graphviz_svg_is_a_clear_error() {
    let dir = scratch_dir("heap-graph-no-dot");
    let dump = dump_written_by_the_program("tree", &dir);
    let run = Command::new(membound_tests::membound_bin())
        .args([
            "heap".as_ref(),
            "graph".as_ref(),
            dump.as_os_str(),
            "--format".as_ref(),
            "svg".as_ref(),
        ])
        .env("PATH", &dir)
        .output()
        .expect("membound runs");
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("graphviz") && stderr.lines().count() == 1,
        "{stderr}"
    );
}

#[test]
fn malformed_dumps_are_input_errors() {
    let dir = scratch_dir("heap-graph-malformed");
    let dump = dump_written_by_the_program("list", &dir);
    let bytes = std::fs::read(&dump).expect("the dump");
    let cut = dir.join("cut.hprof");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).expect("write");
    let run = membound(["heap".as_ref(), "graph".as_ref(), cut.as_os_str()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("truncated"), "{}", run.stderr);
    let text = dir.join("notes.txt");
    std::fs::write(&text, "hello").expect("write");
    let run = membound(["heap".as_ref(), "graph".as_ref(), text.as_os_str()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

/// Saves the JSON graph of an agent run of the fixture.
fn saved_graph(kind: &str, n: usize, path: &Path) {
    let graph = graph_of_run(kind, n, &[]);
    std::fs::write(path, graph.to_string()).expect("write the graph");
}

#[test]
fn diff_reports_growth_and_exits_1_on_a_shape_regression() {
    let dir = scratch_dir("heap-diff");
    let small = dir.join("small.json");
    let large = dir.join("large.json");
    saved_graph("list", 5, &small);
    saved_graph("list", 15, &large);
    let run = membound([
        "heap".as_ref(),
        "diff".as_ref(),
        small.as_os_str(),
        large.as_os_str(),
    ]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("heapshapes.ListNode: 5 → 15 objects (+10)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("0 shape regression(s)"),
        "{}",
        run.stdout
    );
    // A saved graph against a dump the JVM wrote of the spoiled list.
    let spoiled = dump_written_by_the_program("spoiled", &dir);
    let run = membound([
        "heap".as_ref(),
        "diff".as_ref(),
        large.as_os_str(),
        spoiled.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let list = json["structures"]
        .as_array()
        .expect("structures")
        .iter()
        .find(|s| s["classes"][0] == "heapshapes.ListNode")
        .expect("the list");
    assert_eq!(list["shape_before"], "list{next}");
    assert_eq!(list["shape_after"], "cyclic{next}");
    assert!(json["regressions"].as_u64() >= Some(1));
}

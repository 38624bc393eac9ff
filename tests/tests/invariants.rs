//! `membound invariants`: each creation site's invariant, counted with `membound count`, gives
//! exactly how often the allocation runs. On the thesis's Fig 1.4 program the counts are the
//! thesis's (Example 1.4: how often each statement runs); on the loop-shape fixture they are
//! what the Java program itself counts at run time.

use std::collections::BTreeMap;

use membound_tests::{Run, compile_fixture, fixture_output, membound};
use serde_json::Value;

/// The JSON output of `membound invariants` on `method` of fixture `fixture`.
fn invariants_json(fixture: &str, method: &str) -> Value {
    let classes = compile_fixture(fixture);
    let run = membound([
        "invariants".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        method.as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("valid JSON")
}

/// The number of integer points of `set` at `point` (`n=3,m=2`), by `membound count`.
fn count_at(set: &str, point: &str) -> i64 {
    let run: Run = membound(["count", set, "--at", point]);
    assert_eq!(run.code, 0, "counting {set}: {}", run.stderr);
    let last = run.stdout.lines().last().expect("a count at the point");
    last.trim()
        .parse()
        .unwrap_or_else(|_| panic!("not a finite count for {set} at {point}: {last}"))
}

/// A site named by the short method names of its chain and its type: `m0.m1.m2 thesis.B`.
fn site_name(site: &Value) -> String {
    let methods: Vec<&str> = site["chain"]
        .as_array()
        .expect("chain")
        .iter()
        .map(|element| {
            let method = element["method"].as_str().expect("method");
            let name = method.split('(').next().unwrap_or(method);
            name.rsplit('.').next().unwrap_or(name)
        })
        .collect();
    format!(
        "{} {}",
        methods.join("."),
        site["type"].as_str().expect("type")
    )
}

/// Each site's name with its invariant.
fn site_invariants(json: &Value) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    for site in json["sites"].as_array().expect("sites") {
        let invariant = site["invariant"]
            .as_str()
            .unwrap_or_else(|| panic!("no invariant for {}: {}", site_name(site), site["error"]));
        let previous = found.insert(site_name(site), invariant.to_string());
        assert!(previous.is_none(), "two sites named {}", site_name(site));
    }
    found
}

#[test]
fn fig14_site_invariants_count_what_the_thesis_counts() {
    let found = site_invariants(&invariants_json("thesis", "thesis.Fig14.m0"));
    let triangle = |mc: i64| mc * (mc + 1) / 2;
    let expected: [(&str, &dyn Fn(i64) -> i64); 7] = [
        ("m0.m1 thesis.A", &|mc| mc),
        ("m0.m1.m2 thesis.B[]", &|mc| mc),
        ("m0.m1.m2 thesis.B", &triangle),
        ("m0.m1.m2 thesis.C", &triangle),
        ("m0.m2 thesis.B[]", &|_| 1),
        ("m0.m2 thesis.B", &|mc| 2 * mc),
        ("m0.m2 thesis.C", &|mc| 2 * mc),
    ];
    let mut names: Vec<&str> = expected.iter().map(|(name, _)| *name).collect();
    names.sort_unstable();
    assert_eq!(found.keys().map(String::as_str).collect::<Vec<_>>(), names);
    for (name, closed_form) in expected {
        for mc in 0..=6 {
            assert_eq!(
                count_at(&found[name], &format!("mc={mc}")),
                closed_form(mc),
                "site {name} at mc = {mc}: {}",
                found[name]
            );
        }
    }
}

#[test]
fn invariants_text_lists_every_site_with_a_set() {
    let stdout = fixture_output("invariants", "thesis", "thesis.Fig14.m0", &[]);
    let sets = stdout
        .lines()
        .filter(|l| l.starts_with("  [mc] -> {"))
        .count();
    assert_eq!(sets, 7, "{stdout}");
}

/// The label (`// 3`) of each labelled line of a fixture source, by line number.
fn labels_by_line(path: &str) -> BTreeMap<u64, usize> {
    let source = std::fs::read_to_string(membound_tests::workspace_root().join(path))
        .expect("fixture source");
    source
        .lines()
        .enumerate()
        .filter_map(|(index, line)| {
            let label = line.rsplit_once("// ")?.1.trim().parse().ok()?;
            Some((index as u64 + 1, label))
        })
        .collect()
}

/// What `loops.Shapes.main` counts per label when run with `n m a.length`.
fn executed_counts(classes: &std::path::Path, args: [i64; 3]) -> Vec<i64> {
    let output = std::process::Command::new("java")
        .arg("-cp")
        .arg(classes)
        .arg("loops.Shapes")
        .args(args.map(|a| a.to_string()))
        .output()
        .expect("java runs");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .map(|c| c.parse().expect("a count"))
        .collect()
}

#[test]
fn loop_shape_invariants_count_what_the_program_executes() {
    let classes = compile_fixture("loops");
    let json = invariants_json("loops", "loops.Shapes.run");
    let labels = labels_by_line("tests/fixtures/loops/src/loops/Shapes.java");
    let sites = json["sites"].as_array().expect("sites");
    let mut labelled = BTreeMap::new();
    for site in sites {
        let last = site["chain"]
            .as_array()
            .and_then(|c| c.last())
            .expect("chain");
        let line = last["line"].as_u64().expect("line numbers");
        let label = *labels
            .get(&line)
            .unwrap_or_else(|| panic!("unlabelled site {site}"));
        let invariant = site["invariant"]
            .as_str()
            .unwrap_or_else(|| panic!("{site}"));
        labelled.insert(label, invariant.to_string());
    }
    assert_eq!(labelled.len(), 11, "one site per label: {labelled:?}");
    for args in [
        [0, 0, 0],
        [1, 3, 4],
        [2, 0, 1],
        [5, 3, 4],
        [7, 9, 2],
        [9, 4, 0],
    ] {
        let executed = executed_counts(&classes, args);
        let point = format!(
            "n={},m={},a_length={},counts_length=12",
            args[0], args[1], args[2]
        );
        for (label, invariant) in &labelled {
            assert_eq!(
                count_at(invariant, &point),
                executed[*label],
                "site {label} at {point}: {invariant}"
            );
        }
    }
}

/// The parameter names of an isl set, `[n, m] -> { … }`.
fn set_params(set: &str) -> Vec<String> {
    let inside = set
        .trim_start()
        .strip_prefix('[')
        .and_then(|rest| rest.split_once(']'))
        .map_or("", |(names, _)| names);
    inside
        .split(',')
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

#[test]
fn loop_shape_invariants_count_the_same_with_barvinok() {
    use std::io::Write;
    let classes = compile_fixture("loops");
    let json = invariants_json("loops", "loops.Shapes.run");
    let labels = labels_by_line("tests/fixtures/loops/src/loops/Shapes.java");
    let runs = [[1, 3, 4], [5, 3, 4], [7, 9, 2]];
    let executed: Vec<Vec<i64>> = runs
        .iter()
        .map(|args| executed_counts(&classes, *args))
        .collect();
    let mut requests = String::new();
    let mut expected = Vec::new();
    for site in json["sites"].as_array().expect("sites") {
        let line = site["chain"]
            .as_array()
            .and_then(|c| c.last())
            .and_then(|e| e["line"].as_u64())
            .expect("line");
        let label = labels[&line];
        let set = site["invariant"].as_str().expect("an invariant");
        let params = set_params(set);
        let points: Vec<Vec<i64>> = runs
            .iter()
            .map(|[n, m, a]| {
                params
                    .iter()
                    .map(|p| match p.as_str() {
                        "n" => *n,
                        "m" => *m,
                        "a_length" => *a,
                        "counts_length" => 12,
                        other => panic!("unexpected parameter {other} in {set}"),
                    })
                    .collect()
            })
            .collect();
        let request = serde_json::json!({"set": set, "params": params, "points": points});
        requests.push_str(&format!("{request}\n"));
        expected.push((label, set.to_string()));
    }
    let script = membound_tests::workspace_root().join("polyhedra/tests/oracle/card.py");
    let mut child = std::process::Command::new(membound_tests::oracle_python())
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("starts the barvinok oracle");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(requests.as_bytes())
        .expect("writes the requests");
    let output = child.wait_with_output().expect("oracle output");
    assert!(output.status.success(), "the barvinok oracle failed");
    let answers: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON answer"))
        .collect();
    assert_eq!(answers.len(), expected.len());
    for ((label, set), answer) in expected.iter().zip(&answers) {
        for (run, counts) in executed.iter().enumerate() {
            let value = answer["values"][run].as_str().expect("a value");
            assert_eq!(
                value,
                counts[*label].to_string(),
                "site {label} at {:?}: barvinok counts {set} as {value}",
                runs[run]
            );
        }
    }
}

//! CI for the JOlden harness: the whole suite at the small settings. Fails on any prediction below
//! a run (the harness exits 1 and its table says `unsound: N`), on any analysis or run that
//! failed, and when a method whose allocations are a polynomial (or quasi-polynomial) in its
//! parameters, with every creation site counted exactly, is no longer estimated exactly.

use std::collections::BTreeMap;
use std::process::Command;

/// Methods the analysis bounds exactly (README's closed forms; counted loops only, no opaque
/// branch): every row of theirs must have an error of 0. `em3d.Node.makeFromNodes`'s bound
/// takes the field `this.fromCount`, which the agent records at each entry. Not here while the
/// analysis does not count them exactly: `em3d.Em3d.create` (its objects are exact; its bytes
/// take the `fromCount`-sized arrays of every node) and `mst.MST.addEdges`, which walk the
/// programs' linked lists (issue 20), and `voronoi.Voronoi.makePoints`, a recursion over an
/// interval split in two (issue 17).
const EXACT: &[&str] = &[
    "bh.BH.createTestData",
    "em3d.Node.makeFromNodes",
    "mst.MST.makeVertices",
    "mst.MST.computeMST",
    "power.Power.build",
    "power.Power.solve",
    "fig14.Fig14.m0",
    "fig14.Fig14.m1",
    "fig14.Fig14.m2",
    "fig21.Fig21.m0",
    "fig21.Fig21.m1",
    "fig21.Fig21.m2",
    "fig71.Fig71.m0",
    "fig71.Fig71.m1",
    "fig71.Fig71.m2",
    "fig71.Fig71.m3",
];

#[test]
fn the_small_suite_is_sound_and_exact_where_the_count_is_a_polynomial() {
    let out = std::env::temp_dir().join(format!("jolden-small-{}.md", std::process::id()));
    let run = Command::new(env!("CARGO_BIN_EXE_benchmarks-jolden"))
        .arg("--small")
        .arg("--out")
        .arg(&out)
        .output()
        .expect("the harness starts");
    let table = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(
        run.status.code(),
        Some(0),
        "the harness failed:\n{stderr}\n{table}"
    );
    assert!(table.contains("\nunsound: 0\n"), "{table}");
    assert!(table.contains("\nerrors: 0\n"), "{table}");
    let errors = error_column(&table);
    for method in EXACT {
        let rows = errors
            .get(*method)
            .unwrap_or_else(|| panic!("{method} is not in the table:\n{table}"));
        assert!(rows.len() >= 3, "{method}: {rows:?}");
        assert!(
            rows.iter().all(|e| e == "0.00"),
            "{method} is no longer exact: {rows:?}\n{table}"
        );
    }
}

/// The Err% column of the summary table (memAlloc in objects; the first table, before any `##`
/// section), per method: a row with an empty first cell belongs to the method above it.
fn error_column(table: &str) -> BTreeMap<String, Vec<String>> {
    let summary = table.split("\n## ").next().unwrap_or_default();
    let mut errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current = String::new();
    for line in summary.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        // Method, #CS, memAlloc, memRq, Time, Param, #Objs, Estim, Err%.
        let [method, .., error] = cells.as_slice() else {
            continue;
        };
        if !method.is_empty() {
            current = method.trim_matches('`').to_string();
        }
        errors
            .entry(current.clone())
            .or_default()
            .push((*error).to_string());
    }
    errors
}

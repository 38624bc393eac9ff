//! `membound invariants`: each creation site's invariant, counted with `membound count`, gives
//! exactly how often the allocation runs (for arrays: how many cells it allocates). On the
//! thesis's Fig 1.4 program the counts are the thesis's (Example 1.4, with the array rule of
//! ch. 2 §7); on the loop-shape fixture they are what the Java program itself counts at run time.

use std::collections::BTreeMap;

use membound_tests::{Run, compile_fixture, membound};
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
        ("m0.m1.m2 thesis.B[]", &triangle),
        ("m0.m1.m2 thesis.B", &triangle),
        ("m0.m1.m2 thesis.C", &triangle),
        ("m0.m2 thesis.B[]", &|mc| 2 * mc),
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
    let classes = compile_fixture("thesis");
    let run = membound([
        "invariants".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        "thesis.Fig14.m0".as_ref(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let sets = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("  [mc] -> {"))
        .count();
    assert_eq!(sets, 7, "{}", run.stdout);
}

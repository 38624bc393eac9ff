//! Regions and memRq: `membound analyze` writes each site's region and each method's
//! memCaptured, memEscapes and memRq, and `membound eval` evaluates them. Oracles: the thesis's
//! Examples 1.6 and 1.7 and its memRq of Fig 1.4 (`mc^2 + 7mc`) and of Fig 7.1
//! (`1 + 3mc + max(mc^2, 6mc)`), in the `count` model (each object 1, an array its cells).

use std::path::{Path, PathBuf};

use membound_tests::{
    analyze_into, compile_fixture, compile_java_tree, eval_method, site_steps, workspace_root,
};
use serde_json::Value;

/// Analyzes `method` of the classes in `classes` in the `count` model; the certificate's path.
fn certificate(classes: &Path, method: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("membound-memrq-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{}.json", method.replace('.', "_")));
    analyze_into(classes, method, "count", &path);
    path
}

/// The thesis's unit of a region quantity (the `count` model's "bytes").
fn units(method: &Value, quantity: &str) -> i64 {
    method[quantity]["bytes"]
        .as_i64()
        .unwrap_or_else(|| panic!("{quantity} is not an integer: {method}"))
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("certificate")).expect("JSON")
}

/// Per site of `method` in the certificate: its type, its chain as the short names of its
/// methods (`m0/m1/m2`), and its region's short method name (or `escapes`).
fn site_regions(cert: &Value, method: &str) -> Vec<(String, String, String)> {
    let entry = cert["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .find(|m| m["method"].as_str().is_some_and(|n| n.starts_with(method)))
        .unwrap_or_else(|| panic!("no {method} in the certificate"));
    let short = |name: &str| {
        let name = name.split('(').next().unwrap_or(name);
        name.rsplit('.').next().unwrap_or(name).to_string()
    };
    let own = entry["method"].as_str().expect("method");
    let mut found: Vec<(String, String, String)> = entry["sites"]
        .as_array()
        .expect("sites")
        .iter()
        .map(|site| {
            let steps: Vec<String> = site_steps(site)
                .into_iter()
                .map(|e| {
                    format!(
                        "{}@{}",
                        short(e["method"].as_str().expect("method")),
                        e["offset"]
                    )
                })
                .collect();
            let region = site["region"].as_str().expect("every site has a region");
            let region = region
                .split(" + ")
                .map(|part| {
                    if part == own {
                        short(part)
                    } else {
                        part.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(" + ");
            let ty = site["type"].as_str().expect("type").to_string();
            (ty, steps.join(">"), region)
        })
        .collect();
    found.sort();
    found
}

/// `(type, steps, region)` as [`site_regions`] lists them.
fn expected(rows: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    let mut rows: Vec<(String, String, String)> = rows
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    rows.sort();
    rows
}

#[test]
fn fig14_regions_are_example_1_6() {
    let cert = read_json(&certificate(&compile_fixture("thesis"), "thesis.Fig14.m0"));
    // Example 1.6: capture(m0) = {m0.2.m2.6, m0.2.m2.8} (m0's call of m2 is at offset 9, its
    // call of m1 at 2), capture(m1) = {m1.4, m1.5.m2.6, m1.5.m2.8}, capture(m2) = {m2.9}, and
    // escape(m2) = {m2.6, m2.8}. Each method sees what its callees capture as `callees`.
    assert_eq!(
        site_regions(&cert, "thesis.Fig14.m0"),
        expected(&[
            ("thesis.A", "m0@2>m1@7", "callees"),
            ("thesis.B[]", "m0@2>m2@1", "callees"),
            ("thesis.B", "m0@2>m2@16", "callees"),
            ("thesis.C", "m0@2>m2@24", "callees"),
            ("thesis.B[]", "m0@9>m2@1", "m0"),
            ("thesis.B", "m0@9>m2@16", "m0"),
            ("thesis.C", "m0@9>m2@24", "callees"),
        ])
    );
    assert_eq!(
        site_regions(&cert, "thesis.Fig14.m1"),
        expected(&[
            ("thesis.A", "m1@7", "m1"),
            ("thesis.B[]", "m1@17>m2@1", "m1"),
            ("thesis.B", "m1@17>m2@16", "m1"),
            ("thesis.C", "m1@17>m2@24", "callees"),
        ])
    );
    assert_eq!(
        site_regions(&cert, "thesis.Fig14.m2"),
        expected(&[
            ("thesis.B[]", "m2@1", "escapes"),
            ("thesis.B", "m2@16", "escapes"),
            ("thesis.C", "m2@24", "m2"),
        ])
    );
}

#[test]
fn fig14_region_sizes_are_example_1_7_and_mem_rq_is_mc2_plus_7mc() {
    let cert = certificate(&compile_fixture("thesis"), "thesis.Fig14.m0");
    for mc in 0..=9 {
        let m0 = eval_method(&cert, "thesis.Fig14.m0", &format!("mc={mc}"));
        assert_eq!(
            units(&m0, "mem_captured"),
            4 * mc,
            "memCaptured(m0) at mc={mc}"
        );
        assert_eq!(units(&m0, "mem_escapes"), 0);
        assert_eq!(
            units(&m0, "mem_rq"),
            mc * mc + 7 * mc,
            "memRq(m0) at mc={mc}"
        );
        let k = mc;
        let m1 = eval_method(&cert, "thesis.Fig14.m1", &format!("k={k}"));
        // size(A)·k + (size(B[]) + size(B))·(k²/2 + k/2), arrays counted by cells.
        assert_eq!(
            units(&m1, "mem_captured"),
            k + k * k + k,
            "memCaptured(m1) at k={k}"
        );
        assert_eq!(units(&m1, "mem_escapes"), 0);
        let n = mc;
        let m2 = eval_method(&cert, "thesis.Fig14.m2", &format!("n={n}"));
        assert_eq!(units(&m2, "mem_captured"), n, "memCaptured(m2) at n={n}");
        assert_eq!(units(&m2, "mem_escapes"), 2 * n, "memEscapes(m2) at n={n}");
        assert_eq!(units(&m2, "mem_rq"), 3 * n, "memRq(m2) at n={n}");
    }
}
#[test]
fn fig71_mem_rq_is_the_thesis_certificate() {
    let classes = compile_java_tree("jolden", &workspace_root().join("benchmarks-jolden/java"));
    let cert = certificate(&classes, "fig71.Fig71.m0");
    for mc in 0..=10 {
        let m0 = eval_method(&cert, "fig71.Fig71.m0", &format!("mc={mc}"));
        // m3's `new N()` runs even for an empty array: 1 at mc = 0 too.
        let expected = 1 + 3 * mc + (mc * mc).max(6 * mc);
        assert_eq!(units(&m0, "mem_rq"), expected, "memRq(m0) at mc={mc}");
    }
    // The certificate's form: R(m0) = its region 3mc + 1 plus the larger of its callees' R
    // (mc^2 for one, 6mc for the other), the region merged into the first.
    let text = read_json(&cert)["methods"][0]["mem_rq"]["bytes"].clone();
    assert_eq!(
        text,
        "max(cases(mc >= 1 -> (mc^2 + 3*mc + 1); otherwise -> (0)), cases(mc >= 1 -> (6*mc); mc + 1 <= 0 -> (1); otherwise -> (0)) + cases(mc >= 0 -> (3*mc + 1); otherwise -> (0)))"
    );
    let m0 = eval_method(&cert, "fig71.Fig71.m0", "mc=3");
    assert_eq!(units(&m0, "mem_rq"), 28);
    let m0 = eval_method(&cert, "fig71.Fig71.m0", "mc=7");
    assert_eq!(units(&m0, "mem_rq"), 71);
}

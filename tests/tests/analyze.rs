//! `membound analyze` and `membound eval`: the certificate of a method, evaluated at parameter
//! values, gives per site how often the allocation runs and per method what it allocates. The
//! oracles are brute-force simulations of the thesis's programs written here (the printed
//! thesis totals have errors, see the notes), and sizes worked out from the object model.

use std::path::PathBuf;

use membound_tests::{analyze_into, compile_fixture, eval_method, membound, site_steps};
use serde_json::Value;

/// Analyzes `method` of fixture `fixture` in `model` and returns the certificate's path.
fn certificate(fixture: &str, method: &str, model: &str) -> PathBuf {
    let classes = compile_fixture(fixture);
    let dir = std::env::temp_dir().join(format!(
        "membound-analyze-{}-{}",
        std::process::id(),
        method.replace('.', "_")
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{model}.yaml"));
    analyze_into(&classes, method, model, &path);
    path
}

fn number(value: &Value) -> i64 {
    value
        .as_i64()
        .unwrap_or_else(|| panic!("not an integer: {value}"))
}

/// Per site (short chain name and type), its evaluated count.
fn site_counts(method: &Value) -> Vec<(String, i64)> {
    let mut found: Vec<(String, i64)> = method["sites"]
        .as_array()
        .expect("sites")
        .iter()
        .map(|site| {
            let chain: Vec<String> = site_steps(site)
                .into_iter()
                .map(|e| {
                    let name = e["method"].as_str().expect("method");
                    let name = name.split('(').next().unwrap_or(name);
                    format!(
                        "{}.{}",
                        name.rsplit('.').next().unwrap_or(name),
                        e["offset"]
                    )
                })
                .collect();
            let ty = site["type"].as_str().expect("type");
            (format!("{} {ty}", chain.join(".")), number(&site["count"]))
        })
        .collect();
    found.sort();
    found
}

#[test]
fn fig14_memalloc_in_the_count_model_is_the_thesis_value() {
    let cert = certificate("thesis", "thesis.Fig14.m0", "count");
    for mc in 0..=7_i64 {
        let m0 = eval_method(&cert, "thesis.Fig14.m0", &format!("mc={mc}"));
        // Example 1.4: (size(B[]) + size(B) + size(C)) · (½mc² + 5/2 mc) + size(A) · mc.
        let units = 3 * (mc * mc + 5 * mc) / 2 + mc;
        assert_eq!(number(&m0["mem_alloc"]["bytes"]), units, "mc = {mc}");
        // Objects: A mc; B[] mc + 1 arrays; B and C ½(mc² + mc) + 2mc each.
        let objects = mc + (mc + 1) + (mc * mc + mc) + 4 * mc;
        assert_eq!(number(&m0["mem_alloc"]["objects"]), objects, "mc = {mc}");
        let m1 = eval_method(&cert, "thesis.Fig14.m1", &format!("k={mc}"));
        assert_eq!(
            number(&m1["mem_alloc"]["bytes"]),
            mc + 3 * (mc * mc + mc) / 2
        );
        let m2 = eval_method(&cert, "thesis.Fig14.m2", &format!("n={mc}"));
        assert_eq!(number(&m2["mem_alloc"]["bytes"]), 3 * mc);
    }
}

#[test]
fn fig14_site_counts_are_executions() {
    let cert = certificate("thesis", "thesis.Fig14.m0", "count");
    let m0 = eval_method(&cert, "thesis.Fig14.m0", "mc=4");
    let triangle = 4 * 5 / 2;
    let expected: Vec<(String, i64)> = vec![
        ("m0.2.m1.7 thesis.A".to_string(), 4),
        ("m0.2.m2.1 thesis.B[]".to_string(), 4),
        ("m0.2.m2.16 thesis.B".to_string(), triangle),
        ("m0.2.m2.24 thesis.C".to_string(), triangle),
        ("m0.9.m2.1 thesis.B[]".to_string(), 1),
        ("m0.9.m2.16 thesis.B".to_string(), 8),
        ("m0.9.m2.24 thesis.C".to_string(), 8),
    ];
    let mut expected = expected;
    expected.sort();
    assert_eq!(site_counts(&m0), expected);
}

/// Brute force of Fig 2.1's m2(n): (Integer[] cells, Integer objects, Object[] cells).
fn fig21_m2(n: i64) -> (i64, i64, i64) {
    let (mut integer_cells, mut integers) = (0, 0);
    for j in 1..=n {
        if j % 3 == 0 {
            integer_cells += 2 * j + 1;
        } else {
            integers += 1;
        }
        integer_cells += 4;
    }
    integer_cells += 1;
    (integer_cells, integers, n.max(0))
}

/// Thesis units (objects count 1, arrays their cells) allocated by Fig 2.1's m1(k).
fn fig21_m1_units(k: i64) -> i64 {
    let mut units = 1 + k.max(0) + 9;
    for i in 1..=k {
        let (a, b, c) = fig21_m2(i);
        units += a + b + c;
    }
    units
}

#[test]
fn fig21_memalloc_equals_brute_force() {
    let cert = certificate("thesis", "thesis.Fig21.m0", "count");
    for mc in 0..=8_i64 {
        let (a, b, c) = fig21_m2(2 * mc);
        let m0_units = 1 + fig21_m1_units(mc) + a + b + c;
        let m0 = eval_method(&cert, "thesis.Fig21.m0", &format!("mc={mc}"));
        assert_eq!(
            number(&m0["mem_alloc"]["bytes"]),
            m0_units,
            "m0 at mc = {mc}"
        );
        let m1 = eval_method(&cert, "thesis.Fig21.m1", &format!("k={mc}"));
        assert_eq!(
            number(&m1["mem_alloc"]["bytes"]),
            fig21_m1_units(mc),
            "m1 at k = {mc}"
        );
        let m2 = eval_method(&cert, "thesis.Fig21.m2", &format!("n={mc}"));
        let (a, b, c) = fig21_m2(mc);
        assert_eq!(
            number(&m2["mem_alloc"]["bytes"]),
            a + b + c,
            "m2 at n = {mc}"
        );
    }
}

/// Bytes of `new T[length]` with 4-byte elements under compressed oops: a 16-byte header and
/// the cells, rounded up to 8.
fn int_array_bytes(length: i64) -> i64 {
    (16 + 4 * length + 7) / 8 * 8
}

#[test]
fn fig14_bytes_in_the_default_model() {
    let cert = certificate("thesis", "thesis.Fig14.m0", "hotspot-coops");
    for n in 0..=9_i64 {
        let m2 = eval_method(&cert, "thesis.Fig14.m2", &format!("n={n}"));
        // B[n], then n objects B (a 12-byte header: 16) and n objects C (one reference: 16).
        let bytes = int_array_bytes(n) + 16 * n + 16 * n;
        assert_eq!(number(&m2["mem_alloc"]["bytes"]), bytes, "n = {n}");
        assert_eq!(number(&m2["mem_alloc"]["objects"]), 1 + 2 * n, "n = {n}");
    }
    for mc in 0..=6_i64 {
        let m0 = eval_method(&cert, "thesis.Fig14.m0", &format!("mc={mc}"));
        let m2 = |n: i64| int_array_bytes(n) + 32 * n;
        let bytes = 16 * mc + (1..=mc).map(m2).sum::<i64>() + m2(2 * mc);
        assert_eq!(number(&m0["mem_alloc"]["bytes"]), bytes, "mc = {mc}");
    }
}

#[test]
fn analyze_prints_a_readable_summary_and_the_certificate_formats() {
    let classes = compile_fixture("thesis");
    let run = membound([
        "analyze".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        "thesis.Fig14.m1".as_ref(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("call tree:"), "{}", run.stdout);
    assert!(
        run.stdout.contains("parameters: k = parameter 0 (int k)"),
        "{}",
        run.stdout
    );
    for format in ["yaml", "json"] {
        let run = membound([
            "analyze".as_ref(),
            classes.as_os_str(),
            "--method".as_ref(),
            "thesis.Fig14.m1".as_ref(),
            "--format".as_ref(),
            format.as_ref(),
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stdout.contains("membound: 2") || run.stdout.contains("\"membound\": 2"));
        assert!(
            run.stdout.contains("thesis.Fig14.m2(I)[Lthesis/B;"),
            "{}",
            run.stdout
        );
    }
}

#[test]
fn eval_rejects_bad_input_with_exit_2() {
    let cert = certificate("thesis", "thesis.Fig14.m0", "count");
    let missing = membound([
        "eval".as_ref(),
        cert.as_os_str(),
        "--method".as_ref(),
        "thesis.Fig14.m0".as_ref(),
    ]);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    assert!(missing.stderr.contains("mc"), "{}", missing.stderr);
    let unknown = membound([
        "eval".as_ref(),
        cert.as_os_str(),
        "--method".as_ref(),
        "thesis.Nope.m".as_ref(),
        "--param".as_ref(),
        "mc=1".as_ref(),
    ]);
    assert_eq!(unknown.code, 2);
    let garbage =
        std::env::temp_dir().join(format!("membound-garbage-{}.yaml", std::process::id()));
    std::fs::write(&garbage, "membound: [").expect("write");
    let bad = membound([
        "eval".as_ref(),
        garbage.as_os_str(),
        "--param".as_ref(),
        "n=1".as_ref(),
    ]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    let bad_param = membound([
        "eval".as_ref(),
        cert.as_os_str(),
        "--param".as_ref(),
        "n=x".as_ref(),
    ]);
    assert_eq!(bad_param.code, 2);
}

#[test]
fn a_two_dimensional_array_counts_every_level_in_objects_and_bytes() {
    let cert = certificate("loops", "loops.Shapes.run", "hotspot-coops");
    for (n, m) in [(0, 0), (1, 3), (4, 0), (5, 2), (3, 7)] {
        let point = format!("n={n},m={m},a_length=2,counts_length=12");
        let run = eval_method(&cert, "loops.Shapes.run", &point);
        let grid = run["sites"]
            .as_array()
            .expect("sites")
            .iter()
            .find(|s| s["type"] == "int[][]")
            .expect("the int[n][m] site");
        // One outer array of n references and n rows of m ints, each 16 bytes of header plus
        // its cells, rounded up to 8.
        assert_eq!(number(&grid["count"]), 1, "{point}");
        assert_eq!(number(&grid["objects"]), 1 + n, "{point}");
        assert_eq!(
            number(&grid["bytes"]),
            int_array_bytes(n) + n * int_array_bytes(m),
            "{point}"
        );
    }
}

#[test]
fn a_string_concatenation_of_a_string_has_unbounded_bytes_with_its_reason() {
    let cert = certificate("thesis", "thesis.Concat.join", "hotspot-coops");
    let run = eval_method(&cert, "thesis.Concat.join", "n=5");
    let concat = run["sites"]
        .as_array()
        .expect("sites")
        .iter()
        .find(|s| s["type"] == "java.lang.String")
        .expect("the concatenation site");
    // It runs n times, each making a String and its byte[]; how many bytes depends on the
    // String's length (tests/tests/concat.rs has the bounded and the object cases).
    assert_eq!(number(&concat["count"]), 5);
    assert_eq!(number(&concat["objects"]), 10);
    assert_eq!(concat["bytes"], "infty");
    let text = std::fs::read_to_string(&cert).expect("certificate");
    assert!(
        text.contains("string concatenation of a String: its length is not bounded"),
        "{text}"
    );
}

/// The certificate of `thesis.Halving.<method>` says its site runs ∞ times, and why.
fn assert_unbounded_with_its_reason(method: &str) {
    let cert = certificate("thesis", &format!("thesis.Halving.{method}"), "count");
    let text = std::fs::read_to_string(&cert).expect("certificate");
    assert!(text.contains("count: infty"), "{text}");
    assert!(
        text.contains("its executions are not bounded by the parameters"),
        "{text}"
    );
}

#[test]
fn an_unbounded_site_says_why() {
    assert_unbounded_with_its_reason("collatz");
}

#[test]
fn a_halving_loop_is_unbounded_with_its_reason() {
    // The loop runs floor(log2 n) + 1 times: not a quasi-polynomial, and no affine counter
    // bound follows n / 2 (recursion by halving is bounded: tests/tests/recursion.rs).
    assert_unbounded_with_its_reason("halve");
}

#[test]
fn the_output_file_takes_the_format_its_extension_names_else_the_one_asked_for() {
    let classes = compile_fixture("thesis");
    let dir = membound_tests::scratch_dir("output-formats");
    let written = |file: &str, format: &str| -> String {
        let path = dir.join(file);
        let run = membound([
            "analyze".as_ref(),
            classes.as_os_str(),
            "--method".as_ref(),
            "thesis.Fig14.m2".as_ref(),
            "--format".as_ref(),
            format.as_ref(),
            "-o".as_ref(),
            path.as_os_str(),
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        std::fs::read_to_string(&path).expect("the file -o names")
    };
    let sarif: Value = serde_json::from_str(&written("x.sarif", "sarif")).expect("SARIF is JSON");
    assert_eq!(sarif["version"], "2.1.0");
    let from_extension: Value =
        serde_json::from_str(&written("x.JSON", "text")).expect("JSON by its extension");
    assert!(from_extension["methods"].is_array(), "{from_extension:#}");
    let from_format: Value =
        serde_json::from_str(&written("x.cert", "json")).expect("JSON as --format asks");
    assert!(from_format["methods"].is_array(), "{from_format:#}");
    assert!(written("x.txt", "yaml").contains("memAlloc objects:"));
    let yaml = written("x.cert", "text");
    assert!(yaml.contains("\nmethods:"), "{yaml}");
}

#[test]
fn the_report_names_what_removes_each_cause_of_infinity_and_the_remedy_works() {
    let classes = compile_fixture("remedies");
    let alone = membound_tests::scratch_dir("remedies").join("classes");
    std::fs::create_dir_all(&alone).expect("a directory");
    std::fs::copy(classes.join("Remedies.class"), alone.join("Remedies.class")).expect("copy");
    let report = |extra: &[&str]| -> String {
        let alone = alone.to_str().expect("utf-8");
        let args = [
            &["analyze", alone, "--method", "Remedies.run", "-q"][..],
            extra,
        ]
        .concat();
        let run = membound(args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    let missing = "∞: reaches unresolved call to Missing.make(I)I (class Missing is not on the classpath); a --spec or --classpath entry for that code removes it";
    // (No flag makes this call finite: the remedy is the callee's own certificate.)
    let passed = "∞ through a call: the call at offset 14 of Remedies.run(I)I to Remedies.repeat(I)I: its bound depends on k, and the values the call passes do not keep it finite (it passes k = (n * n), which the analysis does not follow); the callee's own certificate (--method on it) bounds it in its parameters";
    let without = report(&[]);
    assert!(without.contains(missing), "{without}");
    assert!(without.contains(passed), "{without}");
    // With the library on the classpath its cause is gone; the other stays.
    let with = report(&["--classpath", classes.to_str().expect("utf-8")]);
    assert!(!with.contains("Missing is not on the classpath"), "{with}");
    assert!(with.contains(passed), "{with}");
}

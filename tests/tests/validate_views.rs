//! `membound validate` binds a certificate's parameters by their origin to what the agent
//! records at each entry of the watched method: an instance field of `this`, a static field, a
//! String parameter's length and a collection parameter's size (tests/fixtures/views). The
//! field views come from `analyze`; the length and size views are written by hand here, since a
//! certificate is all validate reads. A parameter bound to the wrong recorded value shows in the
//! comparison. A static or a local fixed inside the method is recorded after the instruction
//! that fixes it; a value no run records leaves the run not checked when the total needs it,
//! and only the predictions that need it not compared when the total is ∞.

use std::path::{Path, PathBuf};

use membound_tests::{
    analyze_into, certificate_params, compile_fixture, membound, pair, scratch_dir, total_objects,
};
use serde_json::Value;

/// The fixture's program arguments: `rows` = 3 * 3 = 9, `n` = 3 + 2 = 5, three items.
const ARGS: [&str; 3] = ["a", "b", "c"];

/// `membound validate <certificate> --main views.Bounded [extra…] -- a b c`.
fn validate(certificate: &Path, extra: &[&str]) -> membound_tests::Run {
    let mut args = vec!["validate", certificate.to_str().expect("a UTF-8 path")];
    args.extend(["--main", "views.Bounded"]);
    args.extend(extra);
    args.push("--");
    args.extend(ARGS);
    membound(args)
}

/// Every comparison of a validation printed as JSON, each checked to be exact.
fn exact_comparisons(run: &membound_tests::Run) -> Vec<Value> {
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(json["broken"], 0, "{json:#}");
    let comparisons = json["comparisons"].as_array().expect("comparisons").clone();
    for comparison in &comparisons {
        assert_eq!(
            comparison["observed"], comparison["predicted"],
            "{comparison}"
        );
    }
    comparisons
}

#[test]
fn field_views_of_an_analyzed_certificate_are_recorded_by_the_run() {
    let classes = compile_fixture("views");
    let certificate = scratch_dir("validate-views-fields").join("fields.yaml");
    analyze_into(&classes, "views.Bounded.fields", "count", &certificate);
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    assert!(text.contains("origin: field n of this"), "{text}");
    assert!(
        text.contains("origin: static field views.Bounded.rows"),
        "{text}"
    );
    // No --param: `this.n` and `rows` are read at each of the three entries (n = 5, 5, 1).
    let comparisons = exact_comparisons(&validate(&certificate, &["--format", "json"]));
    assert_eq!(total_objects(&comparisons).0, 5 + 9 + 5 + 9 + 1 + 9);
    assert!(
        comparisons.iter().any(|c| c["what"] == "memRq (entry 3)"),
        "{comparisons:#?}"
    );
    let run = validate(&certificate, &[]);
    assert!(run.stdout.contains("at n=1, rows=9"), "{}", run.stdout);
}

/// A certificate of `views.Bounded.all` in the `count` model, written by hand: its parameters
/// are named unlike anything the run names, so only their origins can bind them; `len_origin`
/// is the origin of the String loop's bound.
fn all_certificate(dir: &Path, len_origin: &str) -> PathBuf {
    let classes = compile_fixture("views");
    let method = "views.Bounded.all(Ljava/lang/String;Ljava/util/List;)V";
    let fields = "views.Bounded.fields()V";
    let site = |chain: &str, ty: &str, count: &str, bytes: &str| {
        format!(
            "  - chain: [{chain}]\n    type: {ty}\n    count: {count}\n    objects: {count}\n    bytes: {bytes}\n"
        )
    };
    let at = |method: &str, offset: u32| format!("{{method: '{method}', offset: {offset}}}");
    let sites = [
        site(
            &format!("{}, {}", at(method, 1), at(fields, 10)),
            "java.lang.Object",
            "(k)",
            "(k)",
        ),
        site(
            &format!("{}, {}", at(method, 1), at(fields, 34)),
            "int[]",
            "(r)",
            "(2*r)",
        ),
        site(&at(method, 14), "java.lang.Object", "(len)", "(len)"),
        site(&at(method, 40), "java.lang.Object", "(count)", "(count)"),
    ]
    .concat();
    let text = format!(
        "membound: 1
tool: {{version: 0.1.0, object_model: count}}
input: {{path: '{classes}', sha256: '0000000000000000000000000000000000000000000000000000000000000000'}}
entry: {{method: '{method}'}}
assumptions: []
methods:
- method: '{method}'
  params:
  - {{name: k, origin: field n of this}}
  - {{name: r, origin: static field views.Bounded.rows}}
  - {{name: len, origin: '{len_origin}'}}
  - {{name: count, origin: size of parameter 1 (items)}}
  mem_alloc:
    objects: (k + r + len + count)
    bytes: (k + 2*r + len + count)
  sites:
{sites}",
        classes = classes.display()
    );
    let path = dir.join(format!("all-{}.yaml", len_origin.len()));
    std::fs::write(&path, text).expect("write the certificate");
    path
}

#[test]
fn string_lengths_and_collection_sizes_bind_by_origin() {
    let dir = scratch_dir("validate-views-all");
    let certificate = all_certificate(&dir, "length of parameter 0 (text)");
    let comparisons = exact_comparisons(&validate(&certificate, &["--format", "json"]));
    // all("hello", 3 items) with n = 5, then all("sunny day", 3 items) with n = 1; rows = 9.
    assert_eq!(
        total_objects(&comparisons).0,
        (5 + 9 + 5 + 3) + (1 + 9 + 9 + 3)
    );
    let text_loop = comparisons
        .iter()
        .find(|c| c["what"].as_str().is_some_and(|w| w.contains("@14 ")))
        .expect("the String loop's site");
    assert_eq!(text_loop["observed"], 5 + 9);
    let run = validate(&certificate, &[]);
    assert!(
        run.stdout.contains("at count=3, k=5, len=5, r=9"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("at count=3, k=1, len=9, r=9"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_parameter_bound_to_another_recorded_value_shows_in_the_comparison() {
    let dir = scratch_dir("validate-views-wrong");
    // The String loop's bound taken from the list's size (3) instead of the text's length.
    let certificate = all_certificate(&dir, "size of parameter 1 (items)");
    let run = validate(&certificate, &[]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("BROKEN views.Bounded.all(Ljava/lang/String;Ljava/util/List;)V@14 java.lang.Object objects: observed 14, predicted 6"),
        "{}",
        run.stdout
    );
    // Given by hand, the value overrides the recorded one (here, the same at both entries).
    let run = validate(&certificate, &["--param", "len=9"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
}

/// The certificate of `views.Bounded.<method>` in the `count` model, in a scratch directory
/// of the test's own (`test`).
fn analyzed(method: &str, test: &str) -> PathBuf {
    let certificate = scratch_dir(&format!("validate-views-{test}")).join(format!("{method}.json"));
    analyze_into(
        &compile_fixture("views"),
        &format!("views.Bounded.{method}"),
        "count",
        &certificate,
    );
    certificate
}

#[test]
fn values_fixed_inside_the_method_are_recorded_after_the_instruction_that_fixes_them() {
    // A static stored once from a call's result, and a local set once from one.
    let cases = [
        (
            "refill",
            "static field views.Bounded.rows, written at refill@4",
        ),
        ("count", "local rows set from a call's result at count@1"),
    ];
    for (method, origin) in cases {
        let certificate = analyzed(method, method);
        let params = certificate_params(&certificate, &format!("views.Bounded.{method}"));
        assert!(params.contains(&pair("rows", origin)), "{params:?}");
        // The agent records `rows` there: 9 for three arguments.
        let comparisons = exact_comparisons(&validate(&certificate, &["--format", "json"]));
        assert_eq!(total_objects(&comparisons).0, 9, "{method}");
        // A value given by hand still takes precedence, and a smaller one shows as broken.
        let run = validate(&certificate, &["--param", "rows=8"]);
        assert_eq!(run.code, 1, "{method}: {}\n{}", run.stdout, run.stderr);
    }
}

/// The comparison whose description ends with `end`.
fn what_ends(comparisons: &[Value], end: &str) -> Value {
    comparisons
        .iter()
        .find(|c| c["what"].as_str().is_some_and(|w| w.ends_with(end)))
        .cloned()
        .unwrap_or_else(|| panic!("no comparison of {end}: {comparisons:#?}"))
}

#[test]
fn a_loop_over_a_static_stays_bounded_before_an_unbounded_loop() {
    // `rows = number(args)` leaves the call's result in a stack slot that the 3k + 1 loop
    // after it reuses for `3 * k`: the store is still of a call's result, a fixed view.
    let certificate = analyzed("wander", "wander");
    let params = certificate_params(&certificate, "views.Bounded.wander");
    assert!(
        params.contains(&pair(
            "rows",
            "static field views.Bounded.rows, written at wander@7"
        )),
        "{params:?}"
    );
    let run = validate(&certificate, &["--format", "json"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(report["broken"], 0, "{report:#}");
    assert_eq!(report["not_compared"], serde_json::json!([]), "{report:#}");
    let comparisons = report["comparisons"].as_array().expect("comparisons");
    // rows = 9 objects, exactly; 7 arrays on the way from 3 to 1 of a loop no bound stops.
    let objects = what_ends(comparisons, "java.lang.Object");
    assert_eq!(
        (&objects["observed"], &objects["predicted"]),
        (&Value::from(9), &Value::from(9))
    );
    let arrays = what_ends(comparisons, "java.lang.Object[]");
    assert_eq!(
        (&arrays["observed"], &arrays["predicted"]),
        (&Value::from(7), &Value::from("infty"))
    );
}

#[test]
fn a_run_without_a_value_compares_what_does_not_need_it() {
    let analyzed = analyzed("wander", "partly");
    // The loop over `rows` bounded by a value no run records (an origin of no form the agent
    // knows, which the run does not name either): its total stays ∞.
    let mut json: Value =
        serde_json::from_str(&std::fs::read_to_string(&analyzed).expect("read")).expect("JSON");
    let params = json["methods"][0]["params"].as_array_mut().expect("params");
    let rows = params
        .iter_mut()
        .find(|p| p["name"] == "rows")
        .expect("the static rows");
    rows["origin"] = Value::from("a value no run records");
    let certificate = analyzed.with_file_name("wander-rows.json");
    std::fs::write(&certificate, json.to_string()).expect("written");

    let run = validate(&certificate, &["--format", "json"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(report["broken"], 0, "{report:#}");
    let missing = report["missing"].as_str().expect("a missing value");
    assert!(missing.contains("no value for parameter rows"), "{missing}");
    // The total, ∞ whatever `rows` is, is compared: 9 objects for rows = 9 and 7 arrays on
    // the way from 3 to 1; and so is the unbounded loop's site. The loop over `rows` is not.
    let comparisons = report["comparisons"].as_array().expect("comparisons");
    assert_eq!(
        total_objects(comparisons),
        (Value::from(16), Value::from("infty"))
    );
    let arrays = what_ends(comparisons, "java.lang.Object[]");
    assert_eq!(
        (&arrays["observed"], &arrays["predicted"]),
        (&Value::from(7), &Value::from("infty"))
    );
    let not_compared = report["not_compared"].as_array().expect("not_compared");
    assert!(
        not_compared.iter().any(|w| w
            .as_str()
            .is_some_and(|w| w.ends_with("java.lang.Object objects"))),
        "{report:#}"
    );
    // Given the value, everything is compared.
    let given = validate(&certificate, &["--param", "rows=9", "--format", "json"]);
    let report: Value = serde_json::from_str(&given.stdout).expect("JSON");
    assert_eq!(report["not_compared"], serde_json::json!([]), "{report:#}");
    let objects = what_ends(
        report["comparisons"].as_array().expect("comparisons"),
        "java.lang.Object",
    );
    assert_eq!(
        (&objects["observed"], &objects["predicted"]),
        (&Value::from(9), &Value::from(9))
    );
}

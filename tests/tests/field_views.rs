//! Integer field views: loops bounded by `this.n`, by a static field, and by a static field set
//! once in `main` from its input (or a local set once from a call) count exactly in those
//! values, listed as parameters with their origin; a field written under the loop, directly or
//! by a callee, never yields a count below a run. `analyze --param NEW=OLD` renames a parameter
//! everywhere; bad names exit 2. Oracles: hand counts of the fixture `fields`, a brute-force
//! simulation and a run under the agent.

use std::path::{Path, PathBuf};

use membound_tests::{
    certificate_params, compile_fixture, compile_java_tree, eval_method, fixture_certificate,
    membound, pair, total_objects, workspace_root,
};
use serde_json::Value;

/// The certificate of `method` of the `fields` fixture in the `count` model.
fn certificate(method: &str) -> PathBuf {
    fixture_certificate("fields", method, "count")
}

/// The evaluated count of the site of `ty` allocated in `method`.
fn site_count(evaluated: &Value, method: &str, ty: &str) -> Value {
    evaluated["sites"]
        .as_array()
        .expect("sites")
        .iter()
        .find(|site| {
            site["at"]["method"]
                .as_str()
                .is_some_and(|m| m.contains(method))
                && site["type"] == ty
        })
        .unwrap_or_else(|| panic!("no {ty} site in {method}: {evaluated:#}"))["count"]
        .clone()
}

#[test]
fn a_loop_bounded_by_this_n_counts_n() {
    let cert = certificate("fields.Views.byThis");
    assert_eq!(
        certificate_params(&cert, "fields.Views.byThis"),
        [pair("n", "field n of this")]
    );
    for n in [0, 1, 5, 12] {
        let evaluated = eval_method(&cert, "fields.Views.byThis", &format!("n={n}"));
        assert_eq!(evaluated["mem_alloc"]["objects"], n, "{evaluated:#}");
    }
}

#[test]
fn a_call_on_this_binds_the_callee_view_to_the_caller_one() {
    let cert = certificate("fields.Views.nested");
    assert_eq!(
        certificate_params(&cert, "fields.Views.nested"),
        [pair("n", "field n of this")]
    );
    let evaluated = eval_method(&cert, "fields.Views.nested", "n=4");
    // Four `int[4]`: 4 arrays, 16 cells.
    assert_eq!(evaluated["mem_alloc"]["objects"], 4, "{evaluated:#}");
    assert_eq!(evaluated["mem_alloc"]["bytes"], 16, "{evaluated:#}");
}

#[test]
fn a_loop_bounded_by_a_static_field_counts_the_triangle() {
    let cert = certificate("fields.Views.fill");
    assert_eq!(
        certificate_params(&cert, "fields.Views.fill"),
        [pair("size", "static field fields.Views.size")]
    );
    for size in [0, 1, 6, 10] {
        let evaluated = eval_method(&cert, "fields.Views.fill", &format!("size={size}"));
        let triangle: i64 = (0..size).map(|i| i + 1).sum();
        assert_eq!(evaluated["mem_alloc"]["objects"], triangle, "{evaluated:#}");
    }
}

#[test]
fn a_static_written_only_by_its_class_initializer_is_a_view() {
    let cert = certificate("fields.Views.repeat");
    assert_eq!(
        certificate_params(&cert, "fields.Views.repeat"),
        [pair("rounds", "static field fields.Views.rounds")]
    );
    let evaluated = eval_method(&cert, "fields.Views.repeat", "rounds=3");
    assert_eq!(evaluated["mem_alloc"]["objects"], 3, "{evaluated:#}");
}

#[test]
fn a_view_past_a_jdk_native_method_names_its_assumption() {
    let cert = certificate("fields.Views.copied");
    assert_eq!(
        certificate_params(&cert, "fields.Views.copied"),
        [
            pair("from_length", "length of parameter 0 (from)"),
            pair("size", "static field fields.Views.size"),
        ]
    );
    // The bundled spec of `System.arraycopy` says it allocates nothing and writes no field.
    let text = std::fs::read_to_string(&cert).expect("certificate");
    assert!(
        text.contains("java.lang.System.arraycopy(Ljava/lang/Object;ILjava/lang/Object;II)V: allocates nothing per call (bundled spec)"),
        "{text}"
    );
    let evaluated = eval_method(&cert, "fields.Views.copied", "from_length=2,size=7");
    assert_eq!(evaluated["mem_alloc"]["objects"], 1, "{evaluated:#}");
    let sites = evaluated["sites"].as_array().expect("sites");
    assert_eq!(sites[0]["count"], 1, "{evaluated:#}");
    assert_eq!(sites[0]["bytes"], 7, "{evaluated:#}");

    // Without specs the native is unknown code: the total is unknown, the site's array is not,
    // and the view rests on the JDK natives not writing the application's fields.
    let classes = compile_fixture("fields");
    let bare = cert.with_file_name("copied-bare.json");
    let run = membound([
        "analyze".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        "fields.Views.copied".as_ref(),
        "--object-model".as_ref(),
        "count".as_ref(),
        "--no-bundled-specs".as_ref(),
        "-o".as_ref(),
        bare.as_os_str(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(&bare).expect("certificate");
    assert!(
        text.contains("JDK native methods do not write the application's integer fields"),
        "{text}"
    );
    let evaluated = eval_method(&bare, "fields.Views.copied", "from_length=2,size=7");
    assert_eq!(evaluated["mem_alloc"]["objects"], "infty", "{evaluated:#}");
    let sites = evaluated["sites"].as_array().expect("sites");
    assert_eq!(sites[0]["count"], 1, "{evaluated:#}");
    assert_eq!(sites[0]["bytes"], 7, "{evaluated:#}");
}

#[test]
fn a_static_set_once_in_main_is_a_parameter_of_main() {
    let cert = certificate("fields.Views.main");
    assert_eq!(
        certificate_params(&cert, "fields.Views.main"),
        [
            pair("args_length", "length of parameter 0 (args)"),
            pair("size", "static field fields.Views.size, written at main@4"),
        ]
    );
    let evaluated = eval_method(&cert, "fields.Views.main", "args_length=2,size=6");
    assert_eq!(site_count(&evaluated, "fill", "java.lang.Object"), 21);
    // `views.byThis()` is not a call on main's `this`: its view of `n` is unbound there.
    assert_eq!(
        site_count(&evaluated, "byThis", "java.lang.Object"),
        "infty"
    );
    assert_eq!(evaluated["mem_alloc"]["objects"], "infty");
}

#[test]
fn a_local_set_once_from_a_call_is_a_parameter() {
    let cert = certificate("fields.Views.fromInput");
    assert_eq!(
        certificate_params(&cert, "fields.Views.fromInput"),
        [
            pair("args_length", "length of parameter 0 (args)"),
            pair(
                "count",
                "local count set from a call's result at fromInput@1"
            ),
        ]
    );
    for count in [0, 4, 9] {
        let evaluated = eval_method(
            &cert,
            "fields.Views.fromInput",
            &format!("args_length=3,count={count}"),
        );
        assert_eq!(evaluated["mem_alloc"]["objects"], count, "{evaluated:#}");
    }
}

/// `membound eval` of a method without parameters.
fn eval_without_params(certificate: &Path, method: &str) -> Value {
    let run = membound([
        "eval",
        certificate.to_str().expect("a UTF-8 path"),
        "--method",
        method,
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).expect("eval prints JSON");
    json["methods"][0].clone()
}

/// `moving`'s loop run from `count = start` (its body as Java runs it).
fn moving_iterations(start: i64) -> i64 {
    let mut count = start;
    let mut runs = 0;
    let mut i = 0;
    while i < count {
        count += 1;
        runs += 1;
        if count > 100 {
            break;
        }
        i += 1;
    }
    runs
}

#[test]
fn a_field_written_in_the_loop_is_not_a_parameter_and_stays_sound() {
    let cert = certificate("fields.Views.moving");
    assert_eq!(certificate_params(&cert, "fields.Views.moving"), []);
    let evaluated = eval_without_params(&cert, "fields.Views.moving");
    let worst = (-5..=200).map(moving_iterations).max().expect("starts");
    assert_eq!(worst, 100);
    // The entry value is unknown: the bound is the worst start, never below any run.
    assert_eq!(evaluated["mem_alloc"]["objects"], worst, "{evaluated:#}");
}

#[test]
fn a_field_a_callee_writes_is_not_a_parameter() {
    let cert = certificate("fields.Views.grows");
    assert_eq!(certificate_params(&cert, "fields.Views.grows"), []);
    let evaluated = eval_without_params(&cert, "fields.Views.grows");
    assert_eq!(evaluated["mem_alloc"]["objects"], "infty", "{evaluated:#}");
}

#[test]
fn validate_takes_a_field_view_as_a_given_parameter() {
    let cert = certificate("fields.Views.fill");
    // Three arguments: `number` gives 9, so `fill` allocates 9 * 10 / 2 objects.
    let run = membound([
        "validate",
        cert.to_str().expect("a UTF-8 path"),
        "--main",
        "fields.Views",
        "--param",
        "size=9",
        "--format",
        "json",
        "--",
        "a",
        "b",
        "c",
    ]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(json["broken"], 0, "{json:#}");
    let comparisons = json["comparisons"].as_array().expect("comparisons");
    assert_eq!(
        total_objects(comparisons),
        (45.into(), 45.into()),
        "{json:#}"
    );
    // Without it the agent records the static field at the entry (tests/tests/validate_views.rs
    // covers the other recorded views and the values no run records).
    let run = membound([
        "validate",
        cert.to_str().expect("a UTF-8 path"),
        "--main",
        "fields.Views",
        "--",
        "a",
        "b",
        "c",
    ]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("at size=9"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("ok     total objects: observed 45, predicted 45"),
        "{}",
        run.stdout
    );
}

#[test]
fn param_renames_a_parameter_in_the_whole_certificate() {
    let classes = compile_fixture("fields");
    let cert = std::env::temp_dir().join(format!(
        "membound-fields-{}-renamed.json",
        std::process::id()
    ));
    let run = membound([
        "analyze".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        "fields.Views.fill".as_ref(),
        "--object-model".as_ref(),
        "count".as_ref(),
        "--param".as_ref(),
        "rows=size".as_ref(),
        "-o".as_ref(),
        cert.as_os_str(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("size >="), "{}", run.stdout);
    assert_eq!(
        certificate_params(&cert, "fields.Views.fill"),
        [pair(
            "rows",
            "static field fields.Views.size; named rows by --param"
        )]
    );
    let evaluated = eval_method(&cert, "fields.Views.fill", "rows=6");
    assert_eq!(evaluated["mem_alloc"]["objects"], 21, "{evaluated:#}");
    assert_eq!(evaluated["mem_rq"]["objects"], 21, "{evaluated:#}");
}

#[test]
fn param_with_a_bad_name_exits_2_listing_the_parameters() {
    let classes = compile_fixture("fields");
    let analyze = |param: &str| {
        membound([
            "analyze".as_ref(),
            classes.as_os_str(),
            "--method".as_ref(),
            "fields.Views.main".as_ref(),
            "--param".as_ref(),
            param.as_ref(),
        ])
    };
    for (param, message) in [
        (
            "rows=nope",
            "has no parameter `nope`; its parameters: args_length, size",
        ),
        ("size=args_length", "already has a parameter `size`"),
        ("rows", "expected NEW=OLD or NAME=INTEGER"),
        (
            "rows=5",
            "has no parameter `rows`; its parameters: args_length, size",
        ),
    ] {
        let run = analyze(param);
        assert_eq!(run.code, 2, "{param}: {}", run.stderr);
        assert!(run.stderr.contains(message), "{param}: {}", run.stderr);
    }
}

#[test]
fn param_pins_a_parameter_to_a_value() {
    // Fig 7.1 at mc = 3: memRq 28 (the thesis's value), with no parameter left to give.
    let classes = compile_java_tree("jolden", &workspace_root().join("benchmarks-jolden/java"));
    let cert = std::env::temp_dir().join(format!(
        "membound-fields-{}-pinned.json",
        std::process::id()
    ));
    let run = membound([
        "analyze".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        "fig71.Fig71.m0".as_ref(),
        "--object-model".as_ref(),
        "count".as_ref(),
        "--param".as_ref(),
        "mc=3".as_ref(),
        "-o".as_ref(),
        cert.as_os_str(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(&cert).expect("certificate")).expect("JSON");
    let entry = &json["methods"][0];
    assert_eq!(entry["params"], serde_json::json!([]), "{entry:#}");
    assert_eq!(entry["mem_rq"]["bytes"], "(28)", "{entry:#}");
    let assumptions = json["assumptions"].to_string();
    assert!(assumptions.contains("runs with mc = 3"), "{assumptions}");
    let evaluated = eval_without_params(&cert, "fig71.Fig71.m0");
    assert_eq!(evaluated["mem_rq"]["bytes"], 28, "{evaluated:#}");
}

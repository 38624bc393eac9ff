//! Class initializers: one runs at most once, so its allocations count once when some path of
//! the analyzed method may run it (and not at all when none can), however often the
//! instruction that first uses the class runs; the analyzed method's own class is initialized
//! before its code runs. Oracles: hand counts of the fixture `initializers` and a run under the
//! agent (which sees initializers' allocations as the VM's).

use membound_tests::{
    certificate_entry, eval_method, fixture_certificate, fixture_json, total_objects, validate_json,
};
use serde_json::json;

/// The callees of the `clinit` edges of a call graph printed as JSON.
fn initializer_callees(graph: &serde_json::Value) -> Vec<&str> {
    graph["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .filter(|e| e["kind"] == "clinit")
        .map(|e| e["callee"].as_str().expect("callee"))
        .collect()
}

#[test]
fn a_first_use_of_another_class_enters_its_initializer() {
    let graph = fixture_json("callgraph", "initializers", "initializers.Main.run");
    let initializers = initializer_callees(&graph);
    assert_eq!(
        initializers,
        ["initializers.Table.<clinit>()V"],
        "{graph:#}"
    );
}

#[test]
fn an_initializer_under_a_loop_counts_once() {
    let cert = fixture_certificate("initializers", "initializers.Main.run", "count");
    for (n, objects, cells) in [(0, 0, 0), (1, 2, 11), (5, 6, 15)] {
        let evaluated = eval_method(&cert, "initializers.Main.run", &format!("n={n}"));
        // `n` objects, and Table's int[10] once the loop runs; Main's int[3] never.
        assert_eq!(
            evaluated["mem_alloc"],
            json!({"objects": objects, "bytes": cells}),
            "n = {n}: {evaluated:#}"
        );
    }
}

/// The agent counts what a class initializer allocates as the VM's (the VM runs it, no
/// instruction calls it): a run shows `run`'s own objects, never more than the bound.
#[test]
fn an_initializer_counted_once_is_never_below_a_real_run() {
    let cert = fixture_certificate("initializers", "initializers.Main.run", "count");
    let (code, json) = validate_json(&cert, "initializers.Main", &["a", "b", "c"]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["broken"], 0, "{json:#}");
    let comparisons = json["comparisons"].as_array().expect("comparisons");
    assert_eq!(total_objects(comparisons), (json!(3), json!(4)));
}

/// A subclass of a JDK class enters its own initializer, not its JDK superclass's (which ran
/// before, as the certificate assumes): following `Random.<clinit>` reached serialization code
/// and never finished.
#[test]
fn a_user_subclass_of_a_jdk_class_enters_only_its_own_initializer() {
    let method = "initializers.NoisyFactory.make";
    let graph = fixture_json("callgraph", "initializers", method);
    let initializers = initializer_callees(&graph);
    assert_eq!(
        initializers,
        ["initializers.Noisy.<clinit>()V"],
        "{graph:#}"
    );
    let cert = fixture_certificate("initializers", method, "count");
    // The Noisy, the AtomicLong its Random constructor makes (bundled spec), and once the
    // initializer's int[4]: 3 objects, 1 + 1 + 4 units.
    let entry = certificate_entry(&cert, method);
    assert_eq!(
        entry["mem_alloc"],
        json!({"objects": "(3)", "bytes": "(6)"}),
        "{entry:#}"
    );
    let (code, json) = validate_json(&cert, "initializers.NoisyFactory", &[]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["broken"], 0, "{json:#}");
}

/// `Helpers.loop` calls `Counter.next` n times, whose first use of `Registry` runs its
/// initializer (an int[8] and an Object) once per run: the summaries carry it as a once part
/// that callers add once, not n times, nor n^2 times from `nested`'s loop around `loop`.
#[test]
fn an_initializer_reached_through_a_helper_called_in_loops_counts_once() {
    for (method, calls) in [("loop", 1), ("nested", 2)] {
        let method = format!("initializers.Helpers.{method}");
        let cert = fixture_certificate("initializers", &method, "count");
        for n in 0..=5_i64 {
            let evaluated = eval_method(&cert, &method, &format!("n={n}"));
            // One box per call of `next`, and the initializer's two objects (9 units) once.
            let boxes = n.pow(calls);
            assert_eq!(
                evaluated["mem_alloc"],
                json!({"objects": boxes + 2, "bytes": boxes + 9}),
                "{method}({n}): {evaluated:#}"
            );
        }
        let (code, json) = validate_json(&cert, "initializers.Helpers", &["a", "b", "c"]);
        assert_eq!((code, json["broken"].clone()), (0, json!(0)), "{json:#}");
        // The run's boxes (the VM runs the initializer), below the bound: `main` enters `loop`
        // four times (once itself, three times from `nested`), `nested` once.
        let comparisons = json["comparisons"].as_array().expect("comparisons");
        let (entries, runs) = match calls {
            1 => (4, 12),
            _ => (1, 9),
        };
        assert_eq!(
            total_objects(comparisons),
            (json!(runs), json!(runs + 2 * entries))
        );
    }
}

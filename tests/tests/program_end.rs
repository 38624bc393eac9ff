//! Whole programs from `main` (fixture `program_end`, issue 18). `System.exit` ends the path:
//! the call graph stops at it (its shutdown hooks would reach every `Runnable.run` of the JDK),
//! the code after it counts nothing, a method whose every path exits never returns to its
//! caller, and the certificate names the assumption. A `throw new …` counts its exception and
//! its stack trace (the bundled spec of `Throwable.fillInStackTrace`), never ∞; an array's
//! `clone()` is one array of the same length, a final class's one object of the class. A
//! `static Random` reaches `Random` alone, a `Vector`'s enumeration its own class. Oracle: real
//! runs under the agent, ones that exit through the usage or die of the exception and ones that
//! do not.

use std::path::{Path, PathBuf};

use membound_tests::{
    analyze_into, compile_fixture, eval_method, scratch_dir, total_objects, validate_json,
    validated_exactly, validated_unbroken,
};
use serde_json::Value;

/// The certificate of `Forest.<method>` in the `count` model (objects count 1). How fast such
/// programs analyze is measured by the JOlden harness's whole-program table, not here.
fn certificate(method: &str) -> PathBuf {
    certificate_in(method, "count")
}

fn certificate_in(method: &str, model: &str) -> PathBuf {
    let path = scratch_dir("program_end").join(format!("{method}-{model}.json"));
    analyze_into(
        &compile_fixture("program_end"),
        &format!("Forest.{method}"),
        model,
        &path,
    );
    path
}

fn objects_at(certificate: &Path, method: &str, point: &str) -> Value {
    eval_method(certificate, &format!("Forest.{method}"), point)["mem_alloc"]["objects"].clone()
}

fn read(certificate: &Path) -> Value {
    let text = std::fs::read_to_string(certificate).expect("certificate");
    serde_json::from_str(&text).expect("JSON certificate")
}

fn assumptions(certificate: &Path) -> Vec<String> {
    read(certificate)["assumptions"]
        .as_array()
        .expect("assumptions")
        .iter()
        .map(|a| a.as_str().expect("text").to_string())
        .collect()
}

/// `validate` of a run of `Forest <args>`: exit 0, nothing broken; the total (observed,
/// predicted).
fn validated(certificate: &Path, args: &[&str]) -> (Value, Value) {
    let json = validated_unbroken(certificate, "Forest", args);
    total_objects(json["comparisons"].as_array().expect("comparisons"))
}

#[test]
fn the_usage_ends_the_program_and_the_certificate_says_so() {
    let cert = certificate("usage");
    // The message's one char buffer (PrintStream.println's spec); nothing of the exit.
    assert_eq!(read(&cert)["methods"][0]["mem_alloc"]["objects"], "(1)");
    let named = assumptions(&cert);
    assert!(
        named
            .iter()
            .any(|a| a.starts_with("java.lang.System.exit(I)V: ends the program")),
        "{named:#?}"
    );
    // A run that ends in the usage: what the method allocated before the exit is predicted.
    assert_eq!(validated(&cert, &["-x"]), (1.into(), 1.into()));
}

#[test]
fn nothing_after_a_call_that_never_returns_is_counted() {
    let cert = certificate("chain");
    // Up to 64 levels the chain is built; a deeper one prints the usage and exits, so its
    // loop never runs (without the program end it would count `levels` nodes there too).
    assert_eq!(objects_at(&cert, "chain", "levels=10"), 10);
    assert_eq!(objects_at(&cert, "chain", "levels=64"), 64);
    assert_eq!(objects_at(&cert, "chain", "levels=100"), 1);
    assert_eq!(validated(&cert, &["-d", "5"]), (5.into(), 5.into()));
    assert_eq!(validated(&cert, &["-d", "100"]), (1.into(), 1.into()));
}

#[test]
fn a_throw_counts_its_exception_and_its_stack_trace() {
    let cert = certificate("parse");
    // The exception, its message-less stack trace (at most 32 chunks of 5 arrays) and the
    // usage's buffer: finite whatever the message's length. The option loop leaves `trees`
    // and `depth` with one value each, parameters of the bound.
    let objects = objects_at(&cert, "parse", "args_length=2,trees=-1,depth=3");
    assert_eq!(objects, 162, "{objects}");
    // A run that throws: the exception is the predicted one, its trace within the spec.
    let (code, json) = validate_json(&cert, "Forest", &["-t", "-1"]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["broken"], 0, "{json:#}");
    let comparisons = json["comparisons"].as_array().expect("comparisons");
    let exception = comparisons
        .iter()
        .find(|c| {
            c["what"]
                .as_str()
                .is_some_and(|w| w.ends_with("java.lang.IllegalArgumentException"))
        })
        .unwrap_or_else(|| panic!("no exception site in {json:#}"));
    assert_eq!(
        (&exception["observed"], &exception["predicted"]),
        (&1.into(), &1.into())
    );
    assert_eq!(validated(&cert, &["-t", "2", "-d", "3"]).0, 0);
}

#[test]
fn an_array_clone_is_one_array_of_the_same_length() {
    let cert = certificate_in("snapshot", "hotspot-coops");
    let at = |length: &str| eval_method(&cert, "Forest.snapshot", length)["mem_alloc"].clone();
    // An int[n] under compressed oops: a 16-byte header and 4 bytes a cell, 8-byte aligned.
    assert_eq!(at("weights_length=7")["objects"], 1);
    assert_eq!(at("weights_length=7")["bytes"], 48);
    assert_eq!(at("weights_length=8")["bytes"], 48);
    assert_eq!(at("weights_length=0")["bytes"], 16);
    // Exact against the run: the copy the native clone makes is the clone instruction's site.
    validated_exactly(&cert, "Forest", &["-t", "7"]);
}

/// `membound callgraph` of `Forest.<method>`, as text.
fn callgraph(method: &str) -> String {
    membound_tests::fixture_output("callgraph", "program_end", &format!("Forest.{method}"), &[])
}

#[test]
fn a_static_random_reaches_random_and_nothing_else() {
    // `RANDOM` is created by Forest's class initializer, which `weights` never runs: the
    // field's only store (`new Random(42)`) says what a call on it reaches.
    let graph = callgraph("weights");
    assert!(
        graph.contains("virtual java.util.Random.nextInt(I)I"),
        "{graph}"
    );
    for elsewhere in ["SecureRandom", "ThreadLocalRandom"] {
        assert!(!graph.contains(elsewhere), "{elsewhere} in:\n{graph}");
    }
    // Random, its AtomicLong seed (a final field too), the exception of a bad bound.
    assert!(graph.lines().count() < 40, "{graph}");
    let cert = certificate_in("weights", "hotspot-coops");
    let named = assumptions(&cert);
    assert!(
        named.iter().any(
            |a| a.starts_with("a final field is written only by its class's code")
                && a.contains("Forest.RANDOM")
        ),
        "{named:#?}"
    );
    validated_exactly(&cert, "Forest", &["-t", "5"]);
}

#[test]
fn a_vector_walked_through_its_enumeration_is_bounded() {
    let graph = callgraph("main");
    assert!(graph.contains("java.util.Vector.elements()"), "{graph}");
    assert!(graph.lines().count() < 100, "{graph}");
    let cert = certificate("plant");
    // The vector and its first array, a node per level of each tree, an array per add.
    assert_eq!(
        objects_at(&cert, "plant", "count=3,levels=4"),
        3 * 4 + 3 + 2
    );
    let (observed, predicted) = validated(&cert, &["-t", "3", "-d", "4"]);
    assert_eq!((observed, predicted), (14.into(), 17.into()));
    // The whole program from main is analyzed within the time `certificate` allows, bounded
    // in the sizes its option loop parses (`trees`, `depth`: the statics after `parse(args)`),
    // and never below a run.
    let main = certificate("main");
    let objects = read(&main)["methods"][0]["mem_alloc"]["objects"].clone();
    assert!(
        objects
            .as_str()
            .is_some_and(|o| o.contains("trees") && o.contains("depth")),
        "{objects}"
    );
    for args in [["-t", "3", "-d", "4"], ["-t", "7", "-d", "70"]] {
        let (observed, predicted) = validated(&main, &args);
        assert!(observed.as_i64() <= predicted.as_i64(), "{args:?}");
    }
}

#[test]
fn a_helpful_null_pointer_message_is_counted() {
    let cert = certificate("label");
    // The number's text, or the message the JVM writes for the null spine: a String and its
    // bytes each; the message is as long as the failing code's names, which no parameter bounds.
    let total = &read(&cert)["methods"][0]["mem_alloc"];
    assert_eq!(total["objects"], "(4)", "{total}");
    assert_eq!(total["bytes"], "infty", "{total}");
    for depth in ["0", "2"] {
        let (observed, predicted) = validated(&cert, &["-d", depth]);
        assert_eq!((observed, predicted), (2.into(), 4.into()), "depth {depth}");
    }
}

#[test]
fn an_object_clone_is_one_object_of_its_final_class() {
    // `Node` is final, Cloneable, extends Object and declares no clone: `clone()` copies a
    // Node. The run's copies, made inside the native clone, are the clone call's site: no
    // false alarm, every prediction exact.
    let cert = certificate_in("copyChain", "hotspot-coops");
    // The walk stops at `levels` or at the chain's end, whichever comes first.
    for (point, copies) in [("levels=5,node_length=9", 5), ("levels=5,node_length=3", 3)] {
        let at = eval_method(&cert, "Forest.copyChain", point)["mem_alloc"].clone();
        assert_eq!(
            (&at["objects"], &at["bytes"]),
            (&copies.into(), &(24 * copies).into()),
            "{point}"
        );
    }
    validated_exactly(&cert, "Forest", &["-d", "5"]);
}

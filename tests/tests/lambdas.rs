//! Lambdas and method references that capture values (fixture `lambdas`): each evaluation makes
//! an object of a class the JDK spins at run time, sized by what it captures; one that captures
//! nothing is a singleton made when its call site is linked. Oracles: the loops' counts, and
//! real runs under the agent (`validate`: never below what they allocate, equal where exact).

use std::path::{Path, PathBuf};

use membound_tests::{
    analyze_into, certificate_entry, compile_fixture, eval_method, scratch_dir, validated_totals,
};
use serde_json::Value;

/// The certificate of `lambdas.Captures.<method>` in the `hotspot-coops` model.
fn certificate(method: &str) -> PathBuf {
    let path = scratch_dir("lambdas").join(format!("{method}.json"));
    analyze_into(
        &compile_fixture("lambdas"),
        &format!("lambdas.Captures.{method}"),
        "hotspot-coops",
        &path,
    );
    path
}

/// `validate` of a run of `Captures <n>` ([`validated_totals`]).
fn validated(certificate: &Path, n: &str) -> [(Value, Value); 2] {
    validated_totals(certificate, "lambdas.Captures", &[n])
}

#[test]
fn a_capturing_lambda_makes_one_object_per_evaluation_sized_by_its_captures() {
    // Method, objects per iteration, bytes per iteration, objects and bytes made once.
    let shapes: [(&str, i64, i64, i64, i64); 3] = [
        ("capturesAnInt", 1, 16, 0, 0),
        ("capturesNothing", 0, 0, 0, 0),
        // The captured long and reference: 12 + 4 + 8 = 24 bytes; the `long[1]` once.
        ("capturesALongAndAnArray", 1, 24, 1, 24),
    ];
    for (method, objects, bytes, once_objects, once_bytes) in shapes {
        let cert = certificate(method);
        let qualified = format!("lambdas.Captures.{method}");
        if objects == 0 {
            // Nothing counted: the method has no parameter to evaluate at.
            let entry = certificate_entry(&cert, &qualified);
            assert_eq!(entry["mem_alloc"]["objects"], "(0)", "{entry:#}");
        }
        for n in [0_i64, 1, 7].into_iter().filter(|_| objects > 0) {
            let alloc = eval_method(&cert, &qualified, &format!("n={n}"))["mem_alloc"].clone();
            let expected = (
                Value::from(objects * n + once_objects),
                Value::from(bytes * n + once_bytes),
            );
            let counted = (alloc["objects"].clone(), alloc["bytes"].clone());
            assert_eq!(counted, expected, "{method} n={n}");
        }
        for n in ["0", "5", "40"] {
            for (observed, predicted) in validated(&cert, n) {
                assert_eq!(observed, predicted, "{method} {n}");
            }
        }
    }
}

/// A method reference bound to an object captures it (javac checks it against null first,
/// whose exception path the count keeps): one 16-byte object per evaluation, never below a run.
#[test]
fn a_bound_method_reference_captures_its_receiver() {
    let cert = certificate("boundReferences");
    let entry = certificate_entry(&cert, "lambdas.Captures.boundReferences");
    let site = entry["sites"]
        .as_array()
        .expect("sites")
        .iter()
        .find(|s| s["type"] == "java.util.function.Supplier")
        .unwrap_or_else(|| panic!("no lambda site in {entry:#}"))
        .clone();
    assert_eq!(
        site["bytes"], "cases(n >= 1 -> (16*n); otherwise -> (0))",
        "{site:#}"
    );
    for n in ["0", "5", "40"] {
        let [objects, bytes] = validated(&cert, n);
        let below = |(observed, predicted): &(Value, Value)| {
            observed.as_i64().expect("observed") <= predicted.as_i64().expect("predicted")
        };
        assert!(
            below(&objects) && below(&bytes),
            "{n}: {objects:?} {bytes:?}"
        );
    }
}

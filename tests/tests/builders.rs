//! The lengths of the `StringBuilder`s a method makes and keeps to itself (fixture
//! `builders`): the array `toString()` copies the text into is as long as what was appended, so
//! a message built from literals and ints, or a text of one char per iteration, has a bound.
//! Builders other code may append to stay unbounded. Oracles: the appends' lengths, and real
//! runs under the agent (`validate`: never below what they allocate).

use std::path::PathBuf;

use membound_tests::{
    analyze_into, certificate_entry, compile_fixture, eval_method, scratch_dir, validated_totals,
};
use serde_json::Value;

/// The certificate of `builders.Texts.<method>` in the `hotspot-coops` model.
fn certificate(method: &str) -> PathBuf {
    let path = scratch_dir("builders").join(format!("{method}.json"));
    analyze_into(
        &compile_fixture("builders"),
        &format!("builders.Texts.{method}"),
        "hotspot-coops",
        &path,
    );
    path
}

/// The certificate's memAlloc bytes of `builders.Texts.<method>`.
fn bytes_bound(certificate: &std::path::Path, method: &str) -> Value {
    certificate_entry(certificate, &format!("builders.Texts.{method}"))["mem_alloc"]["bytes"]
        .clone()
}

/// Runs of `Texts <n>` under the agent: nothing broken (no prediction below the run), the
/// objects predicted finite, and the bytes where `finite_bytes` says.
fn never_below(certificate: &std::path::Path, finite_bytes: bool) {
    for n in ["0", "9", "-123456789", "300"] {
        let [objects, bytes] = validated_totals(certificate, "builders.Texts", &[n]);
        assert!(objects.1.is_i64(), "n={n}: objects {objects:?}");
        assert_eq!(bytes.1.is_i64(), finite_bytes, "n={n}: bytes {bytes:?}");
    }
}

#[test]
fn a_message_of_literals_and_ints_is_bounded_and_never_below_a_run() {
    for method in ["message", "pair"] {
        let cert = certificate(method);
        let bytes = bytes_bound(&cert, method);
        assert_ne!(bytes, "infty", "{method}: {bytes}");
        never_below(&cert, true);
    }
}

#[test]
fn a_text_of_one_char_per_iteration_is_as_long_as_the_loop() {
    let cert = certificate("dashes");
    // Per char the amortized growth, 24 bytes; the builder and its first array, 24 + 32; the
    // string, 24, and its `byte[n]`, 16 + n rounded up to 8 (n >= 1).
    for (n, text) in [(1_i64, 24 + 24), (100, 24 + 120), (1001, 24 + 1024)] {
        let alloc =
            eval_method(&cert, "builders.Texts.dashes", &format!("n={n}"))["mem_alloc"].clone();
        assert_eq!(alloc["bytes"], Value::from(24 * n + 56 + text), "n={n}");
    }
    never_below(&cert, true);
}

#[test]
fn a_builder_another_method_appends_to_or_a_stale_one_is_not_followed() {
    for method in ["handed", "stale"] {
        let cert = certificate(method);
        assert_eq!(bytes_bound(&cert, method), "infty", "{method}");
        never_below(&cert, false);
    }
}

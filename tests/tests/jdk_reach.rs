//! What made library methods ∞ inside the JDK (issue 18 items 3/4, issue 20 item 7), on
//! tests/fixtures/jdk_reach: the natives of `java.lang.reflect.Array` as bundled specs, a new
//! `NullPointerException` (whose message the JVM never makes), the JDK's `assert` statements
//! (whose `AssertionError(Object)` reached every `toString` in a recursion no run has),
//! `Throwable.setStackTrace` as a spec (a recursion through every throwable's constructor), and
//! the reason an array's bytes are ∞, which names the array and its length. Each bound is
//! validated against real runs under the agent.

use std::path::PathBuf;

use membound_tests::{fixture_certificate, validated_unbroken};
use serde_json::Value;

const SIZES: [&str; 4] = ["0", "1", "7", "40"];

/// The certificate of `Calls.<method>` and its value.
fn analyze(method: &str) -> (PathBuf, Value) {
    let certificate = fixture_certificate("jdk_reach", &format!("Calls.{method}"), "hotspot-coops");
    let text = std::fs::read_to_string(&certificate).expect("the certificate");
    (certificate, serde_json::from_str(&text).expect("JSON"))
}

/// The certificate of `Calls.<method>`, checked to list `spec` among its assumptions.
fn analyze_using(method: &str, spec: &str) -> PathBuf {
    let (certificate, value) = analyze(method);
    assert!(mentions(&value, spec), "{value:#}");
    certificate
}

/// Validates on a run of `Calls <method> <n>`: exit 0, nothing broken; the report.
fn validated(certificate: &std::path::Path, method: &str, n: &str) -> Value {
    validated_unbroken(certificate, "Calls", &[method, n])
}

/// Every text of the certificate's lists: its assumptions, and each method's and each site's
/// reasons for ∞.
fn texts(certificate: &Value) -> Vec<&str> {
    let mut all = strings(&certificate["assumptions"]);
    for method in certificate["methods"].as_array().expect("methods") {
        all.extend(strings(&method["unbounded"]));
        for site in method["sites"].as_array().into_iter().flatten() {
            all.extend(strings(&site["reasons"]));
        }
    }
    all
}

/// The strings of a JSON list (none for anything else).
fn strings(list: &Value) -> Vec<&str> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

fn mentions(certificate: &Value, text: &str) -> bool {
    texts(certificate).iter().any(|t| t.contains(text))
}

/// The comparison whose `what` starts with `what`, for `quantity`: (observed, predicted).
fn comparison(report: &Value, what: &str, quantity: &str) -> Option<(u64, Option<u64>)> {
    let found = report["comparisons"].as_array()?.iter().find(|c| {
        c["what"].as_str().is_some_and(|w| w.starts_with(what)) && c["quantity"] == quantity
    })?;
    Some((found["observed"].as_u64()?, found["predicted"].as_u64()))
}

fn entry_bound<'v>(certificate: &'v Value, quantity: &str) -> &'v str {
    certificate["methods"][0]["mem_alloc"][quantity]
        .as_str()
        .expect("a bound")
}

/// `Array.getLength` allocates nothing: the arrays the method makes are all, exactly.
#[test]
fn array_get_length_allocates_nothing() {
    let certificate = analyze_using(
        "lengths",
        "java.lang.reflect.Array.getLength(Ljava/lang/Object;)I: allocates nothing per call (bundled spec)",
    );
    for n in SIZES {
        let report = validated(&certificate, "lengths", n);
        for quantity in ["objects", "bytes"] {
            let (observed, predicted) = comparison(&report, "total", quantity).expect("a total");
            assert_eq!(
                Some(observed),
                predicted,
                "{quantity} at n = {n}: {report:#}"
            );
        }
    }
}

/// `Array.newInstance` (the native `newArray`) makes one array of the length: three arrays,
/// exactly, their bytes charged as `long[]`s: exact for the long[n], above the `String[n]` and
/// the `byte[2n]`; what the native made is compared with the spec.
#[test]
fn array_new_array_makes_one_array_of_the_length() {
    let certificate = analyze_using(
        "newArrays",
        "java.lang.reflect.Array.newArray(Ljava/lang/Class;I)Ljava/lang/Object;: allocates at most 1 × long[] of length length per call (bundled spec",
    );
    for n in SIZES {
        let report = validated(&certificate, "newArrays", n);
        let size: u64 = n.parse().expect("a size");
        let (observed, predicted) = comparison(&report, "total", "objects").expect("objects");
        assert_eq!((observed, predicted), (3, Some(3)), "n = {n}: {report:#}");
        // long[n], String[n] (4-byte cells) and byte[2n], each 16 bytes of header, aligned to 8.
        let align = |bytes: u64| bytes.div_ceil(8) * 8;
        let made = align(16 + 8 * size) + align(16 + 4 * size) + align(16 + 2 * size);
        let charged = 3 * 16 + 8 * size + 8 * size + 16 * size;
        let (observed, predicted) =
            comparison(&report, "under library specs", "bytes").expect("the spec's comparison");
        assert_eq!((observed, predicted), (made, Some(charged)), "{report:#}");
    }
}

/// A `NullPointerException` made by `new` (here in `Objects.requireNonNull`) has no message:
/// its constructor runs on an object whose fields are all 0, where the message is not made,
/// so the bytes are finite (a stack trace per exception, at its deepest) and never below a run.
#[test]
fn a_new_null_pointer_exception_makes_no_message() {
    let (certificate, value) = analyze("nullChecks");
    let bytes = entry_bound(&value, "bytes");
    assert!(!bytes.contains("infty"), "{bytes}");
    for n in SIZES {
        let report = validated(&certificate, "nullChecks", n);
        let (observed, _) = comparison(&report, "total", "objects").expect("objects");
        assert_eq!(observed > 0, n != "0", "n = {n}: {report:#}");
    }
}

/// A UTF-16 string made by a `toString` from a char[] runs `StringUTF16`'s code, whose
/// `assert`s would reach `AssertionError(Object)`, `String.valueOf(Object)` and every
/// `toString`, that one included: a recursion no run has. With the JDK's asserts cut (an
/// assumption the certificate names) none is left, and the objects are bounded, never below a
/// run.
#[test]
fn the_jdks_asserts_make_no_recursion() {
    let (certificate, value) = analyze("utf16Text");
    assert!(!mentions(&value, "recursion through"), "{value:#}");
    assert!(
        mentions(&value, "assert statements of the JDK's classes do not run"),
        "{value:#}"
    );
    assert!(!entry_bound(&value, "objects").contains("infty"));
    for n in SIZES {
        validated(&certificate, "utf16Text", n);
    }
}

/// `Throwable.setStackTrace` copies the array it is given (a bundled spec): a throwable
/// whose `fillInStackTrace` sets one (guava's `TimeoutFutureException`) no longer makes a
/// recursion through every `Throwable`'s constructor, and what the copies took is compared
/// with the spec: two arrays, one per call.
#[test]
fn set_stack_trace_copies_the_array() {
    let spec = "java.lang.Throwable.setStackTrace([Ljava/lang/StackTraceElement;)V: allocates at most 1 × java.lang.StackTraceElement[]";
    let (certificate, value) = analyze("stackTraces");
    assert!(mentions(&value, spec), "{value:#}");
    assert!(!mentions(&value, "recursion through"), "{value:#}");
    for n in SIZES {
        let report = validated(&certificate, "stackTraces", n);
        let (observed, _) =
            comparison(&report, "under library specs", "objects").expect("the spec's comparison");
        assert_eq!(observed, 2, "{report:#}");
    }
}

/// An array whose length no parameter bounds says which array (type, method, offset, line)
/// and which length: here an element of the array parameter.
#[test]
fn an_unbounded_array_names_its_site_and_length() {
    let (certificate, value) = analyze("elementSized");
    assert_eq!(entry_bound(&value, "bytes"), "infty");
    assert!(
        mentions(
            &value,
            "the int[] made at Calls.elementSized([I)I@5 (line 101): its length `counts[0] + 1` is not bounded by the parameters"
        ),
        "{value:#}"
    );
    for n in SIZES {
        validated(&certificate, "elementSized", n);
    }
}

/// A generic copy one longer (commons-lang3's `ArrayUtils` shape): the length comes from
/// `Array.getLength`, whose result the spec does not tie to the array, so the bytes are ∞;
/// the one array `newArray` made is still compared with its spec.
#[test]
fn a_generic_copy_is_validated_against_the_spec() {
    let (certificate, _) = analyze("grownCopies");
    for n in SIZES {
        let report = validated(&certificate, "grownCopies", n);
        let (observed, _) =
            comparison(&report, "under library specs", "objects").expect("the spec's comparison");
        assert_eq!(observed, 1, "{report:#}");
    }
}

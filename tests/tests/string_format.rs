//! `String.format` and `String.formatted` with a literal format: a site of their own, bounded
//! from the format's text with `java.util.Formatter`'s measured costs; `%d` (the locale's
//! formatting data) and a format that is no literal stay ∞ with their reasons. Oracle: real
//! runs under the agent (`membound validate`), in the `en` and the `de` default locale.

use std::path::{Path, PathBuf};

use membound_tests::{
    analyze_into, compile_fixture, eval_method, membound, scratch_dir, validated_unbroken,
};
use serde_json::Value;

fn certificate_of(method: &str) -> PathBuf {
    let classes = compile_fixture("string_format");
    let path = scratch_dir("string-format").join(format!("{method}.json"));
    analyze_into(&classes, method, "hotspot-coops", &path);
    path
}

/// The one format site of a method in `eval`'s report: the site of type String the method
/// allocates itself.
fn format_site(bound: &Value) -> Value {
    own_site(bound, "java.lang.String")
}

/// The site of type `ty` the method of `eval`'s report allocates itself.
fn own_site(bound: &Value, ty: &str) -> Value {
    let sites = bound["sites"].as_array().expect("sites");
    sites
        .iter()
        .find(|site| site["type"] == ty && site["via"].is_null())
        .unwrap_or_else(|| panic!("a site of {ty} in {bound:#}"))
        .clone()
}

/// The comparison of `validate`'s report whose `what` starts with `what`, for `quantity`.
fn comparison<'a>(report: &'a Value, what: &str, quantity: &str) -> &'a Value {
    report["comparisons"]
        .as_array()
        .expect("comparisons")
        .iter()
        .find(|c| {
            c["what"].as_str().is_some_and(|w| w.starts_with(what)) && c["quantity"] == quantity
        })
        .unwrap_or_else(|| panic!("{what} {quantity} in {report:#}"))
}

fn reasons(certificate: &Path) -> String {
    std::fs::read_to_string(certificate).expect("certificate")
}

/// The certificate of `method`, checked to say `reason` and to hold on a run (its ∞ included).
fn says_and_holds(method: &str, reason: &str) -> PathBuf {
    let certificate = certificate_of(method);
    let text = reasons(&certificate);
    assert!(text.contains(reason), "{reason} in {text}");
    validated_unbroken(&certificate, "Formats", &["30"]);
    certificate
}

#[test]
fn hex_octal_and_literal_text_are_bounded_and_hold_on_runs() {
    let certificate = certificate_of("Formats.hexTable");
    let bound = eval_method(&certificate, "Formats.hexTable", "n=30");
    let site = format_site(&bound);
    // "%08X|%-6x|%o%n%%": 7 pieces. The Formatter, its builder and byte[16], the list and its
    // Object[10], 7 specifiers, the result String (13); the regular expression for %08X and
    // %-6x (a Matcher, two int[], an IntHashSet[]: 4) and their Flags (2); two Flags[] per
    // specifier (10); %08X's builder, byte[16], two Strings and byte[]s (6), %-6x's builder,
    // byte[16], String and byte[] (4), %o of a long's builder, byte[16], one growth for 22
    // digits, String and byte[] (5); the text, 8 + 1 + 8 + 1 + 22 + 2 + 1 = 43 chars, two
    // growths of the builder (16 -> 34 -> 70) and the result's byte[] (3).
    assert_eq!(site["objects"], 47 * 30, "{site:#}");
    assert!(site["bytes"].is_u64(), "{site:#}");
    let text = reasons(&certificate);
    assert!(
        text.contains("measured under the agent with the default locale en"),
        "{text}"
    );
    for locale in [
        &[][..],
        &[
            "--jvm-arg=-Duser.language=de",
            "--jvm-arg=-Duser.country=DE",
        ],
    ] {
        let report = validated_unbroken_with(&certificate, locale, "30");
        let objects = comparison(&report, "Formats.hexTable(I)I@44", "objects");
        // Per-conversion maxima: 1295 of the 1410 objects (and about three quarters of the
        // bytes) the bound charges are made at n = 30.
        assert!(objects["observed"].as_u64() <= Some(47 * 30), "{objects}");
        assert!(objects["observed"].as_u64() >= Some(40 * 30), "{objects}");
    }
}

/// `validate --format json` with extra flags before `--`, checked unbroken.
fn validated_unbroken_with(certificate: &Path, flags: &[&str], n: &str) -> Value {
    if flags.is_empty() {
        return validated_unbroken(certificate, "Formats", &[n]);
    }
    let mut args: Vec<&str> = vec!["validate", certificate.to_str().expect("path")];
    args.extend(["--main", "Formats", "--format", "json"]);
    args.extend(flags);
    args.extend(["--", n]);
    let run = membound(args);
    let json: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|_| panic!("validate prints JSON: {}\n{}", run.stdout, run.stderr));
    assert_eq!(
        (run.code, json["broken"].clone()),
        (0, 0.into()),
        "{json:#}"
    );
    json
}

#[test]
fn chars_booleans_and_indices_are_bounded_and_hold_on_a_run() {
    let certificate = certificate_of("Formats.chars");
    let bound = eval_method(&certificate, "Formats.chars", "n=30");
    let site = format_site(&bound);
    assert!(
        site["objects"].is_u64() && site["bytes"].is_u64(),
        "{site:#}"
    );
    // A `€` makes the text UTF-16 on odd iterations, a null is written `null`: still below
    // the bound.
    let report = validated_unbroken(&certificate, "Formats", &["30"]);
    let bytes = comparison(&report, "total", "bytes");
    assert!(
        bytes["observed"].as_u64() <= bytes["predicted"].as_u64(),
        "{bytes}"
    );
}

#[test]
fn a_string_argument_bounds_the_bytes_by_its_length() {
    let certificate = certificate_of("Formats.labels");
    let bound = eval_method(&certificate, "Formats.labels", "n=30,name_length=8");
    let site = format_site(&bound);
    // "%-12s #%x": a regular expression, 3 pieces; the text's arrays are charged 15 bytes of
    // payload per char (the builder's growths, its UTF-16 copy, the result's Latin-1 attempt
    // and bytes) whatever the text, one aligned array of that payload: 8 more chars, 120 more
    // bytes per call.
    assert!(
        site["objects"].is_u64() && site["bytes"].is_u64(),
        "{site:#}"
    );
    let longer = format_site(&eval_method(
        &certificate,
        "Formats.labels",
        "n=30,name_length=16",
    ));
    assert_eq!(
        longer["bytes"]
            .as_u64()
            .zip(site["bytes"].as_u64())
            .map(|(l, s)| l - s),
        Some(30 * 8 * 15),
        "{longer:#}"
    );
    let report = validated_unbroken(&certificate, "Formats", &["30"]);
    let bytes = comparison(&report, "total", "bytes");
    assert!(
        bytes["observed"].as_u64() <= bytes["predicted"].as_u64(),
        "{bytes}"
    );
    // A conditional argument branches between the array's creation and the call: its
    // elements are still found, the text bounded by both strings' lengths.
    let either = certificate_of("Formats.either");
    let bound = eval_method(
        &either,
        "Formats.either",
        "n=30,left_length=2,right_length=4",
    );
    let site = format_site(&bound);
    assert!(
        site["objects"].is_u64() && site["bytes"].is_u64(),
        "{site:#}"
    );
    validated_unbroken(&either, "Formats", &["30"]);
    // An element of an array has no length the analysis follows: its bytes stay ∞.
    let named = says_and_holds(
        "Formats.named",
        "specifier %S of a String: its length is not bounded by the parameters",
    );
    let site = format_site(&eval_method(&named, "Formats.named", "n=30,names_length=1"));
    assert!(site["objects"].is_u64(), "{site:#}");
    assert_eq!(site["bytes"], "infty", "{site:#}");
}

#[test]
fn decimals_and_formats_that_are_no_literal_stay_unbounded_with_their_reasons() {
    says_and_holds(
        "Formats.decimals",
        "specifier %d: %d reads the default locale's DecimalFormatSymbols",
    );
    says_and_holds(
        "Formats.dynamic",
        "what String.format makes depends on the format string's text",
    );
}

#[test]
fn printf_to_system_out_is_bounded_and_holds_on_a_run() {
    let certificate = certificate_of("Formats.report");
    let bound = eval_method(&certificate, "Formats.report", "n=30");
    let site = own_site(&bound, "java.util.Formatter");
    assert!(
        site["objects"].is_u64() && site["bytes"].is_u64(),
        "{site:#}"
    );
    let text = reasons(&certificate);
    assert!(text.contains("not replaced by System.setOut"), "{text}");
    let report = validated_unbroken(&certificate, "Formats", &["30"]);
    let objects = comparison(&report, "total", "objects");
    assert!(
        objects["observed"].as_u64() <= objects["predicted"].as_u64(),
        "{objects}"
    );
    // A String printed goes out in as many pieces as its length needs: ∞, with the reason.
    says_and_holds(
        "Formats.greet",
        "specifier %s: a String written to a stream goes out in pieces",
    );
}

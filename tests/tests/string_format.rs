//! `String.format` and `String.formatted` with a literal format: a site of their own, bounded
//! from the format's text with `java.util.Formatter`'s measured costs, `%d`'s first use of the
//! locale's number data charged once; `%,d` and a format that is no literal stay ∞ with their
//! reasons. Oracle: real runs under the agent (`membound validate`), in the `en` and the `de`
//! default locale.

use std::path::{Path, PathBuf};

use membound_tests::{
    analyze_into, compile_fixture, eval_method, scratch_dir, validated_unbroken,
    validated_unbroken_with,
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

/// Checks a site of `eval`'s report has finite objects and bytes.
fn assert_bounded(site: &Value) {
    assert!(
        site["objects"].is_u64() && site["bytes"].is_u64(),
        "{site:#}"
    );
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
    for locale in [&[][..], GERMAN] {
        let report = validated_unbroken_with(&certificate, "Formats", locale, &["30"]);
        let objects = comparison(&report, "Formats.hexTable(I)I@44", "objects");
        // Per-conversion maxima: 1295 of the 1410 objects (and about three quarters of the
        // bytes) the bound charges are made at n = 30.
        assert!(objects["observed"].as_u64() <= Some(47 * 30), "{objects}");
        assert!(objects["observed"].as_u64() >= Some(40 * 30), "{objects}");
    }
}

/// The JVM flags of the default locale `de_DE`.
const GERMAN: &[&str] = &[
    "--jvm-arg=-Duser.language=de",
    "--jvm-arg=-Duser.country=DE",
];

#[test]
fn chars_booleans_and_indices_are_bounded_and_hold_on_a_run() {
    let certificate = certificate_of("Formats.chars");
    let bound = eval_method(&certificate, "Formats.chars", "n=30");
    let site = format_site(&bound);
    assert_bounded(&site);
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
    assert_bounded(&site);
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
    assert_bounded(&site);
    validated_unbroken(&either, "Formats", &["30"]);
    // A precision cuts the string: the text's bytes are bounded whatever its length (and
    // `#` prefixes hex and octal digits).
    let initials = certificate_of("Formats.initials");
    let short = eval_method(&initials, "Formats.initials", "n=30,name_length=1");
    let long = eval_method(&initials, "Formats.initials", "n=30,name_length=1000");
    assert_bounded(&format_site(&short));
    assert_eq!(format_site(&short), format_site(&long));
    validated_unbroken(&initials, "Formats", &["30"]);
    // An element of an array has no length the analysis follows: its bytes stay ∞.
    let named = says_and_holds(
        "Formats.named",
        "specifier %S of a String: its length is not bounded by the parameters",
    );
    let site = format_site(&eval_method(&named, "Formats.named", "n=30,names_length=1"));
    assert!(site["objects"].is_u64(), "{site:#}");
    assert_eq!(site["bytes"], "infty", "{site:#}");
}

/// The locale's number data a run's first `%d` loads, charged once
/// (`sites::LOCALE_DATA_OBJECTS`).
const LOCALE_DATA_OBJECTS: u64 = 4682;

/// The objects the run's first use of the locale's number data loaded at least, measured in
/// a fresh JVM with the default locale `en` (4095), `de` 4367.
const LOCALE_DATA_LOADED_EN: u64 = 4095;

#[test]
fn a_decimal_charges_the_locale_data_once_and_holds_on_runs() {
    let certificate = certificate_of("Formats.decimals");
    // "%d" of an Integer: the Formatter, its builder and byte[16], the list and its
    // Object[10], the specifier, the result and its bytes (8); two Flags[] (2); the number's
    // builder and byte[16], `Long.toString`'s String and byte[] (4); the locale's number
    // symbols, a DecimalFormatSymbols and what its initialization streams make (20). And the
    // locale's data once, in a loop as in one call.
    for n in [30, 300] {
        let bound = eval_method(&certificate, "Formats.decimals", &format!("n={n}"));
        assert_eq!(format_site(&bound)["objects"], 34 * n, "{bound:#}");
        let data = own_site(&bound, "java.text.DecimalFormatSymbols");
        assert_eq!(data["objects"], LOCALE_DATA_OBJECTS, "{data:#}");
    }
    // No call, no load.
    let none = eval_method(&certificate, "Formats.decimals", "n=0");
    let data = own_site(&none, "java.text.DecimalFormatSymbols");
    assert_eq!(data["objects"], 0, "{data:#}");
    let text = reasons(&certificate);
    assert!(text.contains("charged once at the most measured"), "{text}");
    // The run's first %d is this loop's: its load and 30 calls of 32 objects (the bound: 34;
    // one a box), within the bound, in `en` and in `de`.
    for locale in [&[][..], GERMAN] {
        let report = validated_unbroken_with(&certificate, "Formats", locale, &["30"]);
        let observed = format_call_objects(&report, "Formats.decimals(I)I@23");
        assert!(observed >= LOCALE_DATA_LOADED_EN + 30 * 32, "{report:#}");
        assert!(observed <= LOCALE_DATA_OBJECTS + 30 * 34, "{report:#}");
    }
    // Without compressed references the data's bytes are charged twice (its references
    // double): within the bound too.
    let classes = compile_fixture("string_format");
    let wide = scratch_dir("string-format").join("decimals-nocoops.json");
    analyze_into(&classes, "Formats.decimals", "hotspot-nocoops", &wide);
    let report = validated_unbroken_with(
        &wide,
        "Formats",
        &["--jvm-arg=-XX:-UseCompressedOops"],
        &["30"],
    );
    format_call_objects(&report, "Formats.decimals(I)I@23");
    // One call in a fresh JVM: the first use with it (a second argument makes it the
    // run's first), then a later call without the load.
    let one = certificate_of("Formats.decimal");
    let report = validated_unbroken(&one, "Formats", &["30", "first"]);
    let first = comparison(&report, "memRq (entry 1)", "objects");
    assert!(
        first["observed"].as_u64() >= Some(LOCALE_DATA_LOADED_EN),
        "{first}"
    );
    let later = comparison(&report, "memRq (entry 2)", "objects");
    assert!(later["observed"].as_u64() < Some(40), "{later}");
}

/// What a run allocated under the format call `at` (its per-call site and the locale data's,
/// compared together).
fn format_call_objects(report: &Value, at: &str) -> u64 {
    let objects = comparison(report, at, "objects");
    let observed = objects["observed"].as_u64().expect("observed");
    assert!(
        objects["predicted"].as_u64().is_some_and(|p| p >= observed),
        "{objects}"
    );
    observed
}

#[test]
fn signs_widths_and_padding_of_decimals_are_bounded_and_hold_on_runs() {
    let certificate = certificate_of("Formats.signs");
    let bound = eval_method(&certificate, "Formats.signs", "n=30");
    let site = format_site(&bound);
    assert_bounded(&site);
    for n in ["30", "200"] {
        let report = validated_unbroken(&certificate, "Formats", &[n]);
        format_call_objects(&report, "Formats.signs(I)I@76");
    }
    // printf's %5d and %#010x: its Formatter stays with the stream; the number symbols once
    // per call.
    let tally = certificate_of("Formats.tally");
    let bound = eval_method(&tally, "Formats.tally", "n=30");
    let site = own_site(&bound, "java.util.Formatter");
    assert_bounded(&site);
    let report = validated_unbroken(&tally, "Formats", &["30"]);
    format_call_objects(&report, "Formats.tally(I)V@34");
}

#[test]
fn floats_and_doubles_with_precision_width_and_flags_are_bounded_and_hold_on_runs() {
    let certificate = certificate_of("Formats.floats");
    let bound = eval_method(&certificate, "Formats.floats", "n=30");
    assert_bounded(&format_site(&bound));
    // Zero, the largest double, the smallest negative, NaN, an infinity, huge and tiny
    // values, as %.2f, %-14e, %(012.3f, %+E of a Float and %f: within the bound in `en` and
    // `de` (where the point is a comma). The bound charges dtoa's big-integer path as reading
    // the code proves it (about 9 KB a conversion): the runs make 0.2 of its objects.
    for (locale, n) in [(&[][..], "9"), (&[][..], "200"), (GERMAN, "30")] {
        let report = validated_unbroken_with(&certificate, "Formats", locale, &[n]);
        format_call_objects(&report, "Formats.floats(I)I@69");
    }
}

#[test]
fn grouping_and_formats_that_are_no_literal_stay_unbounded_with_their_reasons() {
    says_and_holds(
        "Formats.grouped",
        "specifier %,d: the flags , and # of %d are not analyzed",
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
    assert_bounded(&site);
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

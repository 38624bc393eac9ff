//! The bundled specs of the JDK methods programs use most (front/specs/jdk.yaml: Random and
//! ThreadLocalRandom, Math, Arrays, Collections' factories and List.of, Date, LocalDate,
//! Instant and Duration, reading strings, String.substring, contains, repeat, split and join,
//! StringBuilder.append; stream pipelines in tests/tests/streams.rs), each called from a method of its own in
//! tests/fixtures/jdk_specs: every bound is validated against real runs under the agent over
//! a grid of sizes, never below them, and equal to them where the spec is exact; where no
//! parameter bounds what a JDK method makes (a split's pieces), the
//! bound is ∞ at once with the spec's reason.

use std::path::{Path, PathBuf};

use membound_tests::{compile_fixture, membound, scratch_dir, validate_json, validate_json_with};
use serde_json::Value;

/// Sizes each method runs with: the empty case, the small ones where JDK code takes its
/// shortcuts (a repeat of one, a list of one), and larger ones.
const SIZES: [&str; 5] = ["0", "1", "2", "7", "40"];

/// `membound analyze` of `Calls.<method>` into a JSON certificate: the certificate and the
/// summary.
fn analyze(classes: &Path, dir: &Path, method: &str) -> (PathBuf, String) {
    let certificate = dir.join(format!("{method}.json"));
    let run = membound([
        "analyze".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        format!("Calls.{method}").as_ref(),
        "-q".as_ref(),
        "-o".as_ref(),
        certificate.as_os_str(),
    ]);
    assert_eq!(run.code, 0, "{method}: {}", run.stderr);
    (certificate, run.stdout)
}

/// The comparison of `quantity` named `what` in a validate report: (observed, predicted).
fn comparison(report: &Value, what: &str, quantity: &str) -> (Value, Value) {
    let found = report["comparisons"]
        .as_array()
        .expect("comparisons")
        .iter()
        .find(|c| {
            c["what"].as_str().is_some_and(|w| w.starts_with(what)) && c["quantity"] == quantity
        })
        .unwrap_or_else(|| panic!("no {what} {quantity} in {report:#}"));
    (found["observed"].clone(), found["predicted"].clone())
}

/// Objects a method allocates as a function of its size.
type ObjectsAt = fn(u64) -> u64;

/// The comparisons of what a run allocated under spec'd methods with their specs.
fn spec_comparisons(report: &Value) -> Vec<&Value> {
    report["comparisons"]
        .as_array()
        .expect("comparisons")
        .iter()
        .filter(|c| {
            c["what"]
                .as_str()
                .is_some_and(|w| w.starts_with("under library specs"))
        })
        .collect()
}

/// What the run allocated under spec'd methods stays within their specs' predictions.
fn specs_hold(report: &Value, n: impl std::fmt::Display) {
    for under_specs in spec_comparisons(report) {
        assert_eq!(under_specs["broken"], false, "n = {n}: {under_specs}");
    }
}

/// Validates `method`'s certificate on a run of `Calls <method> <n>`: never below. (The JDK's
/// class initializers a method runs first, such as Math.random's generator, are the VM's
/// allocations for the agent, as certificates assume.)
fn validated(certificate: &Path, method: &str, n: &str) -> Value {
    let (code, report) = validate_json(certificate, "Calls", &[method, n]);
    assert_eq!(code, 0, "{method} at n = {n}: {report:#}");
    report
}

#[test]
fn exact_specs_equal_real_runs() {
    let classes = compile_fixture("jdk_specs");
    let dir = scratch_dir("jdk-specs-exact");
    // Objects per method at n: a generator and its seed; a generator and its seed per draw and
    // the array; nothing for the thread's generator, for Math and for Math.random; the arrays
    // and the list view; six wrappers and arrays per round of factories; a Date and a
    // LocalDate per round; the first date and two per day moved but by 0; two instants and four
    // durations per round; an instant per reading of the clock.
    // Reading strings: nothing; a substring: a string and its bytes.
    let methods: [(&str, ObjectsAt); 13] = [
        ("random", |_| 2),
        ("randoms", |n| 1 + 2 * n),
        ("threadLocal", |_| 0),
        ("math", |_| 0),
        ("mathRandom", |_| 0),
        ("arrays", |_| 6),
        ("factories", |n| 6 * n),
        ("dates", |n| 2 * n),
        ("dateArithmetic", |n| (2 * n).max(2) - 1),
        ("durations", |n| 6 * n),
        ("clocks", |n| n),
        ("reading", |_| 0),
        ("substrings", |n| 2 * n),
    ];
    // The methods whose spec'd calls allocate, which validate compares with their specs.
    let allocates_under_specs = [
        "random",
        "randoms",
        "arrays",
        "factories",
        "dates",
        "dateArithmetic",
        "durations",
        "clocks",
        "substrings",
    ];
    for (method, objects) in methods {
        let (certificate, summary) = analyze(&classes, &dir, method);
        assert!(summary.contains("(bundled spec)"), "{method}: {summary}");
        for n in SIZES {
            let report = validated(&certificate, method, n);
            let expected = objects(n.parse().expect("a size"));
            assert_eq!(
                comparison(&report, "total", "objects"),
                (expected.into(), expected.into()),
                "{method} at n = {n}: {report:#}"
            );
            let (observed, predicted) = comparison(&report, "total", "bytes");
            assert_eq!(observed, predicted, "{method} at n = {n}: {report:#}");
            // What the run allocated under the spec'd methods, against their specs: exact too.
            for under_specs in spec_comparisons(&report) {
                assert_eq!(
                    under_specs["observed"], under_specs["predicted"],
                    "{method} at n = {n}: {under_specs}"
                );
            }
        }
        if allocates_under_specs.contains(&method) {
            let report = validated(&certificate, method, "7");
            assert!(
                !spec_comparisons(&report).is_empty(),
                "{method}: {report:#}"
            );
        }
    }
}

/// `LocalDate.now()` once the zone's rules are loaded (main reads the date first): a clock, the
/// default zone's clone, the instant and the date, and the year boxed to find its transitions
/// in a zone with daylight saving: exact there, 16 bytes above a run in UTC.
#[test]
fn today_is_bounded_once_the_zones_rules_are_loaded() {
    let classes = compile_fixture("jdk_specs");
    let dir = scratch_dir("jdk-specs-today");
    let (certificate, summary) = analyze(&classes, &dir, "today");
    assert!(
        summary.contains("java.time.LocalDate.now()Ljava/time/LocalDate;: allocates at most 1 × java.time.Clock$SystemClock, 1 × sun.util.calendar.ZoneInfo, 1 × java.time.Instant, 1 × java.lang.Integer, 1 × java.time.LocalDate per call (bundled spec; the default time zone is the JVM's own"),
        "{summary}"
    );
    for (zone, boxes_year) in [("Europe/Paris", true), ("UTC", false)] {
        for n in SIZES {
            let size: u64 = n.parse().expect("a size");
            let zone_option = format!("--jvm-arg=-Duser.timezone={zone}");
            let (code, report) = validate_json_with(
                &certificate,
                "Calls",
                &[zone_option.as_str()],
                &["today", n],
            );
            assert_eq!(code, 0, "{zone}, n = {n}: {report:#}");
            let observed = if boxes_year { 5 * size } else { 4 * size };
            assert_eq!(
                comparison(&report, "total", "objects"),
                (observed.into(), (5 * size).into()),
                "{zone}, n = {n}: {report:#}"
            );
            specs_hold(&report, n);
        }
    }
}

#[test]
fn a_random_generator_counts_one_seed_not_one_per_branch() {
    let classes = compile_fixture("jdk_specs");
    let dir = scratch_dir("jdk-specs-random");
    let (_, summary) = analyze(&classes, &dir, "random");
    for spec in [
        "java.util.Random.<init>(J)V: allocates at most 1 × java.util.concurrent.atomic.AtomicLong per call (bundled spec)",
        "java.util.Random.nextGaussian()D: allocates nothing per call (bundled spec)",
    ] {
        assert!(summary.contains(spec), "no `{spec}` in\n{summary}");
    }
}

#[test]
fn repeat_charges_its_string_and_bytes_in_the_receivers_length() {
    let classes = compile_fixture("jdk_specs");
    let dir = scratch_dir("jdk-specs-repeat");
    let (certificate, summary) = analyze(&classes, &dir, "repeat");
    // The receiver's length (`this`) is bound at each call: a literal's here.
    assert!(
        summary.contains("java.lang.String.repeat(I)Ljava/lang/String;: cases(count >= 2 and this_length = 1 -> 2; this_length >= 2 and count >= 2 -> count + 1; otherwise -> 0) objects"),
        "{summary}"
    );
    for n in SIZES {
        let report = validated(&certificate, "repeat", n);
        let n: u64 = n.parse().expect("a size");
        // Two new strings and their bytes from n >= 2 ("ab" once is itself); predicted: "x"
        // n times exactly, "ab" n times as n arrays of its two chars.
        let (observed, predicted) = comparison(&report, "total", "objects");
        let made = if n >= 2 { 4 } else { 0 };
        assert_eq!(observed, made, "n = {n}: {report:#}");
        assert_eq!(
            predicted,
            if n >= 2 { n + 3 } else { 0 },
            "n = {n}: {report:#}"
        );
        let (observed, predicted) = comparison(&report, "total", "bytes");
        assert!(
            observed.as_u64() <= predicted.as_u64(),
            "n = {n}: {report:#}"
        );
    }
}

#[test]
fn split_at_one_char_is_bounded_by_the_strings_length_under_its_spec() {
    let classes = compile_fixture("jdk_specs");
    let dir = scratch_dir("jdk-specs-split");
    let certificate = dir.join("pieces.json");
    let spec = membound_tests::workspace_root().join("front/specs/split-one-char.yaml");
    let run = membound([
        "analyze".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        "Calls.pieces".as_ref(),
        "--spec".as_ref(),
        spec.as_os_str(),
        "-q".as_ref(),
        "-o".as_ref(),
        certificate.as_os_str(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("every separator is one char that is not a regex metacharacter"),
        "{}",
        run.stdout
    );
    // The line is ",ab,,c" n times (6n chars, 4n + 1 pieces, 2n of them non-empty).
    for n in SIZES {
        let report = validated(&certificate, "pieces", n);
        let n: u64 = n.parse().expect("a size");
        let (observed, predicted) = comparison(&report, "total", "objects");
        let (observed, predicted) = (observed.as_u64(), predicted.as_u64());
        assert!(observed <= predicted, "n = {n}: {report:#}");
        // The pieces alone: 2n strings and their bytes, at most half the line's length plus one.
        assert!(observed.expect("a count") >= 4 * n, "n = {n}: {report:#}");
        let (observed, predicted) = comparison(&report, "total", "bytes");
        assert!(
            observed.as_u64() <= predicted.as_u64(),
            "n = {n}: {report:#}"
        );
    }
    // Without that spec a split is ∞ at once: the bundled one cannot tell a one-char literal
    // from a regex.
    let (_, summary) = analyze(&classes, &dir, "pieces");
    assert!(
        summary.contains("how many strings it makes depends on the strings' lengths"),
        "{summary}"
    );
}

#[test]
fn join_of_an_array_counts_its_objects_and_leaves_the_text_unbounded() {
    let classes = compile_fixture("jdk_specs");
    let dir = scratch_dir("jdk-specs-join");
    let (certificate, summary) = analyze(&classes, &dir, "joined");
    assert!(
        summary.contains("java.lang.String.join(Ljava/lang/CharSequence;[Ljava/lang/CharSequence;)Ljava/lang/String;: cases(elements_length >= 0 -> 3; otherwise -> 0) objects, ∞ bytes"),
        "{summary}"
    );
    for n in SIZES {
        let report = validated(&certificate, "joined", n);
        // The words, the texts' array, the joined string and its bytes: exact.
        let (observed, predicted) = comparison(&report, "total", "objects");
        assert_eq!(
            (observed, predicted),
            (4.into(), 4.into()),
            "n = {n}: {report:#}"
        );
        assert_eq!(
            comparison(&report, "total", "bytes").1,
            "infty",
            "{report:#}"
        );
    }
}

#[test]
fn split_is_unbounded_at_once_with_its_reason() {
    let classes = compile_fixture("jdk_specs");
    let dir = scratch_dir("jdk-specs-unbounded");
    let method = "splitJoin";
    let spec = "java.lang.String.split(…): allocates at most 1 × java.lang.String[] of unbounded length, unboundedly many × java.lang.String";
    let reason = "∞: its spec states no bound on how many it makes per call: how many strings it makes depends on the strings' lengths";
    let (certificate, summary) = analyze(&classes, &dir, method);
    for expected in [spec, reason] {
        assert!(
            summary.contains(expected),
            "{method}: no `{expected}` in {summary}"
        );
    }
    for n in ["0", "3", "300"] {
        let report = validated(&certificate, method, n);
        assert_eq!(
            comparison(&report, "total", "objects").1,
            "infty",
            "{report:#}"
        );
    }
}

#[test]
fn contains_counts_what_its_arguments_to_string_makes() {
    let classes = compile_fixture("jdk_specs");
    let dir = scratch_dir("jdk-specs-contains");
    let (certificate, summary) = analyze(&classes, &dir, "contains");
    // The argument, created out of sight, is a String or a StringBuilder (the interface spec):
    // a builder's toString makes a string and its bytes, whose length no parameter bounds.
    assert!(
        summary
            .contains("java.lang.String.contains(Ljava/lang/CharSequence;)Z: 2 objects, ∞ bytes"),
        "{summary}"
    );
    for n in SIZES {
        let report = validated(&certificate, "contains", n);
        let n: u64 = n.parse().expect("a size");
        // The builder and its first array, then per round the builder's text as a string and
        // its bytes (contains on a String argument makes nothing); predicted: two appends'
        // amortized growth, and both calls of every round.
        assert_eq!(
            comparison(&report, "total", "objects"),
            ((2 + 2 * n).into(), (4 + 4 * n).into()),
            "n = {n}: {report:#}"
        );
    }
}

#[test]
fn a_builder_charges_each_appended_strings_chars() {
    let classes = compile_fixture("jdk_specs");
    let dir = scratch_dir("jdk-specs-builder");
    let (certificate, summary) = analyze(&classes, &dir, "builder");
    // append(String) charges a byte[4] per char of its argument, a length the call binds.
    assert!(
        summary.contains("java.lang.StringBuilder.append(Ljava/lang/String;)Ljava/lang/StringBuilder;: cases(str_length >= 1 -> str_length; otherwise -> 0) objects, cases(str_length >= 1 -> 24*str_length; otherwise -> 0) bytes"),
        "{summary}"
    );
    for n in SIZES {
        let report = validated(&certificate, "builder", n);
        let n: u64 = n.parse().expect("a size");
        // The builder, its first array, and a byte[4] per char appended (3 + 2n); the run
        // makes the builder, its first array and the arrays it grows to.
        assert_eq!(
            comparison(&report, "total", "objects"),
            ((2 + growths(16, 3, 2, n)).into(), (5 + 2 * n).into()),
            "n = {n}: {report:#}"
        );
        let (_, bytes) = comparison(&report, "total", "bytes");
        assert_eq!(bytes, 128 + 48 * n, "n = {n}: {report:#}");
    }
}

#[test]
fn string_buffers_and_builders_made_from_strings_are_bounded() {
    let classes = compile_fixture("jdk_specs");
    let dir = scratch_dir("jdk-specs-buffers");
    let (certificate, summary) = analyze(&classes, &dir, "buffers");
    // A builder made from a string: one array of its length plus 16, the length bound at the
    // call; contains on a buffer or a builder (both made here): what either toString makes.
    for expected in [
        "java.lang.StringBuilder.<init>(Ljava/lang/String;)V: cases(str_length >= 0 -> 1; otherwise -> 0) objects, cases(str_length >= 0 -> str_length + [32, 39, 38, 37, 36, 35, 34, 33]_str_length",
        "java.lang.StringBuffer.toString()Ljava/lang/String;: 3 objects, ∞ bytes",
        "java.lang.String.contains(Ljava/lang/CharSequence;)Z: 5 objects, ∞ bytes",
    ] {
        assert!(summary.contains(expected), "no `{expected}` in {summary}");
    }
    for n in SIZES {
        let report = validated(&certificate, "buffers", n);
        let n: u64 = n.parse().expect("a size");
        // The buffer and its byte[18]; per round a byte[4] for the appended char, a builder
        // and its byte[19], and what contains may make through either class's toString.
        let (_, predicted) = comparison(&report, "total", "objects");
        assert_eq!(predicted, 2 + 8 * n, "n = {n}: {report:#}");
        specs_hold(&report, n);
    }
}

/// How many arrays a builder of capacity `capacity` grows to (JDK 17: to the larger of twice
/// its capacity plus two and what it needs) when `first` chars and then `rounds` times `each`
/// are appended.
fn growths(capacity: u64, first: u64, each: u64, rounds: u64) -> u64 {
    let (mut capacity, mut length, mut grown) = (capacity, 0, 0);
    for appended in std::iter::once(first).chain((0..rounds).map(|_| each)) {
        length += appended;
        if length > capacity {
            capacity = length.max(2 * capacity + 2);
            grown += 1;
        }
    }
    grown
}

#[test]
fn float_texts_are_bounded_by_what_floating_decimal_can_make() {
    let classes = compile_fixture("jdk_specs");
    let dir = scratch_dir("jdk-specs-float-texts");
    let (certificate, summary) = analyze(&classes, &dir, "floatTexts");
    // Each way to make a double's or a float's text charges the String and its byte[26], the
    // thread's buffer (made once, charged every time) and dtoa's big integers.
    assert!(
        summary.contains("java.lang.Double.toString(D)Ljava/lang/String;: 82 objects, 8504 bytes"),
        "{summary}"
    );
    assert!(
        summary.contains(
            "java.lang.StringBuilder.append(D)Ljava/lang/StringBuilder;: 106 objects, 9056 bytes"
        ),
        "{summary}"
    );
    // Per round: four texts, two appends and the concatenation of a double and a float (its
    // String and byte[], and two texts); the array of extremes and the builder with its array.
    let objects = |n: u64| 3 + n * (4 * 82 + 2 * 106 + (2 + 2 * 82));
    // The runs cycle through NaN, -0.0, Double.MIN_VALUE, 1e-300, 1.2345678901234567E300,
    // Double.MAX_VALUE and values whose digits take the big-integer path: never above.
    for n in SIZES {
        let report = validated(&certificate, "floatTexts", n);
        let n: u64 = n.parse().expect("a size");
        let (_, predicted) = comparison(&report, "total", "objects");
        assert_eq!(predicted, objects(n), "n = {n}: {report:#}");
        // (NaN's and the infinities' texts are constants: those rounds make less.)
        specs_hold(&report, n);
    }
}

#[test]
fn sorting_primitive_arrays_is_bounded_by_dual_pivot_quicksorts_buffers() {
    let classes = compile_fixture("jdk_specs");
    let dir = scratch_dir("jdk-specs-sorts");
    let (certificate, summary) = analyze(&classes, &dir, "sorts");
    // Nothing below 44 elements (an insertion sort); from 44 on, the run arrays of at most
    // 1 + a/64 tries and the merge buffers.
    assert!(
        summary.contains("java.util.Arrays.sort([I)V: cases(a_length >= 44 ->"),
        "{summary}"
    );
    for n in ["0", "43", "44", "200", "5000"] {
        let report = validated(&certificate, "sorts", n);
        let size: u64 = n.parse().expect("a size");
        let (observed, predicted) = comparison(&report, "total", "objects");
        if size < 44 {
            // The three arrays, exactly.
            assert_eq!(
                (observed, predicted),
                (3.into(), 3.into()),
                "n = {n}: {report:#}"
            );
        }
        specs_hold(&report, n);
        if size > 4096 {
            // Two ascending halves are merged into a buffer of the array's length.
            let (observed, _) = comparison(&report, "under library specs", "bytes");
            assert!(observed.as_u64().expect("bytes") >= 4 * size, "{report:#}");
        }
    }
}

#[test]
fn format_is_unbounded_at_once_with_its_reason() {
    let classes = compile_fixture("jdk_specs");
    let dir = scratch_dir("jdk-specs-format");
    // String.format, and PrintStream.printf and format, which run the same Formatter, with
    // literal formats: sites of their own (tests/tests/string_format.rs), ∞ here for the
    // specifiers they cannot bound (a format that is no literal is its spec's ∞ there).
    for (method, reasons) in [
        (
            "formatted",
            &["specifier %,5d: the flags , and # of %d are not analyzed"][..],
        ),
        (
            "printed",
            &[
                "specifier %,d: the flags , and # of %d are not analyzed",
                "specifier %s: a String written to a stream goes out in pieces",
            ],
        ),
    ] {
        let (certificate, summary) = analyze(&classes, &dir, method);
        for reason in reasons {
            assert!(summary.contains(reason), "no {reason} in {summary}");
        }
        let report = validated(&certificate, method, "7");
        assert_eq!(
            comparison(&report, "total", "objects").1,
            "infty",
            "{report:#}"
        );
    }
}

#[test]
fn sorting_objects_is_bounded_by_tim_sorts_buffers() {
    let classes = compile_fixture("jdk_specs");
    let dir = scratch_dir("jdk-specs-object-sorts");
    let (certificate, summary) = analyze(&classes, &dir, "objectSorts");
    // Strings compare without allocating (Comparable.compareTo covers String) and the
    // program's comparator is followed from its code: both sorts are finite.
    for method in [
        "java.util.Arrays.sort([Ljava/lang/Object;)V: cases(a_length >= 32 ->",
        "java.util.Arrays.sort([Ljava/lang/Object;Ljava/util/Comparator;)V: cases(a_length >= 32 ->",
    ] {
        assert!(summary.contains(method), "no `{method}` in {summary}");
    }
    for n in ["0", "31", "32", "600", "3000"] {
        let report = validated(&certificate, "objectSorts", n);
        let size: u64 = n.parse().expect("a size");
        let (observed, predicted) = comparison(&report, "total", "objects");
        if size < 32 {
            // The words and their array, exactly: a binary insertion sort makes nothing.
            assert_eq!(
                (observed, predicted),
                (2.into(), 2.into()),
                "n = {n}: {report:#}"
            );
        }
        specs_hold(&report, n);
    }
}

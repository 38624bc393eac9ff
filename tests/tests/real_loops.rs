//! Loop shapes of real code (fixture `real_loops`, issue 20): accumulators the loop's count does
//! not depend on, early exits and disequality guards. Oracles: the Java loops run by hand here
//! (the count of `new` per parameter values, compared with `eval` on a grid), and real runs under
//! the agent (`validate`: every prediction, per site and in total, never below the run, and equal
//! to it where the count is exact).

use std::path::{Path, PathBuf};

use membound_tests::{
    analyze_into, compile_fixture, eval_method, fixture_output, scratch_dir, total_objects,
    validate_json, validated_unbroken,
};
use serde_json::Value;

/// The certificate of `realloops.<class>.<method>` in the `count` model (objects count 1, array
/// cells 1 byte each).
fn certificate(class: &str, method: &str) -> PathBuf {
    let path = scratch_dir(&format!("real-loops-{class}-{method}")).join("certificate.json");
    analyze_into(
        &compile_fixture("real_loops"),
        &format!("realloops.{class}.{method}"),
        "count",
        &path,
    );
    path
}

/// memAlloc `(objects, bytes)` of `realloops.<class>.<method>` at `params` (`n=3,m=4`).
fn mem_alloc(certificate: &Path, class: &str, method: &str, params: &str) -> (Value, Value) {
    let method = format!("realloops.{class}.{method}");
    let alloc = eval_method(certificate, &method, params)["mem_alloc"].clone();
    (alloc["objects"].clone(), alloc["bytes"].clone())
}

/// The analyzed method's objects observed and predicted by `validate` of a run of
/// `realloops.<class> <args>` (its `main` runs every method of the class with these arguments):
/// exit 0 and nothing broken.
fn validated(certificate: &Path, class: &str, args: &[&str]) -> (Value, Value) {
    let json = validated_unbroken(certificate, &format!("realloops.{class}"), args);
    total_objects(json["comparisons"].as_array().expect("comparisons"))
}

/// The count of `new` a fixture method runs at two parameter values, by running its loops here.
type Oracle = fn(i64, i64) -> i64;

/// Every pair of `range` × `range`.
fn grid(range: std::ops::RangeInclusive<i64>) -> impl Iterator<Item = (i64, i64)> {
    range
        .clone()
        .flat_map(move |a| range.clone().map(move |b| (a, b)))
}

/// `sink += row.length` with rows of n cells in an n × m nest (the shape: ∞ while the
/// accumulator was kept): n·m rows, n²·m cells.
#[test]
fn an_accumulator_of_array_lengths_leaves_the_nest_exact() {
    let cert = certificate("Accumulators", "rows");
    for (n, m) in grid(-2..=7) {
        let (objects, bytes) = mem_alloc(&cert, "Accumulators", "rows", &format!("n={n},m={m}"));
        let rows = if n > 0 && m > 0 { n * m } else { 0 };
        assert_eq!(
            (objects, bytes),
            (rows.into(), (rows * n).into()),
            "n={n}, m={m}"
        );
    }
    assert_eq!(
        validated(&cert, "Accumulators", &["9", "4"]),
        (36.into(), 36.into())
    );
}

/// `Accumulators.lengths`: the arrays `new int[j + m]` of the triangle `0 <= j < i < n` and their
/// cells, up to the first negative length (which throws).
fn triangle_of_rows(n: i64, m: i64) -> (i64, i64) {
    let (mut arrays, mut cells) = (0, 0);
    for i in 0..n {
        for j in 0..i {
            if j + m < 0 {
                return (arrays, cells);
            }
            arrays += 1;
            cells += j + m;
        }
    }
    (arrays, cells)
}

/// `total += row.length` over a triangle of rows of growing lengths: the rows and their cells
/// stay the exact triangle.
#[test]
fn an_accumulator_of_growing_lengths_leaves_the_triangle_exact() {
    let cert = certificate("Accumulators", "lengths");
    for (n, m) in grid(-2..=7) {
        let (objects, bytes) = mem_alloc(&cert, "Accumulators", "lengths", &format!("n={n},m={m}"));
        let (arrays, cells) = triangle_of_rows(n, m);
        let at = format!("n={n}, m={m}");
        if m >= 0 {
            assert_eq!((objects, bytes), (arrays.into(), cells.into()), "{at}");
        } else {
            let objects = objects.as_i64().expect("a finite count");
            let bytes = bytes.as_i64().expect("a finite count");
            assert!(objects >= arrays && bytes >= cells, "{at}");
        }
    }
    assert_eq!(
        validated(&cert, "Accumulators", &["9", "4"]),
        (36.into(), 36.into())
    );
}

/// `total += i * i` (a sum of squares) and `product *= 2`, `sum += i + j` (a product that
/// doubles, a quadratic sum) are dropped from the invariant: the loops count exactly.
#[test]
fn accumulators_growing_faster_than_linearly_leave_the_count_exact() {
    let squares = certificate("Accumulators", "squares");
    for n in -2..=9 {
        let (objects, _) = mem_alloc(&squares, "Accumulators", "squares", &format!("n={n}"));
        assert_eq!(objects, n.max(0), "n={n}");
    }
    assert_eq!(
        validated(&squares, "Accumulators", &["9", "4"]),
        (9.into(), 9.into())
    );
    let products = certificate("Accumulators", "products");
    for (n, m) in grid(-2..=6) {
        let (objects, _) = mem_alloc(
            &products,
            "Accumulators",
            "products",
            &format!("n={n},m={m}"),
        );
        let expected = if n > 0 && m > 0 { n * m } else { 0 };
        assert_eq!(objects, expected, "n={n}, m={m}");
    }
    assert_eq!(
        validated(&products, "Accumulators", &["9", "4"]),
        (36.into(), 36.into())
    );
}

/// `Exits.untilStop`: `for (i = 0; i < n; i++) { if (i == stop) break; new Object(); }`.
fn until_stop(n: i64, stop: i64) -> i64 {
    (0..n).take_while(|&i| i != stop).count() as i64
}

/// `Exits.downUntilStop`: `for (i = n; i > 0; i--) { if (i == stop) break; new Object(); }`.
fn down_until_stop(n: i64, stop: i64) -> i64 {
    (1..=n).rev().take_while(|&i| i != stop).count() as i64
}

/// `if (i == stop) break;` bounds the loop by min(n, stop) when `0 <= stop`, not by n or
/// n - 1, however the comparison is written; counting down, by n - stop.
#[test]
fn a_break_on_equality_stops_at_the_smaller_bound() {
    let shapes: [(&str, Oracle); 3] = [
        ("untilStop", until_stop),
        ("untilStopWrittenFirst", until_stop),
        ("downUntilStop", down_until_stop),
    ];
    for (method, expected) in shapes {
        let cert = certificate("Exits", method);
        for (n, stop) in grid(-2..=8) {
            let params = format!("n={n},stop={stop}");
            let (objects, _) = mem_alloc(&cert, "Exits", method, &params);
            assert_eq!(objects, expected(n, stop), "{method}: {params}");
        }
        for (n, stop) in [(9, 4), (5, 8)] {
            let observed = expected(n, stop);
            let args = [n.to_string(), stop.to_string()];
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let run = validated(&cert, "Exits", &args);
            assert_eq!(
                run,
                (observed.into(), observed.into()),
                "{method}: {args:?}"
            );
        }
    }
}

/// `i != n` counting up from 0 and `i != 0` counting down from n (both after `if (n < 0)
/// return;`) are bounded by n, where one convex invariant would lose the bound.
#[test]
fn disequality_guards_count_up_and_down_to_the_bound() {
    for method in ["upToNotEqual", "downToNotEqual"] {
        let cert = certificate("Exits", method);
        for n in -3..=9 {
            let (objects, _) = mem_alloc(&cert, "Exits", method, &format!("n={n}"));
            assert_eq!(objects, n.max(0), "{method}, n={n}");
        }
        assert_eq!(
            validated(&cert, "Exits", &["7", "3"]),
            (7.into(), 7.into()),
            "{method}"
        );
    }
}

/// `if (i != k) new Object()` below n: n - 1 objects when `0 <= k < n`, n otherwise.
#[test]
fn a_disequality_guard_skips_exactly_one_iteration() {
    let cert = certificate("Exits", "skipOne");
    for (n, k) in grid(-2..=8) {
        let (objects, _) = mem_alloc(&cert, "Exits", "skipOne", &format!("n={n},k={k}"));
        let expected = (0..n).filter(|&i| i != k).count() as i64;
        assert_eq!(objects, expected, "n={n}, k={k}");
    }
    assert_eq!(validated(&cert, "Exits", &["7", "3"]), (6.into(), 6.into()));
    assert_eq!(validated(&cert, "Exits", &["7", "9"]), (7.into(), 7.into()));
}

/// The count of `new` per `n` of a `Division` method, by running its loops here (Rust's `/` and
/// `%` truncate toward zero as Java's do), as (objects, array cells).
fn division_oracle(method: &str, n: i64) -> (i64, i64) {
    let loop_count = |count: i64| (count.max(0), 0);
    match method {
        "halfBound" => loop_count(n / 2),
        "remainderBound" => loop_count(n % 7),
        "truncatedTowardZero" => loop_count(-(n / 3)),
        "everyThirdFromOne" => ((0..n).filter(|i| i % 3 == 1).count() as i64, 0),
        "thirdGuard" => ((0..n).filter(|i| i / 3 == 2).count() as i64, 0),
        "halves" => {
            let evens = (0..n).step_by(2);
            (evens.clone().count() as i64, evens.map(|i| i / 2).sum())
        }
        "byNegative" => loop_count(n / -2 - n),
        other => panic!("no oracle for {other}"),
    }
}

/// Division and remainder by constants in loop bounds, guards and array lengths, truncated
/// toward zero as Java does: `i < n / 2`, `half = n / 3` before the loop (negative n too),
/// `i % 3 == 1`, `i / 3 == 2`, `new int[i / 2]`, a negative divisor: exact at every n; and
/// `new Object[numvert / 4]` exact wherever it does not throw.
#[test]
fn division_by_constants_counts_exactly() {
    let exact = [
        "halfBound",
        "truncatedTowardZero",
        "everyThirdFromOne",
        "thirdGuard",
        "halves",
        "byNegative",
    ];
    for method in exact {
        let cert = certificate("Division", method);
        for n in -9..=13 {
            let (objects, bytes) = mem_alloc(&cert, "Division", method, &format!("n={n}"));
            let (expected_objects, expected_cells) = division_oracle(method, n);
            assert_eq!(objects, expected_objects, "{method}: n={n}");
            if method == "halves" {
                assert_eq!(bytes, expected_cells, "{method}: n={n}");
            }
        }
        let observed = division_oracle(method, 11).0;
        let run = validated(&cert, "Division", &["11"]);
        assert_eq!(run, (observed.into(), observed.into()), "{method}");
    }
    let quarter = certificate("Division", "quarterArray");
    for numvert in -3..=17 {
        let (_, cells) = mem_alloc(
            &quarter,
            "Division",
            "quarterArray",
            &format!("numvert={numvert}"),
        );
        assert_eq!(cells, numvert / 4, "numvert={numvert}");
    }
    assert_eq!(
        validated(&quarter, "Division", &["11"]),
        (1.into(), 1.into())
    );
}

/// `i < n % 7`: never below n mod 7 (its quotient is projected out over the rationals before
/// counting, which keeps only `0 <= n % 7 <= 6`).
#[test]
fn a_remainder_bound_is_never_below_the_run() {
    let cert = certificate("Division", "remainderBound");
    for n in -9..=20 {
        let (objects, _) = mem_alloc(&cert, "Division", "remainderBound", &format!("n={n}"));
        let objects = objects.as_i64().expect("a finite count");
        assert!(objects >= division_oracle("remainderBound", n).0, "n={n}");
        assert!(objects <= 6, "n={n}");
    }
    let (code, json) = validate_json(&cert, "realloops.Division", &["11"]);
    assert_eq!((code, json["broken"].clone()), (0, 0.into()), "{json:#}");
}

/// A counter in a field of an object the method created and keeps to itself is a view like a
/// local: `for (c.j = 0; c.j < n; c.j++)` runs n times, two such counters make a triangle
/// (plus the cursor itself in each count).
#[test]
fn a_counter_in_a_field_of_a_fresh_object_counts_exactly() {
    fn counted(n: i64) -> i64 {
        n.max(0)
    }
    fn triangle(n: i64) -> i64 {
        (0..n).sum()
    }
    for (method, loop_objects) in [
        ("counted", counted as fn(i64) -> i64),
        ("triangle", triangle),
    ] {
        let cert = certificate("FieldCounters", method);
        for n in -3..=10 {
            let (objects, _) = mem_alloc(&cert, "FieldCounters", method, &format!("n={n}"));
            assert_eq!(objects, 1 + loop_objects(n), "{method}: n={n}");
        }
        let observed = 1 + loop_objects(8);
        let run = validated(&cert, "FieldCounters", &["8"]);
        assert_eq!(run, (observed.into(), observed.into()), "{method}");
    }
}

/// A cursor handed to a callee that moves its counter is not the method's alone, and one whose
/// counter starts where the constructor put it starts unknown: both loops stay unbounded, and
/// the runs are never above the bound.
#[test]
fn a_field_counter_others_write_is_not_a_view() {
    for method in ["handedOut", "fromConstructor"] {
        let cert = certificate("FieldCounters", method);
        let (objects, _) = mem_alloc(&cert, "FieldCounters", method, "n=8");
        assert_eq!(objects, "infty", "{method}");
        let (code, json) = validate_json(&cert, "realloops.FieldCounters", &["8"]);
        assert_eq!((code, json["broken"].clone()), (0, 0.into()), "{json:#}");
    }
}

/// A loop the analysis cannot bound says what its exit waits on: the reference a list walk
/// follows, the local a data-dependent step moves, the field a constructor set.
#[test]
fn an_unbounded_loop_names_what_it_waits_on() {
    let reasons = [
        (
            "Unbounded.walk",
            "exits only when reference p == null, where the loop sets p = field next of p",
        ),
        (
            "Unbounded.jumps",
            "exits only when i >= n, where the loop sets i = (i + an element of steps)",
        ),
        (
            "FieldCounters.fromConstructor",
            "exits only when field from of c >= n",
        ),
    ];
    for (method, reason) in reasons {
        let text = fixture_output("analyze", "real_loops", &format!("realloops.{method}"), &[]);
        let unbounded = "its executions are not bounded by the parameters: the loop at ";
        assert!(text.contains(unbounded), "{method}: {text}");
        assert!(text.contains(reason), "{method}: {text}");
    }
    let cert = certificate("Unbounded", "walk");
    let (code, json) = validate_json(&cert, "realloops.Unbounded", &["6"]);
    assert_eq!((code, json["broken"].clone()), (0, 0.into()), "{json:#}");
}

/// Counters of the narrow types keep their value where it stays in the type's range: the
/// alphabet's 26 letters (per copy), a short counter below a short bound (n objects), a byte
/// stepping by 10 below 100 and n; a byte counter below an int bound may wrap around (past 127
/// the run never ends), so its loop is unbounded and says so.
#[test]
fn narrow_counters_count_exactly_while_they_cannot_wrap() {
    let counts: [(&str, Oracle); 3] = [
        ("alphabet", |copies, _| 26 * copies.max(0)),
        ("upToShort", |n, _| n.max(0)),
        ("byteSteps", |n, _| {
            (0..100).step_by(10).filter(|&b| b < n).count() as i64
        }),
    ];
    for (method, expected) in counts {
        let cert = certificate("Narrow", method);
        let param = if method == "alphabet" { "copies" } else { "n" };
        for n in (-3..=12).chain([99, 100, 101, 32767]) {
            let (objects, _) = mem_alloc(&cert, "Narrow", method, &format!("{param}={n}"));
            assert_eq!(objects, expected(n, 0), "{method}: n={n}");
        }
        let observed = expected(9, 0);
        let run = validated(&cert, "Narrow", &["9"]);
        assert_eq!(run, (observed.into(), observed.into()), "{method}");
    }
    let cert = certificate("Narrow", "byteUpToInt");
    let (objects, _) = mem_alloc(&cert, "Narrow", "byteUpToInt", "n=5");
    assert_eq!(objects, "infty");
    let (code, json) = validate_json(&cert, "realloops.Narrow", &["9"]);
    assert_eq!((code, json["broken"].clone()), (0, 0.into()), "{json:#}");
    let text = fixture_output("analyze", "real_loops", "realloops.Narrow.byteUpToInt", &[]);
    let reason = "exits only when b >= n, where the loop sets b = (byte) (b + 1), which wraps \
                  around outside -128..127";
    assert!(text.contains(reason), "{text}");
}

/// A boolean parameter is 0 or 1 (the JVM's encoding): its bound has no piece for other values,
/// and a run's flag binds it.
#[test]
fn a_boolean_parameter_is_zero_or_one() {
    let cert = certificate("Narrow", "flagged");
    let text = std::fs::read_to_string(&cert).expect("the certificate");
    assert!(text.contains("on = 1"), "{text}");
    assert!(!text.contains("on + 1 <= 0"), "{text}");
    for (on, objects) in [(0, 0), (1, 1)] {
        let (counted, _) = mem_alloc(&cert, "Narrow", "flagged", &format!("on={on}"));
        assert_eq!(counted, objects, "on={on}");
    }
    assert_eq!(validated(&cert, "Narrow", &["4"]), (1.into(), 1.into()));
}

/// A counter's value after its loop is `max(init, n)`: the loop ran (it ends at n) or it did not
/// (it keeps its first value), two cases joins keep apart, so an array sized by it after the loop
/// is exact: max(0, n) cells after counting from 0, max(1, n) from 1 (an array's "bytes" in the
/// count model are its cells).
#[test]
fn a_counter_after_its_loop_is_the_larger_of_its_start_and_bound() {
    let shapes: [(&str, Oracle); 2] = [
        ("countThenArray", |n, _| n.max(0)),
        ("fromOne", |n, _| n.max(1)),
    ];
    for (method, cells) in shapes {
        let cert = certificate("ExitValues", method);
        let loop_objects = |n: i64| {
            if method == "countThenArray" {
                n.max(0)
            } else {
                0
            }
        };
        for n in -4..=9 {
            let (objects, bytes) = mem_alloc(&cert, "ExitValues", method, &format!("n={n}"));
            assert_eq!(
                (objects, bytes),
                (
                    (loop_objects(n) + 1).into(),
                    (loop_objects(n) + cells(n, 0)).into()
                ),
                "{method}: n={n}"
            );
        }
        for n in [-2, 0, 7] {
            let observed = loop_objects(n) + 1;
            let run = validated(&cert, "ExitValues", &[&n.to_string()]);
            assert_eq!(run, (observed.into(), observed.into()), "{method}: n={n}");
        }
    }
}

/// `Math.min`, `Math.max` and `Math.abs` (fixture `Extrema`): the result is one of the arguments
/// (or its negation), picked by a comparison, so a loop bounded by it, or a callee passed it,
/// counts exactly in the parameters, kept in a local or passed on; joins keep the two choices
/// apart (a hull would leave `max(n, 4)` unbounded above). Exact on a grid of parameter values
/// against the loops run here, and validated against runs (equal to what they allocate).
#[test]
fn min_max_and_abs_bound_loops_and_callees_exactly() {
    // Method, the objects it makes at (n, m), whether it makes the array, whether it reads m.
    let shapes: [(&str, Oracle, u8, bool); 7] = [
        ("capped", |n, _| n.clamp(0, 10), 0, false),
        ("cappedInCallee", |n, _| n.clamp(0, 10), 0, false),
        ("atLeastFour", |n, _| n.max(4), 0, false),
        ("paddedArray", |_, _| 1, 1, false),
        ("magnitude", |n, _| n.abs(), 0, false),
        ("smallerOfTwo", |n, m| n.min(m).max(0), 0, true),
        ("largerOfTwo", |n, m| n.max(m).max(0), 0, true),
    ];
    for (method, objects, is_array, two) in shapes {
        let cert = certificate("Extrema", method);
        for (n, m) in grid(-6..=12) {
            // In the count model an object weighs 1 and an array its cells.
            let bytes = match is_array {
                1 => n.max(4),
                _ => objects(n, m),
            };
            let expected = (objects(n, m).into(), bytes.into());
            let params = if two {
                format!("n={n},m={m}")
            } else {
                format!("n={n}")
            };
            assert_eq!(
                mem_alloc(&cert, "Extrema", method, &params),
                expected,
                "{method}: {params}"
            );
        }
        for args in [["7", "3"], ["-5", "12"], ["14", "-2"]] {
            let (observed, predicted) = validated(&cert, "Extrema", &args);
            assert_eq!(observed, predicted, "{method} {args:?}");
        }
    }
}

//! Recursion shapes (fixture `recursion`, issue 17): each recursive method's bound is its cost
//! relation solved to a closed form. Oracles: the relation evaluated by brute force here, SymPy's
//! `rsolve` on the same relation (in the oracle environment), and real runs under the agent
//! (`validate`: every prediction, per site and in total, never below the run, and equal to it
//! where the count is exact).

use std::path::{Path, PathBuf};

use membound_tests::{
    analyze_into, certificate_entry, compile_fixture, compile_java_tree, eval_method, oracle_run,
    scratch_dir, total_objects, validate_json, validated_unbroken, workspace_root,
};
use serde_json::Value;

/// The certificate of `recursion.Shapes.<method>` in the `count` model (objects count 1).
fn certificate(method: &str) -> PathBuf {
    let path = scratch_dir("recursion").join(format!("{method}.json"));
    analyze_into(
        &compile_fixture("recursion"),
        &format!("recursion.Shapes.{method}"),
        "count",
        &path,
    );
    path
}

fn objects_at(certificate: &Path, method: &str, point: &str) -> Value {
    eval_method(certificate, &format!("recursion.Shapes.{method}"), point)["mem_alloc"]["objects"]
        .clone()
}

/// `validate` of a run of `Shapes <args>` ([`validated_unbroken`]): the object totals (its
/// certificates count objects only).
fn run(certificate: &Path, args: &[&str]) -> (Value, Value) {
    let json = validated_unbroken(certificate, "recursion.Shapes", args);
    total_objects(json["comparisons"].as_array().expect("comparisons"))
}

/// SymPy's solution of `relation` (in `c(n)`, with `initial` values) at `points`.
fn rsolve(relation: &str, initial: &str, points: &[i64]) -> Vec<i64> {
    let script = r#"
import sys
from sympy import Function, expand, rsolve, simplify, symbols, sympify
n = symbols("n", integer=True)
c = Function("c")
relation, initial, points = sys.argv[1], sys.argv[2], sys.argv[3]
solution = rsolve(sympify(relation, locals={"c": c, "n": n}), c(n),
                  eval(initial, {"c": c}))
print(" ".join(str(simplify(expand(solution.subs(n, int(p))))) for p in points.split(",")))
"#;
    let points_text: Vec<String> = points.iter().map(i64::to_string).collect();
    let out = oracle_run(
        script,
        &[
            relation.as_ref(),
            initial.as_ref(),
            points_text.join(",").as_ref(),
        ],
        "",
    );
    out.split_whitespace()
        .map(|v| v.parse().expect("an integer"))
        .collect()
}

#[test]
fn a_binary_tree_by_depth_has_two_to_the_depth_minus_one_nodes() {
    let cert = certificate("tree");
    let expected = |d: i64| if d >= 1 { (1 << d) - 1 } else { 0 };
    let solved = rsolve("c(n) - 2*c(n - 1) - 1", "{c(0): 0}", &[1, 5, 10]);
    assert_eq!(solved, [expected(1), expected(5), expected(10)]);
    for d in -1..=12 {
        assert_eq!(
            objects_at(&cert, "tree", &format!("d={d}")),
            expected(d),
            "d={d}"
        );
    }
    let (observed, predicted) = run(&cert, &["tree", "6"]);
    assert_eq!((observed, predicted), (63.into(), 63.into()));
}

#[test]
fn a_list_built_by_recursion_has_n_cells() {
    let cert = certificate("list");
    assert_eq!(rsolve("c(n) - c(n - 1) - 1", "{c(0): 0}", &[7]), [7]);
    for n in -1..=9 {
        assert_eq!(
            objects_at(&cert, "list", &format!("n={n}")),
            n.max(0),
            "n={n}"
        );
    }
    let (observed, predicted) = run(&cert, &["list", "9"]);
    assert_eq!((observed, predicted), (9.into(), 9.into()));
}

#[test]
fn mutual_recursion_alternates_its_allocations() {
    let cert = certificate("ping");
    for n in -1..=9 {
        assert_eq!(
            objects_at(&cert, "ping", &format!("n={n}")),
            n.max(0),
            "n={n}"
        );
    }
    let (observed, predicted) = run(&cert, &["ping", "7"]);
    assert_eq!((observed, predicted), (7.into(), 7.into()));
}

#[test]
fn a_loop_in_each_activation_sums_per_level() {
    let cert = certificate("triangle");
    let expected = |n: i64| if n >= 1 { n * (n + 1) / 2 } else { 0 };
    assert_eq!(
        rsolve("c(n) - c(n - 1) - n", "{c(0): 0}", &[4, 9]),
        [expected(4), expected(9)]
    );
    for n in -1..=9 {
        assert_eq!(
            objects_at(&cert, "triangle", &format!("n={n}")),
            expected(n),
            "n={n}"
        );
    }
    let (observed, predicted) = run(&cert, &["triangle", "6"]);
    assert_eq!((observed, predicted), (21.into(), 21.into()));
    // Each activation's cells die with it, and the activations below are alive meanwhile:
    // memRq is the whole triangle.
    let rq = eval_method(&cert, "recursion.Shapes.triangle", "n=6")["mem_rq"]["objects"].clone();
    assert_eq!(rq, 21);
}

/// What the recursion of `Shapes.halves` allocates: one node per activation with size >= 1.
fn halves_nodes(size: i64) -> i64 {
    if size < 1 {
        0
    } else {
        1 + 2 * halves_nodes(size / 2)
    }
}

#[test]
fn a_tree_built_by_halving_its_size_has_two_to_the_depth_of_halvings_minus_one_nodes() {
    let cert = certificate("halves");
    for size in -2i64..=40 {
        let closed = if size >= 1 {
            (1 << (63 - size.leading_zeros() + 1)) - 1
        } else {
            0
        };
        assert_eq!(closed, halves_nodes(size), "size={size}");
        assert_eq!(
            objects_at(&cert, "halves", &format!("size={size}")),
            closed,
            "size={size}"
        );
    }
    let (observed, predicted) = run(&cert, &["halves", "11"]);
    assert_eq!((observed, predicted), (15.into(), 15.into()));
}

#[test]
fn a_balanced_tree_over_an_interval_split_at_its_middle_has_one_node_per_element() {
    let cert = certificate("balanced");
    for (lo, hi) in [(0, -1), (0, 0), (0, 6), (-5, 4), (-7, -3), (3, 1), (-1, 0)] {
        assert_eq!(
            objects_at(&cert, "balanced", &format!("lo={lo},hi={hi}")),
            (hi - lo + 1).max(0),
            "lo={lo} hi={hi}"
        );
    }
    let (observed, predicted) = run(&cert, &["balanced", "13"]);
    assert_eq!((observed, predicted), (13.into(), 13.into()));
}

#[test]
fn a_half_open_interval_splits_from_a_nonnegative_start_and_is_unbounded_below_it() {
    let cert = certificate("halfOpen");
    for (lo, hi) in [(0, 0), (0, 1), (0, 7), (3, 10), (5, 2), (0, 64)] {
        assert_eq!(
            objects_at(&cert, "halfOpen", &format!("lo={lo},hi={hi}")),
            (hi - lo).max(0),
            "lo={lo} hi={hi}"
        );
    }
    // halfOpen(-5, 6) never returns: (lo + hi) / 2 rounds towards zero.
    assert_eq!(objects_at(&cert, "halfOpen", "lo=-5,hi=6"), "infty");
    let entry = certificate_entry(&cert, "recursion.Shapes.halfOpen");
    let reasons = entry.to_string();
    assert!(
        reasons.contains("is bounded only where lo >= 0, which its calls keep"),
        "{reasons}"
    );
    let (observed, predicted) = run(&cert, &["halfOpen", "12"]);
    assert_eq!((observed, predicted), (12.into(), 12.into()));
}

/// The activations of `Shapes.pieces(lo, lo + n)` for `n >= 2`: one node each.
fn pieces_calls(n: i64) -> i64 {
    if n == 2 || n == 3 {
        1
    } else {
        1 + pieces_calls(n / 2) + pieces_calls(n - n / 2)
    }
}

#[test]
fn an_interval_split_into_pieces_of_two_or_three_is_bounded_where_its_calls_keep_two_points() {
    let cert = certificate("pieces");
    // Not a quasi-polynomial (it follows n's binary digits): never below, equal at n = 2^k.
    for n in 2..=300 {
        let bound = objects_at(&cert, "pieces", &format!("lo=0,hi={n}"));
        let bound = bound.as_i64().unwrap_or_else(|| panic!("n={n}: {bound}"));
        assert!(
            bound >= pieces_calls(n),
            "n={n}: {bound} < {}",
            pieces_calls(n)
        );
        assert!(bound <= 2 * n, "n={n}: {bound}");
    }
    for n in [2, 3, 4, 8, 16, 64, 256] {
        assert_eq!(
            objects_at(&cert, "pieces", &format!("lo=5,hi={}", 5 + n)),
            pieces_calls(n),
            "n={n}"
        );
    }
    // Below two points it splits [lo, lo) for ever.
    for n in [-3, 0, 1] {
        assert_eq!(
            objects_at(&cert, "pieces", &format!("lo=0,hi={n}")),
            "infty"
        );
    }
    let entry = certificate_entry(&cert, "recursion.Shapes.pieces");
    let reasons = entry.to_string();
    assert!(
        reasons.contains("is bounded only where hi - lo - 2 >= 0, which its calls keep"),
        "{reasons}"
    );
    for n in [7, 16] {
        let (observed, predicted) = run(&cert, &["pieces", &n.to_string()]);
        assert_eq!(observed, pieces_calls(n), "n={n}");
        assert!(predicted.as_i64().unwrap() >= pieces_calls(n), "n={n}");
    }
}

#[test]
fn voronoi_delaunay_recursion_is_bounded_and_only_its_zip_loop_is_not() {
    let classes = compile_java_tree("jolden", &workspace_root().join("benchmarks-jolden/java"));
    let run = membound_tests::membound([
        "analyze".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        "voronoi.Voronoi.delaunay".as_ref(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The recursion splits [lo, hi) at lo + n/2 while n is not 2 or 3: bounded from n >= 2.
    assert!(
        run.stdout.contains(
            "recursion through voronoi.Voronoi.delaunay([Lvoronoi/Point;II)[Lvoronoi/Edge; is \
             bounded only where hi - lo - 2 >= 0, which its calls keep"
        ),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("no measure of the formals"),
        "{}",
        run.stdout
    );
    // The merge's zip loop stops on the points' geometry: its connect calls stay ∞.
    assert!(
        run.stdout.contains(
            "to voronoi.Voronoi.connect(Lvoronoi/Edge;Lvoronoi/Edge;)Lvoronoi/Edge;: it runs an \
             unbounded number of times"
        ),
        "{}",
        run.stdout
    );
}

/// The activations of `Shapes.fib(n)`: one cell each.
fn fib_calls(n: i64) -> i64 {
    if n < 2 {
        1
    } else {
        1 + fib_calls(n - 1) + fib_calls(n - 2)
    }
}

#[test]
fn fibonacci_is_bounded_by_a_power_of_two_and_its_stack_exactly() {
    let cert = certificate("fib");
    let solved = rsolve(
        "c(n) - c(n - 1) - c(n - 2) - 1",
        "{c(0): 1, c(1): 1}",
        &[2, 10, 20],
    );
    assert_eq!(solved, [fib_calls(2), fib_calls(10), fib_calls(20)]);
    for n in -1..=20 {
        let bound = objects_at(&cert, "fib", &format!("n={n}"));
        let bound = bound.as_i64().expect("a finite bound");
        assert!(bound >= fib_calls(n), "n={n}: {bound} < {}", fib_calls(n));
        // The measure n - 1 shrinks by at least one per call: 2^n - 1 activations at most.
        assert_eq!(bound, if n >= 2 { (1 << n) - 1 } else { 1 }, "n={n}");
    }
    // The two calls' halves of the bound, 2^(n - 1) each, read as one power.
    let entry = certificate_entry(&cert, "recursion.Shapes.fib");
    assert_eq!(
        entry["mem_alloc"]["objects"],
        "cases(n >= 2 -> 2^(n) + (-1); otherwise -> (1))"
    );
    // The cells die with their activation; n activations are on the stack at most.
    for n in [0, 1, 2, 9] {
        let rq = eval_method(&cert, "recursion.Shapes.fib", &format!("n={n}"))["mem_rq"]["objects"]
            .clone();
        assert_eq!(rq, n.max(1), "n={n}");
    }
    let (observed, predicted) = run(&cert, &["fib", "9"]);
    assert_eq!(observed, fib_calls(9));
    assert_eq!(predicted, (1 << 9) - 1);
}

/// What `Shapes.pairs(i, n)` allocates, by its cost relation.
fn pair_cells(i: i64, n: i64) -> i64 {
    if i >= n { 0 } else { 1 + pair_cells(i + 2, n) }
}

#[test]
fn a_measure_that_drops_by_two_counts_every_other_element() {
    let cert = certificate("pairs");
    // c(m) = c(m - 2) + 1 in m = n - i.
    let solved = rsolve("c(n) - c(n - 2) - 1", "{c(0): 0, c(1): 1}", &[2, 7, 10]);
    assert_eq!(
        solved,
        [pair_cells(0, 2), pair_cells(0, 7), pair_cells(0, 10)]
    );
    for i in -3..=4 {
        for n in -2..=9 {
            assert_eq!(
                objects_at(&cert, "pairs", &format!("i={i},n={n}")),
                pair_cells(i, n),
                "i={i} n={n}"
            );
        }
    }
    let (observed, predicted) = run(&cert, &["pairs", "9"]);
    assert_eq!((observed, predicted), (5.into(), 5.into()));
}

/// What `Shapes.trades(a, b)` allocates, by its cost relation.
fn trade_cells(a: i64, b: i64) -> i64 {
    if a <= 0 || b <= 0 {
        0
    } else {
        1 + trade_cells(a - 1, b + 1) + trade_cells(a + 1, b - 3)
    }
}

#[test]
fn a_measure_no_guard_names_is_synthesized_and_bounds_the_search() {
    // Neither a nor b shrinks on both calls: the measure comes from Farkas' lemma.
    let cert = certificate("trades");
    for a in -1..=5 {
        for b in -1..=6 {
            let bound = objects_at(&cert, "trades", &format!("a={a},b={b}"));
            let bound = bound
                .as_i64()
                .unwrap_or_else(|| panic!("a={a} b={b}: {bound}"));
            assert!(bound >= trade_cells(a, b), "a={a} b={b}: {bound}");
        }
    }
    let (code, json) = validate_json(&cert, "recursion.Shapes", &["trades", "3", "4"]);
    assert_eq!((code, json["broken"].clone()), (0, 0.into()), "{json:#}");
    let (observed, _) = total_objects(json["comparisons"].as_array().expect("list"));
    assert_eq!(observed, trade_cells(3, 4));
}

/// What `Shapes.twoPhase(a, b)` allocates, by its cost relation.
fn two_phase_cells(a: i64, b: i64) -> i64 {
    if a > 0 {
        1 + two_phase_cells(a - 1, b)
    } else if b > 0 {
        1 + two_phase_cells(0, b - 1)
    } else {
        0
    }
}

#[test]
fn two_arguments_descending_one_after_the_other_take_one_phase_each() {
    let cert = certificate("twoPhase");
    for a in -2..=6 {
        for b in -2..=6 {
            assert_eq!(
                objects_at(&cert, "twoPhase", &format!("a={a},b={b}")),
                two_phase_cells(a, b),
                "a={a} b={b}"
            );
        }
    }
    // All the activations are on the stack at once, each holding its cell: a + b, plus the
    // last activation's level (which allocates nothing).
    let rq =
        eval_method(&cert, "recursion.Shapes.twoPhase", "a=4,b=3")["mem_rq"]["objects"].clone();
    assert_eq!(rq, 8);
    let (code, json) = validate_json(&cert, "recursion.Shapes", &["twoPhase", "4", "3"]);
    assert_eq!((code, json["broken"].clone()), (0, 0.into()), "{json:#}");
    let (observed, predicted) = total_objects(json["comparisons"].as_array().expect("list"));
    assert_eq!((observed, predicted), (7.into(), 7.into()));
}

#[test]
fn a_four_ary_tree_with_leaf_and_inner_objects_counts_each_level() {
    let cert = certificate("villages");
    // Inner villages: a village, its patients and its children array; leaves: a village, its
    // patients and a leaf. (4^l - 1)/3 inner ones and 4^l leaves: 4^(l+1) - 1 objects.
    let solved = rsolve("c(n) - 4*c(n - 1) - 3", "{c(0): 3}", &[1, 4]);
    assert_eq!(solved, [15, 1023]);
    for level in 0..=6 {
        assert_eq!(
            objects_at(&cert, "villages", &format!("level={level}")),
            (1i64 << (2 * level + 2)) - 1,
            "level={level}"
        );
    }
    // `if (level == 0)` stops only from above: below it the recursion never ends.
    assert_eq!(objects_at(&cert, "villages", "level=-1"), "infty");
    let (observed, predicted) = run(&cert, &["villages", "3"]);
    assert_eq!((observed, predicted), (255.into(), 255.into()));
}

/// The text report of `Shapes.main`, which calls every shape with parsed numbers.
fn analyze_main() -> membound_tests::Run {
    let run = membound_tests::membound([
        "analyze".as_ref(),
        compile_fixture("recursion").as_os_str(),
        "--method".as_ref(),
        "recursion.Shapes.main".as_ref(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run
}

#[test]
fn the_call_tree_says_which_call_makes_a_finite_callee_unbounded() {
    let run = analyze_main();
    let tree_line = |callee: &str| {
        run.stdout
            .lines()
            .find(|line| line.starts_with(&format!("    recursion.Shapes.{callee}")))
            .unwrap_or_else(|| panic!("no call tree line for {callee}: {}", run.stdout))
    };
    // twoPhase(n, m) is finite in its own parameters, but main passes it a second parsed
    // number nothing bounds: its line says so, with the remedy.
    let two_phase = tree_line("twoPhase(II)V");
    let (_, through) = two_phase
        .split_once("; ∞ through this call: the call at offset ")
        .unwrap_or_else(|| panic!("{two_phase}"));
    assert!(
        through.contains(
            " of recursion.Shapes.main([Ljava/lang/String;)V to recursion.Shapes.twoPhase(II)V: its bound depends on"
        ),
        "{two_phase}"
    );
    assert!(
        two_phase.contains("the callee's own certificate (--method on it) bounds it"),
        "{two_phase}"
    );
    // tree(n) gets main's own parameter n: finite through the call, nothing added.
    assert!(
        !tree_line("tree(I)").contains("∞"),
        "{}",
        tree_line("tree(I)")
    );
}

#[test]
fn the_report_of_a_caller_says_why_its_callees_are_unbounded_and_what_removes_it() {
    let run = analyze_main();
    // villages(n) never stops for n < 0, and main passes it a parsed number.
    assert!(
        run.stdout.contains(
            "∞ through a call: recursion through recursion.Shapes.villages(I)Lrecursion/Shapes$Village; never stops for level <= -1; a --spec for the recursive method"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("to recursion.Shapes.twoPhase(II)V: its bound depends on a, b"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_recursion_down_the_objects_it_is_given_is_unbounded_and_says_so() {
    let run = membound_tests::membound([
        "analyze".as_ref(),
        compile_fixture("recursion").as_os_str(),
        "--method".as_ref(),
        "recursion.Shapes.hangLeftmost".as_ref(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("memAlloc objects: ∞"), "{}", run.stdout);
    assert!(
        run.stdout.contains(
            "recursion through recursion.Shapes.hangLeftmost(Lrecursion/Shapes$Node;)V (its depth follows the objects its arguments reach, not an integer: it has no integer formal;"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn a_power_of_two_passed_as_a_shift_is_read_as_one() {
    let cert = certificate("overPowerOfTwo");
    // halves(2^levels) makes 2^(levels + 1) - 1 nodes.
    for levels in 0..=12 {
        assert_eq!(
            objects_at(&cert, "overPowerOfTwo", &format!("levels={levels}")),
            (1i64 << (levels + 1)) - 1,
            "levels={levels}"
        );
    }
    let (observed, predicted) = run(&cert, &["overPowerOfTwo", "7"]);
    assert_eq!(observed, 255);
    assert_eq!(predicted, 255);
}

#[test]
fn a_shift_count_outside_0_to_30_bounds_by_every_value_the_shift_takes() {
    let cert = certificate("overPowerOfTwo");
    // The JVM takes the shift count modulo 32: 1 << 32 is 1, 1 << 33 is 2 and 1 << 31 (also
    // 1 << -1) is negative, where halves makes nothing. Elsewhere than 0..30 the bound is
    // halves' largest over 2^0 .. 2^30 and -2^31: halves(2^30), 2^31 - 1 nodes.
    let largest = (1i64 << 31) - 1;
    for levels in [-33, -1, 31, 32, 33, 62, 1000] {
        assert_eq!(
            objects_at(&cert, "overPowerOfTwo", &format!("levels={levels}")),
            largest,
            "levels={levels}"
        );
    }
    for (levels, made) in [(31, 0), (32, 1), (33, 3), (-1, 0), (-30, 7)] {
        let (observed, predicted) = run(&cert, &["overPowerOfTwo", &levels.to_string()]);
        assert_eq!(observed, made, "levels={levels}");
        assert_eq!(predicted, largest, "levels={levels}");
    }
}

#[test]
fn a_shift_into_a_recursion_that_never_stops_below_0_is_unbounded_only_outside_0_to_30() {
    let cert = certificate("countDownPowerOfTwo");
    // countDown(2^levels) makes 2^levels nodes; countDown(1 << 31) never stops (without
    // overflow), and outside 0..30 the shift may be that value.
    for levels in 0..=12 {
        assert_eq!(
            objects_at(&cert, "countDownPowerOfTwo", &format!("levels={levels}")),
            1i64 << levels,
            "levels={levels}"
        );
    }
    for levels in [-1, 31, 32] {
        assert_eq!(
            objects_at(&cert, "countDownPowerOfTwo", &format!("levels={levels}")),
            "infty",
            "levels={levels}"
        );
    }
    let reasons = certificate_entry(&cert, "recursion.Shapes.countDownPowerOfTwo").to_string();
    assert!(
        reasons
            .contains("recursion through recursion.Shapes.countDown(I)V never stops for n <= -1"),
        "{reasons}"
    );
    let (observed, predicted) = run(&cert, &["countDownPowerOfTwo", "6"]);
    assert_eq!((observed, predicted), (64.into(), 64.into()));
}

#[test]
fn a_quadtree_over_a_diagonal_from_a_shift_counts_the_diagonal_only() {
    let cert = certificate("diagonal");
    // One grey square on the diagonal per level: 2^(levels + 2) - 3 squares. The recursion in
    // general makes a four-ary tree; on the line x0 = y0, which its calls keep or leave for a
    // leaf, the squares that recurse make a binary one.
    let expected = |levels: i64| (1i64 << (levels + 2)) - 3;
    let solved = rsolve("c(n) - 2*c(n - 1) - 3", "{c(0): 1}", &[1, 5, 10]);
    assert_eq!(solved, [expected(1), expected(5), expected(10)]);
    for levels in 0..=12 {
        let at = eval_method(
            &cert,
            "recursion.Shapes.diagonal",
            &format!("levels={levels}"),
        );
        assert_eq!(
            at["mem_alloc"]["objects"],
            expected(levels),
            "levels={levels}"
        );
        assert_eq!(at["mem_rq"]["objects"], expected(levels), "levels={levels}");
    }
    for levels in [2, 5] {
        let (observed, predicted) = run(&cert, &["diagonal", &levels.to_string()]);
        assert_eq!(observed, expected(levels), "levels={levels}");
        assert_eq!(predicted, expected(levels), "levels={levels}");
    }
}

#[test]
fn perimeter_main_is_bounded_for_every_number_of_levels() {
    let classes = compile_java_tree("jolden", &workspace_root().join("benchmarks-jolden/java"));
    let cert = scratch_dir("recursion").join("perimeter-main.json");
    analyze_into(&classes, "perimeter.Perimeter.main", "count", &cert);
    // main's levels is a static the options set: any int. build makes 2^(levels + 2) - 3
    // squares for 0 <= levels <= 30; elsewhere 1 << levels is one of 2^0 .. 2^30 and -2^31,
    // so build makes at most what make(0, 0, 2^30) makes, 2^32 - 3.
    let build = |levels: i64| {
        eval_method(
            &cert,
            "perimeter.Perimeter.build",
            &format!("levels={levels}"),
        )["mem_alloc"]["objects"]
            .clone()
    };
    for levels in 0..=12 {
        assert_eq!(build(levels), (1i64 << (levels + 2)) - 3, "levels={levels}");
    }
    for levels in [-1, 31, 32, 1000] {
        assert_eq!(build(levels), (1i64 << 32) - 3, "levels={levels}");
        let main = eval_method(
            &cert,
            "perimeter.Perimeter.main",
            &format!("args_length=2,levels={levels},objects=0,units=0,p=0"),
        );
        assert!(main["mem_alloc"]["objects"].is_u64(), "{main:#}");
        assert!(main["mem_rq"]["objects"].is_u64(), "{main:#}");
    }
    // 1 << 32 is 1 and 1 << 33 is 2: a leaf, and a grey square with its four quadrants;
    // 1 << -1 is negative (build's five squares then come from overflowing sums).
    for levels in ["3", "32", "33", "-1"] {
        let (code, json) = validate_json(&cert, "perimeter.Perimeter", &["-l", levels]);
        assert_eq!(code, 0, "{json:#}");
        assert_eq!(json["broken"], 0, "{json:#}");
        let (observed, predicted) =
            total_objects(json["comparisons"].as_array().expect("comparisons"));
        let (observed, predicted) = (observed.as_u64().unwrap(), predicted.as_u64().unwrap());
        assert!(
            observed <= predicted,
            "levels={levels}: {observed} > {predicted}"
        );
    }
}

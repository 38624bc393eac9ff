//! Recursion shapes (fixture `recursion`, issue 17): each recursive method's bound is its cost
//! relation solved to a closed form. Oracles: the relation evaluated by brute force here, SymPy's
//! `rsolve` on the same relation (in the oracle environment), and real runs under the agent
//! (`validate`: every prediction, per site and in total, never below the run, and equal to it
//! where the count is exact).

use std::path::{Path, PathBuf};

use membound_tests::{
    analyze_into, compile_fixture, eval_method, oracle_run, scratch_dir, total_objects,
    validate_json,
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

/// `validate` of a run of `Shapes <args>`: exit 0, nothing broken, and the totals.
fn run(certificate: &Path, args: &[&str]) -> (Value, Value) {
    let (code, json) = validate_json(certificate, "recursion.Shapes", args);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["broken"], 0, "{json:#}");
    total_objects(json["comparisons"].as_array().expect("comparisons"))
}

/// SymPy's solution of `relation` (in `c(n)`, with `initial` values) at `points`.
fn rsolve(relation: &str, initial: &str, points: &[i64]) -> Vec<i64> {
    let script = r#"
import sys
from sympy import Function, rsolve, symbols, sympify
n = symbols("n", integer=True)
c = Function("c")
relation, initial, points = sys.argv[1], sys.argv[2], sys.argv[3]
solution = rsolve(sympify(relation, locals={"c": c, "n": n}), c(n),
                  eval(initial, {"c": c}))
print(" ".join(str(solution.subs(n, int(p))) for p in points.split(",")))
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

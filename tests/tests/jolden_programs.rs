//! The benchmark programs of `benchmarks-jolden/java/` compile, run, and allocate exactly what the
//! closed forms of `benchmarks-jolden/README.md` say. Each program counts its own allocations
//! (`jolden.Alloc`) and its `main` prints one line `alloc <method> objects <n> units <u>` per
//! analyzed method; every test runs a program at three or more parameter values and compares those
//! lines with the README's formulas, written again here. Where a count depends on random data the
//! test checks the bound the README states instead.

use membound_tests::{Run, compile_java_tree, workspace_root};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The classes of every package, compiled once per test process.
fn classes() -> &'static PathBuf {
    static CLASSES: OnceLock<PathBuf> = OnceLock::new();
    CLASSES.get_or_init(|| {
        compile_java_tree(
            "benchmarks-jolden",
            &workspace_root().join("benchmarks-jolden/java"),
        )
    })
}

/// What one run printed: the allocation lines by method, and the whole output.
struct Program {
    allocs: BTreeMap<String, (u64, u64)>,
    stdout: String,
}

impl Program {
    /// The (objects, units) line of `method`.
    fn alloc(&self, method: &str) -> (u64, u64) {
        *self
            .allocs
            .get(method)
            .unwrap_or_else(|| panic!("no alloc line for {method} in:\n{}", self.stdout))
    }

    /// The integer after `key` in the program's result line.
    fn result(&self, key: &str) -> i64 {
        let mut words = self.stdout.split_whitespace();
        words
            .find(|w| *w == key)
            .and_then(|_| words.next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no integer after {key} in:\n{}", self.stdout))
    }
}

/// Runs `class` with `args` and parses its allocation lines.
fn run(class: &str, args: &[&str]) -> Program {
    let run: Run = Command::new("java")
        .arg("-cp")
        .arg(classes())
        .arg(class)
        .args(args)
        .output()
        .expect("java is installed")
        .into();
    assert_eq!(run.code, 0, "{class} {args:?} failed:\n{}", run.stderr);
    let mut allocs = BTreeMap::new();
    for line in run.stdout.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let ["alloc", method, "objects", objects, "units", units] = words[..] {
            let number = |s: &str| s.parse::<u64>().expect("a count");
            allocs.insert(method.to_string(), (number(objects), number(units)));
        }
    }
    Program {
        allocs,
        stdout: run.stdout,
    }
}

/// A count that is the same in both units (no arrays allocated).
fn same(n: u64) -> (u64, u64) {
    (n, n)
}

#[test]
fn treeadd_allocates_two_to_the_levels_minus_one() {
    for l in [1u32, 4, 7] {
        let p = run("treeadd.TreeAdd", &["-l", &l.to_string()]);
        assert_eq!(p.alloc("treeadd.TreeAdd.build"), same(2u64.pow(l) - 1));
        assert_eq!(p.alloc("treeadd.TreeAdd.sum"), same(0));
        assert_eq!(p.result("sum"), 2i64.pow(l) - 1);
    }
}

#[test]
fn bisort_allocates_a_complete_tree_and_sorts_without_allocating() {
    for s in [1u64, 10, 64, 200] {
        let p = run("bisort.BiSort", &["-s", &s.to_string()]);
        let nodes = if s < 2 { 0 } else { 2u64.pow(s.ilog2()) - 1 };
        assert_eq!(p.alloc("bisort.BiSort.createTree"), same(nodes));
        assert_eq!(p.alloc("bisort.BiSort.sort"), same(0));
        assert!(
            p.stdout.contains("ascending true descending true"),
            "{}",
            p.stdout
        );
    }
}

#[test]
fn em3d_allocates_linearly_in_nodes_and_cells_in_nodes_times_degree() {
    for (n, d) in [(10u64, 5u64), (20, 6), (100, 7)] {
        let p = run("em3d.Em3d", &["-n", &n.to_string(), "-d", &d.to_string()]);
        assert_eq!(
            p.alloc("em3d.Em3d.create"),
            (8 * n + 3, 6 * n * d + 4 * n + 1)
        );
        // Two enumerations of the node lists per iteration, 10 iterations by default.
        assert_eq!(p.alloc("em3d.Em3d.compute"), same(2 * 10));
    }
}

#[test]
fn mst_allocates_quadratically_with_a_floor_in_the_cells() {
    for nv in [10u64, 21, 34] {
        let p = run("mst.MST", &["-v", &nv.to_string()]);
        assert_eq!(
            p.alloc("mst.MST.makeVertices"),
            (3 * nv + 2, nv * (nv / 4) + 4 * nv + 1)
        );
        assert_eq!(p.alloc("mst.MST.addEdges"), same(nv * (nv - 1)));
        assert_eq!(p.alloc("mst.MST.computeMST"), same(nv - 1));
    }
}

#[test]
fn perimeter_builds_the_diagonal_quadtree() {
    for l in [1u32, 3, 6] {
        let p = run("perimeter.Perimeter", &["-l", &l.to_string()]);
        assert_eq!(
            p.alloc("perimeter.Perimeter.build"),
            same(2u64.pow(l + 2) - 3)
        );
        assert_eq!(p.alloc("perimeter.Perimeter.perimeter"), same(0));
        assert_eq!(p.result("perimeter"), 4 * (2i64.pow(l) - 1));
    }
}

#[test]
fn power_allocates_a_polynomial_in_the_fan_outs() {
    for [f, l, b, n, i] in [[1u64, 1, 1, 1, 1], [2, 3, 4, 5, 2], [10, 20, 5, 10, 10]] {
        let args: Vec<String> = [f, l, b, n, i].iter().map(u64::to_string).collect();
        let p = run(
            "power.Power",
            &[
                "-f", &args[0], "-l", &args[1], "-b", &args[2], "-n", &args[3], "-i", &args[4],
            ],
        );
        let inner = 2 + 2 * f + 2 * f * l + 2 * f * l * b;
        assert_eq!(
            p.alloc("power.Power.build"),
            (inner + f * l * b * n, inner - 1 + 2 * f * l * b * n)
        );
        let nodes = 1 + f + f * l + f * l * b + f * l * b * n;
        assert_eq!(p.alloc("power.Power.solve"), same(i * nodes));
    }
}

#[test]
fn health_allocates_seven_objects_per_village_and_at_most_three_per_village_step() {
    for (l, t) in [(1u32, 10u64), (2, 40), (3, 60)] {
        let p = run(
            "health.Health",
            &["-l", &l.to_string(), "-t", &t.to_string()],
        );
        let villages = (4u64.pow(l) - 1) / 3;
        assert_eq!(
            p.alloc("health.Health.createVillage"),
            (7 * villages, 10 * villages)
        );
        let (objects, units) = p.alloc("health.Health.simulate");
        assert_eq!(objects, units);
        // Two enumerations of patient lists per village and step, and the patients.
        let enumerations = 2 * t * villages;
        let patients = objects
            .checked_sub(enumerations)
            .expect("at least the enumerations");
        assert!(
            0 < patients && patients <= t * villages,
            "{patients} patients"
        );
    }
}

#[test]
fn tsp_allocates_one_node_per_city_and_tours_all_of_them() {
    for c in [1u64, 10, 100] {
        let p = run("tsp.TSP", &["-c", &c.to_string()]);
        assert_eq!(p.alloc("tsp.TSP.build"), same(c));
        assert_eq!(p.alloc("tsp.TSP.tour"), same(0));
        assert_eq!(p.result("visited"), c as i64);
    }
}

#[test]
fn bh_allocates_four_objects_per_body_and_two_per_cell() {
    for b in [1u64, 10, 100] {
        let p = run("bh.BH", &["-b", &b.to_string(), "-s", "2"]);
        assert_eq!(p.alloc("bh.BH.createTestData"), (4 * b + 1, 5 * b));
        let cells = u64::try_from(p.result("firstCells")).expect("a count");
        assert!(cells >= 1);
        assert_eq!(p.alloc("bh.BH.makeTree"), (2 * cells, 9 * cells));
        assert_eq!(p.alloc("bh.BH.computeForces"), same(0));
        assert_eq!(p.alloc("bh.BH.advance"), same(0));
    }
}

/// How many times the divide and conquer of `voronoi` triangulates a range of `n` points.
fn delaunay_calls(n: u64) -> u64 {
    if n <= 3 {
        1
    } else {
        delaunay_calls(n / 2) + delaunay_calls(n - n / 2) + 1
    }
}

#[test]
fn voronoi_allocates_five_objects_per_edge_made_and_ends_with_a_triangulation() {
    for n in [3u64, 10, 100, 500] {
        let p = run("voronoi.Voronoi", &["-n", &n.to_string()]);
        assert_eq!(p.alloc("voronoi.Voronoi.makePoints"), (n + 1, 2 * n));
        let edges = p.result("edges");
        let hull = p.result("hull");
        // Euler's formula for a triangulation of points in general position.
        assert_eq!(edges, 3 * n as i64 - 3 - hull);
        let made = u64::try_from(edges + p.result("deleted")).expect("a count");
        let calls = delaunay_calls(n);
        assert_eq!(
            p.alloc("voronoi.Voronoi.triangulate"),
            (5 * made + calls, 5 * made + 2 * calls)
        );
    }
}

/// Evaluates a quasi-polynomial at `x`: `coefficients[d]` is the periodic coefficient of `x^d`,
/// a list of numerators over `denominator`, entry `x mod len` applying.
fn quasi(coefficients: &[&[i64]], denominator: i64, x: i64) -> u64 {
    let total: i64 = coefficients
        .iter()
        .enumerate()
        .map(|(d, c)| c[x.rem_euclid(c.len() as i64) as usize] * x.pow(d as u32))
        .sum();
    assert_eq!(total % denominator, 0, "a count is an integer");
    u64::try_from(total / denominator).expect("a count is not negative")
}

#[test]
fn fig14_matches_the_thesis_counts() {
    for mc in [1u64, 2, 5, 8] {
        let arg = mc.to_string();
        let m = |method: &str| run("fig14.Fig14", &[&arg, method]);
        assert_eq!(
            m("m0").alloc("fig14.Fig14.m0"),
            (mc * mc + 7 * mc + 1, (3 * mc * mc + 17 * mc) / 2)
        );
        assert_eq!(
            m("m1").alloc("fig14.Fig14.m1"),
            (mc * mc + 3 * mc, mc + 3 * mc * (mc + 1) / 2)
        );
        assert_eq!(m("m2").alloc("fig14.Fig14.m2"), (2 * mc + 1, 3 * mc));
    }
}

#[test]
fn fig21_matches_the_corrected_thesis_counts() {
    for mc in [1i64, 2, 3, 7, 11] {
        let arg = mc.to_string();
        let m = |method: &str| run("fig21.Fig21", &[&arg, method]);
        let x = mc as u64;
        // Units over 9: the thesis's Table 2.3 with its Integer[] terms corrected (notes §8).
        let m0 = quasi(&[&[108, 98, 94], &[171, 147, 153], &[42], &[1]], 9, mc);
        let m1 = quasi(&[&[90, 86, 82], &[45, 45, 39], &[30], &[1]], 9, mc);
        let m2 = quasi(&[&[3, 1, 1], &[21, 19, 17], &[1]], 3, mc);
        assert_eq!(m("m0").alloc("fig21.Fig21.m0"), (x * x + 7 * x + 6, m0));
        assert_eq!(m("m1").alloc("fig21.Fig21.m1"), (x * x + 3 * x + 3, m1));
        assert_eq!(m("m2").alloc("fig21.Fig21.m2"), (2 * x + 2, m2));
    }
}

#[test]
fn fig71_matches_the_thesis_counts() {
    for mc in [1u64, 3, 7] {
        let arg = mc.to_string();
        let m = |method: &str| run("fig71.Fig71", &[&arg, method]);
        assert_eq!(
            m("m0").alloc("fig71.Fig71.m0"),
            (mc * mc + 9 * mc + 3, (3 * mc * mc + 25 * mc) / 2 + 1)
        );
        assert_eq!(
            m("m1").alloc("fig71.Fig71.m1"),
            (mc * mc + 3 * mc + 1, (3 * mc * mc + 7 * mc) / 2)
        );
        assert_eq!(m("m2").alloc("fig71.Fig71.m2"), (2 * mc + 2, 3 * mc + 1));
        assert_eq!(m("m3").alloc("fig71.Fig71.m3"), (2 * mc + 2, 3 * mc + 1));
    }
}

#[test]
fn arraydim_allocates_one_block_per_five_elements() {
    for s in [0u64, 5, 6, 23] {
        let p = run("arraydim.ArrayDim", &[&s.to_string()]);
        let blocks = s.div_ceil(5);
        assert_eq!(p.alloc("arraydim.ArrayDim.addAll"), (blocks, 5 * blocks));
    }
}

#[test]
fn opaque_branch_allocates_the_larger_array_every_iteration() {
    for n in [3u64, 6, 10] {
        let p = run("opaque.OpaqueBranch", &[&n.to_string()]);
        let cells = if n <= 5 { 10 * n } else { n * n + n + 20 };
        assert_eq!(p.alloc("opaque.OpaqueBranch.test"), (n, cells));
    }
}

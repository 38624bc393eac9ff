//! The table of the suite: each analyzed method of the programs under `java/`, with the program
//! that runs it and the command-line settings it is checked at.
//!
//! The methods are those of the README's closed-form table; the settings follow the thesis's
//! Table 2.6 where it has the program (mst and em3d at its four sizes, bisort at sizes that are
//! and are not powers of 2), and otherwise grow from tiny to the program's default. The small
//! settings (`--small`, for CI) keep every run well under a second. This module only describes
//! the runs; it does not start anything.

/// One analyzed method and the runs that check it.
#[derive(Debug)]
pub struct Benchmark {
    /// The program's main class.
    pub main: &'static str,
    /// The analyzed method, `pkg.Class.method` (none of them is overloaded).
    pub method: &'static str,
    /// Arguments every run passes after the varying ones: the thesis examples' choice of method,
    /// options held fixed.
    pub fixed: &'static [&'static str],
    /// The varying arguments of each run at the full sizes.
    pub full: Settings,
    /// The varying arguments of each run under `--small`.
    pub small: Settings,
}

/// The varying arguments of each run.
pub type Settings = &'static [&'static [&'static str]];

impl Benchmark {
    /// The settings of this run of the harness.
    pub fn settings(&self, small: bool) -> Settings {
        if small { self.small } else { self.full }
    }

    /// The program's arguments for one setting.
    pub fn args(&self, setting: &[&str]) -> Vec<String> {
        setting
            .iter()
            .chain(self.fixed)
            .map(|a| (*a).to_string())
            .collect()
    }
}

const BH_FULL: Settings = &[&["-b", "10"], &["-b", "20"], &["-b", "100"], &["-b", "256"]];
const BH_SMALL: Settings = &[&["-b", "2"], &["-b", "5"], &["-b", "10"]];
const BISORT_FULL: Settings = &[
    &["-s", "10"],
    &["-s", "20"],
    &["-s", "64"],
    &["-s", "200"],
    &["-s", "256"],
    &["-s", "32768"],
];
const BISORT_SMALL: Settings = &[&["-s", "10"], &["-s", "16"], &["-s", "20"]];
const EM3D_FULL: Settings = &[
    &["-n", "10", "-d", "5"],
    &["-n", "20", "-d", "6"],
    &["-n", "100", "-d", "7"],
    &["-n", "1000", "-d", "8"],
];
const EM3D_SMALL: Settings = &[
    &["-n", "10", "-d", "5"],
    &["-n", "20", "-d", "6"],
    &["-n", "30", "-d", "7"],
];
const HEALTH_FULL: Settings = &[
    &["-l", "2", "-t", "50"],
    &["-l", "3", "-t", "100"],
    &["-l", "4", "-t", "200"],
    &["-l", "5", "-t", "500"],
];
const HEALTH_SMALL: Settings = &[
    &["-l", "1", "-t", "10"],
    &["-l", "2", "-t", "20"],
    &["-l", "3", "-t", "30"],
];
const MST_FULL: Settings = &[
    &["-v", "10"],
    &["-v", "20"],
    &["-v", "100"],
    &["-v", "1000"],
];
const MST_SMALL: Settings = &[&["-v", "10"], &["-v", "21"], &["-v", "34"]];
const PERIMETER_FULL: Settings = &[&["-l", "2"], &["-l", "4"], &["-l", "6"], &["-l", "10"]];
const PERIMETER_SMALL: Settings = &[&["-l", "1"], &["-l", "2"], &["-l", "3"]];
const POWER_FULL: Settings = &[
    &["-f", "1", "-l", "1", "-b", "1", "-n", "1", "-i", "1"],
    &["-f", "2", "-l", "3", "-b", "4", "-n", "5", "-i", "2"],
    &["-f", "10", "-l", "20", "-b", "5", "-n", "10", "-i", "10"],
];
const POWER_SMALL: Settings = &[
    &["-f", "1", "-l", "1", "-b", "1", "-n", "1", "-i", "1"],
    &["-f", "2", "-l", "2", "-b", "2", "-n", "2", "-i", "2"],
    &["-f", "2", "-l", "3", "-b", "4", "-n", "5", "-i", "2"],
];
const TREEADD_FULL: Settings = &[&["-l", "4"], &["-l", "8"], &["-l", "12"], &["-l", "16"]];
const TREEADD_SMALL: Settings = &[&["-l", "2"], &["-l", "4"], &["-l", "6"]];
const TSP_FULL: Settings = &[&["-c", "10"], &["-c", "100"], &["-c", "1024"]];
const TSP_SMALL: Settings = &[&["-c", "1"], &["-c", "10"], &["-c", "50"]];
const VORONOI_FULL: Settings = &[&["-n", "10"], &["-n", "100"], &["-n", "1000"]];
const VORONOI_SMALL: Settings = &[&["-n", "4"], &["-n", "10"], &["-n", "30"]];
/// The thesis examples take their size first.
const FIG_FULL: Settings = &[&["1"], &["5"], &["10"], &["100"]];
const FIG_SMALL: Settings = &[&["1"], &["2"], &["5"]];
const ARRAYDIM_FULL: Settings = &[&["0"], &["5"], &["23"], &["1000"]];
const ARRAYDIM_SMALL: Settings = &[&["0"], &["6"], &["23"]];
const OPAQUE_FULL: Settings = &[&["3"], &["6"], &["10"], &["100"]];
const OPAQUE_SMALL: Settings = &[&["3"], &["6"], &["10"]];

/// Every analyzed method, program by program.
pub const SUITE: &[Benchmark] = &[
    program(
        "bh.BH",
        "bh.BH.createTestData",
        &["-s", "2"],
        BH_FULL,
        BH_SMALL,
    ),
    program("bh.BH", "bh.BH.makeTree", &["-s", "2"], BH_FULL, BH_SMALL),
    program(
        "bh.BH",
        "bh.BH.computeForces",
        &["-s", "2"],
        BH_FULL,
        BH_SMALL,
    ),
    program("bh.BH", "bh.BH.advance", &["-s", "2"], BH_FULL, BH_SMALL),
    program(
        "bisort.BiSort",
        "bisort.BiSort.createTree",
        &[],
        BISORT_FULL,
        BISORT_SMALL,
    ),
    program(
        "bisort.BiSort",
        "bisort.BiSort.sort",
        &[],
        BISORT_FULL,
        BISORT_SMALL,
    ),
    program("em3d.Em3d", "em3d.Em3d.create", &[], EM3D_FULL, EM3D_SMALL),
    program(
        "em3d.Em3d",
        "em3d.Node.makeFromNodes",
        &[],
        EM3D_FULL,
        EM3D_SMALL,
    ),
    program("em3d.Em3d", "em3d.Em3d.compute", &[], EM3D_FULL, EM3D_SMALL),
    program(
        "health.Health",
        "health.Health.createVillage",
        &[],
        HEALTH_FULL,
        HEALTH_SMALL,
    ),
    program(
        "health.Health",
        "health.Health.simulate",
        &[],
        HEALTH_FULL,
        HEALTH_SMALL,
    ),
    program("mst.MST", "mst.MST.makeVertices", &[], MST_FULL, MST_SMALL),
    program("mst.MST", "mst.MST.addEdges", &[], MST_FULL, MST_SMALL),
    program("mst.MST", "mst.MST.computeMST", &[], MST_FULL, MST_SMALL),
    program(
        "perimeter.Perimeter",
        "perimeter.Perimeter.build",
        &[],
        PERIMETER_FULL,
        PERIMETER_SMALL,
    ),
    program(
        "perimeter.Perimeter",
        "perimeter.Perimeter.perimeter",
        &[],
        PERIMETER_FULL,
        PERIMETER_SMALL,
    ),
    program(
        "power.Power",
        "power.Power.build",
        &[],
        POWER_FULL,
        POWER_SMALL,
    ),
    program(
        "power.Power",
        "power.Power.solve",
        &[],
        POWER_FULL,
        POWER_SMALL,
    ),
    program(
        "treeadd.TreeAdd",
        "treeadd.TreeAdd.build",
        &[],
        TREEADD_FULL,
        TREEADD_SMALL,
    ),
    program(
        "treeadd.TreeAdd",
        "treeadd.TreeAdd.sum",
        &[],
        TREEADD_FULL,
        TREEADD_SMALL,
    ),
    program("tsp.TSP", "tsp.TSP.build", &[], TSP_FULL, TSP_SMALL),
    program("tsp.TSP", "tsp.TSP.tour", &[], TSP_FULL, TSP_SMALL),
    program(
        "voronoi.Voronoi",
        "voronoi.Voronoi.makePoints",
        &[],
        VORONOI_FULL,
        VORONOI_SMALL,
    ),
    program(
        "voronoi.Voronoi",
        "voronoi.Voronoi.triangulate",
        &[],
        VORONOI_FULL,
        VORONOI_SMALL,
    ),
    program(
        "fig14.Fig14",
        "fig14.Fig14.m0",
        &["m0"],
        FIG_FULL,
        FIG_SMALL,
    ),
    program(
        "fig14.Fig14",
        "fig14.Fig14.m1",
        &["m1"],
        FIG_FULL,
        FIG_SMALL,
    ),
    program(
        "fig14.Fig14",
        "fig14.Fig14.m2",
        &["m2"],
        FIG_FULL,
        FIG_SMALL,
    ),
    program(
        "fig21.Fig21",
        "fig21.Fig21.m0",
        &["m0"],
        FIG_FULL,
        FIG_SMALL,
    ),
    program(
        "fig21.Fig21",
        "fig21.Fig21.m1",
        &["m1"],
        FIG_FULL,
        FIG_SMALL,
    ),
    program(
        "fig21.Fig21",
        "fig21.Fig21.m2",
        &["m2"],
        FIG_FULL,
        FIG_SMALL,
    ),
    program(
        "fig71.Fig71",
        "fig71.Fig71.m0",
        &["m0"],
        FIG_FULL,
        FIG_SMALL,
    ),
    program(
        "fig71.Fig71",
        "fig71.Fig71.m1",
        &["m1"],
        FIG_FULL,
        FIG_SMALL,
    ),
    program(
        "fig71.Fig71",
        "fig71.Fig71.m2",
        &["m2"],
        FIG_FULL,
        FIG_SMALL,
    ),
    program(
        "fig71.Fig71",
        "fig71.Fig71.m3",
        &["m3"],
        FIG_FULL,
        FIG_SMALL,
    ),
    program(
        "arraydim.ArrayDim",
        "arraydim.ArrayDim.addAll",
        &[],
        ARRAYDIM_FULL,
        ARRAYDIM_SMALL,
    ),
    program(
        "opaque.OpaqueBranch",
        "opaque.OpaqueBranch.test",
        &[],
        OPAQUE_FULL,
        OPAQUE_SMALL,
    ),
];

const fn program(
    main: &'static str,
    method: &'static str,
    fixed: &'static [&'static str],
    full: Settings,
    small: Settings,
) -> Benchmark {
    Benchmark {
        main,
        method,
        fixed,
        full,
        small,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_is_checked_at_three_or_more_settings_and_named_once() {
        for benchmark in SUITE {
            assert!(benchmark.full.len() >= 3, "{}", benchmark.method);
            assert!(benchmark.small.len() >= 3, "{}", benchmark.method);
            let package = benchmark.main.split('.').next();
            assert_eq!(benchmark.method.split('.').next(), package);
        }
        let mut methods: Vec<_> = SUITE.iter().map(|b| b.method).collect();
        methods.sort_unstable();
        methods.dedup();
        assert_eq!(methods.len(), SUITE.len());
    }

    #[test]
    fn fixed_arguments_follow_the_varying_ones() {
        let fig = SUITE
            .iter()
            .find(|b| b.method == "fig14.Fig14.m1")
            .expect("fig14 m1 is in the suite");
        assert_eq!(fig.args(fig.small[2]), ["5", "m1"]);
    }
}

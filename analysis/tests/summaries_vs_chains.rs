//! The chain analysis as an oracle of the summaries: for every method of a program and every
//! local site it reaches through each of its statements, the summary's count must equal the sum
//! of the counts of the chains from that method to the site through that statement (each chain
//! counted as the conjunction of its frames' invariants, as the thesis does), at every point of
//! a grid of parameter values. Chains are enumerated here only as a test oracle.

use std::collections::BTreeMap;
use std::path::Path;

mod support;

use membound_analysis::sites::{self, Sites};
use membound_analysis::summary::Qty;
use membound_invariants::Options;
use membound_polyhedra::{Count, Int, Value};
use membound_tests::generated;
use membound_tests::{compile_fixture, compile_java_tree, scratch_dir, workspace_root};
use support::{Summarized, summarized};

/// (method, via offset, allocating method, allocating offset).
type Key = (String, Option<u32>, String, u32);

struct Analysis {
    summarized: Summarized,
    sites: Sites,
}

fn analysis(classes: &Path, method: &str) -> Analysis {
    let summarized = summarized(classes, method, &Options::default(), None);
    let (program, graph) = (&summarized.program, &summarized.graph);
    let sites = sites::enumerate(program, graph, sites::DEFAULT_MAX_CHAINS).expect("chains");
    Analysis { summarized, sites }
}

/// Every distinct chain suffix's count, by key (a method reached through several chains has
/// the same suffixes from it on each).
fn chain_counts(analysis: &Analysis) -> BTreeMap<Key, Vec<Count>> {
    let mut counts: BTreeMap<Key, Vec<Count>> = BTreeMap::new();
    let mut seen = std::collections::BTreeSet::new();
    for site in &analysis.sites.sites {
        let last = site.chain.last().expect("a chain");
        for from in 0..site.chain.len() {
            let suffix: Vec<(String, u32)> = site.chain[from..]
                .iter()
                .map(|e| (e.method.to_string(), e.pc))
                .collect();
            if !seen.insert(suffix) {
                continue;
            }
            let invariant = analysis
                .summarized
                .lowered
                .suffix_invariant(site, from)
                .expect("suffix invariant");
            let count =
                membound_polyhedra::count(&invariant.executions_set().to_set()).expect("counted");
            let via = (from + 1 < site.chain.len()).then_some(site.chain[from].pc);
            let key = (
                site.chain[from].method.to_string(),
                via,
                last.method.to_string(),
                last.pc,
            );
            counts.entry(key).or_default().push(count);
        }
    }
    counts
}

fn summary_counts(analysis: &Analysis) -> BTreeMap<Key, (Qty, Vec<String>)> {
    let mut counts = BTreeMap::new();
    for summary in analysis.summarized.summaries.in_order() {
        for site in &summary.sites {
            let local = &analysis.summarized.local.sites[site.site];
            let key = (
                summary.method.to_string(),
                site.via,
                local.method.to_string(),
                local.pc,
            );
            counts.insert(
                key,
                (site.total(&summary.params).count, summary.params.clone()),
            );
        }
    }
    counts
}

fn value(count: &Count, point: &BTreeMap<String, Int>) -> Value {
    count.eval(point).expect("evaluated")
}

/// Compares the two analyses of `method` at every point of `0..=range` for each parameter.
fn check(classes: &Path, method: &str, range: i64) {
    let analysis = analysis(classes, method);
    let chains = chain_counts(&analysis);
    let summaries = summary_counts(&analysis);
    assert!(!chains.is_empty(), "{method} reaches no allocation");
    for (key, counts) in &chains {
        let (qty, params) = summaries
            .get(key)
            .unwrap_or_else(|| panic!("{method}: no summary entry for {key:?}"));
        let summary = match qty {
            Qty::Finite(pw) => Count::Finite(pw.clone()),
            Qty::Inf => Count::Infinite,
            Qty::Expr(expr) => panic!("{method}: {key:?} is not a quasi-polynomial: {expr:?}"),
        };
        for point in grid(params, range) {
            let chain_total = counts
                .iter()
                .map(|c| value(c, &point))
                .fold(Value::Finite(0.into()), |a, b| a + b);
            assert_eq!(
                value(&summary, &point),
                chain_total,
                "{method}: {key:?} at {point:?}"
            );
        }
    }
    assert_eq!(
        chains.len(),
        summaries.len(),
        "{method}: the summaries have entries no chain has"
    );
}

fn grid(params: &[String], range: i64) -> Vec<BTreeMap<String, Int>> {
    let mut points = vec![BTreeMap::new()];
    for param in params {
        points = points
            .into_iter()
            .flat_map(|point| {
                (0..=range).map(move |v| {
                    let mut next = point.clone();
                    next.insert(param.clone(), Int::from(v));
                    next
                })
            })
            .collect();
    }
    points
}

#[test]
fn thesis_programs_count_as_their_chains() {
    let classes = compile_fixture("thesis");
    for method in ["thesis.Fig14.m0", "thesis.Fig21.m0", "thesis.Halving.halve"] {
        check(&classes, method, 6);
    }
}

#[test]
fn loop_shapes_count_as_their_chains() {
    let classes = compile_fixture("loops");
    check(&classes, "loops.Shapes.run", 4);
}

#[test]
fn jolden_style_programs_count_as_their_chains() {
    let classes = compile_java_tree("jolden", &workspace_root().join("benchmarks-jolden/java"));
    for method in ["fig71.Fig71.m0", "arraydim.ArrayDim.addAll"] {
        check(&classes, method, 5);
    }
}

/// Generated programs (the ones `tests/tests/generated.rs` runs under the agent, from the same
/// seed): every count is a polynomial, so summaries and chains must agree everywhere.
#[test]
fn generated_programs_count_as_their_chains() {
    let mut rng = generated::Rng(generated::seed());
    let programs: Vec<_> = (0..10)
        .map(|index| generated::generate(&mut rng, index))
        .collect();
    let classes = generated::compile(&programs, &scratch_dir("summaries-vs-chains-generated"));
    for program in &programs {
        let method = format!("gen.{}.m0", program.class);
        let outcome = std::panic::catch_unwind(|| check(&classes, &method, 3));
        if let Err(failure) = outcome {
            eprintln!(
                "seed {}, {}:\n{}",
                generated::seed(),
                program.class,
                program.source
            );
            std::panic::resume_unwind(failure);
        }
    }
}

//! The random sample of issue 18: public methods of the library jars ([`programs::JARS`]), drawn
//! with a fixed seed (the same methods on every run of the same jars), each analyzed in a child
//! process under the time limit. It prints, per jar, the share of the sample whose analysis
//! finished within the limit (target: 95%) and the share with a finite bound, then every sampled
//! method. These methods have no program to run, so their bounds are not validated here.

use std::fmt::Write;
use std::path::Path;

use membound_front::classpath::Classpath;

use crate::Failure;
use crate::analysis::{self, Analysis, Limits};
use crate::programs::{self, bound_text, is_finite, peak_text, seconds_text};
use crate::setup::WorkDir;

/// Methods drawn per jar (issue 18: at least 40).
pub const PER_JAR: usize = 40;
/// The seed of the draw.
const SEED: u64 = 18;
/// The share of the sample that should finish within the time limit, in percent.
const TARGET_PERCENT: usize = 95;

/// One sampled method and how its analysis ended.
pub struct Sampled {
    pub jar: &'static str,
    pub method: String,
    pub analysis: Analysis,
}

/// Draws [`PER_JAR`] methods of each jar and analyzes each under `limits`.
pub fn measure(work: &WorkDir, limits: Limits) -> Result<Vec<Sampled>, Failure> {
    let mut drawn = Vec::new();
    for jar in programs::JARS {
        for method in draw(&public_methods(Path::new(jar))?, PER_JAR, SEED) {
            drawn.push((*jar, method));
        }
    }
    let mut results = Vec::new();
    for (index, (jar, method)) in drawn.into_iter().enumerate() {
        eprint!(
            "[sample {}/{}] {method}: ",
            index + 1,
            PER_JAR * programs::JARS.len()
        );
        let (out, messages) = work.certificate(&method);
        let analysis = analysis::analyze_input(Path::new(jar), &method, (&out, &messages), limits);
        eprintln!("{}", programs::outcome(&analysis));
        results.push(Sampled {
            jar,
            method,
            analysis,
        });
    }
    Ok(results)
}

/// Every public method with code of the jar's public classes (no constructors, initializers,
/// bridges or other compiler-made methods), as selectors with their JVM descriptors, sorted.
fn public_methods(jar: &Path) -> Result<Vec<String>, Failure> {
    let failed = |e: &dyn std::fmt::Display| Failure(format!("{}: {e}", jar.display()));
    let mut classpath = Classpath::new();
    classpath.add_entry(jar).map_err(|e| failed(&e))?;
    let mut methods = Vec::new();
    for name in classpath.user_classes() {
        let class = classpath.load(name).map_err(|e| failed(&e))?;
        if !class.access.is_public() || class.access.is_synthetic() {
            continue;
        }
        for method in &class.methods {
            let made_by_compiler = method.access.is_synthetic() || method.name.starts_with('<');
            if method.access.is_public() && method.code.is_some() && !made_by_compiler {
                methods.push(format!(
                    "{}.{}{}",
                    class.name.source(),
                    method.name,
                    method.descriptor
                ));
            }
        }
    }
    methods.sort();
    methods.dedup();
    Ok(methods)
}

/// `count` distinct elements of `all` drawn with `seed` (a partial Fisher–Yates shuffle driven
/// by SplitMix64), in the order drawn; all of them when there are fewer.
fn draw(all: &[String], count: usize, seed: u64) -> Vec<String> {
    let mut pool = all.to_vec();
    let mut state = seed;
    let taken = count.min(pool.len());
    for i in 0..taken {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let remaining = (pool.len() - i) as u64;
        let j = i + usize::try_from(z % remaining).unwrap_or(0);
        pool.swap(i, j);
    }
    pool.truncate(taken);
    pool
}

/// The sample's summary per jar and in all, then every sampled method; `load` is the load
/// average of the machine before and after the sample was measured.
pub fn render(results: &[Sampled], limits: Limits, load: &(String, String)) -> String {
    let mut out = format!(
        "{PER_JAR} public methods drawn per jar (seed {SEED}; public classes, methods with code, \
         no constructors or compiler-made methods), each analyzed in a child process killed after \
         {} s or {} MB. Target (issue 18): ≥ {TARGET_PERCENT}% finish within {} s. Not \
         validated: these methods have no program to run. 1-minute load average of the machine \
         (2 cores) before and after: {} and {}.\n\n\
         | Jar | sampled | finished within {} s | finite bound | ∞ | stopped | errors |\n\
         |---|---|---|---|---|---|---|\n",
        limits.time.as_secs(),
        limits.memory_mb,
        limits.time.as_secs(),
        load.0,
        load.1,
        limits.time.as_secs(),
    );
    let mut groups: Vec<(&str, Vec<&Sampled>)> = programs::JARS
        .iter()
        .map(|jar| (*jar, results.iter().filter(|s| s.jar == *jar).collect()))
        .collect();
    groups.push(("all", results.iter().collect()));
    for (jar, sampled) in &groups {
        let _ = writeln!(out, "{}", summary_row(jar, sampled));
    }
    let _ = writeln!(
        out,
        "\n| Method | Time | Peak memory | Bound |\n|---|---|---|---|"
    );
    for sampled in results {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            sampled.method,
            seconds_text(&sampled.analysis),
            peak_text(sampled.analysis.peak_kb()),
            bound_text(&sampled.analysis),
        );
    }
    out
}

/// One jar's counts, with the finished and finite shares in percent.
fn summary_row(jar: &str, sampled: &[&Sampled]) -> String {
    let count = |pick: fn(&Analysis) -> bool| sampled.iter().filter(|s| pick(&s.analysis)).count();
    let finished = count(|a| matches!(a, Analysis::Done { .. }));
    let finite = count(is_finite);
    let stopped = count(|a| matches!(a, Analysis::Stopped { .. }));
    let errors = count(|a| matches!(a, Analysis::Failed(_)));
    let share = |n: usize| {
        if sampled.is_empty() {
            "—".to_string()
        } else {
            format!("{n} ({:.0}%)", 100.0 * n as f64 / sampled.len() as f64)
        }
    };
    let name = Path::new(jar)
        .file_name()
        .map_or_else(|| jar.to_string(), |n| n.to_string_lossy().into_owned());
    let verdict = if sampled.is_empty() || finished * 100 >= TARGET_PERCENT * sampled.len() {
        ""
    } else {
        " (target missed)"
    };
    format!(
        "| {name} | {} | {}{verdict} | {} | {} | {stopped} | {errors} |",
        sampled.len(),
        share(finished),
        share(finite),
        finished - finite,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_draw_is_fixed_distinct_and_bounded_by_the_pool() {
        let all: Vec<String> = (0..100).map(|i| format!("m{i}")).collect();
        let first = draw(&all, 40, SEED);
        assert_eq!(first, draw(&all, 40, SEED));
        assert_ne!(first, draw(&all, 40, SEED + 1));
        let mut distinct = first.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 40);
        assert_eq!(draw(&all[..3], 40, SEED).len(), 3);
    }
}

//! A profiling driver: counts (or sums over) one of the benchmark corpora, without the oracle,
//! so that `perf record` sees only our code and two builds can be timed side by side.
//!
//! `cargo run --release -p membound-polyhedra --example prof_corpus -- CORPUS [REPS]` where
//! CORPUS is `nest`, `hard`, `wnest` or `whard` (the four tables of the `vs_barvinok` bench).
//! With `PER=1` and one repetition, the time of each set is printed to stderr.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Instant;

use common::corpus::{Sample, corpus, hard_corpus, weighted_corpus, weighted_hard_corpus};
use membound_polyhedra::{Count, Error, clear_count_cache, count_text, sum_text};

/// Our counting (`count_text`) or summing (`sum_text`) entry point.
type Ours = fn(&str) -> Result<Count, Error>;

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_default();
    let reps: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let (samples, ours): (Vec<Sample>, Ours) = match which.as_str() {
        "nest" => (corpus(240), count_text),
        "hard" => (hard_corpus(30), count_text),
        "wnest" => (weighted_corpus(240), sum_text),
        "whard" => (weighted_hard_corpus(30), sum_text),
        _ => {
            eprintln!("usage: prof_corpus nest|hard|wnest|whard [REPS]");
            std::process::exit(2);
        }
    };
    let per_set = reps == 1 && std::env::var_os("PER").is_some();
    let started = Instant::now();
    for _ in 0..reps {
        for sample in &samples {
            // Each set counted anew, as in the bench.
            clear_count_cache();
            let set_started = Instant::now();
            let _ = ours(&sample.text);
            if per_set {
                let ms = set_started.elapsed().as_secs_f64() * 1e3;
                eprintln!("{ms:8.2} {} {}", sample.shape, sample.text);
            }
        }
    }
    println!("{which}: {:.1} ms", started.elapsed().as_secs_f64() * 1e3);
}

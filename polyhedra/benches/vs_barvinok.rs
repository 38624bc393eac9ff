//! Our counting time over barvinok's `card` on the oracle corpus, measured in one run, with
//! the spread per shape family; then the same on the harder corpus (existentials with
//! non-unit coefficients, unions of 13 to 16 parts); then our weighted sums over barvinok's
//! `sum` on both corpora carrying weights (per weight shape). A report, not an assertion
//! (target: ratio <= 1.0 on loop-nest-shaped sets of up to 4 variables, <= 2.0 on the harder
//! ones).

#[path = "../tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::time::Instant;

use common::corpus::{Sample, corpus, hard_corpus, weighted_corpus, weighted_hard_corpus};
use common::oracle::{OracleAnswer, barvinok_card, barvinok_sum};
use membound_polyhedra::{Count, Error, clear_count_cache, count_text, sum_text};

/// The median and the largest of per-set ratios.
fn spread(ratios: &mut [f64]) -> (f64, f64) {
    ratios.sort_by(f64::total_cmp);
    let median = ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN);
    (median, ratios.last().copied().unwrap_or(f64::NAN))
}

fn main() {
    println!("count vs barvinok's card, loop-nest corpus");
    let samples = corpus(240);
    report(&samples, &barvinok_card(&samples), count_text);
    println!("\ncount vs barvinok's card, harder corpus");
    let samples = hard_corpus(30);
    report(&samples, &barvinok_card(&samples), count_text);
    println!("\nsum vs barvinok's sum, loop-nest corpus with weights");
    let samples = weighted_corpus(240);
    report(&samples, &barvinok_sum(&samples), sum_text);
    println!("\nsum vs barvinok's sum, harder corpus with weights");
    let samples = weighted_hard_corpus(30);
    report(&samples, &barvinok_sum(&samples), sum_text);
}

/// One table: per shape and in total, our time, barvinok's, their ratio and its spread (the
/// samples barvinok crashed on are left out).
fn report(samples: &[Sample], answers: &[OracleAnswer], ours: fn(&str) -> Result<Count, Error>) {
    // Per shape: our seconds, barvinok's, and the per-set ratios.
    let mut per_shape: BTreeMap<&str, (f64, f64, Vec<f64>)> = BTreeMap::new();
    for (sample, answer) in samples.iter().zip(answers) {
        // Every set is counted anew, as barvinok does: the cache would answer a set seen
        // before (in another shape's names) without counting it.
        clear_count_cache();
        let started = Instant::now();
        let counted = ours(&sample.text);
        let ours = started.elapsed().as_secs_f64();
        if counted.is_err() || answer.crashed.is_some() {
            continue;
        }
        let entry = per_shape.entry(sample.shape).or_default();
        entry.0 += ours;
        entry.1 += answer.seconds;
        entry.2.push(ours / answer.seconds);
    }
    println!("shape      sets   ours (ms)   barvinok (ms)   ratio   per-set median   per-set max");
    let (mut ours, mut theirs, mut all) = (0.0, 0.0, Vec::new());
    for (shape, (o, t, ratios)) in &mut per_shape {
        let sets = ratios.len();
        all.extend(ratios.iter().copied());
        let (median, max) = spread(ratios);
        println!(
            "{shape:<10} {sets:>4} {:>11.2} {:>15.2} {:>7.2} {median:>16.2} {max:>13.2}",
            *o * 1e3,
            *t * 1e3,
            *o / *t
        );
        ours += *o;
        theirs += *t;
    }
    let sets = all.len();
    let (median, max) = spread(&mut all);
    println!(
        "total      {sets:>4} {:>11.2} {:>15.2} {:>7.2} {median:>16.2} {max:>13.2}",
        ours * 1e3,
        theirs * 1e3,
        ours / theirs
    );
}

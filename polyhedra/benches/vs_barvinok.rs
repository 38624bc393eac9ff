//! Our counting time over barvinok's `card` on the oracle corpus, measured in one run, with
//! the spread per shape family. A report, not an assertion (target: ratio <= 1.0 on
//! loop-nest-shaped sets of up to 4 variables).

#[path = "../tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::time::Instant;

use common::corpus::corpus;
use common::oracle::barvinok_card;
use membound_polyhedra::count_text;

fn main() {
    let samples = corpus(240);
    let answers = barvinok_card(&samples);
    let mut per_shape: BTreeMap<&str, (f64, f64, usize)> = BTreeMap::new();
    for (sample, answer) in samples.iter().zip(&answers) {
        let started = Instant::now();
        let counted = count_text(&sample.text);
        let ours = started.elapsed().as_secs_f64();
        if counted.is_err() {
            continue;
        }
        let entry = per_shape.entry(sample.shape).or_default();
        entry.0 += ours;
        entry.1 += answer.seconds;
        entry.2 += 1;
    }
    let (ours, theirs): (f64, f64) = per_shape
        .values()
        .fold((0.0, 0.0), |acc, v| (acc.0 + v.0, acc.1 + v.1));
    println!("shape      sets   ours (ms)   barvinok (ms)   ratio");
    for (shape, (o, t, n)) in &per_shape {
        println!(
            "{shape:<10} {n:>4} {:>11.2} {:>15.2} {:>7.2}",
            o * 1e3,
            t * 1e3,
            o / t
        );
    }
    println!(
        "total      {:>4} {:>11.2} {:>15.2} {:>7.2}",
        samples.len(),
        ours * 1e3,
        theirs * 1e3,
        ours / theirs
    );
}

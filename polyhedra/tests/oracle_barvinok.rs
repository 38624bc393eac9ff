//! Our counts equal barvinok's `card` on a deterministic corpus of 240 parametric sets, and on
//! 30 harder ones (existentials with non-unit coefficients, unions of 13 to 16 parts); our
//! weighted sums equal barvinok's `sum` on the same sets carrying weights of the shapes a call
//! site contributes (polynomial, periodic in dims and in parameters, over a call's argument).
//!
//! barvinok's summation is not as reliable as its `card`: it aborts on a few of those sums (a
//! failed assertion in its `summate.c`, or a segmentation fault), runs for minutes on one (the
//! oracle gives up after 20 s), and on a few others answers a value brute force refutes (a piece `i mod 3 = 0 and 0 < i <= n + 1 and i >= 2n - 1 and …`
//! summed to 10 at `n = 1`, where it has no point). Where barvinok gives no answer or disagrees with us,
//! brute force decides, and such samples must stay few.

mod common;

use std::collections::BTreeMap;

use common::brute::brute_sum;
use common::corpus::{Sample, corpus, hard_corpus, weighted_corpus, weighted_hard_corpus};
use common::oracle::{barvinok_card, barvinok_sum};
use membound_polyhedra::{Count, Int, Value, count_text, parse_piecewise, sum_text};

/// Brute force looks for points within this radius (every corpus set is inside it at the
/// parameter values tried).
const RADIUS: i64 = 64;

#[test]
fn counts_equal_barvinok_card_on_the_corpus() {
    agree_with_barvinok(&corpus(240));
}

#[test]
fn counts_equal_barvinok_card_on_the_hard_corpus() {
    agree_with_barvinok(&hard_corpus(30));
}

#[test]
fn sums_equal_barvinok_sum_on_the_weighted_corpus() {
    agree_with_barvinok_sum(&weighted_corpus(240));
}

#[test]
fn sums_equal_barvinok_sum_on_the_weighted_hard_corpus() {
    agree_with_barvinok_sum(&weighted_hard_corpus(30));
}

fn agree_with_barvinok(samples: &[Sample]) {
    let answers = barvinok_card(samples);
    assert_eq!(
        answers.len(),
        samples.len(),
        "the oracle answered every set"
    );
    let mut mismatches = Vec::new();
    for (sample, answer) in samples.iter().zip(&answers) {
        let count = match count_text(&sample.text) {
            Ok(count) => count,
            Err(error) => {
                mismatches.push(format!("{}: error {error}", sample.text));
                continue;
            }
        };
        for (point, expected) in sample.points.iter().zip(&answer.values) {
            let at: BTreeMap<String, Int> = sample
                .params
                .iter()
                .cloned()
                .zip(point.iter().map(|&v| Int::from(v)))
                .collect();
            let ours = count
                .eval(&at)
                .map(|v| v.to_string())
                .unwrap_or_else(|e| e.to_string());
            if &ours != expected {
                mismatches.push(format!(
                    "{} at {point:?}: ours {ours}, barvinok {expected}",
                    sample.text
                ));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// The parameter point of `values` for `sample`.
fn point_of(sample: &Sample, values: &[i64]) -> BTreeMap<String, Int> {
    sample
        .params
        .iter()
        .cloned()
        .zip(values.iter().map(|&v| Int::from(v)))
        .collect()
}

/// The sum of a sample (a piecewise quasi-polynomial) at `values` by brute force.
fn brute_force_sum(sample: &Sample, values: &[i64]) -> String {
    let weighted = parse_piecewise(&sample.text).expect("corpus weights parse");
    let total = weighted
        .pieces
        .iter()
        .map(|piece| brute_sum(&piece.domain, values, RADIUS, &piece.qp))
        .sum();
    Value::Finite(total).to_string()
}

/// Our sums equal barvinok's, or brute force's where barvinok gave none or disagrees; the
/// samples brute force had to decide are at most a fifth (4 of the 30 hard ones, 7 of the 240
/// others, when this was written).
fn agree_with_barvinok_sum(samples: &[Sample]) {
    let answers = barvinok_sum(samples);
    assert_eq!(
        answers.len(),
        samples.len(),
        "the oracle answered every sum"
    );
    let (mut mismatches, mut overruled) = (Vec::new(), Vec::new());
    for (sample, answer) in samples.iter().zip(&answers) {
        let summed: Count = match sum_text(&sample.text) {
            Ok(summed) => summed,
            Err(error) => {
                mismatches.push(format!("{}: error {error}", sample.text));
                continue;
            }
        };
        let mut barvinok_refuted = answer.crashed.is_some();
        for (index, values) in sample.points.iter().enumerate() {
            let ours = summed
                .eval(&point_of(sample, values))
                .map(|v| v.to_string())
                .unwrap_or_else(|e| e.to_string());
            let barvinok = answer.values.get(index);
            if barvinok == Some(&ours) {
                continue;
            }
            let brute = brute_force_sum(sample, values);
            if brute == ours {
                barvinok_refuted = true;
            } else {
                mismatches.push(format!(
                    "{} at {values:?}: ours {ours}, brute force {brute}, barvinok {}",
                    sample.text,
                    barvinok.map_or_else(|| format!("{:?}", answer.crashed), String::clone)
                ));
            }
        }
        if barvinok_refuted {
            overruled.push(sample.text.as_str());
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    assert!(
        overruled.len() * 5 <= samples.len(),
        "barvinok gave no answer or was refuted by brute force on {} of {} samples:\n{}",
        overruled.len(),
        samples.len(),
        overruled.join("\n")
    );
}

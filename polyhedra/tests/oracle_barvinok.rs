//! Our counts equal barvinok's `card` on a deterministic corpus of 240 parametric sets, and on
//! 30 harder ones (existentials with non-unit coefficients, unions of 13 to 16 parts).

mod common;

use std::collections::BTreeMap;

use common::corpus::{Sample, corpus, hard_corpus};
use common::oracle::barvinok_card;
use membound_polyhedra::{Int, count_text};

#[test]
fn counts_equal_barvinok_card_on_the_corpus() {
    agree_with_barvinok(&corpus(240));
}

#[test]
fn counts_equal_barvinok_card_on_the_hard_corpus() {
    agree_with_barvinok(&hard_corpus(30));
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

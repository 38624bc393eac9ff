//! Deterministic mini-fuzz of this crate's two readers (the `fuzz/` targets `isl_text` and
//! `bound_expr` run the same checks at length): mutated isl text through `membound bound`'s
//! path, mutated bound-expression text through reading, printing, evaluation, simplification
//! and Java generation. Every input ends within a time limit with a value or an error, never a
//! panic or a hang.

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::time::Duration;

use membound_bernstein::{Guard, bound_text, parse_bound, simplify, to_java};
use membound_polyhedra::Rat;

/// xorshift, as the other mini-fuzzes.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// `seed` with one to four characters replaced, removed, inserted from `alphabet`, or a piece
/// repeated.
fn mutated(random: &mut Random, seed: &str, alphabet: &[u8]) -> String {
    let mut bytes = seed.as_bytes().to_vec();
    for _ in 0..1 + random.below(4) {
        let at = random.below(bytes.len());
        match random.below(4) {
            0 => bytes[at] = alphabet[random.below(alphabet.len())],
            1 => {
                bytes.remove(at);
            }
            2 => {
                let end = (at + random.below(12)).min(bytes.len());
                let piece = bytes[at..end].to_vec();
                for _ in 0..1 + random.below(30) {
                    bytes.splice(at..at, piece.iter().copied());
                }
            }
            _ => bytes.insert(at, alphabet[random.below(alphabet.len())]),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Runs `work` on `input` on a thread and fails when it takes longer than `limit`.
fn within(limit: Duration, input: String, work: fn(&str)) {
    let (send, receive) = mpsc::channel();
    let shown = input.clone();
    std::thread::spawn(move || {
        work(&input);
        let _ = send.send(());
    });
    match receive.recv_timeout(limit) {
        Ok(()) => {}
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("took more than {limit:?}: {shown}"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("panicked on: {shown}"),
    }
}

const ISL_SEEDS: [&str; 3] = [
    "[n] -> { [i] -> i*(n - i) : 0 <= i <= n }",
    "[n, m] -> { [i, j] -> i^2*j + 3*n : 0 <= i <= n and 0 <= j <= i + m and j <= 7 }",
    "[P1, P2] -> { [i] -> 1/3*i^2 + floor(i/2) : 1 <= i <= P1 + P2 and i <= 3P2 }",
];

#[test]
fn mutated_isl_text_is_bounded_or_refused_within_a_time_limit() {
    let mut random = Random(0x15);
    for round in 0..600 {
        let text = mutated(
            &mut random,
            ISL_SEEDS[round % ISL_SEEDS.len()],
            b"[]{}()<>=:-+*/^0123456789ijnm ,;and",
        );
        within(Duration::from_secs(20), text, |text| {
            if let Ok(bound) = bound_text(text) {
                assert!(parse_bound(&bound.to_text()).is_ok(), "{text}");
            }
        });
    }
}

const EXPRESSION_SEEDS: [&str; 3] = [
    "(1 + 3*mc) + cases(mc >= 7 -> (mc^2); otherwise -> max((6*mc), (1/2*mc^2)))",
    "(8/3)*4^(l) + (-8/3) + 2^[floor_log2(n) + (1)]*(n)",
    "max((n), cases(n >= 5 -> infty; otherwise -> (2*n + floor(n/2)))) + 3^(n - 2)",
];

#[test]
fn mutated_expressions_are_read_or_refused_within_a_time_limit() {
    let mut random = Random(0x17);
    for round in 0..3000 {
        let text = mutated(
            &mut random,
            EXPRESSION_SEEDS[round % EXPRESSION_SEEDS.len()],
            b"[]()^*+-/;,>=0123456789nml infty max( cases( floor_log2",
        );
        within(Duration::from_secs(20), text, |text| {
            let Ok(expr) = parse_bound(text) else { return };
            let printed = expr.to_text();
            assert!(parse_bound(&printed).is_ok(), "{text} printed {printed}");
            let _ = expr.to_readable();
            let point: BTreeMap<String, Rat> = expr
                .params()
                .into_iter()
                .map(|name| (name, Rat::from(9)))
                .collect();
            if let Ok(value) = expr.eval(&point) {
                let simplified = simplify(&expr, &Guard::always());
                if let Ok(again) = simplified.eval(&point) {
                    assert_eq!(again, value, "{text}");
                }
            }
            let _ = to_java(&expr, "Fuzz", "bound");
        });
    }
}

//! A deterministic mini-fuzz of the two readers, run with the ordinary tests: valid files
//! mutated many ways (bytes flipped, lengths set to extremes, cut short, pieces repeated) must
//! each give a snapshot or an input error within a time limit — never a panic, never a hang.
//! `fuzz/fuzz_targets/heap_snapshots.rs` is the open-ended version.

use crate::error::Error;
use std::sync::mpsc;
use std::time::Duration;

/// Generous: a read of these small inputs takes microseconds; only a loop would reach it.
const TIME_LIMIT: Duration = Duration::from_secs(10);

/// xorshift64: the same mutations on every run.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound.max(1) as u64) as usize
    }
}

fn mutate(original: &[u8], random: &mut Random) -> Vec<u8> {
    let mut bytes = original.to_vec();
    for _ in 0..1 + random.below(3) {
        let at = random.below(bytes.len());
        match random.below(5) {
            0 => bytes[at] ^= 1 << random.below(8),
            1 => {
                let value = [0u32, 1, 0x7fff_ffff, 0xffff_ffff][random.below(4)];
                for (i, b) in value.to_be_bytes().into_iter().enumerate() {
                    if let Some(slot) = bytes.get_mut(at + i) {
                        *slot = b;
                    }
                }
            }
            2 => bytes.truncate(at),
            3 => {
                let end = (at + 1 + random.below(32)).min(bytes.len());
                let piece = bytes[at..end].to_vec();
                bytes.splice(at..at, piece);
            }
            _ => bytes[at] = random.next() as u8,
        }
        if bytes.is_empty() {
            break;
        }
    }
    bytes
}

/// Reads `input` with `read` in a thread of its own: Ok when it finished (well or with an
/// input error) in time; the failure otherwise.
fn read_in_time(input: Vec<u8>, read: fn(&[u8]) -> Result<(), Error>) -> Result<(), String> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(|| read(&input));
        let _ = sender.send(outcome.map_err(|_| input));
    });
    match receiver.recv_timeout(TIME_LIMIT) {
        Ok(Ok(Ok(()))) | Ok(Ok(Err(Error::Input(_)))) => Ok(()),
        Ok(Ok(Err(other))) => Err(format!("not an input error: {other}")),
        Ok(Err(input)) => Err(format!("panicked on {input:?}")),
        Err(_) => Err("took longer than the time limit".to_owned()),
    }
}

fn fuzz(seed: u64, original: &[u8], runs: usize, read: fn(&[u8]) -> Result<(), Error>) {
    let mut random = Random(seed);
    for run in 0..runs {
        let input = mutate(original, &mut random);
        if let Err(failure) = read_in_time(input, read) {
            panic!("mutation {run}: {failure}");
        }
    }
}

#[test]
fn mutated_hprof_dumps_never_panic_or_hang() {
    let original = crate::hprof::tests::small_dump();
    fuzz(0x9e37_79b9_7f4a_7c15, &original, 3000, |bytes| {
        crate::hprof::read(bytes).map(|_| ())
    });
}

#[test]
fn mutated_agent_files_never_panic_or_hang() {
    let original = crate::agent_file::tests::SAMPLE.as_bytes();
    fuzz(0x2545_f491_4f6c_dd1d, original, 3000, |bytes| {
        crate::agent_file::read(bytes).map(|_| ())
    });
}

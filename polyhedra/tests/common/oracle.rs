//! Runs barvinok's `card` and `sum` (islpy-barvinok, GPL, in its own process) on a batch of
//! sets or of piecewise quasi-polynomials.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::corpus::Sample;

pub struct OracleAnswer {
    pub values: Vec<String>,
    pub seconds: f64,
    /// Why barvinok's summation gave no answer on this sample: the signal that ended it (it
    /// aborts on some inputs), or "timeout" (it runs for minutes on others).
    pub crashed: Option<String>,
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The venv's python, made by `scripts/ensure-oracle-venv.sh`; panics with the reason when the
/// venv cannot be made (oracle tests must run, never skip).
pub fn oracle_python() -> PathBuf {
    let script = repo_root().join("scripts/ensure-oracle-venv.sh");
    let output = Command::new("bash")
        .arg(&script)
        .output()
        .expect("cannot run scripts/ensure-oracle-venv.sh");
    assert!(
        output.status.success(),
        "the barvinok oracle venv could not be made by {}:\n{}",
        script.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// barvinok's count of every sample (a set) at its points.
pub fn barvinok_card(samples: &[Sample]) -> Vec<OracleAnswer> {
    barvinok("set", samples)
}

/// barvinok's sum of every sample (a piecewise quasi-polynomial over its domain) at its
/// points.
pub fn barvinok_sum(samples: &[Sample]) -> Vec<OracleAnswer> {
    barvinok("sum", samples)
}

/// Runs the oracle with each sample's text under `key` (`set` for `card`, `sum` for `sum`).
fn barvinok(key: &str, samples: &[Sample]) -> Vec<OracleAnswer> {
    let script = repo_root().join("polyhedra/tests/oracle/card.py");
    let mut child = Command::new(oracle_python())
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("cannot start the barvinok oracle");
    let mut input = String::new();
    for sample in samples {
        let request = serde_json::json!({ key: sample.text, "params": sample.params, "points": sample.points });
        input.push_str(&request.to_string());
        input.push('\n');
    }
    child
        .stdin
        .take()
        .expect("oracle stdin")
        .write_all(input.as_bytes())
        .expect("writing to the oracle");
    let output = child.wait_with_output().expect("oracle output");
    assert!(output.status.success(), "the barvinok oracle failed");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| {
            let answer: serde_json::Value =
                serde_json::from_str(line).expect("oracle answer is JSON");
            OracleAnswer {
                values: answer["values"]
                    .as_array()
                    .map(|v| {
                        v.iter()
                            .map(|x| x.as_str().unwrap_or_default().to_string())
                            .collect()
                    })
                    .unwrap_or_default(),
                seconds: answer["seconds"].as_f64().unwrap_or(0.0),
                crashed: answer["crashed"].as_str().map(str::to_string),
            }
        })
        .collect()
}

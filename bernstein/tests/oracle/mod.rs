//! Comparison of our upper bounds with isl's own Bernstein bound (`PwQPolynomial.bound` in
//! islpy-barvinok, GPL: run as a separate Python process, never linked). Shared by the test
//! `tests/vs_isl.rs` and the benchmark `benches/vs_isl.rs`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use membound_bernstein::bound_text;
use membound_polyhedra::{Int, Rat, Value, parse_piecewise};

/// One problem, the integer parameter points where its set has integer points, and the true
/// maximum over those integer points (by enumeration) at each.
pub struct Problem {
    pub text: String,
    pub points: Vec<BTreeMap<String, i64>>,
    pub maxima: Vec<Rat>,
}

/// Our value, isl's and the true maximum at one point.
pub struct Comparison {
    pub text: String,
    pub point: BTreeMap<String, i64>,
    pub ours: Rat,
    pub isl: Rat,
    pub truth: Rat,
}

impl Comparison {
    /// isl's value is below the true maximum: its bound is wrong there, so tightness is
    /// judged against the true maximum instead.
    pub fn isl_unsound(&self) -> bool {
        self.isl < self.truth
    }
    /// Our bound is above isl's (where isl is sound) or above the true maximum (where not).
    pub fn looser(&self) -> bool {
        self.ours > self.isl.clone().max(self.truth.clone())
    }
}

/// A small deterministic generator (xorshift), so runs compare the same problems.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn range(&mut self, low: i64, high: i64) -> i64 {
        low + (self.next() % ((high - low + 1) as u64)) as i64
    }
}

const MONOMIALS: [&str; 9] = ["1", "i", "j", "i^2", "i*j", "j^2", "n*i", "n*j", "i^2*j"];

/// `count` problems: the `i*(n - i)` family, then random polynomials of degree up to 3 over
/// triangles, trapezoids and boxes in one or two parameters.
pub fn problems(count: usize) -> Vec<Problem> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut texts = vec![
        "[n] -> { [i] -> i*(n - i) : 0 <= i <= n }".to_string(),
        "[n] -> { [i] -> 3*i*(n - i) + i : 0 <= i <= n }".to_string(),
        "[n, m] -> { [i, j] -> i*(n - i) + j*(m - j) : 0 <= i <= n and 0 <= j <= m }".to_string(),
    ];
    while texts.len() < count {
        texts.push(random_problem(&mut rng));
    }
    texts
        .into_iter()
        .map(|text| {
            let (points, maxima) = points_with_maxima(&text);
            Problem {
                text,
                points,
                maxima,
            }
        })
        .collect()
}

fn random_problem(rng: &mut Rng) -> String {
    let two_params = rng.range(0, 1) == 1;
    let mut terms = Vec::new();
    for monomial in MONOMIALS {
        let coeff = rng.range(-3, 3);
        if coeff != 0 {
            terms.push(format!("{coeff}*{monomial}"));
        }
    }
    let poly = if terms.is_empty() {
        "i".to_string()
    } else {
        terms.join(" + ").replace("+ -", "- ")
    };
    let j_upper = match rng.range(0, 2) {
        0 => "i".to_string(),
        1 => {
            if two_params {
                "m".to_string()
            } else {
                "n".to_string()
            }
        }
        _ => format!("n - i + {}", rng.range(0, 2)),
    };
    let extra = format!(
        "{}*i + {}*j <= {}*n + {}",
        rng.range(-2, 2),
        rng.range(-2, 2),
        rng.range(1, 2),
        rng.range(0, 4)
    );
    let params = if two_params { "n, m" } else { "n" };
    format!(
        "[{params}] -> {{ [i, j] -> {poly} : 0 <= i <= n and 0 <= j <= {j_upper} and {extra} }}"
    )
}

/// Parameter points (n, m in 0..=8) where the set has an integer point, with the maximum of
/// the polynomial over those points.
fn points_with_maxima(text: &str) -> (Vec<BTreeMap<String, i64>>, Vec<Rat>) {
    let pw = parse_piecewise(text).expect("generated problems parse");
    let params = pw.space.params.clone();
    let values: Vec<i64> = vec![0, 1, 2, 3, 5, 8];
    let combos: Vec<Vec<i64>> = if params.len() == 2 {
        values
            .iter()
            .flat_map(|&n| values.iter().map(move |&m| vec![n, m]))
            .collect()
    } else {
        values.iter().map(|&n| vec![n]).collect()
    };
    let mut points = Vec::new();
    let mut maxima = Vec::new();
    for combo in combos {
        let param_values: Vec<Int> = combo.iter().map(|&v| Int::from(v)).collect();
        let mut best: Option<Rat> = None;
        for piece in &pw.pieces {
            for i in -2..=20i64 {
                for j in -2..=20i64 {
                    let x = &[i, j][..pw.space.dims.len()];
                    let dims: Vec<Int> = x.iter().map(|&v| Int::from(v)).collect();
                    if !piece.domain.contains(&param_values, &dims).unwrap_or(false) {
                        continue;
                    }
                    let value =
                        piece
                            .qp
                            .eval(&|name| match pw.space.dims.iter().position(|d| d == name) {
                                Some(k) => Rat::from(x[k]),
                                None => Rat::from(
                                    combo[params.iter().position(|p| p == name).unwrap_or(0)],
                                ),
                            });
                    if best.as_ref().is_none_or(|b| value > *b) {
                        best = Some(value);
                    }
                }
            }
        }
        if let Some(best) = best {
            points.push(params.iter().cloned().zip(combo).collect());
            maxima.push(best);
        }
    }
    (points, maxima)
}

/// The python of the oracle venv (created by `scripts/ensure-oracle-venv.sh`, or a clear
/// error saying why it is not there).
fn oracle_python() -> Result<PathBuf, String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let script = root.join("scripts/ensure-oracle-venv.sh");
    let output = Command::new("bash")
        .arg(&script)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} failed (python3 with venv and network access to install islpy-barvinok are needed):\n{}",
            script.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let path = String::from_utf8_lossy(&output.stdout).trim().to_string();
    let python = PathBuf::from(path);
    let check = Command::new(&python)
        .args(["-c", "import islpy; islpy.PwQPolynomial"])
        .output();
    match check {
        Ok(out) if out.status.success() => Ok(python),
        _ => Err(format!(
            "{} cannot import islpy with PwQPolynomial",
            python.display()
        )),
    }
}

/// isl's bound values at every problem's points.
fn isl_values(problems: &[Problem]) -> Result<Vec<Vec<Rat>>, String> {
    let python = oracle_python()?;
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/isl_bound.py");
    let requests: Vec<serde_json::Value> = problems
        .iter()
        .map(|p| serde_json::json!({ "problem": p.text, "points": p.points }))
        .collect();
    let mut child = Command::new(&python)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", python.display()))?;
    let input = serde_json::to_vec(&requests).map_err(|e| e.to_string())?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(&input)
        .map_err(|e| e.to_string())?;
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!(
            "isl oracle failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let answers: Vec<serde_json::Value> =
        serde_json::from_slice(&output.stdout).map_err(|e| e.to_string())?;
    answers
        .iter()
        .map(|answer| {
            let values = answer["values"].as_array().ok_or("values missing")?;
            values
                .iter()
                .map(|v| {
                    let text = v.as_str().ok_or("value is not a string")?;
                    text.parse::<Rat>()
                        .map_err(|_| format!("isl value `{text}` is not a finite rational"))
                })
                .collect()
        })
        .collect()
}

/// Our bound and isl's at every point of every problem.
pub fn compare(problems: &[Problem]) -> Result<Vec<Comparison>, String> {
    let theirs = isl_values(problems)?;
    let mut comparisons = Vec::new();
    for (problem, isl_values) in problems.iter().zip(theirs) {
        let bound = bound_text(&problem.text).map_err(|e| format!("{}: {e}", problem.text))?;
        for ((point, isl), truth) in problem.points.iter().zip(isl_values).zip(&problem.maxima) {
            let at: BTreeMap<String, Rat> = point
                .iter()
                .map(|(k, v)| (k.clone(), Rat::from(*v)))
                .collect();
            let ours = match bound.eval(&at).map_err(|e| e.to_string())? {
                Value::Finite(v) => v,
                Value::Infinite => {
                    return Err(format!("{}: our bound is ∞ on a bounded set", problem.text));
                }
            };
            if ours < *truth {
                let text = &problem.text;
                return Err(format!(
                    "UNSOUND: {text} at {point:?}: ours {ours} < true maximum {truth}"
                ));
            }
            let truth = truth.clone();
            comparisons.push(Comparison {
                text: problem.text.clone(),
                point: point.clone(),
                ours,
                isl,
                truth,
            });
        }
    }
    Ok(comparisons)
}

/// `ours / isl` as a float where isl's value is positive and ours is not negative (a ratio
/// across signs says nothing); for reporting only, never used to decide.
pub fn ratio(c: &Comparison) -> Option<f64> {
    let comparable = c.isl.is_positive() && !c.ours.is_negative();
    comparable.then(|| c.ours.to_f64_lossy() / c.isl.to_f64_lossy())
}

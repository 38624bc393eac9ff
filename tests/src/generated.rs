//! Random Java programs of affine loop nests, calls inside loops (with affine arguments) and
//! allocations of objects and of arrays of affine length, for the tests that compare the
//! analysis with real runs (`tests/tests/generated.rs`) and with the chain enumeration
//! (`analysis/tests/summaries_vs_chains.rs`). Every count in such a program is a polynomial in
//! its parameters. A fixed seed draws the same programs on every machine.

use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The seed the tests draw their programs from: `MEMBOUND_GENERATED_SEED` if set, so a failure
/// reproduces and other programs can be tried, else a fixed one.
pub fn seed() -> u64 {
    std::env::var("MEMBOUND_GENERATED_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_261_122)
}

/// A small deterministic generator (SplitMix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// How many methods a program has (m0 the entry, each calling only later ones).
const METHODS: usize = 3;
const MAX_DEPTH: usize = 3;

/// One generated program: its class name and Java source.
pub struct Program {
    pub class: String,
    pub source: String,
}

struct Writer<'r> {
    rng: &'r mut Rng,
    out: String,
    fresh: usize,
    method: usize,
}

impl Writer<'_> {
    /// `c0 + Σ c·v` over some of `vars` (all of them non-negative), non-negative.
    fn affine(&mut self, vars: &[String]) -> String {
        let mut terms = vec![self.rng.below(3).to_string()];
        for _ in 0..self.rng.below(3) {
            if vars.is_empty() {
                break;
            }
            let var = &vars[self.rng.below(vars.len())];
            let coeff = 1 + self.rng.below(2);
            terms.push(if coeff == 1 {
                var.clone()
            } else {
                format!("{coeff} * {var}")
            });
        }
        terms.join(" + ")
    }

    fn line(&mut self, depth: usize, text: &str) {
        let _ = writeln!(self.out, "{}{text}", "    ".repeat(depth + 2));
    }

    /// Where a new object or a call's result goes: dropped (captured), returned, or static.
    fn destination(&mut self, value: &str, depth: usize) {
        let text = match self.rng.below(3) {
            0 => {
                self.fresh += 1;
                format!("Object d{} = {value};", self.fresh)
            }
            1 => format!("r = {value};"),
            _ => format!("keep = {value};"),
        };
        self.line(depth, &text);
    }

    fn block(&mut self, depth: usize, vars: &mut Vec<String>) {
        for _ in 0..1 + self.rng.below(3) {
            let choice = self.rng.below(100);
            if choice < 35 && depth < MAX_DEPTH {
                self.fresh += 1;
                let var = format!("i{}", self.fresh);
                let lower = if vars.is_empty() || self.rng.chance(60) {
                    self.rng.below(2).to_string()
                } else {
                    vars[self.rng.below(vars.len())].clone()
                };
                let upper = self.affine(vars);
                self.line(
                    depth,
                    &format!("for (int {var} = {lower}; {var} <= {upper}; {var}++) {{"),
                );
                vars.push(var);
                self.block(depth + 1, vars);
                vars.pop();
                self.line(depth, "}");
            } else if choice < 80 || self.method + 1 == METHODS {
                let value = match self.rng.below(4) {
                    0 => "new Box()".to_string(),
                    1 => format!("new int[{}]", self.affine(vars)),
                    2 => format!("new Box[{}]", self.affine(vars)),
                    _ => format!("new long[{}][{}]", self.affine(vars), self.affine(vars)),
                };
                self.destination(&value, depth);
            } else {
                let callee = self.method + 1 + self.rng.below(METHODS - self.method - 1);
                let call = format!("m{callee}({}, {})", self.affine(vars), self.affine(vars));
                self.destination(&call, depth);
            }
        }
    }
}

pub fn generate(rng: &mut Rng, index: usize) -> Program {
    let class = format!("G{index}");
    let mut writer = Writer {
        rng,
        out: String::new(),
        fresh: 0,
        method: 0,
    };
    for method in 0..METHODS {
        writer.method = method;
        let (a, b) = if method == 0 { ("a", "b") } else { ("n", "p") };
        let _ = writeln!(
            writer.out,
            "    static Object m{method}(int {a}, int {b}) {{\n        Object r = null;"
        );
        let mut vars = vec![a.to_string(), b.to_string()];
        writer.block(0, &mut vars);
        writer.out.push_str("        return r;\n    }\n\n");
    }
    let source = format!(
        "package gen;

/** Generated by membound-tests (tests/src/generated.rs). */
public final class {class} {{
    static Object keep;

    static final class Box {{
        Object ref;
    }}

    public static void main(String[] args) {{
        for (int k = 0; k + 1 < args.length; k += 2) {{
            m0(Integer.parseInt(args[k]), Integer.parseInt(args[k + 1]));
        }}
    }}

{}}}
",
        writer.out
    );
    Program { class, source }
}

/// Writes and compiles the programs into one directory of classes.
pub fn compile(programs: &[Program], dir: &Path) -> PathBuf {
    let sources = dir.join("src/gen");
    std::fs::create_dir_all(&sources).expect("source dir");
    let mut files = Vec::new();
    for program in programs {
        let file = sources.join(format!("{}.java", program.class));
        std::fs::write(&file, &program.source).expect("write source");
        files.push(file);
    }
    let classes = dir.join("classes");
    let output = std::process::Command::new("javac")
        .args(["-g", "-nowarn", "-d"])
        .arg(&classes)
        .args(&files)
        .output()
        .expect("javac runs");
    assert!(
        output.status.success(),
        "javac: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    classes
}

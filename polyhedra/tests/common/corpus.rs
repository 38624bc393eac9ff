//! A deterministic corpus of loop-nest-shaped parametric sets (up to 4 variables, 2
//! parameters; some with `mod`, strides through `exists`, and unions), and a smaller one of
//! harder shapes (an existential with non-unit coefficients on both sides of its bounds or in an
//! equality, unions of 13 to 16 parts), shared by the barvinok oracle test and the
//! benchmark.

/// A set in isl syntax with its parameters, the parameter points to compare at, and the shape
/// family it belongs to.
pub struct Sample {
    pub text: String,
    pub params: Vec<String>,
    pub points: Vec<Vec<i64>>,
    pub shape: &'static str,
}

/// Small linear congruential generator: the corpus must not change between runs.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> i64 {
        (self.next() % n) as i64
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64)
    }
}

const VARS: [&str; 4] = ["i", "j", "k", "l"];
const PARAMS: [&str; 2] = ["n", "m"];

fn term(coeff: i64, name: &str) -> String {
    match coeff {
        1 => name.to_string(),
        -1 => format!("-{name}"),
        c => format!("{c}{name}"),
    }
}

/// A bound on variable `index`: an affine form of the parameters and the outer variables.
fn bound(rng: &mut Lcg, index: usize, params: usize, upper: bool) -> String {
    let mut parts = Vec::new();
    if upper || rng.below(3) == 0 {
        parts.push(term(
            rng.range(1, 2),
            PARAMS[rng.below(params as u64) as usize],
        ));
    }
    if index > 0 && rng.below(2) == 0 {
        let outer = VARS[rng.below(index as u64) as usize];
        let coeff = if upper { rng.range(-1, 1) } else { 1 };
        if coeff != 0 {
            parts.push(term(coeff, outer));
        }
    }
    let constant = rng.range(-2, 2);
    if parts.is_empty() || constant != 0 {
        parts.push(constant.to_string());
    }
    parts.join(" + ").replace("+ -", "- ")
}

fn nest(rng: &mut Lcg, dims: usize, params: usize) -> (String, &'static str) {
    let mut constraints = Vec::new();
    let mut shape = "nest";
    for (index, var) in VARS.iter().enumerate().take(dims) {
        let lower = bound(rng, index, params, false);
        let upper = bound(rng, index, params, true);
        constraints.push(format!("{lower} <= {var} <= {upper}"));
    }
    match rng.below(6) {
        0 => {
            let var = VARS[rng.below(dims as u64) as usize];
            let modulus = rng.range(2, 3);
            constraints.push(format!(
                "{var} mod {modulus} = {}",
                rng.range(0, modulus - 1)
            ));
            shape = "mod";
        }
        1 => {
            let var = VARS[rng.below(dims as u64) as usize];
            constraints.push(format!(
                "exists t : {var} = {}t + {}",
                rng.range(2, 3),
                rng.range(0, 1)
            ));
            shape = "stride";
        }
        2 if dims >= 2 => {
            constraints.push(format!(
                "{} + {} <= {}",
                VARS[0],
                VARS[1],
                bound(rng, 0, params, true)
            ));
            shape = "cut";
        }
        _ => {}
    }
    (constraints.join(" and "), shape)
}

/// `size` sets, the same on every run.
pub fn corpus(size: usize) -> Vec<Sample> {
    let mut rng = Lcg(0x5eed_cafe);
    (0..size)
        .map(|_| {
            let dims = rng.range(1, 4) as usize;
            let params = rng.range(1, 2) as usize;
            let (mut body, mut shape) = nest(&mut rng, dims, params);
            if rng.below(6) == 0 {
                let (other, _) = nest(&mut rng, dims, params);
                body = format!("({body}) or ({other})");
                shape = "union";
            }
            let names: Vec<String> = PARAMS[..params].iter().map(|s| s.to_string()).collect();
            let text = format!(
                "[{}] -> {{ [{}] : {body} }}",
                names.join(", "),
                VARS[..dims].join(", ")
            );
            let points = (0..6)
                .map(|_| (0..params).map(|_| rng.range(-1, 7)).collect())
                .collect();
            Sample {
                text,
                params: names,
                points,
                shape,
            }
        })
        .collect()
}

/// An affine form of `names` with coefficients in [-1, 1] and a constant in [-2, 2].
fn small_form(rng: &mut Lcg, names: &[&str]) -> String {
    let mut text = rng.range(-2, 2).to_string();
    for name in names {
        match rng.range(-1, 1) {
            0 => {}
            c => text.push_str(&format!(" + {}", term(c, name))),
        }
    }
    text.replace("+ -", "- ")
}

/// One set whose existential no projection handles exactly: `t` bounded with coefficients 2
/// or 3 on both sides, maybe fixed by an equality `a*t = …` with `a` in 2..=3.
fn existential(rng: &mut Lcg) -> (String, &'static str, usize) {
    let dims = rng.range(1, 2) as usize;
    let names: Vec<&str> = VARS[..dims].iter().chain(&PARAMS[..1]).copied().collect();
    let mut constraints: Vec<String> = VARS[..dims]
        .iter()
        .map(|v| format!("0 <= {v} <= n + {}", rng.range(-1, 1)))
        .collect();
    let low = small_form(rng, &names);
    let high = small_form(rng, &names);
    constraints.push(format!("{}t >= {low}", rng.range(2, 3)));
    constraints.push(format!("{}t <= {high} + 3", rng.range(2, 3)));
    let shape = if rng.below(3) == 0 {
        let form = small_form(rng, &names);
        constraints.push(format!("{}t = {form}", rng.range(2, 3)));
        "exists-eq"
    } else {
        "exists"
    };
    let body = format!("exists (t : {})", constraints.join(" and "));
    (body, shape, dims)
}

/// The harder corpus: `size` sets, the same on every run, over one parameter `n`.
pub fn hard_corpus(size: usize) -> Vec<Sample> {
    let mut rng = Lcg(0x00dd_ba11);
    (0..size)
        .map(|index| {
            let (body, shape, dims) = if index % 3 == 2 {
                let dims = rng.range(1, 2) as usize;
                let parts: Vec<String> = (0..rng.range(13, 16))
                    .map(|_| format!("({})", nest(&mut rng, dims, 1).0))
                    .collect();
                (parts.join(" or "), "union13+", dims)
            } else {
                existential(&mut rng)
            };
            let text = format!("[n] -> {{ [{}] : {body} }}", VARS[..dims].join(", "));
            let points = (0..6).map(|_| vec![rng.range(-1, 7)]).collect();
            Sample {
                text,
                params: vec!["n".to_string()],
                points,
                shape,
            }
        })
        .collect()
}

/// The weight shapes of a call site's contribution (a callee's count in its formals, summed
/// over the caller's points), by name; `{v}`/`{w}` are dims, `{p}` a parameter. "argument"
/// adds a dim `x` bound to an affine expression of a dim and a parameter (a call's argument)
/// and weighs by it.
const WEIGHT_SHAPES: [(&str, &str); 6] = [
    ("square", "{v}^2"),
    ("product", "{v}*{w} + {p}"),
    // [1, 0]_v: 1 on even v.
    ("periodic", "1 - {v} + 2*floor({v}/2)"),
    // isl reads no `mod` in a quasi-polynomial: `v mod 2` is `v - 2*floor(v/2)`.
    ("mixed", "floor(({v} + {p})/3)*{w} + {v} - 2*floor({v}/2)"),
    ("in-params", "floor({p}/2)*{v} + {p} - 3*floor({p}/3)"),
    ("argument", "x^2 + floor(x/2)*{v}"),
];

/// `sample` (a set `[params] -> { [dims] : body }`) carrying a weight of a shape picked by
/// `rng`: the text becomes an isl piecewise quasi-polynomial over the set, and the shape the
/// weight's.
fn with_weight(rng: &mut Lcg, sample: Sample) -> Sample {
    let (head, body) = sample.text.split_once("] : ").expect("a set with a body");
    let (params_part, dims) = head.split_once("{ [").expect("a tuple");
    let body = body.strip_suffix(" }").expect("a closed set");
    let dims: Vec<&str> = dims.split(", ").collect();
    let (shape, template) = WEIGHT_SHAPES[rng.below(WEIGHT_SHAPES.len() as u64) as usize];
    let pick =
        |rng: &mut Lcg, names: &[&str]| names[rng.below(names.len() as u64) as usize].to_string();
    let param_names: Vec<&str> = sample.params.iter().map(String::as_str).collect();
    let (v, w, p) = (pick(rng, &dims), pick(rng, &dims), pick(rng, &param_names));
    let weight = template
        .replace("{v}", &v)
        .replace("{w}", &w)
        .replace("{p}", &p);
    let text = if shape == "argument" {
        let binding = format!("x = {}{v} + {p} + {}", rng.range(1, 3), rng.range(-1, 1));
        format!(
            "{params_part}{{ [{}, x] -> {weight} : ({body}) and {binding} }}",
            dims.join(", ")
        )
    } else {
        format!(
            "{params_part}{{ [{}] -> {weight} : {body} }}",
            dims.join(", ")
        )
    };
    Sample {
        text,
        shape,
        ..sample
    }
}

/// The corpus's first `size` sets, each with a weight of one of [`WEIGHT_SHAPES`]: isl
/// piecewise quasi-polynomials, the same on every run.
pub fn weighted_corpus(size: usize) -> Vec<Sample> {
    let mut rng = Lcg(0x0005_0e16);
    corpus(size)
        .into_iter()
        .map(|sample| with_weight(&mut rng, sample))
        .collect()
}

/// The harder corpus's first `size` sets (existentials, unions of 13 to 16 parts), each with a
/// weight as in [`weighted_corpus`].
pub fn weighted_hard_corpus(size: usize) -> Vec<Sample> {
    let mut rng = Lcg(0x0005_ba4d);
    hard_corpus(size)
        .into_iter()
        .map(|sample| with_weight(&mut rng, sample))
        .collect()
}

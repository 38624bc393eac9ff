//! Benchmark over generated programs: sequences of loop nests (depth up to 4, steps 1–3, bounds
//! from parameters and outer counters, some `mod` guards) of 50 to 500 statements. Prints, per
//! program, the analysis time, the widening counters, and how many requested points got an
//! invariant whose count differs from the interpreter's visits (precision lost, mostly to
//! widening). Figures only; nothing is asserted.

use std::time::Instant;

use membound_invariants::builder::{le, lt, modulo};
use membound_invariants::interpret::{RunOptions, run};
use membound_invariants::{Body, Expr, Options, Program, ProgramBuilder, VarId, analyze};
use membound_polyhedra::{Int, Rat, Value, count};

/// A small deterministic generator (no dependency, same programs on every run).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound.max(1)
    }
}

struct Generator {
    random: Lcg,
    statements: usize,
    /// The loop depth of each point, in point order.
    point_levels: Vec<usize>,
}

impl Generator {
    fn program(&mut self, target: usize) -> Program {
        let mut builder = ProgramBuilder::new();
        let m = builder.declare("m", &["n", "m"]);
        builder.define(m, |b| {
            let params = [b.formal(0), b.formal(1)];
            let counters: Vec<VarId> = (0..4).map(|d| b.local(&format!("c{d}"))).collect();
            let total = b.local("t");
            b.assign(total, 0);
            while self.statements < target {
                let depth = 1 + self.random.below(4) as usize;
                self.nest(b, &counters[..depth], params, total, 0);
            }
        });
        builder.build().expect("generated programs are valid")
    }

    fn nest(
        &mut self,
        b: &mut Body,
        counters: &[VarId],
        params: [VarId; 2],
        total: VarId,
        level: usize,
    ) {
        let Some(&counter) = counters.get(level) else {
            self.statements += 1;
            b.assign(total, total + 1);
            return;
        };
        let outer = if level == 0 {
            None
        } else {
            Some(counters[level - 1])
        };
        let from: Expr = match (self.random.below(3), outer) {
            (0, Some(o)) => o.into(),
            (1, _) => params[1].into(),
            _ => Expr::constant(0),
        };
        let bound: Expr = match (self.random.below(3), outer) {
            (0, Some(o)) => o + params[0],
            (1, _) => params[1] + 2,
            _ => params[0].into(),
        };
        let cond = if self.random.below(2) == 0 {
            lt(counter, bound)
        } else {
            le(counter, bound)
        };
        let step = 1 + self.random.below(3) as i64;
        let guarded = self.random.below(4) == 0;
        self.statements += 2;
        b.for_loop(counter, from, cond, step, |b| {
            self.point_levels.push(level);
            b.point(&format!("p{}", self.point_levels.len()));
            if guarded {
                b.if_then(modulo(counter, 2, 0), |b| {
                    self.nest(b, counters, params, total, level + 1)
                });
            } else {
                self.nest(b, counters, params, total, level + 1);
            }
        });
    }
}

/// Points whose counted invariant (on the counters of their enclosing loops) differs from the
/// visits at `n = 4, m = 1`; at most `sample` points are checked, evenly spread.
fn imprecise_points(
    program: &Program,
    analysis: &membound_invariants::Analysis,
    levels: &[usize],
    sample: usize,
) -> (usize, usize) {
    let args = [Int::from(4), Int::from(1)];
    let Ok(trace) = run(
        program,
        membound_invariants::ProcId(0),
        &args,
        &RunOptions::default(),
    ) else {
        return (0, 0);
    };
    let stride = (program.points.len() / sample.max(1)).max(1);
    let (mut checked, mut imprecise) = (0, 0);
    for id in program.point_ids().step_by(stride) {
        let counters = &["c0", "c1", "c2", "c3"][..=levels[id.0]];
        let projected = analysis.invariant(id).project_onto(counters);
        let point = [
            ("n_init".to_string(), args[0].clone()),
            ("m_init".to_string(), args[1].clone()),
        ]
        .into();
        let observed = Value::Finite(Rat::from(trace.visits[id.0] as i64));
        let Ok(counted) = count(&projected.to_set()) else {
            continue;
        };
        checked += 1;
        if counted.eval(&point).ok() != Some(observed) {
            imprecise += 1;
        }
    }
    (checked, imprecise)
}

fn main() {
    println!(
        "{:>10} {:>7} {:>10} {:>9} {:>13} {:>10} {:>9}",
        "statements", "points", "time", "widenings", "extrapolating", "checked", "imprecise"
    );
    for (seed, target) in [(1u64, 50usize), (2, 100), (3, 200), (4, 350), (5, 500)] {
        let mut generator = Generator {
            random: Lcg(seed),
            statements: 0,
            point_levels: Vec::new(),
        };
        let program = generator.program(target);
        let start = Instant::now();
        let analysis = analyze(&program, &Options::default());
        let elapsed = start.elapsed();
        let stats = analysis.stats();
        let (checked, imprecise) =
            imprecise_points(&program, &analysis, &generator.point_levels, 12);
        println!(
            "{:>10} {:>7} {:>9.2?} {:>9} {:>13} {:>10} {:>9}{}",
            generator.statements,
            program.points.len(),
            elapsed,
            stats.widenings,
            stats.extrapolating_widenings,
            checked,
            imprecise,
            if analysis.losses().is_empty() {
                String::new()
            } else {
                format!("  losses: {:?}", analysis.losses())
            }
        );
    }
}

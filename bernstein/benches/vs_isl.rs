//! Tightness benchmark: our upper bounds against isl's own Bernstein bound
//! (`PwQPolynomial.bound`, islpy-barvinok as an external oracle) on 120 problems. Prints the
//! ratio ours/isl per problem (mean over its parameter points) and a summary; exits non-zero
//! if we are ever looser. Run with `cargo bench -p membound-bernstein --bench vs_isl`.

#[path = "../tests/oracle/mod.rs"]
mod oracle;

fn main() {
    let problems = oracle::problems(120);
    let comparisons = match oracle::compare(&problems) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("isl comparison could not run: {e}");
            std::process::exit(2);
        }
    };
    let mut looser = 0;
    let mut tighter_problems = 0;
    let mut ratios = Vec::new();
    for problem in &problems {
        let own: Vec<&oracle::Comparison> = comparisons
            .iter()
            .filter(|c| c.text == problem.text)
            .collect();
        let finite: Vec<f64> = own
            .iter()
            .map(|c| oracle::ratio(c))
            .filter(|r| r.is_finite())
            .collect();
        let mean = if finite.is_empty() {
            1.0
        } else {
            finite.iter().sum::<f64>() / finite.len() as f64
        };
        let tighter = own.iter().any(|c| c.ours < c.isl);
        for c in own.iter().filter(|c| c.ours > c.isl) {
            println!("LOOSER at {:?}: ours {} > isl {}", c.point, c.ours, c.isl);
            looser += 1;
        }
        tighter_problems += usize::from(tighter);
        ratios.push(mean);
        println!(
            "{mean:>8.4} {} {}",
            if tighter { "<" } else { "=" },
            problem.text
        );
    }
    let overall = ratios.iter().sum::<f64>() / ratios.len().max(1) as f64;
    println!(
        "{} problems, {} points: mean ratio ours/isl {overall:.4}, strictly tighter on {tighter_problems} problems, looser at {looser} points",
        problems.len(),
        comparisons.len()
    );
    if looser > 0 {
        std::process::exit(1);
    }
}

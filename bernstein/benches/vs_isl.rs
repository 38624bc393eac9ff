//! Tightness benchmark: our upper bounds against isl's own Bernstein bound
//! (`PwQPolynomial.bound`, islpy-barvinok as an external oracle) on 120 problems, at integer
//! parameter points where the set has integer points. Prints, per problem, the mean ratio
//! ours/isl over the points where isl's value is positive, then a summary. Where isl's value
//! is below the true maximum (found by enumeration) isl is wrong, and we are compared with the
//! true maximum instead. Exits non-zero if we are ever looser (or ever below the true
//! maximum). Run with `cargo bench -p membound-bernstein --bench vs_isl`.

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
    let (mut looser, mut isl_unsound, mut tighter_problems) = (0, 0, 0);
    let mut all_ratios = Vec::new();
    for problem in &problems {
        let own: Vec<&oracle::Comparison> = comparisons
            .iter()
            .filter(|c| c.text == problem.text)
            .collect();
        let ratios: Vec<f64> = own.iter().filter_map(|c| oracle::ratio(c)).collect();
        let mean = (!ratios.is_empty()).then(|| ratios.iter().sum::<f64>() / ratios.len() as f64);
        let tighter = own.iter().any(|c| c.ours < c.isl);
        tighter_problems += usize::from(tighter);
        all_ratios.extend(ratios);
        let shown = mean.map_or("     n/a".to_string(), |m| format!("{m:>8.4}"));
        println!(
            "{shown} {} {}",
            if tighter { "<" } else { "=" },
            problem.text
        );
        for c in own.iter().filter(|c| c.isl_unsound()) {
            println!(
                "         isl below the true maximum at {:?}: isl {} < {} (ours {})",
                c.point, c.isl, c.truth, c.ours
            );
            isl_unsound += 1;
        }
        for c in own.iter().filter(|c| c.looser()) {
            println!(
                "         LOOSER at {:?}: ours {} > isl {}",
                c.point, c.ours, c.isl
            );
            looser += 1;
        }
    }
    let overall = all_ratios.iter().sum::<f64>() / all_ratios.len().max(1) as f64;
    let worst = all_ratios.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let best = all_ratios.iter().cloned().fold(f64::INFINITY, f64::min);
    println!(
        "{} problems, {} points: ratio ours/isl mean {overall:.4}, best {best:.4}, worst {worst:.4}; \
         strictly tighter on {tighter_problems} problems; looser at {looser} points; \
         isl below the true maximum at {isl_unsound} points",
        problems.len(),
        comparisons.len()
    );
    if looser > 0 {
        std::process::exit(1);
    }
}

//! Our bounds against isl's Bernstein bound on a small set of problems: never looser, and
//! strictly tighter on some (isl gives n^2/2 for `i*(n - i)` on `0 <= i <= n`, we give n^2/4).
//! Needs the oracle venv (`scripts/ensure-oracle-venv.sh`); fails, never skips, without it.

mod oracle;

#[test]
fn never_looser_than_isl_and_sometimes_tighter() {
    let problems = oracle::problems(12);
    let comparisons =
        oracle::compare(&problems).unwrap_or_else(|e| panic!("isl comparison could not run: {e}"));
    assert!(
        comparisons.len() >= 30,
        "only {} comparison points",
        comparisons.len()
    );
    for c in &comparisons {
        assert!(
            !c.looser(),
            "looser than isl on {} at {:?}: {} > {}",
            c.text,
            c.point,
            c.ours,
            c.isl
        );
    }
    let tighter = comparisons.iter().filter(|c| c.ours < c.isl).count();
    let ratios: Vec<f64> = comparisons.iter().filter_map(oracle::ratio).collect();
    let isl_wrong = comparisons.iter().filter(|c| c.isl_unsound()).count();
    println!("isl below the true maximum at {isl_wrong} points");
    println!(
        "{} points, strictly tighter at {tighter}, mean ratio ours/isl {:.4}",
        comparisons.len(),
        ratios.iter().sum::<f64>() / ratios.len().max(1) as f64
    );
    assert!(tighter > 0, "never strictly tighter than isl");
    // The headline case: n = 10 gives 25 against isl's 50.
    let headline = comparisons
        .iter()
        .find(|c| c.text.starts_with("[n] -> { [i] -> i*(n - i)") && c.point["n"] == 8)
        .expect("i*(n - i) is compared at n = 8");
    assert_eq!(
        (headline.ours.to_string(), headline.isl.to_string()),
        ("16".to_string(), "32".to_string())
    );
}

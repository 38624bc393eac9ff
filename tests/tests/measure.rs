//! `membound measure` on the bundled example: the counts a real JVM makes equal the hand counts
//! (k objects A and k(k+1)/2 objects B for `Intro.m1(k)`).

use membound_tests::membound;
use serde_json::Value;

#[test]
fn measure_counts_the_bundled_example_exactly() {
    let k = 6;
    let run = membound([
        "measure",
        "examples/intro/intro.jar",
        "--method",
        "Intro.m1",
        "--format",
        "json",
        "--",
        &k.to_string(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).expect("valid JSON");
    let count_of = |ty: &str| -> u64 {
        json["sites"]
            .as_array()
            .expect("sites")
            .iter()
            .filter(|s| s["type"] == ty)
            .map(|s| s["count"].as_u64().expect("count"))
            .sum()
    };
    assert_eq!(count_of("Intro$A"), k);
    assert_eq!(count_of("Intro$B"), k * (k + 1) / 2);
    assert_eq!(json["total"]["objects"].as_u64(), Some(k + k * (k + 1) / 2));
}

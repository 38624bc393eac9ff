//! Generated programs against real runs: random Java programs of affine loop nests, calls inside
//! loops (with affine arguments) and allocations of objects and of arrays of affine length,
//! compiled with javac, analyzed, and run under the allocation agent by `membound validate` at
//! several parameter points. Every prediction must hold (exit 0), and since every count here is
//! a polynomial in the parameters, every per-site and total prediction must equal the run
//! exactly, in objects and in bytes; memRq must be at least the run's method-region peak.
//!
//! The programs are drawn from a fixed seed, so a failure reproduces; `MEMBOUND_GENERATED_SEED`
//! draws others, and the failing program's source is in the message.

use membound_tests::generated::{Program, Rng, compile, generate, seed};
use membound_tests::{analyze_into, membound};
use serde_json::Value;

/// The parameter points each run calls m0 with: (a, b) pairs.
const POINTS: [(u32, u32); 3] = [(1, 2), (3, 0), (4, 3)];

#[test]
fn generated_programs_meet_their_certificates_exactly() {
    let seed = seed();
    let mut rng = Rng(seed);
    let programs: Vec<Program> = (0..10).map(|index| generate(&mut rng, index)).collect();
    let dir = std::env::temp_dir().join(format!("membound-generated-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let classes = compile(&programs, &dir);
    let args: Vec<String> = POINTS
        .iter()
        .flat_map(|(a, b)| [a.to_string(), b.to_string()])
        .collect();
    for program in &programs {
        let method = format!("gen.{}.m0", program.class);
        let cert = dir.join(format!("{}.yaml", program.class));
        analyze_into(&classes, &method, "hotspot-coops", &cert);
        let mut command: Vec<std::ffi::OsString> = vec![
            "validate".into(),
            cert.clone().into(),
            "--main".into(),
            format!("gen.{}", program.class).into(),
            "--format".into(),
            "json".into(),
            "--".into(),
        ];
        command.extend(args.iter().map(Into::into));
        let run = membound(&command);
        let context = || format!("seed {seed}, {}:\n{}", program.class, program.source);
        assert_eq!(run.code, 0, "{}\n{}\n{}", run.stdout, run.stderr, context());
        let json: Value = serde_json::from_str(&run.stdout).expect("validate prints JSON");
        let comparisons = json["comparisons"].as_array().expect("comparisons");
        // memRq is checked against the region replay of every entry (exit 0: never below it).
        let region_checks = comparisons
            .iter()
            .filter(|c| c["what"].as_str().is_some_and(|w| w.starts_with("memRq")))
            .count();
        assert_eq!(region_checks, 2 * POINTS.len(), "{json:#}\n{}", context());
        for comparison in comparisons {
            let what = comparison["what"].as_str().unwrap_or_default();
            if what.starts_with("memRq") {
                continue;
            }
            assert_eq!(
                comparison["observed"],
                comparison["predicted"],
                "not exact: {comparison}\n{}",
                context()
            );
        }
    }
}

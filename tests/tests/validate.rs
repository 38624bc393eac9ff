//! `membound validate`: a certificate written by `analyze` holds on a real run of the bundled
//! example (exit 0, predictions equal to the observations), and the same certificate edited to
//! under-count fails with exit 1 and names the broken prediction.

use std::path::PathBuf;

use membound_tests::{membound, total_objects};

fn intro_certificate(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "membound-validate-{}-{name}.yaml",
        std::process::id()
    ));
    let run = membound([
        "analyze".as_ref(),
        "examples/intro/intro.jar".as_ref(),
        "--method".as_ref(),
        "Intro.m1".as_ref(),
        "-o".as_ref(),
        path.as_os_str(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    path
}

#[test]
fn a_certificate_from_analyze_holds_on_a_real_run() {
    let cert = intro_certificate("sound");
    let run = membound([
        "validate".as_ref(),
        cert.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
        "--".as_ref(),
        "7".as_ref(),
    ]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(json["broken"], 0);
    let comparisons = json["comparisons"].as_array().expect("comparisons");
    // The bounds are exact here: every prediction equals the observation, memRq (against the
    // run replayed into the certificate's regions) included.
    assert_eq!(comparisons.len(), 8, "{json:#}");
    assert!(
        comparisons.iter().any(|c| c["what"] == "memRq (entry 1)"),
        "{json:#}"
    );
    for comparison in comparisons {
        assert_eq!(
            comparison["observed"], comparison["predicted"],
            "{comparison}"
        );
    }
    assert_eq!(total_objects(comparisons).0, 7 + 7 * 8 / 2);
}

#[test]
fn an_under_counting_certificate_fails_with_exit_1() {
    let cert = intro_certificate("edited");
    let text = std::fs::read_to_string(&cert).expect("certificate");
    // m2's B objects: one fewer per call than the program allocates.
    let edited = text.replace("(1/2*k^2 + 1/2*k)", "(1/2*k^2 - 1/2*k)");
    assert_ne!(edited, text, "the edit must change the certificate");
    std::fs::write(&cert, edited).expect("write");
    let run = membound([
        "validate".as_ref(),
        cert.as_os_str(),
        "--".as_ref(),
        "4".as_ref(),
    ]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("BROKEN"), "{}", run.stdout);
    assert!(run.stdout.contains("Intro$B"), "{}", run.stdout);
}

/// `membound measure` of the intro example's m1 with a certificate, as JSON, at `k`.
fn measure_intro(cert: &std::path::Path, k: u32) -> membound_tests::Run {
    membound([
        "measure".as_ref(),
        "examples/intro/intro.jar".as_ref(),
        "--method".as_ref(),
        "Intro.m1".as_ref(),
        "--cert".as_ref(),
        cert.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
        "--".as_ref(),
        k.to_string().as_ref(),
    ])
}

#[test]
fn measure_replays_a_run_into_the_certificates_regions() {
    // m1's A objects live in its region (k of them), each m2's B objects in m2's (at most k at
    // once): the replay peaks at 2k objects, which is memRq.
    let cert = intro_certificate("regions");
    for k in [3, 7] {
        let run = measure_intro(&cert, k);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
        assert_eq!(json["region_peak"]["objects"], 2 * k, "{json:#}");
    }
    let stale = std::env::temp_dir().join(format!(
        "membound-validate-{}-stale.yaml",
        std::process::id()
    ));
    let text = std::fs::read_to_string(&cert).expect("certificate");
    let without_regions: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("region:"))
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&stale, without_regions.replace("mem_rq:", "old_mem_rq:")).expect("write");
    let run = measure_intro(&stale, 3);
    assert_eq!(run.code, 2, "a certificate without regions: {}", run.stderr);
}

#[test]
fn validate_rejects_a_missing_certificate_with_exit_2() {
    let run = membound(["validate", "/nonexistent/cert.yaml", "--", "3"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

#[test]
fn commands_reading_a_certificate_take_the_selectors_analyze_takes() {
    let cert = intro_certificate("selectors");
    for selector in ["Intro.m1(int)", "<Intro: void m1(int)>", "Intro.m1(I)V"] {
        let run = membound([
            "validate".as_ref(),
            cert.as_os_str(),
            "--method".as_ref(),
            selector.as_ref(),
            "--".as_ref(),
            "3".as_ref(),
        ]);
        assert_eq!(run.code, 0, "{selector}: {}\n{}", run.stdout, run.stderr);
        let eval = membound([
            "eval".as_ref(),
            cert.as_os_str(),
            "--method".as_ref(),
            selector.as_ref(),
            "--param".as_ref(),
            "k=3".as_ref(),
        ]);
        assert_eq!(eval.code, 0, "{selector}: {}", eval.stderr);
    }
    let other = membound([
        "eval".as_ref(),
        cert.as_os_str(),
        "--method".as_ref(),
        "Intro.m1(long)".as_ref(),
        "--param".as_ref(),
        "k=3".as_ref(),
    ]);
    assert_eq!(other.code, 2, "{}", other.stdout);
    assert!(
        other.stderr.contains("has no method Intro.m1(long)"),
        "{}",
        other.stderr
    );
}

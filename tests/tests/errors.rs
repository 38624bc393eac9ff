//! Bad input gets a one-line message and exit code 2, never a panic.

use std::fs;

use membound_tests::{compile_fixture, membound};

fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("membound-errors-{name}-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

fn assert_clean_failure(run: &membound_tests::Run) {
    assert_eq!(
        run.code, 2,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(run.stderr.starts_with("membound: "), "{}", run.stderr);
    assert_eq!(run.stderr.trim_end().lines().count(), 1, "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

#[test]
fn a_truncated_jar_is_rejected_with_exit_2() {
    let jar = membound_tests::workspace_root().join("examples/intro/intro.jar");
    let bytes = fs::read(jar).expect("bundled example jar");
    let truncated = scratch_dir("truncated").join("truncated.jar");
    fs::write(&truncated, &bytes[..bytes.len() / 2]).expect("write");
    let run = membound([
        "sites".as_ref(),
        truncated.as_os_str(),
        "--method".as_ref(),
        "Intro.m1".as_ref(),
    ]);
    assert_clean_failure(&run);
}

#[test]
fn random_bytes_named_class_are_rejected_with_exit_2() {
    let file = scratch_dir("random").join("Random.class");
    // A fixed pseudo-random sequence (xorshift), so a failure is reproducible.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let bytes: Vec<u8> = (0..4096)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    fs::write(&file, bytes).expect("write");
    let run = membound([
        "ir".as_ref(),
        file.as_os_str(),
        "--method".as_ref(),
        "Random.m".as_ref(),
    ]);
    assert_clean_failure(&run);
}

#[test]
fn an_unknown_method_lists_the_candidates() {
    let classes = compile_fixture("thesis");
    let run = membound([
        "sites".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        "thesis.Fig14.m9".as_ref(),
    ]);
    assert_clean_failure(&run);
    assert!(run.stderr.contains("thesis.Fig14.m0(I)V"), "{}", run.stderr);
}

#[test]
fn a_missing_class_is_reported_by_name() {
    let classes = compile_fixture("thesis");
    let run = membound([
        "sites".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        "thesis.Nowhere.m0".as_ref(),
    ]);
    assert_clean_failure(&run);
    assert!(run.stderr.contains("thesis.Nowhere"), "{}", run.stderr);
}

#[test]
fn a_missing_input_file_is_reported() {
    let run = membound(["sites", "no/such/app.jar", "--method", "Main.main"]);
    assert_clean_failure(&run);
    assert!(run.stderr.contains("no/such/app.jar"), "{}", run.stderr);
}

#[test]
fn a_java_26_class_file_is_read_and_a_newer_one_with_one_warning() {
    let classes = compile_fixture("thesis");
    let analyze_at_version = |major: u16| {
        let dir = scratch_dir(&format!("version-{major}")).join("thesis");
        fs::create_dir_all(&dir).expect("package directory");
        let mut bytes = fs::read(classes.join("thesis/Halving.class")).expect("compiled class");
        // Bytes 6 and 7 hold the major version: 70 is Java 26, 71 one past it.
        bytes[6..8].copy_from_slice(&major.to_be_bytes());
        fs::write(dir.join("Halving.class"), bytes).expect("write");
        let run = membound([
            "analyze",
            dir.parent().expect("scratch").to_str().expect("utf-8"),
            "--method",
            "thesis.Halving.collatz",
        ]);
        assert_eq!(run.code, 0, "{major}: {}", run.stderr);
        run.stderr
    };
    let java_26 = analyze_at_version(70);
    assert!(!java_26.contains("newer than"), "{java_26}");
    let newer = analyze_at_version(71);
    let warnings: Vec<&str> = newer
        .lines()
        .filter(|l| l.contains("class-file version 71.0 is newer than this membound knows"))
        .collect();
    assert_eq!(warnings.len(), 1, "{newer}");
}

#[test]
fn methods_are_selected_as_java_soot_and_jvm_write_them_and_a_wrong_name_gets_suggestions() {
    let jar = membound_tests::workspace_root().join("examples/intro/intro.jar");
    let jar = jar.to_str().expect("utf-8");
    let header = |method: &str| -> String {
        let run = membound(["ir", jar, "--method", method]);
        assert_eq!(run.code, 0, "{method}: {}", run.stderr);
        let first = run.stdout.lines().next().unwrap_or_default();
        first.trim_start_matches("static ").to_string()
    };
    let m1 = "<Intro: void m1(int)>";
    for selector in ["Intro.m1", "Intro.m1(I)V", "Intro.m1(int)", m1] {
        assert_eq!(header(selector), m1, "{selector}");
    }
    // Nested classes with dots, Java types by their simple names.
    assert_eq!(
        header("java.util.AbstractMap.SimpleEntry.setValue(Object)"),
        "<java.util.AbstractMap$SimpleEntry: java.lang.Object setValue(java.lang.Object)>"
    );
    let wrong_types = membound(["ir", jar, "--method", "Intro.m1(long)"]);
    assert_clean_failure(&wrong_types);
    let misspelt = membound(["ir", jar, "--method", "Intro.m3"]);
    assert_clean_failure(&misspelt);
    assert!(
        misspelt
            .stderr
            .contains("did you mean Intro.m1(I)V or Intro.m2(I)V"),
        "{}",
        misspelt.stderr
    );
}

#[test]
fn ir_refuses_the_options_that_only_decide_how_far_an_analysis_reaches() {
    // `ir` prints one body: specs and the call graph's budget cannot change it, so it does not
    // take them (it used to accept and ignore them).
    let jar = membound_tests::workspace_root().join("examples/intro/intro.jar");
    let jar = jar.to_str().expect("utf-8");
    for option in [
        &["--budget-methods", "5"][..],
        &["--spec", "specs.yaml"],
        &["--no-bundled-specs"],
    ] {
        let mut args = vec!["ir", jar, "--method", "Intro.m1"];
        args.extend_from_slice(option);
        let run = membound(args);
        assert_eq!(run.code, 2, "{option:?}: {}", run.stderr);
        let refused = format!("unexpected argument '{}'", option[0]);
        assert!(run.stderr.contains(&refused), "{option:?}: {}", run.stderr);
    }
    let sites = membound([
        "sites",
        jar,
        "--method",
        "Intro.m1",
        "--budget-methods",
        "5",
    ]);
    assert_eq!(sites.code, 0, "{}", sites.stderr);
}

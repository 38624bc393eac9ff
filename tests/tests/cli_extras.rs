//! What ships beside the commands: shell completion scripts, the man page, and a `--version`
//! that names the commit the binary was built from.

use membound_tests::{assert_run, membound, workspace_root};

#[test]
fn completion_scripts_offer_the_commands_in_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let run = membound(["completions", shell]);
        assert_run(&run, 0, &["analyze", "check", "completions"]);
    }
    let bash = membound(["completions", "bash"]);
    assert!(bash.stdout.contains("complete "), "{}", bash.stdout);
    // The flags of a command are completed too.
    assert!(bash.stdout.contains("--object-model"), "{}", bash.stdout);
}

#[test]
fn an_unknown_shell_is_bad_input() {
    let run = membound(["completions", "cmd.exe"]);
    assert_run(&run, 2, &[]);
    assert!(run.stderr.contains("possible values"), "{}", run.stderr);
}

#[test]
fn the_man_page_is_roff_naming_the_commands() {
    let run = membound(["man"]);
    assert_run(
        &run,
        0,
        &["membound\\-analyze", "membound\\-check", "\\-\\-version"],
    );
    // clap_mangen puts a quote-string preamble before the title line.
    let title = run.stdout.lines().find(|line| line.starts_with(".TH"));
    let title = title.unwrap_or_else(|| panic!("no .TH line:\n{}", run.stdout));
    assert!(title.starts_with(".TH membound 1"), "{title}");
    assert!(run.stdout.contains(".SH SYNOPSIS"), "{}", run.stdout);
    // The alias the wording allows gives the same page.
    assert_eq!(membound(["manpage"]).stdout, run.stdout);
}

#[test]
fn the_version_names_the_commit_it_was_built_from() {
    let run = membound(["--version"]);
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(workspace_root())
        .output();
    let version = run.stdout.trim();
    match head {
        // The binary is built from this checkout, so it names its HEAD (a commit made after the
        // build would rebuild it: build.rs watches HEAD).
        Ok(out) if out.status.success() => {
            let hash = String::from_utf8_lossy(&out.stdout).trim().to_string();
            assert_eq!(
                version,
                format!("membound {} (commit {hash})", env!("CARGO_PKG_VERSION"))
            );
        }
        _ => assert!(version.ends_with("(unknown commit)"), "{version}"),
    }
}

#[test]
fn parameter_values_take_param_or_at_on_every_command() {
    let dir = membound_tests::scratch_dir("param-or-at");
    let cert = dir.join("intro.json");
    membound_tests::analyze_into(
        std::path::Path::new("examples/intro/intro.jar"),
        "Intro.m1",
        "count",
        &cert,
    );
    let cert = cert.to_str().expect("utf-8");
    let with = |command: &[&str]| -> String {
        let run = membound_tests::membound(command);
        assert_eq!(run.code, 0, "{command:?}: {}", run.stderr);
        run.stdout
    };
    for flag in ["--param", "--at"] {
        assert_eq!(
            with(&["eval", cert, flag, "k=4", "--format", "json"]),
            with(&["eval", cert, "--param", "k=4", "--format", "json"]),
            "eval {flag}"
        );
        let counted = with(&["count", "[n] -> { [i] : 0 <= i < n }", flag, "n=7"]);
        assert_eq!(
            counted.lines().last().map(str::trim),
            Some("7"),
            "count {flag}"
        );
        let diff = with(&["diff", cert, cert, flag, "k=4"]);
        assert!(diff.contains("0 regression(s)"), "diff {flag}: {diff}");
    }
}

#[test]
fn evaluated_bytes_show_binary_units_beside_the_exact_number() {
    let dir = membound_tests::scratch_dir("byte-units");
    let cert = dir.join("intro.json");
    membound_tests::analyze_into(
        std::path::Path::new("examples/intro/intro.jar"),
        "Intro.m1",
        "hotspot-coops",
        &cert,
    );
    let run = membound_tests::membound([
        "eval".as_ref(),
        cert.as_os_str(),
        "--param".as_ref(),
        "k=1000".as_ref(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // 8k² + 24k bytes at k = 1000.
    assert!(
        run.stdout
            .contains("memAlloc 501500 objects, 8024000 bytes (7.65 MiB)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("memEscapes 0 objects, 0 bytes\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn analyze_names_its_phases_with_their_times_when_verbose_and_is_silent_when_quiet() {
    let analyze = |flag: &str| {
        membound_tests::membound([
            "analyze",
            "examples/intro/intro.jar",
            "--method",
            "Intro.m1",
            flag,
        ])
    };
    let verbose = analyze("-v");
    assert_eq!(verbose.code, 0, "{}", verbose.stderr);
    for phase in [
        "loading the classes and building the call graph",
        "lowering the methods and computing their invariants",
        "summarizing methods",
        "memAlloc, regions and memRq",
    ] {
        assert!(
            verbose
                .stderr
                .lines()
                .any(|l| l.starts_with(&format!("membound: {phase}: ")) && l.ends_with(" s")),
            "{phase}: {}",
            verbose.stderr
        );
    }
    let quiet = analyze("-q");
    assert_eq!((quiet.code, quiet.stderr.as_str()), (0, ""));
    assert_eq!(quiet.stdout, verbose.stdout);
}

#[test]
fn a_repeated_method_is_analyzed_as_entry_points_and_checked_one_by_one() {
    let classes = membound_tests::compile_fixture("built_lists");
    let dir = membound_tests::scratch_dir("repeated-method");
    let (walk, link) = (
        "built.Lists.buildThenWalk",
        "built.Lists.linkedByConstructor",
    );
    let both = dir.join("both.json");
    let run = membound_tests::membound([
        "analyze".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        walk.as_ref(),
        "--method".as_ref(),
        link.as_ref(),
        "-q".as_ref(),
        "-o".as_ref(),
        both.as_os_str(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        membound_tests::certificate_entries(&both),
        [
            "built.Lists.buildThenWalk(I)I",
            "built.Lists.linkedByConstructor(I)I"
        ]
    );
    // Each entry's bounds are those of its analysis alone.
    for method in [walk, link] {
        let alone = dir.join(format!("{method}.json"));
        membound_tests::analyze_into(&classes, method, "hotspot-coops", &alone);
        let own = membound_tests::certificate_entry(&alone, method);
        let joined = membound_tests::certificate_entry(&both, method);
        assert_eq!(joined["mem_alloc"], own["mem_alloc"], "{method}");
        assert_eq!(joined["mem_rq"], own["mem_rq"], "{method}");
    }
    // `check` checks every budget for each method given.
    let both = both.to_str().expect("utf-8");
    let args = ["check", both, "--method", walk, "--method", link];
    let budget = ["--budget", "memAlloc <= 1 objects", "--at", "n=10"];
    let checked = membound_tests::membound([&args[..], &budget[..]].concat());
    assert_eq!(checked.code, 1, "{}", checked.stderr);
    let verdicts: Vec<&str> = checked
        .stdout
        .lines()
        .filter(|line| line.starts_with("BROKEN"))
        .collect();
    assert_eq!(verdicts.len(), 2, "{}", checked.stdout);
    assert!(verdicts[0].contains("buildThenWalk"), "{}", checked.stdout);
    assert!(
        verdicts[1].contains("linkedByConstructor"),
        "{}",
        checked.stdout
    );
    // A command that looks at one method says so; `--param` names one method's parameter.
    let classes = classes.to_str().expect("utf-8");
    let two = ["--method", walk, "--method", link];
    for command in [
        &["ir", classes][..],
        &["analyze", classes, "--param", "m=n"][..],
    ] {
        let refused = membound_tests::membound([command, &two[..]].concat());
        assert_eq!(refused.code, 2, "{command:?}: {}", refused.stderr);
        assert!(
            refused.stderr.contains("one --method"),
            "{}",
            refused.stderr
        );
    }
}

#[test]
fn a_parameter_name_no_bound_has_is_an_error_on_every_command() {
    let dir = membound_tests::scratch_dir("unknown-names");
    let cert = dir.join("intro.json");
    let jar = "examples/intro/intro.jar";
    membound_tests::analyze_into(std::path::Path::new(jar), "Intro.m1", "count", &cert);
    let cert = cert.to_str().expect("utf-8");
    let triangle = "[n] -> { [i] : 0 <= i < n }";
    let polynomial = "[n] -> { [i] -> i*(n - i) : 0 <= i <= n }";
    let commands: [&[&str]; 6] = [
        &["eval", cert, "--param", "k=4,x=1"],
        &[
            "check",
            cert,
            "--budget",
            "memRq <= 1KiB",
            "--at",
            "k=4,x=1",
        ],
        &["diff", cert, cert, "--at", "k=4,x=1"],
        &["count", triangle, "--at", "n=4,x=1"],
        &["bound", polynomial, "--at", "n=4,x=1"],
        &["advise", jar, "--method", "Intro.m1", "--at", "k=4,x=1"],
    ];
    for command in commands {
        let run = membound_tests::membound(command);
        assert_eq!(run.code, 2, "{command:?}: {}", run.stdout);
        assert!(run.stderr.contains("`x`"), "{command:?}: {}", run.stderr);
        // The same command with the known name alone succeeds.
        let known: Vec<String> = command.iter().map(|a| a.replace(",x=1", "")).collect();
        let run = membound_tests::membound(&known);
        assert!(run.code == 0 || run.code == 1, "{known:?}: {}", run.stderr);
    }
}

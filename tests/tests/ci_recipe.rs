//! docs/ci.md, the pipeline recipe (issue 22 item 12): its workflows use current action
//! versions, install a Rust toolchain and cache membound's build, guard the SARIF upload by the
//! file's existence; its script puts the dependencies Maven lists on the classpath, and its
//! membound steps run as written on the bundled example.

use std::fs;
use std::process::Command;

use membound_tests::{membound_bin, scratch_dir, workspace_root};

fn recipe() -> String {
    fs::read_to_string(workspace_root().join("docs/ci.md")).expect("docs/ci.md")
}

/// The fenced blocks of `text` in `language`.
fn blocks(text: &str, language: &str) -> Vec<String> {
    let fence = format!("```{language}\n");
    text.split(&fence)
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap_or_default().to_string())
        .collect()
}

/// The oldest major version of each action the recipe may use: the current ones (November
/// 2026; upload-sarif v3 is deprecated in December 2026, the Node-20 majors before).
const CURRENT_MAJORS: [(&str, u32); 7] = [
    ("actions/checkout", 5),
    ("actions/setup-java", 5),
    ("actions/cache", 4),
    ("actions/upload-artifact", 4),
    ("actions/download-artifact", 4),
    ("github/codeql-action/upload-sarif", 4),
    ("Swatinem/rust-cache", 2),
];

#[test]
fn the_workflows_use_current_actions_a_toolchain_a_cache_and_a_guarded_upload() {
    let workflows = blocks(&recipe(), "yaml");
    assert!(workflows.len() >= 2, "the workflow and the matrix");
    for workflow in &workflows {
        for line in workflow.lines().filter(|l| l.contains("uses: ")) {
            let action = line.split("uses: ").nth(1).expect("an action").trim();
            let action = action.split_whitespace().next().unwrap_or_default();
            let (name, version) = action.split_once('@').expect("a pinned version");
            if name == "dtolnay/rust-toolchain" {
                assert_eq!(version, "stable", "{line}");
                continue;
            }
            let (_, oldest) = CURRENT_MAJORS
                .iter()
                .find(|(known, _)| *known == name)
                .unwrap_or_else(|| panic!("{name}: an action the recipe should not need"));
            let major: u32 = version
                .trim_start_matches('v')
                .split('.')
                .next()
                .and_then(|m| m.parse().ok())
                .unwrap_or_else(|| panic!("{line}: a major version"));
            assert!(major >= *oldest, "{line}: older than v{oldest}");
        }
        // Every job that builds membound installs its toolchain first.
        for job in workflow.split("runs-on:").skip(1) {
            if let Some(build) = job
                .find("cargo build")
                .or_else(|| job.find("ci/membound.sh"))
            {
                let toolchain = job.find("dtolnay/rust-toolchain");
                assert!(
                    toolchain.is_some_and(|t| t < build),
                    "a job builds membound without a toolchain step: {job}"
                );
            }
        }
    }
    let main = &workflows[0];
    assert!(main.contains("Swatinem/rust-cache@"), "{main}");
    let upload = main
        .split("- uses: ")
        .find(|step| step.starts_with("github/codeql-action/upload-sarif"))
        .expect("a SARIF upload step");
    assert!(
        upload.contains("if: always() && hashFiles('membound.repo.sarif') != ''"),
        "{upload}"
    );
}

/// The script of docs/ci.md with its first lines adapted to the bundled example, as its text
/// says to: the step that builds membound and the Maven project (the binary is already built,
/// and the example has no pom) is left out.
fn script_for_the_example(dependencies: &str) -> String {
    let script = blocks(&recipe(), "sh")
        .into_iter()
        .next()
        .expect("the script");
    let (head, rest) = script.split_once("# 1. ").expect("step 1");
    let (step_one, steps) = rest.split_once("# 2. ").expect("step 2");
    assert!(
        step_one
            .contains("mvn -q dependency:build-classpath -Dmdep.outputFile=target/classpath.txt")
            && step_one.contains("dependencies=$(cat target/classpath.txt)")
            && step_one.contains("sourceSets.main.runtimeClasspath.asPath"),
        "the classpath from Maven (and Gradle): {step_one}"
    );
    assert!(steps.contains("--classpath \"$dependencies\""), "{steps}");
    let jar = workspace_root().join("examples/intro/intro.jar");
    let head = head
        .replace(
            "classes=target/classes",
            &format!("classes={}", jar.display()),
        )
        .replace("method=com.acme.Server.handle", "method=Intro.m1")
        .replace("source_root=src/main/java", "source_root=examples/intro");
    format!("{head}dependencies={dependencies}\n# 2. {steps}")
}

#[test]
fn the_script_runs_its_membound_steps_as_written() {
    let dir = scratch_dir("ci-recipe");
    fs::write(
        dir.join("membound.toml"),
        "[[budget]]\nat = { k = 1000 }\nlimit = \"memRq <= 64MiB\"\n",
    )
    .expect("membound.toml");
    let script = script_for_the_example("/usr/share/java/commons-lang3.jar");
    let bin_dir = membound_bin().parent().expect("a directory").to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(&dir)
        .env("PATH", path)
        .output()
        .expect("bash runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    let sarif: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("membound.repo.sarif")).expect("SARIF"))
            .expect("SARIF is JSON");
    assert_eq!(sarif["version"], "2.1.0");
    let certificate = fs::read_to_string(dir.join("membound-cert.yaml")).expect("certificate");
    assert!(
        certificate.contains("method: Intro.m1(I)V"),
        "{certificate}"
    );
    let generated = dir.join("target/generated-sources/membound/com/acme/generated/MemBounds.java");
    assert!(generated.exists(), "{stderr}");
}

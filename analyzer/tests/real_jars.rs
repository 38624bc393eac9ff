//! Every method of real jars nobody here wrote, and of the JDK's java.base, lifts to IR.
//!
//! The jars come from Debian packages; a missing jar fails the test with the package to install
//! (CI's `.ci/run` installs them).

use std::path::Path;

use membound::classfile::Class;
use membound::classpath::{Classpath, Jdk};
use membound::ir::lift_method;
use membound::jvm::ClassName;

/// Lifts every method with code of the given classes; returns (methods lifted, failures).
fn lift_all(classpath: &Classpath, names: &[ClassName]) -> (usize, Vec<String>) {
    let mut lifted = 0;
    let mut failures = Vec::new();
    for name in names {
        let class: Class = match classpath.load(name) {
            Ok(class) => class,
            Err(e) => {
                failures.push(e.to_string());
                continue;
            }
        };
        for method in class.methods.iter().filter(|m| m.code.is_some()) {
            match lift_method(&class, method) {
                Ok(_) => lifted += 1,
                Err(e) => failures.push(e.to_string()),
            }
        }
    }
    (lifted, failures)
}

fn assert_jar_lifts(path: &str, package: &str) {
    assert!(
        Path::new(path).exists(),
        "{path} is missing: install it with `apt-get install -y {package}`"
    );
    let classpath = Classpath::from_spec(path).expect("open jar");
    let names = classpath.user_classes().to_vec();
    assert!(!names.is_empty(), "{path} has no classes");
    let (lifted, failures) = lift_all(&classpath, &names);
    assert!(
        failures.is_empty(),
        "{} of {} methods of {path} failed, first: {:#?}",
        failures.len(),
        lifted + failures.len(),
        &failures[..failures.len().min(10)]
    );
    eprintln!("{path}: {} classes, {lifted} methods lifted", names.len());
}

#[test]
fn guava_lifts() {
    assert_jar_lifts("/usr/share/java/guava.jar", "libguava-java");
}

#[test]
fn commons_lang3_lifts() {
    assert_jar_lifts("/usr/share/java/commons-lang3.jar", "libcommons-lang3-java");
}

#[test]
fn commons_collections4_lifts() {
    assert_jar_lifts(
        "/usr/share/java/commons-collections4.jar",
        "libcommons-collections4-java",
    );
}

fn assert_java_base_lifts(jdk: Jdk) {
    let mut classpath = Classpath::new();
    classpath.add_jdk(&jdk).expect("open the JDK");
    let names: Vec<ClassName> = java_base_classes(&classpath);
    assert!(
        names.len() > 1000,
        "java.base has only {} classes",
        names.len()
    );
    let (lifted, failures) = lift_all(&classpath, &names);
    assert!(
        failures.is_empty(),
        "{} of {} methods of java.base failed, first: {:#?}",
        failures.len(),
        lifted + failures.len(),
        &failures[..failures.len().min(10)]
    );
    eprintln!(
        "java.base of {}: {} classes, {lifted} methods lifted",
        jdk.home.display(),
        names.len()
    );
}

fn java_base_classes(classpath: &Classpath) -> Vec<ClassName> {
    classpath.module_classes("java.base")
}

const JDK17: &str = "/usr/lib/jvm/java-17-openjdk-amd64";
const JDK25: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";

#[test]
fn java_base_17_from_jimage_lifts() {
    assert_java_base_lifts(Jdk::at(Path::new(JDK17)).expect("JDK 17"));
}

#[test]
fn java_base_17_from_jmods_lifts() {
    assert_java_base_lifts(Jdk::jmods_at(Path::new(JDK17)).expect("JDK 17 jmods"));
}

#[test]
fn java_base_25_from_jimage_lifts() {
    assert_java_base_lifts(Jdk::at(Path::new(JDK25)).expect("JDK 25"));
}

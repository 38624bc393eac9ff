//! Every method of real jars nobody here wrote, and of the JDK's java.base, lifts to IR.
//!
//! The jars come from Debian packages; a missing jar fails the test with the package to install
//! (CI's `.ci/run` installs them).

use std::path::Path;

use std::collections::HashSet;

use membound_front::classfile::Class;
use membound_front::classpath::{Classpath, Jdk};
use membound_front::ir::{Body, Expr, Operand, Place, StmtKind, Terminator, VarId, lift_method};
use membound_jvm::ClassName;

/// Checks that every variable a statement reads is assigned on every path to it (normal and
/// exception edges), the property a lifter that loses track of the stack would break.
fn check_definitely_assigned(body: &Body) -> Result<(), String> {
    let all: HashSet<VarId> = (0..body.vars.len() as u32).map(VarId).collect();
    let mut entry: Vec<Option<HashSet<VarId>>> = vec![None; body.blocks.len()];
    entry[0] = Some(body.params.iter().copied().collect());
    let mut changed = true;
    while changed {
        changed = false;
        for (index, block) in body.blocks.iter().enumerate() {
            let Some(mut assigned) = entry[index].clone() else {
                continue;
            };
            let at_start = assigned.clone();
            for stmt in &block.stmts {
                for read in stmt_reads(&stmt.kind) {
                    if !assigned.contains(&read) {
                        return Err(format!(
                            "{}: {} read at pc {} before it is assigned",
                            body.method, body.vars[read.0 as usize].name, stmt.pc
                        ));
                    }
                }
                if let StmtKind::Assign { dst, .. } | StmtKind::Invoke { dst: Some(dst), .. } =
                    &stmt.kind
                {
                    assigned.insert(*dst);
                }
            }
            for read in terminator_reads(&block.terminator) {
                if !assigned.contains(&read) {
                    return Err(format!(
                        "{}: block {index} ends reading an unassigned variable",
                        body.method
                    ));
                }
            }
            let edges = block
                .terminator
                .successors()
                .into_iter()
                .map(|s| (s, &assigned))
                .chain(block.handlers.iter().map(|h| (h.target, &at_start)));
            for (successor, flowing) in edges {
                let slot = &mut entry[successor.0 as usize];
                let merged: HashSet<VarId> = match slot {
                    Some(previous) => previous.intersection(flowing).copied().collect(),
                    None => flowing.intersection(&all).copied().collect(),
                };
                if slot.as_ref() != Some(&merged) {
                    *slot = Some(merged);
                    changed = true;
                }
            }
        }
    }
    Ok(())
}

fn operand_vars<'a>(operands: impl IntoIterator<Item = &'a Operand>) -> Vec<VarId> {
    operands
        .into_iter()
        .filter_map(|o| match o {
            Operand::Var(v) => Some(*v),
            Operand::Const(_) => None,
        })
        .collect()
}

fn place_operands(place: &Place) -> Vec<&Operand> {
    match place {
        Place::Field { object, .. } => vec![object],
        Place::Static(_) => vec![],
        Place::ArrayElement { array, index } => vec![array, index],
    }
}

fn stmt_reads(kind: &StmtKind) -> Vec<VarId> {
    match kind {
        StmtKind::Assign { value, .. } => operand_vars(match value {
            Expr::Use(o) | Expr::Neg(o) | Expr::Convert(o, _) | Expr::CheckCast(o, _) => vec![o],
            Expr::InstanceOf(o, _) | Expr::ArrayLength(o) => vec![o],
            Expr::Binary { lhs, rhs, .. } => vec![lhs, rhs],
            Expr::Load(place) => place_operands(place),
            Expr::NewArray { dims, .. } => dims.iter().collect(),
            Expr::New(_) | Expr::CaughtException => vec![],
        }),
        StmtKind::Invoke { call, .. } => operand_vars(call.receiver.iter().chain(&call.args)),
        StmtKind::Store { place, value } => {
            let mut reads = place_operands(place);
            reads.push(value);
            operand_vars(reads)
        }
        StmtKind::Monitor { object, .. } => operand_vars([object]),
    }
}

fn terminator_reads(terminator: &Terminator) -> Vec<VarId> {
    match terminator {
        Terminator::If { lhs, rhs, .. } => operand_vars([lhs, rhs]),
        Terminator::Switch { key, .. } => operand_vars([key]),
        Terminator::Return(Some(value)) | Terminator::Throw(value) => operand_vars([value]),
        Terminator::Goto(_) | Terminator::Return(None) => vec![],
    }
}

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
                Ok(body) => match check_definitely_assigned(&body) {
                    Ok(()) => lifted += 1,
                    Err(e) => failures.push(e),
                },
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

//! Malformed input gives an error, never a panic: truncated archives, random bytes, mutated
//! class files, bytecode the JVM's verifier would reject, and mutated spec files. Also the regression inputs found
//! by fuzzing (`fuzz/`).

mod support;

use membound_front::classfile::Class;
use membound_front::classpath::Classpath;
use membound_front::ir::{lift_method, print_body};
use membound_front::specs::{BUNDLED, SpecSource, Specs};
use membound_jvm::error::Error;
use support::{ClassFile, Random, RawMethod, temp_dir};

/// Parses and, when that works, lifts and prints every method; must not panic.
fn parse_and_lift(bytes: &[u8]) {
    if let Ok(class) = Class::parse(bytes) {
        for method in &class.methods {
            if let Ok(body) = lift_method(&class, method) {
                print_body(&body);
            }
        }
    }
}

#[test]
fn a_truncated_jar_is_an_error() {
    let jar =
        std::fs::read("/usr/share/java/commons-lang3.jar").expect("install libcommons-lang3-java");
    let path = temp_dir("truncated").join("half.jar");
    std::fs::write(&path, &jar[..jar.len() / 2]).unwrap();
    let error = Classpath::from_spec(&path.display().to_string())
        .err()
        .expect("an error");
    assert!(error.to_string().contains("half.jar"), "{error}");
}

#[test]
fn random_bytes_named_class_are_an_error() {
    let dir = temp_dir("random-class");
    let path = dir.join("Noise.class");
    std::fs::write(&path, Random(7).bytes(4096)).unwrap();
    let error = Classpath::from_spec(&path.display().to_string())
        .err()
        .expect("an error");
    assert!(error.to_string().contains("bad class file"), "{error}");

    // The same file inside a directory entry: listed by its path, refused when loaded.
    let classpath = Classpath::from_spec(&dir.display().to_string()).unwrap();
    let noise = classpath.user_classes()[0].clone();
    assert!(matches!(classpath.load(&noise), Err(Error::Input(_))));
}

#[test]
fn random_and_truncated_class_files_never_panic() {
    let mut random = Random(0x5eed);
    for length in 0..512 {
        parse_and_lift(&random.bytes(length));
    }
    let mut header = vec![0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 52];
    header.extend(random.bytes(200));
    parse_and_lift(&header);
    let real = sample_class();
    for cut in (0..real.len()).step_by(7) {
        parse_and_lift(&real[..cut]);
    }
}

#[test]
fn mutated_class_files_never_panic() {
    let real = sample_class();
    let mut random = Random(42);
    for _ in 0..3000 {
        let mut mutated = real.clone();
        for _ in 0..1 + random.next() % 4 {
            let at = (random.next() as usize) % mutated.len();
            mutated[at] = random.next() as u8;
        }
        parse_and_lift(&mutated);
    }
}

/// A real class file with varied bytecode: commons-lang3's `CharUtils`.
fn sample_class() -> Vec<u8> {
    let classpath = Classpath::from_spec("/usr/share/java/commons-lang3.jar")
        .expect("install libcommons-lang3-java");
    classpath
        .read(&membound_jvm::ClassName::new(
            "org/apache/commons/lang3/CharUtils",
        ))
        .unwrap()
}

#[test]
fn versions_before_java_1_1_are_refused_by_name_and_newer_ones_read() {
    let error = Class::parse(&ClassFile::new("V", 44).bytes())
        .unwrap_err()
        .to_string();
    assert!(error.contains("version 44.0 is not supported"), "{error}");
    // 70 is Java 26; 71 and later are read with a warning.
    for major in [45, 69, 70, 71, 80] {
        assert!(
            Class::parse(&ClassFile::new("V", major).bytes()).is_ok(),
            "{major}"
        );
    }
}

/// Lifts `static void m()` with the given code; the error message.
fn lift_error(code: &[u8], max_stack: u16, max_locals: u16) -> String {
    let mut class = ClassFile::new("Bad", 50);
    class.method(RawMethod {
        name: "m",
        descriptor: "()V",
        max_stack,
        max_locals,
        code,
        exceptions: &[],
    });
    let class = Class::parse(&class.bytes()).expect("parse");
    let error = lift_method(&class, &class.methods[0]).unwrap_err();
    assert!(matches!(error, Error::Input(_)));
    let message = error.to_string();
    assert!(message.starts_with("Bad.m()V: "), "{message}");
    assert!(!message.contains('\n'), "{message}");
    message
}

#[test]
fn verification_errors_name_the_method() {
    // pop; return
    assert!(lift_error(&[0x57, 0xb1], 1, 0).contains("underflow"));
    // goto +2 (into the middle of itself)
    assert!(
        lift_error(&[0xa7, 0x00, 0x01, 0xb1], 0, 0).contains("not the start of an instruction")
    );
    // goto -10
    assert!(lift_error(&[0xa7, 0xff, 0xf6], 0, 0).contains("leaves the code"));
    // getstatic #999; return
    assert!(lift_error(&[0xb2, 0x03, 0xe7, 0xb1], 1, 0).contains("constant-pool index 999"));
    // iconst_0 (falls off the end)
    assert!(lift_error(&[0x03], 1, 0).contains("falls off the end"));
    // iconst_0; iconst_0; return with max_stack 1
    assert!(lift_error(&[0x03, 0x03, 0xb1], 1, 0).contains("overflow"));
    // iload_0 with no local
    assert!(lift_error(&[0x1a, 0xb1], 1, 0).contains("local 0"));
    // aconst_null; ineg
    assert!(lift_error(&[0x01, 0x74, 0xb1], 1, 0).contains("expected int"));
    // ireturn in a void method
    assert!(lift_error(&[0x03, 0xac], 1, 0).contains("return type"));
    // ret 0 without jsr
    assert!(lift_error(&[0xa9, 0x00], 0, 1).contains("no return address"));
    // opcode 0xcb
    assert!(lift_error(&[0xcb], 0, 0).contains("invalid opcode 0xcb"));
}

/// Bytes that mean something to YAML or to spec expressions.
const YAML_BYTES: &[u8] = b" :-[]{},*&#'\"0123456789xn+/()\n";

/// Mutations of the bundled spec file (bytes, and whole lines dropped or repeated) are read
/// as specs or rejected with an error, never a panic.
#[test]
fn mutated_spec_files_never_panic() {
    let mut random = Random(7);
    let lines: Vec<&str> = BUNDLED.lines().collect();
    for round in 0..2000 {
        let text = if round % 2 == 0 {
            let mut bytes = BUNDLED.as_bytes().to_vec();
            for _ in 0..1 + random.next() % 4 {
                let at = (random.next() as usize) % bytes.len();
                bytes[at] = YAML_BYTES[(random.next() as usize) % YAML_BYTES.len()];
            }
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            let mut kept: Vec<&str> = Vec::new();
            for line in &lines {
                match random.next() % 20 {
                    0 => {}
                    1 => kept.extend([*line, *line]),
                    _ => kept.push(line),
                }
            }
            kept.join("\n")
        };
        let _ = Specs::none().add_yaml(&text, SpecSource::File("mutated.yaml".to_string()));
    }
}

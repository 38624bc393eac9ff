//! Classpath entries of every kind, JDK discovery, precedence, and the `Program` caches.

mod support;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use membound_front::classpath::{Classpath, Jdk, JdkImage, Origin};
use membound_front::program::Program;
use membound_jvm::{ClassName, MethodRef};
use support::{javac, temp_dir};

const JDK17: &str = "/usr/lib/jvm/java-17-openjdk-amd64";
const JDK25: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";

fn name(internal: &str) -> ClassName {
    ClassName::new(internal)
}

fn two_packages(test: &str) -> std::path::PathBuf {
    javac(
        test,
        &["--release", "8"],
        &[
            (
                "A.java",
                "package p; public class A { public int one() { return 1; } }",
            ),
            ("B.java", "package q.r; public class B extends p.A { }"),
        ],
    )
}

#[test]
fn directories_are_walked_by_package() {
    let dir = two_packages("dirs");
    let classpath = Classpath::from_spec(&dir.display().to_string()).unwrap();
    assert_eq!(classpath.user_classes(), &[name("p/A"), name("q/r/B")]);
    let b = classpath.load(&name("q/r/B")).unwrap();
    assert_eq!(b.super_class, Some(name("p/A")));
    assert_eq!(b.version.major, 52);
}

#[test]
fn jars_and_several_entries() {
    let dir = two_packages("jars");
    let jar = dir.parent().unwrap().join("app.jar");
    let status = Command::new("jar")
        .arg("cf")
        .arg(&jar)
        .arg("-C")
        .arg(&dir)
        .arg("p")
        .status()
        .expect("run jar");
    assert!(status.success());
    let other = javac(
        "jars-other",
        &["--release", "8"],
        &[("C.java", "public class C { }")],
    );
    let spec = format!("{}:{}", jar.display(), other.display());
    let classpath = Classpath::from_spec(&spec).unwrap();
    assert_eq!(classpath.user_classes(), &[name("p/A"), name("C")]);
    assert!(
        classpath
            .load(&name("p/A"))
            .unwrap()
            .method("one", "()I")
            .is_some()
    );
    assert!(classpath.load(&name("C")).is_ok());
    assert!(matches!(
        classpath.load(&name("q/r/B")),
        Err(membound_jvm::error::Error::ClassNotFound(_))
    ));
}

#[test]
fn a_lone_class_file_is_named_by_its_contents() {
    let dir = two_packages("lone");
    let file = dir.join("q/r/B.class");
    let copy = dir.parent().unwrap().join("Renamed.class");
    std::fs::copy(&file, &copy).unwrap();
    let classpath = Classpath::from_spec(&copy.display().to_string()).unwrap();
    assert_eq!(classpath.user_classes(), &[name("q/r/B")]);
    assert!(classpath.load(&name("q/r/B")).is_ok());
}

#[test]
fn the_first_user_entry_wins() {
    let first = javac(
        "first",
        &["--release", "8"],
        &[("D.java", "public class D { void first() {} }")],
    );
    let second = javac(
        "second",
        &["--release", "8"],
        &[("D.java", "public class D { void second() {} }")],
    );
    let spec = format!("{}:{}", first.display(), second.display());
    let classpath = Classpath::from_spec(&spec).unwrap();
    let d = classpath.load(&name("D")).unwrap();
    assert!(d.method("first", "()V").is_some());
    assert_eq!(classpath.user_classes(), &[name("D")]);
}

#[test]
fn jdk_classes_take_precedence_over_user_classes() {
    let dir = temp_dir("shadow");
    let fake = javac(
        "shadow-src",
        &["--release", "8"],
        &[("Fake.java", "public class Fake { }")],
    );
    // A user class file claiming to be java/lang/Object is never what the JVM loads.
    std::fs::create_dir_all(dir.join("java/lang")).unwrap();
    std::fs::copy(fake.join("Fake.class"), dir.join("java/lang/Object.class")).unwrap();
    let mut classpath = Classpath::from_spec(&dir.display().to_string()).unwrap();
    classpath
        .add_jdk(&Jdk::at(Path::new(JDK17)).unwrap())
        .unwrap();
    assert_eq!(classpath.origin(&ClassName::object()), Some(Origin::Jdk));
    let object = classpath.load(&ClassName::object()).unwrap();
    assert_eq!(object.super_class, None);
}

#[test]
fn jimage_and_jmods_give_the_same_classes() {
    let from_image = jdk_classpath(Jdk::at(Path::new(JDK17)).unwrap());
    let from_jmods = jdk_classpath(Jdk::jmods_at(Path::new(JDK17)).unwrap());
    for class in [
        "java/lang/String",
        "java/util/HashMap",
        "java/util/concurrent/ConcurrentHashMap",
    ] {
        let a = from_image.load(&name(class)).unwrap();
        let b = from_jmods.load(&name(class)).unwrap();
        assert_eq!(a.methods.len(), b.methods.len(), "{class}");
        assert_eq!(a.fields, b.fields, "{class}");
        assert_eq!(a.interfaces, b.interfaces, "{class}");
    }
    assert!(from_image.user_classes().is_empty());
    assert!(
        from_image
            .module_classes("java.sql")
            .contains(&name("java/sql/Connection"))
    );
}

#[test]
fn java_25_image_has_version_69_classes() {
    let jdk = Jdk::at(Path::new(JDK25)).unwrap();
    assert!(
        matches!(jdk.image, JdkImage::Modules(_)),
        "JDK 25 here has no jmods"
    );
    let classpath = jdk_classpath(jdk);
    let string = classpath.load(&name("java/lang/String")).unwrap();
    assert_eq!(string.version.major, 69);
}

#[test]
fn a_jdk_is_found_from_the_environment() {
    let jdk = Jdk::locate(None).expect("JAVA_HOME or java on PATH");
    let classpath = jdk_classpath(jdk);
    assert!(classpath.contains(&ClassName::object()));
    let explicit = Jdk::locate(Some(Path::new(JDK25))).unwrap();
    assert_eq!(explicit.home, Path::new(JDK25));
    assert!(Jdk::at(Path::new("/nonexistent")).is_err());
}

fn jdk_classpath(jdk: Jdk) -> Classpath {
    let mut classpath = Classpath::new();
    classpath.add_jdk(&jdk).unwrap();
    classpath
}

#[test]
fn program_caches_classes_and_bodies_and_is_shareable() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Program>();

    let dir = two_packages("program");
    let mut classpath = Classpath::from_spec(&dir.display().to_string()).unwrap();
    classpath
        .add_jdk(&Jdk::at(Path::new(JDK17)).unwrap())
        .unwrap();
    let program = Program::new(classpath);
    let users: Vec<&ClassName> = program.user_classes().collect();
    assert_eq!(users, [&name("p/A"), &name("q/r/B")]);

    let a = program.class(&name("p/A")).unwrap();
    assert!(Arc::ptr_eq(&a, &program.class(&name("p/A")).unwrap()));
    let one = MethodRef::new(name("p/A"), "one", "()I");
    let body = program.body(&one).unwrap();
    assert!(Arc::ptr_eq(&body, &program.body(&one).unwrap()));

    let hash = MethodRef::new(name("java/lang/String"), "hashCode", "()I");
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| assert!(program.body(&hash).is_ok()));
        }
    });

    let missing = MethodRef::new(name("p/A"), "two", "()I");
    assert!(
        program
            .body(&missing)
            .unwrap_err()
            .to_string()
            .contains("not declared")
    );
    let native = MethodRef::new(name("java/lang/Object"), "hashCode", "()I");
    assert!(
        program
            .body(&native)
            .unwrap_err()
            .to_string()
            .contains("no code")
    );
}

/// A java.base image made by this JDK's jlink with `--compress=<level>`, and the directory
/// to remove afterwards (an image is tens of megabytes).
fn compressed_image(level: u8) -> (Classpath, std::path::PathBuf) {
    let dir = temp_dir(&format!("compressed-{level}"));
    let image = dir.join("image");
    let status = Command::new(format!("{JDK17}/bin/jlink"))
        .args(["--add-modules", "java.base", &format!("--compress={level}")])
        .arg("--output")
        .arg(&image)
        .status()
        .expect("run jlink");
    assert!(status.success());
    (jdk_classpath(Jdk::at(&image).unwrap()), dir)
}

#[test]
fn zip_compressed_jimage_resources_are_inflated() {
    let (classpath, dir) = compressed_image(2);
    let string = classpath.load(&name("java/lang/String")).unwrap();
    let _ = std::fs::remove_dir_all(dir);
    let plain = jdk_classpath(Jdk::at(Path::new(JDK17)).unwrap());
    let expected = plain.load(&name("java/lang/String")).unwrap();
    assert_eq!(string.methods.len(), expected.methods.len());
    assert_eq!(string.fields, expected.fields);
}

#[test]
fn constant_pool_compressed_jimage_resources_are_refused_clearly() {
    let (classpath, dir) = compressed_image(1);
    assert!(classpath.contains(&name("java/lang/String")));
    let error = classpath
        .load(&name("java/lang/String"))
        .unwrap_err()
        .to_string();
    let _ = std::fs::remove_dir_all(dir);
    assert!(error.contains("compressed with 'compact-cp'"), "{error}");
}

/// A jimage written by hand: one class `Tiny` of module `java.base`, uncompressed, in the
/// given byte order; checks the reader against the format rather than against one JDK.
fn tiny_image(class: &[u8], little_endian: bool) -> Vec<u8> {
    let strings = b"\0java.base\0Tiny\0class\0";
    let (module, base, extension) = (1u8, 11u8, 16u8);
    // Attribute bytes: kind << 3 | (length - 1), then the big-endian value.
    let size = class.len() as u16;
    let mut location = vec![1 << 3, module, 2 << 3, 0, 3 << 3, base, 4 << 3, extension];
    location.extend([5 << 3, 0, 7 << 3 | 1]);
    location.extend(size.to_be_bytes());
    location.push(0);
    let word = |v: u32| {
        if little_endian {
            v.to_le_bytes()
        } else {
            v.to_be_bytes()
        }
    };
    let mut image = Vec::new();
    let header = [
        0xCAFE_DADA,
        1 << 16,
        0,
        1,
        1,
        location.len() as u32,
        strings.len() as u32,
    ];
    for value in header {
        image.extend(word(value));
    }
    image.extend(word(0)); // redirect table
    image.extend(word(0)); // offsets table
    image.extend(&location);
    image.extend(strings);
    image.extend(class);
    image
}

#[test]
fn a_hand_made_jimage_is_read_in_either_byte_order() {
    let source = javac(
        "tiny-src",
        &["--release", "8"],
        &[("Tiny.java", "public class Tiny { int x; }")],
    );
    let class = std::fs::read(source.join("Tiny.class")).unwrap();
    for little_endian in [true, false] {
        let home = temp_dir(&format!("tiny-image-{little_endian}"));
        std::fs::create_dir_all(home.join("lib")).unwrap();
        std::fs::write(home.join("lib/modules"), tiny_image(&class, little_endian)).unwrap();
        let classpath = jdk_classpath(Jdk::at(&home).unwrap());
        assert_eq!(classpath.module_classes("java.base"), [name("Tiny")]);
        let tiny = classpath.load(&name("Tiny")).unwrap();
        assert_eq!(&*tiny.fields[0].name, "x");
    }
}

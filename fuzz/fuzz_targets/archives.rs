//! Fuzzes the readers of classpath containers: the input, written to a file, is opened as a
//! jar, a jmod and a JDK runtime image (`lib/modules`), and every class listed is read and
//! parsed. Errors are fine; panics are not.

#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use membound_front::classpath::{Classpath, Jdk, JdkImage};

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("membound-fuzz-archives-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    for name in ["input.jar", "input.jmod"] {
        let path = dir.join(name);
        if std::fs::write(&path, data).is_ok() {
            if let Ok(classpath) = Classpath::from_spec(&path.display().to_string()) {
                read_all(&classpath, classpath.user_classes().to_vec());
            }
        }
    }
    let image = dir.join("modules");
    if std::fs::write(&image, data).is_ok() {
        let jdk = Jdk {
            home: PathBuf::from(&dir),
            image: JdkImage::Modules(image),
        };
        let mut classpath = Classpath::new();
        if classpath.add_jdk(&jdk).is_ok() {
            let names = classpath.module_classes("java.base");
            read_all(&classpath, names);
        }
    }
});

fn read_all(classpath: &Classpath, names: Vec<membound_jvm::ClassName>) {
    for name in names.iter().take(64) {
        let _ = classpath.load(name);
    }
}

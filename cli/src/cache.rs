//! `analyze --entry-points … --cache DIR`: each entry point's certificate kept in a file, and
//! reused while everything it was computed from is unchanged.
//!
//! A result depends on
//! - the setting: membound's version, the object model, the analysis options, the spec files'
//!   contents and the JDK (its `release` file, its image's path, size and time) — one digest,
//!   part of the file's name;
//! - the user's classes the analysis read the code of ([`Reads::classes`]): each by the SHA-256
//!   of its class file, or absent; a class the JDK supplies is covered by the setting;
//! - the user's classes it asked about for their declarations only ([`Reads::declarations`]:
//!   supertypes, flags, fields and methods by signature, presence): each by the SHA-256 of its
//!   declaration, so a change inside a method body leaves them as they were;
//! - when the analysis listed the user's classes (a subtype scan) or used the whole classpath,
//!   every user class: one digest of their names and declarations (what the scan reads).
//!
//! A record is JSON compressed with DEFLATE (gzip): an entry's certificate lists every method
//! of its call tree with its sites, whose names repeat, and compresses about 15-fold.
//!
//! A file is written to a temporary name in the directory and renamed, so a reader (another run
//! at the same time included) sees a whole record or none; a record that does not parse, or
//! whose classes changed, is analyzed again and replaced.

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use membound_certificate::Certificate;
use membound_front::classpath::{Jdk, JdkImage, Origin};
use membound_front::program::{Program, Reads};
use membound_jvm::error::{Error, Result};
use membound_jvm::{ClassName, MethodRef};

/// The version of the record format; a record of another is analyzed again.
const RECORD_FORMAT: u32 = 3;

/// A class's hash when it is not on the classpath.
const ABSENT: &str = "absent";

/// One entry point's stored result.
#[derive(Serialize, Deserialize)]
struct Record {
    format: u32,
    setting: String,
    method: String,
    /// The user's classes the analysis read the code of, with their hashes.
    classes: BTreeMap<String, String>,
    /// The user's classes it asked about for their declarations only, with the hashes of those.
    declarations: BTreeMap<String, String>,
    /// The digest of every user class's declaration, when the analysis scanned them.
    user_classes: Option<String>,
    certificate: Certificate,
}

pub(super) struct Cache<'p> {
    dir: PathBuf,
    setting: String,
    /// The program, read without recording, for the classes' current hashes.
    program: &'p Program,
    hashes: Mutex<HashMap<(ClassName, Part), String>>,
    user_classes: OnceLock<String>,
}

/// What of a class a hash covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Part {
    /// Its class file.
    Contents,
    /// What it declares ([`membound_front::classfile::Class::declaration_text`]).
    Declaration,
}

impl<'p> Cache<'p> {
    /// The cache in `dir` (created if needed) for results of this setting, whose parts are
    /// given as text (see the module documentation), the JDK apart.
    pub(super) fn open(
        dir: &Path,
        program: &'p Program,
        setting: &[String],
        jdk: &Jdk,
    ) -> Result<Cache<'p>> {
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::Input(format!(
                "cannot create the cache directory {}: {e}",
                dir.display()
            ))
        })?;
        let mut hasher = Sha256::new();
        for part in setting.iter().cloned().chain([jdk_fingerprint(jdk)]) {
            hasher.update(part.as_bytes());
            hasher.update([0]);
        }
        Ok(Cache {
            dir: dir.to_path_buf(),
            setting: hex(&hasher.finalize()),
            program,
            hashes: Mutex::default(),
            user_classes: OnceLock::new(),
        })
    }

    /// The stored certificate of `method` when what it depends on is unchanged.
    pub(super) fn lookup(&self, method: &MethodRef) -> Option<Certificate> {
        let compressed = std::fs::read(self.path(method)).ok()?;
        let mut text = Vec::new();
        GzDecoder::new(compressed.as_slice())
            .read_to_end(&mut text)
            .ok()?;
        let record: Record = serde_json::from_slice(&text).ok()?;
        let holds =
            record.format == RECORD_FORMAT
                && record.setting == self.setting
                && record.method == method.to_string()
                && record.classes.iter().all(|(class, hash)| {
                    self.hash(&ClassName::new(class), Part::Contents) == *hash
                })
                && record.declarations.iter().all(|(class, hash)| {
                    self.hash(&ClassName::new(class), Part::Declaration) == *hash
                })
                && record
                    .user_classes
                    .as_ref()
                    .is_none_or(|digest| digest == self.user_classes());
        holds.then_some(record.certificate)
    }

    /// Stores `method`'s certificate, computed from what `reads` lists. A failure to write is
    /// reported and otherwise ignored: the result stands without its record.
    pub(super) fn store(&self, method: &MethodRef, reads: &Reads, certificate: &Certificate) {
        let hashes = |classes: &mut dyn Iterator<Item = &ClassName>, part| {
            classes
                .filter(|class| self.program.origin(class) != Some(Origin::Jdk))
                .map(|class| (class.internal().to_string(), self.hash(class, part)))
                .collect()
        };
        let record = Record {
            format: RECORD_FORMAT,
            setting: self.setting.clone(),
            method: method.to_string(),
            classes: hashes(&mut reads.classes.iter(), Part::Contents),
            declarations: hashes(
                &mut reads.declarations.difference(&reads.classes),
                Part::Declaration,
            ),
            user_classes: (reads.user_classes || reads.whole_classpath)
                .then(|| self.user_classes().to_string()),
            certificate: certificate.clone(),
        };
        if let Err(e) = self.write(&self.path(method), &record) {
            eprintln!("membound: cannot write to the cache: {e}");
        }
    }

    /// Writes to a fresh temporary file in the directory, then renames it over the record.
    fn write(&self, path: &Path, record: &Record) -> std::io::Result<()> {
        static WRITES: AtomicU64 = AtomicU64::new(0);
        let mut compressed = GzEncoder::new(Vec::new(), Compression::fast());
        serde_json::to_writer(&mut compressed, record)?;
        let bytes = compressed.finish()?;
        let temporary = self.dir.join(format!(
            ".{}.{}.{}.tmp",
            path.file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("record"),
            std::process::id(),
            WRITES.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&temporary, bytes)?;
        std::fs::rename(&temporary, path).inspect_err(|_| {
            let _ = std::fs::remove_file(&temporary);
        })
    }

    fn path(&self, method: &MethodRef) -> PathBuf {
        let name = hex(&Sha256::digest(format!("{}\n{method}", self.setting)));
        self.dir.join(format!("{}.json.gz", &name[..32]))
    }

    /// The hash of a class's part as this program has it: of its class file or of its
    /// declaration, `absent`, or `jdk`.
    fn hash(&self, class: &ClassName, part: Part) -> String {
        let key = (class.clone(), part);
        let mut hashes = self.hashes.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(hash) = hashes.get(&key) {
            return hash.clone();
        }
        let hash = match self.program.origin(class) {
            None => ABSENT.to_string(),
            Some(Origin::Jdk) => "jdk".to_string(),
            Some(Origin::User) => {
                let bytes = match part {
                    Part::Contents => self.program.class_bytes(class),
                    Part::Declaration => self
                        .program
                        .class(class)
                        .map(|c| c.declaration_text().into_bytes()),
                };
                bytes.map_or_else(|e| format!("unreadable: {e}"), |b| hex(&Sha256::digest(b)))
            }
        };
        hashes.insert(key, hash.clone());
        hash
    }

    /// The digest of every user class's name and declaration.
    fn user_classes(&self) -> &str {
        self.user_classes.get_or_init(|| {
            let mut names: Vec<&ClassName> = self.program.user_classes().collect();
            names.sort();
            let mut hasher = Sha256::new();
            for name in names {
                let hash = self.hash(name, Part::Declaration);
                hasher.update(format!("{name} {hash}\n").as_bytes());
            }
            hex(&hasher.finalize())
        })
    }
}

/// What identifies a JDK installation without reading its classes: its `release` file, and
/// its image's path, size and modification time.
fn jdk_fingerprint(jdk: &Jdk) -> String {
    let release = std::fs::read_to_string(jdk.home.join("release")).unwrap_or_default();
    let image = match &jdk.image {
        JdkImage::Modules(path) | JdkImage::Jmods(path) => path,
    };
    let stamp = std::fs::metadata(image)
        .map(|m| format!("{} {:?}", m.len(), m.modified().ok()))
        .unwrap_or_default();
    format!("{}\n{release}\n{stamp}", image.display())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

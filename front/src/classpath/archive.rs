//! Zip archives on the classpath: `.jar` files, and `.jmod` files (a 4-byte `JM\x01\x00`
//! header followed by a zip whose classes live under `classes/`).
//!
//! The central directory is read when the archive is opened; entries are read and inflated on
//! demand. Each read works on a cheap clone of the archive over a shared file handle using
//! positioned reads, so many threads can read classes at once without a lock.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use zip::ZipArchive;

use membound_jvm::error::{Error, Result};

/// The magic bytes that open a `.jmod` file.
const JMOD_MAGIC: &[u8; 4] = b"JM\x01\x00";

/// A read-only view of a file from `base` to its end, shared between clones; each clone has its
/// own position and reads with `pread`.
#[derive(Clone)]
struct SharedFile {
    file: Arc<File>,
    base: u64,
    len: u64,
    pos: u64,
}

impl SharedFile {
    fn new(file: File, base: u64) -> io::Result<Self> {
        let total = file.metadata()?.len();
        Ok(SharedFile {
            file: Arc::new(file),
            base,
            len: total.saturating_sub(base),
            pos: 0,
        })
    }
}

impl Read for SharedFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let remaining = self.len.saturating_sub(self.pos);
        let wanted = buf
            .len()
            .min(usize::try_from(remaining).unwrap_or(usize::MAX));
        let Some(buf) = buf.get_mut(..wanted) else {
            return Ok(0);
        };
        let Some(at) = self.base.checked_add(self.pos) else {
            return Ok(0);
        };
        let read = self.file.read_at(buf, at)?;
        self.pos += read as u64;
        Ok(read)
    }
}

impl Seek for SharedFile {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(offset) => Some(offset),
            SeekFrom::End(delta) => self.len.checked_add_signed(delta),
            SeekFrom::Current(delta) => self.pos.checked_add_signed(delta),
        };
        let target = target.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the start of the file",
            )
        })?;
        self.pos = target;
        Ok(target)
    }
}

/// An opened jar or jmod.
pub(crate) struct Archive {
    path: PathBuf,
    zip: ZipArchive<SharedFile>,
    /// Prefix of class entries inside the zip: `""` for jars, `"classes/"` for jmods.
    class_prefix: &'static str,
}

impl Archive {
    pub(crate) fn open_jar(path: &Path) -> Result<Archive> {
        Self::open(path, 0, "")
    }

    pub(crate) fn open_jmod(path: &Path) -> Result<Archive> {
        let mut header = [0u8; 4];
        let mut file = File::open(path).map_err(|source| io_error(path, source))?;
        file.read_exact(&mut header)
            .map_err(|source| io_error(path, source))?;
        if &header != JMOD_MAGIC {
            return Err(Error::Input(format!(
                "{} is not a jmod file (no JM\\x01\\x00 header)",
                path.display()
            )));
        }
        Self::open(path, JMOD_MAGIC.len() as u64, "classes/")
    }

    fn open(path: &Path, base: u64, class_prefix: &'static str) -> Result<Archive> {
        let file = File::open(path).map_err(|source| io_error(path, source))?;
        let shared = SharedFile::new(file, base).map_err(|source| io_error(path, source))?;
        let zip = ZipArchive::new(shared).map_err(|e| {
            Error::Input(format!(
                "{} is not a readable zip archive: {e}",
                path.display()
            ))
        })?;
        Ok(Archive {
            path: path.to_path_buf(),
            zip,
            class_prefix,
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Every class in the archive as (internal class name, entry index). Multi-release
    /// versions (`META-INF/versions/…`) and `module-info` are left out.
    pub(crate) fn classes(&self) -> Vec<(String, usize)> {
        let mut classes = Vec::new();
        for index in 0..self.zip.len() {
            let Some(Ok(name)) = self.zip.name_for_index(index) else {
                continue;
            };
            let Some(class) = name
                .strip_prefix(self.class_prefix)
                .and_then(|rest| rest.strip_suffix(".class"))
            else {
                continue;
            };
            if class.starts_with("META-INF/") || class.ends_with("module-info") {
                continue;
            }
            classes.push((class.to_string(), index));
        }
        classes
    }

    /// The bytes of the entry at `index`.
    pub(crate) fn read(&self, index: usize) -> Result<Vec<u8>> {
        let mut zip = self.zip.clone();
        let mut entry = zip.by_index(index).map_err(|e| self.bad(&e))?;
        let mut bytes = Vec::with_capacity(usize::try_from(entry.size()).unwrap_or(0).min(1 << 24));
        entry.read_to_end(&mut bytes).map_err(|e| self.bad(&e))?;
        Ok(bytes)
    }

    fn bad(&self, e: &dyn std::fmt::Display) -> Error {
        Error::Input(format!("cannot read from {}: {e}", self.path.display()))
    }
}

pub(crate) fn io_error(path: &Path, source: io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

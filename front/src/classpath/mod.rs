//! Where class files come from: the user's classpath entries and the JDK's own classes.
//!
//! A [`Classpath`] is a list of entries — `.class` files, directories of them, `.jar` files —
//! plus optionally a [`Jdk`], whose classes come from `lib/modules` (the jimage format) or from
//! `jmods/*.jmod`. Opening an entry only lists the class names it holds (a directory walk, a
//! zip central directory, the jimage index); the bytes of a class are read when asked for. As
//! on the JVM, the JDK's classes take precedence over same-named user classes (the boot loader
//! is asked first), and among user entries the first one wins.
//!
//! This module hands out bytes; parsing them is [`crate::classfile`]'s job and caching parsed
//! classes is [`crate::program`]'s.

mod archive;
mod jimage;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use archive::{Archive, io_error};
use jimage::{Jimage, Resource};

use crate::classfile::Class;
use membound_jvm::ClassName;
use membound_jvm::error::{Error, Result};

/// Who supplied a class: the user's entries or the JDK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    User,
    Jdk,
}

/// An opened place classes can come from.
enum Source {
    Directory(PathBuf),
    ClassFile(PathBuf),
    Archive(Archive),
    Jimage(Jimage),
}

impl Source {
    fn path(&self) -> &Path {
        match self {
            Source::Directory(path) | Source::ClassFile(path) => path,
            Source::Archive(archive) => archive.path(),
            Source::Jimage(image) => image.path(),
        }
    }
}

/// Where one class is inside its source.
#[derive(Clone, Debug)]
enum Entry {
    File(PathBuf),
    ArchiveIndex(usize),
    Jimage(Resource),
}

/// A class found on the classpath.
#[derive(Clone, Debug)]
struct Located {
    source: usize,
    entry: Entry,
    origin: Origin,
    /// The JDK module holding the class (`java.base`); `None` for user classes.
    module: Option<Arc<str>>,
}

/// An ordered set of classpath entries and optionally the JDK, indexed by class name.
#[derive(Default)]
pub struct Classpath {
    sources: Vec<Source>,
    index: HashMap<ClassName, Located>,
    /// Class names of the user's entries, in entry order, each once.
    user_classes: Vec<ClassName>,
}

impl Classpath {
    /// An empty classpath.
    pub fn new() -> Self {
        Self::default()
    }

    /// A classpath from a `:`-separated list of entries (`app.jar:lib/:Main.class`).
    pub fn from_spec(spec: &str) -> Result<Self> {
        let mut classpath = Self::new();
        for entry in spec.split(':').filter(|e| !e.is_empty()) {
            classpath.add_entry(Path::new(entry))?;
        }
        Ok(classpath)
    }

    /// Adds a user entry: a directory, a `.jar` (or `.zip`), a `.jmod` or a `.class` file.
    pub fn add_entry(&mut self, path: &Path) -> Result<()> {
        let metadata = std::fs::metadata(path).map_err(|source| io_error(path, source))?;
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if metadata.is_dir() {
            self.add_directory(path)
        } else if extension == "class" {
            self.add_class_file(path)
        } else if extension == "jar" || extension == "zip" {
            self.add_archive(Archive::open_jar(path)?, Origin::User, None);
            Ok(())
        } else if extension == "jmod" {
            self.add_archive(Archive::open_jmod(path)?, Origin::User, None);
            Ok(())
        } else {
            Err(Error::Input(format!(
                "{}: not a classpath entry (expected a directory, .class, .jar or .jmod)",
                path.display()
            )))
        }
    }

    /// Adds the JDK's classes; they take precedence over the user's (see the module doc).
    pub fn add_jdk(&mut self, jdk: &Jdk) -> Result<()> {
        match &jdk.image {
            JdkImage::Modules(path) => {
                let (image, classes) = Jimage::open(path)?;
                let source = self.push_source(Source::Jimage(image));
                let mut modules: HashMap<String, Arc<str>> = HashMap::new();
                for (module, name, resource) in classes {
                    let module = modules
                        .entry(module)
                        .or_insert_with_key(|m| Arc::from(m.as_str()));
                    let located = Located {
                        source,
                        entry: Entry::Jimage(resource),
                        origin: Origin::Jdk,
                        module: Some(module.clone()),
                    };
                    self.insert(ClassName::new(&name), located);
                }
            }
            JdkImage::Jmods(dir) => {
                for path in jmod_files(dir)? {
                    let module = path
                        .file_stem()
                        .and_then(|stem| stem.to_str())
                        .map(Arc::from);
                    self.add_archive(Archive::open_jmod(&path)?, Origin::Jdk, module);
                }
            }
        }
        Ok(())
    }

    /// Whether a class of this name is on the classpath.
    pub fn contains(&self, name: &ClassName) -> bool {
        self.index.contains_key(name)
    }

    /// Who supplies the class, if anyone does.
    pub fn origin(&self, name: &ClassName) -> Option<Origin> {
        self.index.get(name).map(|located| located.origin)
    }

    /// The class names of the user's entries (not the JDK's), in entry order.
    pub fn user_classes(&self) -> &[ClassName] {
        &self.user_classes
    }

    /// The classes of one JDK module (`java.base`), sorted by name.
    pub fn module_classes(&self, module: &str) -> Vec<ClassName> {
        let mut names: Vec<ClassName> = self
            .index
            .iter()
            .filter(|(_, located)| located.module.as_deref() == Some(module))
            .map(|(name, _)| name.clone())
            .collect();
        names.sort();
        names
    }

    /// Every class name on the classpath, the user's and the JDK's, in no particular order.
    pub fn all_classes(&self) -> impl Iterator<Item = ClassName> + '_ {
        self.index.keys().cloned()
    }

    /// The bytes of a class file.
    pub fn read(&self, name: &ClassName) -> Result<Vec<u8>> {
        let located = self
            .index
            .get(name)
            .ok_or_else(|| Error::ClassNotFound(name.to_string()))?;
        let source = self
            .sources
            .get(located.source)
            .ok_or_else(|| Error::ClassNotFound(name.to_string()))?;
        match (&located.entry, source) {
            (Entry::File(path), _) => std::fs::read(path).map_err(|source| io_error(path, source)),
            (Entry::ArchiveIndex(index), Source::Archive(archive)) => archive.read(*index),
            (Entry::Jimage(resource), Source::Jimage(image)) => {
                image.read(*resource, name.internal())
            }
            _ => Err(Error::ClassNotFound(name.to_string())),
        }
    }

    /// Reads and parses a class; errors name the class and where it came from.
    pub fn load(&self, name: &ClassName) -> Result<Class> {
        let bytes = self.read(name)?;
        let class = Class::parse(&bytes).map_err(|e| self.in_context(name, e))?;
        if &class.name != name {
            return Err(self.in_context(
                name,
                Error::Input(format!("the file declares class {} instead", class.name)),
            ));
        }
        Ok(class)
    }

    fn in_context(&self, name: &ClassName, error: Error) -> Error {
        let place = self
            .index
            .get(name)
            .and_then(|located| self.sources.get(located.source))
            .map(|source| source.path().display().to_string())
            .unwrap_or_default();
        Error::Input(format!("{name} (from {place}): {error}"))
    }

    fn push_source(&mut self, source: Source) -> usize {
        self.sources.push(source);
        self.sources.len() - 1
    }

    fn insert(&mut self, name: ClassName, located: Located) {
        let origin = located.origin;
        match self.index.get(&name).map(|l| l.origin) {
            None => {
                if origin == Origin::User {
                    self.user_classes.push(name.clone());
                }
                self.index.insert(name, located);
            }
            // The boot loader is asked before the application's loader.
            Some(Origin::User) if origin == Origin::Jdk => {
                self.index.insert(name, located);
            }
            Some(_) => {}
        }
    }

    fn add_archive(&mut self, archive: Archive, origin: Origin, module: Option<Arc<str>>) {
        let classes = archive.classes();
        let source = self.push_source(Source::Archive(archive));
        for (name, index) in classes {
            let located = Located {
                source,
                entry: Entry::ArchiveIndex(index),
                origin,
                module: module.clone(),
            };
            self.insert(ClassName::new(&name), located);
        }
    }

    /// A class of the user's, found in a file.
    fn user_file(source: usize, path: PathBuf) -> Located {
        Located {
            source,
            entry: Entry::File(path),
            origin: Origin::User,
            module: None,
        }
    }

    fn add_directory(&mut self, dir: &Path) -> Result<()> {
        let source = self.push_source(Source::Directory(dir.to_path_buf()));
        let mut files = Vec::new();
        collect_class_files(dir, &mut files)?;
        files.sort();
        for path in files {
            let Some(name) = class_name_in_directory(dir, &path) else {
                continue;
            };
            self.insert(name, Self::user_file(source, path));
        }
        Ok(())
    }

    /// A lone `.class` file: its name is read from the file, since its place in the file
    /// system need not match its package.
    fn add_class_file(&mut self, path: &Path) -> Result<()> {
        let bytes = std::fs::read(path).map_err(|source| io_error(path, source))?;
        let class =
            Class::parse(&bytes).map_err(|e| Error::Input(format!("{}: {e}", path.display())))?;
        let source = self.push_source(Source::ClassFile(path.to_path_buf()));
        self.insert(class.name, Self::user_file(source, path.to_path_buf()));
        Ok(())
    }
}

fn collect_class_files(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|source| io_error(dir, source))?;
    for entry in entries {
        let entry = entry.map_err(|source| io_error(dir, source))?;
        let path = entry.path();
        let kind = entry
            .file_type()
            .map_err(|source| io_error(&path, source))?;
        if kind.is_dir() {
            collect_class_files(&path, files)?;
        } else if path.extension().is_some_and(|e| e == "class") {
            files.push(path);
        }
    }
    Ok(())
}

/// `dir/pkg/Sub/A.class` is class `pkg/Sub/A`; `module-info` and non-UTF-8 paths are skipped.
fn class_name_in_directory(dir: &Path, file: &Path) -> Option<ClassName> {
    let relative = file.strip_prefix(dir).ok()?.with_extension("");
    let parts: Option<Vec<&str>> = relative
        .components()
        .map(|c| c.as_os_str().to_str())
        .collect();
    let name = parts?.join("/");
    (!name.ends_with("module-info")).then(|| ClassName::new(&name))
}

fn jmod_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).map_err(|source| io_error(dir, source))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.map_err(|source| io_error(dir, source))?.path();
        if path.extension().is_some_and(|e| e == "jmod") {
            files.push(path);
        }
    }
    // java.base first, so that its classes win should another module repeat one.
    files.sort_by_key(|p| (!p.ends_with("java.base.jmod"), p.clone()));
    Ok(files)
}

/// How a JDK stores its classes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JdkImage {
    /// The runtime image `lib/modules` (jimage format).
    Modules(PathBuf),
    /// A directory of `.jmod` files.
    Jmods(PathBuf),
}

/// A JDK installation whose classes can be added to a classpath.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Jdk {
    pub home: PathBuf,
    pub image: JdkImage,
}

impl Jdk {
    /// The JDK at `home`: its `lib/modules` when present, else its `jmods/`.
    pub fn at(home: &Path) -> Result<Jdk> {
        let modules = home.join("lib").join("modules");
        let jmods = home.join("jmods");
        let image = if modules.is_file() {
            JdkImage::Modules(modules)
        } else if jmods.is_dir() {
            JdkImage::Jmods(jmods)
        } else {
            return Err(Error::Input(format!(
                "{} is not a JDK (no lib/modules and no jmods/)",
                home.display()
            )));
        };
        Ok(Jdk {
            home: home.to_path_buf(),
            image,
        })
    }

    /// The JDK at `home`, read from its `jmods/` even when it also has `lib/modules`.
    pub fn jmods_at(home: &Path) -> Result<Jdk> {
        let jmods = home.join("jmods");
        if !jmods.is_dir() {
            return Err(Error::Input(format!("{} has no jmods/", home.display())));
        }
        Ok(Jdk {
            home: home.to_path_buf(),
            image: JdkImage::Jmods(jmods),
        })
    }

    /// Finds a JDK: `explicit` if given, else `$JAVA_HOME`, else the `java` on `PATH`
    /// (following symlinks from `…/bin/java` to the real installation).
    pub fn locate(explicit: Option<&Path>) -> Result<Jdk> {
        if let Some(home) = explicit {
            return Jdk::at(home);
        }
        if let Some(home) = std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
            return Jdk::at(Path::new(&home));
        }
        let java = find_on_path("java").ok_or_else(|| {
            Error::Input("no JDK found: pass --jdk, set JAVA_HOME, or put java on PATH".into())
        })?;
        let real = std::fs::canonicalize(&java).map_err(|source| io_error(&java, source))?;
        // …/bin/java → …
        let home = real
            .parent()
            .and_then(Path::parent)
            .ok_or_else(|| Error::Input(format!("{}: cannot find its JDK", real.display())))?;
        Jdk::at(home)
    }
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

//! The program under analysis: a classpath with parsed classes and lifted bodies, cached.
//!
//! [`Program`] is what the later stages (hierarchy, call graph, escape analysis) ask for classes
//! and method bodies. It parses a class the first time it is asked for and lifts a method the
//! first time its body is asked for, and keeps both; it is `Send + Sync`, so stages running in
//! parallel share one program. Errors are not cached: asking again for a broken class reports
//! the error again. It does not resolve methods through the hierarchy: `body` wants the class
//! that declares the method.
//!
//! A [`Program::recording`] view shares the caches and logs which classes it is asked about
//! ([`Reads`]), and whether for their contents or for their declarations only: what an
//! analysis depends on, for a cache of its results.

use std::collections::{BTreeSet, HashMap};
use std::hash::Hash;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use crate::classfile::{Class, ClassHeader};
use crate::classpath::{Classpath, Origin};
use crate::ir::{self, Body};
use membound_jvm::error::{Error, Result};
use membound_jvm::{ClassName, MethodRef};

/// A classpath with caches of parsed classes and lifted bodies.
pub struct Program {
    classpath: Arc<Classpath>,
    classes: Arc<Cache<ClassName, Class>>,
    bodies: Arc<Cache<MethodRef, Body>>,
    subtypes: Arc<SubtypeScans>,
    /// What this view was asked about, when it records.
    reads: Option<Mutex<Reads>>,
}

/// The classpath a recording view was asked about: everything a result computed through it
/// depends on. A class asked for that is not on the classpath is a name here too (adding it
/// may change the result).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reads {
    /// Classes whose contents were asked for: parsed for their code, lifted, read as bytes.
    pub classes: BTreeSet<ClassName>,
    /// Classes asked about for their declarations only ([`Program::declaration`], which the
    /// hierarchy reads: supertypes, flags, fields and methods by signature), or for their
    /// presence and origin.
    pub declarations: BTreeSet<ClassName>,
    /// Whether the list of the user's classes was asked for (a subtype scan).
    pub user_classes: bool,
    /// Whether the whole classpath was used (a scan of every class, the JDK's too).
    pub whole_classpath: bool,
}

impl Program {
    pub fn new(classpath: Classpath) -> Self {
        Program {
            classpath: Arc::new(classpath),
            classes: Arc::default(),
            bodies: Arc::default(),
            subtypes: Arc::default(),
            reads: None,
        }
    }

    /// A view of the same program, sharing its caches, that records what it is asked about
    /// ([`Program::reads`]).
    pub fn recording(&self) -> Program {
        Program {
            classpath: self.classpath.clone(),
            classes: self.classes.clone(),
            bodies: self.bodies.clone(),
            subtypes: self.subtypes.clone(),
            reads: Some(Mutex::default()),
        }
    }

    /// What this view was asked about so far (`None` unless it is [`Program::recording`]).
    pub fn reads(&self) -> Option<Reads> {
        self.reads
            .as_ref()
            .map(|reads| reads.lock().unwrap_or_else(|p| p.into_inner()).clone())
    }

    fn record(&self, update: impl FnOnce(&mut Reads)) {
        if let Some(reads) = &self.reads {
            update(&mut reads.lock().unwrap_or_else(|p| p.into_inner()));
        }
    }

    fn record_class(&self, name: &ClassName) {
        self.record(|reads| {
            if !reads.classes.contains(name) {
                reads.classes.insert(name.clone());
            }
        });
    }

    fn record_declaration(&self, name: &ClassName) {
        self.record(|reads| {
            if !reads.declarations.contains(name) {
                reads.declarations.insert(name.clone());
            }
        });
    }

    /// The whole classpath (its raw reads and every class name are not recorded one by one: a
    /// recording view notes that everything was used).
    pub fn classpath(&self) -> &Classpath {
        self.record(|reads| reads.whole_classpath = true);
        &self.classpath
    }

    /// The direct subtypes of every class among the classes `scan` covers, from their headers
    /// (keeping the whole parsed model of every class of a JDK would cost gigabytes). Scanned
    /// once per program and shared by its views (the whole classpath's scan reads every JDK
    /// class: it took a third of a whole-jar run when each entry point scanned again); a
    /// recording view notes the scan each time.
    pub fn direct_subtypes(&self, scan: Scan) -> &DirectSubtypes {
        let scanned = match scan {
            Scan::UserClasses => {
                self.record(|reads| reads.user_classes = true);
                &self.subtypes.user_classes
            }
            Scan::WholeClasspath => {
                self.record(|reads| reads.whole_classpath = true);
                &self.subtypes.whole_classpath
            }
        };
        scanned.get_or_init(|| {
            let names: Vec<ClassName> = match scan {
                Scan::UserClasses => self.classpath.user_classes().to_vec(),
                Scan::WholeClasspath => self.classpath.all_classes().collect(),
            };
            let mut direct: DirectSubtypes = HashMap::new();
            for name in names {
                let header = self
                    .classpath
                    .read(&name)
                    .and_then(|b| ClassHeader::parse(&b));
                let Ok(header) = header else {
                    continue;
                };
                for sup in header.super_class.iter().chain(&header.interfaces) {
                    direct.entry(sup.clone()).or_default().push(name.clone());
                }
            }
            direct
        })
    }

    /// The bytes of a class file.
    pub fn class_bytes(&self, name: &ClassName) -> Result<Vec<u8>> {
        self.record_class(name);
        self.classpath.read(name)
    }

    /// The parsed class of this name.
    pub fn class(&self, name: &ClassName) -> Result<Arc<Class>> {
        self.record_class(name);
        self.parsed(name)
    }

    /// The parsed class of this name, for what it declares only ([`Class::declaration_text`]:
    /// its supertypes, flags, fields and methods by signature), which is what a recording view
    /// notes; its code is read through [`Program::body`] or [`Program::class`].
    pub fn declaration(&self, name: &ClassName) -> Result<Arc<Class>> {
        self.record_declaration(name);
        self.parsed(name)
    }

    /// The class parsed once and kept, without recording.
    fn parsed(&self, name: &ClassName) -> Result<Arc<Class>> {
        self.classes
            .get_or_try_insert(name, || self.classpath.load(name))
    }

    /// The lifted body of a method, looked up in the class `method.class` itself, and kept.
    pub fn body(&self, method: &MethodRef) -> Result<Arc<Body>> {
        self.record_class(&method.class);
        self.bodies.get_or_try_insert(method, || self.lift(method))
    }

    /// The lifted body of a method, not kept: for passes over a whole call graph, where keeping
    /// every body of the JDK that a program reaches would cost gigabytes. A JDK method's
    /// `assert` statements are cut ([`ir::without_assertions`]).
    pub fn lift(&self, method: &MethodRef) -> Result<Body> {
        let class = self.class(&method.class)?;
        let declared = class
            .method(&method.name, &method.descriptor)
            .ok_or_else(|| Error::Input(format!("method {method} is not declared")))?;
        let body = ir::lift_method(&class, declared)?;
        Ok(match self.classpath.origin(&method.class) {
            Some(Origin::Jdk) => ir::without_assertions(body),
            _ => body,
        })
    }

    /// Whether the class is on the classpath (without loading it).
    pub fn has_class(&self, name: &ClassName) -> bool {
        self.record_declaration(name);
        self.classpath.contains(name)
    }

    /// Whether the class comes from the user's entries or from the JDK.
    pub fn origin(&self, name: &ClassName) -> Option<Origin> {
        self.record_declaration(name);
        self.classpath.origin(name)
    }

    /// The classes of the user's entries (not the JDK's), in entry order.
    pub fn user_classes(&self) -> impl Iterator<Item = &ClassName> {
        self.record(|reads| reads.user_classes = true);
        self.classpath.user_classes().iter()
    }
}

/// The classes a subtype scan reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scan {
    /// The user's classes (recorded as `Reads::user_classes`).
    UserClasses,
    /// Every class of the classpath, the JDK's too (recorded as `Reads::whole_classpath`).
    WholeClasspath,
}

/// Each class's direct subtypes (its subclasses and the interfaces and classes implementing or
/// extending it directly) among the classes scanned.
pub type DirectSubtypes = HashMap<ClassName, Vec<ClassName>>;

/// The subtype scans of a program, each done once.
#[derive(Default)]
struct SubtypeScans {
    user_classes: OnceLock<DirectSubtypes>,
    whole_classpath: OnceLock<DirectSubtypes>,
}

/// A map filled on demand and read from many threads; the value is computed outside the lock,
/// so two threads may compute the same value once each, and the first stored wins.
struct Cache<K, V> {
    map: RwLock<HashMap<K, Arc<V>>>,
}

impl<K, V> Default for Cache<K, V> {
    fn default() -> Self {
        Cache {
            map: RwLock::new(HashMap::new()),
        }
    }
}

impl<K: Eq + Hash + Clone, V> Cache<K, V> {
    fn get_or_try_insert(&self, key: &K, compute: impl FnOnce() -> Result<V>) -> Result<Arc<V>> {
        if let Some(value) = self.read().get(key) {
            return Ok(value.clone());
        }
        let value = Arc::new(compute()?);
        let mut map = self
            .map
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Ok(map.entry(key.clone()).or_insert(value).clone())
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<K, Arc<V>>> {
        // A panic elsewhere cannot leave the map half-updated, so a poisoned lock is still sound.
        self.map
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

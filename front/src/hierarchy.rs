//! The class hierarchy: supertypes, subtype tests, and the JVM's method resolution and selection
//! rules (JVMS §5.4.3.3, §5.4.3.4, §5.4.6), on top of [`Program`].
//!
//! It answers questions about classes that are on the classpath and says `None` (or an error)
//! about the rest; deciding what a missing class means for a bound is the caller's business.
//! Subtypes of a class are found by scanning the classpath once, and only when asked (the call
//! graph's CHA fallback needs them; RTA does not).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, RwLock};

use rustc_hash::FxHashMap;

use crate::classfile::{AccessFlags, Class};
use crate::classpath::Origin;
use crate::program::{Program, Scan};
use membound_jvm::{ClassName, MethodRef};

/// Whether a superclass lookup may find static methods.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Statics {
    Included,
    Skipped,
}

/// What the hierarchy needs of a class, indexed: method lookups are the call graph's hot path.
struct Summary {
    super_class: Option<ClassName>,
    interfaces: Vec<ClassName>,
    is_interface: bool,
    /// Declared methods by name, then descriptor.
    methods: FxHashMap<Arc<str>, Vec<(Arc<str>, AccessFlags)>>,
}

impl Summary {
    fn of(class: &Class) -> Summary {
        let mut methods: FxHashMap<Arc<str>, Vec<(Arc<str>, AccessFlags)>> = FxHashMap::default();
        for method in &class.methods {
            methods
                .entry(method.name.clone())
                .or_default()
                .push((method.descriptor.clone(), method.access));
        }
        Summary {
            super_class: class.super_class.clone(),
            interfaces: class.interfaces.clone(),
            is_interface: class.is_interface(),
            methods,
        }
    }

    fn declared(&self, name: &str, descriptor: &str) -> Option<AccessFlags> {
        self.methods
            .get(name)?
            .iter()
            .find(|(d, _)| &**d == descriptor)
            .map(|(_, access)| *access)
    }
}

/// Hierarchy queries over one program.
pub struct Hierarchy<'p> {
    program: &'p Program,
    supertypes: RwLock<HashMap<ClassName, Arc<BTreeSet<ClassName>>>>,
    summaries: RwLock<FxHashMap<ClassName, Option<Arc<Summary>>>>,
}

impl<'p> Hierarchy<'p> {
    pub fn new(program: &'p Program) -> Self {
        Hierarchy {
            program,
            supertypes: RwLock::new(HashMap::new()),
            summaries: RwLock::new(FxHashMap::default()),
        }
    }

    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// The class, or `None` when it is not on the classpath or cannot be read: for what it
    /// declares ([`Program::declaration`]); its methods' code is read through the program.
    pub fn class(&self, name: &ClassName) -> Option<Arc<Class>> {
        self.program.declaration(name).ok()
    }

    /// The indexed summary of a class, `None` when it cannot be loaded.
    fn summary(&self, name: &ClassName) -> Option<Arc<Summary>> {
        if let Some(known) = self
            .summaries
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(name)
        {
            return known.clone();
        }
        let summary = self.class(name).map(|class| Arc::new(Summary::of(&class)));
        self.summaries
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(name.clone(), summary.clone());
        summary
    }

    /// `name` and all its superclasses and superinterfaces that are on the classpath.
    pub fn supertypes(&self, name: &ClassName) -> Arc<BTreeSet<ClassName>> {
        if let Some(known) = self.read_supertypes().get(name) {
            return known.clone();
        }
        let mut all = BTreeSet::new();
        let mut pending = vec![name.clone()];
        while let Some(next) = pending.pop() {
            if !all.insert(next.clone()) {
                continue;
            }
            if let Some(class) = self.summary(&next) {
                pending.extend(class.super_class.iter().cloned());
                pending.extend(class.interfaces.iter().cloned());
            }
        }
        let all = Arc::new(all);
        self.supertypes
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(name.clone(), all.clone());
        all
    }

    fn read_supertypes(
        &self,
    ) -> std::sync::RwLockReadGuard<'_, HashMap<ClassName, Arc<BTreeSet<ClassName>>>> {
        // Entries are inserted whole, so a poisoned lock still holds consistent data.
        self.supertypes
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether `sub` is `sup` or inherits from it.
    pub fn is_subtype(&self, sub: &ClassName, sup: &ClassName) -> bool {
        sub == sup || *sup == ClassName::object() || self.supertypes(sub).contains(sup)
    }

    /// The classes on the classpath that are `name` or inherit from it. The JDK's classes cannot
    /// inherit from the user's, so a user class needs a scan of the user's entries only; a JDK
    /// class needs a scan of every class on the classpath (once per program, on first use).
    pub fn subtypes(&self, name: &ClassName) -> Vec<ClassName> {
        let direct = if self.program.origin(name) == Some(Origin::User) {
            self.program.direct_subtypes(Scan::UserClasses)
        } else {
            self.program.direct_subtypes(Scan::WholeClasspath)
        };
        let mut found = BTreeSet::new();
        let mut pending = vec![name.clone()];
        while let Some(next) = pending.pop() {
            if found.insert(next.clone()) {
                pending.extend(direct.get(&next).into_iter().flatten().cloned());
            }
        }
        found.into_iter().collect()
    }

    /// Method resolution (JVMS §5.4.3.3 and §5.4.3.4): the method a call instruction naming
    /// `method` refers to, looked up in the named class, its superclasses, then its
    /// superinterfaces. `None` when no class on the path declares it.
    pub fn resolve(&self, method: &MethodRef) -> Option<MethodRef> {
        self.lookup_in_superclasses(&method.class, method, Statics::Included)
            .or_else(|| self.lookup_in_interfaces(&method.class, method))
    }

    /// Method selection for `invokevirtual` and `invokeinterface` (JVMS §5.4.6): the method that
    /// runs when the receiver's class is `receiver`. `None` when the receiver class inherits no
    /// implementation (it is abstract, or part of its hierarchy is missing).
    pub fn select(&self, receiver: &ClassName, method: &MethodRef) -> Option<MethodRef> {
        self.lookup_in_superclasses(receiver, method, Statics::Skipped)
            .or_else(|| self.lookup_in_interfaces(receiver, method))
            .filter(|found| self.access(found).is_some_and(|a| !a.is_abstract()))
    }

    /// The access flags of a method, `None` when its class is missing or does not declare it.
    pub fn access(&self, method: &MethodRef) -> Option<AccessFlags> {
        self.summary(&method.class)?
            .declared(&method.name, &method.descriptor)
    }

    /// Looks for `method` in `start` and its superclasses. Selection skips static methods (they
    /// do not override); resolution finds them, since `invokestatic` may name a subclass of the
    /// declaring class.
    fn lookup_in_superclasses(
        &self,
        start: &ClassName,
        method: &MethodRef,
        statics: Statics,
    ) -> Option<MethodRef> {
        let mut seen = HashSet::new();
        let mut next = Some(start.clone());
        while let Some(name) = next {
            if !seen.insert(name.clone()) {
                return None; // a cyclic hierarchy (malformed input) ends the search
            }
            let class = self.summary(&name)?;
            if let Some(access) = class.declared(&method.name, &method.descriptor)
                && (statics == Statics::Included || !access.is_static())
            {
                return Some(MethodRef::new(name, &method.name, &method.descriptor));
            }
            next = class.super_class.clone();
        }
        None
    }

    /// The maximally specific superinterface method: a non-abstract (default) one when there is
    /// one, else any abstract declaration. Static and private interface methods are not
    /// inherited.
    fn lookup_in_interfaces(&self, start: &ClassName, method: &MethodRef) -> Option<MethodRef> {
        let mut abstract_match = None;
        for name in self.supertypes(start).iter() {
            let Some(class) = self.summary(name) else {
                continue;
            };
            if !class.is_interface {
                continue;
            }
            let Some(access) = class.declared(&method.name, &method.descriptor) else {
                continue;
            };
            if access.is_static() || access.is_private() {
                continue;
            }
            let found = MethodRef::new(name.clone(), &method.name, &method.descriptor);
            if !access.is_abstract() {
                return Some(found);
            }
            abstract_match.get_or_insert(found);
        }
        abstract_match
    }

    /// The class initializers that may run when `class` is first used: its own `<clinit>` and
    /// those of its superclasses (JVMS §5.5), outermost superclass first.
    pub fn initializers(&self, class: &ClassName) -> Vec<MethodRef> {
        let mut chain = Vec::new();
        let mut seen = HashSet::new();
        let mut next = Some(class.clone());
        while let Some(name) = next {
            if !seen.insert(name.clone()) {
                break;
            }
            let Some(loaded) = self.summary(&name) else {
                break;
            };
            if loaded.declared("<clinit>", "()V").is_some() {
                chain.push(MethodRef::new(name.clone(), "<clinit>", "()V"));
            }
            next = loaded.super_class.clone();
        }
        chain.reverse();
        chain
    }
}

//! The class hierarchy: supertypes, subtype tests, and the JVM's method resolution and selection
//! rules (JVMS §5.4.3.3, §5.4.3.4, §5.4.6), on top of [`Program`].
//!
//! It answers questions about classes that are on the classpath and says `None` (or an error)
//! about the rest; deciding what a missing class means for a bound is the caller's business.
//! Subtypes of a class are found by scanning the classpath once, and only when asked (the call
//! graph's CHA fallback needs them; RTA does not).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, OnceLock, RwLock};

use crate::classfile::{Class, Method};
use crate::classpath::Origin;
use crate::error::Result;
use crate::jvm::{ClassName, MethodRef};
use crate::program::Program;

/// Hierarchy queries over one program.
pub struct Hierarchy<'p> {
    program: &'p Program,
    supertypes: RwLock<HashMap<ClassName, Arc<BTreeSet<ClassName>>>>,
    /// Direct subtypes among the user's classes only, and among all classes.
    user_subtypes: OnceLock<HashMap<ClassName, Vec<ClassName>>>,
    all_subtypes: OnceLock<HashMap<ClassName, Vec<ClassName>>>,
}

impl<'p> Hierarchy<'p> {
    pub fn new(program: &'p Program) -> Self {
        Hierarchy {
            program,
            supertypes: RwLock::new(HashMap::new()),
            user_subtypes: OnceLock::new(),
            all_subtypes: OnceLock::new(),
        }
    }

    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// The class, or `None` when it is not on the classpath or cannot be read.
    pub fn class(&self, name: &ClassName) -> Option<Arc<Class>> {
        self.program.class(name).ok()
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
            if let Some(class) = self.class(&next) {
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
    /// class needs a scan of every class on the classpath (once, on first use).
    pub fn subtypes(&self, name: &ClassName) -> Vec<ClassName> {
        let direct = if self.program.origin(name) == Some(Origin::User) {
            self.user_subtypes
                .get_or_init(|| self.direct_subtypes(self.program.user_classes().cloned()))
        } else {
            self.all_subtypes
                .get_or_init(|| self.direct_subtypes(self.program.classpath().all_classes()))
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

    fn direct_subtypes(
        &self,
        classes: impl Iterator<Item = ClassName>,
    ) -> HashMap<ClassName, Vec<ClassName>> {
        let mut direct: HashMap<ClassName, Vec<ClassName>> = HashMap::new();
        for name in classes {
            let Some(class) = self.class(&name) else {
                continue;
            };
            for sup in class.super_class.iter().chain(&class.interfaces) {
                direct.entry(sup.clone()).or_default().push(name.clone());
            }
        }
        direct
    }

    /// Method resolution (JVMS §5.4.3.3 and §5.4.3.4): the method a call instruction naming
    /// `method` refers to, looked up in the named class, its superclasses, then its
    /// superinterfaces. `None` when no class on the path declares it.
    pub fn resolve(&self, method: &MethodRef) -> Option<MethodRef> {
        self.lookup_in_superclasses(&method.class, method)
            .or_else(|| self.lookup_in_interfaces(&method.class, method))
    }

    /// Method selection for `invokevirtual` and `invokeinterface` (JVMS §5.4.6): the method that
    /// runs when the receiver's class is `receiver`. `None` when the receiver class inherits no
    /// implementation (it is abstract, or part of its hierarchy is missing).
    pub fn select(&self, receiver: &ClassName, method: &MethodRef) -> Option<MethodRef> {
        let found = self
            .lookup_in_superclasses(receiver, method)
            .or_else(|| self.lookup_in_interfaces(receiver, method))?;
        let declared = self.declared(&found)?;
        (!declared.is_abstract()).then_some(found)
    }

    /// The declaration of a method, `None` when its class is missing or does not declare it.
    pub fn declared(&self, method: &MethodRef) -> Option<Method> {
        let class = self.class(&method.class)?;
        class.method(&method.name, &method.descriptor).cloned()
    }

    fn lookup_in_superclasses(&self, start: &ClassName, method: &MethodRef) -> Option<MethodRef> {
        let mut seen = HashSet::new();
        let mut next = Some(start.clone());
        while let Some(name) = next {
            if !seen.insert(name.clone()) {
                return None; // a cyclic hierarchy (malformed input) ends the search
            }
            let class = self.class(&name)?;
            if let Some(found) = class.method(&method.name, &method.descriptor)
                && (!found.is_static() || name == *start || method.is_initializer())
            {
                return Some(found.reference(&name));
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
            let Some(class) = self.class(name) else {
                continue;
            };
            if !class.is_interface() {
                continue;
            }
            let Some(found) = class.method(&method.name, &method.descriptor) else {
                continue;
            };
            if found.is_static() || found.access.is_private() {
                continue;
            }
            if !found.is_abstract() {
                return Some(found.reference(name));
            }
            abstract_match.get_or_insert_with(|| found.reference(name));
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
            let Some(loaded) = self.class(&name) else {
                break;
            };
            if loaded.method("<clinit>", "()V").is_some() {
                chain.push(MethodRef::new(name.clone(), "<clinit>", "()V"));
            }
            next = loaded.super_class.clone();
        }
        chain.reverse();
        chain
    }

    /// Loads a class and reports why it cannot be loaded.
    pub fn require(&self, name: &ClassName) -> Result<Arc<Class>> {
        self.program.class(name)
    }
}

//! Building the call graph: a worklist over reachable methods with rapid type analysis, and the
//! class-hierarchy fallback applied at the fixpoint.

use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::fields::FieldClasses;
use super::receivers::created_receivers;
use super::{CallGraph, Dispatch, Edge, EdgeKind, NodeId, NodeKind, Unresolved};
use crate::classpath::Origin;
use crate::hierarchy::Hierarchy;
use crate::ir::{Body, Call, CallKind, DynamicCall, Exceptions, Expr, Operand, Place, StmtKind};
use crate::specs::{MethodSpec, Specs};
use membound_jvm::error::Result;
use membound_jvm::{ClassName, FieldRef, MethodRef, Type};

/// Builds the call graph of everything reachable from `entry`, with `specs` standing for the
/// methods they cover (the entry itself is always analyzed from its code).
///
/// Fails only when the entry itself cannot be loaded; every later problem is recorded in the
/// graph (a broken body, an unresolved call) and the rest of the graph is still built.
pub fn build(hierarchy: &Hierarchy<'_>, entry: &MethodRef, specs: &Specs) -> Result<CallGraph> {
    build_within(hierarchy, entry, specs, &BuildOptions::default())
}

/// How far [`build_within`] goes: its budget of methods, its deadline, and whether the calls
/// on exceptional paths are looked up.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    pub max_methods: usize,
    pub deadline: Option<Instant>,
    /// Under [`Exceptions::Dropped`] (`--assume no-exceptions`) the statements of blocks that
    /// do not run then ([`Body::blocks_run`]) call nothing: the lowering never runs them.
    pub exceptions: Exceptions,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            max_methods: DEFAULT_MAX_METHODS,
            deadline: None,
            exceptions: Exceptions::Followed,
        }
    }
}

/// The methods with code a call graph may hold by default (`--budget-methods`): the JDK reached
/// through rapid type analysis (a `Pattern.compile` reaches tens of thousands of methods) is cut
/// there.
pub const DEFAULT_MAX_METHODS: usize = 300;

/// [`build`] with a budget of `max_methods` methods: once it holds more methods with code to
/// read, it stops growing (spec'd methods, natives and abstract ones are leaves read from their
/// spec or not at all, and do not count).
/// What it holds then is an under-approximation, so it is made sound by saying what is missing:
/// the methods reached but not read are not analyzed, and every virtual call whose instruction
/// does not decide its target alone is unresolved (a class instantiated in the code not read
/// may be a receiver), both with the budget as their reason ([`CallGraph::budget_hit`]). Past
/// `deadline` (`analyze --entry-time-limit`) it stops the same way, with the time limit as the
/// reason.
pub fn build_within(
    hierarchy: &Hierarchy<'_>,
    entry: &MethodRef,
    specs: &Specs,
    options: &BuildOptions,
) -> Result<CallGraph> {
    let entry_body = hierarchy.program().body(entry)?;
    let mut builder = Builder {
        hierarchy,
        specs,
        graph: CallGraph::new(entry.clone()),
        worklist: VecDeque::from([0]),
        instantiated: BTreeSet::new(),
        receivers_by_supertype: HashMap::default(),
        lambdas: Vec::new(),
        virtual_sites: Vec::new(),
        sites_by_declared: HashMap::default(),
        initialized: HashSet::default(),
        edge_keys: HashSet::default(),
        unseen_abstract: Vec::new(),
        field_classes: FieldClasses::default(),
        code_reached: 1,
        exceptions: options.exceptions,
    };
    builder.seed_external_receivers(&entry_body);
    loop {
        if let Some(reason) = builder.drain_worklist(options.max_methods, options.deadline) {
            builder.stop_at_budget(reason);
            break;
        }
        if !builder.apply_cha_fallback() {
            break;
        }
    }
    Ok(builder.graph)
}

/// A class created by `LambdaMetafactory`: it implements `interface`, and its functional method
/// (`method_name`) runs `implementation`.
struct LambdaClass {
    interface: ClassName,
    method_name: String,
    implementation: MethodRef,
}

/// A virtual or interface call site, kept so that classes instantiated later can add targets.
struct VirtualSite {
    caller: NodeId,
    pc: u32,
    line: Option<u32>,
    method: MethodRef,
    kind: EdgeKind,
    targets: usize,
    /// Its named class's subclasses on the classpath were dispatched (narrowed by an interface
    /// spec, if one covers the call).
    via_cha: bool,
    /// An interface spec narrowed that dispatch: classes the program creates still count.
    narrowed: bool,
    /// A site left without any target is recorded as unresolved once.
    reported: bool,
}

/// Where a call comes from.
#[derive(Clone, Copy)]
struct Site {
    caller: NodeId,
    pc: u32,
    line: Option<u32>,
}

struct Builder<'h, 'p> {
    hierarchy: &'h Hierarchy<'p>,
    specs: &'h Specs,
    graph: CallGraph,
    worklist: VecDeque<NodeId>,
    instantiated: BTreeSet<ClassName>,
    /// For each class, the instantiated classes that are it or inherit from it.
    receivers_by_supertype: HashMap<ClassName, Vec<ClassName>>,
    lambdas: Vec<LambdaClass>,
    virtual_sites: Vec<VirtualSite>,
    /// For each class, the virtual sites whose named method is declared on it.
    sites_by_declared: HashMap<ClassName, Vec<usize>>,
    initialized: HashSet<(NodeId, ClassName)>,
    edge_keys: HashSet<(NodeId, u32, NodeId, EdgeKind)>,
    /// The entry's parameter types that are interfaces or abstract classes: objects of classes
    /// the analysis never sees created.
    unseen_abstract: Vec<ClassName>,
    field_classes: FieldClasses,
    /// How many methods with code to read the graph holds: what the budget of methods counts.
    code_reached: usize,
    exceptions: Exceptions,
}

impl Builder<'_, '_> {
    /// The entry's reference parameters (and `this`) hold objects created outside the analyzed
    /// code: their declared classes are receivers too, and so are the application's concrete
    /// classes that extend them; abstract ones are covered by the CHA fallback.
    fn seed_external_receivers(&mut self, entry: &Body) {
        for &param in &entry.params {
            if let Type::Ref(class) = &entry.var(param).ty {
                let abstract_type = self
                    .hierarchy
                    .class(class)
                    .is_some_and(|c| c.is_interface() || c.is_abstract());
                if abstract_type {
                    self.unseen_abstract.push(class.clone());
                }
                let extensible = self
                    .hierarchy
                    .class(class)
                    .is_none_or(|c| !c.access.is_final());
                match self.hierarchy.program().origin(class) {
                    Some(Origin::Jdk) if extensible => {
                        self.graph.external_jdk_types.insert(class.clone());
                    }
                    Some(Origin::User) if extensible => {
                        self.graph.external_user_types.insert(class.clone());
                    }
                    _ => {}
                }
                self.instantiate(class.clone());
                self.instantiate_application_subclasses(class);
            }
        }
    }

    /// The application's concrete classes that extend `declared` (an overriding method of one
    /// may run on an object handed in). A JDK class extending a JDK type is not looked for: the
    /// whole JDK would have to be scanned.
    fn instantiate_application_subclasses(&mut self, declared: &ClassName) {
        let hierarchy = self.hierarchy;
        let concrete = |class: &ClassName| {
            hierarchy
                .class(class)
                .is_some_and(|c| !c.is_interface() && !c.is_abstract())
        };
        let subclasses: Vec<ClassName> = hierarchy
            .program()
            .user_classes()
            .filter(|c| *c != declared && hierarchy.is_subtype(c, declared) && concrete(c))
            .cloned()
            .collect();
        for class in subclasses {
            self.instantiate(class);
        }
    }

    /// Visits the methods on the worklist until it is empty (`None`), or until the graph holds
    /// more than `max_methods` methods with code or `deadline` passes with some still to visit
    /// (why it stopped).
    fn drain_worklist(&mut self, max_methods: usize, deadline: Option<Instant>) -> Option<String> {
        while let Some(node) = self.worklist.pop_front() {
            // A spec'd method is a leaf read from its spec: only methods with code to read count.
            let reads_code = self.graph.methods[node].kind.spec().is_none();
            let cut = if reads_code && self.code_reached > max_methods {
                Some(format!(
                    "the call graph reached its budget of {max_methods} methods (--budget-methods raises it)"
                ))
            } else if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                Some(
                    "the analysis reached its time limit while building the call graph".to_string(),
                )
            } else {
                None
            };
            if cut.is_some() {
                self.worklist.push_front(node);
                return cut;
            }
            self.visit(node);
        }
        None
    }

    /// The graph stopped growing (its budget or the deadline, `reason`): the methods whose code
    /// is still to read become unanalyzed and every virtual call with targets still open
    /// unresolved, with the reason. A spec'd method still to visit is visited (its spec is
    /// all there is to read), so it keeps standing for its method.
    fn stop_at_budget(&mut self, reason: String) {
        while let Some(node) = self.worklist.pop_front() {
            match self.graph.methods[node].kind.spec().cloned() {
                Some(spec) => self.visit_spec(node, &spec),
                None => self.graph.methods[node].kind = NodeKind::Broken(reason.clone()),
            }
        }
        let targets = self.targets_by_site();
        for index in 0..self.virtual_sites.len() {
            let site = &self.virtual_sites[index];
            let entered = targets.get(&(site.caller, site.pc));
            if site.reported || entered.is_some_and(|entered| self.has_every_target(index, entered))
            {
                continue;
            }
            let (from, method) = (
                self.site_of(index),
                self.virtual_sites[index].method.clone(),
            );
            self.unresolved(from, &method, reason.clone());
        }
        self.graph.budget_hit = Some(reason);
    }

    /// The methods each call (caller, offset) enters so far.
    fn targets_by_site(&self) -> HashMap<(NodeId, u32), HashSet<NodeId>> {
        let mut targets: HashMap<(NodeId, u32), HashSet<NodeId>> = HashMap::default();
        for edge in &self.graph.edges {
            targets
                .entry((edge.caller, edge.pc))
                .or_default()
                .insert(edge.callee);
        }
        targets
    }

    /// Whether virtual site `index` enters already (`entered`) every method a receiver may
    /// select, so that no class created in code not read can add one: its named type is a class
    /// (a lambda extends none) and each concrete subclass on the classpath selects one of them,
    /// as the CHA fallback would find them (`Throwable.fillInStackTrace` finds no override it
    /// lacks). `Object`'s methods are not asked: every class is its subtype and some class out
    /// of the graph always overrides them, so the answer is no after reading every class header.
    fn has_every_target(&self, index: usize, entered: &HashSet<NodeId>) -> bool {
        let method = &self.virtual_sites[index].method;
        if method.class == ClassName::object()
            || self
                .hierarchy
                .class(&method.class)
                .is_none_or(|class| class.is_interface())
        {
            return false;
        }
        self.hierarchy
            .subtypes(&method.class)
            .iter()
            .filter(|sub| {
                self.hierarchy
                    .class(sub)
                    .is_none_or(|class| !class.is_interface() && !class.is_abstract())
            })
            .all(|receiver| {
                self.hierarchy
                    .select(receiver, method)
                    .and_then(|target| self.graph.node(&target))
                    .is_some_and(|target| entered.contains(&target))
            })
    }

    fn visit(&mut self, node: NodeId) {
        if let Some(spec) = self.graph.methods[node].kind.spec().cloned() {
            self.visit_spec(node, &spec);
            return;
        }
        let method = self.graph.methods[node].method.clone();
        let body = match self.hierarchy.program().lift(&method) {
            Ok(body) => body,
            Err(error) => {
                self.graph.methods[node].kind = NodeKind::Broken(error.to_string());
                return;
            }
        };
        let created = created_receivers(&body);
        let runs = body.blocks_run(self.exceptions);
        let mut statements: Vec<_> = body
            .statements()
            .filter(|(block, _)| runs[block.0 as usize])
            .map(|(_, stmt)| stmt)
            .collect();
        statements.sort_by_key(|stmt| stmt.pc);
        for stmt in statements {
            let site = Site {
                caller: node,
                pc: stmt.pc,
                line: stmt.line,
            };
            match &stmt.kind {
                StmtKind::Assign { value, .. } => self.visit_expr(site, value),
                StmtKind::Invoke { call, .. } => {
                    if let Some(copy) = self.copy_made_by(&body, call) {
                        // The VM makes the copy: an allocation (`sites`), no call.
                        self.graph.copies.insert((node, stmt.pc), copy);
                    } else if let Some(format) = body.format_call(stmt.pc, call) {
                        // The formatter runs no code of the program: an allocation too.
                        self.graph.formats.insert((node, stmt.pc), format);
                    } else if !self.call_on_own_objects(site, &body, &created, call) {
                        self.visit_call(site, call);
                    }
                }
                StmtKind::Store {
                    place: Place::Static(field),
                    ..
                } => self.initialize(site, &field.class),
                StmtKind::Store { .. } | StmtKind::Monitor { .. } => {}
            }
        }
    }

    /// The type of the copy a `clone()` call makes without running a method: an array's, or
    /// that of an object of a final `Cloneable` class that extends `Object` and declares no
    /// `clone` (the copy is exactly of that class: nothing overrides `Object.clone` for it).
    fn copy_made_by(&self, body: &Body, call: &Call) -> Option<Type> {
        if let Some((_, array)) = body.cloned_array(call) {
            return Some(array.clone());
        }
        let object_clone = matches!(call.kind, CallKind::Special | CallKind::Virtual)
            && &*call.method.name == "clone"
            && &*call.method.descriptor == "()Ljava/lang/Object;";
        let Some(Operand::Var(receiver)) = call.receiver.as_ref().filter(|_| object_clone) else {
            return None;
        };
        let Type::Ref(class) = &body.var(*receiver).ty else {
            return None;
        };
        let declared = self.hierarchy.class(class)?;
        let cloneable = ClassName::new("java/lang/Cloneable");
        let declares_clone = declared
            .methods
            .iter()
            .any(|m| &*m.name == "clone" && &*m.descriptor == "()Ljava/lang/Object;");
        let copied_as_is = declared.access.is_final()
            && declared.super_class.as_ref() == Some(&ClassName::object())
            && declared.interfaces.contains(&cloneable)
            && !declares_clone;
        copied_as_is.then(|| Type::Ref(class.clone()))
    }

    /// A spec'd method: what it allocates is instantiated, what it calls is dispatched like a
    /// virtual call from the spec's own call offsets ([`MethodSpec::call_pc`]).
    fn visit_spec(&mut self, node: NodeId, spec: &MethodSpec) {
        for allocation in &spec.allocations {
            if let Type::Ref(class) = &allocation.ty {
                self.instantiate(class.clone());
            }
        }
        for (index, call) in spec.calls.iter().enumerate() {
            let site = Site {
                caller: node,
                pc: spec.call_pc(index),
                line: None,
            };
            self.virtual_call(site, &call.method, EdgeKind::Virtual);
        }
    }

    fn visit_expr(&mut self, site: Site, value: &Expr) {
        match value {
            Expr::New(class) => {
                self.initialize(site, class);
                self.instantiate(class.clone());
            }
            Expr::Load(Place::Static(field)) => {
                self.initialize(site, &field.class);
                self.instantiate_field_classes(field);
            }
            Expr::Load(Place::Field { field, .. }) => self.instantiate_field_classes(field),
            _ => {}
        }
    }

    /// A virtual call whose receiver holds only the method's own objects there (`created`, by
    /// offset: [`created_receivers`]) or an array: exact, one target per class it may hold,
    /// whatever else is instantiated.
    /// False (nothing added) when its receiver may be an object made out of sight.
    fn call_on_own_objects(
        &mut self,
        site: Site,
        body: &Body,
        created: &HashMap<u32, BTreeSet<ClassName>>,
        call: &Call,
    ) -> bool {
        let kind = match call.kind {
            CallKind::Virtual => EdgeKind::Virtual,
            CallKind::Interface => EdgeKind::Interface,
            _ => return false,
        };
        let Some(Operand::Var(receiver)) = &call.receiver else {
            return false;
        };
        let targets: Option<Vec<MethodRef>> = if matches!(body.var(*receiver).ty, Type::Array(_)) {
            let on_object = MethodRef::new(
                ClassName::object(),
                &call.method.name,
                &call.method.descriptor,
            );
            self.single_target(&on_object, true)
                .map(|target| vec![target])
        } else {
            let Some(classes) = created.get(&site.pc) else {
                return false;
            };
            classes
                .iter()
                .map(|class| {
                    self.hierarchy
                        .is_subtype(class, &call.method.class)
                        .then(|| self.hierarchy.select(class, &call.method))
                        .flatten()
                })
                .collect()
        };
        let Some(targets) = targets else {
            return false;
        };
        for target in targets {
            self.add_edge(site, target, kind, Dispatch::Exact);
        }
        true
    }

    fn visit_call(&mut self, site: Site, call: &Call) {
        match &call.kind {
            CallKind::Static => {
                self.initialize(site, &call.method.class);
                self.exact_call(site, &call.method, EdgeKind::Static);
            }
            CallKind::Special => self.exact_call(site, &call.method, EdgeKind::Special),
            CallKind::Virtual => self.virtual_call(site, &call.method, EdgeKind::Virtual),
            CallKind::Interface => self.virtual_call(site, &call.method, EdgeKind::Interface),
            CallKind::Dynamic(DynamicCall::Lambda {
                interface,
                implementation,
            }) => self.add_lambda(LambdaClass {
                interface: interface.clone(),
                method_name: call.method.name.to_string(),
                implementation: implementation.clone(),
            }),
            // The concatenation's own allocations are reported by `sites`; it calls no user code.
            CallKind::Dynamic(DynamicCall::StringConcat { .. }) => {}
            CallKind::Dynamic(DynamicCall::Other { bootstrap }) => self.unresolved(
                site,
                &call.method,
                format!("invokedynamic with unknown bootstrap method {bootstrap}"),
            ),
        }
    }

    /// A call with one target: resolved through the hierarchy from the named class.
    fn exact_call(&mut self, site: Site, method: &MethodRef, kind: EdgeKind) {
        match self.resolve(method) {
            Some(target) => self.add_edge(site, target, kind, Dispatch::Exact),
            None => self.unresolved(site, method, self.why_unresolved(method)),
        }
    }

    /// Array classes (`[I`) declare no methods: their `clone` and the rest are `Object`'s.
    fn resolve(&self, method: &MethodRef) -> Option<MethodRef> {
        if method.class.internal().starts_with('[') {
            let on_object = MethodRef::new(ClassName::object(), &method.name, &method.descriptor);
            return self.hierarchy.resolve(&on_object);
        }
        self.hierarchy.resolve(method)
    }

    fn why_unresolved(&self, method: &MethodRef) -> String {
        if self.hierarchy.class(&method.class).is_none() {
            format!("class {} is not on the classpath", method.class)
        } else {
            format!(
                "no method {} in {} or its supertypes",
                method.signature(),
                method.class
            )
        }
    }

    fn virtual_call(&mut self, site: Site, method: &MethodRef, kind: EdgeKind) {
        let receiver = if method.class.internal().starts_with('[') {
            ClassName::object()
        } else {
            method.class.clone()
        };
        let array = receiver != method.class;
        let method = MethodRef::new(receiver.clone(), &method.name, &method.descriptor);
        if let Some(target) = self.single_target(&method, array) {
            // No class created later can add a target: the call is exact (and stays resolved
            // when the graph stops at its budget).
            self.add_edge(site, target, kind, Dispatch::Exact);
            return;
        }
        let index = self.virtual_sites.len();
        self.sites_by_declared
            .entry(receiver.clone())
            .or_default()
            .push(index);
        self.virtual_sites.push(VirtualSite {
            caller: site.caller,
            pc: site.pc,
            line: site.line,
            method,
            kind,
            targets: 0,
            via_cha: false,
            narrowed: false,
            reported: false,
        });
        let receivers = self.receivers_by_supertype.get(&receiver).cloned();
        for receiver in receivers.into_iter().flatten() {
            self.dispatch(index, &receiver, Dispatch::Rta);
        }
        // A call an interface spec covers, on a type a parameter's unseen object may have,
        // gets its covered classes now: RTA's classes alone would miss the parameter's.
        let covered = self.interface_spec(&self.virtual_sites[index].method);
        if let Some(spec) = covered
            && self.unseen_abstract.iter().any(|unseen| {
                self.hierarchy.is_subtype(unseen, &receiver)
                    || self.hierarchy.is_subtype(&receiver, unseen)
            })
        {
            self.dispatch_cha(index, Some(spec));
        }
        for lambda in 0..self.lambdas.len() {
            self.dispatch_lambda(index, lambda);
        }
    }

    /// The one method a virtual call of `method` runs whatever its receiver (JVMS §5.4.6), when
    /// the instruction decides it: a private method (selected as resolved), a final one (no
    /// subclass overrides it), a method of a final class (its only receiver class), or one an
    /// array receives (`array`: arrays select `Object`'s methods).
    fn single_target(&self, method: &MethodRef, array: bool) -> Option<MethodRef> {
        let final_class = self
            .hierarchy
            .class(&method.class)
            .is_some_and(|class| class.access.is_final() && !class.is_interface());
        if array || final_class {
            return self.hierarchy.select(&method.class, method);
        }
        let resolved = self.hierarchy.resolve(method)?;
        let access = self.hierarchy.access(&resolved)?;
        let fixed = (access.is_private() || access.is_final()) && !access.is_static();
        fixed.then_some(resolved)
    }

    /// Adds the target a receiver of class `receiver` selects at virtual site `index`.
    fn dispatch(&mut self, index: usize, receiver: &ClassName, how: Dispatch) {
        let site = &self.virtual_sites[index];
        if !self.hierarchy.is_subtype(receiver, &site.method.class) {
            return;
        }
        let Some(target) = self.hierarchy.select(receiver, &site.method) else {
            return;
        };
        let (from, kind) = (self.site_of(index), site.kind);
        self.virtual_sites[index].targets += 1;
        self.add_edge(from, target, kind, how);
    }

    fn dispatch_lambda(&mut self, index: usize, lambda: usize) {
        let site = &self.virtual_sites[index];
        let class = &self.lambdas[lambda];
        if *site.method.name != *class.method_name
            || !self
                .hierarchy
                .is_subtype(&class.interface, &site.method.class)
        {
            return;
        }
        let (from, target) = (self.site_of(index), class.implementation.clone());
        self.virtual_sites[index].targets += 1;
        self.add_edge(from, target, EdgeKind::Lambda, Dispatch::Rta);
    }

    fn site_of(&self, index: usize) -> Site {
        let site = &self.virtual_sites[index];
        Site {
            caller: site.caller,
            pc: site.pc,
            line: site.line,
        }
    }

    /// A field read: the objects the field may hold were created before, by code the entry may
    /// not reach (a class initializer), so their classes are receivers ([`FieldClasses`]).
    fn instantiate_field_classes(&mut self, field: &FieldRef) {
        let Some(classes) = self.field_classes.of(self.hierarchy, field).cloned() else {
            return;
        };
        self.graph
            .fields_by_stores
            .insert(format!("{}.{}", field.class, field.name));
        for class in classes {
            self.instantiate(class);
        }
    }

    /// A class becomes a possible receiver: every virtual site so far may dispatch to it.
    fn instantiate(&mut self, class: ClassName) {
        if !self.instantiated.insert(class.clone()) {
            return;
        }
        let mut supertypes: BTreeSet<ClassName> = (*self.hierarchy.supertypes(&class)).clone();
        supertypes.insert(ClassName::object());
        for supertype in supertypes {
            let sites = self.sites_by_declared.get(&supertype).cloned();
            // A site dispatched by CHA has every subclass already, unless an interface spec
            // left out JDK classes: one the program creates is a receiver all the same.
            for index in sites.into_iter().flatten() {
                let site = &self.virtual_sites[index];
                if !site.via_cha || site.narrowed {
                    self.dispatch(index, &class, Dispatch::Rta);
                }
            }
            self.receivers_by_supertype
                .entry(supertype)
                .or_default()
                .push(class.clone());
        }
    }

    fn add_lambda(&mut self, lambda: LambdaClass) {
        let index = self.lambdas.len();
        self.lambdas.push(lambda);
        for site in 0..self.virtual_sites.len() {
            self.dispatch_lambda(site, index);
        }
    }

    /// At the fixpoint, virtual sites RTA left without a target get every subclass on the
    /// classpath as receiver, except that a call an interface spec covers gets only the JDK
    /// classes the spec lists (and the application's classes). Returns whether anything was
    /// added.
    fn apply_cha_fallback(&mut self) -> bool {
        let before = self.graph.edges.len();
        for index in 0..self.virtual_sites.len() {
            let site = &self.virtual_sites[index];
            if site.targets > 0 || site.reported {
                continue;
            }
            if !site.via_cha {
                let covered = self.interface_spec(&site.method);
                self.dispatch_cha(index, covered);
            }
            if self.virtual_sites[index].targets == 0 {
                self.virtual_sites[index].reported = true;
                let (from, method) = (
                    self.site_of(index),
                    self.virtual_sites[index].method.clone(),
                );
                let reason = format!(
                    "no implementation of {} on the classpath",
                    method.signature()
                );
                self.unresolved(from, &method, reason);
            }
        }
        self.graph.edges.len() > before
    }

    /// Dispatches virtual site `index` to every subclass of its named class on the classpath,
    /// or with an interface spec `covered`, to the JDK classes it lists and the application's.
    fn dispatch_cha(&mut self, index: usize, covered: Option<Arc<MethodSpec>>) {
        self.virtual_sites[index].via_cha = true;
        self.virtual_sites[index].narrowed = covered.is_some();
        let declared = self.virtual_sites[index].method.class.clone();
        for receiver in self.hierarchy.subtypes(&declared) {
            if covered
                .as_ref()
                .is_none_or(|spec| self.unseen_receiver_may_be(spec, &receiver))
            {
                self.dispatch(index, &receiver, Dispatch::Cha);
            }
        }
        if let Some(spec) = covered {
            self.record_interface_spec(spec);
        }
    }

    /// The interface spec covering a call of `method` (the most specific one when interfaces
    /// along the called class's supertypes have one each). Only an abstract interface method
    /// can be covered: a default method is a target itself.
    fn interface_spec(&self, method: &MethodRef) -> Option<Arc<MethodSpec>> {
        self.specs
            .interface_specs(method)
            .iter()
            .filter(|spec| self.hierarchy.is_subtype(&method.class, &spec.class))
            .filter(|spec| {
                let declared = MethodRef::new(spec.class.clone(), &method.name, &method.descriptor);
                self.hierarchy
                    .access(&declared)
                    .is_some_and(|access| access.is_abstract())
            })
            .cloned()
            .reduce(|a, b| {
                if self.hierarchy.is_subtype(&b.class, &a.class) {
                    b
                } else {
                    a
                }
            })
    }

    /// Whether an object created out of sight, of class `receiver`, may reach a call `spec`
    /// covers: an application class may, a JDK class only if the spec lists it.
    fn unseen_receiver_may_be(&self, spec: &MethodSpec, receiver: &ClassName) -> bool {
        self.hierarchy.program().origin(receiver) != Some(Origin::Jdk)
            || spec.covers.as_ref().is_some_and(|c| c.contains(receiver))
    }

    /// An interface spec that narrowed a dispatch is a node of its own, reached by no edge (the
    /// calls go to the covered classes' methods): every stage that lists the specs a graph used
    /// lists it.
    fn record_interface_spec(&mut self, spec: Arc<MethodSpec>) {
        let method = MethodRef::new(
            spec.class.clone(),
            &spec.name,
            spec.descriptor.as_deref().unwrap_or_default(),
        );
        self.graph.add_node(method, NodeKind::Spec(spec));
    }

    /// The class initializers a first use of `class` may run. The JDK's own classes are taken
    /// as initialized before the analyzed method runs (the VM initializes the core ones at
    /// start-up), so their initializers are not followed: a named assumption of every bound.
    fn initialize(&mut self, site: Site, class: &ClassName) {
        if self.hierarchy.program().origin(class) == Some(Origin::Jdk) {
            return;
        }
        if !self.initialized.insert((site.caller, class.clone())) {
            return;
        }
        let running = self.graph.methods[site.caller].method.class.clone();
        // Every method of the graph runs inside the entry's activation, which starts only once
        // the initialization of the entry's class has (`Em3d.create` calling a method of `Node`
        // that calls `Em3d.nextInt`: `Em3d.<clinit>` does not run there).
        let entry = self.graph.methods[0].method.class.clone();
        for clinit in self.hierarchy.initializers(class) {
            // A JDK superclass's initializer has run already (`JDK_INITIALIZED`): following
            // `java.util.Random.<clinit>` from a user's subclass reached serialization code.
            let jdk = self.hierarchy.program().origin(&clinit.class) == Some(Origin::Jdk);
            let started = self.initialization_started(&running, &clinit.class)
                || self.initialization_started(&entry, &clinit.class);
            if !jdk && !started {
                self.add_edge(site, clinit, EdgeKind::ClassInit, Dispatch::Exact);
            }
        }
    }

    /// Whether code of class `running` runs only once `class`'s initialization has started: its
    /// own, and its superclasses' (JVMS §5.5; superinterfaces are not initialized with it).
    fn initialization_started(&self, running: &ClassName, class: &ClassName) -> bool {
        running == class
            || (self.hierarchy.is_subtype(running, class)
                && self
                    .hierarchy
                    .class(class)
                    .is_some_and(|c| !c.is_interface()))
    }

    fn add_edge(&mut self, site: Site, target: MethodRef, kind: EdgeKind, dispatch: Dispatch) {
        let node_kind = self.node_kind(&target);
        let follow = matches!(node_kind, NodeKind::Code | NodeKind::Spec(_));
        let (callee, new) = self.graph.add_node(target, node_kind);
        if self.edge_keys.insert((site.caller, site.pc, callee, kind)) {
            self.graph.edges.push(Edge {
                caller: site.caller,
                pc: site.pc,
                line: site.line,
                callee,
                kind,
                dispatch,
            });
        }
        if new && follow {
            self.code_reached += usize::from(self.graph.methods[callee].kind == NodeKind::Code);
            self.worklist.push_back(callee);
        }
    }

    fn node_kind(&self, method: &MethodRef) -> NodeKind {
        if let Some(spec) = self.specs.find(method) {
            return NodeKind::Spec(spec.clone());
        }
        match self.hierarchy.access(method) {
            Some(access) if access.is_native() => NodeKind::Native,
            Some(access) if access.is_abstract() => NodeKind::Abstract,
            Some(_) => NodeKind::Code,
            None => NodeKind::Broken(format!("{method} is not declared")),
        }
    }

    fn unresolved(&mut self, site: Site, target: &MethodRef, reason: String) {
        self.graph.unresolved.push(Unresolved {
            caller: site.caller,
            pc: site.pc,
            line: site.line,
            target: target.clone(),
            reason,
        });
    }
}

//! Heap mode: the agent tags every object at its allocation with its allocation site, and at
//! each exit of a named method, at each allocation its own code makes, or after each garbage
//! collection, walks the live heap with
//! `FollowReferences` and writes a snapshot (`heap_log.rs`; the format is read and described in
//! the `membound-heap` crate).
//!
//! At an exit the walk runs in the thread returning from the method, in its FramePop event; at
//! an allocation, in the allocating thread's SampledObjectAlloc event, before the new object is
//! stored anywhere: the moment names its size (`alloc pkg.C.m(desc)@12 +4016`), so that what
//! the method needs at that point is the heap reached from the roots plus the new object.
//! JVMTI forbids almost every call inside `GarbageCollectionFinish`, so that callback only
//! counts the collection and wakes the agent's own thread (attached to the VM as a daemon),
//! which walks the heap: the program runs on between the collection and the walk, and
//! collections that come while a walk is running are covered by the next walk. At VM death
//! the thread finishes the walk asked for last before the file is closed.
//!
//! Field references come from the walk as JVMTI field indices: every field of the interfaces
//! the class implements first (counted, never referenced from instances), then the fields of
//! `java.lang.Object` down to the class, each class's in `GetClassFields` order. Named here,
//! once per class.

use crate::bytecode;
use crate::ffi::{self, Jclass, JmethodId, Jobject};
use crate::heap_log::HeapLog;
use crate::heap_walk::{self, Holder, MAX_SITES, MAX_WALKS, WalkRecord, Walker};
use crate::jvmti::{Jni, Jvmti, JvmtiFailure, Visit, Vm};
use crate::options::{HeapOptions, SnapshotMoment, TargetMethod};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, RwLock};
use std::thread::JoinHandle;

/// Walks beyond this many are skipped (and reported): each walk's number tags the objects it
/// sees, and a number is never reused.
const MAX_SNAPSHOTS: u32 = MAX_WALKS;

/// A field as JVMTI numbers it.
#[derive(Debug, Clone)]
struct FieldEntry {
    /// `pkg.C` of the declaring class.
    declaring: String,
    name: String,
    is_static: bool,
    is_reference: bool,
}

/// A class the agent has numbered (its tag).
struct ClassSlot {
    /// A global reference (never freed: the class stays loaded), as an address: global
    /// references are valid in every thread.
    class: usize,
    /// Its number in the snapshot file, once written.
    file_id: Option<u32>,
    /// Its fields by JVMTI index, once described.
    fields: Option<Vec<Option<FieldEntry>>>,
}

/// What the walks share, under one lock: the file and what it has defined.
struct WalkState {
    log: HeapLog,
    classes: Vec<ClassSlot>,
    /// The file's class for objects whose class has no number.
    unknown_class: Option<u32>,
    file_classes: u32,
    labels: HashMap<String, u32>,
    /// Allocation site → its number in the file.
    sites: HashMap<u32, u32>,
    method_names: HashMap<usize, String>,
    walks: u32,
}

/// Allocation sites by (method, bytecode offset), numbered as first seen.
#[derive(Default)]
struct SiteTable {
    ids: HashMap<(usize, i64), u32>,
    list: Vec<(usize, i64)>,
}

/// Collections counted by the GC callback and walked by the agent's thread.
#[derive(Default)]
struct GcQueue {
    collections: u64,
    walked: u64,
    stop: bool,
}

pub struct HeapAgent {
    jvmti: Jvmti,
    vm: Vm,
    moment: SnapshotMoment,
    sites: Mutex<SiteTable>,
    next_serial: AtomicU64,
    state: Mutex<Option<WalkState>>,
    /// The loaded methods matching the exit method (jmethodID addresses).
    targets: RwLock<Vec<usize>>,
    queue: Mutex<GcQueue>,
    wake: Condvar,
    walker: Mutex<Option<JoinHandle<()>>>,
    errors: AtomicU64,
}

static HEAP_AGENT: OnceLock<HeapAgent> = OnceLock::new();

/// The heap agent's state; None unless heap mode was installed.
pub fn heap_agent() -> Option<&'static HeapAgent> {
    HEAP_AGENT.get()
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock was already caught and counted; the data is still usable.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Creates heap mode's state and opens its file.
pub fn install(jvmti: Jvmti, vm: Vm, options: HeapOptions) -> Result<(), String> {
    let log = HeapLog::create(&options.output)
        .map_err(|e| format!("cannot create {}: {e}", options.output.display()))?;
    let state = WalkState {
        log,
        classes: Vec::new(),
        unknown_class: None,
        file_classes: 0,
        labels: HashMap::new(),
        sites: HashMap::new(),
        method_names: HashMap::new(),
        walks: 0,
    };
    let agent = HeapAgent {
        jvmti,
        vm,
        moment: options.moment,
        sites: Mutex::new(SiteTable::default()),
        next_serial: AtomicU64::new(1),
        state: Mutex::new(Some(state)),
        targets: RwLock::new(Vec::new()),
        queue: Mutex::new(GcQueue::default()),
        wake: Condvar::new(),
        walker: Mutex::new(None),
        errors: AtomicU64::new(0),
    };
    HEAP_AGENT
        .set(agent)
        .map_err(|_| "the agent was loaded twice".to_owned())
}

impl HeapAgent {
    pub fn count_error(&self) {
        self.errors.fetch_add(1, Ordering::Relaxed);
    }

    pub fn watches_exits(&self) -> bool {
        matches!(self.moment, SnapshotMoment::Exit(_))
    }

    fn problem(&self, text: &str) {
        if let Some(state) = lock(&self.state).as_mut() {
            state.log.problem(text);
        }
    }

    /// VM start: watch the method in the classes loaded so far, or start the GC walker.
    pub fn start(&'static self, jni: Option<Jni>) {
        match &self.moment {
            SnapshotMoment::Exit(_) | SnapshotMoment::Alloc(_) => {
                let Ok(classes) = self.jvmti.loaded_classes() else {
                    self.count_error();
                    return;
                };
                for class in classes {
                    self.watch_class(class);
                    if let Some(jni) = jni {
                        jni.delete_local_ref(class);
                    }
                }
            }
            SnapshotMoment::Gc => {
                let handle = std::thread::Builder::new()
                    .name("membound-heap-walker".into())
                    .spawn(move || self.walk_after_collections());
                match handle {
                    Ok(handle) => *lock(&self.walker) = Some(handle),
                    Err(_) => self
                        .problem("cannot start the thread that walks the heap after collections"),
                }
            }
        }
    }

    /// A prepared (or already loaded) class: note the watched method's overloads it declares
    /// (and for exits, set a breakpoint at their start).
    pub fn watch_class(&self, class: Jclass) {
        let Some(target) = self.moment.target() else {
            return;
        };
        let Ok(signature) = self.jvmti.class_signature(class) else {
            return;
        };
        if !target.is_declared_by(&signature) {
            return;
        }
        let Ok(methods) = self.jvmti.class_methods(class) else {
            self.count_error();
            return;
        };
        for method in methods {
            self.watch_method(target, method);
        }
    }

    fn watch_method(&self, target: &TargetMethod, method: JmethodId) {
        let Ok((name, descriptor)) = self.jvmti.method_name(method) else {
            return;
        };
        let mut targets = self.targets.write().unwrap_or_else(|p| p.into_inner());
        if !target.is_method(&name, &descriptor) || targets.contains(&(method as usize)) {
            return;
        }
        if !self.watches_exits() {
            targets.push(method as usize);
            return;
        }
        match self.jvmti.set_breakpoint(method, 0) {
            Ok(()) => targets.push(method as usize),
            Err(failure) => {
                drop(targets);
                self.problem(&format!(
                    "cannot watch {name}{descriptor} (JVMTI error {})",
                    failure.0
                ));
            }
        }
    }

    fn is_target(&self, method: JmethodId) -> bool {
        self.targets
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .contains(&(method as usize))
    }

    /// Breakpoint at bytecode 0 of the exit method: ask for the frame's pop.
    pub fn on_method_start(&self, method: JmethodId, location: ffi::Jlocation) {
        if location == 0 && self.is_target(method) {
            // A loop back to bytecode 0 asks again for the same frame, which JVMTI may refuse
            // as a duplicate: the frame's pop is reported once either way.
            let _ = self.jvmti.notify_frame_pop(0);
        }
    }

    /// The exit method returns (normally or by an exception): snapshot the heap, its frame
    /// (and locals) still live.
    pub fn on_frame_pop(&self, jni: Option<Jni>, method: JmethodId) {
        if !self.is_target(method) {
            return;
        }
        let Some(jni) = jni else {
            self.count_error();
            return;
        };
        let mut guard = lock(&self.state);
        let Some(state) = guard.as_mut() else { return };
        let moment = format!("exit {}", self.method_display(state, method as usize));
        self.snapshot(jni, state, &moment);
    }

    /// An allocation: tag the object with its site (the allocating frame); when the watched
    /// method's own code makes it, snapshot the heap.
    pub fn on_allocation(&self, jni: Option<Jni>, object: Jobject, size: ffi::Jlong) {
        let mut watched = None;
        let site = match self.jvmti.top_frame() {
            Ok(Some(frame)) => {
                if matches!(self.moment, SnapshotMoment::Alloc(_)) && self.is_target(frame.method) {
                    watched = Some((frame.method, frame.location));
                }
                self.site_id(frame.method as usize, frame.location)
            }
            // Objects the VM makes while it starts have no site.
            Ok(None) | Err(JvmtiFailure(ffi::JVMTI_ERROR_WRONG_PHASE)) => None,
            Err(_) => {
                self.count_error();
                None
            }
        };
        let tag = heap_walk::allocation_tag(site);
        if tag != 0 && self.jvmti.set_tag(object, tag).is_err() {
            self.count_error();
        }
        if let Some((method, location)) = watched {
            let Some(jni) = jni else {
                self.count_error();
                return;
            };
            let mut guard = lock(&self.state);
            let Some(state) = guard.as_mut() else { return };
            let at = self.method_display(state, method as usize);
            self.snapshot(jni, state, &format!("alloc {at}@{location} +{size}"));
        }
    }

    fn site_id(&self, method: usize, offset: i64) -> Option<u32> {
        let mut sites = lock(&self.sites);
        if let Some(&id) = sites.ids.get(&(method, offset)) {
            return Some(id);
        }
        let id = u32::try_from(sites.list.len())
            .ok()
            .filter(|&id| id <= MAX_SITES)?;
        sites.list.push((method, offset));
        sites.ids.insert((method, offset), id);
        Some(id)
    }

    /// GarbageCollectionFinish: count it and wake the walker (no JVMTI call is allowed here).
    pub fn on_collection(&self) {
        lock(&self.queue).collections += 1;
        self.wake.notify_one();
    }

    /// The walker thread: one walk per batch of collections, until VM death.
    fn walk_after_collections(&self) {
        let Some(jni) = self.vm.attach_daemon() else {
            self.problem("cannot attach the heap walker thread to the VM");
            return;
        };
        loop {
            let collection = {
                let mut queue = lock(&self.queue);
                while queue.collections == queue.walked && !queue.stop {
                    queue = self
                        .wake
                        .wait(queue)
                        .unwrap_or_else(|poisoned| poisoned.into_inner());
                }
                if queue.collections == queue.walked {
                    break;
                }
                queue.walked = queue.collections;
                queue.collections
            };
            let mut guard = lock(&self.state);
            if let Some(state) = guard.as_mut() {
                self.snapshot(jni, state, &format!("gc {collection}"));
            }
        }
        self.vm.detach();
    }

    /// VM death: let the walker finish, then close the file.
    pub fn finish(&self) {
        lock(&self.queue).stop = true;
        self.wake.notify_all();
        if let Some(handle) = lock(&self.walker).take() {
            let _ = handle.join();
        }
        if self.watches_exits() && self.targets.read().is_ok_and(|t| t.is_empty()) {
            self.problem("the method whose exits were to be snapshotted was never loaded");
        }
        if matches!(self.moment, SnapshotMoment::Alloc(_))
            && self.targets.read().is_ok_and(|t| t.is_empty())
        {
            self.problem("the method whose allocations were to be snapshotted was never loaded");
        }
        if let Some(state) = lock(&self.state).take() {
            state.log.finish(self.errors.load(Ordering::Relaxed));
        }
    }

    /// Walks the heap and writes one snapshot.
    fn snapshot(&self, jni: Jni, state: &mut WalkState, moment: &str) {
        if state.walks >= MAX_SNAPSHOTS {
            if state.walks == MAX_SNAPSHOTS {
                state.log.problem(&format!(
                    "only the first {MAX_SNAPSHOTS} snapshots are taken"
                ));
                state.walks += 1;
            }
            return;
        }
        state.walks += 1;
        if self.number_classes(jni, state).is_err() {
            self.count_error();
        }
        let mut walker = Walker::new(state.walks, &self.next_serial);
        let walked = self.jvmti.follow_references(&mut |reference| {
            walker.visit(reference).map_or(Visit::Follow, Visit::Retag)
        });
        if let Err(failure) = walked {
            state.log.problem(&format!(
                "the heap walk for `{moment}` failed (JVMTI error {})",
                failure.0
            ));
            return;
        }
        self.write_snapshot(jni, state, moment, &walker.record);
    }

    /// Tags every loaded class not numbered yet with its number.
    fn number_classes(&self, jni: Jni, state: &mut WalkState) -> Result<(), JvmtiFailure> {
        for class in self.jvmti.loaded_classes()? {
            let tag = self.jvmti.tag(class)?;
            // A class object may carry an allocation tag: it is numbered all the same.
            if heap_walk::class_of_tag(tag).is_none() {
                let number = u32::try_from(state.classes.len()).unwrap_or(u32::MAX);
                let global = jni.new_global_ref(class);
                if !global.is_null()
                    && self
                        .jvmti
                        .set_tag(class, heap_walk::class_tag(number))
                        .is_ok()
                {
                    state.classes.push(ClassSlot {
                        class: global as usize,
                        file_id: None,
                        fields: None,
                    });
                } else {
                    self.count_error();
                }
            }
            jni.delete_local_ref(class);
        }
        Ok(())
    }

    fn write_snapshot(&self, jni: Jni, state: &mut WalkState, moment: &str, record: &WalkRecord) {
        // Every definition first, then the snapshot's lines.
        let classes: Vec<u32> = record
            .objects
            .iter()
            .map(|o| self.file_class(jni, state, o.class))
            .collect();
        let sites: Vec<Option<u32>> = record
            .objects
            .iter()
            .map(|o| heap_walk::site_of(o.identity).and_then(|s| self.file_site(state, s)))
            .collect();
        let fields: Vec<Option<u32>> = record
            .fields
            .iter()
            .map(|&(_, _, class, index)| self.field_label(jni, state, class, index))
            .collect();
        let holders: Vec<String> = record
            .roots
            .iter()
            .map(|&(_, _, holder)| self.holder_name(jni, state, holder))
            .collect();
        let log = &mut state.log;
        log.snapshot(moment);
        for ((object, class), site) in record.objects.iter().zip(classes).zip(sites) {
            log.object(object.identity, class, object.size, site, object.length);
        }
        for (&(from, to, _, _), label) in record.fields.iter().zip(fields) {
            if let Some(label) = label {
                log.field(from, to, label);
            }
        }
        for &(from, to, index) in &record.elements {
            log.element(from, to, index);
        }
        for (&(kind, to, _), holder) in record.roots.iter().zip(holders) {
            log.root(kind, to, &holder);
        }
        log.end_snapshot();
    }

    /// The file's number of a class (defined on first use), or of the unknown class.
    fn file_class(&self, jni: Jni, state: &mut WalkState, class: Option<u32>) -> u32 {
        let slot = class.filter(|&c| (c as usize) < state.classes.len());
        let Some(class) = slot else {
            if let Some(id) = state.unknown_class {
                return id;
            }
            let id = next_id(&mut state.file_classes);
            state.log.class(id, false, "?", &[]);
            state.unknown_class = Some(id);
            return id;
        };
        if let Some(id) = state.classes[class as usize].file_id {
            return id;
        }
        let global = state.classes[class as usize].class as Jclass;
        let signature = self
            .jvmti
            .class_signature(global)
            .unwrap_or_else(|_| "?".to_owned());
        let is_array = signature.starts_with('[');
        let references: Vec<u32> = if is_array {
            Vec::new()
        } else {
            let fields = self.fields_of(jni, state, class).to_vec();
            fields
                .iter()
                .flatten()
                .filter(|f| !f.is_static && f.is_reference)
                .map(|f| label_id(state, &f.name))
                .collect()
        };
        let id = next_id(&mut state.file_classes);
        let name = bytecode::java_type_name(&signature);
        state.log.class(id, is_array, &name, &references);
        state.classes[class as usize].file_id = Some(id);
        id
    }

    /// The fields of a numbered class by JVMTI index, described once.
    fn fields_of<'s>(
        &self,
        jni: Jni,
        state: &'s mut WalkState,
        class: u32,
    ) -> &'s [Option<FieldEntry>] {
        let slot = &mut state.classes[class as usize];
        if slot.fields.is_none() {
            let fields = match self.field_table(jni, slot.class as Jclass) {
                Ok(fields) => fields,
                // Classes of the JDK's archived heap (CDS) hold statics before JVMTI calls
                // them prepared: their fields cannot be listed yet, and stay unnamed.
                Err(JvmtiFailure(ffi::JVMTI_ERROR_CLASS_NOT_PREPARED)) => Vec::new(),
                Err(_) => {
                    self.count_error();
                    Vec::new()
                }
            };
            slot.fields = Some(fields);
        }
        slot.fields.as_deref().unwrap_or_default()
    }

    /// The label of the field a FIELD reference's index names; None for a field that is not
    /// a reference (which JVMTI never reports) or an index out of range.
    fn field_label(&self, jni: Jni, state: &mut WalkState, class: u32, index: i32) -> Option<u32> {
        if class as usize >= state.classes.len() {
            return None;
        }
        let field = self
            .fields_of(jni, state, class)
            .get(usize::try_from(index).ok()?)?
            .clone()?;
        field.is_reference.then(|| label_id(state, &field.name))
    }

    /// What holds a root, as the file names it.
    fn holder_name(&self, jni: Jni, state: &mut WalkState, holder: Holder) -> String {
        match holder {
            Holder::Nothing => String::new(),
            Holder::Method(method) => self.method_display(state, method),
            Holder::Class(class, index) if (class as usize) < state.classes.len() => {
                let field = index.and_then(|i| {
                    self.fields_of(jni, state, class)
                        .get(usize::try_from(i).ok()?)
                        .cloned()
                        .flatten()
                });
                match field {
                    Some(field) => format!("{}.{}", field.declaring, field.name),
                    None => {
                        let global = state.classes[class as usize].class as Jclass;
                        let signature = self.jvmti.class_signature(global).unwrap_or_default();
                        bytecode::java_type_name(&signature)
                    }
                }
            }
            Holder::Class(..) => "?".to_owned(),
        }
    }

    /// `pkg.C.m(desc)` of a method, cached.
    fn method_display(&self, state: &mut WalkState, method: usize) -> String {
        if let Some(name) = state.method_names.get(&method) {
            return name.clone();
        }
        let id = method as JmethodId;
        let display = (|| -> Result<String, JvmtiFailure> {
            let (name, descriptor) = self.jvmti.method_name(id)?;
            let class = self.jvmti.method_declaring_class(id)?;
            let class = bytecode::java_type_name(&self.jvmti.class_signature(class)?);
            Ok(format!("{class}.{name}{descriptor}"))
        })()
        .unwrap_or_else(|_| "?".to_owned());
        state.method_names.insert(method, display.clone());
        display
    }

    /// The file's number of an allocation site (defined on first use).
    fn file_site(&self, state: &mut WalkState, site: u32) -> Option<u32> {
        if let Some(&id) = state.sites.get(&site) {
            return Some(id);
        }
        let (method, offset) = *lock(&self.sites).list.get(site as usize)?;
        let display = self.method_display(state, method);
        let line = self
            .jvmti
            .line_number_table(method as JmethodId)
            .ok()
            .and_then(|table| {
                table
                    .iter()
                    .filter(|&&(start, _)| start <= offset)
                    .max_by_key(|&&(start, _)| start)
                    .map(|&(_, line)| line)
            });
        let id = u32::try_from(state.sites.len()).ok()?;
        state.log.site(id, offset, line, &display);
        state.sites.insert(site, id);
        Some(id)
    }

    /// The fields of a class by JVMTI field index (specification of `FollowReferences`,
    /// "Heap Reference Kind"): for a class, the fields of every interface it implements
    /// (directly, through superinterfaces or superclasses) take the first indices, then come
    /// the fields of `java.lang.Object` down to the class; for an interface, the fields of its
    /// superinterfaces, then its own. The interfaces' slots are left empty: an instance field
    /// index never falls there.
    fn field_table(
        &self,
        jni: Jni,
        class: Jclass,
    ) -> Result<Vec<Option<FieldEntry>>, JvmtiFailure> {
        let is_interface = self.jvmti.class_modifiers(class)? & ffi::ACC_INTERFACE != 0;
        let chain = if is_interface {
            vec![class]
        } else {
            superclass_chain(jni, class)
        };
        let interface_fields = self.interface_field_count(jni, &chain)?;
        let mut table: Vec<Option<FieldEntry>> = vec![None; interface_fields];
        let described = chain
            .iter()
            .rev()
            .try_for_each(|&declaring| -> Result<(), JvmtiFailure> {
                let name = bytecode::java_type_name(&self.jvmti.class_signature(declaring)?);
                for field in self.jvmti.class_fields(declaring)? {
                    let (field_name, descriptor) = self.jvmti.field_name(declaring, field)?;
                    let modifiers = self.jvmti.field_modifiers(declaring, field)?;
                    table.push(Some(FieldEntry {
                        declaring: name.clone(),
                        name: field_name,
                        is_static: modifiers & ffi::ACC_STATIC != 0,
                        is_reference: descriptor.starts_with('L') || descriptor.starts_with('['),
                    }));
                }
                Ok(())
            });
        for &link in chain.iter().filter(|&&c| c != class) {
            jni.delete_local_ref(link);
        }
        described.map(|()| table)
    }

    /// The number of fields of every interface the classes of `chain` implement (for an
    /// interface alone in its chain: of its superinterfaces), each interface counted once.
    fn interface_field_count(&self, jni: Jni, chain: &[Jclass]) -> Result<usize, JvmtiFailure> {
        let mut seen: Vec<String> = Vec::new();
        let mut pending: Vec<Jclass> = Vec::new();
        for &class in chain {
            pending.extend(self.jvmti.implemented_interfaces(class)?);
        }
        let mut count = 0;
        while let Some(interface) = pending.pop() {
            let signature = self.jvmti.class_signature(interface)?;
            if !seen.contains(&signature) {
                count += self.jvmti.class_fields(interface)?.len();
                pending.extend(self.jvmti.implemented_interfaces(interface)?);
                seen.push(signature);
            }
            jni.delete_local_ref(interface);
        }
        Ok(count)
    }
}

/// The class and its superclasses, the class first (the others local references).
fn superclass_chain(jni: Jni, class: Jclass) -> Vec<Jclass> {
    let mut chain = vec![class];
    let mut current = jni.superclass(class);
    while !current.is_null() {
        chain.push(current);
        current = jni.superclass(current);
    }
    chain
}

fn next_id(counter: &mut u32) -> u32 {
    let id = *counter;
    *counter += 1;
    id
}

/// The file's number of a field name (defined on first use).
fn label_id(state: &mut WalkState, name: &str) -> u32 {
    if let Some(&id) = state.labels.get(name) {
        return id;
    }
    let id = u32::try_from(state.labels.len()).unwrap_or(u32::MAX);
    state.log.label(id, name);
    state.labels.insert(name.to_owned(), id);
    id
}

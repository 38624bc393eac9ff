//! The agent's state and its event handlers: where allocations are attributed to call chains and
//! activations are tracked. Handlers return quietly on any JVMTI failure (counting it in the `end`
//! line): the agent must never take the JVM down.

use crate::activations::{Activation, ShadowStack};
use crate::bytecode::{self, ConstantPool, ParameterKind};
use crate::entry::{self, FieldSlot, SizeMethods, StaticField};
use crate::ffi::{self, FrameInfo, Jclass, JmethodId, Jobject, Jthread};
use crate::jvmti::{Jni, Jvmti, JvmtiFailure};
use crate::log::{EventLog, FrameToken};
use crate::options::{
    AgentOptions, ChainName, ChainStart, LocalName, RecordPoint, StaticFieldName, TargetMethod,
};
use crate::regions;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};

/// What the agent knows of one method, gathered once and cached.
struct MethodInfo {
    /// The method's number in the event stream.
    id: u32,
    /// Internal name of the declaring class, `pkg/C`.
    class: String,
    name: String,
    descriptor: String,
    is_native: bool,
    is_static: bool,
    /// Whether the options name it with `region=`: the heap is walked at its exits.
    checks_region: bool,
    bytecodes: Vec<u8>,
    /// `(start offset, line)`, sorted by offset.
    lines: Vec<(i64, i32)>,
    /// None for native methods, or if the pool could not be read: then no instruction of the
    /// method is recognised and its allocations count as VM-internal.
    pool: Option<ConstantPool>,
}

impl MethodInfo {
    /// `pkg.C.name(desc)`, the form the measure report uses.
    fn display(&self) -> String {
        let class = bytecode::java_type_name(&format!("L{};", self.class));
        format!("{class}.{}{}", self.name, self.descriptor)
    }

    fn line_at(&self, offset: i64) -> Option<i32> {
        let after = self.lines.partition_point(|&(start, _)| start <= offset);
        after.checked_sub(1).map(|index| self.lines[index].1)
    }

    fn offset_in_code(offset: i64) -> usize {
        usize::try_from(offset).unwrap_or(usize::MAX)
    }

    /// Whether the instruction at `offset` allocates an object of type `signature`.
    fn allocates_at(&self, offset: i64, signature: &str) -> bool {
        self.pool.as_ref().is_some_and(|pool| {
            bytecode::allocates(
                &self.bytecodes,
                Self::offset_in_code(offset),
                pool,
                signature,
            )
        })
    }

    /// Whether the instruction at `offset` is a call that can have pushed a frame of `callee`.
    fn calls_at(&self, offset: i64, callee: &MethodInfo) -> bool {
        let Some(pool) = &self.pool else { return false };
        bytecode::call_at(&self.bytecodes, Self::offset_in_code(offset), pool).is_some_and(|call| {
            bytecode::call_reaches(&call, &callee.class, &callee.name, &callee.descriptor)
        })
    }
}

/// A loaded method matching the watched one.
struct WatchedMethod {
    /// The `jmethodID` address.
    method: usize,
    /// Local-variable slot → source name of its parameters (empty without `javac -g`).
    parameter_names: HashMap<i32, String>,
    /// The integer instance fields of `this`, in resolution order (empty for static methods).
    this_fields: Arc<Vec<FieldSlot>>,
    /// The breakpoints after the instructions the options name (`static=pkg.C.f@pc`,
    /// `local=n@pc`).
    after: Vec<AfterPoint>,
}

/// A breakpoint after an instruction of the watched method, where values fixed by it are
/// recorded once per activation.
#[derive(Debug, Clone, Copy)]
struct AfterPoint {
    /// The location of the next instruction: reached once the instruction completed normally.
    location: i64,
    /// The bit of the activation's `recorded_after` that says it was recorded.
    bit: u32,
    record: AfterRecord,
}

/// What a breakpoint after an instruction records.
#[derive(Debug, Clone, Copy)]
enum AfterRecord {
    /// The static fields the options name with this point.
    Statics { point: RecordPoint },
    /// The local `locals[index]` the options name, in `slot` (a `long` when `long`).
    Local { index: usize, slot: i32, long: bool },
}

/// Everything the handlers share.
pub struct Agent {
    jvmti: Jvmti,
    target: TargetMethod,
    /// None once the VM has died and the stream is closed.
    log: Mutex<Option<EventLog>>,
    /// Keyed by the `jmethodID` address, which is stable while the class is loaded.
    methods: Mutex<HashMap<usize, Arc<MethodInfo>>>,
    /// The loaded methods matching the watched one (one per overload and class loader).
    targets: RwLock<Vec<WatchedMethod>>,
    /// The static fields the options name, recorded at each entry or after an instruction.
    statics: Vec<StaticFieldName>,
    /// The points of the watched method where static fields are recorded, each once.
    after: Vec<RecordPoint>,
    /// The integer locals the options name, recorded once the call or store that sets them
    /// completed (`local=n@pc`).
    locals: Vec<LocalName>,
    /// The chains the options name, whose lengths are recorded at each entry.
    chains: Vec<ChainName>,
    /// The methods at whose exits the heap is walked (`region=`).
    regions: Vec<TargetMethod>,
    /// Program allocations written so far: the next one's number is this plus one.
    allocations: AtomicU64,
    /// Heap walks made at exits.
    region_walks: AtomicU32,
    /// Those of them found in prepared classes (one per class loader that loaded the class).
    static_fields: Mutex<Vec<StaticField>>,
    /// `Collection.size()` and `Map.size()`, found at VM start.
    sizes: OnceLock<SizeMethods>,
    next_activation: AtomicU64,
    next_thread: AtomicU32,
    errors: AtomicU64,
}

static AGENT: OnceLock<Agent> = OnceLock::new();

/// Heap walks at exits beyond this many are skipped (and reported): each walks the whole heap.
const MAX_REGION_WALKS: u32 = 1000;

/// Per-thread state: the thread's number in the stream and its tracked frames.
struct ThreadState {
    id: u32,
    stack: ShadowStack,
}

thread_local! {
    static THREAD: RefCell<Option<ThreadState>> = const { RefCell::new(None) };
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock was already caught and counted; the data is still usable.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The agent's state; None before `install` succeeded.
pub fn agent() -> Option<&'static Agent> {
    AGENT.get()
}

/// Creates the agent's state and opens its event stream.
pub fn install(jvmti: Jvmti, options: AgentOptions) -> Result<(), String> {
    let mut log = EventLog::create(&options.output)
        .map_err(|e| format!("cannot create {}: {e}", options.output.display()))?;
    let watched = format!(
        "{}.{}{}",
        options.target.class.replace('/', "."),
        options.target.name,
        options.target.descriptor.as_deref().unwrap_or("")
    );
    log.watch(&watched);
    let state = Agent {
        jvmti,
        target: options.target,
        log: Mutex::new(Some(log)),
        methods: Mutex::new(HashMap::new()),
        targets: RwLock::new(Vec::new()),
        after: instructions_after(&options.statics),
        statics: options.statics,
        locals: options.locals,
        chains: options.chains,
        regions: options.regions,
        allocations: AtomicU64::new(0),
        region_walks: AtomicU32::new(0),
        static_fields: Mutex::new(Vec::new()),
        sizes: OnceLock::new(),
        next_activation: AtomicU64::new(1),
        next_thread: AtomicU32::new(1),
        errors: AtomicU64::new(0),
    };
    AGENT
        .set(state)
        .map_err(|_| "the agent was loaded twice".to_owned())
}

impl Agent {
    pub fn count_error(&self) {
        self.errors.fetch_add(1, Ordering::Relaxed);
    }

    fn write(&self, action: impl FnOnce(&mut EventLog)) {
        if let Some(log) = lock(&self.log).as_mut() {
            action(log);
        }
    }

    fn targets(&self) -> std::sync::RwLockReadGuard<'_, Vec<WatchedMethod>> {
        self.targets
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn is_target(&self, method: JmethodId) -> bool {
        self.targets().iter().any(|w| w.method == method as usize)
    }

    /// Index in `frames` (innermost first) of the outermost frame of the watched method.
    fn outermost_target(&self, frames: &[FrameInfo]) -> Option<usize> {
        let targets = self.targets();
        frames
            .iter()
            .rposition(|f| targets.iter().any(|w| w.method == f.method as usize))
    }

    /// The cached description of `method`, gathering it on first use.
    fn method_info(&self, method: JmethodId) -> Result<Arc<MethodInfo>, JvmtiFailure> {
        let mut methods = lock(&self.methods);
        if let Some(info) = methods.get(&(method as usize)) {
            return Ok(Arc::clone(info));
        }
        let id = u32::try_from(methods.len() + 1).unwrap_or(u32::MAX);
        let info = Arc::new(self.describe(method, id)?);
        // Written under the methods lock, so the definition precedes every use in the stream.
        self.write(|log| log.method(id, &info.display()));
        methods.insert(method as usize, Arc::clone(&info));
        Ok(info)
    }

    fn describe(&self, method: JmethodId, id: u32) -> Result<MethodInfo, JvmtiFailure> {
        let jvmti = &self.jvmti;
        let (name, descriptor) = jvmti.method_name(method)?;
        let class = jvmti.method_declaring_class(method)?;
        let signature = jvmti.class_signature(class)?;
        let is_native = jvmti.is_method_native(method)?;
        let is_static = jvmti.method_modifiers(method)? & ffi::ACC_STATIC != 0;
        let (bytecodes, lines, pool) = if is_native {
            (Vec::new(), Vec::new(), None)
        } else {
            let pool = jvmti
                .constant_pool(class)
                .ok()
                .and_then(|(count, bytes)| ConstantPool::parse(count, &bytes));
            (
                jvmti.bytecodes(method)?,
                sorted_lines(jvmti.line_number_table(method)?),
                pool,
            )
        };
        let class = signature
            .strip_prefix('L')
            .and_then(|s| s.strip_suffix(';'));
        let checks_region = self
            .regions
            .iter()
            .any(|r| r.is_declared_by(&signature) && r.is_method(&name, &descriptor));
        Ok(MethodInfo {
            id,
            class: class.unwrap_or(&signature).to_owned(),
            name,
            descriptor,
            is_native,
            is_static,
            checks_region,
            bytecodes,
            lines,
            pool,
        })
    }

    /// A newly prepared (or already loaded) class: starts watching the target's methods in it,
    /// and finds the static fields the options name in it.
    pub fn watch_class(&self, jni: Option<Jni>, class: Jclass) {
        let Ok(signature) = self.jvmti.class_signature(class) else {
            return;
        };
        self.find_static_fields(jni, class, &signature);
        if !self.target.is_declared_by(&signature) {
            return;
        }
        let Ok(methods) = self.jvmti.class_methods(class) else {
            self.count_error();
            return;
        };
        let this_fields = match jni.map(|jni| entry::instance_fields(&self.jvmti, jni, class)) {
            Some(Ok(fields)) => fields,
            Some(Err(_)) | None => {
                self.write(|log| log.problem("cannot list the fields of the watched class"));
                Vec::new()
            }
        };
        let this_fields = Arc::new(this_fields);
        for method in methods {
            self.watch_method(method, &this_fields);
        }
    }

    /// Keeps the static fields of `class` that the options name.
    fn find_static_fields(&self, jni: Option<Jni>, class: Jclass, signature: &str) {
        let internal = signature
            .strip_prefix('L')
            .and_then(|s| s.strip_suffix(';'));
        let wanted: Vec<&str> = self
            .statics
            .iter()
            .filter(|s| Some(s.class.as_str()) == internal)
            .map(|s| s.name.as_str())
            .collect();
        let Some(jni) = jni.filter(|_| !wanted.is_empty()) else {
            return;
        };
        match entry::static_fields(&self.jvmti, jni, class, |name| wanted.contains(&name)) {
            Ok(found) => lock(&self.static_fields).extend(found),
            Err(_) => self.count_error(),
        }
    }

    /// VM start: finds `size()` of collections and maps, and watches the target in the classes
    /// loaded before ClassPrepare events flowed.
    pub fn start_watching(&self, jni: Option<Jni>) {
        match jni.and_then(SizeMethods::find) {
            Some(sizes) => {
                let _ = self.sizes.set(sizes);
            }
            None => self.write(|log| {
                log.problem("java.util.Collection.size and Map.size not found: sizes not recorded")
            }),
        }
        self.watch_loaded_classes(jni);
    }

    fn watch_loaded_classes(&self, jni: Option<Jni>) {
        let Ok(classes) = self.jvmti.loaded_classes() else {
            self.count_error();
            return;
        };
        for class in classes {
            self.watch_class(jni, class);
            // VMInit runs long enough to make thousands of local references otherwise.
            if let Some(jni) = jni {
                jni.delete_local_ref(class);
            }
        }
    }

    fn watch_method(&self, method: JmethodId, this_fields: &Arc<Vec<FieldSlot>>) {
        let Ok((name, descriptor)) = self.jvmti.method_name(method) else {
            return;
        };
        if !self.target.is_method(&name, &descriptor) || self.is_target(method) {
            return;
        }
        let Ok(info) = self.method_info(method) else {
            self.count_error();
            return;
        };
        // Entries are seen through a breakpoint at bytecode 0: cheaper than MethodEntry events,
        // which the JVM would post for every method of the program.
        if let Err(failure) = self.jvmti.set_breakpoint(method, 0) {
            let text = format!(
                "cannot watch {} (JVMTI error {})",
                info.display(),
                failure.0
            );
            self.write(|log| log.problem(&text));
            return;
        }
        let after = self.watch_after(method, &info);
        let parameter_names = self
            .jvmti
            .parameter_names(method)
            .unwrap_or_default()
            .into_iter()
            .collect();
        let mut targets = self.targets.write().unwrap_or_else(|p| p.into_inner());
        targets.push(WatchedMethod {
            method: method as usize,
            parameter_names,
            this_fields: if info.is_static {
                Arc::new(Vec::new())
            } else {
                Arc::clone(this_fields)
            },
            after,
        });
        self.write(|log| log.target(info.id));
    }

    /// Sets a breakpoint after each instruction the options record values after: after the
    /// call or `putstatic` that fixes the static fields named with its offset, after the store
    /// of the call's result into the local named with it.
    fn watch_after(&self, method: JmethodId, info: &MethodInfo) -> Vec<AfterPoint> {
        let code = &info.bytecodes;
        let statics = self.after.iter().map(|&point| {
            let (next, what) = match point {
                RecordPoint::After(pc) => (
                    bytecode::after_call_or_putstatic(code, pc as usize),
                    format!("static fields after offset {pc}"),
                ),
                // Offset 0 is the entry's breakpoint.
                RecordPoint::At(pc) => (
                    Some(pc as usize).filter(|&pc| pc > 0 && pc < code.len()),
                    format!("static fields at offset {pc}"),
                ),
            };
            (next, AfterRecord::Statics { point }, what)
        });
        let locals = self.locals.iter().enumerate().map(|(index, local)| {
            let stored = bytecode::stored_local(code, local.pc as usize);
            let record = stored.map(|(_, slot, long)| AfterRecord::Local {
                index,
                slot: i32::from(slot),
                long,
            });
            let what = format!("local {} after offset {}", local.name, local.pc);
            (stored.map(|(next, _, _)| next), record, what)
        });
        let wanted: Vec<(Option<usize>, Option<AfterRecord>, String)> = statics
            .map(|(next, record, what)| (next, Some(record), what))
            .chain(locals)
            .collect();
        let mut points = Vec::new();
        for (bit, (next, record, what)) in wanted.into_iter().enumerate() {
            let set = next.zip(record).and_then(|(next, record)| {
                let location = i64::try_from(next).ok()?;
                self.jvmti.set_breakpoint(method, location).ok()?;
                let bit = u32::try_from(bit).ok()?;
                Some(AfterPoint {
                    location,
                    bit,
                    record,
                })
            });
            match set {
                Some(point) => points.push(point),
                None => {
                    let text = format!(
                        "cannot record {what} of {}: no call, putstatic or store of a call's result there",
                        info.display()
                    );
                    self.write(|log| log.problem(&text));
                }
            }
        }
        points
    }

    /// Runs `action` on this thread's state, creating it on first use.
    fn with_thread<R>(&self, action: impl FnOnce(&mut ThreadState) -> R) -> Option<R> {
        THREAD
            .try_with(|cell| {
                let mut slot = cell.try_borrow_mut().ok()?;
                let state = slot.get_or_insert_with(|| ThreadState {
                    id: self.next_thread.fetch_add(1, Ordering::Relaxed),
                    stack: ShadowStack::default(),
                });
                Some(action(state))
            })
            .ok()
            .flatten()
    }

    fn record_exits(&self, thread: u32, gone: &[Activation]) {
        if !gone.is_empty() {
            self.write(|log| gone.iter().for_each(|a| log.exit(thread, a.id)));
        }
    }

    /// Breakpoint at bytecode 0 of the watched method: a new activation, unless a loop jumped
    /// back to bytecode 0 of a running one.
    pub fn on_method_start(&self, jni: Option<Jni>, method: JmethodId, location: ffi::Jlocation) {
        if entry::inside_agent_call() || !self.is_target(method) {
            return;
        }
        if location != 0 {
            if let Some(jni) = jni {
                self.on_after_instruction(jni, method, location);
            }
            return;
        }
        let (Ok(count), Ok(info)) = (
            self.jvmti.frame_count(std::ptr::null_mut()),
            self.method_info(method),
        ) else {
            self.count_error();
            return;
        };
        let height = count - 1;
        self.with_thread(|thread| {
            if thread.stack.find(height, method as usize).is_some() {
                return;
            }
            if self.jvmti.notify_frame_pop(0).is_err() {
                self.count_error();
            }
            let id = self.next_activation.fetch_add(1, Ordering::Relaxed);
            let activation = Activation {
                id,
                height,
                method: method as usize,
                is_target: true,
                first_allocation: self.next_allocation_number(),
                recorded_after: 0,
            };
            // The new frame is the top one: anything tracked at its height or above is stale.
            let gone = thread.stack.pop_from(height);
            self.record_exits(thread.id, &gone);
            thread.stack.push(activation);
            self.write(|log| log.enter(thread.id, id, info.id));
            self.record_parameters(jni, method, &info, id);
            if let Some(jni) = jni {
                self.record_fields(jni, method, id);
                self.record_chains(jni, &info, id);
            }
        });
    }

    /// Breakpoint after an instruction the options name: the values fixed there, the first
    /// time the activation on top gets there (nothing in the activation changes them
    /// afterwards where a bound relies on them, so later visits would repeat it).
    fn on_after_instruction(&self, jni: Jni, method: JmethodId, location: ffi::Jlocation) {
        let points: Vec<AfterPoint> = self
            .targets()
            .iter()
            .find(|w| w.method == method as usize)
            .map(|w| {
                w.after
                    .iter()
                    .filter(|p| p.location == location)
                    .copied()
                    .collect()
            })
            .unwrap_or_default();
        let Ok(count) = self.jvmti.frame_count(std::ptr::null_mut()) else {
            return;
        };
        for point in points {
            let first_visit = self.with_thread(|thread| {
                let activation = thread.stack.find_mut(count - 1, method as usize)?;
                let bit = 1_u64.checked_shl(point.bit).unwrap_or(0);
                let recorded = activation.recorded_after & bit != 0;
                activation.recorded_after |= bit;
                (!recorded).then_some(activation.id)
            });
            if let Some(Some(activation)) = first_visit {
                self.record_after(jni, point.record, activation);
            }
        }
    }

    /// Records what a breakpoint after an instruction records, for `activation` on top.
    fn record_after(&self, jni: Jni, record: AfterRecord, activation: u64) {
        match record {
            AfterRecord::Statics { point } => {
                let pc = point.pc();
                for wanted in self.statics.iter().filter(|s| s.point == Some(point)) {
                    self.record_static(jni, wanted, |log, slot, ty, value| {
                        log.static_after(activation, pc, &slot.class, &slot.name, ty, value);
                    });
                }
            }
            AfterRecord::Local { index, slot, long } => {
                let value = if long {
                    self.jvmti.local_long(0, slot)
                } else {
                    self.jvmti.local_int(0, slot).map(i64::from)
                };
                let local = &self.locals[index];
                match value {
                    Ok(value) => {
                        self.write(|log| log.local_after(activation, local.pc, &local.name, value))
                    }
                    Err(_) => self.count_error(),
                }
            }
        }
    }

    /// Reads the static field `wanted` names and hands its value to `write`, when its class is
    /// initialized and loaded by one class loader.
    fn record_static(
        &self,
        jni: Jni,
        wanted: &StaticFieldName,
        write: impl FnOnce(&mut EventLog, &FieldSlot, &str, i64),
    ) {
        let static_fields = lock(&self.static_fields);
        let class = wanted.class.replace('/', ".");
        let mut found = static_fields
            .iter()
            .filter(|f| f.slot.class == class && f.slot.name == wanted.name);
        // Loaded by several class loaders, the name does not say which one a bound means.
        let (Some(field), None) = (found.next(), found.next()) else {
            return;
        };
        match entry::static_field_value(&self.jvmti, jni, field) {
            Ok(Some(value)) => {
                self.write(|log| write(log, &field.slot, field.slot.ty.name(), value))
            }
            Ok(None) => {}
            Err(_) => self.count_error(),
        }
    }

    /// Records the parameters of the activation on top (see [`entry::parameter_value`]).
    fn record_parameters(
        &self,
        jni: Option<Jni>,
        method: JmethodId,
        info: &MethodInfo,
        activation: u64,
    ) {
        let Some(kinds) = bytecode::parameter_kinds(&info.descriptor) else {
            return;
        };
        let names: HashMap<i32, String> = self
            .targets()
            .iter()
            .find(|w| w.method == method as usize)
            .map(|w| w.parameter_names.clone())
            .unwrap_or_default();
        let mut slot = if info.is_static { 0 } else { 1 };
        for (index, kind) in kinds.into_iter().enumerate() {
            let name = names
                .get(&slot)
                .cloned()
                .unwrap_or_else(|| format!("p{index}"));
            let value = entry::parameter_value(&self.jvmti, jni, self.sizes.get(), kind, slot);
            if let Some((kind_name, value)) = value {
                self.write(|log| log.param(activation, index, &name, kind_name, value));
            }
            slot += kind.slots();
        }
    }

    /// Records the integer fields of `this` and the static fields the options name, at the
    /// entry of the activation on top.
    fn record_fields(&self, jni: Jni, method: JmethodId, activation: u64) {
        let this_fields = self
            .targets()
            .iter()
            .find(|w| w.method == method as usize)
            .map(|w| Arc::clone(&w.this_fields))
            .unwrap_or_default();
        match entry::this_field_values(&self.jvmti, jni, &this_fields) {
            Ok(values) => self.write(|log| {
                for (field, value) in this_fields.iter().zip(values) {
                    let ty = field.ty.name();
                    log.field_value("field", activation, &field.class, &field.name, ty, value);
                }
            }),
            Err(_) => self.count_error(),
        }
        for wanted in self.statics.iter().filter(|s| s.point.is_none()) {
            self.record_static(jni, wanted, |log, slot, ty, value| {
                log.field_value("static", activation, &slot.class, &slot.name, ty, value);
            });
        }
    }

    /// Records the length of each chain the options name (the size of each tree), from its
    /// root at the entry of the activation on top.
    fn record_chains(&self, jni: Jni, info: &MethodInfo, activation: u64) {
        for chain in &self.chains {
            let Some(start) = self.chain_start(jni, info, chain) else {
                continue;
            };
            let fields: Vec<entry::FieldName<'_>> = chain
                .fields
                .iter()
                .map(|field| entry::FieldName {
                    class: field.class.as_deref(),
                    name: &field.name,
                    elements: field.elements,
                })
                .collect();
            let length = match fields.as_slice() {
                [field] if !chain.is_tree() => entry::chain_length(&self.jvmti, jni, start, field),
                _ => entry::tree_size(&self.jvmti, jni, start, &fields),
            };
            jni.delete_local_ref(start);
            if let Some(length) = length {
                self.write(|log| log.chain(activation, &chain.text, &length.to_string()));
            }
        }
    }

    /// The root of a chain at the top frame's entry, a local reference (null for a null
    /// root); None when the method has no such parameter or field. A tree's child of a null
    /// parameter is null: the tree has no node, so neither has the child's.
    fn chain_start(&self, jni: Jni, info: &MethodInfo, chain: &ChainName) -> Option<Jobject> {
        let tree = chain.is_tree();
        let parameter = |index: usize| -> Option<Jobject> {
            let kinds = bytecode::parameter_kinds(&info.descriptor)?;
            let first = if info.is_static { 0 } else { 1 };
            let slot = first + kinds.get(..index)?.iter().map(|k| k.slots()).sum::<i32>();
            matches!(kinds.get(index)?, ParameterKind::Object)
                .then(|| self.jvmti.local_object(0, slot).ok())
                .flatten()
        };
        let field_of = |holder: Jobject, name: &str| -> Option<Jobject> {
            if holder.is_null() {
                return tree.then_some(holder);
            }
            let field = entry::FieldName {
                class: None,
                name,
                elements: false,
            };
            let value = entry::object_field_named(&self.jvmti, jni, holder, &field);
            jni.delete_local_ref(holder);
            value
        };
        match &chain.root {
            ChainStart::Param(index) => parameter(*index),
            ChainStart::This(_) | ChainStart::ThisObject if info.is_static => None,
            ChainStart::This(held) => field_of(self.jvmti.local_object(0, 0).ok()?, held),
            ChainStart::ThisObject => self.jvmti.local_object(0, 0).ok(),
            ChainStart::ParamField(index, held) => field_of(parameter(*index)?, held),
        }
    }

    /// FramePop of a tracked frame: it and any tracked frame above it have returned. When
    /// the options name its method with `region=`, the heap is walked first for what the
    /// activation left reachable.
    pub fn on_frame_pop(&self, thread_object: Jthread) {
        let Ok(count) = self.jvmti.frame_count(std::ptr::null_mut()) else {
            self.count_error();
            return;
        };
        // The popped frame is still on the stack while the event is posted.
        let popped = self.with_thread(|thread| (thread.id, thread.stack.pop_from(count - 1)));
        let Some((thread, gone)) = popped else { return };
        if let Some(returning) = gone.iter().find(|a| a.height == count - 1) {
            self.check_region(thread, thread_object, returning);
        }
        self.record_exits(thread, &gone);
    }

    /// The number the next program allocation will get in the stream.
    fn next_allocation_number(&self) -> u64 {
        self.allocations.load(Ordering::Relaxed) + 1
    }

    /// At the exit of `returning`, on top of the current thread: when its method is named by
    /// `region=` and something was allocated since it began, lists the objects allocated since
    /// that the heap still reaches (a `reached` line), at most [`MAX_REGION_WALKS`] times.
    fn check_region(&self, thread: u32, thread_object: Jthread, returning: &Activation) {
        let method = returning.method as JmethodId;
        let checked = self
            .method_info(method)
            .is_ok_and(|info| info.checks_region);
        if !checked || self.next_allocation_number() == returning.first_allocation {
            return;
        }
        let walks = self.region_walks.fetch_add(1, Ordering::Relaxed);
        if walks >= MAX_REGION_WALKS {
            if walks == MAX_REGION_WALKS {
                self.write(|log| {
                    log.problem(&format!(
                        "regions checked at the first {MAX_REGION_WALKS} exits only"
                    ))
                });
            }
            return;
        }
        let first = returning.first_allocation;
        match regions::reachable_since(&self.jvmti, thread_object, method, first) {
            Ok(reached) => self.write(|log| log.reached(thread, returning.id, &reached)),
            Err(_) => self.count_error(),
        }
    }

    /// An object was allocated: if the watched method is on this thread's stack, record it with
    /// its chain from the outermost activation of the watched method. `size` is the event's,
    /// which JVMTI defines as what `GetObjectSize` reports (the tests check it against
    /// `Instrumentation.getObjectSize`), so no second call is needed.
    pub fn on_allocation(&self, object: Jobject, class: Jclass, size: ffi::Jlong) {
        if entry::inside_agent_call() {
            return;
        }
        let inside = self.with_thread(|thread| thread.stack.inside_target());
        if inside != Some(true) {
            return;
        }
        let Ok(frames) = self.jvmti.stack_trace(std::ptr::null_mut()) else {
            self.count_error();
            return;
        };
        let Some(outermost) = self.outermost_target(&frames) else {
            return;
        };
        let (Ok(signature), Some(chain)) = (
            self.jvmti.class_signature(class),
            self.describe_chain(&frames, outermost),
        ) else {
            self.count_error();
            return;
        };
        let type_name = bytecode::java_type_name(&signature);
        let program = is_program_allocation(&chain, &signature);
        self.with_thread(|thread| {
            let activations = if program {
                self.track_chain(thread, &chain, frames.len())
            } else {
                vec![0; chain.len()]
            };
            let tokens: Vec<FrameToken> = chain
                .iter()
                .zip(activations)
                .map(|((frame, info), activation)| FrameToken {
                    activation,
                    method: info.id,
                    offset: frame.location,
                    line: info.line_at(frame.location),
                })
                .collect();
            let mut number = None;
            self.write(|log| {
                log.allocation(program, thread.id, &type_name, size, &tokens);
                // Numbered under the stream's lock, in the order of the lines.
                number = program.then(|| self.allocations.fetch_add(1, Ordering::Relaxed) + 1);
            });
            self.tag_for_regions(object, number);
        });
    }

    /// With `region=` options, tags a program allocation with its number in the stream, which
    /// a walk at an exit reports.
    fn tag_for_regions(&self, object: Jobject, number: Option<u64>) {
        let Some(tag) = number.filter(|_| !self.regions.is_empty()) else {
            return;
        };
        let tag = ffi::Jlong::try_from(tag).unwrap_or(ffi::Jlong::MAX);
        if self.jvmti.set_tag(object, tag).is_err() {
            self.count_error();
        }
    }

    /// The frames from the outermost watched activation (`frames[outermost]`) to the top, with
    /// their methods described, outermost first.
    fn describe_chain(
        &self,
        frames: &[FrameInfo],
        outermost: usize,
    ) -> Option<Vec<(FrameInfo, Arc<MethodInfo>)>> {
        frames[..=outermost]
            .iter()
            .rev()
            .map(|frame| Some((*frame, self.method_info(frame.method).ok()?)))
            .collect()
    }

    /// Activation ids of the chain's frames, tracking the frames not yet tracked. Native frames
    /// cannot be asked for a FramePop event and get id 0.
    fn track_chain(
        &self,
        thread: &mut ThreadState,
        chain: &[(FrameInfo, Arc<MethodInfo>)],
        depth: usize,
    ) -> Vec<u64> {
        let first_height = i32::try_from(depth - chain.len()).unwrap_or(i32::MAX);
        let top_height = i32::try_from(depth).unwrap_or(i32::MAX) - 1;
        // Nothing can be tracked above the allocating frame: such entries are stale.
        let stale = thread.stack.pop_from(top_height + 1);
        self.record_exits(thread.id, &stale);
        let mut ids = Vec::with_capacity(chain.len());
        for (height, (frame, info)) in (first_height..).zip(chain) {
            let method = frame.method as usize;
            if let Some(known) = thread.stack.find(height, method) {
                ids.push(known.id);
                continue;
            }
            if info.is_native || self.jvmti.notify_frame_pop(top_height - height).is_err() {
                ids.push(0);
                continue;
            }
            let id = self.next_activation.fetch_add(1, Ordering::Relaxed);
            let gone = thread.stack.push(Activation {
                id,
                height,
                method,
                is_target: false,
                first_allocation: self.next_allocation_number(),
                recorded_after: 0,
            });
            self.record_exits(thread.id, &gone);
            self.write(|log| log.enter(thread.id, id, info.id));
            ids.push(id);
        }
        ids
    }

    /// VMDeath: close the stream. Events after this are dropped.
    pub fn finish(&self) {
        if let Some(log) = lock(&self.log).take() {
            log.finish(self.errors.load(Ordering::Relaxed));
        }
    }
}

fn sorted_lines(mut lines: Vec<(i64, i32)>) -> Vec<(i64, i32)> {
    lines.sort_unstable();
    lines
}

/// Whether the allocation was made by the program: the top frame is an allocating instruction
/// of this very type (or a native method, such as `Object.clone`, which allocates on the
/// program's behalf), and every frame below it is a call of the frame above. Anything else
/// (a `String` made while resolving a class at a `new`, a class loader or static initialiser
/// the VM ran on top of a program frame, an exception the VM throws) is VM-internal.
fn is_program_allocation(chain: &[(FrameInfo, Arc<MethodInfo>)], signature: &str) -> bool {
    let Some((top, top_info)) = chain.last() else {
        return false;
    };
    let made_by_top = top_info.is_native || top_info.allocates_at(top.location, signature);
    made_by_top
        && chain.windows(2).all(|pair| {
            let ((caller, caller_info), (_, callee_info)) = (&pair[0], &pair[1]);
            caller_info.is_native || caller_info.calls_at(caller.location, callee_info)
        })
}

/// The points the options record static fields at, each once, in the options' order.
fn instructions_after(statics: &[StaticFieldName]) -> Vec<RecordPoint> {
    let mut points: Vec<RecordPoint> = Vec::new();
    for point in statics.iter().filter_map(|s| s.point) {
        if !points.contains(&point) {
            points.push(point);
        }
    }
    points
}

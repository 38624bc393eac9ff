//! membound-agent: a JVMTI agent that records, on a real JVM, every heap allocation made under one
//! watched method, with the call chain that made it, so that membound's static bounds can be
//! checked against what a run actually allocates. It is the ground truth of the project, not an
//! analysis: it knows nothing of bounds, certificates or escape analysis, and it does not
//! aggregate — it writes an event stream that `membound measure` (in the `membound` crate) reads.
//! It is not a profiler either: it is made to be exact, not fast, and runs the JVM interpreted.
//!
//! Load it with `java -agentpath:libmembound_agent.so=method=pkg/C.m(I)V,out=events.txt`; each
//! `static=pkg.C.f` option before `out=` names a static integer field to record at every entry
//! (with `@<pc>`, once the call or `putstatic` at offset `pc` of the method completed; with
//! `@at:<pc>`, when the method reaches offset `pc`), each
//! `local=<name>@<pc>` an integer local recorded once the call at `pc` stored its result in it,
//! each `chain=<root>/<field>` a linked structure whose length to record there, each
//! `region=pkg/C.f(desc)` a method at whose exits the heap is walked (`regions.rs`): the
//! program's allocations are then tagged with their number in the stream, and a `reached` line
//! lists those made since the activation began that the heap still reaches from any root but
//! the returning frame's local variables (`membound validate --check-regions`).
//!
//! # Heap mode
//!
//! With `snapshot=exit:pkg/C.m(desc),out=heap.txt`, `snapshot=alloc:pkg/C.m(desc),out=…` or
//! `snapshot=gc,out=heap.txt` the agent records no events: it tags every object at its
//! allocation with its allocation site and, at each exit of the method, at each allocation its
//! own code makes, or after each garbage collection, walks the live heap with
//! `FollowReferences` and writes a snapshot (objects with class, size and site, references by
//! field and array index, roots by kind) for `membound heap` (`heap_mode.rs`; the file's format
//! is described by its reader, the `membound-heap` crate's `agent_file.rs`). The walk after a
//! collection runs in a thread of the agent's, woken by `GarbageCollectionFinish`, in which
//! JVMTI forbids the walk itself. Same flags as below: allocation events must see every object
//! for its site to be known.
//!
//! # Seeing every allocation
//!
//! Allocations arrive as JVMTI `SampledObjectAlloc` events with the sampling interval set to 0.
//! The JVM only samples on its allocation slow path, so the JVM must run with `-XX:-UseTLAB`
//! (with TLABs, from 3% to all of the test programs' allocations went unseen), with the G1
//! collector (with TLABs off, the Serial and Parallel collectors let the interpreter
//! bump-allocate in eden inline, and over 99% were never seen), and without allocation
//! elimination: `-Xint` (or at least `-XX:-DoEscapeAnalysis`, since scalar-replaced objects are
//! never allocated at all). `membound measure` passes exactly these flags
//! (`EXACT_ALLOCATION_FLAGS`). The integration tests (`tests/agent_counts.rs`) check the result
//! on programs whose allocation counts are known exactly, and fail when TLABs are turned back on
//! or G1 is replaced; the `slowdown` benchmark prints the share of allocations seen under other
//! flag sets, including the JIT's on hot code. (Measured on OpenJDK 17; OpenJDK 25 saw every
//! allocation under all these flag sets.)
//!
//! # Attribution
//!
//! An allocation is recorded when the watched method is on the allocating thread's stack; its
//! chain runs from the outermost activation of the watched method to the allocating frame. It is
//! the program's (`alloc`) when the top frame's instruction is an allocating instruction of the
//! object's very type (read with `GetBytecodes` and `GetConstantPool`) or a native method (such
//! as `Object.clone` or `Throwable.fillInStackTrace`, which allocate for the program), and
//! every lower frame is a call instruction that can have pushed the frame above it; otherwise the
//! VM made it (`vm`): names interned while resolving a class, exceptions, class loaders and
//! static initialisers run on top of a program frame.
//!
//! # The event stream
//!
//! One event per line, fields separated by single spaces, lines of one thread in the order the
//! events happened; a `method` line always comes before the first line using its number:
//!
//! ```text
//! membound-agent 4                       header (format version)
//! watch <M>                              the method named in the options
//! method <id> <pkg.C.name(desc)>         a method number used by later lines
//! target <id>                            this method is (an overload of) the watched method
//! enter <thread> <act> <method-id>       a tracked activation started (or was first seen)
//! param <act> <index> <name> <kind> <v>  parameter <index> (0 = first declared) of a watched
//!                                        activation: kind int|long (v = the value), array
//!                                        (v = its length, or `null`), string (v = length(),
//!                                        or `null`), collection|map (v = size() of a non-null
//!                                        java.util.Collection or Map), boxed (v = the value
//!                                        of an Integer, Long, Short, Byte or Character, or
//!                                        `null`; other references are not recorded); name
//!                                        `p<index>` without a variable
//!                                        table
//! field <act> <class> <name> <type> <v>  an integer instance field of `this` at a watched
//!                                        activation: declaring class pkg.C, field name, Java
//!                                        type (int, long, short, byte, char, boolean: 0|1);
//!                                        those of the method's class first, then of each
//!                                        superclass (a name's first line is what `this.name`
//!                                        resolves to)
//! static <act> <class> <name> <type> <v> a static integer field named by a `static=` option,
//!                                        at a watched activation, when its class is
//!                                        initialized (before, it holds no value the program
//!                                        reads) and loaded once (by one class loader)
//! after <act> <pc> <class> <name> <type> <v>
//!                                        a static integer field named by a `static=…@<pc>`
//!                                        option, the first time an activation reaches the
//!                                        instruction after the call or `putstatic` at <pc>
//!                                        (a breakpoint there: the instruction completed), or
//!                                        by a `static=…@at:<pc>` option, the instruction at
//!                                        <pc>, when its class is initialized
//! local <act> <pc> <name> <v>            an integer local named by a `local=<name>@<pc>`
//!                                        option, the first time an activation gets past the
//!                                        store of the call's result at <pc> into it
//! chain <act> <root>/<field> <length>    a chain named by a `chain=` option at a watched
//!                                        activation, when the method has its root (`0`, a
//!                                        parameter; `this.f` or `0.f`, a reference field):
//!                                        the nodes before null along the reference field
//!                                        <field>, `cycle` (Floyd's cycle test) or `long`
//!                                        (past 2^24 nodes); for a tree, `<root>/<f>+<g>`,
//!                                        the nodes reached along any of the fields, `shared`
//!                                        (a node reached twice: a shared subtree or a cycle)
//!                                        or `long`
//! alloc <thread> <type> <bytes> <frame>… a program allocation; frames outermost first, each
//!                                        <act>:<method-id>:<bytecode offset>:<line or ->
//! vm <thread> <type> <bytes> <frame>…    a VM-internal allocation under the watched method
//!                                        (activation ids 0)
//! reached <thread> <act> <n>:<held>…    before the `exit` of an activation of a `region=`
//!                                        method that allocated: the program allocations
//!                                        (numbered from 1 in the order of the `alloc` lines)
//!                                        made since it began that the heap still reaches
//!                                        (at most 1000 such walks a run), each with what held
//!                                        it when the walk first reached it: static|returned
//!                                        (the returning frame's operand stack)|local (a
//!                                        caller's or another thread's frame)|object|other
//! exit <thread> <act>                    a tracked activation returned (normally or not)
//! problem <text>                         something the agent could not do
//! end <errors>                           the VM died; <errors> JVMTI calls or writes failed
//! ```
//!
//! The parameters and fields are read in the breakpoint callback at the entry. A collection's
//! or map's `size()` is a Java call the agent makes there: what it allocates or calls is not
//! recorded (a per-thread flag, `entry::inside_agent_call`), and an exception it throws is
//! cleared and leaves the value unrecorded. Version 2 of the stream added the `field` and
//! `static` lines and the `string`, `collection` and `map` parameter kinds; version 3 the
//! `reached` lines; version 4 the `after` and `local` lines.
//!
//! Activations are tracked with a breakpoint at bytecode 0 of the watched method and
//! `NotifyFramePop` for every frame on a recorded chain, instead of MethodEntry/MethodExit events
//! for every method of the program: on a loop making 3 million calls under the watched method,
//! the agent ran in 0.9–1.1 s against 1.0 s for the bare interpreter, while merely enabling
//! MethodEntry/MethodExit with empty callbacks took it to 1.6–2.0 s. Native frames cannot be
//! tracked and get activation id 0.

mod activations;
mod agent;
mod bytecode;
mod entry;
mod ffi;
mod heap_log;
mod heap_mode;
mod heap_walk;
mod jvmti;
mod log;
mod options;
mod regions;

use ffi::{JavaVm, Jclass, JmethodId, JniEnv, Jobject, Jthread, JvmtiEnv};
use jvmti::{Jni, Jvmti, Vm};
use std::ffi::{CStr, c_char, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs an event handler, keeping any panic inside the agent: a panic must never unwind into
/// the JVM (it would abort the process).
fn guarded(handler: impl FnOnce(&'static agent::Agent)) {
    if let Some(state) = agent::agent()
        && catch_unwind(AssertUnwindSafe(|| handler(state))).is_err()
    {
        state.count_error();
    }
}

/// Entry point the JVM calls for `-agentpath:…=<options>`.
///
/// # Safety
/// Called by the JVM with its `JavaVM` pointer and a NUL-terminated option string (or null).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn Agent_OnLoad(
    vm: *mut JavaVm,
    options: *mut c_char,
    _reserved: *mut c_void,
) -> ffi::Jint {
    let text = if options.is_null() {
        String::new()
    } else {
        // SAFETY: the JVM passes a NUL-terminated string.
        unsafe { CStr::from_ptr(options) }
            .to_string_lossy()
            .into_owned()
    };
    // SAFETY: `vm` is the pointer the JVM passed to Agent_OnLoad.
    let jvmti = unsafe { Jvmti::from_vm(vm) };
    let started = catch_unwind(|| match jvmti {
        Some(jvmti) => match options::HeapOptions::parse(&text) {
            Ok(Some(heap)) => start_heap_mode(jvmti, Vm::new(vm), heap),
            Ok(None) => start(jvmti, &text),
            Err(message) => Err(message),
        },
        None => Err("JVMTI 11 is not available in this JVM".to_owned()),
    });
    match started {
        Ok(Ok(())) => ffi::JNI_OK,
        Ok(Err(message)) => {
            eprintln!("membound-agent: {message}");
            ffi::JNI_ERR
        }
        Err(_) => ffi::JNI_ERR,
    }
}

/// Parses the options, asks for the capabilities and enables the events.
fn start(jvmti: Jvmti, text: &str) -> Result<(), String> {
    let options = options::AgentOptions::parse(text)?;
    let mut capabilities = ffi::Capabilities::default()
        .with(ffi::CAN_GENERATE_SAMPLED_OBJECT_ALLOC_EVENTS)
        .with(ffi::CAN_GET_BYTECODES)
        .with(ffi::CAN_GET_CONSTANT_POOL)
        .with(ffi::CAN_GET_LINE_NUMBERS)
        .with(ffi::CAN_ACCESS_LOCAL_VARIABLES)
        .with(ffi::CAN_GENERATE_BREAKPOINT_EVENTS)
        .with(ffi::CAN_GENERATE_FRAME_POP_EVENTS);
    // Region walks number objects by tags; a tree's walk marks the nodes it has seen.
    if !options.regions.is_empty() || options.chains.iter().any(options::ChainName::is_tree) {
        capabilities = capabilities.with(ffi::CAN_TAG_OBJECTS);
    }
    jvmti
        .add_capabilities(&capabilities)
        .map_err(failed("AddCapabilities"))?;
    agent::install(jvmti, options)?;
    let mut callbacks = ffi::EventCallbacks::default();
    callbacks.vm_init = Some(on_vm_init);
    callbacks.vm_death = Some(on_vm_death);
    callbacks.class_prepare = Some(on_class_prepare);
    callbacks.frame_pop = Some(on_frame_pop);
    callbacks.breakpoint = Some(on_breakpoint);
    callbacks.sampled_object_alloc = Some(on_sampled_object_alloc);
    jvmti
        .set_event_callbacks(&callbacks)
        .map_err(failed("SetEventCallbacks"))?;
    for event in [
        ffi::EVENT_VM_INIT,
        ffi::EVENT_VM_DEATH,
        ffi::EVENT_CLASS_PREPARE,
        ffi::EVENT_FRAME_POP,
        ffi::EVENT_BREAKPOINT,
        ffi::EVENT_SAMPLED_OBJECT_ALLOC,
    ] {
        jvmti
            .enable_event(event)
            .map_err(failed("SetEventNotificationMode"))?;
    }
    // Interval 0: every allocation the slow path sees is reported.
    jvmti
        .set_heap_sampling_interval(0)
        .map_err(failed("SetHeapSamplingInterval"))
}

/// Turns a JVMTI failure during start-up into the message the JVM prints.
fn failed(what: &'static str) -> impl Fn(jvmti::JvmtiFailure) -> String {
    move |e| format!("{what} failed (JVMTI error {})", e.0)
}

/// Heap mode (`snapshot=…`): asks for what tagging, walking and the chosen moment need, and
/// enables those events only.
fn start_heap_mode(jvmti: Jvmti, vm: Vm, options: options::HeapOptions) -> Result<(), String> {
    let exits = matches!(options.moment, options::SnapshotMoment::Exit(_));
    let watches_a_method = options.moment.target().is_some();
    let mut capabilities = ffi::Capabilities::default()
        .with(ffi::CAN_TAG_OBJECTS)
        .with(ffi::CAN_GENERATE_SAMPLED_OBJECT_ALLOC_EVENTS)
        .with(ffi::CAN_GET_LINE_NUMBERS);
    capabilities = if exits {
        capabilities
            .with(ffi::CAN_GENERATE_BREAKPOINT_EVENTS)
            .with(ffi::CAN_GENERATE_FRAME_POP_EVENTS)
    } else if watches_a_method {
        capabilities
    } else {
        capabilities.with(ffi::CAN_GENERATE_GARBAGE_COLLECTION_EVENTS)
    };
    jvmti
        .add_capabilities(&capabilities)
        .map_err(failed("AddCapabilities"))?;
    heap_mode::install(jvmti, vm, options)?;
    let mut callbacks = ffi::EventCallbacks::default();
    callbacks.vm_init = Some(on_vm_init_heap);
    callbacks.vm_death = Some(on_vm_death_heap);
    callbacks.sampled_object_alloc = Some(on_allocation_heap);
    let mut events = vec![
        ffi::EVENT_VM_INIT,
        ffi::EVENT_VM_DEATH,
        ffi::EVENT_SAMPLED_OBJECT_ALLOC,
    ];
    if watches_a_method {
        callbacks.class_prepare = Some(on_class_prepare_heap);
        events.push(ffi::EVENT_CLASS_PREPARE);
    }
    if exits {
        callbacks.breakpoint = Some(on_breakpoint_heap);
        callbacks.frame_pop = Some(on_frame_pop_heap);
        events.extend([ffi::EVENT_BREAKPOINT, ffi::EVENT_FRAME_POP]);
    } else if !watches_a_method {
        callbacks.garbage_collection_finish = Some(on_collection_heap);
        events.push(ffi::EVENT_GARBAGE_COLLECTION_FINISH);
    }
    jvmti
        .set_event_callbacks(&callbacks)
        .map_err(failed("SetEventCallbacks"))?;
    for event in events {
        jvmti
            .enable_event(event)
            .map_err(failed("SetEventNotificationMode"))?;
    }
    jvmti
        .set_heap_sampling_interval(0)
        .map_err(failed("SetHeapSamplingInterval"))
}

/// Runs a heap-mode event handler, keeping any panic inside the agent.
fn guarded_heap(handler: impl FnOnce(&'static heap_mode::HeapAgent)) {
    if let Some(state) = heap_mode::heap_agent()
        && catch_unwind(AssertUnwindSafe(|| handler(state))).is_err()
    {
        state.count_error();
    }
}

unsafe extern "C" fn on_vm_init_heap(_jvmti: *mut JvmtiEnv, jni: *mut JniEnv, _thread: Jthread) {
    guarded_heap(|state| state.start(Jni::new(jni)));
}

unsafe extern "C" fn on_vm_death_heap(_jvmti: *mut JvmtiEnv, _jni: *mut JniEnv) {
    guarded_heap(|state| state.finish());
}

unsafe extern "C" fn on_class_prepare_heap(
    _jvmti: *mut JvmtiEnv,
    _jni: *mut JniEnv,
    _thread: Jthread,
    class: Jclass,
) {
    guarded_heap(|state| state.watch_class(class));
}

unsafe extern "C" fn on_breakpoint_heap(
    _jvmti: *mut JvmtiEnv,
    _jni: *mut JniEnv,
    _thread: Jthread,
    method: JmethodId,
    location: ffi::Jlocation,
) {
    guarded_heap(|state| state.on_method_start(method, location));
}

unsafe extern "C" fn on_frame_pop_heap(
    _jvmti: *mut JvmtiEnv,
    jni: *mut JniEnv,
    _thread: Jthread,
    method: JmethodId,
    _by_exception: ffi::Jboolean,
) {
    guarded_heap(|state| state.on_frame_pop(Jni::new(jni), method));
}

unsafe extern "C" fn on_allocation_heap(
    _jvmti: *mut JvmtiEnv,
    jni: *mut JniEnv,
    _thread: Jthread,
    object: Jobject,
    _class: Jclass,
    size: ffi::Jlong,
) {
    guarded_heap(|state| state.on_allocation(Jni::new(jni), object, size));
}

/// GarbageCollectionFinish: only raw monitors and memory may be used here; the handler only
/// counts the collection and wakes the walker thread.
unsafe extern "C" fn on_collection_heap(_jvmti: *mut JvmtiEnv) {
    guarded_heap(|state| state.on_collection());
}

/// VM start: the watched class may have been prepared before ClassPrepare events flowed, and
/// `size()` of collections and maps is looked up now that JNI can find classes.
unsafe extern "C" fn on_vm_init(_jvmti: *mut JvmtiEnv, jni: *mut JniEnv, _thread: Jthread) {
    guarded(|state| state.start_watching(Jni::new(jni)));
}

unsafe extern "C" fn on_vm_death(_jvmti: *mut JvmtiEnv, _jni: *mut JniEnv) {
    guarded(|state| state.finish());
}

unsafe extern "C" fn on_class_prepare(
    _jvmti: *mut JvmtiEnv,
    jni: *mut JniEnv,
    _thread: Jthread,
    class: Jclass,
) {
    guarded(|state| state.watch_class(Jni::new(jni), class));
}

unsafe extern "C" fn on_breakpoint(
    _jvmti: *mut JvmtiEnv,
    jni: *mut JniEnv,
    _thread: Jthread,
    method: JmethodId,
    location: ffi::Jlocation,
) {
    guarded(|state| state.on_method_start(Jni::new(jni), method, location));
}

unsafe extern "C" fn on_frame_pop(
    _jvmti: *mut JvmtiEnv,
    _jni: *mut JniEnv,
    thread: Jthread,
    _method: JmethodId,
    _by_exception: ffi::Jboolean,
) {
    guarded(|state| state.on_frame_pop(thread));
}

unsafe extern "C" fn on_sampled_object_alloc(
    _jvmti: *mut JvmtiEnv,
    _jni: *mut JniEnv,
    _thread: Jthread,
    object: Jobject,
    class: Jclass,
    size: ffi::Jlong,
) {
    guarded(|state| state.on_allocation(object, class, size));
}

//! A thin safe layer over the JVMTI and JNI function tables: each wrapper calls one function, turns
//! its error code into a `Result`, copies JVM-allocated results into Rust values and releases the
//! JVM's memory. All the agent's unsafe calls into the JVM are here.

use crate::bytecode::IntegerType;
use crate::ffi::{
    self, FrameInfo, Jclass, JfieldId, JmethodId, JniEnv, Jobject, Jthread, JvmtiEnv,
};
use std::ffi::{CStr, c_char, c_int, c_uchar, c_void};

/// A JVMTI error code other than `JVMTI_ERROR_NONE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JvmtiFailure(pub ffi::JvmtiError);

pub type Result<T> = std::result::Result<T, JvmtiFailure>;

fn check(code: ffi::JvmtiError) -> Result<()> {
    if code == ffi::JVMTI_ERROR_NONE {
        Ok(())
    } else {
        Err(JvmtiFailure(code))
    }
}

/// The agent's JVMTI environment. JVMTI environments may be used from any thread (JVMTI
/// specification, "Environments"), which is what makes this handle `Send + Sync`.
#[derive(Clone, Copy)]
pub struct Jvmti {
    env: *mut JvmtiEnv,
}

// SAFETY: a jvmtiEnv pointer stays valid for the life of the VM and JVMTI functions are
// callable from any thread; the wrapper holds no other state.
unsafe impl Send for Jvmti {}
// SAFETY: as above; every method only reads the immutable function table.
unsafe impl Sync for Jvmti {}

/// Reads the function pointer at `slot` of a JNI or JVMTI function table as type `F`.
///
/// # Safety
/// `table` must be a live function table and `F` the exact C signature of the function at `slot`.
unsafe fn function_at<F: Copy>(table: *const *const c_void, slot: usize) -> F {
    // SAFETY: guaranteed by the caller: the slot exists and holds a function of type F.
    unsafe { std::mem::transmute_copy::<*const c_void, F>(&*table.add(slot)) }
}

/// Calls the JVMTI function at `$slot` with the environment as first argument.
macro_rules! call {
    ($self:ident, $slot:expr, fn($($ty:ty),*), $($arg:expr),*) => {{
        // SAFETY: `env` is the live environment from GetEnv, and the slot constants and argument
        // types were transcribed from jvmti.h (see ffi.rs).
        unsafe {
            let f: unsafe extern "C" fn(*mut JvmtiEnv, $($ty),*) -> ffi::JvmtiError =
                function_at((*$self.env).functions, $slot);
            f($self.env, $($arg),*)
        }
    }};
}

impl Jvmti {
    /// Obtains the JVMTI environment of `vm`.
    ///
    /// # Safety
    /// `vm` must be the `JavaVM` pointer the JVM passed to `Agent_OnLoad`.
    pub unsafe fn from_vm(vm: *mut ffi::JavaVm) -> Option<Jvmti> {
        let mut env: *mut c_void = std::ptr::null_mut();
        // SAFETY: guaranteed by the caller; GetEnv writes one pointer.
        let code = unsafe { ((*(*vm).functions).get_env)(vm, &mut env, ffi::JVMTI_VERSION_11) };
        (code == ffi::JNI_OK && !env.is_null()).then_some(Jvmti { env: env.cast() })
    }

    pub fn add_capabilities(&self, capabilities: &ffi::Capabilities) -> Result<()> {
        check(call!(
            self,
            ffi::ADD_CAPABILITIES,
            fn(*const ffi::Capabilities),
            capabilities
        ))
    }

    pub fn set_event_callbacks(&self, callbacks: &ffi::EventCallbacks) -> Result<()> {
        let size = std::mem::size_of::<ffi::EventCallbacks>() as ffi::Jint;
        check(call!(
            self,
            ffi::SET_EVENT_CALLBACKS,
            fn(*const ffi::EventCallbacks, ffi::Jint),
            callbacks,
            size
        ))
    }

    /// Enables `event` for all threads.
    pub fn enable_event(&self, event: c_int) -> Result<()> {
        // SAFETY: SetEventNotificationMode is variadic in C; JVMTI reads no variadic argument.
        let code = unsafe {
            let f: unsafe extern "C" fn(*mut JvmtiEnv, c_int, c_int, Jthread, ...) -> c_int =
                function_at((*self.env).functions, ffi::SET_EVENT_NOTIFICATION_MODE);
            f(self.env, ffi::JVMTI_ENABLE, event, std::ptr::null_mut())
        };
        check(code)
    }

    pub fn set_heap_sampling_interval(&self, bytes: ffi::Jint) -> Result<()> {
        check(call!(
            self,
            ffi::SET_HEAP_SAMPLING_INTERVAL,
            fn(ffi::Jint),
            bytes
        ))
    }

    /// Releases memory the JVM allocated for a result.
    fn deallocate<T>(&self, memory: *mut T) {
        if !memory.is_null() {
            // The only failure is a bad pointer, which cannot be handled better than ignored.
            let _ = call!(self, ffi::DEALLOCATE, fn(*mut c_uchar), memory.cast());
        }
    }

    /// Copies a JVM-allocated C string and releases it.
    fn take_string(&self, chars: *mut c_char) -> String {
        if chars.is_null() {
            return String::new();
        }
        // SAFETY: JVMTI returns NUL-terminated (modified UTF-8) strings.
        let text = unsafe { CStr::from_ptr(chars) }
            .to_string_lossy()
            .into_owned();
        self.deallocate(chars);
        text
    }

    /// Copies a JVM-allocated array of `count` elements and releases it.
    fn take_array<T: Copy>(&self, items: *mut T, count: ffi::Jint) -> Vec<T> {
        if items.is_null() {
            return Vec::new();
        }
        let len = usize::try_from(count).unwrap_or(0);
        // SAFETY: JVMTI wrote `count` initialised elements at `items`.
        let copy = unsafe { std::slice::from_raw_parts(items, len) }.to_vec();
        self.deallocate(items);
        copy
    }

    /// Number of frames on `thread`'s stack (null: the current thread).
    pub fn frame_count(&self, thread: Jthread) -> Result<ffi::Jint> {
        let mut count = 0;
        check(call!(
            self,
            ffi::GET_FRAME_COUNT,
            fn(Jthread, *mut ffi::Jint),
            thread,
            &mut count
        ))?;
        Ok(count)
    }

    /// The whole stack of `thread`, innermost frame first.
    pub fn stack_trace(&self, thread: Jthread) -> Result<Vec<FrameInfo>> {
        let depth = self.frame_count(thread)?;
        let empty = FrameInfo {
            method: std::ptr::null_mut(),
            location: 0,
        };
        let mut frames = vec![empty; usize::try_from(depth).unwrap_or(0)];
        let mut count = 0;
        check(call!(
            self,
            ffi::GET_STACK_TRACE,
            fn(Jthread, ffi::Jint, ffi::Jint, *mut FrameInfo, *mut ffi::Jint),
            thread,
            0,
            depth,
            frames.as_mut_ptr(),
            &mut count
        ))?;
        frames.truncate(usize::try_from(count).unwrap_or(0));
        Ok(frames)
    }

    /// Asks for a FramePop event when the frame at `depth` of the current thread returns.
    pub fn notify_frame_pop(&self, depth: ffi::Jint) -> Result<()> {
        let current: Jthread = std::ptr::null_mut();
        check(call!(
            self,
            ffi::NOTIFY_FRAME_POP,
            fn(Jthread, ffi::Jint),
            current,
            depth
        ))
    }

    pub fn local_int(&self, depth: ffi::Jint, slot: ffi::Jint) -> Result<ffi::Jint> {
        let mut value = 0;
        let current: Jthread = std::ptr::null_mut();
        check(call!(
            self,
            ffi::GET_LOCAL_INT,
            fn(Jthread, ffi::Jint, ffi::Jint, *mut ffi::Jint),
            current,
            depth,
            slot,
            &mut value
        ))?;
        Ok(value)
    }

    pub fn local_long(&self, depth: ffi::Jint, slot: ffi::Jint) -> Result<ffi::Jlong> {
        let mut value = 0;
        let current: Jthread = std::ptr::null_mut();
        check(call!(
            self,
            ffi::GET_LOCAL_LONG,
            fn(Jthread, ffi::Jint, ffi::Jint, *mut ffi::Jlong),
            current,
            depth,
            slot,
            &mut value
        ))?;
        Ok(value)
    }

    /// A local reference to the object in a local variable (null for a null reference).
    pub fn local_object(&self, depth: ffi::Jint, slot: ffi::Jint) -> Result<Jobject> {
        let mut value: Jobject = std::ptr::null_mut();
        let current: Jthread = std::ptr::null_mut();
        check(call!(
            self,
            ffi::GET_LOCAL_OBJECT,
            fn(Jthread, ffi::Jint, ffi::Jint, *mut Jobject),
            current,
            depth,
            slot,
            &mut value
        ))?;
        Ok(value)
    }

    /// The number of local-variable slots of a method's frame.
    pub fn max_locals(&self, method: JmethodId) -> Result<ffi::Jint> {
        let mut max = 0;
        check(call!(
            self,
            ffi::GET_MAX_LOCALS,
            fn(JmethodId, *mut ffi::Jint),
            method,
            &mut max
        ))?;
        Ok(max)
    }

    pub fn set_breakpoint(&self, method: JmethodId, location: ffi::Jlocation) -> Result<()> {
        check(call!(
            self,
            ffi::SET_BREAKPOINT,
            fn(JmethodId, ffi::Jlocation),
            method,
            location
        ))
    }

    /// The JVM type signature of a class, e.g. `Ljava/lang/String;` or `[I`.
    pub fn class_signature(&self, class: Jclass) -> Result<String> {
        let mut signature: *mut c_char = std::ptr::null_mut();
        let no_generic: *mut *mut c_char = std::ptr::null_mut();
        check(call!(
            self,
            ffi::GET_CLASS_SIGNATURE,
            fn(Jclass, *mut *mut c_char, *mut *mut c_char),
            class,
            &mut signature,
            no_generic
        ))?;
        Ok(self.take_string(signature))
    }

    /// The `JVMTI_CLASS_STATUS_*` bits of a class.
    pub fn class_status(&self, class: Jclass) -> Result<ffi::Jint> {
        let mut status = 0;
        check(call!(
            self,
            ffi::GET_CLASS_STATUS,
            fn(Jclass, *mut ffi::Jint),
            class,
            &mut status
        ))?;
        Ok(status)
    }

    /// The fields a class declares (not the inherited ones).
    pub fn class_fields(&self, class: Jclass) -> Result<Vec<JfieldId>> {
        let mut count = 0;
        let mut fields: *mut JfieldId = std::ptr::null_mut();
        check(call!(
            self,
            ffi::GET_CLASS_FIELDS,
            fn(Jclass, *mut ffi::Jint, *mut *mut JfieldId),
            class,
            &mut count,
            &mut fields
        ))?;
        Ok(self.take_array(fields, count))
    }

    /// A field's name and descriptor, e.g. `("size", "I")`.
    pub fn field_name(&self, class: Jclass, field: JfieldId) -> Result<(String, String)> {
        let mut name: *mut c_char = std::ptr::null_mut();
        let mut descriptor: *mut c_char = std::ptr::null_mut();
        let no_generic: *mut *mut c_char = std::ptr::null_mut();
        check(call!(
            self,
            ffi::GET_FIELD_NAME,
            fn(Jclass, JfieldId, *mut *mut c_char, *mut *mut c_char, *mut *mut c_char),
            class,
            field,
            &mut name,
            &mut descriptor,
            no_generic
        ))?;
        Ok((self.take_string(name), self.take_string(descriptor)))
    }

    pub fn field_modifiers(&self, class: Jclass, field: JfieldId) -> Result<ffi::Jint> {
        let mut modifiers = 0;
        check(call!(
            self,
            ffi::GET_FIELD_MODIFIERS,
            fn(Jclass, JfieldId, *mut ffi::Jint),
            class,
            field,
            &mut modifiers
        ))?;
        Ok(modifiers)
    }

    pub fn class_methods(&self, class: Jclass) -> Result<Vec<JmethodId>> {
        let mut count = 0;
        let mut methods: *mut JmethodId = std::ptr::null_mut();
        check(call!(
            self,
            ffi::GET_CLASS_METHODS,
            fn(Jclass, *mut ffi::Jint, *mut *mut JmethodId),
            class,
            &mut count,
            &mut methods
        ))?;
        Ok(self.take_array(methods, count))
    }

    pub fn loaded_classes(&self) -> Result<Vec<Jclass>> {
        let mut count = 0;
        let mut classes: *mut Jclass = std::ptr::null_mut();
        check(call!(
            self,
            ffi::GET_LOADED_CLASSES,
            fn(*mut ffi::Jint, *mut *mut Jclass),
            &mut count,
            &mut classes
        ))?;
        Ok(self.take_array(classes, count))
    }

    /// The method's name and descriptor, e.g. `("m2", "(I)[LB;")`.
    pub fn method_name(&self, method: JmethodId) -> Result<(String, String)> {
        let mut name: *mut c_char = std::ptr::null_mut();
        let mut descriptor: *mut c_char = std::ptr::null_mut();
        let no_generic: *mut *mut c_char = std::ptr::null_mut();
        check(call!(
            self,
            ffi::GET_METHOD_NAME,
            fn(JmethodId, *mut *mut c_char, *mut *mut c_char, *mut *mut c_char),
            method,
            &mut name,
            &mut descriptor,
            no_generic
        ))?;
        Ok((self.take_string(name), self.take_string(descriptor)))
    }

    pub fn method_declaring_class(&self, method: JmethodId) -> Result<Jclass> {
        let mut class: Jclass = std::ptr::null_mut();
        check(call!(
            self,
            ffi::GET_METHOD_DECLARING_CLASS,
            fn(JmethodId, *mut Jclass),
            method,
            &mut class
        ))?;
        Ok(class)
    }

    pub fn method_modifiers(&self, method: JmethodId) -> Result<ffi::Jint> {
        let mut modifiers = 0;
        check(call!(
            self,
            ffi::GET_METHOD_MODIFIERS,
            fn(JmethodId, *mut ffi::Jint),
            method,
            &mut modifiers
        ))?;
        Ok(modifiers)
    }

    pub fn is_method_native(&self, method: JmethodId) -> Result<bool> {
        let mut native: ffi::Jboolean = 0;
        check(call!(
            self,
            ffi::IS_METHOD_NATIVE,
            fn(JmethodId, *mut ffi::Jboolean),
            method,
            &mut native
        ))?;
        Ok(native != 0)
    }

    /// `(start bytecode offset, source line)` pairs; empty when the class has no line table.
    pub fn line_number_table(&self, method: JmethodId) -> Result<Vec<(ffi::Jlocation, i32)>> {
        let mut count = 0;
        let mut table: *mut ffi::LineNumberEntry = std::ptr::null_mut();
        let code = call!(
            self,
            ffi::GET_LINE_NUMBER_TABLE,
            fn(JmethodId, *mut ffi::Jint, *mut *mut ffi::LineNumberEntry),
            method,
            &mut count,
            &mut table
        );
        if code == ffi::JVMTI_ERROR_ABSENT_INFORMATION {
            return Ok(Vec::new());
        }
        check(code)?;
        let entries = self.take_array(table, count);
        Ok(entries
            .iter()
            .map(|e| (e.start_location, e.line_number))
            .collect())
    }

    /// `(slot, name)` of the local variables live at bytecode 0 (the parameters); empty when
    /// the class was compiled without `-g`.
    pub fn parameter_names(&self, method: JmethodId) -> Result<Vec<(ffi::Jint, String)>> {
        let mut count = 0;
        let mut table: *mut ffi::LocalVariableEntry = std::ptr::null_mut();
        let code = call!(
            self,
            ffi::GET_LOCAL_VARIABLE_TABLE,
            fn(JmethodId, *mut ffi::Jint, *mut *mut ffi::LocalVariableEntry),
            method,
            &mut count,
            &mut table
        );
        if code == ffi::JVMTI_ERROR_ABSENT_INFORMATION {
            return Ok(Vec::new());
        }
        check(code)?;
        let len = usize::try_from(count).unwrap_or(0);
        let mut names = Vec::new();
        for index in 0..len {
            // SAFETY: JVMTI wrote `count` entries at `table`; each owns three strings.
            let entry = unsafe { &*table.add(index) };
            let name = self.take_string(entry.name);
            self.deallocate(entry.signature);
            self.deallocate(entry.generic_signature);
            if entry.start_location == 0 {
                names.push((entry.slot, name));
            }
        }
        self.deallocate(table);
        Ok(names)
    }

    pub fn bytecodes(&self, method: JmethodId) -> Result<Vec<u8>> {
        let mut count = 0;
        let mut code: *mut c_uchar = std::ptr::null_mut();
        check(call!(
            self,
            ffi::GET_BYTECODES,
            fn(JmethodId, *mut ffi::Jint, *mut *mut c_uchar),
            method,
            &mut count,
            &mut code
        ))?;
        Ok(self.take_array(code, count))
    }

    /// The class's constant pool in class-file layout, and its `constant_pool_count`.
    pub fn constant_pool(&self, class: Jclass) -> Result<(u16, Vec<u8>)> {
        let mut count = 0;
        let mut byte_count = 0;
        let mut bytes: *mut c_uchar = std::ptr::null_mut();
        check(call!(
            self,
            ffi::GET_CONSTANT_POOL,
            fn(Jclass, *mut ffi::Jint, *mut ffi::Jint, *mut *mut c_uchar),
            class,
            &mut count,
            &mut byte_count,
            &mut bytes
        ))?;
        Ok((
            u16::try_from(count).unwrap_or(0),
            self.take_array(bytes, byte_count),
        ))
    }
}

/// One reference a heap walk reports (see `Jvmti::follow_references`), copied out of the
/// callback's arguments.
#[derive(Debug, Clone, Copy)]
pub struct HeapReference {
    /// A `jvmtiHeapReferenceKind`.
    pub kind: ffi::Jint,
    /// The field, array or constant-pool index (for those kinds).
    pub index: ffi::Jint,
    /// The method of the frame holding a stack or JNI local (for those kinds).
    pub method: JmethodId,
    /// The tag of the referee's class.
    pub class_tag: ffi::Jlong,
    /// The tag of the referrer's class (0 for roots).
    pub referrer_class_tag: ffi::Jlong,
    /// The referee's size in bytes.
    pub size: ffi::Jlong,
    /// The referee's tag.
    pub tag: ffi::Jlong,
    /// The referrer's tag; None for a root.
    pub referrer_tag: Option<ffi::Jlong>,
    /// An array referee's length, -1 otherwise.
    pub length: ffi::Jint,
    /// For a stack local: the tag of its thread's object, its frame's depth (0 the top frame)
    /// and its slot (past the method's locals, the operand stack's); zeros otherwise.
    pub stack: StackSlot,
}

/// Where a stack-local root sits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StackSlot {
    pub thread_tag: ffi::Jlong,
    pub depth: ffi::Jint,
    pub slot: ffi::Jint,
}

/// What a walk's visitor says of a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visit {
    /// Follow the referee's references.
    Follow,
    /// Tag the referee so, and follow its references.
    Retag(ffi::Jlong),
    /// Do not follow this reference (the referee may still be reached by another).
    Skip,
}

/// The visitor a walk calls for each reference.
type HeapVisitor<'a> = dyn FnMut(&HeapReference) -> Visit + 'a;

/// The heap-reference callback: copies the arguments, calls the visitor passed as user data,
/// writes back the tag it returns, and follows the referee's references unless it says to skip
/// them. A panicking visitor aborts the walk instead of unwinding into the JVM.
unsafe extern "C" fn on_heap_reference(
    kind: ffi::Jint,
    info: *const ffi::HeapReferenceInfo,
    class_tag: ffi::Jlong,
    referrer_class_tag: ffi::Jlong,
    size: ffi::Jlong,
    tag_ptr: *mut ffi::Jlong,
    referrer_tag_ptr: *mut ffi::Jlong,
    length: ffi::Jint,
    user_data: *mut c_void,
) -> ffi::Jint {
    // SAFETY: JVMTI passes a valid info pointer for every kind (null is checked anyway), a
    // valid tag pointer, the referrer's tag pointer or null for roots, and our user data: a
    // `&mut &mut HeapVisitor` that outlives the walk (see `follow_references`).
    unsafe {
        let (index, method) = info
            .as_ref()
            .map_or((0, std::ptr::null_mut()), |i| (i.index, i.method));
        // Only a stack local's info holds these members (the rest of the union is not set).
        let stack = match info.as_ref() {
            Some(i) if kind == ffi::REFERENCE_STACK_LOCAL => StackSlot {
                thread_tag: i.thread_tag(),
                depth: i.depth,
                slot: i.slot,
            },
            _ => StackSlot::default(),
        };
        let reference = HeapReference {
            kind,
            index,
            method,
            class_tag,
            referrer_class_tag,
            size,
            tag: *tag_ptr,
            referrer_tag: referrer_tag_ptr.as_ref().copied(),
            length,
            stack,
        };
        let visitor = &mut *user_data.cast::<&mut HeapVisitor>();
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| visitor(&reference))) {
            Ok(Visit::Retag(new_tag)) => {
                *tag_ptr = new_tag;
                ffi::VISIT_OBJECTS
            }
            Ok(Visit::Follow) => ffi::VISIT_OBJECTS,
            Ok(Visit::Skip) => 0,
            Err(_) => ffi::VISIT_ABORT,
        }
    }
}

impl Jvmti {
    /// Walks every object reachable from the heap roots (`FollowReferences` with no filter),
    /// calling `visitor` for each root and reference. The visitor runs at a safepoint, inside
    /// the JVM's callback: it must not call JVMTI or JNI.
    pub fn follow_references(
        &self,
        visitor: &mut dyn FnMut(&HeapReference) -> Visit,
    ) -> Result<()> {
        let callbacks = ffi::HeapCallbacks::references(on_heap_reference);
        let mut visitor: &mut HeapVisitor = visitor;
        let user_data: *mut c_void = (&mut visitor as *mut &mut HeapVisitor).cast();
        let no_class: Jclass = std::ptr::null_mut();
        let no_object: Jobject = std::ptr::null_mut();
        check(call!(
            self,
            ffi::FOLLOW_REFERENCES,
            fn(ffi::Jint, Jclass, Jobject, *const ffi::HeapCallbacks, *mut c_void),
            0,
            no_class,
            no_object,
            &callbacks,
            user_data
        ))
    }

    pub fn set_tag(&self, object: Jobject, tag: ffi::Jlong) -> Result<()> {
        check(call!(
            self,
            ffi::SET_TAG,
            fn(Jobject, ffi::Jlong),
            object,
            tag
        ))
    }

    pub fn tag(&self, object: Jobject) -> Result<ffi::Jlong> {
        let mut tag = 0;
        check(call!(
            self,
            ffi::GET_TAG,
            fn(Jobject, *mut ffi::Jlong),
            object,
            &mut tag
        ))?;
        Ok(tag)
    }

    /// The access flags of a class (`ACC_INTERFACE` and the like).
    pub fn class_modifiers(&self, class: Jclass) -> Result<ffi::Jint> {
        let mut modifiers = 0;
        check(call!(
            self,
            ffi::GET_CLASS_MODIFIERS,
            fn(Jclass, *mut ffi::Jint),
            class,
            &mut modifiers
        ))?;
        Ok(modifiers)
    }

    /// The top frame of the current thread; None when it has no Java frame.
    pub fn top_frame(&self) -> Result<Option<FrameInfo>> {
        let mut frame = FrameInfo {
            method: std::ptr::null_mut(),
            location: 0,
        };
        let mut count = 0;
        let current: Jthread = std::ptr::null_mut();
        check(call!(
            self,
            ffi::GET_STACK_TRACE,
            fn(Jthread, ffi::Jint, ffi::Jint, *mut FrameInfo, *mut ffi::Jint),
            current,
            0,
            1,
            &mut frame,
            &mut count
        ))?;
        Ok((count == 1).then_some(frame))
    }

    /// The interfaces a class or interface declares it implements or extends (local
    /// references).
    pub fn implemented_interfaces(&self, class: Jclass) -> Result<Vec<Jclass>> {
        let mut count = 0;
        let mut interfaces: *mut Jclass = std::ptr::null_mut();
        check(call!(
            self,
            ffi::GET_IMPLEMENTED_INTERFACES,
            fn(Jclass, *mut ffi::Jint, *mut *mut Jclass),
            class,
            &mut count,
            &mut interfaces
        ))?;
        Ok(self.take_array(interfaces, count))
    }
}

/// The JavaVM, kept to attach the agent's own threads to it.
#[derive(Clone, Copy)]
pub struct Vm {
    vm: *mut ffi::JavaVm,
}

// SAFETY: a JavaVM pointer is valid for the life of the process and its invocation functions
// are callable from any thread (JNI specification, "Invocation API").
unsafe impl Send for Vm {}
// SAFETY: as above; the wrapper holds no other state.
unsafe impl Sync for Vm {}

impl Vm {
    /// Keeps the pointer `Agent_OnLoad` received.
    pub fn new(vm: *mut ffi::JavaVm) -> Vm {
        Vm { vm }
    }

    /// Attaches the current (native) thread as a daemon and returns its JNI environment.
    pub fn attach_daemon(&self) -> Option<Jni> {
        let mut env: *mut c_void = std::ptr::null_mut();
        // SAFETY: the pointer came from Agent_OnLoad; null arguments take the defaults.
        let code = unsafe {
            ((*(*self.vm).functions).attach_current_thread_as_daemon)(
                self.vm,
                &mut env,
                std::ptr::null_mut(),
            )
        };
        (code == ffi::JNI_OK)
            .then(|| Jni::new(env.cast()))
            .flatten()
    }

    /// Detaches the current thread, attached by `attach_daemon`.
    pub fn detach(&self) {
        // SAFETY: the pointer came from Agent_OnLoad; detaching an attached thread that holds
        // no Java frame is always allowed.
        unsafe {
            ((*(*self.vm).functions).detach_current_thread)(self.vm);
        }
    }
}

/// The JNI environment of the current thread, as handed to an event callback.
#[derive(Clone, Copy)]
pub struct Jni {
    env: *mut JniEnv,
}

/// Calls the JNI function at `$slot` with the environment as first argument.
macro_rules! jni {
    ($self:ident, $slot:expr, fn($($ty:ty),*) $(-> $ret:ty)?, $($arg:expr),*) => {{
        // SAFETY: `env` is the current thread's live JNI environment, and the slot constants and
        // argument types were transcribed from jni.h (see ffi.rs); the callers guarantee what
        // each function requires of its arguments.
        unsafe {
            let f: unsafe extern "C" fn(*mut JniEnv, $($ty),*) $(-> $ret)? =
                function_at((*$self.env).functions, $slot);
            f($self.env, $($arg),*)
        }
    }};
}

impl Jni {
    /// Wraps the JNI environment an event callback received (None when the JVM passed null).
    pub fn new(env: *mut JniEnv) -> Option<Jni> {
        (!env.is_null()).then_some(Jni { env })
    }

    /// `GetArrayLength` of an array reference.
    ///
    /// # Safety
    /// `array` must be a live reference to a Java array.
    pub unsafe fn array_length(&self, array: Jobject) -> ffi::Jint {
        jni!(
            self,
            ffi::JNI_GET_ARRAY_LENGTH,
            fn(Jobject) -> ffi::Jint,
            array
        )
    }

    /// `GetObjectArrayElement`: element `index` of an array of references, a local reference.
    ///
    /// # Safety
    /// `array` must be a live reference to a Java array of references and `index` within it.
    pub unsafe fn object_array_element(&self, array: Jobject, index: ffi::Jint) -> Jobject {
        jni!(
            self,
            ffi::JNI_GET_OBJECT_ARRAY_ELEMENT,
            fn(Jobject, ffi::Jint) -> Jobject,
            array,
            index
        )
    }

    /// `GetStringLength`: the number of UTF-16 units, which is `String.length()`.
    ///
    /// # Safety
    /// `string` must be a live reference to a `java.lang.String`.
    pub unsafe fn string_length(&self, string: Jobject) -> ffi::Jint {
        jni!(
            self,
            ffi::JNI_GET_STRING_LENGTH,
            fn(Jobject) -> ffi::Jint,
            string
        )
    }

    /// Frees a local reference early, so long callbacks do not pile them up.
    pub fn delete_local_ref(&self, object: Jobject) {
        if object.is_null() {
            return;
        }
        // Deleting a local reference we were given is always allowed.
        jni!(self, ffi::JNI_DELETE_LOCAL_REF, fn(Jobject), object)
    }

    /// A global reference to `object` (null if the JVM is out of memory); it is never freed, so
    /// the class it may name stays loaded.
    pub fn new_global_ref(&self, object: Jobject) -> Jobject {
        // A live local reference from a callback is a valid argument.
        jni!(
            self,
            ffi::JNI_NEW_GLOBAL_REF,
            fn(Jobject) -> Jobject,
            object
        )
    }

    /// A second local reference to `object` (null for null).
    pub fn new_local_ref(&self, object: Jobject) -> Jobject {
        jni!(self, ffi::JNI_NEW_LOCAL_REF, fn(Jobject) -> Jobject, object)
    }

    /// Whether two references (either may be null) name the same object.
    pub fn is_same_object(&self, one: Jobject, other: Jobject) -> bool {
        jni!(
            self,
            ffi::JNI_IS_SAME_OBJECT,
            fn(Jobject, Jobject) -> ffi::Jboolean,
            one,
            other
        ) != 0
    }

    /// The class of a non-null object, a local reference.
    pub fn object_class(&self, object: Jobject) -> Jclass {
        jni!(
            self,
            ffi::JNI_GET_OBJECT_CLASS,
            fn(Jobject) -> Jclass,
            object
        )
    }

    /// The value of the reference instance field `field` of `object`, a local reference.
    ///
    /// # Safety
    /// `field` must be a reference field of `object`'s class or of one of its superclasses.
    pub unsafe fn object_field(&self, object: Jobject, field: JfieldId) -> Jobject {
        jni!(
            self,
            ffi::JNI_GET_OBJECT_FIELD,
            fn(Jobject, JfieldId) -> Jobject,
            object,
            field
        )
    }

    /// The superclass of a class (null for `java.lang.Object` and interfaces), a local reference.
    pub fn superclass(&self, class: Jclass) -> Jclass {
        jni!(self, ffi::JNI_GET_SUPERCLASS, fn(Jclass) -> Jclass, class)
    }

    /// `FindClass` of a class the boot loader has already loaded and initialized (only such
    /// classes are asked for: the lookup must not run any Java code of the program). Null and
    /// no pending exception when it is missing.
    pub fn find_loaded_class(&self, name: &CStr) -> Jclass {
        let class = jni!(
            self,
            ffi::JNI_FIND_CLASS,
            fn(*const c_char) -> Jclass,
            name.as_ptr()
        );
        self.clear_exception();
        class
    }

    /// The id of the instance method `name` with descriptor `descriptor` (null, with no
    /// pending exception, when there is none).
    pub fn method_id(&self, class: Jclass, name: &CStr, descriptor: &CStr) -> JmethodId {
        let id = jni!(
            self,
            ffi::JNI_GET_METHOD_ID,
            fn(Jclass, *const c_char, *const c_char) -> JmethodId,
            class,
            name.as_ptr(),
            descriptor.as_ptr()
        );
        self.clear_exception();
        id
    }

    /// Whether `object` (non-null) is an instance of `class`.
    pub fn is_instance_of(&self, object: Jobject, class: Jclass) -> bool {
        let is = jni!(
            self,
            ffi::JNI_IS_INSTANCE_OF,
            fn(Jobject, Jclass) -> ffi::Jboolean,
            object,
            class
        );
        is != 0
    }

    /// Calls the `()I` instance method `method` on `object`; None (and the exception cleared)
    /// when it threw.
    ///
    /// # Safety
    /// `method` must be a `()I` method of a class or interface `object` is an instance of.
    pub unsafe fn call_int_method(&self, object: Jobject, method: JmethodId) -> Option<ffi::Jint> {
        // One unused argument slot: the method takes none, and the array must still be valid.
        let no_arguments = [0u64; 1];
        let value = jni!(
            self,
            ffi::JNI_CALL_INT_METHOD_A,
            fn(Jobject, JmethodId, *const u64) -> ffi::Jint,
            object,
            method,
            no_arguments.as_ptr()
        );
        (!self.clear_exception()).then_some(value)
    }

    /// Clears a pending exception; whether there was one.
    fn clear_exception(&self) -> bool {
        let pending = jni!(self, ffi::JNI_EXCEPTION_CHECK, fn() -> ffi::Jboolean,) != 0;
        if pending {
            jni!(self, ffi::JNI_EXCEPTION_CLEAR, fn(),);
        }
        pending
    }

    /// The value of the integer instance field `field` of `object`.
    ///
    /// # Safety
    /// `field` must be a field of type `ty` of `object`'s class or of one of its superclasses.
    pub unsafe fn field_value(&self, object: Jobject, field: JfieldId, ty: IntegerType) -> i64 {
        match ty {
            IntegerType::Boolean => i64::from(jni!(
                self,
                ffi::JNI_GET_BOOLEAN_FIELD,
                fn(Jobject, JfieldId) -> u8,
                object,
                field
            )),
            IntegerType::Byte => i64::from(jni!(
                self,
                ffi::JNI_GET_BYTE_FIELD,
                fn(Jobject, JfieldId) -> i8,
                object,
                field
            )),
            IntegerType::Char => i64::from(jni!(
                self,
                ffi::JNI_GET_CHAR_FIELD,
                fn(Jobject, JfieldId) -> u16,
                object,
                field
            )),
            IntegerType::Short => i64::from(jni!(
                self,
                ffi::JNI_GET_SHORT_FIELD,
                fn(Jobject, JfieldId) -> i16,
                object,
                field
            )),
            IntegerType::Int => i64::from(jni!(
                self,
                ffi::JNI_GET_INT_FIELD,
                fn(Jobject, JfieldId) -> i32,
                object,
                field
            )),
            IntegerType::Long => jni!(
                self,
                ffi::JNI_GET_LONG_FIELD,
                fn(Jobject, JfieldId) -> i64,
                object,
                field
            ),
        }
    }

    /// The value of the integer static field `field` of `class`.
    ///
    /// # Safety
    /// `field` must be a static field of type `ty` declared by `class`.
    pub unsafe fn static_field_value(
        &self,
        class: Jclass,
        field: JfieldId,
        ty: IntegerType,
    ) -> i64 {
        match ty {
            IntegerType::Boolean => i64::from(jni!(
                self,
                ffi::JNI_GET_STATIC_BOOLEAN_FIELD,
                fn(Jclass, JfieldId) -> u8,
                class,
                field
            )),
            IntegerType::Byte => i64::from(jni!(
                self,
                ffi::JNI_GET_STATIC_BYTE_FIELD,
                fn(Jclass, JfieldId) -> i8,
                class,
                field
            )),
            IntegerType::Char => i64::from(jni!(
                self,
                ffi::JNI_GET_STATIC_CHAR_FIELD,
                fn(Jclass, JfieldId) -> u16,
                class,
                field
            )),
            IntegerType::Short => i64::from(jni!(
                self,
                ffi::JNI_GET_STATIC_SHORT_FIELD,
                fn(Jclass, JfieldId) -> i16,
                class,
                field
            )),
            IntegerType::Int => i64::from(jni!(
                self,
                ffi::JNI_GET_STATIC_INT_FIELD,
                fn(Jclass, JfieldId) -> i32,
                class,
                field
            )),
            IntegerType::Long => jni!(
                self,
                ffi::JNI_GET_STATIC_LONG_FIELD,
                fn(Jclass, JfieldId) -> i64,
                class,
                field
            ),
        }
    }
}

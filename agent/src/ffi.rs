//! Raw JNI and JVMTI declarations, written by hand from the JDK's `jni.h` and `jvmti.h`.
//!
//! Only what the agent calls is declared. The JVMTI function table is read by slot: in
//! `jvmtiInterface_1` the function numbered `N` by the JVMTI specification sits at slot `N - 1`
//! (slot 0 is `reserved1`), so the slot constants below are the specification's function numbers
//! minus one. They were checked against the header with `offsetof` in a C program; the event
//! callback slots and capability bits likewise (event `E` sits at slot `E - 50`).

use std::ffi::{c_char, c_int, c_void};

pub type Jint = i32;
pub type Jlong = i64;
pub type Jboolean = u8;
/// A byte offset in a method's bytecode (`jlocation`); -1 for native methods.
pub type Jlocation = i64;
pub type Jobject = *mut c_void;
pub type Jclass = Jobject;
pub type Jthread = Jobject;
pub type JmethodId = *mut c_void;
pub type JfieldId = *mut c_void;
pub type JvmtiError = c_int;

pub const JNI_OK: Jint = 0;
pub const JNI_ERR: Jint = -1;
pub const JVMTI_VERSION_11: Jint = 0x300B_0000;

pub const JVMTI_ERROR_NONE: JvmtiError = 0;
pub const JVMTI_ERROR_CLASS_NOT_PREPARED: JvmtiError = 22;
pub const JVMTI_ERROR_ABSENT_INFORMATION: JvmtiError = 101;
pub const JVMTI_ERROR_OUT_OF_MEMORY: JvmtiError = 110;
pub const JVMTI_ERROR_WRONG_PHASE: JvmtiError = 112;
pub const JVMTI_ENABLE: c_int = 1;

pub const EVENT_VM_INIT: c_int = 50;
pub const EVENT_VM_DEATH: c_int = 51;
pub const EVENT_CLASS_PREPARE: c_int = 56;
pub const EVENT_FRAME_POP: c_int = 61;
pub const EVENT_BREAKPOINT: c_int = 62;
pub const EVENT_GARBAGE_COLLECTION_FINISH: c_int = 82;
pub const EVENT_SAMPLED_OBJECT_ALLOC: c_int = 86;

pub const ACC_STATIC: Jint = 0x0008;
pub const ACC_INTERFACE: Jint = 0x0200;
/// The `JVMTI_CLASS_STATUS_INITIALIZED` bit of `GetClassStatus`.
pub const CLASS_STATUS_INITIALIZED: Jint = 4;

/// The VM, as handed to `Agent_OnLoad`: a pointer to the invocation function table.
#[repr(C)]
pub struct JavaVm {
    pub functions: *const JniInvokeInterface,
}

/// `JNIInvokeInterface_`: three reserved slots, then the invocation functions.
#[repr(C)]
pub struct JniInvokeInterface {
    _reserved: [*const c_void; 3],
    _destroy_java_vm: *const c_void,
    _attach_current_thread: *const c_void,
    pub detach_current_thread: unsafe extern "C" fn(*mut JavaVm) -> Jint,
    pub get_env: unsafe extern "C" fn(*mut JavaVm, *mut *mut c_void, Jint) -> Jint,
    pub attach_current_thread_as_daemon:
        unsafe extern "C" fn(*mut JavaVm, *mut *mut c_void, *mut c_void) -> Jint,
}

/// A JNI environment: a pointer to the JNI function table, read by slot like JVMTI's.
#[repr(C)]
pub struct JniEnv {
    pub functions: *const *const c_void,
}

pub const JNI_FIND_CLASS: usize = 6;
pub const JNI_GET_SUPERCLASS: usize = 10;
pub const JNI_EXCEPTION_CLEAR: usize = 17;
pub const JNI_NEW_GLOBAL_REF: usize = 21;
pub const JNI_DELETE_LOCAL_REF: usize = 23;
pub const JNI_IS_SAME_OBJECT: usize = 24;
pub const JNI_NEW_LOCAL_REF: usize = 25;
pub const JNI_GET_OBJECT_CLASS: usize = 31;
pub const JNI_IS_INSTANCE_OF: usize = 32;
pub const JNI_GET_METHOD_ID: usize = 33;
pub const JNI_CALL_INT_METHOD_A: usize = 51;
pub const JNI_GET_OBJECT_FIELD: usize = 95;
pub const JNI_GET_BOOLEAN_FIELD: usize = 96;
pub const JNI_GET_BYTE_FIELD: usize = 97;
pub const JNI_GET_CHAR_FIELD: usize = 98;
pub const JNI_GET_SHORT_FIELD: usize = 99;
pub const JNI_GET_INT_FIELD: usize = 100;
pub const JNI_GET_LONG_FIELD: usize = 101;
pub const JNI_GET_STATIC_BOOLEAN_FIELD: usize = 146;
pub const JNI_GET_STATIC_BYTE_FIELD: usize = 147;
pub const JNI_GET_STATIC_CHAR_FIELD: usize = 148;
pub const JNI_GET_STATIC_SHORT_FIELD: usize = 149;
pub const JNI_GET_STATIC_INT_FIELD: usize = 150;
pub const JNI_GET_STATIC_LONG_FIELD: usize = 151;
pub const JNI_GET_STRING_LENGTH: usize = 164;
pub const JNI_GET_ARRAY_LENGTH: usize = 171;
pub const JNI_GET_OBJECT_ARRAY_ELEMENT: usize = 173;
pub const JNI_EXCEPTION_CHECK: usize = 228;

/// A JVMTI environment: a pointer to `jvmtiInterface_1`, read by slot.
#[repr(C)]
pub struct JvmtiEnv {
    pub functions: *const *const c_void,
}

pub const SET_EVENT_NOTIFICATION_MODE: usize = 1;
pub const GET_FRAME_COUNT: usize = 15;
pub const NOTIFY_FRAME_POP: usize = 19;
pub const GET_LOCAL_OBJECT: usize = 20;
pub const GET_LOCAL_INT: usize = 21;
pub const GET_LOCAL_LONG: usize = 22;
pub const SET_BREAKPOINT: usize = 37;
pub const DEALLOCATE: usize = 46;
pub const GET_CLASS_SIGNATURE: usize = 47;
pub const GET_CLASS_STATUS: usize = 48;
pub const GET_CLASS_MODIFIERS: usize = 50;
pub const GET_CLASS_METHODS: usize = 51;
pub const GET_CLASS_FIELDS: usize = 52;
pub const GET_IMPLEMENTED_INTERFACES: usize = 53;
pub const GET_FIELD_NAME: usize = 59;
pub const GET_FIELD_MODIFIERS: usize = 61;
pub const GET_METHOD_NAME: usize = 63;
pub const GET_METHOD_DECLARING_CLASS: usize = 64;
pub const GET_METHOD_MODIFIERS: usize = 65;
pub const GET_MAX_LOCALS: usize = 67;
pub const GET_LINE_NUMBER_TABLE: usize = 69;
pub const GET_LOCAL_VARIABLE_TABLE: usize = 71;
pub const GET_BYTECODES: usize = 74;
pub const IS_METHOD_NATIVE: usize = 75;
pub const GET_LOADED_CLASSES: usize = 77;
pub const GET_STACK_TRACE: usize = 103;
pub const GET_TAG: usize = 105;
pub const SET_TAG: usize = 106;
pub const FOLLOW_REFERENCES: usize = 114;
pub const SET_EVENT_CALLBACKS: usize = 121;
pub const ADD_CAPABILITIES: usize = 141;
pub const GET_CONSTANT_POOL: usize = 145;
pub const SET_HEAP_SAMPLING_INTERVAL: usize = 155;

/// `jvmtiCapabilities`: 128 one-bit fields in declaration order, low bit of the first word first.
#[repr(C)]
#[derive(Default)]
pub struct Capabilities {
    pub words: [u32; 4],
}

/// Bit positions of the capabilities the agent needs (declaration index in `jvmti.h`).
pub const CAN_TAG_OBJECTS: usize = 0;
pub const CAN_GET_BYTECODES: usize = 3;
pub const CAN_GET_LINE_NUMBERS: usize = 12;
pub const CAN_ACCESS_LOCAL_VARIABLES: usize = 14;
pub const CAN_GENERATE_FRAME_POP_EVENTS: usize = 18;
pub const CAN_GENERATE_BREAKPOINT_EVENTS: usize = 19;
pub const CAN_GENERATE_GARBAGE_COLLECTION_EVENTS: usize = 31;
pub const CAN_GET_CONSTANT_POOL: usize = 35;
pub const CAN_GENERATE_SAMPLED_OBJECT_ALLOC_EVENTS: usize = 43;

impl Capabilities {
    pub fn with(mut self, bit: usize) -> Self {
        self.words[bit / 32] |= 1 << (bit % 32);
        self
    }
}

/// `jvmtiFrameInfo`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct FrameInfo {
    pub method: JmethodId,
    pub location: Jlocation,
}

/// `jvmtiLineNumberEntry`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct LineNumberEntry {
    pub start_location: Jlocation,
    pub line_number: Jint,
}

/// `jvmtiLocalVariableEntry`.
#[repr(C)]
pub struct LocalVariableEntry {
    pub start_location: Jlocation,
    pub length: Jint,
    pub name: *mut c_char,
    pub signature: *mut c_char,
    pub generic_signature: *mut c_char,
    pub slot: Jint,
}

pub type VmInitFn = unsafe extern "C" fn(*mut JvmtiEnv, *mut JniEnv, Jthread);
pub type VmDeathFn = unsafe extern "C" fn(*mut JvmtiEnv, *mut JniEnv);
pub type ClassPrepareFn = unsafe extern "C" fn(*mut JvmtiEnv, *mut JniEnv, Jthread, Jclass);
pub type FramePopFn =
    unsafe extern "C" fn(*mut JvmtiEnv, *mut JniEnv, Jthread, JmethodId, Jboolean);
pub type BreakpointFn =
    unsafe extern "C" fn(*mut JvmtiEnv, *mut JniEnv, Jthread, JmethodId, Jlocation);
pub type SampledObjectAllocFn =
    unsafe extern "C" fn(*mut JvmtiEnv, *mut JniEnv, Jthread, Jobject, Jclass, Jlong);
pub type GarbageCollectionFinishFn = unsafe extern "C" fn(*mut JvmtiEnv);

/// `jvmtiEventCallbacks`: one optional function pointer per event, event `E` at slot `E - 50`.
#[repr(C)]
pub struct EventCallbacks {
    pub vm_init: Option<VmInitFn>,
    pub vm_death: Option<VmDeathFn>,
    _thread_start_to_class_load: [*const c_void; 4],
    pub class_prepare: Option<ClassPrepareFn>,
    _vm_start_to_single_step: [*const c_void; 4],
    pub frame_pop: Option<FramePopFn>,
    pub breakpoint: Option<BreakpointFn>,
    _field_access_to_garbage_collection_start: [*const c_void; 19],
    pub garbage_collection_finish: Option<GarbageCollectionFinishFn>,
    _object_free_to_reserved85: [*const c_void; 3],
    pub sampled_object_alloc: Option<SampledObjectAllocFn>,
}

impl Default for EventCallbacks {
    fn default() -> Self {
        EventCallbacks {
            vm_init: None,
            vm_death: None,
            _thread_start_to_class_load: [std::ptr::null(); 4],
            class_prepare: None,
            _vm_start_to_single_step: [std::ptr::null(); 4],
            frame_pop: None,
            breakpoint: None,
            _field_access_to_garbage_collection_start: [std::ptr::null(); 19],
            garbage_collection_finish: None,
            _object_free_to_reserved85: [std::ptr::null(); 3],
            sampled_object_alloc: None,
        }
    }
}

// The layouts must match the C header exactly; the sizes were read from `sizeof` in C.
const _: () = assert!(std::mem::size_of::<Capabilities>() == 16);
const _: () = assert!(std::mem::size_of::<EventCallbacks>() == 296);
const _: () = assert!(std::mem::offset_of!(EventCallbacks, class_prepare) == 6 * 8);
const _: () = assert!(std::mem::offset_of!(EventCallbacks, frame_pop) == 11 * 8);
const _: () = assert!(std::mem::offset_of!(EventCallbacks, garbage_collection_finish) == 32 * 8);
const _: () = assert!(std::mem::offset_of!(EventCallbacks, sampled_object_alloc) == 36 * 8);
const _: () = assert!(std::mem::size_of::<FrameInfo>() == 16);
const _: () = assert!(std::mem::size_of::<LineNumberEntry>() == 16);
const _: () = assert!(std::mem::size_of::<LocalVariableEntry>() == 48);
const _: () = assert!(std::mem::size_of::<HeapCallbacks>() == 128);
const _: () = assert!(std::mem::size_of::<HeapReferenceInfo>() == 64);
const _: () = assert!(std::mem::offset_of!(HeapReferenceInfo, method) == 24);
const _: () = assert!(std::mem::offset_of!(HeapReferenceInfo, depth) == 16);
const _: () = assert!(std::mem::offset_of!(HeapReferenceInfo, slot) == 40);

/// `jvmtiHeapReferenceKind` values the agent tells apart.
pub const REFERENCE_FIELD: Jint = 2;
pub const REFERENCE_ARRAY_ELEMENT: Jint = 3;
pub const REFERENCE_STATIC_FIELD: Jint = 8;
pub const REFERENCE_JNI_GLOBAL: Jint = 21;
pub const REFERENCE_MONITOR: Jint = 23;
pub const REFERENCE_STACK_LOCAL: Jint = 24;
pub const REFERENCE_JNI_LOCAL: Jint = 25;
pub const REFERENCE_THREAD: Jint = 26;

/// `JVMTI_VISIT_OBJECTS`: follow the references of the object just reported.
pub const VISIT_OBJECTS: Jint = 0x100;
/// `JVMTI_VISIT_ABORT`: stop the walk.
pub const VISIT_ABORT: Jint = 0x8000;

/// `jvmtiHeapReferenceInfo`, read through the members the agent uses: the first `jint` is
/// the field, array or constant-pool index; a stack local's or JNI local's thread tag is the
/// first `jlong`, its depth at byte 16, its method at byte 24 and (a stack local's) slot at
/// byte 40.
#[repr(C)]
pub struct HeapReferenceInfo {
    pub index: Jint,
    _rest_of_first_word: Jint,
    _thread_id: Jlong,
    pub depth: Jint,
    _padding: Jint,
    pub method: JmethodId,
    _location: Jlong,
    pub slot: Jint,
    _reserved: [Jint; 5],
}

impl HeapReferenceInfo {
    /// The `thread_tag` of a stack or JNI local: the first `jlong`, which `index` overlaps.
    pub fn thread_tag(&self) -> Jlong {
        // SAFETY: the struct is `repr(C)`, 8-aligned, and starts with eight bytes of integers.
        unsafe { std::ptr::read((self as *const HeapReferenceInfo).cast::<Jlong>()) }
    }
}

pub type HeapReferenceCallback = unsafe extern "C" fn(
    Jint,
    *const HeapReferenceInfo,
    Jlong,
    Jlong,
    Jlong,
    *mut Jlong,
    *mut Jlong,
    Jint,
    *mut c_void,
) -> Jint;

/// `jvmtiHeapCallbacks`: only the reference callback is used.
#[repr(C)]
pub struct HeapCallbacks {
    _heap_iteration: *const c_void,
    pub heap_reference: Option<HeapReferenceCallback>,
    _primitive_and_reserved: [*const c_void; 14],
}

impl HeapCallbacks {
    pub fn references(callback: HeapReferenceCallback) -> HeapCallbacks {
        HeapCallbacks {
            _heap_iteration: std::ptr::null(),
            heap_reference: Some(callback),
            _primitive_and_reserved: [std::ptr::null(); 14],
        }
    }
}

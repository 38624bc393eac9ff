//! Instance fields HotSpot adds to a few JDK classes that their class files do not declare
//! (`*_INJECTED_FIELDS` in HotSpot's `javaClasses.hpp`): native pointers as `long`, and some
//! flags. They occupy room in every instance like declared fields, after them in field order.
//!
//! Each entry holds from the class-file major version of the JDK that introduced it: the JDK's
//! classes carry the version of their JDK (61 for 17, 69 for 25), so the class itself tells which
//! VM it belongs to. `java.lang.Class` is left out: its instances (mirrors) are made by the VM
//! only and also hold the static fields of the class they describe. Checked against JDK 17 and
//! JDK 25 by `tests/object_sizes.rs`; the versions in between (19 to 24) follow HotSpot's
//! history and are not checked against a JVM.

use crate::classfile::Class;
use membound_jvm::{ClassName, Type};

/// Java 17's class-file major version.
const JDK17: u16 = 61;
/// Java 19's, where virtual threads brought fields into `Thread` and `StackChunk`.
const JDK19: u16 = 63;
/// Java 21's, where JVMTI's virtual-thread transitions added two more to `Thread`.
const JDK21: u16 = 65;
/// Java 24's, where virtual threads that block in monitors got an `ObjectWaiter` pointer.
const JDK24: u16 = 68;

/// An injected field's type, as HotSpot declares it (`intptr` is a `long` on 64 bits).
#[derive(Clone, Copy)]
enum Slot {
    Bool,
    Byte,
    Short,
    Int,
    Long,
    Ref,
}

/// Per class: (since major version, field name, type), in HotSpot's order.
type Injections = &'static [(u16, &'static str, Slot)];

const INJECTED: &[(&str, Injections)] = &[
    ("java/lang/String", &[(JDK17, "flags", Slot::Byte)]),
    ("java/lang/ClassLoader", &[(0, "loader_data", Slot::Long)]),
    ("java/lang/Module", &[(0, "module_entry", Slot::Long)]),
    (
        "java/lang/InternalError",
        &[(JDK17, "during_unsafe_access", Slot::Bool)],
    ),
    ("java/lang/StackFrameInfo", &[(0, "version", Slot::Short)]),
    ("java/lang/invoke/MemberName", &[(0, "vmindex", Slot::Long)]),
    (
        "java/lang/invoke/ResolvedMethodName",
        &[(0, "vmholder", Slot::Ref), (0, "vmtarget", Slot::Long)],
    ),
    (
        "java/lang/invoke/MethodHandleNatives$CallSiteContext",
        &[
            (0, "vmdependencies", Slot::Long),
            (0, "last_cleanup", Slot::Long),
        ],
    ),
    (
        "java/lang/Thread",
        &[
            (JDK19, "jvmti_thread_state", Slot::Long),
            (JDK19, "jfr_epoch", Slot::Short),
            (JDK21, "jvmti_VTMS_transition_disable_count", Slot::Int),
            (JDK21, "jvmti_is_in_VTMS_transition", Slot::Bool),
        ],
    ),
    (
        "java/lang/VirtualThread",
        &[(JDK24, "objectWaiter", Slot::Long)],
    ),
    (
        "jdk/internal/vm/StackChunk",
        &[
            (JDK19, "cont", Slot::Ref),
            (JDK19, "flags", Slot::Byte),
            (JDK19, "pc", Slot::Long),
            (JDK19, "maxThawingSize", Slot::Int),
        ],
    ),
];

/// The fields the VM injects into `class`. A field the class declares itself is not injected
/// again (JDK 25's `ResolvedMethodName` declares `vmholder`).
pub(super) fn fields(class: &Class) -> Vec<(&'static str, Type)> {
    let declared = |name: &str| class.fields.iter().any(|field| &*field.name == name);
    let Some((_, injections)) = INJECTED
        .iter()
        .find(|(owner, _)| *owner == class.name.internal())
    else {
        return Vec::new();
    };
    injections
        .iter()
        .filter(|(since, name, _)| class.version.major >= *since && !declared(name))
        .map(|&(_, name, slot)| {
            let ty = match slot {
                Slot::Bool => Type::Boolean,
                Slot::Byte => Type::Byte,
                Slot::Short => Type::Short,
                Slot::Int => Type::Int,
                Slot::Long => Type::Long,
                Slot::Ref => Type::Ref(ClassName::object()),
            };
            (name, ty)
        })
        .collect()
}

//! What the instruction at a frame's bytecode offset is: an allocation of a given type, a call of a
//! given method, or something else. This is how the agent tells the program's own allocations from
//! the ones the VM makes while the program's frame is on top (class-name strings while resolving a
//! class, exception objects, class loading and static initialisers run on top of a `new`).
//!
//! Pure functions over the bytecode (`GetBytecodes`) and the class-file constant pool
//! (`GetConstantPool`); JVMTI guarantees the two use the same constant-pool indices.

/// The instructions that allocate, as JVMS numbers them.
const NEW: u8 = 0xbb;
const NEWARRAY: u8 = 0xbc;
const ANEWARRAY: u8 = 0xbd;
const MULTIANEWARRAY: u8 = 0xc5;
/// The call instructions.
const INVOKEVIRTUAL: u8 = 0xb6;
const INVOKESPECIAL: u8 = 0xb7;
const INVOKESTATIC: u8 = 0xb8;
const INVOKEINTERFACE: u8 = 0xb9;
const INVOKEDYNAMIC: u8 = 0xba;

/// One constant-pool entry, reduced to what the agent needs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Constant {
    Utf8(String),
    /// `CONSTANT_Class`: index of its name.
    Class(u16),
    /// `CONSTANT_Methodref` or `CONSTANT_InterfaceMethodref`: class and name-and-type indices.
    MethodRef(u16, u16),
    /// `CONSTANT_NameAndType`: name and descriptor indices.
    NameAndType(u16, u16),
    /// Every other entry, and the unusable slot after a long or double.
    Other,
}

/// A class's constant pool, indexed as in the class file (entry 0 unused).
#[derive(Debug, Clone, Default)]
pub struct ConstantPool {
    entries: Vec<Constant>,
}

/// A method named by a call instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodRef {
    /// Internal class name, e.g. `java/lang/invoke/MethodHandle`.
    pub class: String,
    pub name: String,
    pub descriptor: String,
}

/// What a call instruction calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// `invokevirtual`, `invokespecial`, `invokestatic`, `invokeinterface`.
    Method(MethodRef),
    /// `invokedynamic`: the callee is whatever the call site was linked to.
    Dynamic,
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*bytes.get(at)?, *bytes.get(at + 1)?]))
}

impl ConstantPool {
    /// Parses the `count - 1` entries of a constant pool in class-file layout. Returns None on
    /// malformed input rather than guessing.
    pub fn parse(count: u16, bytes: &[u8]) -> Option<ConstantPool> {
        let mut entries = vec![Constant::Other];
        let mut at = 0;
        while entries.len() < usize::from(count) {
            let tag = *bytes.get(at)?;
            let (constant, size, slots) = match tag {
                1 => {
                    let len = usize::from(u16_at(bytes, at + 1)?);
                    let text = bytes.get(at + 3..at + 3 + len)?;
                    (
                        Constant::Utf8(String::from_utf8_lossy(text).into_owned()),
                        3 + len,
                        1,
                    )
                }
                7 => (Constant::Class(u16_at(bytes, at + 1)?), 3, 1),
                10 | 11 => {
                    let pair = (u16_at(bytes, at + 1)?, u16_at(bytes, at + 3)?);
                    (Constant::MethodRef(pair.0, pair.1), 5, 1)
                }
                12 => {
                    let pair = (u16_at(bytes, at + 1)?, u16_at(bytes, at + 3)?);
                    (Constant::NameAndType(pair.0, pair.1), 5, 1)
                }
                5 | 6 => (Constant::Other, 9, 2),
                3 | 4 | 9 | 17 | 18 => (Constant::Other, 5, 1),
                15 => (Constant::Other, 4, 1),
                8 | 16 | 19 | 20 => (Constant::Other, 3, 1),
                _ => return None,
            };
            entries.push(constant);
            if slots == 2 {
                entries.push(Constant::Other);
            }
            at += size;
        }
        Some(ConstantPool { entries })
    }

    fn utf8(&self, index: u16) -> Option<&str> {
        match self.entries.get(usize::from(index))? {
            Constant::Utf8(text) => Some(text),
            _ => None,
        }
    }

    /// The internal name of the class at `index` (`pkg/C`, or an array descriptor `[I`).
    fn class_name(&self, index: u16) -> Option<&str> {
        match self.entries.get(usize::from(index))? {
            Constant::Class(name) => self.utf8(*name),
            _ => None,
        }
    }

    fn method_ref(&self, index: u16) -> Option<MethodRef> {
        let Constant::MethodRef(class, name_and_type) = self.entries.get(usize::from(index))?
        else {
            return None;
        };
        let Constant::NameAndType(name, descriptor) =
            self.entries.get(usize::from(*name_and_type))?
        else {
            return None;
        };
        Some(MethodRef {
            class: self.class_name(*class)?.to_owned(),
            name: self.utf8(*name)?.to_owned(),
            descriptor: self.utf8(*descriptor)?.to_owned(),
        })
    }
}

/// The array descriptor of a `newarray` element type code (JVMS §6.5 newarray).
fn primitive_array_signature(atype: u8) -> Option<&'static str> {
    Some(match atype {
        4 => "[Z",
        5 => "[C",
        6 => "[F",
        7 => "[D",
        8 => "[B",
        9 => "[S",
        10 => "[I",
        11 => "[J",
        _ => return None,
    })
}

/// The type descriptor of a class named in the constant pool: arrays are already descriptors.
fn descriptor_of(internal_name: &str) -> String {
    if internal_name.starts_with('[') {
        internal_name.to_owned()
    } else {
        format!("L{internal_name};")
    }
}

/// Whether the instruction at `offset` allocates an object of type `signature` (a JVMTI class
/// signature such as `LB;` or `[I`). `multianewarray` also allocates the inner arrays, whose
/// types are the outer type with leading `[` removed, up to the number of dimensions given.
pub fn allocates(code: &[u8], offset: usize, pool: &ConstantPool, signature: &str) -> bool {
    let operand = || u16_at(code, offset + 1);
    match code.get(offset) {
        Some(&NEW) => operand()
            .and_then(|index| pool.class_name(index))
            .is_some_and(|name| descriptor_of(name) == signature),
        Some(&NEWARRAY) => code
            .get(offset + 1)
            .and_then(|&atype| primitive_array_signature(atype))
            .is_some_and(|expected| expected == signature),
        Some(&ANEWARRAY) => operand()
            .and_then(|index| pool.class_name(index))
            .is_some_and(|element| format!("[{}", descriptor_of(element)) == signature),
        Some(&MULTIANEWARRAY) => {
            let dimensions = code.get(offset + 3).copied().unwrap_or(0);
            let outer = operand().and_then(|index| pool.class_name(index));
            outer.is_some_and(|outer| {
                (0..usize::from(dimensions)).any(|inner| outer.get(inner..) == Some(signature))
            })
        }
        _ => false,
    }
}

const PUTSTATIC: u8 = 0xb3;

/// The offset of the instruction after the call or `putstatic` at `offset` (where it has
/// completed normally); None for other instructions.
pub fn after_call_or_putstatic(code: &[u8], offset: usize) -> Option<usize> {
    let length = match *code.get(offset)? {
        INVOKEVIRTUAL | INVOKESPECIAL | INVOKESTATIC | PUTSTATIC => 3,
        INVOKEINTERFACE | INVOKEDYNAMIC => 5,
        _ => return None,
    };
    Some(offset + length).filter(|&next| next < code.len())
}

const ISTORE: u8 = 0x36;
const LSTORE: u8 = 0x37;
const ISTORE_0: u8 = 0x3b;
const LSTORE_0: u8 = 0x3f;
const WIDE: u8 = 0xc4;

/// The integer local a call's result is stored into: the store at `offset`, or the one right
/// after the call at `offset`. The offset after the store, the local's slot and whether it is a
/// `long`; None when no such store is there.
pub fn stored_local(code: &[u8], offset: usize) -> Option<(usize, u16, bool)> {
    let store = after_call_or_putstatic(code, offset)
        .filter(|_| code.get(offset) != Some(&PUTSTATIC))
        .unwrap_or(offset);
    let opcode = *code.get(store)?;
    let (length, slot, long) = match opcode {
        ISTORE | LSTORE => (2, u16::from(*code.get(store + 1)?), opcode == LSTORE),
        ISTORE_0..=0x3e => (1, u16::from(opcode - ISTORE_0), false),
        LSTORE_0..=0x42 => (1, u16::from(opcode - LSTORE_0), true),
        WIDE if matches!(code.get(store + 1), Some(&ISTORE | &LSTORE)) => {
            (4, u16_at(code, store + 2)?, code[store + 1] == LSTORE)
        }
        _ => return None,
    };
    Some((store + length, slot, long)).filter(|&(next, _, _)| next < code.len())
}

/// What the call instruction at `offset` calls; None when it is no call instruction.
pub fn call_at(code: &[u8], offset: usize, pool: &ConstantPool) -> Option<Call> {
    match *code.get(offset)? {
        INVOKEVIRTUAL | INVOKESPECIAL | INVOKESTATIC | INVOKEINTERFACE => {
            Some(Call::Method(pool.method_ref(u16_at(code, offset + 1)?)?))
        }
        INVOKEDYNAMIC => Some(Call::Dynamic),
        _ => None,
    }
}

/// Whether a frame of `callee_class.callee_name callee_descriptor` can be the frame the call
/// `call` pushed, rather than one the VM pushed on top of the caller (a class loader, a static
/// initialiser, call-site linkage).
///
/// A named call pushes a method of that name and descriptor (the class may differ: virtual
/// dispatch). `invokedynamic` and the signature-polymorphic `MethodHandle.invoke`/`invokeExact`
/// enter generated adapters, which live in `java.lang.invoke` (the VM's linkage entry points in
/// `MethodHandleNatives` excepted); the `MethodHandle.linkTo*` intrinsics the adapters end with
/// jump straight to the target method, whatever it is. No instruction calls `<clinit>`.
pub fn call_reaches(call: &Call, callee_class: &str, callee_name: &str, descriptor: &str) -> bool {
    const POLYMORPHIC: [&str; 2] = [
        "java/lang/invoke/MethodHandle",
        "java/lang/invoke/VarHandle",
    ];
    let is_adapter = || {
        callee_class.starts_with("java/lang/invoke/")
            && callee_class != "java/lang/invoke/MethodHandleNatives"
    };
    if callee_name == "<clinit>" {
        return false;
    }
    match call {
        Call::Dynamic => is_adapter(),
        Call::Method(target) if POLYMORPHIC.contains(&target.class.as_str()) => {
            target.name.starts_with("linkTo") || is_adapter()
        }
        Call::Method(target) => target.name == callee_name && target.descriptor == descriptor,
    }
}

/// A JVM type descriptor in Java source form: `[LB;` → `B[]`, `[[I` → `int[][]`,
/// `Ljava/lang/String;` → `java.lang.String`.
pub fn java_type_name(descriptor: &str) -> String {
    let dimensions = descriptor.bytes().take_while(|&b| b == b'[').count();
    let element = &descriptor[dimensions..];
    let base = match element {
        "Z" => "boolean".to_owned(),
        "B" => "byte".to_owned(),
        "C" => "char".to_owned(),
        "S" => "short".to_owned(),
        "I" => "int".to_owned(),
        "J" => "long".to_owned(),
        "F" => "float".to_owned(),
        "D" => "double".to_owned(),
        "V" => "void".to_owned(),
        _ => {
            let internal = element.strip_prefix('L').unwrap_or(element);
            internal
                .strip_suffix(';')
                .unwrap_or(internal)
                .replace('/', ".")
        }
    };
    format!("{base}{}", "[]".repeat(dimensions))
}

/// How a parameter is passed, as far as the recorded values are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParameterKind {
    /// `int`, `short`, `byte`, `char`, `boolean`: one slot, read with `GetLocalInt`.
    Int,
    /// `long`: two slots, read with `GetLocalLong`.
    Long,
    /// An array: one slot; its length is what bounds depend on.
    Array,
    /// A `java.lang.String`: one slot; its `length()` is what bounds depend on.
    String,
    /// A box of an integer (`java.lang.Integer`, `Long`, `Short`, `Byte`, `Character`): one
    /// slot; its value is what bounds depend on.
    Boxed(IntegerType),
    /// Any other reference: one slot; when the object is a `java.util.Collection` or
    /// `java.util.Map`, its `size()` is what bounds depend on.
    Object,
    /// `float` or `double`: not recorded; `slots` says how many slots.
    Unrecorded { slots: i32 },
}

impl ParameterKind {
    pub fn slots(self) -> i32 {
        match self {
            ParameterKind::Long => 2,
            ParameterKind::Unrecorded { slots } => slots,
            ParameterKind::Int
            | ParameterKind::Array
            | ParameterKind::String
            | ParameterKind::Boxed(_)
            | ParameterKind::Object => 1,
        }
    }
}

/// The kinds of the parameters of a method descriptor such as `(I[JLjava/lang/String;D)V`;
/// None when the descriptor is malformed.
pub fn parameter_kinds(descriptor: &str) -> Option<Vec<ParameterKind>> {
    let inside = descriptor.strip_prefix('(')?.split_once(')')?.0.as_bytes();
    let mut kinds = Vec::new();
    let mut at = 0;
    while at < inside.len() {
        let dimensions = inside[at..].iter().take_while(|&&b| b == b'[').count();
        let element = *inside.get(at + dimensions)?;
        let end = if element == b'L' {
            at + dimensions + inside[at + dimensions..].iter().position(|&b| b == b';')? + 1
        } else {
            at + dimensions + 1
        };
        kinds.push(match (dimensions, element) {
            (0, b'I' | b'S' | b'B' | b'C' | b'Z') => ParameterKind::Int,
            (0, b'J') => ParameterKind::Long,
            (0, b'D') => ParameterKind::Unrecorded { slots: 2 },
            (0, b'F') => ParameterKind::Unrecorded { slots: 1 },
            (0, b'L') if &inside[at..end] == b"Ljava/lang/String;" => ParameterKind::String,
            (0, b'L') if let Some(ty) = boxed_type(&inside[at..end]) => ParameterKind::Boxed(ty),
            (0, b'L') => ParameterKind::Object,
            (0, _) => return None,
            _ => ParameterKind::Array,
        });
        at = end;
    }
    Some(kinds)
}

/// The integer type a box class descriptor (`Ljava/lang/Integer;`) holds in its `value` field.
fn boxed_type(descriptor: &[u8]) -> Option<IntegerType> {
    Some(match descriptor {
        b"Ljava/lang/Integer;" => IntegerType::Int,
        b"Ljava/lang/Long;" => IntegerType::Long,
        b"Ljava/lang/Short;" => IntegerType::Short,
        b"Ljava/lang/Byte;" => IntegerType::Byte,
        b"Ljava/lang/Character;" => IntegerType::Char,
        _ => return None,
    })
}

/// The integer types of a field, named by its descriptor; each is read with its own JNI getter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntegerType {
    Boolean,
    Byte,
    Char,
    Short,
    Int,
    Long,
}

impl IntegerType {
    /// The type of a field descriptor (`I`, `J`, …); None for floating-point and reference types.
    pub fn of_descriptor(descriptor: &str) -> Option<IntegerType> {
        Some(match descriptor {
            "Z" => IntegerType::Boolean,
            "B" => IntegerType::Byte,
            "C" => IntegerType::Char,
            "S" => IntegerType::Short,
            "I" => IntegerType::Int,
            "J" => IntegerType::Long,
            _ => return None,
        })
    }

    /// The Java name, as the event stream writes it.
    pub fn name(self) -> &'static str {
        match self {
            IntegerType::Boolean => "boolean",
            IntegerType::Byte => "byte",
            IntegerType::Char => "char",
            IntegerType::Short => "short",
            IntegerType::Int => "int",
            IntegerType::Long => "long",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Constant pool of 6 entries: 1 Utf8 "B", 2 Class #1, 3 Utf8 "m2", 4 Utf8 "(I)[LB;",
    /// 5 NameAndType #3 #4, then 6 Methodref #2 #5 — count is 7.
    fn sample_pool() -> ConstantPool {
        let mut bytes = vec![1, 0, 1, b'B', 7, 0, 1, 1, 0, 2, b'm', b'2', 1, 0, 7];
        bytes.extend_from_slice(b"(I)[LB;");
        bytes.extend_from_slice(&[12, 0, 3, 0, 4, 10, 0, 2, 0, 5]);
        ConstantPool::parse(7, &bytes).expect("well-formed pool")
    }

    #[test]
    fn new_matches_only_its_own_class() {
        let pool = sample_pool();
        let code = [NEW, 0, 2];
        assert!(allocates(&code, 0, &pool, "LB;"));
        assert!(!allocates(&code, 0, &pool, "Ljava/lang/String;"));
    }

    #[test]
    fn array_instructions_match_their_array_types() {
        let pool = sample_pool();
        assert!(allocates(&[ANEWARRAY, 0, 2], 0, &pool, "[LB;"));
        assert!(!allocates(&[ANEWARRAY, 0, 2], 0, &pool, "[B"));
        assert!(allocates(&[NEWARRAY, 8], 0, &pool, "[B"));
        assert!(!allocates(&[NEWARRAY, 10], 0, &pool, "[B"));
    }

    #[test]
    fn multianewarray_matches_outer_and_inner_arrays_only() {
        let mut bytes = vec![1, 0, 4];
        bytes.extend_from_slice(b"[[[I");
        bytes.extend_from_slice(&[7, 0, 1]);
        let pool = ConstantPool::parse(3, &bytes).expect("well-formed pool");
        let two_dimensions = [MULTIANEWARRAY, 0, 2, 2];
        assert!(allocates(&two_dimensions, 0, &pool, "[[[I"));
        assert!(allocates(&two_dimensions, 0, &pool, "[[I"));
        assert!(!allocates(&two_dimensions, 0, &pool, "[I"));
    }

    #[test]
    fn other_instructions_do_not_allocate() {
        let pool = sample_pool();
        assert!(!allocates(&[0x12, 2], 0, &pool, "Ljava/lang/String;"));
        assert!(!allocates(&[NEW], 0, &pool, "LB;"), "truncated operand");
    }

    #[test]
    fn calls_reach_only_methods_of_their_name_and_descriptor() {
        let pool = sample_pool();
        let call = call_at(&[INVOKESTATIC, 0, 6], 0, &pool).expect("a call");
        assert!(call_reaches(&call, "B", "m2", "(I)[LB;"));
        assert!(!call_reaches(&call, "B", "<clinit>", "()V"));
        assert!(!call_reaches(
            &call,
            "java/lang/ClassLoader",
            "loadClass",
            "(Ljava/lang/String;)Ljava/lang/Class;"
        ));
        assert_eq!(call_at(&[NEW, 0, 2], 0, &pool), None);
    }

    #[test]
    fn dynamic_calls_reach_adapters_but_not_linkage_or_class_loading() {
        let adapter = "java/lang/invoke/Invokers$Holder";
        assert!(call_reaches(
            &Call::Dynamic,
            adapter,
            "linkToTargetMethod",
            "(I)V"
        ));
        let natives = "java/lang/invoke/MethodHandleNatives";
        assert!(!call_reaches(
            &Call::Dynamic,
            natives,
            "linkCallSite",
            "()V"
        ));
        let loader = "java/lang/ClassLoader";
        assert!(!call_reaches(
            &Call::Dynamic,
            loader,
            "loadClass",
            "(Ljava/lang/String;)V"
        ));
    }

    #[test]
    fn method_handle_intrinsics_reach_any_target_but_not_initialisers() {
        let link_to_static = Call::Method(MethodRef {
            class: "java/lang/invoke/MethodHandle".to_owned(),
            name: "linkToStatic".to_owned(),
            descriptor: "(Ljava/lang/Object;)V".to_owned(),
        });
        assert!(call_reaches(
            &link_to_static,
            "java/lang/StringConcatHelper",
            "newArray",
            "(J)[B"
        ));
        assert!(!call_reaches(
            &link_to_static,
            "java/lang/StringConcatHelper",
            "<clinit>",
            "()V"
        ));
    }

    #[test]
    fn the_instruction_after_a_call_or_putstatic_follows_its_operands() {
        // invokestatic #2; invokeinterface #3, 1, 0; putstatic #4; return
        let code = [0xb8, 0, 2, 0xb9, 0, 3, 1, 0, 0xb3, 0, 4, 0xb1];
        assert_eq!(after_call_or_putstatic(&code, 0), Some(3));
        assert_eq!(after_call_or_putstatic(&code, 3), Some(8));
        assert_eq!(after_call_or_putstatic(&code, 8), Some(11));
        assert_eq!(after_call_or_putstatic(&code, 11), None);
        assert_eq!(after_call_or_putstatic(&code, 40), None);
    }

    #[test]
    fn the_local_a_call_result_is_stored_into_is_found_after_the_call_or_at_the_store() {
        // invokestatic #2; istore_1; invokestatic #2; lstore 5; wide istore 300; iload_1; return
        let code = [
            0xb8, 0, 2, 0x3c, 0xb8, 0, 2, 0x37, 5, 0xc4, 0x36, 1, 44, 0x1b, 0xb1,
        ];
        assert_eq!(stored_local(&code, 0), Some((4, 1, false)));
        assert_eq!(stored_local(&code, 3), Some((4, 1, false)));
        assert_eq!(stored_local(&code, 4), Some((9, 5, true)));
        assert_eq!(stored_local(&code, 9), Some((13, 300, false)));
        // No store after it: an iload, a return.
        assert_eq!(stored_local(&code, 13), None);
        assert_eq!(stored_local(&code, 14), None);
    }

    #[test]
    fn malformed_pools_are_rejected() {
        assert!(ConstantPool::parse(3, &[1, 0, 9, b'x']).is_none());
        assert!(ConstantPool::parse(2, &[99]).is_none());
    }

    #[test]
    fn type_names_are_in_java_source_form() {
        assert_eq!(java_type_name("[LB;"), "B[]");
        assert_eq!(java_type_name("[[I"), "int[][]");
        assert_eq!(java_type_name("Ljava/lang/Integer;"), "java.lang.Integer");
        assert_eq!(java_type_name("[B"), "byte[]");
    }

    #[test]
    fn parameter_kinds_follow_the_descriptor() {
        use ParameterKind::*;
        let kinds =
            parameter_kinds("(I[JLjava/lang/String;DZ[[LB;JLjava/util/List;F)V").expect("valid");
        let expected = vec![
            Int,
            Array,
            String,
            Unrecorded { slots: 2 },
            Int,
            Array,
            Long,
            Object,
            Unrecorded { slots: 1 },
        ];
        assert_eq!(kinds, expected);
        let slots: i32 = expected.iter().map(|k| k.slots()).sum();
        assert_eq!(slots, 11);
        assert_eq!(parameter_kinds("()V"), Some(Vec::new()));
        assert_eq!(parameter_kinds("(Ljava/lang/String"), None);
        assert_eq!(parameter_kinds("(Q)V"), None);
    }

    #[test]
    fn integer_field_types_follow_their_descriptors() {
        assert_eq!(IntegerType::of_descriptor("I"), Some(IntegerType::Int));
        assert_eq!(
            IntegerType::of_descriptor("Z").map(IntegerType::name),
            Some("boolean")
        );
        assert_eq!(
            IntegerType::of_descriptor("J").map(IntegerType::name),
            Some("long")
        );
        assert_eq!(IntegerType::of_descriptor("D"), None);
        assert_eq!(IntegerType::of_descriptor("Ljava/lang/String;"), None);
        assert_eq!(IntegerType::of_descriptor("[I"), None);
    }
}

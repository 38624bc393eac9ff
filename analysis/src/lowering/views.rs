//! Object views: the integer facts about strings, collections and iterators the lowering reads
//! as variables — a `String`'s length, a collection's (or map's) size, and per iterator a virtual
//! counter of its `next()` calls with the size it may not exceed (thesis notes §10).
//!
//! This module only classifies: which types have views, what a call does to them, and when a
//! method's body needs them at all; [`super::body`] turns that into variables and actions.
//!
//! Strings are immutable, so a length view never changes. A collection's size may: a view
//! holds while nothing modifies the collection, so every call that is not one of the read-only
//! methods below forgets every size view of the method ([`ViewCall::Other`]). What remains is
//! the assumption [`COLLECTION_SIZES`] names (no other thread or the garbage collector changes a
//! size, the read-only methods are read-only for the collection's class, iterators are bounded
//! by the size at their creation). An iterator's bound is taken when it is created, so later
//! calls do not forget it: java.util's fail-fast iterators stop (throw) after a modification.
//! A call handed an iterator forgets every counter: `ListIterator.previous()` moves one back.
//!
//! A box (`Integer`, `Long`, `Short`, `Byte`, `Character`) is immutable too: its value view is
//! set by `valueOf(x)` and read by `intValue()` (and the other unboxing methods whose type holds
//! every value of the box), so `for (Integer i = 0; i < n; i++)` is an integer loop.
//!
//! It does not know the class hierarchy: a collection type is one of java.util's collection and
//! map types named here, by the declared type of the variable or the class a call names.

use membound_front::ir::{self, CallKind, Operand, StmtKind};
use membound_jvm::{MethodRef, Type};

/// What the views of collection sizes take for granted; the certificate lists it when a bound
/// has a collection size as a parameter.
pub const COLLECTION_SIZES: &str = "a collection parameter's size (origin `size of parameter …`) changes only through calls its method makes other than size, isEmpty, get(int), iterator, keySet, values, entrySet and its iterators' hasNext and next, which modify no collection (no other thread or the garbage collector changes it); an iterator returns at most as many elements as its collection's size when it was created (java.util's fail-fast iterators throw after a modification) and is moved back (ListIterator.previous) only by calls that are handed it";

/// The declared types a collection size view is taken for: java.util's collections and maps
/// whose size only their own methods change (not weak or concurrent ones).
const COLLECTIONS: &[&str] = &[
    "java/util/Collection",
    "java/util/List",
    "java/util/Set",
    "java/util/SortedSet",
    "java/util/NavigableSet",
    "java/util/Queue",
    "java/util/Deque",
    "java/util/Map",
    "java/util/SortedMap",
    "java/util/NavigableMap",
    "java/util/AbstractCollection",
    "java/util/AbstractList",
    "java/util/AbstractSequentialList",
    "java/util/AbstractSet",
    "java/util/AbstractMap",
    "java/util/AbstractQueue",
    "java/util/ArrayList",
    "java/util/LinkedList",
    "java/util/Vector",
    "java/util/Stack",
    "java/util/HashSet",
    "java/util/LinkedHashSet",
    "java/util/TreeSet",
    "java/util/HashMap",
    "java/util/LinkedHashMap",
    "java/util/TreeMap",
    "java/util/Hashtable",
    "java/util/IdentityHashMap",
    "java/util/ArrayDeque",
    "java/util/PriorityQueue",
];

const ITERATORS: &[&str] = &["java/util/Iterator", "java/util/ListIterator"];

/// The stream types with a size view: at most how many elements the stream will hand its
/// terminal operation, exactly as many where no stage drops any (a stream from a collection
/// binds to the collection when that operation runs, so its size is forgotten like a
/// collection's by any call that may modify one). Specs read it as an upper bound: what they
/// state in it grows with it.
const STREAMS: &[&str] = &[
    "java/util/stream/BaseStream",
    "java/util/stream/Stream",
    "java/util/stream/IntStream",
    "java/util/stream/LongStream",
    "java/util/stream/DoubleStream",
];

/// Intermediate operations whose stream has at most as many elements as their receiver: as
/// many, or fewer (`filter`, `distinct`, `skip`, `limit`, whose size view is then above it).
const SAME_SIZE_STAGES: &[&str] = &[
    "filter",
    "distinct",
    "skip",
    "limit",
    "boxed",
    "map",
    "mapToObj",
    "mapToInt",
    "mapToLong",
    "mapToDouble",
    "asLongStream",
    "asDoubleStream",
    "peek",
    "sorted",
    "sequential",
    "parallel",
    "unordered",
    "onClose",
];

/// Stages whose stream has their receiver's elements in the same order: an `IntStream` of
/// consecutive integers stays one from the same first element (`limit(k)` keeps a prefix).
const ORDER_KEEPING_STAGES: &[&str] = &[
    "sorted",
    "sequential",
    "parallel",
    "unordered",
    "peek",
    "onClose",
    "limit",
];

const COLLECTOR: &str = "java/util/stream/Collector";

/// The collectors whose kind a `Collector` variable's view holds, by the factory of
/// `java.util.stream.Collectors` that makes them; a spec of `collect` names the kind
/// (`collector = 1`: `toList()`). A collector from anywhere else has an unknown kind.
const COLLECTOR_KINDS: &[(&str, i64)] = &[("toList", 1)];

const STRING: &str = "java/lang/String";

/// The box classes with a value view, and the primitive type each holds. All are final and
/// immutable, and their `valueOf` and unboxing methods run no code of the program.
const BOXES: &[(&str, Type)] = &[
    ("java/lang/Integer", Type::Int),
    ("java/lang/Long", Type::Long),
    ("java/lang/Short", Type::Short),
    ("java/lang/Byte", Type::Byte),
    ("java/lang/Character", Type::Char),
];

/// The primitive type a box class holds, if it is one with a value view.
pub fn boxed_type(class: &str) -> Option<&'static Type> {
    BOXES
        .iter()
        .find(|(name, _)| *name == class)
        .map(|(_, ty)| ty)
}

/// Which view a variable of some type has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewType {
    /// A `String`: its length.
    String,
    /// A collection or map: its size.
    Collection,
    /// An iterator: its counter and bound.
    Iterator,
    /// A box of an integer: its value.
    Boxed,
    /// A stream: how many elements it has (kept with the collections' sizes).
    Stream,
    /// A `Collector`: which factory made it ([`COLLECTOR_KINDS`], kept with the collections'
    /// sizes).
    Collector,
}

/// The view a variable of type `ty` has, if any.
pub fn view_type(ty: &Type) -> Option<ViewType> {
    let Type::Ref(class) = ty else {
        return None;
    };
    let name = class.internal();
    if name == STRING {
        Some(ViewType::String)
    } else if COLLECTIONS.contains(&name) {
        Some(ViewType::Collection)
    } else if ITERATORS.contains(&name) {
        Some(ViewType::Iterator)
    } else if boxed_type(name).is_some() {
        Some(ViewType::Boxed)
    } else if STREAMS.contains(&name) {
        Some(ViewType::Stream)
    } else if name == COLLECTOR {
        Some(ViewType::Collector)
    } else {
        None
    }
}

/// What a call does to the views.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewCall {
    /// `s.length()`: the receiver's length.
    Length,
    /// `c.size()`: the receiver's size.
    Size,
    /// `c.iterator()`: a new iterator bounded by the receiver's size.
    Iterator,
    /// `m.keySet()`, `values()`, `entrySet()`: a view collection of the receiver's size; a
    /// stream's stage, `c.stream()`: a stream of at most its receiver's size.
    SameSize,
    /// `it.next()`: one more element of the receiver.
    Next,
    /// `Integer.valueOf(x)`: a box of the argument's value.
    Box,
    /// `b.intValue()`: the receiver's value (in a type that holds all of them).
    Unbox,
    /// `IntStream.range(a, b)` (`closed`: `rangeClosed`): a stream of `max(0, b - a)` elements
    /// (one more when closed).
    Range { closed: bool },
    /// `Collectors.toList()`: a collector of this kind.
    Collector(i64),
    /// A call that changes no view (and no collection).
    ReadOnly,
    /// Any other call: it may modify any collection.
    Other,
}

/// What `call` does to the views, by the method it names.
pub fn classify(call: &ir::Call) -> ViewCall {
    match &call.kind {
        // A lambda's creation runs none of the program's code (its body runs when called).
        CallKind::Dynamic(ir::DynamicCall::Lambda { .. }) => return ViewCall::ReadOnly,
        CallKind::Dynamic(_) => return ViewCall::Other,
        _ => {}
    }
    let method = &call.method;
    let class = method.class.internal();
    let signature = (&*method.name, &*method.descriptor);
    if class == STRING {
        return match signature {
            ("length", "()I") => ViewCall::Length,
            // String is final and immutable: its methods that take no object but strings run
            // no code of the program.
            _ if only_strings_and_primitives(method) => ViewCall::ReadOnly,
            _ => ViewCall::Other,
        };
    }
    if class == "java/lang/Object" && signature == ("<init>", "()V") {
        return ViewCall::ReadOnly;
    }
    // Math and StrictMath are final, and their static methods on numbers and strings run no
    // code of the program.
    let math = matches!(class, "java/lang/Math" | "java/lang/StrictMath");
    if math && matches!(call.kind, CallKind::Static) && only_strings_and_primitives(method) {
        return ViewCall::ReadOnly;
    }
    if let Some(held) = boxed_type(class) {
        return boxing(method, held);
    }
    if let Some(view) = stream_call(method) {
        return view;
    }
    if ITERATORS.contains(&class) {
        return match signature {
            ("next", "()Ljava/lang/Object;") => ViewCall::Next,
            ("hasNext", "()Z") => ViewCall::ReadOnly,
            _ => ViewCall::Other,
        };
    }
    let iterable = COLLECTIONS.contains(&class) || class == "java/lang/Iterable";
    if !iterable {
        return ViewCall::Other;
    }
    match signature {
        ("iterator", "()Ljava/util/Iterator;") => ViewCall::Iterator,
        _ if class == "java/lang/Iterable" => ViewCall::Other,
        ("size", "()I") => ViewCall::Size,
        ("keySet", "()Ljava/util/Set;")
        | ("values", "()Ljava/util/Collection;")
        | ("entrySet", "()Ljava/util/Set;") => ViewCall::SameSize,
        ("isEmpty", "()Z") | ("get", "(I)Ljava/lang/Object;") => ViewCall::ReadOnly,
        // A stream of the collection's elements, bound to them when its terminal operation runs.
        ("stream", "()Ljava/util/stream/Stream;") => ViewCall::SameSize,
        _ => ViewCall::Other,
    }
}

/// Whether `ty` is an `IntStream`, whose view holds its first element too.
pub fn is_int_stream(ty: &Type) -> bool {
    matches!(ty, Type::Ref(class) if class.internal() == "java/util/stream/IntStream")
}

/// Whether a call of `method` on an `IntStream` returns a stream of the same elements from the
/// same first one ([`ORDER_KEEPING_STAGES`]).
pub fn keeps_elements(method: &MethodRef) -> bool {
    STREAMS.contains(&method.class.internal())
        && ORDER_KEEPING_STAGES.contains(&&*method.name)
        && matches!(method.parsed_descriptor(), Ok(d) if d.ret.as_ref().is_some_and(is_int_stream))
}

/// What a call of a stream's intermediate operation, of a range, or of a collector's factory
/// does to the views; `None` for other calls (a terminal operation runs the stages' functions,
/// which may do anything: [`ViewCall::Other`]). An intermediate operation runs no function:
/// it only links a stage.
fn stream_call(method: &MethodRef) -> Option<ViewCall> {
    let class = method.class.internal();
    if class == "java/util/stream/Collectors" {
        let kind = COLLECTOR_KINDS
            .iter()
            .find(|(name, _)| *name == &*method.name);
        return Some(kind.map_or(ViewCall::ReadOnly, |&(_, kind)| ViewCall::Collector(kind)));
    }
    if !STREAMS.contains(&class) {
        return None;
    }
    let descriptor = method.parsed_descriptor().ok()?;
    let returns_stream =
        matches!(&descriptor.ret, Some(Type::Ref(c)) if STREAMS.contains(&c.internal()));
    if !returns_stream {
        return None;
    }
    let name = &*method.name;
    let integers = descriptor.params.len() == 2 && descriptor.params.iter().all(Type::is_integer);
    match name {
        "range" | "rangeClosed" if integers => Some(ViewCall::Range {
            closed: name == "rangeClosed",
        }),
        _ if SAME_SIZE_STAGES.contains(&name) => Some(ViewCall::SameSize),
        _ => None,
    }
}

/// What a call on a box class does: `valueOf` of its primitive boxes it, an unboxing method
/// whose result type holds every value of the box reads it (`Integer.byteValue()` narrows, so it
/// does not).
fn boxing(method: &MethodRef, held: &Type) -> ViewCall {
    let Ok(descriptor) = method.parsed_descriptor() else {
        return ViewCall::Other;
    };
    let returns_box = matches!(&descriptor.ret, Some(Type::Ref(c)) if *c == method.class);
    match (&*method.name, descriptor.params.as_slice()) {
        ("valueOf", [param]) if param == held && returns_box => ViewCall::Box,
        (name, []) if name.ends_with("Value") => match &descriptor.ret {
            Some(ret) if holds_every_value(ret, held) => ViewCall::Unbox,
            _ => ViewCall::Other,
        },
        _ => ViewCall::Other,
    }
}

/// Whether every value of the integer type `from` is a value of `to`.
fn holds_every_value(to: &Type, from: &Type) -> bool {
    match (to.integer_range(), from.integer_range()) {
        (Some((to_low, to_high)), Some((low, high))) => to_low <= low && high <= to_high,
        _ => false,
    }
}

/// Whether the call's result is the value of a parameter's view: the length or size of a
/// declared parameter or of a local that only ever copies one. Other lengths and sizes are
/// unknown values, which a fixed local may name instead.
pub fn reads_parameter_view(body: &ir::Body, call: &ir::Call) -> bool {
    let Some(Operand::Var(receiver)) = call.receiver else {
        return false;
    };
    let is_param = |var: ir::VarId| matches!(body.var(var).origin, ir::VarOrigin::Param(_));
    let copies_param = || {
        let mut definitions = body.statements().filter_map(|(_, stmt)| match &stmt.kind {
            StmtKind::Assign { dst, value } if *dst == receiver => Some(Some(value)),
            StmtKind::Invoke { dst, .. } if *dst == Some(receiver) => Some(None),
            _ => None,
        });
        let mut any = false;
        let all = definitions.all(|value| {
            any = true;
            matches!(value,
                Some(ir::Expr::Use(Operand::Var(source)) | ir::Expr::CheckCast(Operand::Var(source), _))
                    if is_param(*source))
        });
        any && all
    };
    matches!(classify(call), ViewCall::Length | ViewCall::Size)
        && (is_param(receiver) || copies_param())
}

fn only_strings_and_primitives(method: &MethodRef) -> bool {
    method.parsed_descriptor().is_ok_and(|descriptor| {
        descriptor.params.iter().all(|ty| match ty {
            Type::Ref(class) => class.internal() == STRING,
            Type::Array(_) => false,
            _ => true,
        })
    })
}

/// Whether `body` needs views of `kind` at all: it reads one (a length, a size, an iterator)
/// or passes a variable of that kind to a call, whose callee may read it. Methods that do not
/// keep their parameters and procedures as they were.
pub fn needs(body: &ir::Body, kind: ViewType) -> bool {
    body.statements().any(|(_, stmt)| {
        let StmtKind::Invoke { call, .. } = &stmt.kind else {
            return false;
        };
        let reads = match kind {
            ViewType::String => classify(call) == ViewCall::Length,
            ViewType::Collection | ViewType::Iterator | ViewType::Stream | ViewType::Collector => {
                matches!(
                    classify(call),
                    ViewCall::Size
                        | ViewCall::Iterator
                        | ViewCall::SameSize
                        | ViewCall::Next
                        | ViewCall::Range { .. }
                        | ViewCall::Collector(_)
                )
            }
            ViewType::Boxed => classify(call) == ViewCall::Unbox,
        };
        // A concatenation's text takes its strings' lengths.
        let passes = !matches!(call.kind, CallKind::Dynamic(ref d) if !matches!(d, ir::DynamicCall::StringConcat { .. }))
            && call.args.iter().any(|arg| match arg {
                Operand::Var(v) => view_type(&body.var(*v).ty) == Some(kind),
                Operand::Const(_) => false,
            });
        reads
            || passes
            || (kind == ViewType::String
                && (makes_text_of_receiver(body, call) || formats_string(body, stmt.pc, call)))
    })
}

/// Whether `call` is a format call (`ir::FormatCall`) with a string variable among its
/// arguments, whose length its text takes.
fn formats_string(body: &ir::Body, pc: u32, call: &ir::Call) -> bool {
    body.format_call(pc, call).is_some_and(|format| {
        format
            .operands
            .iter()
            .flatten()
            .any(|operand| match operand {
                Operand::Var(v) => view_type(&body.var(*v).ty) == Some(ViewType::String),
                Operand::Const(_) => false,
            })
    })
}

/// Whether `call` is a `String` method on a string variable that returns a reference (a
/// string or strings made of it: `split`, `repeat`, …), whose spec may name the receiver's
/// length.
fn makes_text_of_receiver(body: &ir::Body, call: &ir::Call) -> bool {
    let Some(Operand::Var(receiver)) = &call.receiver else {
        return false;
    };
    call.method.class.internal() == STRING
        && view_type(&body.var(*receiver).ty) == Some(ViewType::String)
        && call
            .method
            .parsed_descriptor()
            .is_ok_and(|descriptor| descriptor.ret.as_ref().is_some_and(Type::is_reference))
}

#[cfg(test)]
mod tests {
    use super::*;
    use membound_jvm::ClassName;

    fn call(class: &str, name: &str, descriptor: &str) -> ir::Call {
        ir::Call {
            kind: CallKind::Interface,
            method: MethodRef::new(ClassName::new(class), name, descriptor),
            receiver: None,
            args: Vec::new(),
        }
    }

    #[test]
    fn views_of_types() {
        let class = |name: &str| Type::Ref(ClassName::new(name));
        assert_eq!(
            view_type(&class("java/lang/String")),
            Some(ViewType::String)
        );
        assert_eq!(
            view_type(&class("java/util/HashMap")),
            Some(ViewType::Collection)
        );
        assert_eq!(
            view_type(&class("java/util/ListIterator")),
            Some(ViewType::Iterator)
        );
        // Sizes other threads or the collector change have no view.
        assert_eq!(view_type(&class("java/util/WeakHashMap")), None);
        assert_eq!(
            view_type(&class("java/util/concurrent/ConcurrentHashMap")),
            None
        );
        assert_eq!(view_type(&Type::Int), None);
    }

    #[test]
    fn calls_that_read_or_keep_views() {
        let expected = [
            ("java/lang/String", "length", "()I", ViewCall::Length),
            ("java/util/List", "size", "()I", ViewCall::Size),
            (
                "java/lang/Iterable",
                "iterator",
                "()Ljava/util/Iterator;",
                ViewCall::Iterator,
            ),
            (
                "java/util/Map",
                "values",
                "()Ljava/util/Collection;",
                ViewCall::SameSize,
            ),
            (
                "java/util/Iterator",
                "next",
                "()Ljava/lang/Object;",
                ViewCall::Next,
            ),
            ("java/lang/String", "charAt", "(I)C", ViewCall::ReadOnly),
            // String methods taking other objects may run the program's code.
            (
                "java/lang/String",
                "contentEquals",
                "(Ljava/lang/CharSequence;)Z",
                ViewCall::Other,
            ),
            (
                "java/util/List",
                "add",
                "(Ljava/lang/Object;)Z",
                ViewCall::Other,
            ),
            ("java/util/Iterator", "remove", "()V", ViewCall::Other),
            (
                "java/lang/Integer",
                "valueOf",
                "(I)Ljava/lang/Integer;",
                ViewCall::Box,
            ),
            ("java/lang/Integer", "intValue", "()I", ViewCall::Unbox),
            ("java/lang/Integer", "longValue", "()J", ViewCall::Unbox),
            // Narrowing loses the value; a string is parsed, not boxed.
            ("java/lang/Integer", "byteValue", "()B", ViewCall::Other),
            (
                "java/lang/Integer",
                "valueOf",
                "(Ljava/lang/String;)Ljava/lang/Integer;",
                ViewCall::Other,
            ),
            ("java/lang/Character", "charValue", "()C", ViewCall::Unbox),
            ("java/lang/Byte", "shortValue", "()S", ViewCall::Unbox),
            ("java/lang/Character", "hashCode", "()I", ViewCall::Other),
        ];
        for (class, name, descriptor, view) in expected {
            assert_eq!(
                classify(&call(class, name, descriptor)),
                view,
                "{class}.{name}"
            );
        }
    }
}

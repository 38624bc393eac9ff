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

const STRING: &str = "java/lang/String";

/// Which view a variable of some type has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewType {
    /// A `String`: its length.
    String,
    /// A collection or map: its size.
    Collection,
    /// An iterator: its counter and bound.
    Iterator,
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
    /// `m.keySet()`, `values()`, `entrySet()`: a view collection of the receiver's size.
    SameSize,
    /// `it.next()`: one more element of the receiver.
    Next,
    /// A call that changes no view (and no collection).
    ReadOnly,
    /// Any other call: it may modify any collection.
    Other,
}

/// What `call` does to the views, by the method it names.
pub fn classify(call: &ir::Call) -> ViewCall {
    if matches!(call.kind, CallKind::Dynamic(_)) {
        return ViewCall::Other;
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
        _ => ViewCall::Other,
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
            ViewType::Collection | ViewType::Iterator => matches!(
                classify(call),
                ViewCall::Size | ViewCall::Iterator | ViewCall::SameSize | ViewCall::Next
            ),
        };
        let passes = !matches!(call.kind, CallKind::Dynamic(_))
            && call.args.iter().any(|arg| match arg {
                Operand::Var(v) => view_type(&body.var(*v).ty) == Some(kind),
                Operand::Const(_) => false,
            });
        reads || passes
    })
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

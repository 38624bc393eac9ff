//! Which part of a heap a question is about. A JVM's heap holds the JDK's own objects (its
//! module graph, class-loader tables, interned strings) next to the program's; by default the
//! analyses look at what the program's roots reach: the static fields of application classes
//! and the locals of application methods' frames (library objects they reach included, such as
//! a `HashMap` the program uses). Application classes are those outside the JDK's namespaces.

use crate::snapshot::{ObjectIndex, Root, RootKind, Snapshot};

/// Which roots an analysis starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RootSelection {
    /// Statics of application classes and locals of application methods.
    #[default]
    Program,
    /// Every root of the snapshot: the whole live heap.
    All,
}

/// Name prefixes of the JDK's classes.
const LIBRARY_PREFIXES: [&str; 8] = [
    "java.",
    "javax.",
    "jdk.",
    "sun.",
    "com.sun.",
    "org.ietf.",
    "org.w3c.",
    "org.xml.",
];

const PRIMITIVES: [&str; 8] = [
    "boolean", "byte", "char", "short", "int", "long", "float", "double",
];

/// Whether a class (Java form, arrays by their element type) belongs to the application:
/// neither the JDK's nor a primitive array.
pub fn is_application_class(name: &str) -> bool {
    let element = name.trim_end_matches("[]");
    !PRIMITIVES.contains(&element) && !LIBRARY_PREFIXES.iter().any(|p| element.starts_with(p))
}

/// The class part of a root's holder: `pkg.C` of `pkg.C.f` or of `pkg.C.m(desc)`.
fn holder_class(holder: &str) -> Option<&str> {
    let member = holder.split('(').next()?;
    member.rsplit_once('.').map(|(class, _)| class)
}

/// Whether a root is one of the program's: a static field of an application class or a local
/// of an application method.
pub fn is_program_root(root: &Root) -> bool {
    matches!(root.kind, RootKind::Static | RootKind::Local)
        && holder_class(&root.holder).is_some_and(is_application_class)
}

/// The roots an analysis starts from.
pub fn selected_roots(snapshot: &Snapshot, selection: RootSelection) -> Vec<&Root> {
    snapshot
        .roots()
        .iter()
        .filter(|root| selection == RootSelection::All || is_program_root(root))
        .collect()
}

/// Which objects the selected roots reach.
pub fn reachable(snapshot: &Snapshot, selection: RootSelection) -> Vec<bool> {
    let mut seen = vec![false; snapshot.objects().len()];
    let mut stack: Vec<ObjectIndex> = Vec::new();
    for root in selected_roots(snapshot, selection) {
        if !seen[root.target as usize] {
            seen[root.target as usize] = true;
            stack.push(root.target);
        }
    }
    while let Some(object) = stack.pop() {
        for reference in snapshot.references(object) {
            let target = reference.target as usize;
            if !seen[target] {
                seen[target] = true;
                stack.push(reference.target);
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::tests::tiny;

    #[test]
    fn application_classes_are_outside_the_jdk() {
        assert!(is_application_class("pkg.Node"));
        assert!(is_application_class("Node[][]"));
        assert!(!is_application_class("java.util.HashMap$Node"));
        assert!(!is_application_class("int[]"));
        assert!(!is_application_class("jdk.internal.misc.Unsafe"));
    }

    #[test]
    fn program_roots_reach_what_they_point_to() {
        let snapshot = tiny(
            &[("A", &[("x", 2)]), ("B", &[]), ("C", &[])],
            &[("Main.a", 1), ("java.lang.System.out", 3)],
        );
        assert_eq!(
            reachable(&snapshot, RootSelection::Program),
            [true, true, false]
        );
        assert_eq!(reachable(&snapshot, RootSelection::All), [true, true, true]);
    }
}

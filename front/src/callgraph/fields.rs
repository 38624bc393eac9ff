//! What objects a field may hold, learnt from the stores into it: the field-based step of XTA.
//!
//! A call on an object read from a field (`static final Random RANDOM = new Random(42)`) has a
//! receiver created where the entry cannot see it (a class initializer or constructor that ran
//! before). Rapid type analysis knows no class for it, and the class-hierarchy fallback
//! dispatches to every implementation on the classpath (`SecureRandom` and all it reaches). But
//! the only code that can write a `final` field is its class's own, and a `private` one only its
//! nest's: when every store there puts a new object into the field, those objects' classes are
//! the field's, and a read of the field makes them receivers. A field whose writers cannot all
//! be seen, or that gets anything but a new object (a parameter, a call's result), stays
//! unknown and keeps the fallback.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap as HashMap;

use crate::classpath::Origin;
use crate::hierarchy::Hierarchy;
use crate::ir::{Body, Expr, Operand, Place, StmtKind, VarId};
use membound_jvm::{ClassName, FieldRef, Type};

/// How many copies (`a = b`, casts) a stored value is followed back through.
const COPY_DEPTH: usize = 8;

/// The classes each field read so far may hold (`None`: unknown), computed once per field.
#[derive(Default)]
pub(super) struct FieldClasses {
    known: HashMap<(ClassName, String), Option<BTreeSet<ClassName>>>,
}

impl FieldClasses {
    /// The classes of the objects `field` may hold, when every store into it is seen and
    /// stores a new object (or null).
    pub(super) fn of(
        &mut self,
        hierarchy: &Hierarchy<'_>,
        field: &FieldRef,
    ) -> Option<&BTreeSet<ClassName>> {
        let key = (field.class.clone(), field.name.to_string());
        if !self.known.contains_key(&key) {
            let classes = stored_classes(hierarchy, field);
            self.known.insert(key.clone(), classes);
        }
        self.known.get(&key).and_then(Option::as_ref)
    }
}

/// The classes stored into `field` by the only code that can write it, if that is all `new`.
fn stored_classes(hierarchy: &Hierarchy<'_>, field: &FieldRef) -> Option<BTreeSet<ClassName>> {
    if !matches!(field.ty, Type::Ref(_)) {
        return None;
    }
    let declaring = hierarchy.class(&field.class)?;
    let declared = declaring.fields.iter().find(|f| *f.name == *field.name)?;
    let writers = if declared.access.is_final() {
        vec![field.class.clone()]
    } else if declared.access.is_private() {
        nest(hierarchy, &field.class)?
    } else {
        return None;
    };
    let mut classes = BTreeSet::new();
    for writer in writers {
        let class = hierarchy.class(&writer)?;
        for method in class.methods.iter().filter(|m| m.code.is_some()) {
            let body = hierarchy.program().body(&method.reference(&writer)).ok()?;
            classes.extend(stores_into(&body, field)?);
        }
    }
    Some(classes)
}

/// The classes of a private field's nest: its class and the application's classes nested in
/// the same top-level class (they may write it directly). A JDK class's nest is not listed.
fn nest(hierarchy: &Hierarchy<'_>, class: &ClassName) -> Option<Vec<ClassName>> {
    let program = hierarchy.program();
    if program.origin(class) == Some(Origin::Jdk) {
        return None;
    }
    let internal = class.internal();
    let top = internal.split('$').next().unwrap_or(internal);
    let nested = format!("{top}$");
    Some(
        program
            .user_classes()
            .filter(|c| c.internal() == top || c.internal().starts_with(&nested))
            .cloned()
            .collect(),
    )
}

/// The classes `body` stores into `field`; `None` when a stored value is not a new object.
fn stores_into(body: &Body, field: &FieldRef) -> Option<BTreeSet<ClassName>> {
    let mut classes = BTreeSet::new();
    for (_, stmt) in body.statements() {
        let StmtKind::Store { place, value } = &stmt.kind else {
            continue;
        };
        let target = match place {
            Place::Static(target) | Place::Field { field: target, .. } => target,
            Place::ArrayElement { .. } => continue,
        };
        if target.class != field.class || *target.name != *field.name {
            continue;
        }
        match value {
            Operand::Const(_) => {}
            Operand::Var(var) => classes.extend(created(body, *var, COPY_DEPTH)?),
        }
    }
    Some(classes)
}

/// The classes of the new objects `var` may hold, following copies; `None` when any of its
/// definitions is something else, or it is a parameter.
fn created(body: &Body, var: VarId, depth: usize) -> Option<BTreeSet<ClassName>> {
    if body.params.contains(&var) {
        return None;
    }
    let mut classes = BTreeSet::new();
    let mut defined = false;
    for (_, stmt) in body.statements() {
        let StmtKind::Assign { dst, value } = &stmt.kind else {
            if matches!(&stmt.kind, StmtKind::Invoke { dst: Some(dst), .. } if *dst == var) {
                return None;
            }
            continue;
        };
        if *dst != var {
            continue;
        }
        defined = true;
        match value {
            Expr::New(class) => {
                classes.insert(class.clone());
            }
            Expr::Use(Operand::Const(_)) => {}
            Expr::Use(Operand::Var(source)) | Expr::CheckCast(Operand::Var(source), _)
                if depth > 0 =>
            {
                classes.extend(created(body, *source, depth - 1)?);
            }
            _ => return None,
        }
    }
    defined.then_some(classes)
}

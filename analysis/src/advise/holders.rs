//! Which of a method's own allocations the advice can free, and where their objects may be
//! held. An allocation is tracked when its objects can only ever be reached through the
//! method's variables, the static fields and fields of `this` only the method reads, and the
//! cells of arrays only the method's variable reaches and only at constant indices: they are
//! read through (elements, fields, lengths, comparisons) and copied between those, never passed
//! to a call, stored into another object, returned or thrown. Then once none of those places
//! holds one of them, every object of the allocation is unreachable, whichever execution made
//! it.

use std::collections::BTreeSet;

use membound_front::ir::{Body, Const, Expr, Operand, Place, Stmt, StmtKind, VarId, VarOrigin};
use membound_front::program::Program;
use membound_jvm::{FieldRef, MethodRef};

use super::references::{Location, Point, place_location, points};

/// The places besides variables that may hold a tracked allocation's objects.
struct Owned {
    /// Private fields of the method's class (static, or of `this`) no other method reads.
    fields: BTreeSet<FieldRef>,
    /// Variables holding an array only they reach, accessed at constant indices only.
    arrays: BTreeSet<VarId>,
}

impl Owned {
    /// Whether a tracked reference stored at `location` stays among the holders.
    fn may_hold(&self, location: &Location) -> bool {
        match location {
            Location::Var(_) => true,
            Location::Static(field) | Location::Field(field) => self.fields.contains(field),
            Location::Cell(array, _) => self.arrays.contains(array),
        }
    }
}

/// An allocation of the method whose objects only the holders may reach.
#[derive(Clone, Debug)]
pub(super) struct Tracked {
    /// The index of its local site.
    pub site: usize,
    /// The allocating statement.
    pub at: Point,
    pub holders: BTreeSet<Location>,
}

/// The tracked allocations among `own` (local site index, point of its statement), in
/// `body` of `method`.
pub(super) fn tracked(program: &Program, body: &Body, own: &[(usize, Point)]) -> Vec<Tracked> {
    let owned = Owned {
        fields: own_fields(program, body),
        arrays: own_arrays(body),
    };
    own.iter()
        .filter_map(|&(site, at)| {
            let StmtKind::Assign { dst, value } = &super::references::stmt_at(body, at)?.kind
            else {
                return None;
            };
            matches!(value, Expr::New(_) | Expr::NewArray { .. }).then_some(())?;
            let holders = holders(body, *dst, &owned)?;
            Some(Tracked { site, at, holders })
        })
        .collect()
}

/// The places an object stored into `first` may be copied to, or `None` when it may leave
/// them.
fn holders(body: &Body, first: VarId, owned: &Owned) -> Option<BTreeSet<Location>> {
    let mut holders = BTreeSet::from([Location::Var(first)]);
    loop {
        let before = holders.len();
        for (_, stmt) in points(body) {
            for location in copies(body, stmt, &holders, owned)? {
                holders.insert(location);
            }
        }
        for block in &body.blocks {
            let operands = block.terminator.operands();
            let leaves = matches!(
                block.terminator,
                membound_front::ir::Terminator::Return(_)
                    | membound_front::ir::Terminator::Throw(_)
                    | membound_front::ir::Terminator::Switch { .. }
            );
            if leaves && operands.iter().any(|op| holds(&holders, op)) {
                return None;
            }
        }
        if holders.len() == before {
            return Some(holders);
        }
    }
}

fn holds(holders: &BTreeSet<Location>, operand: &Operand) -> bool {
    matches!(operand, Operand::Var(var) if holders.contains(&Location::Var(*var)))
}

/// Where a statement copies a held reference to; `None` when it lets one leave the holders.
fn copies(
    body: &Body,
    stmt: &Stmt,
    holders: &BTreeSet<Location>,
    owned: &Owned,
) -> Option<Vec<Location>> {
    let is_held = |op: &Operand| holds(holders, op);
    let reads_held = stmt.operands().into_iter().any(is_held);
    match &stmt.kind {
        StmtKind::Assign { dst, value } => {
            let reference = |var: &VarId| body.var(*var).ty.is_reference();
            match value {
                Expr::Use(op) | Expr::CheckCast(op, _) if is_held(op) => {
                    Some(vec![Location::Var(*dst)])
                }
                Expr::Load(place)
                    if place_location(body, place).is_some_and(|at| holders.contains(&at)) =>
                {
                    Some(vec![Location::Var(*dst)])
                }
                // An element or field read through a held reference may be a part of the
                // same allocation (a row of a `new int[n][m]`).
                Expr::Load(Place::ArrayElement { array: base, .. })
                | Expr::Load(Place::Field { object: base, .. })
                    if is_held(base) =>
                {
                    Some(if reference(dst) {
                        vec![Location::Var(*dst)]
                    } else {
                        Vec::new()
                    })
                }
                Expr::ArrayLength(_) | Expr::InstanceOf(..) => Some(Vec::new()),
                _ if reads_held => None,
                _ => Some(Vec::new()),
            }
        }
        StmtKind::Store { place, value } => {
            if is_held(value) {
                let at = place_location(body, place).filter(|at| owned.may_hold(at))?;
                return Some(vec![at]);
            }
            // Writing into a held object or array keeps the reference where it is.
            Some(Vec::new())
        }
        StmtKind::Invoke { .. } if reads_held => None,
        StmtKind::Invoke { .. } | StmtKind::Monitor { .. } => Some(Vec::new()),
    }
}

/// The variables holding an array the method made, that nothing but them reaches and that is
/// accessed at constant indices only: set once, from the allocation, and read only for an
/// element at a constant index, a store there, or the length.
fn own_arrays(body: &Body) -> BTreeSet<VarId> {
    let mut made = BTreeSet::new();
    let mut refused = BTreeSet::new();
    for (_, stmt) in points(body) {
        if let StmtKind::Assign { dst, value } = &stmt.kind {
            let once = !made.contains(dst) && !refused.contains(dst);
            let slotted = matches!(body.var(*dst).origin, VarOrigin::Local(_));
            if once && slotted && matches!(value, Expr::NewArray { .. }) {
                made.insert(*dst);
            } else {
                refused.insert(*dst);
            }
        }
        if let StmtKind::Invoke { dst: Some(dst), .. } = &stmt.kind {
            refused.insert(*dst);
        }
        refused.extend(other_uses(stmt));
    }
    for block in &body.blocks {
        for operand in block.terminator.operands() {
            if let Operand::Var(var) = operand {
                refused.insert(*var);
            }
        }
    }
    made.difference(&refused).copied().collect()
}

/// The variables a statement reads other than as the array of an element at a constant index
/// or of a length.
fn other_uses(stmt: &Stmt) -> Vec<VarId> {
    let element_at_constant = |place: &Place, operand: &Operand| matches!(place, Place::ArrayElement { array, index: Operand::Const(Const::Int(_)) } if std::ptr::eq(array, operand));
    let operands = stmt.operands();
    operands
        .into_iter()
        .filter(|operand| match &stmt.kind {
            StmtKind::Assign {
                value: Expr::Load(place),
                ..
            }
            | StmtKind::Store { place, .. } => !element_at_constant(place, operand),
            StmtKind::Assign {
                value: Expr::ArrayLength(array),
                ..
            } => !std::ptr::eq(array, *operand),
            _ => true,
        })
        .filter_map(|operand| match operand {
            Operand::Var(var) => Some(*var),
            Operand::Const(_) => None,
        })
        .collect()
}

/// The fields the advice may clear in `body`'s method: private fields of its class that the
/// method writes, static ones or those of `this` (which it then reaches only through `this`),
/// and no other method of its nest (the top-level class and the classes nested in it) reads.
/// Code outside the class cannot read them (reflection aside), so after the method's last
/// read nothing reads them before the method writes them again.
fn own_fields(program: &Program, body: &Body) -> BTreeSet<FieldRef> {
    let class_name = &body.method.class;
    let Ok(class) = program.class(class_name) else {
        return BTreeSet::new();
    };
    let private = |field: &FieldRef, is_static: bool| {
        class
            .fields
            .iter()
            .any(|f| f.name == field.name && f.is_static() == is_static && f.access.is_private())
    };
    let through_this = this_unchanged(body);
    let written: BTreeSet<FieldRef> = points(body)
        .filter_map(|(_, stmt)| match &stmt.kind {
            StmtKind::Store { place, .. } => match place_location(body, place)? {
                Location::Static(field) => private(&field, true).then_some(field),
                Location::Field(field) => (through_this && private(&field, false)).then_some(field),
                _ => None,
            },
            _ => None,
        })
        .filter(|field| field.class == *class_name)
        .collect();
    if written.is_empty() {
        return written;
    }
    // Private members are shared by a nest: the top-level class and every class nested in it.
    let host = class_name.internal().split('$').next().unwrap_or_default();
    let nested_prefix = format!("{host}$");
    let classes: Vec<_> = program
        .user_classes()
        .filter(|name| name.internal() == host || name.internal().starts_with(&nested_prefix))
        .cloned()
        .collect();
    let mut read_elsewhere = reached_otherwise(body);
    for name in &classes {
        let Ok(class) = program.class(name) else {
            // A class we cannot read may read the fields.
            return BTreeSet::new();
        };
        for method in &class.methods {
            let reference = MethodRef {
                class: name.clone(),
                name: method.name.clone(),
                descriptor: method.descriptor.clone(),
            };
            if reference == body.method || method.code.is_none() {
                continue;
            }
            let Ok(other) = program.body(&reference) else {
                return BTreeSet::new();
            };
            read_elsewhere.extend(field_reads(&other));
        }
    }
    written.difference(&read_elsewhere).cloned().collect()
}

/// Whether the method is an instance method whose `this` nothing overwrites.
fn this_unchanged(body: &Body) -> bool {
    !body.is_static
        && points(body).all(|(_, stmt)| match &stmt.kind {
            StmtKind::Assign { dst, .. } | StmtKind::Invoke { dst: Some(dst), .. } => {
                body.var(*dst).origin != VarOrigin::This
            }
            _ => true,
        })
}

/// The fields a body reads (static, or of any object).
fn field_reads(body: &Body) -> BTreeSet<FieldRef> {
    points(body)
        .filter_map(|(_, stmt)| match &stmt.kind {
            StmtKind::Assign {
                value: Expr::Load(Place::Static(field) | Place::Field { field, .. }),
                ..
            } => Some(field.clone()),
            _ => None,
        })
        .collect()
}

/// The instance fields the method reads or writes in an object other than `this` (which may be
/// `this` under another name).
fn reached_otherwise(body: &Body) -> BTreeSet<FieldRef> {
    let other = |place: &Place| match place {
        Place::Field { field, .. } if place_location(body, place).is_none() => Some(field.clone()),
        _ => None,
    };
    points(body)
        .filter_map(|(_, stmt)| match &stmt.kind {
            StmtKind::Assign {
                value: Expr::Load(place),
                ..
            }
            | StmtKind::Store { place, .. } => other(place),
            _ => None,
        })
        .collect()
}

//! Which of a method's own allocations the advice can free, and where their objects may be
//! held. An allocation is tracked when its objects can only ever be reached through the
//! method's variables and static fields only the method reads: they are read through
//! (elements, fields, lengths, comparisons) and copied between those, never passed to a call,
//! stored into another object, returned or thrown. Then once none of those places holds one
//! of them, every object of the allocation is unreachable, whichever execution made it.

use std::collections::BTreeSet;

use membound_front::ir::{Body, Expr, Operand, Place, Stmt, StmtKind, VarId};
use membound_front::program::Program;
use membound_jvm::{FieldRef, MethodRef};

use super::references::{Location, Point, points, stmt_operands, terminator_operands};

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
    let statics = own_statics(program, body);
    own.iter()
        .filter_map(|&(site, at)| {
            let StmtKind::Assign { dst, value } = &super::references::stmt_at(body, at)?.kind
            else {
                return None;
            };
            matches!(value, Expr::New(_) | Expr::NewArray { .. }).then_some(())?;
            let holders = holders(body, *dst, &statics)?;
            Some(Tracked { site, at, holders })
        })
        .collect()
}

/// The places an object stored into `first` may be copied to, or `None` when it may leave
/// them.
fn holders(body: &Body, first: VarId, statics: &BTreeSet<FieldRef>) -> Option<BTreeSet<Location>> {
    let mut holders = BTreeSet::from([Location::Var(first)]);
    loop {
        let before = holders.len();
        for (_, stmt) in points(body) {
            for location in copies(body, stmt, &holders, statics)? {
                holders.insert(location);
            }
        }
        for block in &body.blocks {
            let operands = terminator_operands(&block.terminator);
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
    statics: &BTreeSet<FieldRef>,
) -> Option<Vec<Location>> {
    let is_held = |op: &Operand| holds(holders, op);
    let reads_held = stmt_operands(stmt).0.into_iter().any(is_held);
    match &stmt.kind {
        StmtKind::Assign { dst, value } => {
            let reference = |var: &VarId| body.var(*var).ty.is_reference();
            match value {
                Expr::Use(op) | Expr::CheckCast(op, _) if is_held(op) => {
                    Some(vec![Location::Var(*dst)])
                }
                Expr::Load(Place::Static(field))
                    if holders.contains(&Location::Static(field.clone())) =>
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
                return match place {
                    Place::Static(field) if statics.contains(field) => {
                        Some(vec![Location::Static(field.clone())])
                    }
                    _ => None,
                };
            }
            // Writing into a held object or array keeps the reference where it is.
            Some(Vec::new())
        }
        StmtKind::Invoke { .. } if reads_held => None,
        StmtKind::Invoke { .. } | StmtKind::Monitor { .. } => Some(Vec::new()),
    }
}

/// The static fields the advice may clear in `body`'s method: private fields of its class
/// that the method writes and no other method of its nest (the top-level class and the classes
/// nested in it) reads.
/// Code outside the class cannot read them (reflection aside), so after the method's last
/// read nothing reads them before the method writes them again.
fn own_statics(program: &Program, body: &Body) -> BTreeSet<FieldRef> {
    let class_name = &body.method.class;
    let Ok(class) = program.class(class_name) else {
        return BTreeSet::new();
    };
    let written: BTreeSet<FieldRef> = points(body)
        .filter_map(|(_, stmt)| match &stmt.kind {
            StmtKind::Store {
                place: Place::Static(field),
                ..
            } if field.class == *class_name => Some(field.clone()),
            _ => None,
        })
        .filter(|field| {
            class
                .fields
                .iter()
                .any(|f| f.name == field.name && f.is_static() && f.access.is_private())
        })
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
    let mut read_elsewhere = BTreeSet::new();
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
            read_elsewhere.extend(static_reads(&other));
        }
    }
    written.difference(&read_elsewhere).cloned().collect()
}

/// The static fields a body reads.
fn static_reads(body: &Body) -> BTreeSet<FieldRef> {
    points(body)
        .filter_map(|(_, stmt)| match &stmt.kind {
            StmtKind::Assign {
                value: Expr::Load(Place::Static(field)),
                ..
            } => Some(field.clone()),
            _ => None,
        })
        .collect()
}

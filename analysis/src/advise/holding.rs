//! Which tracked allocations' objects a method may still hold at each point: a forward
//! may-analysis over the places the holders name, with an advice's `x = null` applied.
//!
//! A variable of a local-variable slot holds what was last written to the slot until the
//! method returns (the interpreter's frames keep dead locals), so writing any variable of a
//! slot, or nulling it, drops what its other variables held. An operand-stack variable holds
//! its value only while it is live (the stack pops what it consumes).

use std::collections::BTreeSet;

use membound_front::ir::{Body, Expr, Operand, Place, StmtKind, VarId};

use super::holders::Tracked;
use super::references::{Liveness, Location, Point, place_location, slot, written};

/// `(place, tracked allocation index)`: the place may hold one of the allocation's objects.
type Held = BTreeSet<(Location, usize)>;

/// An advice: `location = null` inserted before the statement at `point`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Nulling {
    pub point: Point,
    pub location: Location,
}

/// What may be held before each statement and terminator.
pub(super) struct Holding {
    before: Vec<Vec<Held>>,
}

impl Holding {
    pub fn of(body: &Body, tracked: &[Tracked], nulling: Option<&Nulling>) -> Holding {
        let mut before: Vec<Vec<Held>> = body
            .blocks
            .iter()
            .map(|block| vec![Held::new(); block.stmts.len() + 1])
            .collect();
        let mut entries: Vec<Held> = vec![Held::new(); body.blocks.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for (index, block) in body.blocks.iter().enumerate() {
                let mut held = entries[index].clone();
                let mut column = Vec::with_capacity(block.stmts.len() + 1);
                let mut thrown = Held::new();
                for (at, stmt) in block.stmts.iter().enumerate() {
                    let point = Point::new(membound_front::ir::BlockId(index as u32), at);
                    if let Some(nulling) = nulling.filter(|n| n.point == point) {
                        clear(body, &mut held, &nulling.location);
                    }
                    column.push(held.clone());
                    thrown.extend(held.iter().cloned());
                    step(body, tracked, point, &stmt.kind, &mut held);
                }
                thrown.extend(held.iter().cloned());
                column.push(held.clone());
                let targets = block
                    .terminator
                    .successors()
                    .into_iter()
                    .map(|t| (t, &held));
                let handlers = block.handlers.iter().map(|h| (h.target, &thrown));
                for (target, flowing) in targets.chain(handlers) {
                    let entry = &mut entries[target.0 as usize];
                    let size = entry.len();
                    entry.extend(flowing.iter().cloned());
                    changed |= entry.len() != size;
                }
                if column != before[index] {
                    before[index] = column;
                    changed = true;
                }
            }
        }
        Holding { before }
    }

    /// Whether some place may hold an object of tracked allocation `tracked` at `point`.
    pub fn holds(&self, body: &Body, liveness: &Liveness, tracked: usize, point: Point) -> bool {
        self.before[point.block.0 as usize][point.index]
            .iter()
            .filter(|(_, t)| *t == tracked)
            .any(|(location, _)| match location {
                Location::Var(var) if slot(body, *var).is_none() => {
                    liveness.live(point).contains(location)
                }
                _ => true,
            })
    }

    /// Whether `location` may hold an object of some tracked allocation at `point`.
    pub fn holds_at(&self, location: &Location, point: Point) -> bool {
        self.before[point.block.0 as usize][point.index]
            .iter()
            .any(|(held, _)| held == location)
    }
}

/// The effect of one statement on what is held.
fn step(body: &Body, tracked: &[Tracked], point: Point, kind: &StmtKind, held: &mut Held) {
    let copied_from: Vec<Location> = match kind {
        StmtKind::Assign { value, .. } => match value {
            Expr::Use(Operand::Var(var)) | Expr::CheckCast(Operand::Var(var), _) => {
                vec![Location::Var(*var)]
            }
            // An element or field read through a held reference may be a part of the same
            // allocation; a static, a field of `this` or a cell holds what was stored there.
            Expr::Load(place) => {
                let through = match place {
                    Place::ArrayElement {
                        array: Operand::Var(var),
                        ..
                    }
                    | Place::Field {
                        object: Operand::Var(var),
                        ..
                    } => Some(Location::Var(*var)),
                    _ => None,
                };
                through
                    .into_iter()
                    .chain(place_location(body, place))
                    .collect()
            }
            _ => Vec::new(),
        },
        StmtKind::Store {
            value: Operand::Var(var),
            ..
        } => vec![Location::Var(*var)],
        _ => Vec::new(),
    };
    let mut gained: Vec<usize> = held
        .iter()
        .filter(|(location, _)| copied_from.contains(location))
        .map(|(_, t)| *t)
        .collect();
    gained.extend(
        tracked
            .iter()
            .enumerate()
            .filter(|(_, t)| t.at == point)
            .map(|(index, _)| index),
    );
    if let Some(target) = written(body, kind) {
        if !holds_references(body, &target) {
            gained.clear();
        }
        clear(body, held, &target);
        held.extend(gained.into_iter().map(|t| (target.clone(), t)));
    }
}

/// Whether a place can hold a reference at all (an `int` loaded from a held array cannot).
fn holds_references(body: &Body, location: &Location) -> bool {
    match location {
        Location::Var(var) => body.var(*var).ty.is_reference(),
        Location::Static(field) | Location::Field(field) => field.ty.is_reference(),
        Location::Cell(array, _) => body
            .var(*array)
            .ty
            .element()
            .is_some_and(|element| element.is_reference()),
    }
}

/// Drops what `location` (and the other variables of the slots it takes) held.
fn clear(body: &Body, held: &mut Held, location: &Location) {
    let same_slot = |var: &VarId| match (location, slot(body, *var)) {
        (Location::Var(target), Some(s)) => slot(body, *target).is_some_and(|t| {
            // A long or a double takes its slot and the next one.
            t == s || (body.var(*target).ty.is_wide() && t + 1 == s)
        }),
        _ => false,
    };
    held.retain(|(place, _)| match place {
        Location::Var(var) => place != location && !same_slot(var),
        _ => place != location,
    });
}

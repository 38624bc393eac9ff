//! The places of one method body that hold references and the advice can clear (its variables,
//! static fields, fields of `this` and cells of an array at constant indices), what each
//! statement reads and writes of them, and which are live — read again before being written on
//! some path, exception edges included — at each point.

use std::collections::BTreeSet;

use membound_front::ir::{
    BlockId, Body, Const, Expr, Operand, Place, Stmt, StmtKind, VarId, VarOrigin,
};

use membound_jvm::FieldRef;

/// A place that may hold a reference.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Location {
    Var(VarId),
    Static(FieldRef),
    /// A field of `this`.
    Field(FieldRef),
    /// A cell of the array a variable holds, at a constant index.
    Cell(VarId, i32),
}

/// The location a field or array element names: a static field, a field of `this`, or a cell
/// at a constant index; `None` for a field of another object or a cell at a computed index.
pub(super) fn place_location(body: &Body, place: &Place) -> Option<Location> {
    match place {
        Place::Static(field) => Some(Location::Static(field.clone())),
        Place::Field {
            object: Operand::Var(object),
            field,
        } if body.var(*object).origin == VarOrigin::This => Some(Location::Field(field.clone())),
        Place::ArrayElement {
            array: Operand::Var(array),
            index: Operand::Const(Const::Int(index)),
        } => Some(Location::Cell(*array, *index)),
        _ => None,
    }
}

/// A position in a body: before statement `index` of `block` (`index == stmts.len()`: before
/// its terminator).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Point {
    pub block: BlockId,
    pub index: usize,
}

impl Point {
    pub fn new(block: BlockId, index: usize) -> Point {
        Point { block, index }
    }
}

/// The statement at `point`, if it is not a terminator.
pub(super) fn stmt_at(body: &Body, point: Point) -> Option<&Stmt> {
    body.block(point.block).stmts.get(point.index)
}

/// Every statement's point, in block order.
pub(super) fn points(body: &Body) -> impl Iterator<Item = (Point, &Stmt)> {
    body.blocks.iter().enumerate().flat_map(|(b, block)| {
        block
            .stmts
            .iter()
            .enumerate()
            .map(move |(i, stmt)| (Point::new(BlockId(b as u32), i), stmt))
    })
}

fn var_of(operand: &Operand) -> Option<VarId> {
    match operand {
        Operand::Var(var) => Some(*var),
        Operand::Const(_) => None,
    }
}

/// The locations a statement reads.
fn reads(body: &Body, stmt: &Stmt) -> Vec<Location> {
    let mut read: Vec<Location> = stmt
        .operands()
        .into_iter()
        .filter_map(var_of)
        .map(Location::Var)
        .collect();
    if let StmtKind::Assign {
        value: Expr::Load(place),
        ..
    } = &stmt.kind
    {
        read.extend(place_location(body, place));
    }
    read
}

/// The location a statement writes, if any.
pub(super) fn written(body: &Body, kind: &StmtKind) -> Option<Location> {
    match kind {
        StmtKind::Assign { dst, .. } | StmtKind::Invoke { dst: Some(dst), .. } => {
            Some(Location::Var(*dst))
        }
        StmtKind::Store { place, .. } => place_location(body, place),
        _ => None,
    }
}

/// The local-variable slot of a variable (operand-stack variables have none): variables of
/// one slot share one place in the frame, so writing one overwrites the others.
pub(super) fn slot(body: &Body, var: VarId) -> Option<u16> {
    match body.var(var).origin {
        VarOrigin::This => Some(0),
        VarOrigin::Local(slot) => Some(slot),
        VarOrigin::Stack(_) => None,
        VarOrigin::Param(n) => {
            let mut slot = u16::from(!body.is_static);
            let declared = body.params.iter().skip(usize::from(!body.is_static));
            for (index, param) in declared.enumerate() {
                if index == usize::from(n) {
                    return Some(slot);
                }
                slot += if body.var(*param).ty.is_wide() { 2 } else { 1 };
            }
            None
        }
    }
}

/// The predecessors of each block, exception edges included.
pub(super) fn predecessors(body: &Body) -> Vec<Vec<BlockId>> {
    let mut preds = vec![Vec::new(); body.blocks.len()];
    for (index, block) in body.blocks.iter().enumerate() {
        let successors = block.terminator.successors();
        let handlers = block.handlers.iter().map(|h| h.target);
        for target in successors.into_iter().chain(handlers) {
            preds[target.0 as usize].push(BlockId(index as u32));
        }
    }
    preds
}

/// The locations live before each statement and terminator.
pub(super) struct Liveness {
    before: Vec<Vec<BTreeSet<Location>>>,
}

impl Liveness {
    /// Backward liveness; `at_exit` is live wherever the method may leave (by a return or an
    /// exception any statement may throw).
    pub fn of(body: &Body, at_exit: &BTreeSet<Location>) -> Liveness {
        let mut before: Vec<Vec<BTreeSet<Location>>> = body
            .blocks
            .iter()
            .map(|block| vec![BTreeSet::new(); block.stmts.len() + 1])
            .collect();
        let entry_of = |before: &Vec<Vec<BTreeSet<Location>>>, block: BlockId| {
            before[block.0 as usize][0].clone()
        };
        let mut changed = true;
        while changed {
            changed = false;
            for (index, block) in body.blocks.iter().enumerate().rev() {
                let mut always = at_exit.clone();
                for handler in &block.handlers {
                    always.extend(entry_of(&before, handler.target));
                }
                let mut live = always.clone();
                for successor in block.terminator.successors() {
                    live.extend(entry_of(&before, successor));
                }
                let operands = block.terminator.operands();
                live.extend(operands.into_iter().filter_map(var_of).map(Location::Var));
                let mut column = vec![live.clone()];
                for stmt in block.stmts.iter().rev() {
                    if let Some(location) = written(body, &stmt.kind) {
                        live.remove(&location);
                    }
                    live.extend(reads(body, stmt));
                    live.extend(always.iter().cloned());
                    column.push(live.clone());
                }
                column.reverse();
                if column != before[index] {
                    before[index] = column;
                    changed = true;
                }
            }
        }
        Liveness { before }
    }

    pub fn live(&self, point: Point) -> &BTreeSet<Location> {
        &self.before[point.block.0 as usize][point.index]
    }
}

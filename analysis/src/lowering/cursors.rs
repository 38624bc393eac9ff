//! Cursors of the program's own over linked structures: an `Iterator` or `Enumeration` whose
//! field holds the node it will return next (`current`) and whose `next()` moves it along the
//! nodes' field (`current = n.next`), as JOlden's lists enumerate their nodes.
//!
//! A cursor's *rest* is the number of nodes reachable from its field: a constructor that sets the
//! field to its argument starts it at the argument's chain, `hasNext()` is true only while the
//! field holds a node (rest at least 1), and `next()` returns normally only from a node, one
//! step further. The classification here is by the shapes of the class's methods, checked path by
//! path on their bodies, and by the call graph: no method the program may run stores the field
//! except the class's constructors and its `next()`s. A call of another `next()` on the same
//! object (an alias) only shortens the rest, so the walking method's view — the rest at
//! creation less its own `next()` calls — is never below the truth; `hasNext()` is taken as
//! possibly false at any time, so a loop may always leave. Being above the truth, the rest is
//! the chain a `next()` call passes its callee only where nothing else may move the cursor
//! ([`super::chains::Walks::exclusive_cursors`]); elsewhere a guard fact may say the chain has a
//! node ([`super::guards`]).
//!
//! It only classifies; [`super::chains`] gives the locals their rests and [`super::body`] the
//! actions.

use std::collections::{BTreeMap, BTreeSet};

use membound_front::ir::{self, CmpOp, Const, Expr, Operand, Place, StmtKind, Terminator};
use membound_front::program::Program;
use membound_jvm::{FieldRef, MethodRef, Type};

/// What a call does to a cursor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CursorCall {
    /// A constructor (on its receiver) or a factory (its result) makes a cursor at the chain
    /// from `start`.
    Create { start: Start, cursor: Cursor },
    /// `hasNext()`: true only while the receiver's field holds a node.
    HasMore(Cursor),
    /// `next()`: returns normally only from a node, and moves one step along the chain.
    Advance(Cursor),
}

impl CursorCall {
    pub fn cursor(&self) -> &Cursor {
        match self {
            CursorCall::Create { cursor, .. }
            | CursorCall::HasMore(cursor)
            | CursorCall::Advance(cursor) => cursor,
        }
    }
}

/// Where a new cursor starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// At the call's argument of this index.
    Argument(usize),
    /// At this field of the call's receiver (`list.elements()` starting at `list.first`).
    ReceiverField(FieldRef),
}

/// A cursor class's field and the nodes' field it moves along.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    pub field: FieldRef,
    pub follows: FieldRef,
}

/// How a method acts on a cursor field, from its body alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CursorMethod {
    /// Returns non-zero only while `this.field` holds a node, and stores nothing into it.
    HasMore(FieldRef),
    /// Every normal return has stored into `this.field` once, the node it held before followed
    /// along `follows`.
    Advance { field: FieldRef, follows: FieldRef },
}

/// Paths through a body further than this are not checked (the method is not a cursor's).
const MAX_PATHS: usize = 64;

/// What `method` does to a cursor field, by its shape: `hasNext()` or `next()` of a cursor.
pub fn cursor_method(java: &Program, method: &MethodRef) -> Option<CursorMethod> {
    let body = java.body(method).ok()?;
    let this = this_of(&body)?;
    if let Some(bridged) = bridged(&body, this) {
        return cursor_method(java, &bridged);
    }
    if body.blocks.iter().any(|b| !b.handlers.is_empty()) {
        return None;
    }
    let descriptor = method.parsed_descriptor().ok()?;
    let returns_boolean = descriptor.params.is_empty() && descriptor.ret == Some(Type::Boolean);
    let returns_object =
        descriptor.params.is_empty() && matches!(descriptor.ret, Some(Type::Ref(_)));
    let outcomes = path_outcomes(&body, this)?;
    let mut fields = outcomes.iter().filter_map(|o| o.tested.clone());
    if returns_boolean {
        let field = fields.next()?;
        let all = outcomes.iter().all(|o| {
            o.stores.is_empty()
                && (o.returns_zero || o.tested.as_ref() == Some(&field) && o.present)
        });
        return all.then_some(CursorMethod::HasMore(field));
    }
    if !returns_object {
        return None;
    }
    let (field, follows) = outcomes.first()?.stores.first()?.clone();
    let follows = follows?;
    outcomes
        .iter()
        .all(|o| o.stores == [(field.clone(), Some(follows.clone()))])
        .then_some(CursorMethod::Advance { field, follows })
}

/// The method a bridge calls (`Object next()` of a class implementing `Iterator<Node>` calls
/// its `Node next()` on `this` and returns the result), when `body` is one.
fn bridged(body: &ir::Body, this: ir::VarId) -> Option<MethodRef> {
    let [block] = body.blocks.as_slice() else {
        return None;
    };
    let (call, mut result) = match block.stmts.first().map(|s| &s.kind) {
        Some(StmtKind::Invoke {
            dst: Some(dst),
            call,
        }) if call.receiver == Some(Operand::Var(this))
            && call.method.name == body.method.name
            && call.method.descriptor != body.method.descriptor
            && call.args.is_empty() =>
        {
            (call, *dst)
        }
        _ => return None,
    };
    for stmt in &block.stmts[1..] {
        match &stmt.kind {
            StmtKind::Assign {
                dst,
                value: Expr::CheckCast(Operand::Var(source), _) | Expr::Use(Operand::Var(source)),
            } if *source == result => result = *dst,
            _ => return None,
        }
    }
    (block.terminator == Terminator::Return(Some(Operand::Var(result))))
        .then(|| call.method.clone())
}

/// The cursor field a cursor's own method reads only before it stores it (every load of
/// `this.field` on no path after a store): its value at entry is a root of the method's walks
/// although the method writes it (`n = current; if (n == null) throw …; current = n.next`).
pub fn own_cursor_field(java: &Program, method: &MethodRef) -> Option<FieldRef> {
    let field = match cursor_method(java, method)? {
        CursorMethod::HasMore(field) | CursorMethod::Advance { field, .. } => field,
    };
    let body = java.body(method).ok()?;
    let this = this_of(&body)?;
    let stores = |stmt: &ir::Stmt| matches!(&stmt.kind, StmtKind::Store { place: Place::Field { field: f, .. }, .. } if *f == field);
    let loads = |stmt: &ir::Stmt| {
        matches!(&stmt.kind, StmtKind::Assign { value: Expr::Load(Place::Field {
            object: Operand::Var(object), field: f }), .. } if *object == this && *f == field)
    };
    // The blocks a store's successors reach; a load there, or after the store in its block,
    // may read the stored value.
    let mut after_store: Vec<usize> = Vec::new();
    for block in &body.blocks {
        if let Some(at) = block.stmts.iter().position(stores) {
            if block.stmts[at..].iter().any(loads) {
                return None;
            }
            after_store.extend(block.terminator.successors().iter().map(|b| b.0 as usize));
        }
    }
    let mut reached = BTreeSet::new();
    while let Some(block) = after_store.pop() {
        if block >= body.blocks.len() || !reached.insert(block) {
            continue;
        }
        if body.blocks[block].stmts.iter().any(loads) {
            return None;
        }
        after_store.extend(
            body.blocks[block]
                .terminator
                .successors()
                .iter()
                .map(|b| b.0 as usize),
        );
    }
    Some(field)
}

/// The variable holding `this` in an instance method's body.
fn this_of(body: &ir::Body) -> Option<ir::VarId> {
    body.params
        .iter()
        .copied()
        .find(|&v| body.var(v).origin == ir::VarOrigin::This)
}

/// What one path to a normal return did.
#[derive(Clone, Debug, Default)]
struct Outcome {
    /// The reference field of `this` whose null test the path passed on its non-null side, or
    /// whose value it loaded.
    tested: Option<FieldRef>,
    /// Whether that field held a node at the return.
    present: bool,
    /// Whether the value returned is the constant 0 (false).
    returns_zero: bool,
    /// Its stores into reference fields of `this`: the field and, when the value stored was the
    /// field's value at entry followed along a field, that field.
    stores: Vec<(FieldRef, Option<FieldRef>)>,
}

/// What each path of `body` to a normal return did; `None` when a path loops, switches,
/// stores a reference field of another object than `this`, or there are too many paths.
fn path_outcomes(body: &ir::Body, this: ir::VarId) -> Option<Vec<Outcome>> {
    let mut outcomes = Vec::new();
    let mut pending = vec![(0usize, PathState::default(), Vec::<usize>::new())];
    while let Some((block, mut state, mut visited)) = pending.pop() {
        if visited.contains(&block) || outcomes.len() + pending.len() > MAX_PATHS {
            return None;
        }
        visited.push(block);
        let block_ir = &body.blocks[block];
        for stmt in &block_ir.stmts {
            state.step(stmt, this)?;
        }
        match &block_ir.terminator {
            Terminator::Goto(target) => pending.push((target.0 as usize, state, visited)),
            Terminator::If {
                op,
                lhs,
                rhs,
                then_target,
                else_target,
            } => {
                for (target, holds) in [(then_target, true), (else_target, false)] {
                    let mut next = state.clone();
                    next.branch(*op, lhs, rhs, holds);
                    pending.push((target.0 as usize, next, visited.clone()));
                }
            }
            Terminator::Return(value) => outcomes.push(state.outcome(value.as_ref())),
            Terminator::Throw(_) => {}
            Terminator::Switch { .. } => return None,
        }
    }
    Some(outcomes)
}

/// What a path knows so far.
#[derive(Clone, Debug, Default)]
struct PathState {
    /// Locals holding `this.f` as it was at entry, by `f`.
    loaded: BTreeMap<ir::VarId, FieldRef>,
    /// Locals holding the entry value of `this.f` followed along `g`: (f, g).
    followed: BTreeMap<ir::VarId, (FieldRef, FieldRef)>,
    /// Integer locals holding a constant.
    constants: BTreeMap<ir::VarId, i32>,
    /// The field of `this` known to hold a node now.
    present: Option<FieldRef>,
    /// The field of `this` the path tested or loaded.
    tested: Option<FieldRef>,
    stores: Vec<(FieldRef, Option<FieldRef>)>,
    /// Fields of `this` stored so far: their loads no longer read the entry value.
    changed: BTreeSet<FieldRef>,
}

impl PathState {
    fn forget(&mut self, var: ir::VarId) {
        self.loaded.remove(&var);
        self.followed.remove(&var);
        self.constants.remove(&var);
    }

    /// The effect of one statement; `None` when the method cannot be a cursor's.
    fn step(&mut self, stmt: &ir::Stmt, this: ir::VarId) -> Option<()> {
        match &stmt.kind {
            StmtKind::Assign { dst, value } => {
                let (loaded, followed, constant) = self.value(value, this);
                self.forget(*dst);
                if let Some(field) = loaded {
                    self.loaded.insert(*dst, field);
                }
                if let Some(pair) = followed {
                    self.followed.insert(*dst, pair);
                }
                if let Some(c) = constant {
                    self.constants.insert(*dst, c);
                }
            }
            StmtKind::Invoke { dst, .. } => {
                // A call may move any cursor: what the path knew of `this`'s fields is gone.
                if let Some(dst) = dst {
                    self.forget(*dst);
                }
                self.present = None;
                self.loaded.clear();
                self.followed.clear();
                self.changed.extend(self.tested.clone());
            }
            StmtKind::Store {
                place: Place::Field { object, field },
                value,
            } if matches!(field.ty, Type::Ref(_)) => {
                if *object != Operand::Var(this) {
                    return None;
                }
                let follows = match value {
                    Operand::Var(v) => self
                        .followed
                        .get(v)
                        .filter(|(from, _)| from == field)
                        .map(|(_, follows)| follows.clone()),
                    Operand::Const(_) => None,
                };
                self.stores.push((field.clone(), follows));
                self.changed.insert(field.clone());
                if self.present.as_ref() == Some(field) {
                    self.present = None;
                }
            }
            StmtKind::Store { .. } | StmtKind::Monitor { .. } => {}
        }
        Some(())
    }

    /// What an assigned value is: the entry value of a field of `this`, that value followed,
    /// an integer constant.
    fn value(
        &mut self,
        value: &Expr,
        this: ir::VarId,
    ) -> (Option<FieldRef>, Option<(FieldRef, FieldRef)>, Option<i32>) {
        match value {
            Expr::Load(Place::Field {
                object: Operand::Var(object),
                field,
            }) if *object == this && matches!(field.ty, Type::Ref(_)) => {
                if self.changed.contains(field) {
                    return (None, None, None);
                }
                self.tested.get_or_insert_with(|| field.clone());
                (Some(field.clone()), None, None)
            }
            Expr::Load(Place::Field {
                object: Operand::Var(object),
                field: follows,
            }) => match self.loaded.get(object).cloned() {
                // The load succeeded, so the field held a node.
                Some(field) => {
                    self.present = Some(field.clone());
                    (None, Some((field, follows.clone())), None)
                }
                None => (None, None, None),
            },
            Expr::Use(Operand::Var(source)) | Expr::CheckCast(Operand::Var(source), _) => (
                self.loaded.get(source).cloned(),
                self.followed.get(source).cloned(),
                self.constants.get(source).copied(),
            ),
            Expr::Use(Operand::Const(Const::Int(c))) => (None, None, Some(*c)),
            _ => (None, None, None),
        }
    }

    /// What taking a branch says: a loaded field compared with null.
    fn branch(&mut self, op: CmpOp, lhs: &Operand, rhs: &Operand, holds: bool) {
        let loaded = |operand: &Operand| match operand {
            Operand::Var(v) => self.loaded.get(v).cloned(),
            Operand::Const(_) => None,
        };
        let null = |operand: &Operand| matches!(operand, Operand::Const(Const::Null));
        let field = match (loaded(lhs), loaded(rhs)) {
            (Some(field), None) if null(rhs) => field,
            (None, Some(field)) if null(lhs) => field,
            _ => return,
        };
        let non_null = match op {
            CmpOp::Eq => !holds,
            CmpOp::Ne => holds,
            _ => return,
        };
        if non_null {
            self.present = Some(field);
        }
    }

    fn outcome(&self, value: Option<&Operand>) -> Outcome {
        let returns_zero = match value {
            Some(Operand::Const(Const::Int(0))) => true,
            Some(Operand::Var(v)) => self.constants.get(v) == Some(&0),
            _ => false,
        };
        Outcome {
            tested: self.tested.clone(),
            present: self.present.is_some() && self.present == self.tested,
            returns_zero,
            stores: self.stores.clone(),
        }
    }
}

/// Where a factory's cursor starts: a method whose every normal return returns the one object
/// it created, used for nothing else, and constructed at one of the factory's parameters (never
/// reassigned) or at a field of its `this` read just before; with the field the constructor
/// sets. `constructor` says what a constructor stores (the linking field and the argument's
/// index).
pub fn factory_start(
    java: &Program,
    method: &MethodRef,
    constructor: &dyn Fn(&ir::Call) -> Option<(FieldRef, usize)>,
) -> Option<(FieldRef, Start)> {
    let body = java.body(method).ok()?;
    let mut returned = body.blocks.iter().filter_map(|b| match &b.terminator {
        Terminator::Return(Some(Operand::Var(v))) => Some(*v),
        _ => None,
    });
    let object = returned.next()?;
    if returned.any(|v| v != object) {
        return None;
    }
    let mut created = false;
    let mut linked = None;
    for (_, stmt) in body.statements() {
        let (operands, written) = (stmt.operands(), stmt.defined());
        match &stmt.kind {
            StmtKind::Assign {
                dst,
                value: Expr::New(_),
            } if *dst == object => {
                if created {
                    return None;
                }
                created = true;
            }
            StmtKind::Invoke { call, .. }
                if call.receiver == Some(Operand::Var(object))
                    && &*call.method.name == "<init>" =>
            {
                let (field, index) = constructor(call)?;
                let Some(Operand::Var(arg)) = call.args.get(index) else {
                    return None;
                };
                let start = match body.var(*arg).origin {
                    ir::VarOrigin::Param(param) if !body.assigns(*arg) => {
                        Start::Argument(usize::from(param))
                    }
                    _ => Start::ReceiverField(read_from_this(&body, *arg)?),
                };
                linked = Some((field, start));
            }
            _ if written == Some(object) => return None,
            _ if operands.contains(&&Operand::Var(object)) => return None,
            _ => {}
        }
    }
    linked.filter(|_| created)
}

/// The field of `this` that `var`'s one assignment reads, when that is all that assigns it.
fn read_from_this(body: &ir::Body, var: ir::VarId) -> Option<FieldRef> {
    let this = this_of(body)?;
    let mut definitions = body.statements().filter_map(|(_, stmt)| match &stmt.kind {
        StmtKind::Assign { dst, value } if *dst == var => Some(Some(value)),
        StmtKind::Invoke { dst, .. } if *dst == Some(var) => Some(None),
        _ => None,
    });
    let only = definitions.next()??;
    if definitions.next().is_some() {
        return None;
    }
    match only {
        Expr::Load(Place::Field {
            object: Operand::Var(object),
            field,
        }) if *object == this => Some(field.clone()),
        _ => None,
    }
}

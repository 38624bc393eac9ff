//! Walks along linked structures: a reference local that a loop moves along one field
//! (`p = p.next`, or `p = p.getNext()` through a getter of that field) until it is null.
//!
//! Each walked local gets a *rest* view: the number of nodes reachable from it along the field
//! before null. Testing the local against null says whether the rest is 0 or at least 1, and a
//! step decrements it, so a walk's iterations are bounded by the rest its start had. A start
//! is a *root* the method's callers can name: a reference parameter the method never
//! reassigns, or a field of `this` or of such a parameter; each root's chain length is a
//! formal (`head_length`), whose origin says what it is and which the agent records at the
//! method's entry. This holds while the structure is acyclic along the field and nothing
//! changes the field (nor a root field) during the method: the method's own stores and those
//! of everything it calls are checked, the rest is the assumption [`ACYCLIC_CHAINS`].
//!
//! A list the method builds itself is walked too: a local set to null has no node, one set to
//! a new object one (its constructor must not write the field), and a store of the field into
//! a node created in the same block that nothing else can reach yet (`x.next = head` right
//! after `x = new Node()`, or `new Node(v, head)` through a constructor that only stores its
//! argument: a [`Link`]) makes the node's chain one longer than the stored value's. Such stores change no other chain, so they are the only writes of the field the
//! walks allow; `head = x` then counts the nodes inserted, and a walk from `head` is bounded
//! by them, without any assumption.
//!
//! A local holding a cursor of the program's own ([`super::cursors`]) has a rest too, set where
//! the cursor is created from a walked local or a root: the nodes its `next()` may still return.
//!
//! It only classifies; [`super::body`] turns walks into variables and actions.

use std::collections::{BTreeMap, BTreeSet};

use super::appends::{Append, StoredNode, tail_appends};
use super::cursors::{Cursor, CursorCall, Start};
use super::exits::operand_source;
use super::guards::{GuardContext, guarded_calls};
use super::held::{Held, first_cell, held_stores, holds_chain, is_first_index};
use super::trees::{TreeRoots, add_trees, is_array_branch, is_tree, tree_candidates};

use membound_front::ir::{self, Const, Expr, Operand, Place, StmtKind};
use membound_jvm::{FieldRef, Type};

/// What the chain views take for granted; the certificate lists it when a bound has a chain
/// length as a parameter.
pub const ACYCLIC_CHAINS: &str = "a linked structure a method walks (origin `length of the chain from …`) is acyclic along the field walked: following it from the root reaches null after that many nodes; no other thread, reflection or JNI changes that field, the root's field, the field of an object that holds a list a method built or a call returned (`g.first`) or the field of a cursor walking it (an Iterator or Enumeration of the program's own) while the method runs";

/// Where a walk starts: a value the method's callers (and the agent, at entry) can name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Root {
    /// A reference parameter the method never reassigns (or the walked parameter itself).
    Param(ir::VarId),
    /// A field of the method's `this`.
    This(FieldRef),
    /// A field of a reference parameter the method never reassigns.
    ParamField(ir::VarId, FieldRef),
    /// The method's `this` itself: a tree an instance method walks ([`super::trees`]).
    Receiver,
}

/// One root's chain along one field: a formal of the method.
#[derive(Clone, Debug)]
pub struct ChainRoot {
    pub root: Root,
    /// The field the walk follows from it (a tree's first branch).
    pub field: FieldRef,
    /// For a tree ([`super::trees`]), every field it branches along, sorted; empty for a chain.
    pub branches: Vec<FieldRef>,
    /// The formal's name, after the reference: `head_length` (`t_size` for a tree).
    pub name: String,
    /// What the formal is, for the certificate and `validate`.
    pub origin: String,
    /// For the chain from a declared parameter or from a field of one, its index: callers
    /// bind it to their argument's.
    pub param: Option<u16>,
}

/// What an assignment to a walked local does to its rest.
#[derive(Clone, Debug, PartialEq)]
pub enum WalkStep {
    /// `p = q.f` or `p = q.getF()`, `q` walked (often `p` itself): one node past `q`.
    Follow(ir::VarId),
    /// `p = q`, `q` walked: where `q` is.
    Copy(ir::VarId),
    /// `p = root`: the rest is the root's chain length (an index into [`Walks::roots`]).
    Start(usize),
    /// `p = new C`: one node, whose field is null.
    Fresh,
    /// `p = null`: no node.
    Null,
    /// `c = t.f`, `t` the parameter of a tree ([`Walks::trees`], by index): `t` is not null
    /// and `c`'s size is that of the child's root (an index into [`Walks::roots`]).
    Child { tree: usize, root: usize },
    /// `c = a[index]`, `a` holding an array field of a tree's parameter: `t` is not null and
    /// `c`'s size is at most the sum of the elements' (the array field's root).
    Element {
        tree: usize,
        root: usize,
        index: Operand,
    },
    /// `p = h.first`: the length of the chain `h`'s object holds, when the lowering follows
    /// it ([`super::held`]; `chain` an index into [`Held::chains`]).
    Held { holder: ir::VarId, chain: usize },
}

/// A method's walks: its chain roots (formals, in order) and its walked locals.
#[derive(Clone, Debug, Default)]
pub struct Walks {
    pub roots: Vec<ChainRoot>,
    pub locals: Vec<WalkedLocal>,
    /// The stores that link new nodes into the walked chains.
    pub links: Vec<Link>,
    /// The stores that append a new node at the tail of a list the method builds
    /// ([`super::appends`]).
    pub appends: Vec<Append>,
    /// By the field appended along and the offset, the stores of a local holding a node of
    /// such a list, and which node.
    pub stored_nodes: BTreeMap<(FieldRef, u32), StoredNode>,
    /// The locals holding cursors of the program's own ([`super::cursors`]), each with its
    /// cursor: their rests count the nodes left to return.
    pub cursors: BTreeMap<ir::VarId, Cursor>,
    /// The cursor locals whose field nothing the method runs may write but their own `next()`
    /// calls ([`exclusive_cursors`]): their rests are what their callees' chains are.
    pub exclusive_cursors: BTreeSet<ir::VarId>,
    /// What the calls at these offsets do to the cursors.
    pub cursor_calls: BTreeMap<u32, CursorCall>,
    /// The root a cursor's creation at this offset starts at, when its argument is not a walked
    /// local but was read from the root just before (an index into `roots`).
    pub cursor_roots: BTreeMap<u32, usize>,
    /// The parameters a recursion walks as trees, with the roots of their sizes.
    pub trees: Vec<TreeRoots>,
    /// Why the cursors created at these offsets have no rest: what the method runs that writes
    /// the field they follow, or where they start when that is no root.
    pub unfollowed: Vec<String>,
    /// Per call offset, the fields of the call's receiver known to hold a node there (a
    /// `hasNext()` said so and nothing since may have written them, [`super::guards`]): a
    /// callee's chain from such a field of its `this` has at least one node.
    pub guarded: BTreeMap<u32, Vec<FieldRef>>,
    /// The chains held in a field of objects the method's locals hold ([`super::held`]).
    pub held: Held,
}

/// A store of a walked field into a node the method has just created and nothing else can
/// reach yet: its chain is one node more than the stored successor's.
#[derive(Clone, Debug)]
pub struct Link {
    pub pc: u32,
    /// The locals holding the new node at the store.
    pub node: Vec<ir::VarId>,
    /// The stored successor; None for null.
    pub next: Option<ir::VarId>,
}

/// A reference local a loop moves along one field. A walked parameter's entry value is its
/// own root.
#[derive(Clone, Debug)]
pub struct WalkedLocal {
    pub var: ir::VarId,
    pub field: FieldRef,
    /// The fields of the tree it walks, when it is one's ([`ChainRoot::branches`]).
    pub branches: Vec<FieldRef>,
    /// Per assignment's offset, what it does.
    pub steps: Vec<(u32, WalkStep)>,
}

impl Walks {
    /// The root whose chain a walked parameter (or a tree's `this`) starts with at entry.
    pub fn entry_root(&self, param: ir::VarId) -> Option<usize> {
        match self.trees.iter().find(|tree| tree.var == param) {
            Some(tree) => Some(tree.whole),
            None => self.roots.iter().position(|r| r.root == Root::Param(param)),
        }
    }
}

/// What the lowering needs to know from outside the body.
pub struct WalkContext<'a> {
    /// The variable holding `this`, when it is never reassigned.
    pub this: Option<ir::VarId>,
    /// Whether anything the method runs (its body included) may write the field, besides its
    /// own stores at the given offsets.
    pub writes_besides: &'a dyn Fn(&FieldRef, &[u32]) -> bool,
    /// The field the call at this offset returns from its receiver, when every method it may
    /// run is a getter of it.
    pub getter: &'a dyn Fn(u32) -> Option<FieldRef>,
    /// The reference field the constructor call at this offset sets to one of its arguments
    /// (and that argument's index), when that is all the constructor does to references.
    pub linking_constructor: &'a dyn Fn(u32) -> Option<(FieldRef, usize)>,
    /// What the call at this offset does to a cursor of the program's own, if anything.
    pub cursor_call: &'a dyn Fn(u32) -> Option<CursorCall>,
    /// The method's statements that may write a field (`the call at offset 40 to …`), for the
    /// reason a walk is not followed.
    pub writers: &'a dyn Fn(&FieldRef) -> Vec<String>,
    /// When the method is a cursor's own `hasNext()` or `next()`, the cursor field it reads
    /// only before storing it: a root although the method writes it.
    pub own_cursor: Option<FieldRef>,
    /// What the guard facts across calls need ([`super::guards`]).
    pub guards: GuardContext<'a>,
}

/// An assignment to a reference local, as the walks see it.
#[derive(Clone, Debug)]
enum Assignment {
    Follow(ir::VarId, FieldRef),
    /// A read of the field holding a chain of nodes of another class ([`holds_chain`]).
    Held(ir::VarId, FieldRef),
    Copy(ir::VarId),
    Root(Root),
    Fresh,
    Null,
}

impl WalkContext<'_> {
    /// Whether anything the method runs may write the field.
    pub(super) fn may_write(&self, field: &FieldRef) -> bool {
        (self.writes_besides)(field, &[])
    }

    /// Whether `this.field`'s value at entry is what the method reads of it: nothing it runs
    /// writes it, or it is the method's own cursor field.
    fn this_field_fixed(&self, field: &FieldRef) -> bool {
        self.own_cursor.as_ref() == Some(field) || !self.may_write(field)
    }
}

/// The walks of `body`: the reference locals whose every assignment follows the field from
/// another of them (or itself), copies another, or reads a root, each with the field its
/// family follows, when nothing the method runs writes that field or its roots' fields.
pub fn walks(body: &ir::Body, context: &WalkContext<'_>) -> Walks {
    let mut members: BTreeMap<ir::VarId, Vec<(u32, Assignment)>> = (0..body.vars.len())
        .map(|index| ir::VarId(index as u32))
        .filter(|&var| matches!(body.var(var).ty, Type::Ref(_)))
        .filter_map(|var| Some((var, assignments(body, context, var)?)))
        .collect();
    // A parameter walked as a tree and the locals holding its children are the tree's.
    let trees = tree_candidates(body, context);
    members.retain(|&var, _| !trees.iter().any(|tree| tree.walks(var)));
    let candidates = fresh_links(body, context);
    let passed = passed_to_calls(body);
    for (_, assigned) in members.iter_mut().filter(|(var, _)| passed.contains(var)) {
        read_as_steps(assigned);
    }
    let (cursors, cursor_calls) = cursor_locals(body, context);
    let lists = tail_appends(body, context.guards.call_writes);
    let appends = lists.appends;
    let stored = stored_as_held(body);
    let (fields, links) = loop {
        let fields = family_fields(&members, &candidates, &appends, &stored, &cursor_calls);
        let links: Vec<&(FieldRef, Link)> = candidates
            .iter()
            .filter(|(field, link)| {
                link.next
                    .is_none_or(|next| fields.get(&next) == Some(field))
            })
            .collect();
        // Appends at a list's tail change no chain but those of the list's own nodes, as the
        // links of new nodes do.
        let linking = |field: &FieldRef| -> Vec<u32> {
            let linked = links.iter().filter(|(linked, _)| linked == field);
            let appended = appends.iter().filter(|append| append.field == *field);
            (linked.map(|(_, link)| link.pc))
                .chain(appended.map(|append| append.pc))
                .collect()
        };
        let broken: Vec<ir::VarId> = members
            .iter()
            .filter(|&(var, assigned)| {
                let Some(field) = fields.get(var) else {
                    return true;
                };
                let joins = |source: &ir::VarId| fields.get(source) == Some(field);
                (context.writes_besides)(field, &linking(field))
                    || assigned.iter().any(|(_, assignment)| match assignment {
                        Assignment::Follow(source, followed) => followed != field || !joins(source),
                        Assignment::Copy(source) => !joins(source),
                        Assignment::Root(_)
                        | Assignment::Held(..)
                        | Assignment::Fresh
                        | Assignment::Null => false,
                    })
            })
            .map(|(&var, _)| var)
            .collect();
        if broken.is_empty() {
            let links: Vec<Link> = links
                .into_iter()
                .filter(|(field, link)| link.node.iter().any(|n| fields.get(n) == Some(field)))
                .map(|(_, link)| link.clone())
                .collect();
            break (fields, links);
        }
        members.retain(|var, _| !broken.contains(var));
    };
    let mut walks = Walks {
        links,
        appends,
        stored_nodes: lists.stored,
        cursors,
        cursor_calls: cursor_calls
            .into_iter()
            .map(|(pc, (call, _))| (pc, call))
            .collect(),
        ..Walks::default()
    };
    for (var, assigned) in members {
        let field = fields[&var].clone();
        if matches!(body.var(var).origin, ir::VarOrigin::Param(_)) {
            chain_root(body, Root::Param(var), &along(&field), &mut walks.roots);
        }
        let steps = assigned
            .into_iter()
            .map(|(pc, assignment)| {
                let step = match assignment {
                    Assignment::Follow(source, _) => WalkStep::Follow(source),
                    Assignment::Copy(source) => WalkStep::Copy(source),
                    Assignment::Root(root) => {
                        WalkStep::Start(chain_root(body, root, &along(&field), &mut walks.roots))
                    }
                    Assignment::Held(holder, held) => WalkStep::Held {
                        holder,
                        chain: walks.held.chain(&held, &field, holder),
                    },
                    Assignment::Fresh => WalkStep::Fresh,
                    Assignment::Null => WalkStep::Null,
                };
                (pc, step)
            })
            .collect();
        walks.locals.push(WalkedLocal {
            var,
            field,
            branches: Vec::new(),
            steps,
        });
    }
    cursor_roots(body, context, &mut walks);
    add_trees(body, trees, &mut walks);
    walks.guarded = guarded_calls(body, &context.guards);
    walks.exclusive_cursors = exclusive_cursors(body, context, &walks);
    held_stores(body, &mut walks);
    walks
}

/// The cursor locals whose field nothing the method runs may write but their own `next()`
/// calls. Another's rest is only an upper bound of the nodes its cursor has left: a copy's
/// `next()` (`f = e; f.next()`) or a call that moves it (`skip(e)`) shortens it unseen, so a
/// `next()` on it may throw where its rest says a node is left.
fn exclusive_cursors(
    body: &ir::Body,
    context: &WalkContext<'_>,
    walks: &Walks,
) -> BTreeSet<ir::VarId> {
    let moved_only_by_itself = |var: ir::VarId, cursor: &Cursor| {
        body.statements().all(|(_, stmt)| match &stmt.kind {
            StmtKind::Invoke { call, .. } => match walks.cursor_calls.get(&stmt.pc) {
                // A new cursor's field is the new object's; `hasNext()` stores nothing.
                Some(CursorCall::Create { .. } | CursorCall::HasMore(_)) => true,
                Some(CursorCall::Advance(_)) if call.receiver == Some(Operand::Var(var)) => true,
                _ => !(context.guards.call_writes)(stmt, &cursor.field),
            },
            StmtKind::Store {
                place: Place::Field { field, .. },
                ..
            } => field.name != cursor.field.name,
            _ => true,
        })
    };
    walks
        .cursors
        .iter()
        .filter(|&(&var, cursor)| moved_only_by_itself(var, cursor))
        .map(|(&var, _)| var)
        .collect()
}

/// The roots cursors start at when their creation's argument is read from one in the same
/// block (`new C(g.first)` through a stack slot that is reused for other values), or when a
/// factory starts them at a field of its receiver that is one (`list.elements()`, `list` a
/// parameter), while nothing the method runs writes the field the cursor follows.
fn cursor_roots(body: &ir::Body, context: &WalkContext<'_>, walks: &mut Walks) {
    for (block_index, block) in body.blocks.iter().enumerate() {
        for (index, stmt) in block.stmts.iter().enumerate() {
            let Some(CursorCall::Create { start, cursor }) = walks.cursor_calls.get(&stmt.pc)
            else {
                continue;
            };
            let StmtKind::Invoke { call, .. } = &stmt.kind else {
                continue;
            };
            let created = format!("the cursor {} creates at offset {}", call.method, stmt.pc);
            if context.may_write(&cursor.follows) {
                let writers = (context.writers)(&cursor.follows);
                let by = match writers.is_empty() {
                    true => "code it runs".to_string(),
                    false => writers.join(", "),
                };
                walks.unfollowed.push(format!(
                    "{created} walks {}.{}, which {by} may write while it walks",
                    cursor.follows.class, cursor.follows.name
                ));
                continue;
            }
            let read = match start {
                Start::Argument(arg) => {
                    let Some(Operand::Var(start)) = call.args.get(*arg) else {
                        continue;
                    };
                    let walked = walks.locals.iter().any(|w| {
                        w.var == *start && w.branches.is_empty() && w.field == cursor.follows
                    });
                    if walked {
                        continue;
                    }
                    let definition =
                        block.stmts[..index]
                            .iter()
                            .rev()
                            .find_map(|s| match &s.kind {
                                StmtKind::Assign { dst, value } if dst == start => {
                                    Some(Some(value))
                                }
                                StmtKind::Invoke { dst, .. } if *dst == Some(*start) => Some(None),
                                _ => None,
                            });
                    let Some(Some(value)) = definition else {
                        continue;
                    };
                    value.clone()
                }
                Start::ReceiverField(field) => {
                    let Some(receiver) = call.receiver.clone() else {
                        continue;
                    };
                    Expr::Load(Place::Field {
                        object: receiver,
                        field: field.clone(),
                    })
                }
            };
            match root_of(body, context, &read) {
                Some(root) => {
                    let follows = cursor.follows.clone();
                    let root = chain_root(body, root, &along(&follows), &mut walks.roots);
                    walks.cursor_roots.insert(stmt.pc, root);
                }
                None => walks.unfollowed.push(format!(
                    "{created} starts at {}, which is not a parameter nor a field of this or \
                     of a parameter that keeps its value",
                    read_text(body, block_index, index, &read)
                )),
            }
        }
    }
}

/// Where a cursor starts, read before the statement `index` of `block`: `field first of field
/// inside of this`.
fn read_text(body: &ir::Body, block: usize, index: usize, read: &Expr) -> String {
    match read {
        Expr::Load(Place::Field { object, field }) => format!(
            "field {} of {}",
            field.name,
            operand_source(body, block, index, object)
        ),
        Expr::Use(operand) => operand_source(body, block, index, operand),
        _ => "a value".to_string(),
    }
}

/// Per call offset, what the call does to a cursor and its arguments.
type CallsWithArguments = BTreeMap<u32, (CursorCall, Vec<Operand>)>;

/// The calls that act on cursors (with their arguments), and the locals holding the cursors
/// they act on: a constructor's or a `hasNext()`'s or `next()`'s receiver, a factory's result.
/// A local two cursors' calls act on is none's.
fn cursor_locals(
    body: &ir::Body,
    context: &WalkContext<'_>,
) -> (BTreeMap<ir::VarId, Cursor>, CallsWithArguments) {
    let mut calls = BTreeMap::new();
    let mut held: BTreeMap<ir::VarId, Vec<Cursor>> = BTreeMap::new();
    for (_, stmt) in body.statements() {
        let StmtKind::Invoke { dst, call } = &stmt.kind else {
            continue;
        };
        let Some(cursor_call) = (context.cursor_call)(stmt.pc) else {
            continue;
        };
        let holder = match (&cursor_call, call.receiver.as_ref()) {
            (CursorCall::Create { .. }, _) if &*call.method.name != "<init>" => *dst,
            (_, Some(Operand::Var(receiver))) => Some(*receiver),
            _ => None,
        };
        if let Some(var) = holder {
            held.entry(var)
                .or_default()
                .push(cursor_call.cursor().clone());
        }
        calls.insert(stmt.pc, (cursor_call, call.args.clone()));
    }
    let cursors = held
        .into_iter()
        .filter_map(|(var, cursors)| {
            let first = cursors.first()?.clone();
            cursors.iter().all(|c| *c == first).then_some((var, first))
        })
        .collect();
    (cursors, calls)
}

/// Adds to each method the chain roots its callees' roots are at its calls: a callee's chain
/// from its parameter is the caller's chain from the argument, when that is a parameter the
/// caller never reassigns; a callee's chain from a field of its `this` is the caller's from
/// the same field of its own `this`, when the call is on it. So a caller binds them (see
/// `body`'s arguments), as long as nothing it runs changes the field or the root's field
/// before the call. `callees` maps (method index, call offset) to the methods entered there.
pub fn bind_callee_roots(
    bodies: &[std::sync::Arc<ir::Body>],
    contexts: &[WalkContext<'_>],
    callees: &std::collections::HashMap<(usize, u32), Vec<usize>>,
    walks: &mut [Walks],
) {
    loop {
        let mut added = false;
        for (caller, body) in bodies.iter().enumerate() {
            let context = &contexts[caller];
            for (_, stmt) in body.statements() {
                let StmtKind::Invoke { call, .. } = &stmt.kind else {
                    continue;
                };
                for &callee in callees.get(&(caller, stmt.pc)).into_iter().flatten() {
                    let wanted: Vec<(Root, Vec<FieldRef>)> = walks[callee]
                        .roots
                        .iter()
                        .filter_map(|root| {
                            Some((caller_root(body, context, call, root)?, root.along()))
                        })
                        .collect();
                    for (root, fields) in wanted {
                        let known = walks[caller]
                            .roots
                            .iter()
                            .any(|r| r.root == root && r.along() == fields);
                        // `caller_root` checked a field of `this` already.
                        let holding = match &root {
                            Root::ParamField(_, held) => Some(held),
                            _ => None,
                        };
                        let written = fields.iter().chain(holding).any(|f| context.may_write(f));
                        if !known && !written {
                            chain_root(body, root, &fields, &mut walks[caller].roots);
                            added = true;
                        }
                    }
                }
            }
        }
        if !added {
            return;
        }
    }
}

/// The caller's root that is the callee's `root` at `call`, when the caller can name it.
fn caller_root(
    body: &ir::Body,
    context: &WalkContext<'_>,
    call: &ir::Call,
    root: &ChainRoot,
) -> Option<Root> {
    match &root.root {
        Root::Param(_) => {
            let Some(Operand::Var(actual)) = call.args.get(usize::from(root.param?)) else {
                return None;
            };
            fixed_param(body, context, *actual).then_some(Root::Param(*actual))
        }
        Root::This(held) => {
            let on_this = context.this.is_some() && call.receiver == context.this.map(Operand::Var);
            (on_this && context.this_field_fixed(held)).then(|| Root::This(held.clone()))
        }
        // A chain from a field of a parameter, or a tree's child: the same field of the
        // caller's parameter passed on unchanged.
        Root::ParamField(_, held) => {
            let Some(Operand::Var(actual)) = call.args.get(usize::from(root.param?)) else {
                return None;
            };
            fixed_param(body, context, *actual).then(|| Root::ParamField(*actual, held.clone()))
        }
        Root::Receiver => match &call.receiver {
            Some(Operand::Var(actual)) if Some(*actual) == context.this => Some(Root::Receiver),
            Some(Operand::Var(actual)) => {
                fixed_param(body, context, *actual).then_some(Root::Param(*actual))
            }
            _ => None,
        },
    }
}

/// Every assignment to `var`, when each is one a walk follows. A walked parameter starts at
/// its own root, so it is not also restarted from another.
fn assignments(
    body: &ir::Body,
    context: &WalkContext<'_>,
    var: ir::VarId,
) -> Option<Vec<(u32, Assignment)>> {
    let is_param = matches!(body.var(var).origin, ir::VarOrigin::Param(_));
    let mut found = Vec::new();
    for (_, stmt) in body.statements() {
        let assignment = match &stmt.kind {
            StmtKind::Assign { dst, value } if *dst == var => match value {
                Expr::Load(Place::Field {
                    object: Operand::Var(object),
                    field,
                }) if root_of(body, context, value).is_none() => match holds_chain(field) {
                    true => Assignment::Held(*object, field.clone()),
                    false => Assignment::Follow(*object, field.clone()),
                },
                Expr::Load(Place::ArrayElement {
                    array: Operand::Var(array),
                    index,
                }) if !is_param && is_first_index(index) => Assignment::Held(*array, first_cell()),
                Expr::Use(Operand::Var(source)) if !fixed_param(body, context, *source) => {
                    Assignment::Copy(*source)
                }
                _ if is_param => return None,
                Expr::New(_) => Assignment::Fresh,
                Expr::Use(Operand::Const(Const::Null)) => Assignment::Null,
                _ => Assignment::Root(root_of(body, context, value)?),
            },
            StmtKind::Invoke { dst, call } if *dst == Some(var) => {
                let Some(Operand::Var(receiver)) = call.receiver else {
                    return None;
                };
                let field = call
                    .args
                    .is_empty()
                    .then(|| (context.getter)(stmt.pc))
                    .flatten()?;
                Assignment::Follow(receiver, field)
            }
            _ => continue,
        };
        found.push((stmt.pc, assignment));
    }
    Some(found)
}

/// The field each member's family follows: that of its own follows when they agree, else
/// that the members following from it follow, that of an append at a list's tail it takes part
/// in, that of a member it copies, of one that copies it, of a link into the node it holds, or
/// that of the members reading the holder's field it is stored into; none when its follows
/// disagree.
fn family_fields(
    members: &BTreeMap<ir::VarId, Vec<(u32, Assignment)>>,
    links: &[(FieldRef, Link)],
    appends: &[Append],
    stored: &[(ir::VarId, FieldRef)],
    cursor_calls: &CallsWithArguments,
) -> BTreeMap<ir::VarId, FieldRef> {
    let mut fields = BTreeMap::new();
    for (&var, assigned) in members {
        let mut followed = assigned.iter().filter_map(|(_, a)| match a {
            Assignment::Follow(_, field) => Some(field),
            _ => None,
        });
        if let Some(first) = followed.next()
            && followed.all(|f| f == first)
        {
            fields.insert(var, first.clone());
        }
    }
    // A local that only others follow from (`n = current; next = n.next`) walks their field.
    for &var in members.keys() {
        let own = members[&var]
            .iter()
            .any(|(_, a)| matches!(a, Assignment::Follow(..)));
        let mut followed = members.values().flatten().filter_map(|(_, a)| match a {
            Assignment::Follow(source, field) if *source == var => Some(field),
            _ => None,
        });
        if !own
            && let Some(first) = followed.next()
            && followed.all(|f| f == first)
        {
            fields.insert(var, first.clone());
        }
    }
    // The tail and the new node of an append at a list's tail walk the appended field.
    for append in appends {
        for var in [append.tail, append.node] {
            if members.contains_key(&var) {
                fields.entry(var).or_insert_with(|| append.field.clone());
            }
        }
    }
    // A local a cursor is created at walks the field the cursor follows.
    for (call, args) in cursor_calls.values() {
        if let CursorCall::Create {
            start: Start::Argument(arg),
            cursor,
        } = call
            && let Some(Operand::Var(var)) = args.get(*arg)
            && members.contains_key(var)
        {
            fields.entry(*var).or_insert_with(|| cursor.follows.clone());
        }
    }
    loop {
        let copied_by = |var: ir::VarId| {
            members.iter().find_map(|(copy, assigned)| {
                let copies = assigned
                    .iter()
                    .any(|(_, a)| matches!(a, Assignment::Copy(source) if *source == var));
                copies.then(|| fields.get(copy)).flatten()
            })
        };
        // A list's first node read from its holder and linked after a new node (`node.next =
        // g.first`) walks the link's field.
        let held_successor = |var: ir::VarId| {
            let read = members.get(&var).is_some_and(|assigned| {
                assigned
                    .iter()
                    .any(|(_, a)| matches!(a, Assignment::Held(..)))
            });
            links
                .iter()
                .find(|(_, link)| read && link.next == Some(var))
                .map(|(field, _)| field)
        };
        // Of the links into a node, one whose successor walks its field (a new vertex's `next`
        // rather than its `edges`), else the first.
        let linked = |var: ir::VarId| {
            let into = || links.iter().filter(|(_, link)| link.node.contains(&var));
            let walks_on = |(field, link): &&(FieldRef, Link)| {
                link.next.is_some_and(|next| {
                    fields.get(&next).or_else(|| held_successor(next)) == Some(field)
                })
            };
            into()
                .find(walks_on)
                .or_else(|| into().next())
                .map(|(field, _)| field)
        };
        // A node stored into a holder's field (`g.first = v`) walks what the members reading
        // that field (`p = g.first`) walk.
        let read_from = |holding: &FieldRef| {
            members.iter().find_map(|(reader, assigned)| {
                let reads = assigned
                    .iter()
                    .any(|(_, a)| matches!(a, Assignment::Held(_, f) if f == holding));
                reads.then(|| fields.get(reader)).flatten()
            })
        };
        let stored_as_held = |var: ir::VarId| {
            stored
                .iter()
                .filter(|(value, _)| *value == var)
                .find_map(|(_, holding)| read_from(holding))
        };
        let copied: Vec<(ir::VarId, FieldRef)> = members
            .iter()
            .filter(|(var, _)| !fields.contains_key(*var))
            .filter_map(|(&var, assigned)| {
                let from_source = assigned.iter().find_map(|(_, a)| match a {
                    Assignment::Copy(source) => fields.get(source),
                    _ => None,
                });
                let field = from_source
                    .or_else(|| copied_by(var))
                    .or_else(|| linked(var))
                    .or_else(|| held_successor(var))
                    .or_else(|| stored_as_held(var))?;
                Some((var, field.clone()))
            })
            .collect();
        if copied.is_empty() {
            return fields;
        }
        fields.extend(copied);
    }
}

/// The locals stored into a field that may hold a chain ([`holds_chain`]) or into an array's
/// cell ([`first_cell`]), with that field.
fn stored_as_held(body: &ir::Body) -> Vec<(ir::VarId, FieldRef)> {
    body.statements()
        .filter_map(|(_, stmt)| match &stmt.kind {
            StmtKind::Store {
                place: Place::Field { field, .. },
                value: Operand::Var(value),
            } if holds_chain(field) => Some((*value, field.clone())),
            StmtKind::Store {
                place: Place::ArrayElement { .. },
                value: Operand::Var(value),
            } => Some((*value, first_cell())),
            _ => None,
        })
        .collect()
}

/// A local passed to a call that only ever holds one field of one parameter (`count(n.next)`)
/// is a step along that field from the parameter rather than a walk starting at the field:
/// the callee may walk it along the same field, and then its rest is the parameter's less one
/// (a recursion along the field descends the parameter's chain).
fn read_as_steps(assigned: &mut [(u32, Assignment)]) {
    let Some((_, Assignment::Root(Root::ParamField(param, field)))) = assigned.first() else {
        return;
    };
    let (param, field) = (*param, field.clone());
    let same = |a: &Assignment| matches!(a, Assignment::Root(Root::ParamField(p, f)) if *p == param && *f == field);
    if assigned.iter().all(|(_, a)| same(a)) {
        for (_, assignment) in assigned.iter_mut() {
            *assignment = Assignment::Follow(param, field.clone());
        }
    }
}

/// The locals `body` passes as arguments of its calls (receivers aside).
pub(super) fn passed_to_calls(body: &ir::Body) -> BTreeSet<ir::VarId> {
    body.statements()
        .filter_map(|(_, stmt)| match &stmt.kind {
            StmtKind::Invoke { call, .. } => Some(&call.args),
            _ => None,
        })
        .flatten()
        .filter_map(|arg| match arg {
            Operand::Var(var) => Some(*var),
            Operand::Const(_) => None,
        })
        .collect()
}

/// The stores of a reference field into an object created earlier in the same block that only
/// locals hold (created by `new`, copied, its constructor called and its fields read and
/// written, nothing else), and its constructor's call when it is a linking one (`new
/// Node(head)`), with the field stored: the candidate [`Link`]s. A store of such an
/// object anywhere else, or its being passed to a call, ends its freshness.
fn fresh_links(body: &ir::Body, context: &WalkContext<'_>) -> Vec<(FieldRef, Link)> {
    let mut found = Vec::new();
    for block in &body.blocks {
        // Per object created in this block (by its allocation's offset), the locals holding it.
        let mut holders: BTreeMap<u32, Vec<ir::VarId>> = BTreeMap::new();
        for stmt in &block.stmts {
            let object = |holders: &BTreeMap<u32, Vec<ir::VarId>>, operand: &Operand| match operand
            {
                Operand::Var(var) => holders
                    .iter()
                    .find(|(_, held)| held.contains(var))
                    .map(|(&at, _)| at),
                Operand::Const(_) => None,
            };
            let (operands, written) = (stmt.operands(), stmt.defined());
            // What the statement may do with a new object besides holding or filling it.
            let allowed: Vec<&Operand> = match &stmt.kind {
                StmtKind::Assign {
                    value: Expr::Use(source) | Expr::CheckCast(source, _),
                    ..
                } => vec![source],
                StmtKind::Assign {
                    value: Expr::Load(Place::Field { object, .. }),
                    ..
                } => vec![object],
                StmtKind::Store {
                    place: Place::Field { object, .. },
                    ..
                } => vec![object],
                StmtKind::Invoke { call, .. } if &*call.method.name == "<init>" => {
                    call.receiver.iter().collect()
                }
                _ => Vec::new(),
            };
            if let Some((target, field, value)) = linked_by(context, stmt)
                && let Some(node) = object(&holders, target)
                && object(&holders, value) != Some(node)
            {
                let next = match value {
                    Operand::Var(var) => Some(Some(*var)),
                    Operand::Const(Const::Null) => Some(None),
                    Operand::Const(_) => None,
                };
                if let Some(next) = next {
                    let link = Link {
                        pc: stmt.pc,
                        node: holders[&node].clone(),
                        next,
                    };
                    found.push((field, link));
                }
            }
            let escaped: Vec<u32> = operands
                .iter()
                .filter(|&&operand| !allowed.iter().any(|&a| std::ptr::eq(a, operand)))
                .filter_map(|operand| object(&holders, operand))
                .collect();
            holders.retain(|at, _| !escaped.contains(at));
            let copied = match &stmt.kind {
                StmtKind::Assign {
                    value: Expr::Use(source) | Expr::CheckCast(source, _),
                    ..
                } => object(&holders, source),
                _ => None,
            };
            if let Some(var) = written {
                for held in holders.values_mut() {
                    held.retain(|&v| v != var);
                }
                if let Some(at) = copied {
                    holders.entry(at).or_default().push(var);
                }
                if let StmtKind::Assign {
                    value: Expr::New(_),
                    ..
                } = &stmt.kind
                {
                    holders.insert(stmt.pc, vec![var]);
                }
            }
        }
    }
    found
}

/// The object a statement may link, the reference field it sets and the value stored: a store
/// of a reference field, or a call of a linking constructor.
fn linked_by<'s>(
    context: &WalkContext<'_>,
    stmt: &'s ir::Stmt,
) -> Option<(&'s Operand, FieldRef, &'s Operand)> {
    match &stmt.kind {
        StmtKind::Store {
            place: Place::Field { object, field },
            value,
        } if matches!(field.ty, Type::Ref(_)) => Some((object, field.clone(), value)),
        StmtKind::Invoke { call, .. } if &*call.method.name == "<init>" => {
            let (field, index) = (context.linking_constructor)(stmt.pc)?;
            Some((call.receiver.as_ref()?, field, call.args.get(index)?))
        }
        _ => None,
    }
}

/// The root `value` reads, when it is one.
fn root_of(body: &ir::Body, context: &WalkContext<'_>, value: &Expr) -> Option<Root> {
    match value {
        Expr::Use(Operand::Var(source)) if fixed_param(body, context, *source) => {
            Some(Root::Param(*source))
        }
        // A root's field must keep its value while the method runs.
        Expr::Load(Place::Field {
            object: Operand::Var(object),
            field,
        }) if Some(*object) == context.this && context.this_field_fixed(field) => {
            Some(Root::This(field.clone()))
        }
        Expr::Load(Place::Field {
            object: Operand::Var(object),
            field,
        }) if !context.may_write(field) => {
            if Some(*object) == context.this {
                Some(Root::This(field.clone()))
            } else if fixed_param(body, context, *object) {
                Some(Root::ParamField(*object, field.clone()))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// A declared reference parameter the body never assigns.
fn fixed_param(body: &ir::Body, context: &WalkContext<'_>, var: ir::VarId) -> bool {
    matches!(body.var(var).origin, ir::VarOrigin::Param(_))
        && Some(var) != context.this
        && !body.assigns(var)
}

/// The fields a chain root follows: its one field.
fn along(field: &FieldRef) -> Vec<FieldRef> {
    vec![field.clone()]
}

impl ChainRoot {
    /// Every field followed from the root: the chain's one, or the tree's branches.
    pub fn along(&self) -> Vec<FieldRef> {
        if self.branches.is_empty() {
            along(&self.field)
        } else {
            self.branches.clone()
        }
    }
}

/// The index of `root`'s chain along `fields` in `roots` (a tree with two or more fields, or
/// an array field),
/// added when new.
pub(super) fn chain_root(
    body: &ir::Body,
    root: Root,
    fields: &[FieldRef],
    roots: &mut Vec<ChainRoot>,
) -> usize {
    if let Some(index) = roots
        .iter()
        .position(|r| r.root == root && r.along() == fields)
    {
        return index;
    }
    // An array field's children are its elements: `p.T.kids[]`.
    let names: Vec<String> = fields
        .iter()
        .map(|field| match is_array_branch(field) {
            true => format!("{}.{}[]", field.class, field.name),
            false => format!("{}.{}", field.class, field.name),
        })
        .collect();
    let along = format!("along {}", names.join(", "));
    let (measure, suffix) = if is_tree(fields) {
        ("size of the tree", "size")
    } else {
        ("length of the chain", "length")
    };
    let index = |var: ir::VarId| match body.var(var).origin {
        ir::VarOrigin::Param(index) => index,
        _ => 0,
    };
    let param = |var: ir::VarId| {
        let name = body.var(var).name.to_string();
        (format!("parameter {} ({name})", index(var)), name)
    };
    let (name, origin) = match &root {
        Root::Param(var) => {
            let (text, name) = param(*var);
            (
                format!("{name}_{suffix}"),
                format!("{measure} from {text} {along}"),
            )
        }
        Root::This(held) => (
            format!("{}_{suffix}", held.name),
            format!("{measure} from field {} of this {along}", held.name),
        ),
        Root::ParamField(var, held) => {
            let (text, name) = param(*var);
            (
                format!("{name}_{}_{suffix}", held.name),
                format!("{measure} from field {} of {text} {along}", held.name),
            )
        }
        Root::Receiver => (
            format!("this_{suffix}"),
            format!("{measure} from this {along}"),
        ),
    };
    let param = match root {
        Root::Param(var) | Root::ParamField(var, _) => Some(index(var)),
        _ => None,
    };
    let branches = if is_tree(fields) {
        fields.to_vec()
    } else {
        Vec::new()
    };
    roots.push(ChainRoot {
        param,
        root,
        field: fields[0].clone(),
        branches,
        name,
        origin,
    });
    roots.len() - 1
}

//! Chains held in a field of an object a local holds: the list `g.first` heads along
//! `Vertex.next`, where `g` is a graph the method created or a call returned.
//!
//! A method that builds such a list (`g = new Graph()`, then `v.next = g.first; g.first = v` on
//! new vertices) and returns `g` knows its length, and so does its caller: it is one of the
//! values the method's procedure returns, after its integer result. Per holder local and chain
//! the lowering keeps that length as a variable of its own: 0 where the local is set to a new
//! object (whose fields are null), the returned length where a call's every target returns it,
//! the walked local's rest where the holder's field is set to one, a copy's where the local
//! copies another holder, unknown for anything else. Every other statement that may write the
//! holding field or the chain's field on some object (a store that is not a link of a new node
//! ([`super::chains::Link`]), a call whose code may) forgets the lengths of that chain on every
//! holder, since the lowering does not know which objects a local's aliases reach. So the
//! length is there until something may change it, without an assumption of its own beyond the
//! walks' [`super::chains::ACYCLIC_CHAINS`] (no other thread, reflection or JNI writes them).
//!
//! A walked local read from a holder (`p = g.first`) starts at its length, and a callee's chain
//! from a field of a parameter (`g_first_length`) is bound to the length of the holder the
//! caller passes ([`super::body`]'s arguments).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::chains::Walks;
use super::fields::stores_reference;
use super::trees::array_elements;
use membound_front::ir::{self, Const, Expr, Operand, Place, StmtKind, Terminator};
use membound_jvm::{ClassName, FieldRef, Type};

/// One chain its holders' objects hold: from the holder's `field` along `along`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeldChain {
    /// The field holding the chain's first node (`Graph.first`).
    pub field: FieldRef,
    /// The field the chain follows from node to node (`Vertex.next`).
    pub along: FieldRef,
    /// The locals whose objects' chains the lowering follows, each with a length of its own.
    pub holders: BTreeSet<ir::VarId>,
}

/// A store that sets a holder's chain to a walked local's (`g.first = v`, or `table[i] = v`
/// for the chain from an array's first cell where `i` is 0).
#[derive(Clone, Debug)]
pub struct HeldStore {
    /// An index into [`Held::chains`].
    pub chain: usize,
    pub holder: ir::VarId,
    /// The walked local stored: the chain's length is its rest.
    pub value: ir::VarId,
    /// For a store into an array's cell, its index: the chain from the first cell is set where
    /// it is 0 and left where it is not.
    pub index: Option<Operand>,
    /// The other locals certainly holding the holder's object there (`$s0 = g; …; $s0.first =
    /// v`, the copy javac makes before a conditional expression): their chain is set too.
    pub aliases: Vec<ir::VarId>,
}

/// A method's held chains and what its statements do to them.
#[derive(Clone, Debug, Default)]
pub struct Held {
    pub chains: Vec<HeldChain>,
    /// By offset, the stores that set a holder's chain.
    pub stores: BTreeMap<u32, HeldStore>,
    /// By offset, the chains (indices) whose lengths the statement may change on any holder:
    /// forgotten before a held store sets its holder's.
    pub forgets: BTreeMap<u32, BTreeSet<usize>>,
    /// The chains of the method's result its procedure returns, in order, after its integer
    /// result.
    pub returned: Vec<usize>,
}

impl Held {
    /// The index of the chain from `field` along `along`, added when new, with `holder`
    /// among its holders.
    pub fn chain(&mut self, field: &FieldRef, along: &FieldRef, holder: ir::VarId) -> usize {
        let index = self.index(field, along).unwrap_or_else(|| {
            self.chains.push(HeldChain {
                field: field.clone(),
                along: along.clone(),
                holders: BTreeSet::new(),
            });
            self.chains.len() - 1
        });
        self.chains[index].holders.insert(holder);
        index
    }

    /// The index of the chain from `field` along `along`, when the method follows it.
    pub fn index(&self, field: &FieldRef, along: &FieldRef) -> Option<usize> {
        self.chains
            .iter()
            .position(|c| c.field == *field && c.along == *along)
    }

    /// The chain from `field` along `along` that `holder`'s object holds, when the lowering
    /// follows it.
    pub fn held_by(&self, holder: ir::VarId, field: &FieldRef, along: &FieldRef) -> Option<usize> {
        self.index(field, along)
            .filter(|&c| self.chains[c].holders.contains(&holder))
    }
}

/// Whether a field may hold a chain of nodes of another class than the object holding it
/// (`Graph.first`, a `Vertex`): reading it starts a walk rather than following one.
pub fn holds_chain(field: &FieldRef) -> bool {
    matches!(&field.ty, Type::Ref(class) if *class != field.class)
}

/// The first cell of an array of references, as a holder's field: `table[0]` holds the chain
/// of a list whose nodes the array's cells hold (em3d's node tables). A pseudo-field whose name
/// no field of a class file can have; a store into any array of references may write it (the
/// writes of [`array_elements`]).
pub fn first_cell() -> FieldRef {
    FieldRef {
        class: ClassName::new("java/lang/Object"),
        name: "first cell".into(),
        ty: Type::Ref(ClassName::new("java/lang/Object")),
    }
}

/// Whether an operand is the index of an array's first cell.
pub fn is_first_index(index: &Operand) -> bool {
    matches!(index, Operand::Const(Const::Int(0)))
}

/// Adds the stores that set a local's object's chain to a walked local's (`g.first = v`, `v`
/// walked along another field).
pub(super) fn held_stores(body: &ir::Body, walks: &mut Walks) {
    let copies = must_copies(body);
    for (_, stmt) in body.statements() {
        let StmtKind::Store {
            place,
            value: Operand::Var(value),
        } = &stmt.kind
        else {
            continue;
        };
        let (holder, field, index) = match place {
            Place::Field {
                object: Operand::Var(holder),
                field,
            } if holds_chain(field) => (*holder, field.clone(), None),
            Place::ArrayElement {
                array: Operand::Var(holder),
                index,
            } => (*holder, first_cell(), Some(index.clone())),
            _ => continue,
        };
        let walked = walks
            .locals
            .iter()
            .find(|w| w.var == *value && w.branches.is_empty() && w.field != field);
        if let Some(along) = walked.map(|w| w.field.clone()) {
            let chain = walks.held.chain(&field, &along, holder);
            let aliases = (copies.get(&stmt.pc).into_iter().flatten())
                .filter_map(|&(a, b)| match (a == holder, b == holder) {
                    (true, _) => Some(b),
                    (_, true) => Some(a),
                    _ => None,
                })
                .collect();
            let store = HeldStore {
                chain,
                holder,
                value: *value,
                index,
                aliases,
            };
            walks.held.stores.insert(stmt.pc, store);
        }
    }
}

/// Pairs of locals certainly holding the same value.
type Copies = BTreeSet<(ir::VarId, ir::VarId)>;

/// Per store offset, the pairs of reference locals certainly equal before it: a forward
/// must-analysis of copies (`a = b`), killed where either is assigned; joins keep the pairs
/// every predecessor has, an exception handler starts with none.
fn must_copies(body: &ir::Body) -> BTreeMap<u32, Copies> {
    let mut entries: Vec<Option<Copies>> = vec![None; body.blocks.len()];
    for block in &body.blocks {
        for handler in &block.handlers {
            entries[handler.target.0 as usize] = Some(Copies::new());
        }
    }
    if let Some(first) = entries.first_mut() {
        *first = Some(Copies::new());
    }
    let mut at_stores = BTreeMap::new();
    let mut changed = true;
    while changed {
        changed = false;
        for (index, block) in body.blocks.iter().enumerate() {
            let Some(mut copies) = entries[index].clone() else {
                continue;
            };
            for stmt in &block.stmts {
                if matches!(stmt.kind, StmtKind::Store { .. }) {
                    at_stores.insert(stmt.pc, copies.clone());
                }
                copied(&mut copies, stmt);
            }
            for successor in block.terminator.successors() {
                let slot = &mut entries[successor.0 as usize];
                let joined = match slot {
                    None => copies.clone(),
                    Some(known) => known.intersection(&copies).copied().collect(),
                };
                if slot.as_ref() != Some(&joined) {
                    *slot = Some(joined);
                    changed = true;
                }
            }
        }
    }
    at_stores
}

/// The copies after `stmt`: an assignment kills its destination's pairs, and a copy of a
/// local pairs it with its source and the source's equals.
fn copied(copies: &mut Copies, stmt: &ir::Stmt) {
    let (dst, value) = match &stmt.kind {
        StmtKind::Assign { dst, value } => (*dst, Some(value)),
        StmtKind::Invoke { dst: Some(dst), .. } => (*dst, None),
        _ => return,
    };
    copies.retain(|&(a, b)| a != dst && b != dst);
    if let Some(Expr::Use(Operand::Var(source))) = value
        && *source != dst
    {
        let equals: Vec<ir::VarId> = (copies.iter())
            .filter_map(|&(a, b)| match (a == *source, b == *source) {
                (true, _) => Some(b),
                (_, true) => Some(a),
                _ => None,
            })
            .chain([*source])
            .collect();
        copies.extend(
            equals
                .into_iter()
                .map(|other| (dst.min(other), dst.max(other))),
        );
    }
}

/// Whether the calls (or class initializers) a statement of a method (by index) runs may
/// write an instance field like this one, on any object, or run code that cannot be seen.
pub type CallWrites<'a> = dyn Fn(usize, &ir::Stmt, &FieldRef) -> bool + 'a;

/// Completes every method's held chains: a callee's chain from a field of a parameter
/// (`g_first_length`) is a chain of the local the caller passes, a callee's returned chain one
/// of the local receiving its result, a holder's copies' sources are holders too, and a chain
/// a returned local holds is returned; until nothing changes. Then what each statement may
/// forget. `callees` maps (method index, call offset) to the methods entered there.
pub fn complete(
    bodies: &[std::sync::Arc<ir::Body>],
    callees: &HashMap<(usize, u32), Vec<usize>>,
    call_writes: &CallWrites<'_>,
    walks: &mut [Walks],
) {
    loop {
        let mut added = false;
        for (caller, body) in bodies.iter().enumerate() {
            added |= from_calls(body, caller, callees, walks);
            added |= through_copies(body, &mut walks[caller].held);
            added |= returned(body, &mut walks[caller].held);
        }
        if !added {
            break;
        }
    }
    for (method, body) in bodies.iter().enumerate() {
        // Appends at a list's tail lengthen its chains rather than forget them (see
        // [`super::body`]), as links of new nodes change no chain.
        let links: Vec<u32> = (walks[method].links.iter().map(|l| l.pc))
            .chain(walks[method].appends.iter().map(|a| a.pc))
            .collect();
        let held = &mut walks[method].held;
        if held.chains.is_empty() {
            continue;
        }
        held.forgets = forgets(body, &links, &held.chains, &|stmt, field| {
            call_writes(method, stmt, field)
        });
    }
}

/// Adds the holders the caller's calls need or receive: the local passed where a callee walks
/// a chain from a field of that parameter, the local a callee's returned chain is stored in.
/// Whether any was new.
fn from_calls(
    body: &ir::Body,
    caller: usize,
    callees: &HashMap<(usize, u32), Vec<usize>>,
    walks: &mut [Walks],
) -> bool {
    let is_local = |var: ir::VarId| {
        matches!(
            body.var(var).origin,
            ir::VarOrigin::Local(_) | ir::VarOrigin::Stack(_)
        )
    };
    let mut wanted: Vec<(FieldRef, FieldRef, ir::VarId)> = Vec::new();
    for (_, stmt) in body.statements() {
        let StmtKind::Invoke { dst, call } = &stmt.kind else {
            continue;
        };
        for &callee in callees.get(&(caller, stmt.pc)).into_iter().flatten() {
            let callee = &walks[callee];
            for root in &callee.roots {
                let super::chains::Root::ParamField(_, field) = &root.root else {
                    continue;
                };
                let passed = root.param.and_then(|i| call.args.get(usize::from(i)));
                if let (true, Some(Operand::Var(var))) = (root.branches.is_empty(), passed)
                    && is_local(*var)
                {
                    wanted.push((field.clone(), root.field.clone(), *var));
                }
            }
            if let Some(dst) = dst.filter(|&d| is_local(d)) {
                for &chain in &callee.held.returned {
                    let chain = &callee.held.chains[chain];
                    wanted.push((chain.field.clone(), chain.along.clone(), dst));
                }
            }
        }
    }
    let held = &mut walks[caller].held;
    let mut added = false;
    for (field, along, var) in wanted {
        let known = held.held_by(var, &field, &along).is_some();
        if !known {
            held.chain(&field, &along, var);
            added = true;
        }
    }
    added
}

/// Adds the locals a holder copies (`g = $s0`, `$s0` the new object): its chain's length is
/// theirs. Whether any was new.
fn through_copies(body: &ir::Body, held: &mut Held) -> bool {
    let mut added = false;
    for (_, stmt) in body.statements() {
        let StmtKind::Assign {
            dst,
            value: Expr::Use(Operand::Var(source)) | Expr::CheckCast(Operand::Var(source), _),
        } = &stmt.kind
        else {
            continue;
        };
        for chain in &mut held.chains {
            if chain.holders.contains(dst) {
                added |= chain.holders.insert(*source);
            }
        }
    }
    added
}

/// Adds the chains a returned local holds to those the procedure returns. Whether any was new.
fn returned(body: &ir::Body, held: &mut Held) -> bool {
    let mut added = false;
    for block in &body.blocks {
        let Terminator::Return(Some(Operand::Var(var))) = &block.terminator else {
            continue;
        };
        for (index, chain) in held.chains.iter().enumerate() {
            if chain.holders.contains(var) && !held.returned.contains(&index) {
                held.returned.push(index);
                added = true;
            }
        }
    }
    added
}

/// Per offset, the chains the statement may change on some holder: a store of a field like
/// the holding one (any array's cell for the first cell's) or (unless it links a new node or
/// appends one, `links`) the chain's own, and a call that may write either (`call_writes`).
fn forgets(
    body: &ir::Body,
    links: &[u32],
    chains: &[HeldChain],
    call_writes: &dyn Fn(&ir::Stmt, &FieldRef) -> bool,
) -> BTreeMap<u32, BTreeSet<usize>> {
    let mut forgets: BTreeMap<u32, BTreeSet<usize>> = BTreeMap::new();
    for (_, stmt) in body.statements() {
        let stored = match &stmt.kind {
            StmtKind::Store {
                place: Place::Field { field, .. },
                ..
            } => Some(field.clone()),
            StmtKind::Store {
                place: Place::ArrayElement { array, .. },
                ..
            } if stores_reference(body, array) => Some(first_cell()),
            _ => None,
        };
        for (index, chain) in chains.iter().enumerate() {
            let stores = stored.as_ref().is_some_and(|written| {
                may_alias(written, &chain.field)
                    || (may_alias(written, &chain.along) && !links.contains(&stmt.pc))
            });
            let holding = match chain.field == first_cell() {
                true => array_elements(),
                false => chain.field.clone(),
            };
            let calls = call_writes(stmt, &holding) || call_writes(stmt, &chain.along);
            if stores || calls {
                forgets.entry(stmt.pc).or_default().insert(index);
            }
        }
    }
    forgets
}

/// Whether a store naming `written` may change the field `field` names: the same name and
/// type, whichever class each instruction names.
fn may_alias(written: &FieldRef, field: &FieldRef) -> bool {
    written.name == field.name && written.ty == field.ty
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::lowering::chains::{ChainRoot, Root};
    use membound_front::ir::{Block, Body, Call, CallKind, Stmt, Var, VarId, VarOrigin};
    use membound_jvm::{ClassName, MethodRef};

    fn class(name: &str) -> Type {
        Type::Ref(ClassName::new(name))
    }

    /// `Bag.first`, a `Node`, and `Node.next`.
    fn first() -> FieldRef {
        FieldRef {
            class: ClassName::new("Bag"),
            name: Arc::from("first"),
            ty: class("Node"),
        }
    }

    fn next() -> FieldRef {
        FieldRef {
            class: ClassName::new("Node"),
            name: Arc::from("next"),
            ty: class("Node"),
        }
    }

    fn local(name: &str, ty: Type, slot: u16) -> Var {
        Var {
            name: Arc::from(name),
            ty,
            origin: VarOrigin::Local(slot),
        }
    }

    fn stmt(pc: u32, kind: StmtKind) -> Stmt {
        Stmt {
            pc,
            line: None,
            kind,
        }
    }

    fn call(pc: u32, dst: Option<u32>, name: &str, args: Vec<Operand>) -> Stmt {
        let method = MethodRef::new(ClassName::new("T"), name, "(LBag;)LBag;");
        let call = Call {
            kind: CallKind::Static,
            method,
            receiver: None,
            args,
        };
        let dst = dst.map(VarId);
        stmt(pc, StmtKind::Invoke { dst, call })
    }

    fn body(name: &str, vars: Vec<Var>, stmts: Vec<Stmt>, returned: Option<u32>) -> Arc<Body> {
        let returned = returned.map(|v| Operand::Var(VarId(v)));
        Arc::new(Body {
            method: MethodRef::new(ClassName::new("T"), name, "()LBag;"),
            is_static: true,
            vars,
            params: Vec::new(),
            blocks: vec![Block {
                stmts,
                terminator: Terminator::Return(returned),
                handlers: Vec::new(),
                pc: 0,
            }],
        })
    }

    /// A callee walking the list of its parameter's `first`: `bag_first_length`.
    fn walking_callee() -> Walks {
        let root = ChainRoot {
            root: Root::ParamField(VarId(0), first()),
            field: next(),
            branches: Vec::new(),
            name: "bag_first_length".to_string(),
            origin: "length of the chain from field first of parameter 0 (bag)".to_string(),
            param: Some(0),
        };
        Walks {
            roots: vec![root],
            ..Walks::default()
        }
    }

    /// A callee returning a bag whose list it built: its chain returned.
    fn building_callee() -> Walks {
        let mut walks = Walks::default();
        walks.held.chain(&first(), &next(), VarId(0));
        walks.held.returned.push(0);
        walks
    }

    #[test]
    fn a_field_of_another_class_than_its_holder_holds_a_chain() {
        assert!(holds_chain(&first()));
        assert!(!holds_chain(&next()));
        let count = FieldRef {
            class: ClassName::new("Bag"),
            name: Arc::from("count"),
            ty: Type::Int,
        };
        assert!(!holds_chain(&count));
    }

    #[test]
    fn a_returned_bag_passed_to_a_walking_callee_is_a_holder_forgotten_by_writing_calls() {
        // b = build(); c = b; walk(c); touch(); walk(c); return c
        let vars = vec![local("b", class("Bag"), 0), local("c", class("Bag"), 1)];
        let stmts = vec![
            call(0, Some(0), "build", Vec::new()),
            stmt(
                3,
                StmtKind::Assign {
                    dst: VarId(1),
                    value: Expr::Use(Operand::Var(VarId(0))),
                },
            ),
            call(4, None, "walk", vec![Operand::Var(VarId(1))]),
            call(7, None, "touch", Vec::new()),
            call(10, None, "walk", vec![Operand::Var(VarId(1))]),
        ];
        let caller = body("caller", vars, stmts, Some(1));
        let callee = |name: &str| body(name, Vec::new(), Vec::new(), None);
        let bodies = vec![caller, callee("build"), callee("walk"), callee("touch")];
        let callees = HashMap::from([
            ((0, 0), vec![1]),
            ((0, 4), vec![2]),
            ((0, 7), vec![3]),
            ((0, 10), vec![2]),
        ]);
        let mut walks = vec![
            Walks::default(),
            building_callee(),
            walking_callee(),
            Walks::default(),
        ];
        // Only `build` (offset 0) and `touch` (offset 7) may write `first` or `next`.
        let writes =
            |method: usize, stmt: &ir::Stmt, _: &FieldRef| method == 0 && [0, 7].contains(&stmt.pc);
        complete(&bodies, &callees, &writes, &mut walks);
        let held = &walks[0].held;
        assert_eq!(held.chains.len(), 1);
        let chain = &held.chains[0];
        assert_eq!((&chain.field, &chain.along), (&first(), &next()));
        // `c` is passed and returned, `b` receives the built list and is copied into `c`.
        assert_eq!(chain.holders, BTreeSet::from([VarId(0), VarId(1)]));
        assert_eq!(held.returned, vec![0]);
        let forgotten: Vec<u32> = held.forgets.keys().copied().collect();
        assert_eq!(forgotten, vec![0, 7]);
    }

    #[test]
    fn a_store_that_is_no_link_forgets_the_chains_of_its_field() {
        // g.first = n (a held store) and n.next = m (no link): both forget the chain.
        let vars = vec![
            local("g", class("Bag"), 0),
            local("n", class("Node"), 1),
            local("m", class("Node"), 2),
        ];
        let store = |pc: u32, object: u32, field: FieldRef, value: u32| {
            let place = Place::Field {
                object: Operand::Var(VarId(object)),
                field,
            };
            let value = Operand::Var(VarId(value));
            stmt(pc, StmtKind::Store { place, value })
        };
        let stmts = vec![store(0, 0, first(), 1), store(4, 1, next(), 2)];
        let bodies = vec![body("m", vars, stmts, None)];
        let mut walks = vec![Walks::default()];
        walks[0].held.chain(&first(), &next(), VarId(0));
        complete(&bodies, &HashMap::new(), &|_, _, _| false, &mut walks);
        let forgotten: Vec<u32> = walks[0].held.forgets.keys().copied().collect();
        assert_eq!(forgotten, vec![0, 4]);
    }
}

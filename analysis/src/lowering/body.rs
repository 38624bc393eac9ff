//! Lowering of one method body to one procedure of the invariants crate's numeric program form.
//!
//! Integer locals (`boolean` to `long`) become variables; each array-typed local gets a length
//! view `a_length` that `a.length` reads. In a method that uses them ([`super::views`]), each
//! `String` local gets a length view that `s.length()` reads, each collection local a size view
//! that `c.size()` reads, and each iterator a counter of its `next()` calls bounded by its
//! collection's size when `iterator()` created it; a `String` or collection parameter's view is
//! a formal. Affine right-hand sides become assignments, division and remainder by a constant
//! go through a quotient ([`super::division`]), and
//! anything else (field and array-element reads, other division, shifts, call results) havocs
//! its target (a narrowing conversion keeps the value in its type's range, and is anything in
//! the range outside it), so the procedure over-approximates every run of the method; a
//! call's integer result is the exception when every method the call may run is a procedure
//! here: the procedure returns it at exit, and the callee's summary relates it to the
//! arguments.
//! Branches become guards when they compare affine values (or `x % k` with zero, or the `lcmp`
//! of two affine values); other branches are unguarded. Exception edges are kept: from the state
//! before each statement of a protected block to its handlers (with what a throwing call may
//! have changed forgotten); the exit is reached by returns only. Every loop gets a virtual
//! iteration counter, which is what makes visits countable (see [`super::loops`]). Integer
//! overflow is not modelled: Java arithmetic is taken as arithmetic over the integers.
//!
//! Integer fields the caller's [`FieldPlan`] makes views of are read as variables instead of
//! havocked: a view that is a formal follows the declared parameters' formals, a local view is
//! assigned by the body's stores, a threaded view is also returned at exit and passed in and
//! out of calls (see [`super::fields`]).
//!
//! It does not resolve calls: the caller says, per call site, which procedures it may reach.

use std::collections::{BTreeMap, HashMap, HashSet};

use membound_invariants::builder::{eq, ge, gt, le, lt, ne};
use membound_invariants::program::Variable;
use membound_invariants::{Action, Cond, Edge, Expr, NodeId, ProcId, Procedure, VarId, VarKind};
use membound_polyhedra::Int;

use super::Exceptions;
use super::accumulators::accumulators;
use super::appends::{AppendEffect, StoredNode};
use super::builders::{Amount, Builders, Effect, Measure, builders};
use super::chains::{ChainRoot, Root, WalkStep};
use super::cursors::{CursorCall, Start};
use super::division::{ByConstant, truncated_quotient};
use super::extrema::Extremum;
use super::fields::{CallEffect, FieldPlan, LoopExit, StoreEffect, ViewKey, ViewMode};
use super::fresh;
use super::liveness::{Liveness, liveness};
use super::loops::{Loops, block_successors, find_loops};
use super::views::{self, ViewCall, ViewType, view_type};
use crate::sites::{CONCAT_BYTES_PER_CHAR, FormatShape, concat_text, format_shape};
use membound_front::ir::{
    self, BinOp, CallKind, CmpOp, Const, FormatCall, Operand, StmtKind, Terminator,
};
use membound_jvm::{FieldRef, MethodRef, NumericMeasure, Type};

/// How a declared parameter enters the numeric program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormalKind {
    /// An integer parameter: its value.
    Value,
    /// An array parameter: its length.
    ArrayLength,
    /// A `String` parameter: its length.
    StringLength,
    /// The `String` receiver of a spec'd method whose spec names its length (`this`): a
    /// formal after the declared parameters, bound to the call's receiver.
    ReceiverLength,
    /// A collection or map parameter: its size (under the `views` module's assumption).
    CollectionSize,
    /// A box parameter (`Integer`, …): its value.
    BoxedValue,
    /// The stream receiver of a spec'd stream operation whose spec names its size (`this`): a
    /// formal after the declared parameters, bound to the receiver's size view.
    ReceiverSize,
    /// A `Collector` parameter of a spec'd method: which factory made it (`views`).
    CollectorKind,
    /// The first element of the `IntStream` receiver of a spec'd stream operation whose spec
    /// names it (`first`): a formal after the receiver's size. Its elements are consecutive
    /// integers from it (a range's), or of unknown values, bound to [`UNKNOWN_FIRST`].
    ReceiverFirst,
}

/// The first element a spec's `first` is bound to for an `IntStream` whose elements are not a
/// known range: the first value the box cache does not hold, so a spec counting the elements
/// outside the cache counts every element.
const UNKNOWN_FIRST: i64 = 128;

/// Per declared parameter (not counting `this`), how it is a formal, if it is one.
pub fn formal_kinds(body: &ir::Body) -> Vec<Option<FormalKind>> {
    let wanted = Wanted::of(body);
    declared_params(body)
        .map(|var| formal_kind(&body.var(var).ty, wanted))
        .collect()
}

/// Which object views a body uses: a method that uses none keeps its formals and variables
/// free of them.
#[derive(Clone, Copy, Debug)]
struct Wanted {
    strings: bool,
    collections: bool,
    boxes: bool,
}

impl Wanted {
    fn of(body: &ir::Body) -> Self {
        Wanted {
            strings: views::needs(body, ViewType::String),
            collections: views::needs(body, ViewType::Collection),
            boxes: views::needs(body, ViewType::Boxed),
        }
    }

    fn has(self, view: ViewType) -> bool {
        match view {
            ViewType::String => self.strings,
            ViewType::Collection | ViewType::Iterator | ViewType::Stream | ViewType::Collector => {
                self.collections
            }
            ViewType::Boxed => self.boxes,
        }
    }
}

/// The variable of declared parameter `index` (the receiver aside).
pub fn declared_param(body: &ir::Body, index: usize) -> Option<ir::VarId> {
    declared_params(body).nth(index)
}

fn declared_params(body: &ir::Body) -> impl Iterator<Item = ir::VarId> + '_ {
    body.params
        .iter()
        .copied()
        .filter(|&v| body.var(v).origin != ir::VarOrigin::This)
}

fn formal_kind(ty: &Type, wanted: Wanted) -> Option<FormalKind> {
    numeric_formal_kind(ty).or_else(|| match view_type(ty).filter(|&view| wanted.has(view))? {
        ViewType::String => Some(FormalKind::StringLength),
        ViewType::Collection => Some(FormalKind::CollectionSize),
        ViewType::Boxed => Some(FormalKind::BoxedValue),
        // No run measures a stream or a collector handed in.
        ViewType::Iterator | ViewType::Stream | ViewType::Collector => None,
    })
}

/// How a parameter of this type is a formal without object views: an integer by its value,
/// an array by its length.
pub fn numeric_formal_kind(ty: &Type) -> Option<FormalKind> {
    ty.numeric_measure().map(|measure| match measure {
        NumericMeasure::Value => FormalKind::Value,
        NumericMeasure::Length => FormalKind::ArrayLength,
    })
}

/// Where an invariant is requested in a lowered method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PointKey {
    /// Before the statement at this bytecode offset.
    At(u32),
    /// Before the call at this offset, on the way into this callee.
    Call(u32, ProcId),
    /// The procedure's entry: its formals as the call bound them.
    Entry,
}

/// A requested point of the lowered procedure.
#[derive(Clone, Debug)]
pub struct LocalPoint {
    pub key: PointKey,
    pub node: NodeId,
    /// The variables that tell two visits of the point in one activation apart: the counters
    /// of the enclosing loops.
    pub inductive: Vec<VarId>,
    /// For an array allocation, the variables holding its given dimensions, outermost first.
    pub lengths: Vec<VarId>,
}

/// A possible target of a call site, as the caller's lowering needs it.
#[derive(Clone, Debug)]
pub struct CallTarget<'a> {
    pub procedure: ProcId,
    pub method: &'a MethodRef,
    pub formals: &'a [Option<FormalKind>],
    /// The callee's field views and fixed locals, whose formals follow `formals`'.
    pub fields: &'a FieldPlan,
    /// The procedure returns the method's integer result (after its threaded views).
    pub returns_value: bool,
}

/// The procedures a call site may enter that the caller wants invariants for.
#[derive(Clone, Debug, Default)]
pub struct CallTargets<'a> {
    pub targets: Vec<CallTarget<'a>>,
    /// Every method the call may run is among `targets` (none is left out by the chains).
    pub complete: bool,
    /// Every method the call may run ends the program: no path goes on after it.
    pub ends_program: bool,
    /// The call is a format call the call graph takes for an allocation (`CallGraph::formats`).
    pub format: Option<&'a FormatCall>,
}

/// Whether `method` returns an integer value, which its procedure returns.
pub fn returns_integer(method: &MethodRef) -> bool {
    method
        .parsed_descriptor()
        .is_ok_and(|d| d.ret.as_ref().is_some_and(Type::is_integer))
}

/// Where a call's returned values go besides the threaded views.
#[derive(Clone, Copy, Debug, Default)]
struct Returning {
    /// The variable of the method's integer result, when the caller keeps it.
    value: Option<VarId>,
    /// The local receiving the method's result, whose held chains the call may return.
    holder: Option<ir::VarId>,
}

/// A method lowered to a procedure, with its requested points.
#[derive(Clone, Debug)]
pub struct LoweredBody {
    pub procedure: Procedure,
    pub points: Vec<LocalPoint>,
    /// The calls that pass an element of a tree's array field as the callee's tree.
    pub element_calls: Vec<ElementCall>,
}

/// A call passing a local read from an element of the array field of a tree's parameter
/// ([`super::trees`]) as the tree a callee walks: its size is at most the sum of the
/// elements', and calls passing distinct elements share that sum (what the summaries' split
/// law needs, see `super::Lowered::element_shares`).
#[derive(Clone, Debug)]
pub struct ElementCall {
    pub pc: u32,
    pub callee: ProcId,
    /// The callee's formal receiving the element's size, by position.
    pub callee_formal: usize,
    /// The caller's formal of the sum of the elements' sizes, by position.
    pub caller_formal: usize,
    /// The caller's variable holding the index the element was read at.
    pub index: VarId,
}

/// Lowers `body` with the field views of `fields`; `targets(pc)` lists the procedures the call
/// at `pc` may enter that the caller wants invariants for (other callees only havoc the call's
/// result); `exceptions` says whether exceptional paths are followed.
pub fn lower_body<'t>(
    name: &str,
    body: &ir::Body,
    fields: &FieldPlan,
    targets: &dyn Fn(u32) -> CallTargets<'t>,
    exceptions: Exceptions,
) -> LoweredBody {
    let successors = block_successors(body);
    let loops = find_loops(&successors);
    let live = liveness(body, &successors);
    let mut lowerer = Lowerer::new(name, body, fields, loops, targets, live, &successors);
    lowerer.exceptions = exceptions;
    lowerer.lower_blocks();
    LoweredBody {
        procedure: lowerer.procedure,
        points: lowerer.points,
        element_calls: lowerer.element_calls,
    }
}

/// What a branch on an integer variable really compares, learnt from its definition in the
/// same block.
#[derive(Clone, Debug)]
enum Fact {
    /// The variable is `x % k` (Java's truncating remainder) with `k != 0`.
    Remainder { dividend: Expr, divisor: Int },
    /// The variable is `lcmp(a, b)`: its sign is the sign of `a - b`.
    Compare { left: Expr, right: Expr },
}

struct Lowerer<'b, 't> {
    body: &'b ir::Body,
    fields: &'b FieldPlan,
    /// Field view → the variable holding its current value.
    field_vars: HashMap<ViewKey, VarId>,
    /// (Offset of the store or call that fixes a view, the view) → the formal it then holds.
    fixed_formals: HashMap<(u32, ViewKey), VarId>,
    /// Offset of a fixed local's definition → the local and its formal.
    fixed_locals: HashMap<u32, (ir::VarId, VarId)>,
    loops: Loops,
    targets: &'b dyn Fn(u32) -> CallTargets<'t>,
    exceptions: Exceptions,
    procedure: Procedure,
    used_names: HashSet<String>,
    /// IR variable → its value (integer variables).
    value_of: HashMap<ir::VarId, VarId>,
    /// IR variable → its length view (array and `String` variables).
    length_of: HashMap<ir::VarId, VarId>,
    /// IR variable → its size view (collection variables).
    size_of: HashMap<ir::VarId, VarId>,
    /// IR variable → its value view (box variables).
    boxed_of: HashMap<ir::VarId, VarId>,
    /// IR variable → its first element (an `IntStream` of consecutive integers from a range).
    first_of: HashMap<ir::VarId, VarId>,
    /// Walked local ([`super::chains`]) → the rest of its chain.
    rests: HashMap<ir::VarId, VarId>,
    /// Local read from a tree's array elements → the index of the element it holds.
    element_indices: HashMap<ir::VarId, VarId>,
    /// The calls passing such a local as a callee's tree.
    element_calls: Vec<ElementCall>,
    /// Per local holding a cursor of the program's own, the nodes it has left to return.
    cursor_rests: HashMap<ir::VarId, VarId>,
    /// The formals of the chain roots, in the plan's order.
    chain_formals: Vec<VarId>,
    /// (Holder local, held chain) → the length of the chain its object holds
    /// ([`super::held`]).
    held_lengths: HashMap<(ir::VarId, usize), VarId>,
    /// Per field the method appends nodes along ([`super::appends`]), the nodes of its class
    /// created so far; and per held length along such a field, the number of the node its chain
    /// starts at (which an append lengthens only when created before the node appended).
    created: Vec<(FieldRef, VarId)>,
    heads: HashMap<VarId, VarId>,
    /// The lengths of the held chains the procedure returns, in the plan's order.
    returned_chains: Vec<VarId>,
    /// IR variable → the counter of its `next()` calls and the size bounding it (iterators).
    iterators: HashMap<ir::VarId, (VarId, VarId)>,
    /// The method's own `StringBuilder`s ([`super::builders`]), with a length per site.
    builders: Builders,
    builder_lengths: Vec<VarId>,
    /// What an append adds where it may add more or less (an `int`'s chars).
    builder_growth: VarId,
    wanted: Wanted,
    /// Loop head block → its iteration counter.
    counters: BTreeMap<usize, VarId>,
    /// Loop head block → its accumulators' variables, forgotten on every edge into it.
    accumulators: HashMap<usize, Vec<VarId>>,
    /// Havocked stand-ins for call arguments the lowering cannot express, by argument position.
    unknowns: Vec<VarId>,
    /// Where calls put returned values the caller does not keep.
    discarded: Option<VarId>,
    /// The method's integer result at exit.
    returned: Option<VarId>,
    block_entries: Vec<NodeId>,
    points: Vec<LocalPoint>,
    live: Liveness,
    predecessors: Vec<Vec<usize>>,
}

impl<'b, 't> Lowerer<'b, 't> {
    fn new(
        name: &str,
        body: &'b ir::Body,
        fields: &'b FieldPlan,
        loops: Loops,
        targets: &'b dyn Fn(u32) -> CallTargets<'t>,
        live: Liveness,
        successors: &[Vec<usize>],
    ) -> Self {
        let mut predecessors = vec![Vec::new(); successors.len()];
        for (block, next) in successors.iter().enumerate() {
            for &successor in next {
                predecessors[successor].push(block);
            }
        }
        let procedure = Procedure::with_entry_and_exit(name);
        let mut lowerer = Lowerer {
            body,
            fields,
            field_vars: HashMap::new(),
            fixed_formals: HashMap::new(),
            fixed_locals: HashMap::new(),
            loops,
            targets,
            exceptions: Exceptions::Followed,
            procedure,
            used_names: HashSet::new(),
            value_of: HashMap::new(),
            length_of: HashMap::new(),
            size_of: HashMap::new(),
            boxed_of: HashMap::new(),
            first_of: HashMap::new(),
            rests: HashMap::new(),
            element_indices: HashMap::new(),
            element_calls: Vec::new(),
            cursor_rests: HashMap::new(),
            chain_formals: Vec::new(),
            held_lengths: HashMap::new(),
            created: Vec::new(),
            heads: HashMap::new(),
            returned_chains: Vec::new(),
            iterators: HashMap::new(),
            builders: builders(body),
            builder_lengths: Vec::new(),
            builder_growth: VarId(0),
            wanted: Wanted::of(body),
            counters: BTreeMap::new(),
            accumulators: HashMap::new(),
            unknowns: Vec::new(),
            discarded: None,
            returned: None,
            block_entries: Vec::new(),
            points: Vec::new(),
            live,
            predecessors,
        };
        lowerer.declare_formals();
        lowerer.declare_views();
        lowerer.declare_returned();
        lowerer.declare_locals();
        lowerer.declare_builder_lengths();
        lowerer.declare_counters();
        lowerer
    }

    fn declare_formals(&mut self) {
        let body = self.body;
        let mut preconditions = Vec::new();
        for param in declared_params(body) {
            let var = body.var(param);
            let Some(kind) = formal_kind(&var.ty, self.wanted) else {
                continue;
            };
            let name = match kind {
                FormalKind::Value | FormalKind::BoxedValue => var.name.to_string(),
                FormalKind::ArrayLength | FormalKind::StringLength | FormalKind::ReceiverLength => {
                    format!("{}_length", var.name)
                }
                // `formal_kind` gives a method with code no receiver's size or collector.
                FormalKind::CollectionSize
                | FormalKind::ReceiverSize
                | FormalKind::ReceiverFirst
                | FormalKind::CollectorKind => format!("{}_size", var.name),
            };
            let formal = self.new_formal(&name);
            if !matches!(kind, FormalKind::Value | FormalKind::BoxedValue) {
                preconditions.push(ge(formal, 0_i64));
            }
            // A `byte`, `short` or `char` parameter (or box of one) holds only its type's values,
            // a `boolean` 0 or 1 (JVMS 2.3.4: the JVM encodes false as 0 and true as 1).
            let held = match &var.ty {
                Type::Ref(class) => views::boxed_type(class.internal()),
                ty => Some(ty),
            };
            match held {
                Some(Type::Boolean) => preconditions
                    .extend([ge(Expr::var(formal), 0_i64), le(Expr::var(formal), 1_i64)]),
                Some(ty) if ty.is_narrow_integer() => {
                    preconditions.extend(in_range(ty, Expr::var(formal)))
                }
                _ => {}
            }
            match kind {
                FormalKind::Value => self.value_of.insert(param, formal),
                FormalKind::ArrayLength | FormalKind::StringLength | FormalKind::ReceiverLength => {
                    self.length_of.insert(param, formal)
                }
                FormalKind::CollectionSize
                | FormalKind::ReceiverSize
                | FormalKind::ReceiverFirst
                | FormalKind::CollectorKind => self.size_of.insert(param, formal),
                FormalKind::BoxedValue => self.boxed_of.insert(param, formal),
            };
        }
        if !preconditions.is_empty() {
            self.procedure.precondition = Cond::And(preconditions);
        }
    }

    /// A formal with its entry snapshot.
    fn new_formal(&mut self, name: &str) -> VarId {
        let formal = self.new_var(name, VarKind::Formal);
        let index = self.procedure.formals.len();
        self.procedure.formals.push(formal);
        let snapshot_name = format!("{}_init", self.procedure.var_name(formal));
        let snapshot = self.new_var(&snapshot_name, VarKind::Snapshot(index));
        self.procedure.snapshots.push(snapshot);
        formal
    }

    /// The field views' variables, their formals after the declared parameters' in plan order.
    fn declare_views(&mut self) {
        let fields = self.fields;
        for view in &fields.views {
            let var = match view.mode {
                ViewMode::Formal => self.new_formal(&view.name),
                ViewMode::Threaded => {
                    let formal = self.new_formal(&view.name);
                    self.procedure.returns.push(formal);
                    formal
                }
                ViewMode::Local { fixed_at } => {
                    let local = match fixed_at {
                        Some(pc) => {
                            let formal = self.new_formal(&view.name);
                            self.fixed_formals.insert((pc, view.key.clone()), formal);
                            format!("{}_now", view.name)
                        }
                        None => view.name.clone(),
                    };
                    self.new_var(&local, VarKind::Local)
                }
            };
            self.field_vars.insert(view.key.clone(), var);
        }
        for local in &fields.locals {
            let formal = self.new_formal(&self.body.var(local.var).name);
            self.fixed_locals.insert(local.pc, (local.var, formal));
        }
        self.declare_walks();
    }

    /// A formal per chain root, at least 0, and the rest of each walked local: a walked
    /// parameter's rest is its own chain's formal.
    fn declare_walks(&mut self) {
        let walks = &self.fields.walks;
        for root in &walks.roots {
            let formal = self.new_formal(&root.name);
            self.require(ge(formal, 0_i64));
            self.chain_formals.push(formal);
        }
        for walked in &walks.locals {
            let rest = match walks.entry_root(walked.var) {
                Some(root) => self.chain_formals[root],
                None => {
                    let name = format!("{}_rest", self.body.var(walked.var).name);
                    self.new_var(&name, VarKind::Local)
                }
            };
            self.rests.insert(walked.var, rest);
            let reads_elements = walked
                .steps
                .iter()
                .any(|(_, step)| matches!(step, WalkStep::Element { .. }));
            if reads_elements {
                let name = format!("{}_index", self.body.var(walked.var).name);
                let index = self.new_var(&name, VarKind::Local);
                self.element_indices.insert(walked.var, index);
            }
        }
        // A tree's children hold disjoint parts of it (all 0 when it is null); `this` is not.
        let holds: Vec<Cond> = (0..walks.trees.len())
            .map(
                |tree| match self.fields.this == Some(walks.trees[tree].var) {
                    true => self.non_null_tree(tree),
                    false => le(self.children_size(tree), self.tree_size(tree)),
                },
            )
            .collect();
        for condition in holds {
            self.require(condition);
        }
        for &var in walks.cursors.keys() {
            let name = format!("{}_left", self.body.var(var).name);
            let left = self.new_var(&name, VarKind::Local);
            self.cursor_rests.insert(var, left);
        }
        for append in &walks.appends {
            if !self.created.iter().any(|(field, _)| *field == append.field) {
                let name = format!("{}_created", append.field.name);
                let created = self.new_var(&name, VarKind::Local);
                self.created.push((append.field.clone(), created));
            }
        }
        for (index, chain) in walks.held.chains.iter().enumerate() {
            let appended = self.created.iter().any(|(field, _)| *field == chain.along);
            for &holder in &chain.holders {
                let name = format!("{}_{}_length", self.body.var(holder).name, chain.field.name);
                let length = self.new_var(&name, VarKind::Local);
                self.held_lengths.insert((holder, index), length);
                if appended {
                    let name = format!("{}_{}_head", self.body.var(holder).name, chain.field.name);
                    let head = self.new_var(&name, VarKind::Local);
                    self.heads.insert(length, head);
                }
            }
        }
    }

    /// The size of tree `tree` ([`super::chains::Walks::trees`]): its parameter's formal.
    fn tree_size(&self, tree: usize) -> Expr {
        Expr::var(self.chain_formals[self.fields.walks.trees[tree].whole])
    }

    /// The sum of the sizes of tree `tree`'s children.
    fn children_size(&self, tree: usize) -> Expr {
        self.fields.walks.trees[tree]
            .children
            .iter()
            .fold(Expr::constant(0), |sum, &child| {
                sum + Expr::var(self.chain_formals[child])
            })
    }

    /// What a non-null tree parameter says: it is a node, and its children's subtrees, disjoint
    /// and without it, hold at most the other nodes.
    fn non_null_tree(&self, tree: usize) -> Cond {
        Cond::And(vec![
            ge(self.tree_size(tree), 1_i64),
            le(self.children_size(tree), self.tree_size(tree) - 1),
        ])
    }

    /// Adds `condition` to what every call of the procedure satisfies at entry.
    fn require(&mut self, condition: Cond) {
        self.procedure.precondition =
            match std::mem::replace(&mut self.procedure.precondition, Cond::True) {
                Cond::True => condition,
                Cond::And(mut all) => {
                    all.push(condition);
                    Cond::And(all)
                }
                other => Cond::And(vec![other, condition]),
            };
    }

    /// What the assignment to `dst` at `pc` does to its chain's rest, when `dst` is walked:
    /// following the field needs a node (the object read was not null) and leaves one fewer.
    fn walk_step(&mut self, node: NodeId, pc: u32, dst: ir::VarId) -> NodeId {
        let Some(&rest) = self.rests.get(&dst) else {
            return node;
        };
        let walks = &self.fields.walks;
        let step = walks
            .locals
            .iter()
            .find(|w| w.var == dst)
            .and_then(|w| w.steps.iter().find(|(at, _)| *at == pc))
            .map(|(_, step)| step.clone());
        match step {
            Some(WalkStep::Follow(source)) => {
                let from = self.rests[&source];
                let node = self.step(node, Action::Assume(ge(from, 1_i64)));
                self.step(
                    node,
                    Action::Assign {
                        var: rest,
                        expr: Expr::var(from) - 1,
                    },
                )
            }
            Some(WalkStep::Copy(source)) => {
                let expr = Expr::var(self.rests[&source]);
                self.step(node, Action::Assign { var: rest, expr })
            }
            Some(WalkStep::Start(root)) => {
                let expr = Expr::var(self.chain_formals[root]);
                self.step(node, Action::Assign { var: rest, expr })
            }
            Some(WalkStep::Fresh) => self.step(
                node,
                Action::Assign {
                    var: rest,
                    expr: Expr::constant(1),
                },
            ),
            Some(WalkStep::Null) => self.step(
                node,
                Action::Assign {
                    var: rest,
                    expr: Expr::constant(0),
                },
            ),
            Some(WalkStep::Child { tree, root }) => {
                let node = self.step(node, Action::Assume(self.non_null_tree(tree)));
                let expr = Expr::var(self.chain_formals[root]);
                self.step(node, Action::Assign { var: rest, expr })
            }
            Some(WalkStep::Element { tree, root, index }) => {
                let node = self.step(node, Action::Assume(self.non_null_tree(tree)));
                let node = self.step(node, Action::Havoc(rest));
                let elements = Expr::var(self.chain_formals[root]);
                let within = Cond::And(vec![ge(rest, 0_i64), le(Expr::var(rest), elements)]);
                let node = self.step(node, Action::Assume(within));
                let at = self.element_indices[&dst];
                self.step(node, Action::assign_or_havoc(at, self.affine(&index)))
            }
            Some(WalkStep::Held { holder, chain }) => {
                let length = self.held_lengths.get(&(holder, chain));
                self.step(
                    node,
                    Action::assign_or_havoc(rest, length.map(|&l| Expr::var(l))),
                )
            }
            None => self.step(node, Action::Havoc(rest)),
        }
    }

    /// What assigning `value` to a cursor's local does to its rest: a new object's cursor holds
    /// nothing until its constructor runs, a copy has the source's rest, anything else an
    /// unknown one.
    fn cursor_assign(&mut self, node: NodeId, dst: ir::VarId, value: &ir::Expr) -> NodeId {
        let Some(&left) = self.cursor_rests.get(&dst) else {
            return node;
        };
        let cursors = &self.fields.walks.cursors;
        let expr = assigned_count(value, |source| {
            let same = cursors.get(&source) == cursors.get(&dst);
            same.then(|| self.cursor_rests.get(&source).copied())?
        });
        self.step(node, Action::assign_or_havoc(left, expr))
    }

    /// What the call at `pc` does to a cursor: a new one has the rest of the chain it starts at
    /// (unknown unless that is a walked local's), `hasNext()` is true only with a node left,
    /// and `next()` returns only from a node, one fewer left.
    fn cursor_call(
        &mut self,
        node: NodeId,
        pc: u32,
        dst: Option<ir::VarId>,
        call: &ir::Call,
    ) -> NodeId {
        let walks = &self.fields.walks;
        let cursor_call = walks.cursor_calls.get(&pc);
        let creates_result = matches!(cursor_call, Some(CursorCall::Create { .. }))
            && &*call.method.name != "<init>";
        // A cursor's local set to another call's result holds a cursor of unknown rest.
        let mut node = node;
        if let Some(&left) = dst.and_then(|d| self.cursor_rests.get(&d))
            && !creates_result
        {
            node = self.step(node, Action::Havoc(left));
        }
        let Some(cursor_call) = cursor_call else {
            return node;
        };
        let receiver = match &call.receiver {
            Some(Operand::Var(receiver)) => self.cursor_rests.get(receiver).copied(),
            _ => None,
        };
        match cursor_call {
            CursorCall::Create { start, cursor } => {
                let holder = if &*call.method.name == "<init>" {
                    receiver
                } else {
                    dst.and_then(|d| self.cursor_rests.get(&d).copied())
                };
                let Some(left) = holder else {
                    return node;
                };
                let argument = match start {
                    Start::Argument(arg) => call.args.get(*arg),
                    Start::ReceiverField(_) => None,
                };
                let walked = match argument {
                    Some(Operand::Var(start)) => walks
                        .locals
                        .iter()
                        .find(|w| {
                            w.var == *start && w.branches.is_empty() && w.field == cursor.follows
                        })
                        .map(|_| Expr::var(self.rests[start])),
                    _ => None,
                };
                let start = walked.or_else(|| {
                    let root = walks.cursor_roots.get(&pc)?;
                    Some(Expr::var(self.chain_formals[*root]))
                });
                self.step(node, Action::assign_or_havoc(left, start))
            }
            CursorCall::HasMore(_) => {
                let (Some(left), Some(&result)) =
                    (receiver, dst.and_then(|d| self.value_of.get(&d)))
                else {
                    return node;
                };
                let bounds =
                    Cond::And(vec![ge(result, 0_i64), le(result, 1_i64), le(result, left)]);
                self.step(node, Action::Assume(bounds))
            }
            CursorCall::Advance(_) => {
                let Some(left) = receiver else {
                    return node;
                };
                let node = self.step(node, Action::Assume(ge(left, 1_i64)));
                let expr = Expr::var(left) - 1;
                self.step(node, Action::Assign { var: left, expr })
            }
        }
    }

    /// What the store at `pc` does to the chains, when it links a new node: every local
    /// holding the node has one node more than the stored successor.
    fn link_step(&mut self, node: NodeId, pc: u32) -> NodeId {
        let walks = &self.fields.walks;
        let Some(link) = walks.links.iter().find(|link| link.pc == pc) else {
            return node;
        };
        let expr = match link.next {
            Some(next) => Expr::var(self.rests[&next]) + 1,
            None => Expr::constant(1),
        };
        let holders: Vec<VarId> = link
            .node
            .iter()
            .filter_map(|held| self.rests.get(held).copied())
            .collect();
        holders.into_iter().fold(node, |node, var| {
            let expr = expr.clone();
            self.step(node, Action::Assign { var, expr })
        })
    }

    /// A store appending a new node at the tail of a list the method builds
    /// ([`super::appends`]): the chains of the list's nodes get one node more, that of the new
    /// node and null stay, and the rest of any other walked local is forgotten.
    fn append_step(&mut self, node: NodeId, pc: u32) -> NodeId {
        let walks = &self.fields.walks;
        let Some(append) = walks.appends.iter().find(|append| append.pc == pc) else {
            return node;
        };
        let mut effects: Vec<(VarId, AppendEffect)> = self
            .rests
            .iter()
            .map(|(&local, &rest)| (rest, append.effect(local)))
            .collect();
        effects.sort_unstable_by_key(|&(rest, _)| rest);
        let node = effects
            .into_iter()
            .fold(node, |node, (rest, effect)| match effect {
                AppendEffect::Keep => node,
                AppendEffect::Extend => self.one_more_unless_empty(node, rest),
                AppendEffect::Forget => self.step(node, Action::Havoc(rest)),
            });
        self.lengthen_held(node, &append.field)
    }

    /// At an append along `field`, each held chain along it: one node more where it starts at
    /// a node created before the one appended (every such node is on the list), the same where
    /// it is empty or starts at the node appended or at a node not created here (unknown
    /// start: either).
    fn lengthen_held(&mut self, node: NodeId, field: &FieldRef) -> NodeId {
        let Some(&(_, created)) = self.created.iter().find(|(f, _)| f == field) else {
            return node;
        };
        let chains = &self.fields.walks.held.chains;
        let mut lengths: Vec<VarId> = (self.held_lengths.iter())
            .filter(|((_, chain), _)| chains[*chain].along == *field)
            .map(|(_, &length)| length)
            .collect();
        lengths.sort_unstable();
        lengths.into_iter().fold(node, |node, length| {
            let Some(&head) = self.heads.get(&length) else {
                return self.step(node, Action::Havoc(length));
            };
            let joined = self.new_node();
            let earlier = Cond::And(vec![
                ge(length, 1_i64),
                le(Expr::var(head), Expr::var(created) - 1),
            ]);
            let lengthened = self.step(node, Action::Assume(earlier));
            let expr = Expr::var(length) + 1;
            self.edge(lengthened, joined, Action::Assign { var: length, expr });
            self.edge(node, joined, Action::Assume(le(length, 0_i64)));
            let later = ge(Expr::var(head), Expr::var(created));
            self.edge(node, joined, Action::Assume(later));
            joined
        })
    }

    /// A rest of at least one node gets one more; a rest of 0 (null) stays.
    fn one_more_unless_empty(&mut self, node: NodeId, rest: VarId) -> NodeId {
        let joined = self.new_node();
        let on_list = self.step(node, Action::Assume(ge(rest, 1_i64)));
        let expr = Expr::var(rest) + 1;
        self.edge(on_list, joined, Action::Assign { var: rest, expr });
        self.edge(
            node,
            joined,
            Action::Assume(le(Expr::var(rest), Expr::constant(0))),
        );
        joined
    }

    /// The variable holding an integer result at exit, returned after the threaded views, and
    /// those of the held chains of the result ([`super::held`]) after it.
    fn declare_returned(&mut self) {
        if returns_integer(&self.body.method) {
            let var = self.new_var("returned", VarKind::Local);
            self.procedure.returns.push(var);
            self.returned = Some(var);
        }
        let held = &self.fields.walks.held;
        let names: Vec<String> = held
            .returned
            .iter()
            .map(|&chain| format!("returned_{}_length", held.chains[chain].field.name))
            .collect();
        for name in names {
            let var = self.new_var(&name, VarKind::Local);
            self.procedure.returns.push(var);
            self.returned_chains.push(var);
        }
    }

    fn declare_locals(&mut self) {
        let body = self.body;
        for (index, var) in body.vars.iter().enumerate() {
            let id = ir::VarId(index as u32);
            if self.value_of.contains_key(&id)
                || self.length_of.contains_key(&id)
                || self.size_of.contains_key(&id)
                || self.boxed_of.contains_key(&id)
            {
                continue;
            }
            if var.ty.is_integer() {
                let local = self.new_var(&var.name, VarKind::Local);
                self.value_of.insert(id, local);
            } else if matches!(var.ty, Type::Array(_)) {
                let local = self.new_var(&format!("{}_length", var.name), VarKind::Local);
                self.length_of.insert(id, local);
            } else if let Some(view) = view_type(&var.ty).filter(|&v| self.wanted.has(v)) {
                let local = |suffix: &str| format!("{}_{suffix}", var.name);
                match view {
                    ViewType::String => {
                        let length = self.new_var(&local("length"), VarKind::Local);
                        self.length_of.insert(id, length);
                    }
                    ViewType::Collection => {
                        let size = self.new_var(&local("size"), VarKind::Local);
                        self.size_of.insert(id, size);
                    }
                    ViewType::Stream => {
                        let size = self.new_var(&local("size"), VarKind::Local);
                        self.size_of.insert(id, size);
                        if views::is_int_stream(&var.ty) {
                            let first = self.new_var(&local("first"), VarKind::Local);
                            self.first_of.insert(id, first);
                        }
                    }
                    ViewType::Collector => {
                        let kind = self.new_var(&local("kind"), VarKind::Local);
                        self.size_of.insert(id, kind);
                    }
                    ViewType::Boxed => {
                        let value = self.new_var(&local("value"), VarKind::Local);
                        self.boxed_of.insert(id, value);
                    }
                    ViewType::Iterator => {
                        let count = self.new_var(&local("count"), VarKind::Local);
                        let bound = self.new_var(&local("bound"), VarKind::Local);
                        self.iterators.insert(id, (count, bound));
                    }
                }
            }
        }
    }

    fn declare_builder_lengths(&mut self) {
        for pc in self.builders.sites.clone() {
            let length = self.new_var(&format!("builder{pc}_length"), VarKind::Local);
            self.builder_lengths.push(length);
        }
        if !self.builders.sites.is_empty() {
            self.builder_growth = self.new_var("builder_growth", VarKind::Local);
        }
    }

    fn declare_counters(&mut self) {
        for head in self.loops.heads.clone() {
            let pc = self.body.blocks[head].pc;
            let counter = self.new_var(&counter_name(pc), VarKind::Local);
            self.counters.insert(head, counter);
        }
        for (head, vars) in accumulators(self.body, &self.loops) {
            let vars = vars
                .iter()
                .filter_map(|v| self.value_of.get(v).copied())
                .collect();
            self.accumulators.insert(head, vars);
        }
    }

    /// A variable with `wanted` made into a unique isl identifier.
    fn new_var(&mut self, wanted: &str, kind: VarKind) -> VarId {
        let name = self.unique_name(wanted);
        self.procedure.vars.push(Variable { name, kind });
        VarId(self.procedure.vars.len() - 1)
    }

    fn unique_name(&mut self, wanted: &str) -> String {
        let base = identifier(wanted);
        let mut name = base.clone();
        let mut suffix = 1;
        while !self.used_names.insert(name.clone()) {
            suffix += 1;
            name = format!("{base}_{suffix}");
        }
        name
    }

    fn new_node(&mut self) -> NodeId {
        self.procedure.node_count += 1;
        NodeId(self.procedure.node_count - 1)
    }

    fn edge(&mut self, from: NodeId, to: NodeId, action: Action) {
        self.procedure.edges.push(Edge { from, to, action });
    }

    /// A new node reached from `from` through `action`.
    fn step(&mut self, from: NodeId, action: Action) -> NodeId {
        let next = self.new_node();
        self.edge(from, next, action);
        next
    }

    /// `from` to `to` through `actions` in order.
    fn connect(&mut self, from: NodeId, to: NodeId, actions: Vec<Action>) {
        let mut node = from;
        let count = actions.len();
        for (index, action) in actions.into_iter().enumerate() {
            if index + 1 == count {
                self.edge(node, to, action);
                return;
            }
            node = self.step(node, action);
        }
        self.edge(node, to, Action::Skip);
    }

    fn lower_blocks(&mut self) {
        let body = self.body;
        self.block_entries = (0..body.blocks.len()).map(|_| self.new_node()).collect();
        // Without natural loops counters never restart, so they start at 0 here; with them,
        // entering a loop restarts its counter (the first block may itself be a loop head).
        let mut start: Vec<Action> = if self.loops.reducible {
            Vec::new()
        } else {
            self.counters
                .values()
                .map(|&c| Action::Assign {
                    var: c,
                    expr: Expr::constant(0),
                })
                .collect()
        };
        start.extend(self.created.iter().map(|&(_, created)| Action::Assign {
            var: created,
            expr: Expr::constant(0),
        }));
        if let Some(&first) = self.block_entries.first() {
            start.extend(self.edge_actions(None, 0));
            self.connect(NodeId(0), first, start);
        }
        let runs = body.blocks_run(self.exceptions);
        for (index, runs) in runs.into_iter().enumerate() {
            self.lower_block(index, runs);
        }
    }

    /// Counter updates on the edge from `from` (`None`: the method entry) to block `to`:
    /// increment on a retreating edge, restart on an edge entering a natural loop; and the
    /// loop's accumulators forgotten.
    fn edge_actions(&self, from: Option<usize>, to: usize) -> Vec<Action> {
        let Some(&counter) = self.counters.get(&to) else {
            return Vec::new();
        };
        let retreating = from.is_some_and(|f| self.loops.retreating.contains(&(f, to)));
        let mut actions = if retreating {
            vec![Action::Assign {
                var: counter,
                expr: Expr::var(counter) + 1,
            }]
        } else if self.loops.reducible {
            vec![Action::Assign {
                var: counter,
                expr: Expr::constant(0),
            }]
        } else {
            Vec::new()
        };
        let forgotten = self.accumulators.get(&to).into_iter().flatten();
        actions.extend(forgotten.map(|&var| Action::Havoc(var)));
        actions
    }

    /// Lowers the block `index`; one that does not run (`Body::blocks_run`) starts from a node
    /// no path reaches.
    fn lower_block(&mut self, index: usize, runs: bool) {
        let block = &self.body.blocks[index];
        let mut node = if !runs {
            self.new_node()
        } else {
            self.forget_at_block_start(index)
        };
        let mut facts: HashMap<ir::VarId, Fact> = HashMap::new();
        for stmt in &block.stmts {
            // A call (or a class initializer the statement runs) may throw after a write.
            let forgotten = self.changed_by_call(stmt.pc);
            self.exception_edges(index, node, &forgotten);
            node = self.lower_stmt(index, node, stmt, &mut facts);
        }
        self.exception_edges(index, node, &[]);
        self.lower_terminator(index, node, &facts);
    }

    /// The block's start, after forgetting what no later statement reads: dead locals and, in
    /// natural loops, the counters of loops that do not contain the block (entering a loop
    /// restarts its counter).
    fn forget_at_block_start(&mut self, block: usize) -> NodeId {
        let predecessors = &self.predecessors[block];
        // Only what a predecessor may have constrained needs forgetting: anything else was
        // forgotten there already.
        let maybe_constrained = |var: &ir::VarId| {
            block == 0
                || predecessors.iter().any(|&p| {
                    self.live.live_in[p].contains(var) || self.live.written[p].contains(var)
                })
        };
        let live = &self.live.live_in[block];
        let iterators = self
            .iterators
            .iter()
            .flat_map(|(ir_var, &(count, bound))| [(ir_var, count), (ir_var, bound)]);
        let mut forgotten: Vec<VarId> = self
            .value_of
            .iter()
            .chain(&self.length_of)
            .chain(&self.size_of)
            .chain(&self.boxed_of)
            .chain(&self.first_of)
            .map(|(ir_var, &var)| (ir_var, var))
            .chain(iterators)
            .filter(|(ir_var, _)| !live.contains(ir_var) && maybe_constrained(ir_var))
            .map(|(_, var)| var)
            .collect();
        if self.loops.reducible {
            let enclosing = &self.loops.enclosing;
            forgotten.extend(
                self.counters
                    .iter()
                    .filter(|(head, _)| {
                        !enclosing[block].contains(head)
                            && predecessors.iter().any(|&p| enclosing[p].contains(head))
                    })
                    .map(|(_, &counter)| counter),
            );
        }
        forgotten.sort_unstable();
        let mut node = self.block_entries[block];
        for var in forgotten {
            node = self.step(node, Action::Havoc(var));
        }
        node
    }

    /// The state at `node` may reach each handler of the block, with the `forgotten` views a
    /// throwing call may have changed first.
    fn exception_edges(&mut self, block: usize, node: NodeId, forgotten: &[VarId]) {
        if self.exceptions == Exceptions::Dropped {
            return;
        }
        let handlers: Vec<usize> = self.body.blocks[block]
            .handlers
            .iter()
            .map(|h| h.target.0 as usize)
            .filter(|&t| t < self.block_entries.len())
            .collect();
        for handler in handlers {
            let mut actions: Vec<Action> = forgotten.iter().map(|&v| Action::Havoc(v)).collect();
            actions.extend(self.edge_actions(Some(block), handler));
            self.connect(node, self.block_entries[handler], actions);
        }
    }

    fn jump(&mut self, from_block: usize, node: NodeId, target: ir::BlockId, guard: Option<Cond>) {
        let target = target.0 as usize;
        let Some(&entry) = self.block_entries.get(target) else {
            // A target outside the body: malformed IR; the path leaves the method.
            self.edge(node, self.procedure.exit, Action::Skip);
            return;
        };
        let mut actions: Vec<Action> = guard.into_iter().map(Action::Assume).collect();
        actions.extend(self.edge_actions(Some(from_block), target));
        actions.extend(self.loop_exit_actions(from_block, target));
        self.connect(node, entry, actions);
    }

    /// On an edge leaving a loop for the exit that fixes a static view
    /// ([`LoopExit`]): the view equals its formal from there on. An assumption
    /// rather than an assignment, so whatever the loop let the view follow stays known.
    fn loop_exit_actions(&self, from: usize, to: usize) -> Vec<Action> {
        let leaving = |exit: &&LoopExit| {
            exit.exit == to
                && self.loops.enclosing[from].contains(&exit.head)
                && !self.loops.enclosing[to].contains(&exit.head)
        };
        let pc = self.body.blocks[to].pc;
        self.fields
            .loop_exits
            .iter()
            .filter(leaving)
            .filter_map(|exit| {
                let var = *self.field_vars.get(&exit.key)?;
                let formal = *self.fixed_formals.get(&(pc, exit.key.clone()))?;
                Some(Action::Assume(eq(var, formal)))
            })
            .collect()
    }

    fn lower_terminator(&mut self, block: usize, node: NodeId, facts: &HashMap<ir::VarId, Fact>) {
        match &self.body.blocks[block].terminator {
            Terminator::Goto(target) => self.jump(block, node, *target, None),
            Terminator::If {
                op,
                lhs,
                rhs,
                then_target,
                else_target,
            } => {
                let guard = self.branch_guard(*op, lhs, rhs, facts);
                self.split_parameter_test(*op, lhs, rhs);
                let targets = (*then_target, *else_target);
                self.split_loop_entry(block, targets, *op, lhs, rhs);
                self.split_held_choice(targets, *op, lhs, rhs);
                let negated = match (op, lhs, rhs) {
                    (CmpOp::Eq | CmpOp::Ne, Operand::Var(v), Operand::Const(Const::Null)) => {
                        let other = if *op == CmpOp::Eq {
                            CmpOp::Ne
                        } else {
                            CmpOp::Eq
                        };
                        self.null_test(other, *v)
                    }
                    _ => guard.clone().map(|g| Cond::Not(Box::new(g))),
                };
                self.jump(block, node, *then_target, guard);
                self.jump(block, node, *else_target, negated);
            }
            Terminator::Switch {
                key,
                cases,
                default,
            } => {
                let key = self.affine(key);
                for (value, target) in cases {
                    let guard = key.clone().map(|k| eq(k, i64::from(*value)));
                    self.jump(block, node, *target, guard);
                }
                let guard = key.map(|k| {
                    Cond::And(
                        cases
                            .iter()
                            .map(|(v, _)| ne(k.clone(), i64::from(*v)))
                            .collect(),
                    )
                });
                self.jump(block, node, *default, guard);
            }
            Terminator::Return(value) => {
                let action = match (self.returned, value) {
                    (Some(var), Some(value)) => Action::assign_or_havoc(var, self.affine(value)),
                    _ => Action::Skip,
                };
                let mut actions = vec![action];
                actions.extend(self.returned_chain_actions(value.as_ref()));
                self.connect(node, self.procedure.exit, actions);
            }
            // The exit is the normal completion callers continue from; a thrown exception
            // reaches this method's handlers through the block's exception edges, and its
            // callers' handlers through theirs.
            Terminator::Throw(_) => {}
        }
    }

    /// The lengths of the held chains the procedure returns, from the returned local's: unknown
    /// when it holds none.
    fn returned_chain_actions(&self, value: Option<&Operand>) -> Vec<Action> {
        let held = &self.fields.walks.held;
        held.returned
            .iter()
            .zip(&self.returned_chains)
            .map(|(&chain, &var)| {
                let length = match value {
                    Some(Operand::Var(local)) => self.held_lengths.get(&(*local, chain)),
                    _ => None,
                };
                Action::assign_or_havoc(var, length.map(|&length| Expr::var(length)))
            })
            .collect()
    }

    /// `p == c` or `p != c` on a parameter the body never assigns and a constant: joins keep
    /// `p < c`, `p == c` and `p > c` apart, so a recursion guarded by `if (level == 0)` keeps
    /// `level >= 1` (where it descends to 0) apart from `level <= -1` (where it never stops)
    /// through the loops before its calls. Not for a `boolean` parameter.
    fn split_parameter_test(&mut self, op: CmpOp, lhs: &Operand, rhs: &Operand) {
        if !matches!(op, CmpOp::Eq | CmpOp::Ne) {
            return;
        }
        // A flag never descends to a base case, and each split doubles the parts of every join
        // (AbstractQueuedSynchronizer.acquire tests three flags).
        let is_flag = |operand: &Operand| matches!(operand, Operand::Var(v) if self.body.var(*v).ty == Type::Boolean);
        if is_flag(lhs) || is_flag(rhs) {
            return;
        }
        let Some((left, right)) = self.fixed_parameter_test(lhs, rhs) else {
            return;
        };
        let difference = left.minus(&right);
        self.keep_apart(difference.negated());
        self.keep_apart(difference);
    }

    /// The sides of a test of a parameter the body never assigns against a constant.
    fn fixed_parameter_test(&self, lhs: &Operand, rhs: &Operand) -> Option<(Expr, Expr)> {
        let ((Operand::Var(param), Operand::Const(_)) | (Operand::Const(_), Operand::Var(param))) =
            (lhs, rhs)
        else {
            return None;
        };
        if !self.body.params.contains(param) || self.body.assigns(*param) {
            return None;
        }
        Some((self.affine(lhs)?, self.affine(rhs)?))
    }

    /// A test of a parameter the body never assigns against a constant that chooses whether a
    /// walk starts from a held chain (em3d's `g.eNodes = n > 0 ? table[0] : null`): joins keep
    /// its two sides apart, so the walk's length is `n` on one and 0 on the other, where one
    /// convex hull of both keeps no upper bound.
    fn split_held_choice(
        &mut self,
        (then_target, else_target): (ir::BlockId, ir::BlockId),
        op: CmpOp,
        lhs: &Operand,
        rhs: &Operand,
    ) {
        let starts_held_walk = |target: &ir::BlockId| {
            let stmts = &self.body.blocks[target.0 as usize].stmts;
            let walks = &self.fields.walks;
            stmts.iter().any(|stmt| {
                (walks.locals.iter().flat_map(|walked| &walked.steps))
                    .any(|(pc, step)| *pc == stmt.pc && matches!(step, WalkStep::Held { .. }))
            })
        };
        if !starts_held_walk(&then_target) && !starts_held_walk(&else_target) {
            return;
        }
        // The test holds on one side of `split <= 0`, `split >= 1`.
        let Some((left, right)) = self.fixed_parameter_test(lhs, rhs) else {
            return;
        };
        let split = match op {
            CmpOp::Le | CmpOp::Gt => left.minus(&right),
            CmpOp::Lt | CmpOp::Ge => left.minus(&right) + 1,
            CmpOp::Eq | CmpOp::Ne => return,
        };
        let Some(split) = in_entry_values(&split, &self.entry_values()) else {
            return;
        };
        self.keep_apart(split);
    }

    /// Joins keep `split <= 0` apart from `split >= 1` ([`Procedure::sign_splits`]), once.
    fn keep_apart(&mut self, split: Expr) {
        if !split.terms.is_empty() && !self.procedure.sign_splits.contains(&split) {
            self.procedure.sign_splits.push(split);
        }
    }

    /// A loop's exit test comparing a local with values fixed for the run (`i < n`, `n` a
    /// parameter the body never assigns), the local set before the loop to another such value
    /// (`i = 0`): joins keep the runs where the loop starts (its test holds at that first value,
    /// `n >= 1`) apart from those where it does not, so after the loop the local is `n` on one
    /// side and `0` on the other — `max(0, n)` as its two cases, where one convex hull of both
    /// keeps no upper bound (a list built by `n` insertions would have no length).
    fn split_loop_entry(
        &mut self,
        block: usize,
        (then_target, else_target): (ir::BlockId, ir::BlockId),
        op: CmpOp,
        lhs: &Operand,
        rhs: &Operand,
    ) {
        let (then, otherwise) = (then_target.0 as usize, else_target.0 as usize);
        let Some((head, stays)) = self.exited_loop(block, then, otherwise) else {
            return;
        };
        // Each split doubles the parts of every join: only where the loop leaves something it
        // sets to be read after it (a counter, a list's head).
        let exit = if stays { otherwise } else { then };
        if !self.leaves_live(head, exit) {
            return;
        }
        let op = if stays { op } else { op.negate() };
        // The loop runs while `difference >= 1` (strict) or `>= 0`.
        let (Some(left), Some(right)) = (self.affine(lhs), self.affine(rhs)) else {
            return;
        };
        let (difference, strict) = match op {
            CmpOp::Lt => (right.minus(&left), true),
            CmpOp::Le => (right.minus(&left), false),
            CmpOp::Gt => (left.minus(&right), true),
            CmpOp::Ge => (left.minus(&right), false),
            CmpOp::Eq | CmpOp::Ne => return,
        };
        let entry_values = self.entry_values();
        let mut first_run = difference;
        for operand in [lhs, rhs] {
            let Operand::Var(local) = operand else {
                continue;
            };
            let Some(&var) = self.value_of.get(local) else {
                continue;
            };
            if entry_values.contains_key(&var) {
                continue;
            }
            let Some(initial) = self.value_before_loop(head, *local) else {
                return;
            };
            let coeff = first_run.coeff(var);
            first_run.terms.remove(&var);
            first_run = first_run.plus(&initial.scaled(&coeff));
        }
        if !strict {
            first_run = first_run + 1;
        }
        let Some(split) = in_entry_values(&first_run, &entry_values) else {
            return;
        };
        self.keep_apart(split);
    }

    /// The head of the loop `block`'s branch leaves, and whether `then` stays in it.
    fn exited_loop(&self, block: usize, then: usize, otherwise: usize) -> Option<(usize, bool)> {
        let inside = |head: usize, target: usize| {
            self.loops
                .enclosing
                .get(target)
                .is_some_and(|heads| heads.contains(&head))
        };
        self.loops.enclosing[block].iter().find_map(|&head| {
            match (inside(head, then), inside(head, otherwise)) {
                (true, false) => Some((head, true)),
                (false, true) => Some((head, false)),
                _ => None,
            }
        })
    }

    /// Whether a variable with a numeric value (an integer, a length, a list's rest, …) that
    /// the loop at `head` writes is live where it exits to `exit`.
    fn leaves_live(&self, head: usize, exit: usize) -> bool {
        let live = &self.live.live_in[exit];
        let numeric = |var: &ir::VarId| {
            [
                &self.value_of,
                &self.length_of,
                &self.size_of,
                &self.boxed_of,
                &self.rests,
                &self.cursor_rests,
            ]
            .iter()
            .any(|map| map.contains_key(var))
        };
        let inside = |b: &usize| self.loops.enclosing[*b].contains(&head);
        let held = &self.fields.walks.held;
        // A list the loop builds in a holder's field (`g.first = v`), the holder read after.
        let held_store = (0..self.body.blocks.len())
            .filter(inside)
            .flat_map(|b| &self.body.blocks[b].stmts)
            .filter_map(|stmt| held.stores.get(&stmt.pc))
            .any(|store| live.contains(&store.holder));
        // A builder's text the loop lengthens (read after, as a rule: nothing else reads it).
        let builder_grows = (0..self.body.blocks.len())
            .filter(inside)
            .flat_map(|b| &self.body.blocks[b].stmts)
            .any(|stmt| self.builders.moves_length_at(stmt.pc));
        held_store
            || builder_grows
            || (0..self.body.blocks.len())
                .filter(inside)
                .flat_map(|b| &self.live.written[b])
                .any(|var| live.contains(var) && numeric(var))
    }

    /// The formals of the integer parameters the body never assigns, each with its entry
    /// snapshot: values fixed for the whole run (the formal itself is forgotten where dead).
    fn entry_values(&self) -> HashMap<VarId, VarId> {
        let procedure = &self.procedure;
        declared_params(self.body)
            .filter(|&param| !self.body.assigns(param))
            .filter_map(|param| {
                let formal = *self.value_of.get(&param)?;
                let index = procedure.formals.iter().position(|&f| f == formal)?;
                Some((formal, *procedure.snapshots.get(index)?))
            })
            .collect()
    }

    /// The value `local` holds when the loop at `head` starts: its last assignment on the way
    /// in (through the blocks before the head, while each has one predecessor), when affine.
    fn value_before_loop(&self, head: usize, local: ir::VarId) -> Option<Expr> {
        let retreating = &self.loops.retreating;
        let mut entries = self.predecessors[head]
            .iter()
            .filter(|&&p| !retreating.contains(&(p, head)));
        let mut block = *entries.next()?;
        if entries.next().is_some() {
            return None;
        }
        for _ in 0..self.body.blocks.len() {
            let assigned = self.body.blocks[block]
                .stmts
                .iter()
                .rev()
                .find_map(|stmt| match &stmt.kind {
                    StmtKind::Assign { dst, value } if *dst == local => Some(Some(value)),
                    StmtKind::Invoke { dst: Some(dst), .. } if *dst == local => Some(None),
                    _ => None,
                });
            if let Some(value) = assigned {
                return self.affine_value(value?);
            }
            let [previous] = self.predecessors[block].as_slice() else {
                return None;
            };
            block = *previous;
        }
        None
    }

    /// The guard under which `lhs op rhs` holds, when it is affine or modular.
    fn branch_guard(
        &self,
        op: CmpOp,
        lhs: &Operand,
        rhs: &Operand,
        facts: &HashMap<ir::VarId, Fact>,
    ) -> Option<Cond> {
        let fact = match (lhs, rhs) {
            (Operand::Var(v), Operand::Const(Const::Int(0))) => facts.get(v),
            (Operand::Var(v), Operand::Const(Const::Null)) => {
                return self.null_test(op, *v);
            }
            _ => None,
        };
        match fact {
            Some(Fact::Remainder { dividend, divisor }) => {
                // Truncating and Euclidean remainders are zero together.
                let divisible = Cond::Mod {
                    expr: dividend.clone(),
                    modulus: divisor.clone(),
                    residue: Int::from(0),
                };
                match op {
                    CmpOp::Eq => Some(divisible),
                    CmpOp::Ne => Some(Cond::Not(Box::new(divisible))),
                    _ => None,
                }
            }
            Some(Fact::Compare { left, right }) => Some(compare(op, left.clone(), right.clone())),
            None => Some(compare(op, self.affine(lhs)?, self.affine(rhs)?)),
        }
    }

    /// `p == null` or `p != null` of a walked local: its rest is 0, or at least 1 (and for a
    /// tree's parameter, its children hold the rest of its nodes). The branches of a test take
    /// one each, so the null side keeps a rest of exactly 0.
    fn null_test(&self, op: CmpOp, var: ir::VarId) -> Option<Cond> {
        let &rest = self.rests.get(&var)?;
        let walks = &self.fields.walks;
        match op {
            CmpOp::Eq => Some(eq(rest, 0_i64)),
            CmpOp::Ne => match walks.trees.iter().position(|tree| tree.var == var) {
                Some(tree) => Some(self.non_null_tree(tree)),
                None => Some(ge(rest, 1_i64)),
            },
            _ => None,
        }
    }

    fn affine(&self, operand: &Operand) -> Option<Expr> {
        match operand {
            Operand::Var(v) => self.value_of.get(v).map(|&x| Expr::var(x)),
            Operand::Const(Const::Int(c)) => Some(Expr::constant(i64::from(*c))),
            Operand::Const(Const::Long(c)) => Some(Expr::constant(*c)),
            Operand::Const(_) => None,
        }
    }

    fn lower_stmt(
        &mut self,
        block: usize,
        node: NodeId,
        stmt: &ir::Stmt,
        facts: &mut HashMap<ir::VarId, Fact>,
    ) -> NodeId {
        match &stmt.kind {
            StmtKind::Assign { dst, value } => {
                // `new C` and a static field's read first initialize the class.
                let node = match value {
                    ir::Expr::New(_) | ir::Expr::Load(ir::Place::Static(_)) => {
                        self.calls(block, node, stmt.pc, None, Returning::default())
                    }
                    _ => node,
                };
                let node = self.forget_held(node, stmt.pc, &[]);
                let node = self.count_created(node, value);
                let node = match value {
                    ir::Expr::New(_) => self.point(block, node, PointKey::At(stmt.pc)),
                    ir::Expr::NewArray { dims, .. } => self.array_point(block, node, stmt.pc, dims),
                    _ => node,
                };
                self.forget_facts(*dst, facts);
                let mut node = node;
                if let Some(fact) = self.fact_of(value) {
                    let (saved, fact) = self.detached(node, stmt.pc, *dst, fact);
                    node = saved;
                    facts.insert(*dst, fact);
                }
                let node = self.renew_fresh_object(node, *dst);
                let node = match self.fixed_local(stmt.pc, *dst) {
                    Some(action) => self.step(node, action),
                    None => self.assign(node, stmt.pc, *dst, value),
                };
                let node = self.walk_step(node, stmt.pc, *dst);
                let node = self.held_assign(node, *dst, value);
                self.cursor_assign(node, *dst, value)
            }
            StmtKind::Invoke { dst, call } if self.body.cloned_array(call).is_some() => {
                let (array, _) = self.body.cloned_array(call).expect("checked");
                let node = self.array_clone_point(block, node, stmt.pc, array);
                match dst {
                    Some(dst) => {
                        self.forget_facts(*dst, facts);
                        let node = self.havoc(node, *dst);
                        self.same_length(node, *dst, array)
                    }
                    None => node,
                }
            }
            StmtKind::Invoke { dst, call } => {
                let node = self.call_point(block, node, stmt.pc, call);
                let summarized = dst.and_then(|dst| self.summarized_result(stmt.pc, dst, call));
                let returning = Returning {
                    value: summarized,
                    holder: *dst,
                };
                let node = self.calls(block, node, stmt.pc, Some(call), returning);
                if (self.targets)(stmt.pc).ends_program {
                    // The program ends here: what follows starts from a node no path reaches.
                    return self.new_node();
                }
                let received = dst.map_or_else(Vec::new, |dst| self.received_chains(stmt.pc, dst));
                let node = self.forget_held(node, stmt.pc, &received);
                let node = self.forget_heads(node, &received);
                let node = self.view_effects(node, call);
                let node = self.builder_effects(node, stmt.pc, call);
                let node = self.link_step(node, stmt.pc);
                let node = match dst {
                    Some(dst) => {
                        self.forget_facts(*dst, facts);
                        let node = self.unreceived_chains(node, *dst, &received);
                        let node = match self.fixed_local(stmt.pc, *dst) {
                            Some(action) => self.step(node, action),
                            None if summarized.is_some() => node,
                            None => match self.extremum(node, *dst, call) {
                                Some(node) => node,
                                None => {
                                    let node = self.call_result(node, *dst, call);
                                    self.builder_length_result(node, stmt.pc, *dst, call)
                                }
                            },
                        };
                        self.walk_step(node, stmt.pc, *dst)
                    }
                    None => node,
                };
                self.cursor_call(node, stmt.pc, *dst, call)
            }
            StmtKind::Store { place, value } => {
                let node = match place {
                    ir::Place::Static(_) => {
                        self.calls(block, node, stmt.pc, None, Returning::default())
                    }
                    _ => node,
                };
                let kept = self.cell_store_kept(stmt.pc);
                let node = self.forget_held(node, stmt.pc, &kept);
                let node = self.held_store(node, stmt.pc);
                let node = self.store(node, stmt.pc, value);
                let node = self.append_step(node, stmt.pc);
                let node = self.link_step(node, stmt.pc);
                match self.fields.counted.contains(&stmt.pc) {
                    // An increment of a ghost counter: its executions are counted.
                    true => self.point(block, node, PointKey::At(stmt.pc)),
                    false => node,
                }
            }
            StmtKind::Monitor { .. } => node,
        }
    }

    /// Forgets the field views of the fresh object `dst` holds, when it holds one: it is set to
    /// a new object, whose fields its constructor may have written.
    fn renew_fresh_object(&mut self, node: NodeId, dst: ir::VarId) -> NodeId {
        if !self.fields.holders.contains_key(&dst) {
            return node;
        }
        let mut renewed: Vec<VarId> = self
            .field_vars
            .iter()
            .filter(|(key, _)| matches!(key, ViewKey::Fresh(holder, _) if *holder == dst))
            .map(|(_, &var)| var)
            .collect();
        renewed.sort_unstable();
        renewed
            .into_iter()
            .fold(node, |node, var| self.step(node, Action::Havoc(var)))
    }

    /// `dst := formal` when the statement at `pc` is the one definition of a fixed local.
    fn fixed_local(&self, pc: u32, dst: ir::VarId) -> Option<Action> {
        let &(local, formal) = self.fixed_locals.get(&pc)?;
        let &var = self.value_of.get(&dst).filter(|_| local == dst)?;
        Some(Action::Assign {
            var,
            expr: Expr::var(formal),
        })
    }

    /// What the store at `pc` does to the field views it may write.
    fn store(&mut self, node: NodeId, pc: u32, value: &Operand) -> NodeId {
        let fields = self.fields;
        let Some(effects) = fields.stores.get(&pc) else {
            return node;
        };
        let mut node = node;
        for (key, effect) in effects {
            let Some(&var) = self.field_vars.get(key) else {
                continue;
            };
            let expr = match effect {
                StoreEffect::Fixed => self
                    .fixed_formals
                    .get(&(pc, key.clone()))
                    .map(|&f| Expr::var(f)),
                StoreEffect::Assign => self.affine(value),
                StoreEffect::Havoc => None,
            };
            let action = Action::assign_or_havoc(var, expr);
            node = self.step(node, action);
        }
        node
    }

    /// Records the point `key` at a fresh node after `node`.
    fn point(&mut self, block: usize, node: NodeId, key: PointKey) -> NodeId {
        self.point_with_lengths(block, node, key, Vec::new())
    }

    fn point_with_lengths(
        &mut self,
        block: usize,
        node: NodeId,
        key: PointKey,
        lengths: Vec<VarId>,
    ) -> NodeId {
        let at = self.step(node, Action::Skip);
        let inductive = self.loops.enclosing[block]
            .iter()
            .filter_map(|head| self.counters.get(head).copied())
            .collect();
        self.points.push(LocalPoint {
            key,
            node: at,
            inductive,
            lengths,
        });
        at
    }

    /// The point of `new T[d1]…[dk]`, with each given dimension copied into a variable of its
    /// own (`len{pc}_{j}`) so that the site's invariant tells every allocated array's length.
    fn array_point(&mut self, block: usize, node: NodeId, pc: u32, dims: &[Operand]) -> NodeId {
        let mut node = node;
        let mut bounds = Vec::new();
        for (index, dim) in dims.iter().enumerate() {
            let (after, bound) = self.expr_or_unknown(node, dim, index);
            node = after;
            bounds.push(bound);
        }
        self.lengths_point(block, node, pc, bounds)
    }

    /// The point of `array.clone()`: a new array of `array`'s length (its length view, or
    /// unknown without one).
    fn array_clone_point(
        &mut self,
        block: usize,
        node: NodeId,
        pc: u32,
        array: &Operand,
    ) -> NodeId {
        let view = match array {
            Operand::Var(var) => self.length_of.get(var).copied(),
            Operand::Const(_) => None,
        };
        let (node, bound) = match view {
            Some(length) => (node, Expr::var(length)),
            None => self.unknown(node, 0),
        };
        self.lengths_point(block, node, pc, vec![bound])
    }

    /// The point of the call at `pc`; a string concatenation whose `String` arguments make its
    /// text (`concat_text`) has its bytes' length as an array has, the text's chars at two
    /// bytes each, unknown where an argument's length is.
    fn call_point(&mut self, block: usize, node: NodeId, pc: u32, call: &ir::Call) -> NodeId {
        if let Some(format) = (self.targets)(pc).format {
            return self.format_point(block, node, pc, format);
        }
        let CallKind::Dynamic(ir::DynamicCall::StringConcat { recipe }) = &call.kind else {
            return self.point(block, node, PointKey::At(pc));
        };
        let Some(text) = concat_text(&call.method.descriptor, recipe.as_deref()) else {
            return self.point(block, node, PointKey::At(pc));
        };
        let lengths: Option<Vec<Expr>> = text
            .strings
            .iter()
            .map(|&index| self.string_length(call.args.get(index)?))
            .collect();
        let (node, bytes) = match lengths {
            Some(lengths) => {
                let chars = lengths
                    .iter()
                    .fold(Expr::constant(text.fixed_chars), |sum, length| {
                        sum.plus(length)
                    });
                (node, chars.scaled(&Int::from(CONCAT_BYTES_PER_CHAR)))
            }
            None => self.unknown(node, 0),
        };
        self.lengths_point(block, node, pc, vec![bytes])
    }

    /// The point of a format call; one whose text holds `String` arguments (`FormatText`) has
    /// the payload of the arrays its text sets as an array's length, unknown where an
    /// argument's length is.
    fn format_point(&mut self, block: usize, node: NodeId, pc: u32, format: &FormatCall) -> NodeId {
        let FormatShape::Text(text) = format_shape(format) else {
            return self.point(block, node, PointKey::At(pc));
        };
        let payload: Option<Expr> = text.strings.iter().try_fold(
            Expr::constant(text.fixed_bytes as i64),
            |sum, &(index, per_char)| {
                let length = self.string_length(format.operands.get(index)?.as_ref()?)?;
                Some(sum.plus(&length.scaled(&Int::from(per_char))))
            },
        );
        let (node, bytes) = match payload {
            Some(payload) => (node, payload),
            None => self.unknown(node, 0),
        };
        self.lengths_point(block, node, pc, vec![bytes])
    }

    /// The length of a `String` operand: its view, or a literal's length in UTF-16 units.
    fn string_length(&self, operand: &Operand) -> Option<Expr> {
        match operand {
            Operand::Var(var) => self.length_of.get(var).map(|&length| Expr::var(length)),
            Operand::Const(Const::String(text)) => {
                Some(Expr::constant(text.encode_utf16().count() as i64))
            }
            Operand::Const(_) => None,
        }
    }

    /// The point of an array allocation at `pc` whose dimensions are `bounds`.
    fn lengths_point(&mut self, block: usize, node: NodeId, pc: u32, bounds: Vec<Expr>) -> NodeId {
        let mut node = node;
        let mut lengths = Vec::new();
        for (index, bound) in bounds.into_iter().enumerate() {
            let length = self.new_var(&format!("len{pc}_{}", index + 1), VarKind::Local);
            node = self.step(
                node,
                Action::Assign {
                    var: length,
                    expr: bound,
                },
            );
            lengths.push(length);
        }
        self.point_with_lengths(block, node, PointKey::At(pc), lengths)
    }

    /// `copy`'s length view takes `array`'s length (a clone's), when both have one.
    fn same_length(&mut self, node: NodeId, copy: ir::VarId, array: &Operand) -> NodeId {
        let Operand::Var(array) = array else {
            return node;
        };
        match (self.length_of.get(&copy), self.length_of.get(array)) {
            (Some(&var), Some(&length)) => self.step(
                node,
                Action::Assign {
                    var,
                    expr: Expr::var(length),
                },
            ),
            _ => node,
        }
    }

    /// The operand as an expression, or a freshly havocked stand-in (argument slot `slot`).
    fn expr_or_unknown(&mut self, node: NodeId, operand: &Operand, slot: usize) -> (NodeId, Expr) {
        match self.affine(operand) {
            Some(expr) => (node, expr),
            None => self.unknown(node, slot),
        }
    }

    fn unknown(&mut self, node: NodeId, slot: usize) -> (NodeId, Expr) {
        while self.unknowns.len() <= slot {
            let index = self.unknowns.len();
            let var = self.new_var(&format!("unknown{index}"), VarKind::Local);
            self.unknowns.push(var);
        }
        let var = self.unknowns[slot];
        (self.step(node, Action::Havoc(var)), Expr::var(var))
    }

    /// One branch per known target: its point, then the call with `formal = actual`, which
    /// returns the threaded views the plan says it returns; a view some callee may write
    /// otherwise is forgotten after the call. Without `call`, the targets are the class
    /// initializers an instruction runs.
    fn calls(
        &mut self,
        block: usize,
        node: NodeId,
        pc: u32,
        call: Option<&ir::Call>,
        returning: Returning,
    ) -> NodeId {
        let CallTargets {
            targets, complete, ..
        } = (self.targets)(pc);
        let fields = self.fields;
        let effects = fields.calls.get(&pc).map_or(&[][..], Vec::as_slice);
        let mut after = node;
        if !targets.is_empty() {
            let join = self.new_node();
            for target in targets {
                let (ready, args) = self.arguments(node, pc, call, &target);
                self.note_element_calls(pc, call, &target, args.len());
                let results = self.results(&target, effects, returning);
                let at = self.point(block, ready, PointKey::Call(pc, target.procedure));
                let done = self.step(
                    at,
                    Action::Call {
                        callee: target.procedure,
                        args,
                        results,
                    },
                );
                self.edge(done, join, Action::Skip);
            }
            // A callee no chain enters runs too, leaving the returned views as they were.
            if !complete && effects.iter().any(|(_, e)| *e == CallEffect::Returned) {
                self.edge(node, join, Action::Skip);
            }
            after = join;
        }
        let mut actions = Vec::new();
        for (key, effect) in effects {
            let Some(&var) = self.field_vars.get(key) else {
                continue;
            };
            match effect {
                CallEffect::Havoc => actions.push(Action::Havoc(var)),
                CallEffect::Fixed => {
                    if let Some(&formal) = self.fixed_formals.get(&(pc, key.clone())) {
                        let expr = Expr::var(formal);
                        actions.push(Action::Assign { var, expr });
                    }
                }
                CallEffect::Returned => {}
            }
        }
        actions
            .into_iter()
            .fold(after, |node, action| self.step(node, action))
    }

    /// The caller variable receiving each value `target` returns: the caller's own view when
    /// the call returns it, `returning.value` for the method's result, the length of the chain
    /// the holder of the result holds for a returned chain's, else a variable nothing reads.
    fn results(
        &mut self,
        target: &CallTarget<'_>,
        effects: &[(ViewKey, CallEffect)],
        returning: Returning,
    ) -> Vec<VarId> {
        let returned = target
            .fields
            .views
            .iter()
            .filter(|v| v.mode == ViewMode::Threaded);
        let mut results = Vec::new();
        for view in returned {
            let own = effects
                .iter()
                .any(|(key, e)| *key == view.key && *e == CallEffect::Returned);
            let var = match self.field_vars.get(&view.key) {
                Some(&var) if own => var,
                _ => self.discarded(),
            };
            results.push(var);
        }
        if target.returns_value {
            let var = returning.value.unwrap_or_else(|| self.discarded());
            results.push(var);
        }
        let held = &target.fields.walks.held;
        for &chain in &held.returned {
            let chain = &held.chains[chain];
            let own = returning.holder.and_then(|holder| {
                let own = self
                    .fields
                    .walks
                    .held
                    .held_by(holder, &chain.field, &chain.along)?;
                self.held_lengths.get(&(holder, own)).copied()
            });
            let var = own.unwrap_or_else(|| self.discarded());
            results.push(var);
        }
        results
    }

    /// The lengths of the held chains `holder` has (chain index, variable), by chain.
    fn holder_chains(&self, holder: ir::VarId) -> Vec<(usize, VarId)> {
        let mut chains: Vec<(usize, VarId)> = self
            .held_lengths
            .iter()
            .filter(|((held, _), _)| *held == holder)
            .map(|(&(_, chain), &var)| (chain, var))
            .collect();
        chains.sort_unstable();
        chains
    }

    /// Of the lengths of the chains `dst` holds, those the call at `pc` sets to the ones its
    /// callees return: every method the call may run returns that chain of its result.
    fn received_chains(&self, pc: u32, dst: ir::VarId) -> Vec<VarId> {
        let CallTargets {
            targets, complete, ..
        } = (self.targets)(pc);
        let chains = &self.fields.walks.held.chains;
        self.holder_chains(dst)
            .into_iter()
            .filter(|&(chain, _)| {
                let chain = &chains[chain];
                let returns = |target: &CallTarget<'_>| {
                    let held = &target.fields.walks.held;
                    held.returned.iter().any(|&returned| {
                        let returned = &held.chains[returned];
                        returned.field == chain.field && returned.along == chain.along
                    })
                };
                complete && !targets.is_empty() && targets.iter().all(returns)
            })
            .map(|(_, var)| var)
            .collect()
    }

    /// Forgets the lengths of the chains `dst` holds that its call did not return.
    fn unreceived_chains(&mut self, node: NodeId, dst: ir::VarId, received: &[VarId]) -> NodeId {
        let unreceived: Vec<VarId> = self
            .holder_chains(dst)
            .into_iter()
            .filter(|(_, var)| !received.contains(var))
            .map(|(_, var)| var)
            .collect();
        let node = self.forget_heads(node, &unreceived);
        unreceived
            .into_iter()
            .fold(node, |node, var| self.step(node, Action::Havoc(var)))
    }

    /// Forgets the starts of the chains whose `lengths` change otherwise than by a held store.
    fn forget_heads(&mut self, node: NodeId, lengths: &[VarId]) -> NodeId {
        let heads: Vec<VarId> = lengths
            .iter()
            .filter_map(|l| self.heads.get(l))
            .copied()
            .collect();
        heads
            .into_iter()
            .fold(node, |node, head| self.step(node, Action::Havoc(head)))
    }

    /// A new node of a class the method appends along a field of: one more created.
    fn count_created(&mut self, node: NodeId, value: &ir::Expr) -> NodeId {
        let ir::Expr::New(class) = value else {
            return node;
        };
        let counted: Vec<VarId> = (self.created.iter())
            .filter(|(field, _)| field.class == *class)
            .map(|&(_, created)| created)
            .collect();
        counted.into_iter().fold(node, |node, created| {
            let expr = Expr::var(created) + 1;
            self.step(node, Action::Assign { var: created, expr })
        })
    }

    /// At a store into an array's cell that sets its holder's chain where the index is 0, the
    /// holder's length and start: kept where the index is not 0, not forgotten before.
    fn cell_store_kept(&self, pc: u32) -> Vec<VarId> {
        let Some(store) = self.fields.walks.held.stores.get(&pc) else {
            return Vec::new();
        };
        if store.index.is_none() {
            return Vec::new();
        }
        let length = self.held_lengths.get(&(store.holder, store.chain));
        let head = length.and_then(|l| self.heads.get(l));
        length.into_iter().chain(head).copied().collect()
    }

    /// The lengths of held chains the statement at `pc` may change, on every holder.
    fn held_forgotten(&self, pc: u32) -> Vec<VarId> {
        let Some(chains) = self.fields.walks.held.forgets.get(&pc) else {
            return Vec::new();
        };
        let mut forgotten: Vec<VarId> = self
            .held_lengths
            .iter()
            .filter(|((_, chain), _)| chains.contains(chain))
            .map(|(_, &var)| var)
            .collect();
        forgotten.sort_unstable();
        forgotten
    }

    /// Forgets the lengths of held chains the statement at `pc` may change, but the `kept` ones
    /// (which its call has just returned).
    fn forget_held(&mut self, node: NodeId, pc: u32, kept: &[VarId]) -> NodeId {
        let forgotten: Vec<VarId> = self
            .held_forgotten(pc)
            .into_iter()
            .filter(|var| !kept.contains(var))
            .collect();
        let node = self.forget_heads(node, &forgotten);
        forgotten
            .into_iter()
            .fold(node, |node, var| self.step(node, Action::Havoc(var)))
    }

    /// `g.first = v` at `pc`, `v` walked: the chain `g` holds has `v`'s rest.
    fn held_store(&mut self, node: NodeId, pc: u32) -> NodeId {
        let Some(store) = self.fields.walks.held.stores.get(&pc) else {
            return node;
        };
        let (Some(&length), Some(&rest)) = (
            self.held_lengths.get(&(store.holder, store.chain)),
            self.rests.get(&store.value),
        ) else {
            return node;
        };
        let aliased = (store.aliases.iter())
            .filter_map(|alias| self.held_lengths.get(&(*alias, store.chain)));
        let mut actions: Vec<Action> = std::iter::once(&length)
            .chain(aliased)
            .map(|&var| Action::Assign {
                var,
                expr: Expr::var(rest),
            })
            .collect();
        if let Some(&head) = self.heads.get(&length) {
            actions.push(self.stored_head(pc, head, &store.chain));
        }
        let Some(index) = &store.index else {
            return actions
                .into_iter()
                .fold(node, |node, action| self.step(node, action));
        };
        let joined = self.new_node();
        match self.affine(index) {
            Some(index) => {
                let first = self.step(node, Action::Assume(eq(index.clone(), 0_i64)));
                self.connect(first, joined, actions);
                self.edge(node, joined, Action::Assume(le(index.clone(), -1_i64)));
                self.edge(node, joined, Action::Assume(ge(index, 1_i64)));
            }
            None => {
                let unknown = actions.iter().map(|action| match action {
                    Action::Assign { var, .. } => Action::Havoc(*var),
                    other => other.clone(),
                });
                self.connect(node, joined, unknown.collect());
            }
        }
        joined
    }

    /// The number of the node a held store at `pc` starts its chain at: that of the node
    /// created last, 0 for null or an earlier node of the list (no later append lengthens one
    /// but by the node appended), unknown otherwise.
    fn stored_head(&self, pc: u32, head: VarId, chain: &usize) -> Action {
        let along = &self.fields.walks.held.chains[*chain].along;
        let created = self.created.iter().find(|(field, _)| field == along);
        let stored = self.fields.walks.stored_nodes.get(&(along.clone(), pc));
        match (stored, created) {
            (Some(StoredNode::Latest), Some(&(_, created))) => Action::Assign {
                var: head,
                expr: Expr::var(created),
            },
            (Some(StoredNode::Earlier), _) => Action::Assign {
                var: head,
                expr: Expr::constant(0),
            },
            _ => Action::Havoc(head),
        }
    }

    /// What assigning `value` to `dst` does to the chains its object holds: a new object's
    /// fields are null, a copy holds the source's, anything else unknown ones.
    fn held_assign(&mut self, node: NodeId, dst: ir::VarId, value: &ir::Expr) -> NodeId {
        let mut node = node;
        for (chain, var) in self.holder_chains(dst) {
            let expr = assigned_count(value, |source| {
                self.held_lengths.get(&(source, chain)).copied()
            });
            node = self.step(node, Action::assign_or_havoc(var, expr));
            if let Some(&head) = self.heads.get(&var) {
                let expr = assigned_count(value, |source| {
                    let length = self.held_lengths.get(&(source, chain))?;
                    self.heads.get(length).copied()
                });
                node = self.step(node, Action::assign_or_havoc(head, expr));
            }
        }
        node
    }

    /// The variable a call's integer result reaches through its callees' summaries: when every
    /// method the call may run is a procedure named by the instruction (no lambda) that returns
    /// it, and the result goes to an integer variable no fixed local or view gives a value.
    fn summarized_result(&self, pc: u32, dst: ir::VarId, call: &ir::Call) -> Option<VarId> {
        let &var = self.value_of.get(&dst)?;
        let plain = matches!(views::classify(call), ViewCall::Other | ViewCall::ReadOnly);
        if !plain || self.fixed_locals.contains_key(&pc) {
            return None;
        }
        let CallTargets {
            targets, complete, ..
        } = (self.targets)(pc);
        let summarized = complete
            && !targets.is_empty()
            && targets
                .iter()
                .all(|t| t.returns_value && names_target(call, t));
        summarized.then_some(var)
    }

    /// `var = x / k` or `var = x % k` with a constant `k` (the statement at `pc`), exactly:
    /// through a quotient variable of the statement's own, which keeps relating a remainder to
    /// its dividend (`x - r` a multiple of `k`) after the statement.
    fn divide(&mut self, node: NodeId, pc: u32, var: VarId, value: &ir::Expr) -> Option<NodeId> {
        let ir::Expr::Binary { op, lhs, rhs } = value else {
            return None;
        };
        let division = ByConstant::of(*op, rhs)?;
        let dividend = self.affine(lhs)?;
        let quotient = self.new_var(&format!("quotient{pc}"), VarKind::Local);
        let truncated = truncated_quotient(&dividend, &division.magnitude, quotient);
        // Joins keep the quotient's signs apart: below zero, zero and above, the quotients of
        // each sign of the dividend are convex, and their hull is not (it would round both
        // ways). The quotient keeps its value until the statement runs again.
        let splits = [Expr::var(quotient), Expr::var(quotient).negated()];
        self.procedure.sign_splits.extend(splits);
        let node = self.step(node, Action::Havoc(quotient));
        let node = self.step(node, Action::Assume(truncated));
        let expr = division.value(&dividend, quotient);
        Some(self.step(node, Action::Assign { var, expr }))
    }

    /// `var = (T) x` to a narrow type `T` (`i2b`, `i2s`, `i2c`): `x` itself when it is in
    /// `T`'s range; outside it the value wraps around, which no affine map follows, so `var` is
    /// then anything in the range (a counter that may wrap makes its loop possibly unbounded,
    /// as the run may be).
    fn narrow(&mut self, node: NodeId, var: VarId, value: &ir::Expr) -> Option<NodeId> {
        let ir::Expr::Convert(operand, ty) = value else {
            return None;
        };
        if !ty.is_narrow_integer() || !self.is_int_operand(operand) {
            return None;
        }
        let range = in_range(ty, Expr::var(var))?;
        let joined = self.new_node();
        let Some(x) = self.affine(operand) else {
            let havocked = self.step(node, Action::Havoc(var));
            self.edge(havocked, joined, Action::Assume(range));
            return Some(joined);
        };
        let kept = self.step(node, Action::Assume(in_range(ty, x.clone())?));
        self.edge(
            kept,
            joined,
            Action::Assign {
                var,
                expr: x.clone(),
            },
        );
        let (low, high) = ty.integer_range()?;
        for outside in [lt(x.clone(), low), gt(x.clone(), high)] {
            let wrapped = self.step(node, Action::Assume(outside));
            let havocked = self.step(wrapped, Action::Havoc(var));
            self.edge(havocked, joined, Action::Assume(range.clone()));
        }
        Some(joined)
    }

    /// The variable receiving returned values the caller does not keep.
    fn discarded(&mut self) -> VarId {
        if let Some(var) = self.discarded {
            return var;
        }
        let var = self.new_var("discarded", VarKind::Local);
        self.discarded = Some(var);
        var
    }

    /// The views a call at `pc` may change: those it returns or forgets, and the lengths of the
    /// held chains it may write.
    fn changed_by_call(&self, pc: u32) -> Vec<VarId> {
        let mut changed: Vec<VarId> = self
            .fields
            .calls
            .get(&pc)
            .into_iter()
            .flatten()
            .filter_map(|(key, _)| self.field_vars.get(key).copied())
            .collect();
        changed.extend(self.held_forgotten(pc));
        changed
    }

    /// The actual of each formal of `target`. They are bound only when the instruction calls
    /// a method of the same name and descriptor with its arguments in order (not for lambda
    /// bodies or class initialisers reached through this site, nor without a `call`);
    /// otherwise they are unknown.
    fn arguments(
        &mut self,
        node: NodeId,
        pc: u32,
        call: Option<&ir::Call>,
        target: &CallTarget<'_>,
    ) -> (NodeId, Vec<Expr>) {
        let call = call.filter(|call| names_target(call, target));
        let mut node = node;
        let mut args = Vec::new();
        for (slot, kind) in target.formals.iter().enumerate() {
            let Some(kind) = kind else { continue };
            let actual = call.and_then(|call| match kind {
                FormalKind::ReceiverLength
                | FormalKind::ReceiverSize
                | FormalKind::ReceiverFirst => call.receiver.as_ref(),
                _ => call.args.get(slot),
            });
            let expr = match (kind, actual) {
                (FormalKind::Value, Some(operand)) => self.affine(operand),
                (FormalKind::ArrayLength, Some(Operand::Var(v))) => {
                    self.length_of.get(v).map(|&len| Expr::var(len))
                }
                (FormalKind::ReceiverLength, Some(operand)) => self
                    .builder_length(pc)
                    .or_else(|| self.string_length(operand)),
                (FormalKind::StringLength, Some(operand)) => self.string_length(operand),
                (FormalKind::CollectionSize | FormalKind::CollectorKind, Some(Operand::Var(v))) => {
                    self.size_of.get(v).map(|&size| Expr::var(size))
                }
                (FormalKind::ReceiverSize, Some(Operand::Var(v))) => {
                    self.size_of.get(v).map(|&size| Expr::var(size))
                }
                // Elements of unknown values are taken from 128 on: outside the box cache,
                // each counted as a box.
                (FormalKind::ReceiverFirst, Some(operand)) => Some(
                    match operand {
                        Operand::Var(v) => self.first_of.get(v).map(|&first| Expr::var(first)),
                        Operand::Const(_) => None,
                    }
                    .unwrap_or_else(|| Expr::constant(UNKNOWN_FIRST)),
                ),
                (FormalKind::BoxedValue, Some(Operand::Var(v))) => {
                    self.boxed_of.get(v).map(|&value| Expr::var(value))
                }
                _ => None,
            };
            let expr = match expr {
                Some(expr) => expr,
                None => {
                    let (after, unknown) = self.unknown(node, slot);
                    node = after;
                    unknown
                }
            };
            args.push(expr);
        }
        let declared = target.formals.len();
        let views = target.fields.views.iter().filter(|v| v.is_formal());
        for (index, view) in views.enumerate() {
            let expr = match (&view.mode, &view.key) {
                // A static field has one value, the caller's as much as the callee's.
                (ViewMode::Formal, ViewKey::Static(_)) => self.field_value(&view.key),
                (ViewMode::Formal | ViewMode::Threaded, ViewKey::This(_))
                    if call
                        .and_then(|call| call.receiver.as_ref())
                        .is_some_and(|r| self.is_this(r)) =>
                {
                    self.field_value(&view.key)
                }
                // A constructor on the object `new` just made: every field is still 0.
                (ViewMode::Formal | ViewMode::Threaded, ViewKey::This(_))
                    if fresh::constructs_new_object(self.body, pc) =>
                {
                    Some(Expr::constant(0_i64))
                }
                _ => None,
            };
            let expr = match expr {
                Some(expr) => expr,
                None => {
                    let (after, unknown) = self.unknown(node, declared + index);
                    node = after;
                    unknown
                }
            };
            args.push(expr);
        }
        // A fixed local is a value of the callee's own: no caller can bind it.
        for _ in &target.fields.locals {
            let (after, unknown) = self.unknown(node, declared + args.len());
            node = after;
            args.push(unknown);
        }
        for root in &target.fields.walks.roots {
            let expr = match call {
                Some(call) => self.chain_argument(call, root),
                None => None,
            };
            let expr = match expr {
                Some(expr) => expr,
                None => {
                    let (after, unknown) = self.unknown(node, declared + args.len());
                    node = after;
                    unknown
                }
            };
            // The guard says the receiver's field holds a node: the chain passed (an unknown,
            // or the rest of a cursor nothing else moves) is at least 1.
            if call.is_some_and(|call| self.guarded_root(pc, call, root)) {
                node = self.step(node, Action::Assume(ge(expr.clone(), 1_i64)));
            }
            args.push(expr);
        }
        (node, args)
    }

    /// Records the callee's trees `call` binds to a local read from an element of a tree's array
    /// field (`step(v.children[i])`); `formals` is the count of the callee's formals, whose
    /// chain roots come last.
    fn note_element_calls(
        &mut self,
        pc: u32,
        call: Option<&ir::Call>,
        target: &CallTarget<'_>,
        formals: usize,
    ) {
        let Some(call) = call.filter(|call| names_target(call, target)) else {
            return;
        };
        let roots = &target.fields.walks.roots;
        let first = formals - roots.len();
        for (position, root) in roots.iter().enumerate() {
            let actual = match root.root {
                Root::Receiver => call.receiver.as_ref(),
                Root::Param(_) => call.args.get(usize::from(root.param.unwrap_or(u16::MAX))),
                _ => None,
            };
            let Some(Operand::Var(actual)) = actual else {
                continue;
            };
            let Some(&index) = self.element_indices.get(actual) else {
                continue;
            };
            if self.chain_argument(call, root).is_none() {
                continue;
            }
            let Some(array) = self.element_array(*actual) else {
                continue;
            };
            let sum = self.chain_formals[array];
            let Some(caller_formal) = self.procedure.formals.iter().position(|&f| f == sum) else {
                continue;
            };
            self.element_calls.push(ElementCall {
                pc,
                callee: target.procedure,
                callee_formal: first + position,
                caller_formal,
                index,
            });
        }
    }

    /// The root of the array field whose elements every read of `var` takes, when there is one.
    fn element_array(&self, var: ir::VarId) -> Option<usize> {
        let walked = self.fields.walks.locals.iter().find(|w| w.var == var)?;
        let mut arrays = walked.steps.iter().map(|(_, step)| match step {
            WalkStep::Element { root, .. } => Some(*root),
            _ => None,
        });
        let first = arrays.next()??;
        arrays.all(|array| array == Some(first)).then_some(first)
    }

    /// Whether the callee's chain `root`, from a field of its `this`, has a node at the call at
    /// `pc`: a guard fact says the receiver's field holds one ([`super::chains::Walks::guarded`]).
    fn guarded_root(&self, pc: u32, call: &ir::Call, root: &ChainRoot) -> bool {
        let Root::This(held) = &root.root else {
            return false;
        };
        let on_local =
            matches!(&call.receiver, Some(receiver @ Operand::Var(_)) if !self.is_this(receiver));
        on_local
            && root.branches.is_empty()
            && (self.fields.walks.guarded.get(&pc)).is_some_and(|fields| fields.contains(held))
    }

    /// The caller's value of the callee's chain `root`: the rest of a walked local passed as
    /// the parameter it starts from (walked along the same field), or the caller's own chain
    /// formal of that parameter or of the same field of `this` (see `chains::bind_callee_roots`).
    fn chain_argument(&self, call: &ir::Call, root: &ChainRoot) -> Option<Expr> {
        let walks = &self.fields.walks;
        let own = |wanted: Root| {
            walks
                .roots
                .iter()
                .position(|r| r.root == wanted && r.along() == root.along())
                .map(|index| Expr::var(self.chain_formals[index]))
        };
        if let Root::This(held) = &root.root {
            let on_this = call.receiver.as_ref().is_some_and(|r| self.is_this(r));
            if on_this {
                return own(Root::This(held.clone()));
            }
            // A cursor's own method called on a cursor: the nodes that cursor has left, when
            // nothing else moves it.
            let Some(Operand::Var(receiver)) = &call.receiver else {
                return None;
            };
            let cursor = walks.cursors.get(receiver)?;
            return (cursor.field == *held
                && walks.exclusive_cursors.contains(receiver)
                && root.branches.is_empty()
                && cursor.follows == root.field)
                .then(|| Expr::var(self.cursor_rests[receiver]));
        }
        let actual = match root.root {
            // A tree an instance method walks from its receiver.
            Root::Receiver => call.receiver.as_ref(),
            _ => call.args.get(usize::from(root.param?)),
        };
        let Some(Operand::Var(actual)) = actual else {
            return None;
        };
        // A chain from a field of a parameter or a tree's child: the caller's own of that field
        // of the parameter it passes on, or the length of the chain a holder it passes holds.
        if let Root::ParamField(_, held) = &root.root {
            return own(Root::ParamField(*actual, held.clone())).or_else(|| {
                let chain = walks.held.held_by(*actual, held, &root.field)?;
                let length = self.held_lengths.get(&(*actual, chain))?;
                root.branches.is_empty().then(|| Expr::var(*length))
            });
        }
        match walks.locals.iter().find(|w| w.var == *actual) {
            Some(walked) => (walked.field == root.field && walked.branches == root.branches)
                .then(|| Expr::var(self.rests[actual])),
            None if self.fields.this == Some(*actual) => own(Root::Receiver),
            None => own(Root::Param(*actual)),
        }
    }

    fn field_value(&self, key: &ViewKey) -> Option<Expr> {
        self.field_vars.get(key).map(|&v| Expr::var(v))
    }

    /// Whether the operand is this method's own `this` (never reassigned).
    fn is_this(&self, operand: &Operand) -> bool {
        matches!(operand, Operand::Var(v) if self.fields.this == Some(*v))
    }

    fn forget_facts(&self, assigned: ir::VarId, facts: &mut HashMap<ir::VarId, Fact>) {
        facts.remove(&assigned);
        if let Some(&var) = self.value_of.get(&assigned) {
            facts.retain(|_, fact| !fact_mentions(fact, var));
        }
    }

    fn fact_of(&self, value: &ir::Expr) -> Option<Fact> {
        let ir::Expr::Binary { op, lhs, rhs } = value else {
            return None;
        };
        match op {
            BinOp::Rem => {
                let divisor = match rhs {
                    Operand::Const(Const::Int(k)) if *k != 0 => Int::from(k.unsigned_abs()),
                    Operand::Const(Const::Long(k)) if *k != 0 => Int::from(k.unsigned_abs()),
                    _ => return None,
                };
                Some(Fact::Remainder {
                    dividend: self.affine(lhs)?,
                    divisor,
                })
            }
            BinOp::Cmp => Some(Fact::Compare {
                left: self.affine(lhs)?,
                right: self.affine(rhs)?,
            }),
            _ => None,
        }
    }

    /// The fact about `dst`, made independent of `dst`'s value before the assignment (`v = v %
    /// 5`, javac's shape for `this.len % 5`, reuses one stack slot): the old value is saved
    /// into a variable of its own first.
    fn detached(&mut self, node: NodeId, pc: u32, dst: ir::VarId, fact: Fact) -> (NodeId, Fact) {
        let Some(&var) = self
            .value_of
            .get(&dst)
            .filter(|&&v| fact_mentions(&fact, v))
        else {
            return (node, fact);
        };
        let saved = self.new_var(&format!("saved{pc}"), VarKind::Local);
        let node = self.step(
            node,
            Action::Assign {
                var: saved,
                expr: Expr::var(var),
            },
        );
        let rename = |expr: Expr| {
            let mut renamed = expr.clone();
            renamed.terms.remove(&var);
            renamed.add_term(saved, expr.coeff(var));
            renamed
        };
        let fact = match fact {
            Fact::Remainder { dividend, divisor } => Fact::Remainder {
                dividend: rename(dividend),
                divisor,
            },
            Fact::Compare { left, right } => Fact::Compare {
                left: rename(left),
                right: rename(right),
            },
        };
        (node, fact)
    }

    /// The numeric effect of `dst = value`, the statement at `pc`.
    fn assign(&mut self, node: NodeId, pc: u32, dst: ir::VarId, value: &ir::Expr) -> NodeId {
        if let Some(&var) = self.value_of.get(&dst) {
            if let Some(node) = self.divide(node, pc, var, value) {
                return node;
            }
            if let Some(node) = self.narrow(node, var, value) {
                return node;
            }
            return self.step(node, Action::assign_or_havoc(var, self.affine_value(value)));
        }
        if let Some(&length) = self.length_of.get(&dst) {
            return self.step(
                node,
                Action::assign_or_havoc(length, self.array_length_value(value)),
            );
        }
        // A copy of a collection or an iterator copies its views; anything else is unknown.
        let source = match value {
            ir::Expr::Use(Operand::Var(source)) | ir::Expr::CheckCast(Operand::Var(source), _) => {
                Some(*source)
            }
            _ => None,
        };
        let mut copies = Vec::new();
        if let Some(&value) = self.boxed_of.get(&dst) {
            copies.push((value, source.and_then(|s| self.boxed_of.get(&s)).copied()));
        }
        if let Some(&size) = self.size_of.get(&dst) {
            copies.push((size, source.and_then(|s| self.size_of.get(&s)).copied()));
        }
        if let Some(&first) = self.first_of.get(&dst) {
            copies.push((first, source.and_then(|s| self.first_of.get(&s)).copied()));
        }
        if let Some(&(count, bound)) = self.iterators.get(&dst) {
            let from = source.and_then(|s| self.iterators.get(&s)).copied();
            copies.push((count, from.map(|f| f.0)));
            copies.push((bound, from.map(|f| f.1)));
        }
        copies.into_iter().fold(node, |node, (var, from)| {
            self.step(node, Action::assign_or_havoc(var, from.map(Expr::var)))
        })
    }

    /// What the call does to the views besides its result: `it.next()` returns one more
    /// element, which the iterator's bound allows only while the counter is below it (the
    /// path where it throws leaves before); a call that may modify a collection forgets every
    /// size, since any collection variable may refer to the modified one, and one handed an
    /// iterator every iterator's counter.
    fn view_effects(&mut self, node: NodeId, call: &ir::Call) -> NodeId {
        match views::classify(call) {
            ViewCall::Next => {
                let Some(&(count, bound)) =
                    self.receiver_var(call).and_then(|r| self.iterators.get(&r))
                else {
                    return node;
                };
                let next = Expr::var(count) + 1;
                let node = self.step(node, Action::Assume(le(next.clone(), Expr::var(bound))));
                self.step(
                    node,
                    Action::Assign {
                        var: count,
                        expr: next,
                    },
                )
            }
            ViewCall::Other => {
                let mut forgotten: Vec<VarId> = self.size_of.values().copied().collect();
                // An iterator handed to a call (`ListIterator.previous()`, or a callee) may be
                // moved back, after which next() returns more than the size: any iterator
                // variable may be that one.
                let body = self.body;
                let hands_iterator = call.receiver.iter().chain(&call.args).any(|operand| {
                    matches!(operand, Operand::Var(v)
                        if view_type(&body.var(*v).ty) == Some(ViewType::Iterator))
                });
                if hands_iterator {
                    forgotten.extend(self.iterators.values().map(|&(count, _)| count));
                }
                forgotten.sort_unstable();
                forgotten
                    .into_iter()
                    .fold(node, |node, var| self.step(node, Action::Havoc(var)))
            }
            ViewCall::Length
            | ViewCall::Size
            | ViewCall::Iterator
            | ViewCall::SameSize
            | ViewCall::Box
            | ViewCall::Unbox
            | ViewCall::Range { .. }
            | ViewCall::Collector(_)
            | ViewCall::ReadOnly => node,
        }
    }

    /// What the call at `pc` does to the lengths of the method's builders
    /// ([`super::builders`]): a constructor or `setLength` sets one, an append moves it within
    /// what it may add, a call not followed forgets it.
    fn builder_effects(&mut self, node: NodeId, pc: u32, call: &ir::Call) -> NodeId {
        let Some(effects) = self.builders.effects.get(&pc).cloned() else {
            return node;
        };
        effects.into_iter().fold(node, |node, effect| match effect {
            Effect::Set { site, length } => {
                let var = self.builder_lengths[site];
                let length = self.amount(call, &length);
                self.step(node, Action::assign_or_havoc(var, length))
            }
            Effect::Grow { site, least, most } => self.grow(node, call, site, &least, &most),
            Effect::Forget { site } => {
                let var = self.builder_lengths[site];
                self.step(node, Action::Havoc(var))
            }
            Effect::Read { .. } => node,
        })
    }

    /// The builder's length grows by some amount between `least` and `most`: the length plus
    /// a fresh value bounded by both, or unknown where either is.
    fn grow(
        &mut self,
        node: NodeId,
        call: &ir::Call,
        site: usize,
        least: &Amount,
        most: &Amount,
    ) -> NodeId {
        let var = self.builder_lengths[site];
        let (Some(least), Some(most)) = (self.amount(call, least), self.amount(call, most)) else {
            return self.step(node, Action::Havoc(var));
        };
        let growth = if least == most {
            least
        } else {
            let added = Expr::var(self.builder_growth);
            let node = self.step(node, Action::Havoc(self.builder_growth));
            let node = self.step(node, Action::Assume(ge(added.clone(), least)));
            let node = self.step(node, Action::Assume(le(added.clone(), most)));
            let node = self.step(
                node,
                Action::Assign {
                    var,
                    expr: Expr::var(var).plus(&added),
                },
            );
            return self.step(node, Action::Havoc(self.builder_growth));
        };
        self.step(
            node,
            Action::Assign {
                var,
                expr: Expr::var(var).plus(&growth),
            },
        )
    }

    /// An amount over the call's arguments, or None where one of its measures is unknown.
    fn amount(&self, call: &ir::Call, amount: &Amount) -> Option<Expr> {
        amount.terms.iter().try_fold(
            Expr::constant(amount.constant),
            |sum, (coefficient, measure)| {
                let term = match *measure {
                    Measure::Value(index) => self.affine(call.args.get(index)?),
                    Measure::StringLength(index) => self.string_length(call.args.get(index)?),
                    Measure::ArrayLength(index) => match call.args.get(index)? {
                        Operand::Var(array) => self.length_of.get(array).map(|&l| Expr::var(l)),
                        Operand::Const(_) => None,
                    },
                }?;
                Some(sum.plus(&term.scaled(&Int::from(*coefficient))))
            },
        )
    }

    /// `dst := ` the builder's length, for a `length()` on a builder the method follows.
    fn builder_length_result(
        &mut self,
        node: NodeId,
        pc: u32,
        dst: ir::VarId,
        call: &ir::Call,
    ) -> NodeId {
        let (Some(length), Some(&var)) = (self.builder_length(pc), self.value_of.get(&dst)) else {
            return node;
        };
        if &*call.method.name != "length" {
            return node;
        }
        self.step(node, Action::Assign { var, expr: length })
    }

    /// The length of the followed builder the call at `pc` reads, if it reads one.
    fn builder_length(&self, pc: u32) -> Option<Expr> {
        let site = self.builders.read_at(pc)?;
        Some(Expr::var(self.builder_lengths[site]))
    }

    fn receiver_var(&self, call: &ir::Call) -> Option<ir::VarId> {
        match call.receiver {
            Some(Operand::Var(v)) => Some(v),
            _ => None,
        }
    }

    /// `dst := ` the call's result: a view of the receiver when the call reads one, else
    /// unknown (with every view of `dst`).
    fn call_result(&mut self, node: NodeId, dst: ir::VarId, call: &ir::Call) -> NodeId {
        let node = self.first_element(node, dst, call);
        self.call_views(node, dst, call)
    }

    /// `dst`'s first element, when it is an `IntStream`: a range's start, the receiver's for a
    /// stage that keeps its elements in order (`sorted()`, `limit(k)`), else [`UNKNOWN_FIRST`]
    /// (elements of unknown values, each counted outside the box cache).
    fn first_element(&mut self, node: NodeId, dst: ir::VarId, call: &ir::Call) -> NodeId {
        let Some(&first) = self.first_of.get(&dst) else {
            return node;
        };
        let value = match views::classify(call) {
            ViewCall::Range { .. } => call.args.first().and_then(|start| self.affine(start)),
            _ if views::keeps_elements(&call.method) => self
                .receiver_var(call)
                .and_then(|r| self.first_of.get(&r))
                .map(|&from| Expr::var(from)),
            _ => None,
        };
        let expr = value.unwrap_or_else(|| Expr::constant(UNKNOWN_FIRST));
        self.step(node, Action::Assign { var: first, expr })
    }

    fn call_views(&mut self, node: NodeId, dst: ir::VarId, call: &ir::Call) -> NodeId {
        let receiver = self.receiver_var(call);
        let (value, views) = match views::classify(call) {
            ViewCall::Length => (receiver.and_then(|r| self.length_of.get(&r)), None),
            ViewCall::Size => (receiver.and_then(|r| self.size_of.get(&r)), None),
            ViewCall::Unbox => (receiver.and_then(|r| self.boxed_of.get(&r)), None),
            ViewCall::Box => {
                let value = call.args.first().and_then(|arg| self.affine(arg));
                if let (Some(&boxed), Some(expr)) = (self.boxed_of.get(&dst), value) {
                    return self.step(node, Action::Assign { var: boxed, expr });
                }
                (None, None)
            }
            ViewCall::SameSize => (None, receiver.and_then(|r| self.size_of.get(&r))),
            ViewCall::Range { closed } => return self.range_size(node, dst, call, closed),
            ViewCall::Collector(kind) => {
                return match self.size_of.get(&dst) {
                    Some(&var) => self.step(
                        node,
                        Action::Assign {
                            var,
                            expr: Expr::constant(kind),
                        },
                    ),
                    None => node,
                };
            }
            ViewCall::Iterator => {
                let size = receiver.and_then(|r| self.size_of.get(&r)).copied();
                if let (Some(&(count, bound)), Some(size)) = (self.iterators.get(&dst), size) {
                    let node = self.step(
                        node,
                        Action::Assign {
                            var: count,
                            expr: Expr::constant(0),
                        },
                    );
                    return self.step(
                        node,
                        Action::Assign {
                            var: bound,
                            expr: Expr::var(size),
                        },
                    );
                }
                (None, None)
            }
            _ => (None, None),
        };
        let copied = value.or(views).copied();
        let target = self
            .value_of
            .get(&dst)
            .or_else(|| self.size_of.get(&dst))
            .copied();
        match (target, copied) {
            (Some(var), Some(source)) => self.step(
                node,
                Action::Assign {
                    var,
                    expr: Expr::var(source),
                },
            ),
            _ => self.havoc(node, dst),
        }
    }

    /// `dst := IntStream.range(a, b)`: a stream of `max(0, b - a)` elements (`rangeClosed`: one
    /// more), the two sides of the maximum kept apart at joins (their hull would let the size
    /// grow without the bounds).
    fn range_size(
        &mut self,
        node: NodeId,
        dst: ir::VarId,
        call: &ir::Call,
        closed: bool,
    ) -> NodeId {
        let bounds = match call.args.as_slice() {
            [start, end] => self.affine(start).zip(self.affine(end)),
            _ => None,
        };
        let (Some(&size), Some((start, end))) = (self.size_of.get(&dst), bounds) else {
            return self.havoc(node, dst);
        };
        let elements = end.minus(&start) + i64::from(closed);
        self.procedure.sign_splits.push(Expr::var(size));
        let joined = self.new_node();
        let some = self.step(node, Action::Assume(Cond::Ge(elements.clone() - 1)));
        self.edge(
            some,
            joined,
            Action::Assign {
                var: size,
                expr: elements.clone(),
            },
        );
        let none = self.step(node, Action::Assume(Cond::Ge(elements.negated())));
        self.edge(
            none,
            joined,
            Action::Assign {
                var: size,
                expr: Expr::constant(0),
            },
        );
        joined
    }

    /// `dst = Math.min(a, b)`, `max` or `abs` of the run's fixed values
    /// ([`Extremum::followed`]): a branch per value the result may take, joined after the call,
    /// where every join of the method keeps them apart.
    fn extremum(&mut self, node: NodeId, dst: ir::VarId, call: &ir::Call) -> Option<NodeId> {
        let extremum = Extremum::followed(call, self.body)?;
        let &result = self.value_of.get(&dst)?;
        let args: Vec<Option<Expr>> = call.args.iter().map(|arg| self.affine(arg)).collect();
        let branches = extremum.branches(&args, result)?;
        if let Some(split) = extremum.split(&args) {
            // Over the formals' entry values: a formal is havocked at joins once dead, which
            // would blur the split.
            self.keep_apart(in_entry_values(&split, &self.entry_values())?);
        }
        let joined = self.new_node();
        for actions in branches {
            self.connect(node, joined, actions);
        }
        Some(joined)
    }

    fn havoc(&mut self, node: NodeId, dst: ir::VarId) -> NodeId {
        let mut vars: Vec<VarId> = [
            &self.value_of,
            &self.length_of,
            &self.size_of,
            &self.boxed_of,
        ]
        .into_iter()
        .filter_map(|map| map.get(&dst).copied())
        .collect();
        if let Some(&(count, bound)) = self.iterators.get(&dst) {
            vars.extend([count, bound]);
        }
        vars.into_iter()
            .fold(node, |node, var| self.step(node, Action::Havoc(var)))
    }

    /// The value of an integer right-hand side, when it is affine in integer locals.
    fn affine_value(&self, value: &ir::Expr) -> Option<Expr> {
        match value {
            ir::Expr::Use(operand) => self.affine(operand),
            // A shift left by a constant multiplies by a power of two, as long as nothing
            // overflows (the assumption every product already makes).
            ir::Expr::Binary {
                op: BinOp::Shl,
                lhs,
                rhs: Operand::Const(Const::Int(count)),
            } => {
                let mask = if self.is_int_operand(lhs) { 31 } else { 63 };
                Some(self.affine(lhs)?.scaled(&(Int::from(1) << (count & mask))))
            }
            ir::Expr::Binary { op, lhs, rhs } => {
                let (lhs, rhs) = (self.affine(lhs)?, self.affine(rhs)?);
                match op {
                    BinOp::Add => Some(lhs.plus(&rhs)),
                    BinOp::Sub => Some(lhs.minus(&rhs)),
                    BinOp::Mul if rhs.terms.is_empty() => Some(lhs.scaled(&rhs.constant)),
                    BinOp::Mul if lhs.terms.is_empty() => Some(rhs.scaled(&lhs.constant)),
                    _ => None,
                }
            }
            ir::Expr::Neg(operand) => Some(self.affine(operand)?.negated()),
            // Widening to long keeps the value; every other conversion may change it.
            ir::Expr::Convert(operand, Type::Long) if self.is_int_operand(operand) => {
                self.affine(operand)
            }
            ir::Expr::ArrayLength(Operand::Var(array)) => {
                self.length_of.get(array).map(|&len| Expr::var(len))
            }
            ir::Expr::Load(place) => {
                let read = ViewKey::at(place, self.fields.this, &self.fields.holders)?;
                self.field_value(self.fields.reads.get(&read)?)
            }
            _ => None,
        }
    }

    fn is_int_operand(&self, operand: &Operand) -> bool {
        match operand {
            Operand::Var(v) => self.body.var(*v).ty.is_int_like(),
            Operand::Const(c) => matches!(c, Const::Int(_)),
        }
    }

    /// The length of the array an array-typed right-hand side yields, when it is known.
    fn array_length_value(&self, value: &ir::Expr) -> Option<Expr> {
        match value {
            ir::Expr::NewArray { dims, .. } => self.affine(dims.first()?),
            // A string literal's length, in UTF-16 units as `String.length()` counts.
            ir::Expr::Use(literal @ Operand::Const(Const::String(_))) => {
                self.string_length(literal)
            }
            ir::Expr::Use(Operand::Var(source)) | ir::Expr::CheckCast(Operand::Var(source), _) => {
                self.length_of.get(source).map(|&len| Expr::var(len))
            }
            _ => None,
        }
    }
}

/// Whether the instruction names the method `target` stands for, with its arguments in order
/// (a lambda's body or a class initializer reached through it does not qualify).
fn names_target(call: &ir::Call, target: &CallTarget<'_>) -> bool {
    !matches!(call.kind, CallKind::Dynamic(_))
        && call.method.name == target.method.name
        && call.method.descriptor == target.method.descriptor
        && call.args.len()
            == target
                .formals
                .iter()
                .filter(|&&kind| {
                    !matches!(
                        kind,
                        Some(
                            FormalKind::ReceiverLength
                                | FormalKind::ReceiverSize
                                | FormalKind::ReceiverFirst
                        )
                    )
                })
                .count()
}

fn fact_mentions(fact: &Fact, var: VarId) -> bool {
    match fact {
        Fact::Remainder { dividend, .. } => dividend.terms.contains_key(&var),
        Fact::Compare { left, right } => {
            left.terms.contains_key(&var) || right.terms.contains_key(&var)
        }
    }
}

/// `expr` over the entry snapshots of `entry_values`' formals, when it names no other variable.
fn in_entry_values(expr: &Expr, entry_values: &HashMap<VarId, VarId>) -> Option<Expr> {
    let mut renamed = Expr::constant(0);
    renamed.constant = expr.constant.clone();
    for (var, coeff) in &expr.terms {
        renamed.add_term(*entry_values.get(var)?, coeff.clone());
    }
    Some(renamed)
}

/// `low <= expr <= high` for the values of the integer type `ty`.
/// What a count a local carries (a cursor's nodes left, the length of a chain its object
/// holds) becomes when `value` is assigned to the local: 0 for a new object (its fields are
/// null), the source's (`count_of` it) for a copy, unknown otherwise.
fn assigned_count(value: &ir::Expr, count_of: impl Fn(ir::VarId) -> Option<VarId>) -> Option<Expr> {
    match value {
        // A new object's fields are null, and so are the cells of a new array of one dimension
        // (those of `new C[n][m]` hold arrays).
        ir::Expr::New(_) => Some(Expr::constant(0)),
        ir::Expr::NewArray { dims, .. } if dims.len() == 1 => Some(Expr::constant(0)),
        ir::Expr::Use(Operand::Var(source)) | ir::Expr::CheckCast(Operand::Var(source), _) => {
            count_of(*source).map(Expr::var)
        }
        _ => None,
    }
}

fn in_range(ty: &Type, expr: Expr) -> Option<Cond> {
    let (low, high) = ty.integer_range()?;
    Some(Cond::And(vec![ge(expr.clone(), low), le(expr, high)]))
}

fn compare(op: CmpOp, left: Expr, right: Expr) -> Cond {
    match op {
        CmpOp::Eq => eq(left, right),
        CmpOp::Ne => ne(left, right),
        CmpOp::Lt => lt(left, right),
        CmpOp::Ge => ge(left, right),
        CmpOp::Gt => gt(left, right),
        CmpOp::Le => le(left, right),
    }
}

/// The name of the iteration counter of the loop whose head block starts at `pc`.
fn counter_name(pc: u32) -> String {
    format!("{COUNTER_PREFIX}{pc}")
}

const COUNTER_PREFIX: &str = "iter";

/// The head offset of the loop whose counter is named `name`, if it names one.
pub fn counter_head(name: &str) -> Option<u32> {
    name.strip_prefix(COUNTER_PREFIX)?.parse().ok()
}

/// `text` as an isl identifier: letters, digits and `_`, starting with a letter.
pub fn identifier(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    match cleaned.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => cleaned,
        _ => format!("v{cleaned}"),
    }
}

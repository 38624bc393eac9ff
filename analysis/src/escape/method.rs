//! The analysis of one method body against the summaries of its callees: a flow-insensitive,
//! field-sensitive points-to graph over the objects the method can see, its projection onto
//! what callers can see (the method's [`Summary`]), and where each object the method or its
//! callees create ends up ([`Translation`]).
//!
//! Graph nodes stand for sets of objects: each parameter's object, the objects inside it (reachable
//! from it through fields: the parameter's node has an edge of unknown field to this node, which
//! has one to itself), the global node (whatever static fields reach or code we cannot see holds), one node per
//! allocating instruction, and one per fresh node of a callee's summary at each call. An edge
//! `a -f-> b` says field `f` (by name; [`Label::Element`] for array elements, [`Label::Any`]
//! where the field is not known) of an object of `a` may refer to an object of `b`. Fields are
//! told apart so that what a method returns from one field of an object does not drag along
//! what another field holds (the thesis's `c.value` returned while `c.next` points into the
//! caller's list). A node
//! outlives the method exactly when a root reaches it: a parameter, the global node, or the
//! returned value; thrown objects and whatever unknown code receives are made reachable from
//! the global node. This module does not know call chains: [`super`] composes translations.

use std::collections::BTreeSet;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use membound_front::callgraph::{Edge, EdgeKind, Node, NodeId};
use membound_front::ir::{
    BlockId, Body, Call, CallKind, DynamicCall, Expr, Operand, Place, Stmt, StmtKind, Terminator,
};
use membound_jvm::{ClassName, Type};

/// What callers see of a node of the callee: the objects reachable from a parameter at entry,
/// the global node, or objects created under the callee that outlive it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SummaryNode {
    /// The object of the `i`-th parameter (`this` first).
    Param(u16),
    /// The objects reachable through fields from the `i`-th parameter's object (at entry, and
    /// whatever is stored into them).
    Inside(u16),
    /// Objects reachable from static fields, thrown, or handed to code we cannot see.
    Global,
    /// Objects created under the method that outlive it, grouped by which roots reach them.
    Fresh(Roots),
}

/// Which field of an object an edge stands for.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Label {
    /// An instance field, by name (fields of different classes with one name share it, which
    /// only adds edges).
    Field(Arc<str>),
    /// Any element of an array.
    Element,
    /// Some field we do not know: code we cannot see, a lambda's captured values. A load of any
    /// field follows it.
    Any,
}

/// The roots (parameters, the returned value) that reach a fresh object; never empty, since
/// an object no root reaches is captured.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Roots {
    pub params: Vec<u16>,
    pub returned: bool,
}

/// What a method does to the objects its callers can see: which summary nodes it links and
/// what it may return. Fresh nodes with the same roots are merged, which keeps summaries small
/// (merging nodes of a points-to graph only adds edges, so it stays sound).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub fresh: BTreeSet<Roots>,
    pub edges: BTreeSet<(SummaryNode, Label, SummaryNode)>,
    pub returns: BTreeSet<SummaryNode>,
}

impl Summary {
    /// Adds everything of `other`; tells whether anything was new.
    pub fn join(&mut self, other: &Summary) -> bool {
        let before = (self.fresh.len(), self.edges.len(), self.returns.len());
        self.fresh.extend(other.fresh.iter().cloned());
        self.edges.extend(other.edges.iter().cloned());
        self.returns.extend(other.returns.iter().cloned());
        before != (self.fresh.len(), self.edges.len(), self.returns.len())
    }
}

/// Where the objects created by a method or under its calls end up, as its summary names
/// them: `None` when the method captures them.
#[derive(Clone, Debug, Default)]
pub struct Translation {
    /// By the pc of the allocating instruction (a constructor reference: of its call).
    pub allocations: HashMap<u32, Option<SummaryNode>>,
    /// By call pc, callee and the callee's fresh node.
    pub callees: HashMap<(u32, NodeId, Roots), Option<SummaryNode>>,
}

/// The methods analyzed before this one, and what is known of the call sites.
pub struct Context<'a> {
    /// The methods of the call graph.
    pub methods: &'a [Node],
    /// The edges leaving the analyzed method.
    pub edges: &'a [&'a Edge],
    /// Call pcs of the analyzed method that the call graph could not resolve.
    pub unresolved: &'a BTreeSet<u32>,
    /// The summary of every method with code analyzed so far; `None` for the others (an
    /// unknown callee, or a member of the current recursive component not yet analyzed, which
    /// `unknown` tells apart).
    pub summaries: &'a [Option<Summary>],
    /// Whether a callee's code is invisible to us (native, abstract, unliftable).
    pub unknown: &'a [bool],
    /// The offsets of the method's `clone()` calls the VM performs (the call graph's copies).
    pub copies: &'a BTreeSet<u32>,
    /// The offsets of the method's format calls the call graph takes for allocations.
    pub formats: &'a BTreeSet<u32>,
}

/// A node of the method's graph.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Global,
    Param(u16),
    Inside(u16),
    /// An allocation (or the object of a constructor reference) at this pc.
    Alloc(u32),
    /// The object an `invokedynamic` lambda factory makes at this pc: it holds the captured
    /// values, and is a creation site when it captures any (a new object per evaluation).
    Lambda(u32),
    /// A fresh node of the summary of `callee` instantiated at the call at `pc`.
    Callee {
        pc: u32,
        callee: NodeId,
        roots: Roots,
    },
}

const GLOBAL: usize = 0;

/// The points-to graph of one method under construction.
struct Graph {
    keys: Vec<Key>,
    index: HashMap<Key, usize>,
    succ: Vec<BTreeSet<(Label, usize)>>,
    returns: BTreeSet<usize>,
    changed: bool,
    /// Nodes the global node reaches, as of the start of the current round.
    global_reach: BTreeSet<usize>,
}

/// Per variable of the body, the nodes it may point to at one program point. Locals are
/// tracked per point (the IR reuses stack slots and locals; one set per variable for the whole
/// body would mix unrelated objects); the heap is one graph for the whole body.
type State = Vec<BTreeSet<usize>>;

/// Analyzes `body` to a fixpoint of its own graph and returns its summary and translation.
pub fn analyze(body: &Body, context: &Context<'_>) -> (Summary, Translation) {
    let mut graph = Graph {
        keys: Vec::new(),
        index: HashMap::default(),
        succ: Vec::new(),
        returns: BTreeSet::new(),
        changed: false,
        global_reach: BTreeSet::new(),
    };
    graph.intern(Key::Global);
    let mut entries: Vec<Option<State>> = vec![None; body.blocks.len()];
    let mut initial: State = vec![BTreeSet::new(); body.vars.len()];
    for (index, &param) in body.params.iter().enumerate() {
        let object = graph.intern(Key::Param(index as u16));
        let inside = graph.intern(Key::Inside(index as u16));
        graph.add_edges(
            &BTreeSet::from([object]),
            &Label::Any,
            &BTreeSet::from([inside]),
        );
        graph.add_edges(
            &BTreeSet::from([inside]),
            &Label::Any,
            &BTreeSet::from([inside]),
        );
        initial[param.0 as usize].insert(object);
    }
    entries[0] = Some(initial);
    loop {
        graph.changed = false;
        graph.global_reach = graph.reach(&BTreeSet::from([GLOBAL]));
        for (index, block) in body.blocks.iter().enumerate() {
            let Some(mut state) = entries[index].clone() else {
                continue;
            };
            // An exception may leave the block before or after any statement.
            graph.flow(
                &mut entries,
                block.handlers.iter().map(|h| h.target),
                &state,
            );
            for stmt in &block.stmts {
                graph.statement(body, &mut state, stmt, context);
                graph.flow(
                    &mut entries,
                    block.handlers.iter().map(|h| h.target),
                    &state,
                );
            }
            match &block.terminator {
                Terminator::Return(Some(value)) => {
                    let nodes = graph.operand(&state, value);
                    for node in nodes {
                        graph.changed |= graph.returns.insert(node);
                    }
                }
                Terminator::Throw(value) => {
                    let nodes = graph.operand(&state, value);
                    graph.add_edges(&BTreeSet::from([GLOBAL]), &Label::Any, &nodes);
                }
                _ => {}
            }
            graph.flow(&mut entries, block.terminator.successors(), &state);
        }
        for edge in context
            .edges
            .iter()
            .filter(|e| e.kind == EdgeKind::ClassInit)
        {
            // An initializer takes no arguments and returns nothing.
            graph.instantiate(edge.pc, edge.callee, context, &|_| BTreeSet::new());
        }
        if !graph.changed {
            break;
        }
    }
    graph.project()
}

impl Graph {
    fn intern(&mut self, key: Key) -> usize {
        if let Some(&node) = self.index.get(&key) {
            return node;
        }
        let node = self.keys.len();
        self.keys.push(key.clone());
        self.index.insert(key, node);
        self.succ.push(BTreeSet::new());
        self.changed = true;
        node
    }

    /// Joins `state` into the entry states of `targets`.
    fn flow(
        &mut self,
        entries: &mut [Option<State>],
        targets: impl IntoIterator<Item = BlockId>,
        state: &State,
    ) {
        for target in targets {
            match &mut entries[target.0 as usize] {
                Some(entry) => {
                    for (into, from) in entry.iter_mut().zip(state) {
                        for &node in from {
                            self.changed |= into.insert(node);
                        }
                    }
                }
                empty => {
                    *empty = Some(state.clone());
                    self.changed = true;
                }
            }
        }
    }

    fn add_edges(&mut self, from: &BTreeSet<usize>, label: &Label, to: &BTreeSet<usize>) {
        for &a in from {
            for &b in to {
                self.changed |= self.succ[a].insert((label.clone(), b));
            }
        }
    }

    fn operand(&self, state: &State, operand: &Operand) -> BTreeSet<usize> {
        match operand {
            Operand::Var(var) => state[var.0 as usize].clone(),
            // Literal strings, class objects and other constants are shared by the whole
            // program: they are global.
            Operand::Const(constant) => match constant {
                membound_front::ir::Const::String(_)
                | membound_front::ir::Const::Class(_)
                | membound_front::ir::Const::Other(_) => BTreeSet::from([GLOBAL]),
                _ => BTreeSet::new(),
            },
        }
    }

    /// The nodes reachable from `from`, `from` included.
    fn reach(&self, from: &BTreeSet<usize>) -> BTreeSet<usize> {
        let mut seen = from.clone();
        let mut stack: Vec<usize> = from.iter().copied().collect();
        while let Some(node) = stack.pop() {
            for &(_, next) in &self.succ[node] {
                if seen.insert(next) {
                    stack.push(next);
                }
            }
        }
        seen
    }

    /// What reading field `label` of `objects` may yield: the targets of its edges and of
    /// edges of unknown field (so a parameter's object yields the objects inside it, which
    /// yield themselves). The global node stands for a whole structure, so reading it yields
    /// itself; reading an object the global node reaches may also yield whatever other code
    /// stored there.
    /// What `objects` hold in any field or element.
    fn contents(&self, objects: &BTreeSet<usize>) -> BTreeSet<usize> {
        let mut out = self.load(objects, &Label::Any);
        for &node in objects {
            out.extend(self.succ[node].iter().map(|&(_, target)| target));
        }
        out
    }

    fn load(&self, objects: &BTreeSet<usize>, label: &Label) -> BTreeSet<usize> {
        let mut out = BTreeSet::new();
        for &node in objects {
            out.extend(
                self.succ[node]
                    .iter()
                    .filter(|(l, _)| l == label || *l == Label::Any)
                    .map(|&(_, target)| target),
            );
            if node == GLOBAL {
                out.insert(node);
            }
            if self.global_reach.contains(&node) {
                out.insert(GLOBAL);
            }
        }
        out
    }

    fn statement(&mut self, body: &Body, state: &mut State, stmt: &Stmt, context: &Context<'_>) {
        match &stmt.kind {
            StmtKind::Assign { dst, value } => {
                let nodes = match value {
                    Expr::Use(operand) | Expr::CheckCast(operand, _) => {
                        self.operand(state, operand)
                    }
                    Expr::Load(Place::Static(_)) | Expr::CaughtException => {
                        BTreeSet::from([GLOBAL])
                    }
                    Expr::Load(Place::Field { object, field }) => self.load(
                        &self.operand(state, object),
                        &Label::Field(field.name.clone()),
                    ),
                    Expr::Load(Place::ArrayElement { array, .. }) => {
                        self.load(&self.operand(state, array), &Label::Element)
                    }
                    Expr::New(_) | Expr::NewArray { .. } => {
                        BTreeSet::from([self.intern(Key::Alloc(stmt.pc))])
                    }
                    Expr::Binary { .. }
                    | Expr::Neg(_)
                    | Expr::Convert(..)
                    | Expr::InstanceOf(..)
                    | Expr::ArrayLength(_) => BTreeSet::new(),
                };
                state[dst.0 as usize] = nodes;
            }
            StmtKind::Store { place, value } => {
                let value = self.operand(state, value);
                let (holders, label) = match place {
                    Place::Static(_) => (BTreeSet::from([GLOBAL]), Label::Any),
                    Place::Field { object, field } => (
                        self.operand(state, object),
                        Label::Field(field.name.clone()),
                    ),
                    Place::ArrayElement { array, .. } => {
                        (self.operand(state, array), Label::Element)
                    }
                };
                self.add_edges(&holders, &label, &value);
            }
            StmtKind::Invoke { dst, call } => {
                let actuals: Vec<BTreeSet<usize>> = call
                    .receiver
                    .iter()
                    .chain(&call.args)
                    .map(|operand| self.operand(state, operand))
                    .collect();
                let result = self.invoke(body, stmt.pc, call, &actuals, context);
                if let Some(dst) = dst {
                    state[dst.0 as usize] = result;
                }
            }
            StmtKind::Monitor { .. } => {}
        }
    }

    /// Applies a call to the graph and returns what it may return.
    fn invoke(
        &mut self,
        body: &Body,
        pc: u32,
        call: &Call,
        actuals: &[BTreeSet<usize>],
        context: &Context<'_>,
    ) -> BTreeSet<usize> {
        match &call.kind {
            CallKind::Dynamic(DynamicCall::Lambda { .. }) => {
                let lambda = BTreeSet::from([self.intern(Key::Lambda(pc))]);
                for captured in actuals {
                    self.add_edges(&lambda, &Label::Any, captured);
                }
                return lambda;
            }
            _ if context.copies.contains(&pc) => {
                // A new object (or array) holding what the copied one holds.
                let copy = BTreeSet::from([self.intern(Key::Alloc(pc))]);
                let held = self.contents(&actuals[0]);
                self.add_edges(&copy, &Label::Any, &held);
                return copy;
            }
            // A new String; its arguments, strings and boxes, are only read. A printf returns
            // its stream, which keeps the Formatter it makes.
            _ if context.formats.contains(&pc) => {
                let made = BTreeSet::from([self.intern(Key::Alloc(pc))]);
                if call.method.class.internal() != "java/io/PrintStream" {
                    return made;
                }
                self.add_edges(&BTreeSet::from([GLOBAL]), &Label::Any, &made);
                return actuals.first().cloned().unwrap_or_default();
            }
            CallKind::Dynamic(DynamicCall::StringConcat { .. }) => {
                // The concatenation calls `toString` on its object arguments, code the call
                // graph does not follow: only strings are known to be read and nothing more.
                for (operand, nodes) in call.args.iter().zip(actuals) {
                    if !is_string(body, operand) {
                        self.add_edges(&BTreeSet::from([GLOBAL]), &Label::Any, nodes);
                    }
                }
                return BTreeSet::from([self.intern(Key::Alloc(pc))]);
            }
            _ => {}
        }
        let targets: Vec<&Edge> = context
            .edges
            .iter()
            .filter(|e| e.pc == pc && e.kind != EdgeKind::ClassInit)
            .copied()
            .collect();
        let mut result = BTreeSet::new();
        if targets.is_empty() || context.unresolved.contains(&pc) {
            result.extend(self.unknown_call(actuals));
        }
        for edge in targets {
            if context.unknown[edge.callee] {
                result.extend(self.unknown_call(actuals));
            } else if edge.kind == EdgeKind::Lambda {
                result.extend(self.lambda_call(pc, edge, actuals, context));
            } else {
                let closures: Vec<BTreeSet<usize>> =
                    actuals.iter().map(|a| self.reach(a)).collect();
                let image = |node: &SummaryNode| match node {
                    SummaryNode::Param(index) => actuals.get(*index as usize),
                    SummaryNode::Inside(index) => closures.get(*index as usize),
                    SummaryNode::Global | SummaryNode::Fresh(_) => None,
                };
                result.extend(self.instantiate(pc, edge.callee, context, &|node| {
                    image(node).cloned().unwrap_or_default()
                }));
            }
        }
        result
    }

    /// A functional method run through a lambda object: the implementation's parameters are
    /// the captured values (held by the receiver) and the call's arguments in an order we do
    /// not track, so each parameter may be any of them. A constructor reference also creates
    /// the object its constructor receives, which the call returns.
    fn lambda_call(
        &mut self,
        pc: u32,
        edge: &Edge,
        actuals: &[BTreeSet<usize>],
        context: &Context<'_>,
    ) -> BTreeSet<usize> {
        let mut all: BTreeSet<usize> = actuals.iter().flatten().copied().collect();
        let mut result = BTreeSet::new();
        if &*context.methods[edge.callee].method.name == "<init>" {
            let object = self.intern(Key::Alloc(pc));
            result.insert(object);
            all.insert(object);
        }
        let closure = self.reach(&all);
        result.extend(self.instantiate(pc, edge.callee, context, &|_| closure.clone()));
        result
    }

    /// Code we cannot see may keep anything it receives and may return anything.
    fn unknown_call(&mut self, actuals: &[BTreeSet<usize>]) -> BTreeSet<usize> {
        for nodes in actuals {
            self.add_edges(&BTreeSet::from([GLOBAL]), &Label::Any, nodes);
        }
        BTreeSet::from([GLOBAL])
    }

    /// Applies the callee's summary at a call: its parameters' nodes stand for the actual
    /// arguments' objects and the objects inside them for everything reachable from those
    /// (`param` gives both), its fresh nodes become nodes of ours. Returns what the call may
    /// return.
    fn instantiate(
        &mut self,
        pc: u32,
        callee: NodeId,
        context: &Context<'_>,
        param: &dyn Fn(&SummaryNode) -> BTreeSet<usize>,
    ) -> BTreeSet<usize> {
        // Unknown callees are handled by the caller of this function; what remains without a
        // summary is a member of the current recursive component not analyzed yet.
        let Some(summary) = &context.summaries[callee] else {
            return BTreeSet::new();
        };
        let image = |graph: &mut Graph, node: &SummaryNode| -> BTreeSet<usize> {
            match node {
                SummaryNode::Param(_) | SummaryNode::Inside(_) => param(node),
                SummaryNode::Global => BTreeSet::from([GLOBAL]),
                SummaryNode::Fresh(roots) => BTreeSet::from([graph.intern(Key::Callee {
                    pc,
                    callee,
                    roots: roots.clone(),
                })]),
            }
        };
        for roots in &summary.fresh {
            image(self, &SummaryNode::Fresh(roots.clone()));
        }
        for (from, label, to) in &summary.edges {
            let (from, to) = (image(self, from), image(self, to));
            self.add_edges(&from, label, &to);
        }
        let mut result = BTreeSet::new();
        for node in &summary.returns {
            result.extend(image(self, node));
        }
        result
    }

    /// The summary and translation of the finished graph.
    fn project(&self) -> (Summary, Translation) {
        let global = self.reach(&BTreeSet::from([GLOBAL]));
        let returned = self.reach(&self.returns);
        let params: Vec<(u16, BTreeSet<usize>)> = self
            .keys
            .iter()
            .enumerate()
            .filter_map(|(node, key)| match key {
                Key::Param(index) => Some((*index, self.reach(&BTreeSet::from([node])))),
                _ => None,
            })
            .collect();
        let class: Vec<Option<SummaryNode>> = self
            .keys
            .iter()
            .enumerate()
            .map(|(node, key)| match key {
                Key::Global => Some(SummaryNode::Global),
                Key::Param(index) => Some(SummaryNode::Param(*index)),
                Key::Inside(index) => Some(SummaryNode::Inside(*index)),
                _ if global.contains(&node) => Some(SummaryNode::Global),
                _ => {
                    let roots = Roots {
                        params: params
                            .iter()
                            .filter(|(_, reached)| reached.contains(&node))
                            .map(|(index, _)| *index)
                            .collect(),
                        returned: returned.contains(&node),
                    };
                    (roots.returned || !roots.params.is_empty())
                        .then_some(SummaryNode::Fresh(roots))
                }
            })
            .collect();
        let mut summary = Summary::default();
        for node in class.iter().flatten() {
            if let SummaryNode::Fresh(roots) = node {
                summary.fresh.insert(roots.clone());
            }
        }
        for (from, targets) in self.succ.iter().enumerate() {
            let Some(from) = &class[from] else { continue };
            for (label, to) in targets {
                if let Some(to) = &class[*to]
                    && !implied(from, label, to)
                {
                    summary
                        .edges
                        .insert((from.clone(), label.clone(), to.clone()));
                }
            }
        }
        summary.returns = self
            .returns
            .iter()
            .filter_map(|&node| class[node].clone())
            .collect();
        let mut translation = Translation::default();
        for (node, key) in self.keys.iter().enumerate() {
            match key {
                // A lambda's object is a creation site where it captures values.
                Key::Alloc(pc) | Key::Lambda(pc) => {
                    translation.allocations.insert(*pc, class[node].clone());
                }
                Key::Callee { pc, callee, roots } => {
                    translation
                        .callees
                        .insert((*pc, *callee, roots.clone()), class[node].clone());
                }
                Key::Global | Key::Param(_) | Key::Inside(_) => {}
            }
        }
        (summary, translation)
    }
}

/// Whether an edge holds in every summary, so callers need not see it: the global node's
/// edges to itself, and a parameter's edges to the objects inside it.
fn implied(from: &SummaryNode, label: &Label, to: &SummaryNode) -> bool {
    match (from, to) {
        (SummaryNode::Global, SummaryNode::Global) => true,
        (SummaryNode::Param(a) | SummaryNode::Inside(a), SummaryNode::Inside(b)) => {
            a == b && *label == Label::Any
        }
        _ => false,
    }
}

fn is_string(body: &Body, operand: &Operand) -> bool {
    match operand {
        Operand::Var(var) => match &body.var(*var).ty {
            Type::Ref(class) => *class == ClassName::new("java/lang/String"),
            ty => !ty.is_reference(),
        },
        Operand::Const(_) => true,
    }
}

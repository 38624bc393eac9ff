//! The procedure standing for a method a library spec covers: no code, only what the spec
//! states, shaped so that a chain through it counts as the spec says.
//!
//! Its formals are the method's integer parameters and the lengths of its array and `String`
//! parameters, bound at calls like any callee's. Allocation `k` of the spec is a point reached once per value of a fresh counter
//! `h` with `1 <= h <= count` (the thesis's "treat the annotated call like an array
//! allocation"), with the array's length, when the spec gives one, in a column of its own. The
//! spec's `k`-th call back into code is a point with a counter bounded by its `times`, or not
//! bounded, followed by the call with unknown arguments. An allocation with a condition
//! (`when`) is reached only where the formals satisfy it.

use membound_invariants::program::Variable;
use membound_invariants::{Action, Cond, Edge, Expr, NodeId, ProcId, Procedure, VarId, VarKind};
use membound_polyhedra::{Int, Relation};

use membound_front::specs::{MethodSpec, SpecCondition, SpecExpr, is_stream_pipeline};
use membound_jvm::{MethodRef, Type};

use super::body::{FormalKind, LocalPoint, LoweredBody, PointKey, identifier, numeric_formal_kind};
use super::views::{ViewType, view_type};

/// Per declared parameter of `method`, how it is a formal (the same rule as for methods with
/// code: integers by value, arrays by length; and a `String` by its length, a `Collector` by
/// its kind, which spec expressions may name), then the receiver's length (a stream's size)
/// when the spec names it.
pub fn spec_formal_kinds(method: &MethodRef, spec: &MethodSpec) -> Vec<Option<FormalKind>> {
    let params = method
        .parsed_descriptor()
        .map(|d| d.params)
        .unwrap_or_default();
    params
        .iter()
        .map(|ty| {
            numeric_formal_kind(ty).or_else(|| match view_type(ty)? {
                ViewType::String => Some(FormalKind::StringLength),
                ViewType::Collector => Some(FormalKind::CollectorKind),
                _ => None,
            })
        })
        .chain(
            spec.receiver_length
                .then_some(Some(if is_stream_pipeline(&method.class) {
                    FormalKind::ReceiverSize
                } else {
                    FormalKind::ReceiverLength
                })),
        )
        .chain(
            spec.receiver_first
                .then_some(Some(FormalKind::ReceiverFirst)),
        )
        .collect()
}

/// The names of a spec'd method's formals: the spec's parameter names (`p0`, … by default),
/// array lengths as `<name>_length`, the receiver's as `this_length`.
pub fn spec_formal_names(method: &MethodRef, spec: &MethodSpec) -> Vec<(usize, String)> {
    spec_formal_kinds(method, spec)
        .iter()
        .enumerate()
        .filter_map(|(index, kind)| {
            let base = spec
                .params
                .get(index)
                .cloned()
                .unwrap_or_else(|| format!("p{index}"));
            match (*kind)? {
                FormalKind::Value | FormalKind::CollectorKind => Some((index, identifier(&base))),
                FormalKind::ReceiverSize => Some((index, "this_size".to_string())),
                FormalKind::ReceiverFirst => Some((index, "this_first".to_string())),
                FormalKind::ArrayLength | FormalKind::StringLength => {
                    Some((index, identifier(&format!("{base}_length"))))
                }
                FormalKind::ReceiverLength => Some((index, "this_length".to_string())),
                // `spec_formal_kinds` gives neither: a spec states no other object views.
                FormalKind::CollectionSize | FormalKind::BoxedValue => None,
            }
        })
        .collect()
}

/// The callees of one of the spec's calls: the procedure and how many formals it has.
pub struct SpecCallee {
    pub pc: u32,
    pub procedure: ProcId,
    pub formals: usize,
}

/// Lowers the spec of `method` to a procedure named `name`; `callees` are the procedures its
/// calls enter on some chain.
pub fn lower_spec(
    name: &str,
    method: &MethodRef,
    spec: &MethodSpec,
    callees: &[SpecCallee],
) -> LoweredBody {
    let mut builder = SpecProcedure::new(name);
    let kinds = spec_formal_kinds(method, spec);
    let mut by_param: Vec<Option<VarId>> = vec![None; kinds.len()];
    let mut preconditions = Vec::new();
    for (index, formal_name) in spec_formal_names(method, spec) {
        let formal = builder.formal(&formal_name);
        if matches!(
            kinds[index],
            Some(
                FormalKind::ArrayLength
                    | FormalKind::StringLength
                    | FormalKind::ReceiverLength
                    | FormalKind::ReceiverSize
            )
        ) {
            preconditions.push(Cond::Ge(Expr::var(formal)));
        }
        by_param[index] = Some(formal);
    }
    if !preconditions.is_empty() {
        builder.procedure.precondition = Cond::And(preconditions);
    }
    for (index, allocation) in spec.allocations.iter().enumerate() {
        let counter = builder.local(&format!("alloc{index}"));
        let mut guards = counted(counter, allocation.count.as_ref(), &by_param);
        if let Some(when) = &allocation.when {
            guards.push(condition(when, &by_param));
        }
        let mut lengths = Vec::new();
        let mut actions = vec![Action::Havoc(counter)];
        // An array has its length column even when the spec does not bound it: unbounded, it
        // makes the bytes ∞ rather than leaving them out.
        if matches!(allocation.ty, Type::Array(_)) {
            let column = builder.local(&format!("alloc{index}_length"));
            actions.push(Action::Havoc(column));
            guards.push(Cond::Ge(Expr::var(column)));
            if let Some(length) = &allocation.length {
                let (terms, constant, factor) = length.integer_form(by_param.len());
                // factor * column = the scaled expression.
                guards.push(Cond::Eq(
                    scaled(&terms, &constant, &by_param).minus(&Expr::term(column, factor)),
                ));
            }
            lengths.push(column);
        }
        let at = builder.reach(actions, guards);
        builder.points.push(LocalPoint {
            key: PointKey::At(MethodSpec::allocation_pc(index)),
            node: at,
            inductive: vec![counter],
            lengths,
        });
    }
    for (index, call) in spec.calls.iter().enumerate() {
        let pc = spec.call_pc(index);
        // Each callee's counter and arguments have names of their own: a call dispatched to
        // several classes (an interface spec's) is one point per callee.
        for (target, callee) in callees.iter().filter(|c| c.pc == pc).enumerate() {
            let name = format!("call{index}_{target}");
            let counter = builder.local(&name);
            let guards = counted(counter, call.times.as_ref(), &by_param);
            let arg_vars: Vec<VarId> = (0..callee.formals)
                .map(|k| builder.local(&format!("{name}_arg{k}")))
                .collect();
            // The arguments are unknown: set before the point, so the call follows it at once
            // (a call's point is the node its call edge leaves).
            let actions = std::iter::once(counter)
                .chain(arg_vars.iter().copied())
                .map(Action::Havoc)
                .collect();
            let at = builder.reach(actions, guards);
            builder.points.push(LocalPoint {
                key: PointKey::Call(pc, callee.procedure),
                node: at,
                inductive: vec![counter],
                lengths: Vec::new(),
            });
            let args: Vec<Expr> = arg_vars.into_iter().map(Expr::var).collect();
            let done = builder.step(
                at,
                Action::Call {
                    callee: callee.procedure,
                    args,
                    results: Vec::new(),
                },
            );
            builder.edge(done, builder.procedure.exit, Action::Skip);
        }
    }
    let entry = builder.procedure.entry;
    let exit = builder.procedure.exit;
    builder.edge(entry, exit, Action::Skip);
    LoweredBody {
        procedure: builder.procedure,
        points: builder.points,
        element_calls: Vec::new(),
    }
}

/// `1 <= counter <= bound`, or only `1 <= counter` without a bound.
fn counted(counter: VarId, bound: Option<&SpecExpr>, by_param: &[Option<VarId>]) -> Vec<Cond> {
    let mut guards = vec![Cond::Ge(Expr::var(counter) - 1)];
    if let Some(bound) = bound {
        let (terms, constant, factor) = bound.integer_form(by_param.len());
        guards.push(Cond::Ge(
            scaled(&terms, &constant, by_param).minus(&Expr::term(counter, factor)),
        ));
    }
    guards
}

/// The spec's condition over the formals: one part per alternative (the domain keeps a
/// disjunction's parts apart, so an allocation outside a cache's range counts exactly).
fn condition(when: &SpecCondition, by_param: &[Option<VarId>]) -> Cond {
    let alternatives = when
        .integer_alternatives(by_param.len())
        .into_iter()
        .map(|constraints| {
            Cond::And(
                constraints
                    .into_iter()
                    .map(|(terms, constant, relation)| {
                        let expr = scaled(&terms, &constant, by_param);
                        match relation {
                            Relation::Eq => Cond::Eq(expr),
                            Relation::Ge => Cond::Ge(expr),
                        }
                    })
                    .collect(),
            )
        })
        .collect();
    Cond::Or(alternatives)
}

/// The integer-scaled expression over the formals (terms of parameters without a formal were
/// rejected when the spec was read).
fn scaled(terms: &[Int], constant: &Int, by_param: &[Option<VarId>]) -> Expr {
    let mut expr = Expr::constant(constant.clone());
    for (term, formal) in terms.iter().zip(by_param) {
        if let Some(formal) = formal {
            expr.add_term(*formal, term.clone());
        }
    }
    expr
}

/// A procedure under construction.
struct SpecProcedure {
    procedure: Procedure,
    points: Vec<LocalPoint>,
}

impl SpecProcedure {
    fn new(name: &str) -> SpecProcedure {
        SpecProcedure {
            procedure: Procedure::with_entry_and_exit(name),
            points: Vec::new(),
        }
    }

    fn var(&mut self, name: &str, kind: VarKind) -> VarId {
        self.procedure.vars.push(Variable {
            name: name.to_string(),
            kind,
        });
        VarId(self.procedure.vars.len() - 1)
    }

    fn formal(&mut self, name: &str) -> VarId {
        let formal = self.var(name, VarKind::Formal);
        let index = self.procedure.formals.len();
        self.procedure.formals.push(formal);
        let snapshot = self.var(&format!("{name}_init"), VarKind::Snapshot(index));
        self.procedure.snapshots.push(snapshot);
        formal
    }

    fn local(&mut self, name: &str) -> VarId {
        self.var(name, VarKind::Local)
    }

    fn edge(&mut self, from: NodeId, to: NodeId, action: Action) {
        self.procedure.edges.push(Edge { from, to, action });
    }

    fn step(&mut self, from: NodeId, action: Action) -> NodeId {
        self.procedure.node_count += 1;
        let next = NodeId(self.procedure.node_count - 1);
        self.edge(from, next, action);
        next
    }

    /// A new point reached from the entry through `actions` then `guards`, which leaves for the
    /// exit.
    fn reach(&mut self, actions: Vec<Action>, guards: Vec<Cond>) -> NodeId {
        let mut node = self.procedure.entry;
        for action in actions {
            node = self.step(node, action);
        }
        for guard in guards {
            node = self.step(node, Action::Assume(guard));
        }
        let exit = self.procedure.exit;
        self.edge(node, exit, Action::Skip);
        node
    }
}

//! The fixpoint engine: per procedure, Bourdoncle's recursive iteration strategy over the weak
//! topological order, with delayed widening (with thresholds) at component heads and a few
//! descending rounds afterwards.
//!
//! Each procedure is analysed once, from an entry state that only says `x = x_init` for its
//! formals (plus its declared precondition), so its invariants hold for every caller. A call
//! changes only the caller's result variables: to what the callee's [`Summary`] relates them
//! to the arguments, or to anything when the callee has no summary yet (a recursive cycle).
//!
//! A step budget bounds the work: past it the engine widens at once and stops narrowing (still a
//! post-fixpoint, only coarser); past four times the budget it gives up and answers "any state"
//! at every reachable node; so does a procedure still being analysed at the caller's deadline.
//! Both are reported as [`Loss`]es.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use membound_polyhedra::{Affine, Constraint, Rat};

use crate::domain::{Conjunct, Value, affine_of, partition_classes};
use crate::liveness::dead_variables;
use crate::program::{Action, Cond, Expr, Procedure};
use crate::summary::Summary;
use crate::wto::{WtoElement, weak_topological_order};

/// Expressions partitioning the joins at once, at most (each doubles the parts kept there).
const MAX_PARTITION: usize = 4;

/// Of them, the procedure's own sign splits ([`Procedure::sign_splits`]) at most; the rest is
/// for the disequalities of the loops being stabilized.
const MAX_SIGN_SPLITS: usize = 2;

/// Tuning of the engine.
#[derive(Clone, Debug)]
pub struct Options {
    /// Joins at a loop head before widening starts.
    pub widening_delay: usize,
    /// Descending rounds after a loop head is stable.
    pub narrowing_rounds: usize,
    /// Edge transfers per procedure before the engine coarsens (and, at 4×, gives up).
    pub budget: usize,
    /// When the caller's time is up: from then on every procedure gives up at its next edge
    /// transfer.
    pub deadline: Option<Instant>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            widening_delay: 2,
            narrowing_rounds: 2,
            budget: 20_000,
            deadline: None,
        }
    }
}

impl Options {
    /// Whether the deadline has passed.
    pub fn out_of_time(&self) -> bool {
        self.deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
    }
}

/// Precision given up to stay within the budget.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Loss {
    /// Widening was applied without delay and without narrowing from some point on.
    Coarsened { procedure: String },
    /// The analysis stopped; every reachable node of the procedure got "any state".
    GaveUp { procedure: String, limit: Limit },
}

/// What made a procedure's analysis stop.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Limit {
    /// This many edge transfers ([`Options::budget`] × 4).
    Transfers(usize),
    /// [`Options::deadline`].
    Deadline,
}

impl Loss {
    /// Why the invariants of a procedure that gave up are unknown, for reports.
    pub fn gave_up_reason(&self) -> Option<String> {
        match self {
            Loss::GaveUp {
                limit: Limit::Transfers(transfers),
                ..
            } => Some(format!(
                "the invariant fixpoint stopped at its budget of {transfers} edge transfers"
            )),
            Loss::GaveUp {
                limit: Limit::Deadline,
                ..
            } => Some("the analysis reached its time limit in the invariant fixpoint".to_string()),
            Loss::Coarsened { .. } => None,
        }
    }
}

/// Counters for reports and benchmarks.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct Stats {
    pub transfers: usize,
    pub widenings: usize,
    /// Widenings whose result was strictly larger than the join it extrapolated.
    pub extrapolating_widenings: usize,
    pub narrowing_rounds: usize,
}

/// The invariant at every node of one procedure (bottom at unreachable nodes).
#[derive(Clone, Debug)]
pub struct ProcedureResult {
    /// Per node, its value; of a procedure that gave up, bottom everywhere: read them through
    /// [`ProcedureResult::any_state`] first.
    pub(crate) values: Vec<Value>,
    /// Of a procedure that gave up, the nodes it may reach, where any state is possible. Their
    /// values are not kept as universes: one per node costs dim² big integers, gigabytes over a
    /// large procedure's nodes.
    any_state: Vec<bool>,
    pub losses: Vec<Loss>,
    pub stats: Stats,
}

impl ProcedureResult {
    /// Whether the procedure's analysis stopped (its reachable nodes are "any state").
    pub fn gave_up(&self) -> bool {
        self.losses
            .iter()
            .any(|loss| matches!(loss, Loss::GaveUp { .. }))
    }

    /// Whether any state is possible at `node` (the procedure gave up and may reach it).
    pub fn any_state(&self, node: usize) -> bool {
        self.any_state.get(node).copied().unwrap_or(false)
    }

    /// Stops a procedure whose fixpoint is done when the deadline has passed before its
    /// invariants are read off (projections that may take long): as if its fixpoint had given
    /// up at the deadline, every node it reaches "any state".
    pub fn stop_at_deadline(&mut self, procedure: &Procedure) {
        if self.gave_up() {
            return;
        }
        let reached: Vec<bool> = self.values.iter().map(|v| !v.is_bottom()).collect();
        self.give_up(&reached, procedure.vars.len());
        self.losses.push(Loss::GaveUp {
            procedure: procedure.name.clone(),
            limit: Limit::Deadline,
        });
    }

    /// Any state at the nodes `reached`, no value kept.
    fn give_up(&mut self, reached: &[bool], dim: usize) {
        self.any_state = reached.to_vec();
        self.values = vec![Value::bottom(dim); reached.len()];
    }
}

/// Analyses `procedure`; `summaries[p]` is what a call to procedure `p` may use, and the
/// invariants at the nodes `observed` are asked for (every variable counts there).
pub fn analyze_procedure(
    procedure: &Procedure,
    options: &Options,
    summaries: &[Option<Summary>],
    observed: &[usize],
) -> ProcedureResult {
    let mut engine = Engine::new(procedure, options, summaries, observed);
    let successors = successor_lists(procedure);
    let order = weak_topological_order(&successors, procedure.entry.0);
    engine.run(&order);
    let mut result = ProcedureResult {
        values: engine.values,
        any_state: Vec::new(),
        losses: engine.losses,
        stats: engine.stats,
    };
    if engine.gave_up {
        let mut reached = vec![false; procedure.node_count];
        for node in order.iter().flat_map(WtoElement::nodes) {
            reached[node] = true;
        }
        result.give_up(&reached, engine.dim);
    }
    result
}

fn successor_lists(procedure: &Procedure) -> Vec<Vec<usize>> {
    let mut successors = vec![Vec::new(); procedure.node_count];
    for edge in &procedure.edges {
        successors[edge.from.0].push(edge.to.0);
    }
    successors
}

/// The states at entry: formals equal their snapshots, and the precondition holds.
pub fn entry_value(procedure: &Procedure) -> Value {
    let mut part = Some(Conjunct::universe(procedure.vars.len()));
    for (formal, snapshot) in procedure.formals.iter().zip(&procedure.snapshots) {
        part = part.and_then(|p| p.meet_zero(&(*formal - *snapshot)));
    }
    match part {
        Some(part) => Value::from_part(part).assume(&procedure.precondition),
        None => Value::bottom(procedure.vars.len()),
    }
}

struct Engine<'a> {
    procedure: &'a Procedure,
    options: &'a Options,
    summaries: &'a [Option<Summary>],
    dim: usize,
    /// Indices of the edges entering each node.
    incoming: Vec<Vec<usize>>,
    /// Per join node, the variables no later edge reads: forgotten there, so that how a
    /// polyhedron happens to be written through them cannot cost a widening a bound.
    dead: Vec<Vec<usize>>,
    entry: Value,
    values: Vec<Value>,
    losses: Vec<Loss>,
    stats: Stats,
    coarse: bool,
    gave_up: bool,
    /// The procedure's sign splits and the disequalities of the enclosing loops: joins keep one
    /// part per class of their signs, so `i != k` with `i` counting up keeps `i <= k` on one
    /// side (see [`Engine::disequalities`]).
    partition: Vec<Expr>,
}

impl<'a> Engine<'a> {
    fn new(
        procedure: &'a Procedure,
        options: &'a Options,
        summaries: &'a [Option<Summary>],
        observed: &[usize],
    ) -> Engine<'a> {
        let dim = procedure.vars.len();
        let mut incoming = vec![Vec::new(); procedure.node_count];
        for (index, edge) in procedure.edges.iter().enumerate() {
            incoming[edge.to.0].push(index);
        }
        Engine {
            procedure,
            options,
            summaries,
            dim,
            incoming,
            dead: dead_variables(procedure, observed),
            entry: entry_value(procedure),
            values: vec![Value::bottom(dim); procedure.node_count],
            losses: Vec::new(),
            stats: Stats::default(),
            coarse: false,
            gave_up: false,
            partition: procedure
                .sign_splits
                .iter()
                .take(MAX_SIGN_SPLITS)
                .cloned()
                .collect(),
        }
    }

    fn run(&mut self, elements: &[WtoElement]) {
        for element in elements {
            if self.gave_up {
                return;
            }
            match element {
                WtoElement::Vertex(node) => self.values[*node] = self.incoming_value(*node),
                WtoElement::Component { head, body } => self.stabilize(*head, body),
            }
        }
    }

    /// Ascending iterations with delayed widening at `head`, then descending rounds.
    fn stabilize(&mut self, head: usize, body: &[WtoElement]) {
        let thresholds = self.thresholds(head, body);
        let enclosing = self.partition.len();
        for disequality in self.disequalities(head, body) {
            if self.partition.len() < MAX_PARTITION {
                self.partition.push(disequality);
            }
        }
        self.values[head] = Value::bottom(self.dim);
        for iteration in 0.. {
            let new = self.incoming_value(head);
            if self.gave_up {
                break;
            }
            let new = new.partitioned(&self.partition);
            let old = self.values[head].clone();
            if iteration > 0 && old.includes(&new) {
                break;
            }
            let joined = old.clone().union(new).partitioned(&self.partition);
            let delayed = iteration < self.options.widening_delay && !self.coarse;
            self.values[head] = if delayed || old.is_bottom() {
                joined
            } else {
                self.widen(&old, &joined, &thresholds)
            };
            self.run(body);
            if self.gave_up {
                break;
            }
        }
        if !self.coarse && !self.gave_up {
            self.narrow(head, body);
        }
        self.partition.truncate(enclosing);
    }

    /// Widens class by class of the partition, each result kept inside its class.
    fn widen(&mut self, old: &Value, joined: &Value, thresholds: &[Constraint]) -> Value {
        self.stats.widenings += 1;
        let mut parts = Vec::new();
        for class in partition_classes(&self.partition) {
            let Some(newer) = joined.class_part(&class) else {
                continue;
            };
            let widened = match old.class_part(&class) {
                Some(before) => before
                    .widen(&newer, thresholds)
                    .meet_all_nonnegative(&class)
                    .unwrap_or_else(|| newer.clone()),
                None => newer.clone(),
            };
            if !newer.includes(&widened) {
                self.stats.extrapolating_widenings += 1;
            }
            parts.push(widened);
        }
        Value {
            dim: self.dim,
            parts,
        }
    }

    /// Descending rounds: recompute the head from its (stable) predecessors; keep the smaller
    /// result only if the component stays a post-fixpoint with it, else restore.
    fn narrow(&mut self, head: usize, body: &[WtoElement]) {
        let nodes: Vec<usize> = std::iter::once(head)
            .chain(body.iter().flat_map(WtoElement::nodes))
            .collect();
        for _ in 0..self.options.narrowing_rounds {
            let new = self.incoming_value(head).partitioned(&self.partition);
            if new.includes(&self.values[head]) {
                return;
            }
            self.stats.narrowing_rounds += 1;
            let saved: Vec<Value> = nodes.iter().map(|&n| self.values[n].clone()).collect();
            self.values[head] = new;
            self.run(body);
            let check = self.incoming_value(head).partitioned(&self.partition);
            if self.gave_up || !self.values[head].includes(&check) {
                for (&node, value) in nodes.iter().zip(saved) {
                    self.values[node] = value;
                }
                return;
            }
        }
    }

    /// Union of the transfers along the incoming edges, merged into one part per class of the
    /// partition at join points.
    fn incoming_value(&mut self, node: usize) -> Value {
        let mut value = if node == self.procedure.entry.0 {
            self.entry.clone()
        } else {
            Value::bottom(self.dim)
        };
        let mut sources = usize::from(node == self.procedure.entry.0);
        for index in self.incoming[node].clone() {
            let edge = &self.procedure.edges[index];
            let from = &self.values[edge.from.0];
            if from.is_bottom() {
                continue;
            }
            let transferred = transfer(&edge.action, from, self.summaries);
            self.charge();
            if self.gave_up {
                // Every node becomes "any state": joining the rest would only take time.
                return value;
            }
            sources += 1;
            value = value.union(transferred);
        }
        if self.incoming[node].len() > 1 {
            let dead = &self.dead[node];
            value = value.map_parts(|p| p.havoc_all(dead));
        }
        if sources > 1 {
            value.partitioned(&self.partition)
        } else {
            value
        }
    }

    fn charge(&mut self) {
        self.stats.transfers += 1;
        let name = self.procedure.name.clone();
        if !self.coarse && self.stats.transfers > self.options.budget {
            self.coarse = true;
            self.losses.push(Loss::Coarsened {
                procedure: name.clone(),
            });
        }
        let transfers = self.options.budget.saturating_mul(4);
        let limit = if self.stats.transfers > transfers {
            Some(Limit::Transfers(transfers))
        } else if self.options.out_of_time() {
            Some(Limit::Deadline)
        } else {
            None
        };
        if let Some(limit) = limit.filter(|_| !self.gave_up) {
            self.gave_up = true;
            self.losses.push(Loss::GaveUp {
                procedure: name,
                limit,
            });
        }
    }

    /// Widening thresholds for a loop: the loop's guards, also shifted by one step of each
    /// counter the loop increments by a constant (so `i < n` with `i += 3` offers `i <= n + 2`,
    /// the bound that holds at the head).
    fn thresholds(&self, head: usize, body: &[WtoElement]) -> Vec<Constraint> {
        let mut atoms = Vec::new();
        let mut steps = Vec::new();
        for action in self.component_actions(head, body) {
            match action {
                Action::Assume(cond) => collect_atoms(cond, &mut atoms),
                Action::Assign { var, expr } => steps.extend(constant_step(*var, expr)),
                _ => {}
            }
        }
        let mut thresholds: Vec<Constraint> = Vec::new();
        for atom in &atoms {
            let shifted = steps
                .iter()
                .map(|(var, step)| atom.add(&Affine::constant(-atom.coeff(*var) * step)));
            for form in std::iter::once(atom.clone()).chain(shifted) {
                let constraint = Constraint::ge(form).normalized_for_integers();
                if !thresholds.contains(&constraint) {
                    thresholds.push(constraint);
                }
            }
        }
        thresholds
    }
}

impl Engine<'_> {
    /// The actions of the edges leaving the component's nodes.
    fn component_actions(&self, head: usize, body: &[WtoElement]) -> Vec<&'_ Action> {
        let nodes: BTreeSet<usize> = std::iter::once(head)
            .chain(body.iter().flat_map(WtoElement::nodes))
            .collect();
        self.procedure
            .edges
            .iter()
            .filter(|e| nodes.contains(&e.from.0))
            .map(|e| &e.action)
            .collect()
    }

    /// The loop's `a != b` and `a == b` guards that compare a variable the loop steps by a
    /// constant (new ones only), each as `e` with the variable's side of `e <= 0` the one it
    /// comes from. Such a variable crosses the other side one step at a time, so keeping
    /// `e <= 0` apart from `e >= 1` lets `i != k` mean `i < k` for `i` counting up from below
    /// `k` (`for (…; i != k; i++)`, `if (i == k) break;`), and `i > k` for `i` counting down,
    /// which one convex part loses.
    fn disequalities(&self, head: usize, body: &[WtoElement]) -> Vec<Expr> {
        let actions = self.component_actions(head, body);
        let steps: BTreeMap<usize, Rat> = actions
            .iter()
            .filter_map(|action| match action {
                Action::Assign { var, expr } => constant_step(*var, expr),
                _ => None,
            })
            .collect();
        let mut found: Vec<Expr> = Vec::new();
        for action in actions {
            let Action::Assume(cond) = action else {
                continue;
            };
            let mut atoms = Vec::new();
            equality_atoms(cond, &mut atoms);
            for atom in atoms {
                let Some(atom) = oriented_by_step(atom, &steps) else {
                    continue;
                };
                let known = |e: &Expr| *e == atom || *e == atom.negated();
                if !found.iter().chain(&self.partition).any(known) {
                    found.push(atom);
                }
            }
        }
        found
    }
}

/// `atom` or its negation, whichever grows with the first variable of `atom` that `steps` steps
/// (so that variable starts on the side `<= 0`); `None` when it has none.
fn oriented_by_step(atom: Expr, steps: &BTreeMap<usize, Rat>) -> Option<Expr> {
    let (var, step) = atom
        .vars()
        .find_map(|v| steps.get(&v.0).map(|step| (v, step)))?;
    let shrinking = (Rat::from(atom.coeff(var)) * step.clone()).is_negative();
    Some(if shrinking { atom.negated() } else { atom })
}

/// The expressions `e` of a guard's `e = 0` and `e != 0` atoms.
fn equality_atoms(cond: &Cond, atoms: &mut Vec<Expr>) {
    match cond {
        Cond::Eq(e) | Cond::Ne(e) => atoms.push(e.clone()),
        Cond::Not(inner) => equality_atoms(inner, atoms),
        Cond::And(parts) | Cond::Or(parts) => parts.iter().for_each(|p| equality_atoms(p, atoms)),
        Cond::True | Cond::False | Cond::Ge(_) | Cond::Mod { .. } => {}
    }
}

/// `var := var + step` gives `(var, step)`.
fn constant_step(var: crate::program::VarId, expr: &Expr) -> Option<(usize, Rat)> {
    let only_itself = expr.terms.len() == 1 && expr.coeff(var) == membound_polyhedra::Int::from(1);
    only_itself.then(|| (var.0, Rat::from(expr.constant.clone())))
}

/// The linear atoms of a guard as `e >= 0` forms, in both polarities.
fn collect_atoms(cond: &Cond, atoms: &mut Vec<Affine>) {
    match cond {
        Cond::Ge(e) => {
            atoms.push(affine_of(e));
            atoms.push(affine_of(&(e.negated() - 1)));
        }
        Cond::Eq(e) | Cond::Ne(e) => {
            atoms.push(affine_of(e));
            atoms.push(affine_of(&e.negated()));
        }
        Cond::Not(inner) => collect_atoms(inner, atoms),
        Cond::And(parts) | Cond::Or(parts) => parts.iter().for_each(|p| collect_atoms(p, atoms)),
        Cond::True | Cond::False | Cond::Mod { .. } => {}
    }
}

/// The abstract effect of one edge; a call uses its callee's summary when there is one.
pub fn transfer(action: &Action, value: &Value, summaries: &[Option<Summary>]) -> Value {
    match action {
        Action::Skip => value.clone(),
        Action::Assign { var, expr } => value.map_parts(|p| p.assign(var.0, expr)),
        Action::Havoc(var) => value.map_parts(|p| p.havoc(var.0)),
        Action::Assume(cond) => value.assume(cond),
        // A call that returns nothing keeps the caller's state, unless its callee never
        // returns normally (it ends the program on every path): nothing follows then.
        Action::Call {
            callee, results, ..
        } if results.is_empty() => {
            let never_returns = summaries
                .get(callee.0)
                .and_then(Option::as_ref)
                .is_some_and(Summary::never_returns);
            if never_returns {
                Value::bottom(value.dim)
            } else {
                value.clone()
            }
        }
        Action::Call {
            callee,
            args,
            results,
        } => summaries
            .get(callee.0)
            .and_then(Option::as_ref)
            .and_then(|summary| summary.apply(value, args, results))
            .unwrap_or_else(|| {
                value.map_parts(|p| results.iter().fold(p.clone(), |acc, r| acc.havoc(r.0)))
            }),
    }
}

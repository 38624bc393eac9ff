//! The numeric program form: procedures as control-flow graphs over integer variables, with
//! actions on the edges (affine assignment, havoc, guard, call) and requested points on nodes.
//!
//! Every procedure has its own variables. Each formal `x` comes with a snapshot `x_init` that
//! holds the value `x` had at entry and is never assigned; invariants are expressed over a
//! procedure's variables with the snapshots as parameters, so they hold for every caller.
//! `mod` is Euclidean (`-1 mod 3 = 2`); a lowering from a language with truncating `%` must
//! translate non-zero residues itself.

use std::collections::BTreeMap;

use membound_polyhedra::Int;
use num_traits::{Signed, Zero};

/// A variable of one procedure (an index into [`Procedure::vars`]).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct VarId(pub usize);

/// A procedure of a program (an index into [`Program::procedures`]).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct ProcId(pub usize);

/// A control-flow node of one procedure.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct NodeId(pub usize);

/// A point at which an invariant is requested (an index into [`Program::points`]).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct PointId(pub usize);

/// An affine expression with integer coefficients: `Σ coeff·var + constant`.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Expr {
    /// Non-zero coefficients only.
    pub terms: BTreeMap<VarId, Int>,
    pub constant: Int,
}

impl Expr {
    pub fn constant(value: impl Into<Int>) -> Expr {
        Expr {
            terms: BTreeMap::new(),
            constant: value.into(),
        }
    }
    pub fn var(var: VarId) -> Expr {
        Expr::term(var, 1)
    }
    /// `coeff · var`.
    pub fn term(var: VarId, coeff: impl Into<Int>) -> Expr {
        let mut expr = Expr::default();
        expr.add_term(var, coeff.into());
        expr
    }
    pub fn coeff(&self, var: VarId) -> Int {
        self.terms.get(&var).cloned().unwrap_or_default()
    }
    pub fn add_term(&mut self, var: VarId, coeff: Int) {
        let sum = self.coeff(var) + coeff;
        if sum.is_zero() {
            self.terms.remove(&var);
        } else {
            self.terms.insert(var, sum);
        }
    }
    pub fn plus(&self, other: &Expr) -> Expr {
        let mut sum = self.clone();
        for (var, coeff) in &other.terms {
            sum.add_term(*var, coeff.clone());
        }
        sum.constant += &other.constant;
        sum
    }
    pub fn scaled(&self, factor: &Int) -> Expr {
        let mut scaled = Expr::constant(&self.constant * factor);
        for (var, coeff) in &self.terms {
            scaled.add_term(*var, coeff * factor);
        }
        scaled
    }
    pub fn minus(&self, other: &Expr) -> Expr {
        self.plus(&other.scaled(&Int::from(-1)))
    }
    pub fn negated(&self) -> Expr {
        self.scaled(&Int::from(-1))
    }
    pub fn vars(&self) -> impl Iterator<Item = VarId> + '_ {
        self.terms.keys().copied()
    }
    /// The value under `valuation` (indexed by variable).
    pub fn eval(&self, valuation: &[Int]) -> Int {
        let linear: Int = self
            .terms
            .iter()
            .map(|(var, coeff)| coeff * &valuation[var.0])
            .sum();
        linear + &self.constant
    }
}

impl From<VarId> for Expr {
    fn from(var: VarId) -> Expr {
        Expr::var(var)
    }
}
impl From<i64> for Expr {
    fn from(value: i64) -> Expr {
        Expr::constant(value)
    }
}

impl<T: Into<Expr>> std::ops::Add<T> for Expr {
    type Output = Expr;
    fn add(self, rhs: T) -> Expr {
        self.plus(&rhs.into())
    }
}
impl<T: Into<Expr>> std::ops::Sub<T> for Expr {
    type Output = Expr;
    fn sub(self, rhs: T) -> Expr {
        self.minus(&rhs.into())
    }
}
impl std::ops::Mul<i64> for Expr {
    type Output = Expr;
    fn mul(self, rhs: i64) -> Expr {
        self.scaled(&Int::from(rhs))
    }
}
impl<T: Into<Expr>> std::ops::Add<T> for VarId {
    type Output = Expr;
    fn add(self, rhs: T) -> Expr {
        Expr::var(self).plus(&rhs.into())
    }
}
impl<T: Into<Expr>> std::ops::Sub<T> for VarId {
    type Output = Expr;
    fn sub(self, rhs: T) -> Expr {
        Expr::var(self).minus(&rhs.into())
    }
}
impl std::ops::Mul<i64> for VarId {
    type Output = Expr;
    fn mul(self, rhs: i64) -> Expr {
        Expr::term(self, rhs)
    }
}

/// A guard. Comparisons are kept as `expr >= 0`, `expr = 0`, `expr != 0`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Cond {
    True,
    False,
    /// `expr >= 0`
    Ge(Expr),
    /// `expr = 0`
    Eq(Expr),
    /// `expr != 0`
    Ne(Expr),
    /// `expr mod modulus = residue` with `modulus >= 1` and `0 <= residue < modulus`.
    Mod {
        expr: Expr,
        modulus: Int,
        residue: Int,
    },
    Not(Box<Cond>),
    And(Vec<Cond>),
    Or(Vec<Cond>),
}

impl Cond {
    pub fn holds(&self, valuation: &[Int]) -> bool {
        match self {
            Cond::True => true,
            Cond::False => false,
            Cond::Ge(expr) => !expr.eval(valuation).is_negative(),
            Cond::Eq(expr) => expr.eval(valuation).is_zero(),
            Cond::Ne(expr) => !expr.eval(valuation).is_zero(),
            Cond::Mod {
                expr,
                modulus,
                residue,
            } => num_integer::Integer::mod_floor(&expr.eval(valuation), modulus) == *residue,
            Cond::Not(inner) => !inner.holds(valuation),
            Cond::And(parts) => parts.iter().all(|c| c.holds(valuation)),
            Cond::Or(parts) => parts.iter().any(|c| c.holds(valuation)),
        }
    }
    /// Every expression the guard mentions, for validation and printing.
    pub fn exprs(&self) -> Vec<&Expr> {
        match self {
            Cond::True | Cond::False => Vec::new(),
            Cond::Ge(e) | Cond::Eq(e) | Cond::Ne(e) | Cond::Mod { expr: e, .. } => vec![e],
            Cond::Not(inner) => inner.exprs(),
            Cond::And(parts) | Cond::Or(parts) => parts.iter().flat_map(Cond::exprs).collect(),
        }
    }
}

/// What an edge does.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Action {
    Skip,
    Assign {
        var: VarId,
        expr: Expr,
    },
    /// The variable gets an unknown value.
    Havoc(VarId),
    /// Only states satisfying the guard pass.
    Assume(Cond),
    /// Calls `callee` with its formals bound to `args` (caller expressions); afterwards each
    /// `results[k]` holds the callee's `returns[k]` at its exit.
    Call {
        callee: ProcId,
        args: Vec<Expr>,
        results: Vec<VarId>,
    },
}

impl Action {
    /// `var` gets `expr` when the value is known, an unknown value otherwise.
    pub fn assign_or_havoc(var: VarId, expr: Option<Expr>) -> Action {
        match expr {
            Some(expr) => Action::Assign { var, expr },
            None => Action::Havoc(var),
        }
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Edge {
    pub from: NodeId,
    pub to: NodeId,
    pub action: Action,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum VarKind {
    /// A formal parameter (a mutable local initialised by the caller).
    Formal,
    Local,
    /// The entry value of the formal with this index in [`Procedure::formals`].
    Snapshot(usize),
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Variable {
    pub name: String,
    pub kind: VarKind,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Procedure {
    pub name: String,
    pub vars: Vec<Variable>,
    pub formals: Vec<VarId>,
    /// `snapshots[k]` is the entry value of `formals[k]`.
    pub snapshots: Vec<VarId>,
    /// Callee variables whose values at exit a call stores into its `results`.
    pub returns: Vec<VarId>,
    /// What every caller guarantees at entry, over the formals (e.g. an array length `>= 0`).
    pub precondition: Cond,
    /// Expressions `e` whose sides `e <= 0` and `e >= 1` the fixpoint keeps apart at joins,
    /// where one convex hull would blur what a disjunction says (the sign of a truncated
    /// division's quotient: the dividend's sign chooses the rounding). The first ones only, up
    /// to a cap.
    pub sign_splits: Vec<Expr>,
    pub node_count: usize,
    pub entry: NodeId,
    pub exit: NodeId,
    pub edges: Vec<Edge>,
}

impl Procedure {
    /// A procedure without variables or edges, with its entry (node 0) and exit (node 1).
    pub fn with_entry_and_exit(name: &str) -> Procedure {
        Procedure {
            name: name.to_string(),
            vars: Vec::new(),
            formals: Vec::new(),
            snapshots: Vec::new(),
            returns: Vec::new(),
            precondition: Cond::True,
            sign_splits: Vec::new(),
            node_count: 2,
            entry: NodeId(0),
            exit: NodeId(1),
            edges: Vec::new(),
        }
    }

    pub fn var_name(&self, var: VarId) -> &str {
        &self.vars[var.0].name
    }
    pub fn var_by_name(&self, name: &str) -> Option<VarId> {
        self.vars.iter().position(|v| v.name == name).map(VarId)
    }
    /// Formals and locals: the dimensions of an invariant.
    pub fn visible_vars(&self) -> Vec<VarId> {
        self.var_ids()
            .filter(|v| !matches!(self.vars[v.0].kind, VarKind::Snapshot(_)))
            .collect()
    }
    pub fn var_ids(&self) -> impl Iterator<Item = VarId> + '_ {
        (0..self.vars.len()).map(VarId)
    }
    pub fn outgoing(&self, node: NodeId) -> impl Iterator<Item = &Edge> + '_ {
        self.edges.iter().filter(move |e| e.from == node)
    }
}

/// A node at which an invariant is requested, with the name tests and reports use.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Point {
    pub name: String,
    pub procedure: ProcId,
    pub node: NodeId,
}

#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Program {
    pub procedures: Vec<Procedure>,
    pub points: Vec<Point>,
}

impl Program {
    pub fn procedure(&self, id: ProcId) -> &Procedure {
        &self.procedures[id.0]
    }
    pub fn point(&self, id: PointId) -> &Point {
        &self.points[id.0]
    }
    pub fn point_by_name(&self, name: &str) -> Option<PointId> {
        self.points.iter().position(|p| p.name == name).map(PointId)
    }
    pub fn procedure_by_name(&self, name: &str) -> Option<ProcId> {
        self.procedures
            .iter()
            .position(|p| p.name == name)
            .map(ProcId)
    }
    pub fn point_ids(&self) -> impl Iterator<Item = PointId> + '_ {
        (0..self.points.len()).map(PointId)
    }
}

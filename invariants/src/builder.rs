//! Building programs: declare procedures, then write their bodies with structured statements
//! (`if`, `while`, `for`, `break`, `continue`) that the builder turns into a control-flow graph.
//! [`ProgramBuilder::build`] validates the result, so every program it returns is one the
//! analysis and the interpreter accept.

use membound_polyhedra::Int;
use num_integer::Integer;
use num_traits::{One, Signed};

use crate::program::{
    Action, Cond, Edge, Expr, NodeId, Point, PointId, ProcId, Procedure, Program, VarId, VarKind,
    Variable,
};

/// Why a program was rejected.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum BuildError {
    #[error("procedure {0} is declared but never defined")]
    Undefined(String),
    #[error("in {procedure}: {message}")]
    Invalid { procedure: String, message: String },
}

#[derive(Default)]
pub struct ProgramBuilder {
    procedures: Vec<Procedure>,
    defined: Vec<bool>,
    points: Vec<Point>,
    errors: Vec<BuildError>,
}

impl ProgramBuilder {
    pub fn new() -> ProgramBuilder {
        ProgramBuilder::default()
    }

    /// Declares a procedure with its formals; each formal `x` also gets the snapshot `x_init`.
    pub fn declare(&mut self, name: &str, formals: &[&str]) -> ProcId {
        // The exit is placed when the body is written.
        let mut procedure = Procedure {
            node_count: 1,
            exit: NodeId(0),
            ..Procedure::with_entry_and_exit(name)
        };
        for (index, formal) in formals.iter().enumerate() {
            procedure.formals.push(VarId(procedure.vars.len()));
            procedure.vars.push(Variable {
                name: formal.to_string(),
                kind: VarKind::Formal,
            });
            procedure.snapshots.push(VarId(procedure.vars.len()));
            procedure.vars.push(Variable {
                name: format!("{formal}_init"),
                kind: VarKind::Snapshot(index),
            });
        }
        self.procedures.push(procedure);
        self.defined.push(false);
        ProcId(self.procedures.len() - 1)
    }

    /// Writes the body of a declared procedure.
    pub fn define(&mut self, id: ProcId, body: impl FnOnce(&mut Body)) {
        if self.defined[id.0] {
            let name = self.procedures[id.0].name.clone();
            self.errors.push(invalid(&name, "defined twice"));
            return;
        }
        self.defined[id.0] = true;
        let mut writer = Body {
            procedure: &mut self.procedures[id.0],
            procedure_id: id,
            points: &mut self.points,
            errors: &mut self.errors,
            current: NodeId(0),
            loops: Vec::new(),
        };
        body(&mut writer);
        writer.finish();
    }

    pub fn build(mut self) -> Result<Program, BuildError> {
        if let Some(index) = self.defined.iter().position(|d| !d) {
            return Err(BuildError::Undefined(self.procedures[index].name.clone()));
        }
        if let Some(error) = self.errors.drain(..).next() {
            return Err(error);
        }
        let program = Program {
            procedures: self.procedures,
            points: self.points,
        };
        validate(&program)?;
        Ok(program)
    }
}

fn invalid(procedure: &str, message: impl Into<String>) -> BuildError {
    BuildError::Invalid {
        procedure: procedure.to_string(),
        message: message.into(),
    }
}

/// Where a `break` and a `continue` of the innermost loop go.
struct LoopTargets {
    continue_to: NodeId,
    break_to: NodeId,
}

/// The writer of one procedure body; statements append at the current node.
pub struct Body<'a> {
    procedure: &'a mut Procedure,
    procedure_id: ProcId,
    points: &'a mut Vec<Point>,
    errors: &'a mut Vec<BuildError>,
    current: NodeId,
    loops: Vec<LoopTargets>,
}

impl Body<'_> {
    /// The formal with this position.
    pub fn formal(&self, index: usize) -> VarId {
        self.procedure.formals[index]
    }
    /// The snapshot `x_init` of the formal with this position.
    pub fn snapshot(&self, index: usize) -> VarId {
        self.procedure.snapshots[index]
    }
    /// A new local variable (names must be unique in the procedure).
    pub fn local(&mut self, name: &str) -> VarId {
        if self.procedure.var_by_name(name).is_some() {
            self.error(format!("variable {name} declared twice"));
        }
        self.procedure.vars.push(Variable {
            name: name.to_string(),
            kind: VarKind::Local,
        });
        VarId(self.procedure.vars.len() - 1)
    }
    /// States the callers guarantee at entry (conjoined with earlier requirements).
    pub fn require(&mut self, cond: Cond) {
        let previous = std::mem::replace(&mut self.procedure.precondition, Cond::True);
        self.procedure.precondition = and(vec![previous, cond]);
    }
    /// Keeps `expr <= 0` apart from `expr >= 1` at joins ([`Procedure::sign_splits`]).
    pub fn split_sign(&mut self, expr: impl Into<Expr>) {
        self.procedure.sign_splits.push(expr.into());
    }
    /// The variables whose exit values a call returns to its `results`.
    pub fn returns(&mut self, vars: &[VarId]) {
        self.procedure.returns = vars.to_vec();
    }

    pub fn assign(&mut self, var: VarId, expr: impl Into<Expr>) {
        self.step(Action::Assign {
            var,
            expr: expr.into(),
        });
    }
    pub fn havoc(&mut self, var: VarId) {
        self.step(Action::Havoc(var));
    }
    pub fn assume(&mut self, cond: Cond) {
        self.step(Action::Assume(cond));
    }
    pub fn call(&mut self, callee: ProcId, args: Vec<Expr>, results: Vec<VarId>) {
        self.step(Action::Call {
            callee,
            args,
            results,
        });
    }

    /// Requests the invariant at this point of the body; each visit of the point counts once.
    pub fn point(&mut self, name: &str) -> PointId {
        if self.points.iter().any(|p| p.name == name) {
            self.error(format!("point {name} declared twice"));
        }
        self.step(Action::Skip);
        self.points.push(Point {
            name: name.to_string(),
            procedure: self.procedure_id,
            node: self.current,
        });
        PointId(self.points.len() - 1)
    }

    pub fn if_then(&mut self, cond: Cond, then: impl FnOnce(&mut Self)) {
        self.if_else(cond, then, |_| {});
    }

    pub fn if_else(
        &mut self,
        cond: Cond,
        then: impl FnOnce(&mut Self),
        otherwise: impl FnOnce(&mut Self),
    ) {
        let negated = not(cond.clone());
        self.branches(
            Action::Assume(cond),
            then,
            Action::Assume(negated),
            otherwise,
        );
    }

    /// A branch the analysis cannot see through: either side may run.
    pub fn either(&mut self, left: impl FnOnce(&mut Self), right: impl FnOnce(&mut Self)) {
        self.branches(Action::Skip, left, Action::Skip, right);
    }

    fn branches(
        &mut self,
        left_entry: Action,
        left: impl FnOnce(&mut Self),
        right_entry: Action,
        right: impl FnOnce(&mut Self),
    ) {
        let fork = self.current;
        let join = self.new_node();
        for (entry, side) in [
            (left_entry, Box::new(left) as Box<dyn FnOnce(&mut Self)>),
            (right_entry, Box::new(right)),
        ] {
            self.current = fork;
            self.step(entry);
            side(self);
            self.edge(self.current, join, Action::Skip);
        }
        self.current = join;
    }

    /// `while (cond) body`; `continue` re-tests the condition.
    pub fn while_loop(&mut self, cond: Cond, body: impl FnOnce(&mut Self)) {
        let head = self.new_node();
        self.edge(self.current, head, Action::Skip);
        let exit = self.new_node();
        self.edge(head, exit, Action::Assume(not(cond.clone())));
        self.current = head;
        self.step(Action::Assume(cond));
        self.in_loop(head, exit, body);
        self.edge(self.current, head, Action::Skip);
        self.current = exit;
    }

    /// `for (var = from; cond; var += step) body`; `continue` goes to the increment.
    pub fn for_loop(
        &mut self,
        var: VarId,
        from: impl Into<Expr>,
        cond: Cond,
        step: i64,
        body: impl FnOnce(&mut Self),
    ) {
        self.assign(var, from);
        let head = self.new_node();
        self.edge(self.current, head, Action::Skip);
        let exit = self.new_node();
        let increment = self.new_node();
        self.edge(head, exit, Action::Assume(not(cond.clone())));
        self.current = head;
        self.step(Action::Assume(cond));
        self.in_loop(increment, exit, body);
        self.edge(self.current, increment, Action::Skip);
        self.edge(
            increment,
            head,
            Action::Assign {
                var,
                expr: var + step,
            },
        );
        self.current = exit;
    }

    /// `while (true) body`, left only by `break`.
    pub fn loop_forever(&mut self, body: impl FnOnce(&mut Self)) {
        let head = self.new_node();
        self.edge(self.current, head, Action::Skip);
        let exit = self.new_node();
        self.current = head;
        self.step(Action::Skip);
        self.in_loop(head, exit, body);
        self.edge(self.current, head, Action::Skip);
        self.current = exit;
    }

    pub fn break_loop(&mut self) {
        match self.loops.last() {
            Some(targets) => {
                let target = targets.break_to;
                self.jump(target);
            }
            None => self.error("break outside a loop".to_string()),
        }
    }

    pub fn continue_loop(&mut self) {
        match self.loops.last() {
            Some(targets) => {
                let target = targets.continue_to;
                self.jump(target);
            }
            None => self.error("continue outside a loop".to_string()),
        }
    }

    fn in_loop(&mut self, continue_to: NodeId, break_to: NodeId, body: impl FnOnce(&mut Self)) {
        self.loops.push(LoopTargets {
            continue_to,
            break_to,
        });
        body(self);
        self.loops.pop();
    }

    /// Ends the straight-line code here; what follows is unreachable until a join.
    fn jump(&mut self, target: NodeId) {
        self.edge(self.current, target, Action::Skip);
        self.current = self.new_node();
    }

    fn step(&mut self, action: Action) {
        let next = self.new_node();
        self.edge(self.current, next, action);
        self.current = next;
    }

    fn new_node(&mut self) -> NodeId {
        self.procedure.node_count += 1;
        NodeId(self.procedure.node_count - 1)
    }

    fn edge(&mut self, from: NodeId, to: NodeId, action: Action) {
        self.procedure.edges.push(Edge { from, to, action });
    }

    fn error(&mut self, message: String) {
        self.errors.push(invalid(&self.procedure.name, message));
    }

    fn finish(&mut self) {
        if !self.loops.is_empty() {
            self.error("unterminated loop".to_string());
        }
        let exit = self.new_node();
        self.edge(self.current, exit, Action::Skip);
        self.procedure.exit = exit;
    }
}

fn validate(program: &Program) -> Result<(), BuildError> {
    for procedure in &program.procedures {
        let fail = |message: String| Err(invalid(&procedure.name, message));
        let known = |expr: &Expr| expr.vars().all(|v| v.0 < procedure.vars.len());
        let writable = |var: VarId| {
            var.0 < procedure.vars.len()
                && !matches!(procedure.vars[var.0].kind, VarKind::Snapshot(_))
        };
        if !procedure.returns.iter().all(|v| v.0 < procedure.vars.len()) {
            return fail("a returned variable is not a variable of the procedure".to_string());
        }
        if let Err(message) = validate_cond(&procedure.precondition, &known) {
            return fail(message);
        }
        for edge in &procedure.edges {
            let problem = match &edge.action {
                Action::Skip => None,
                Action::Assign { var, expr } => (!writable(*var) || !known(expr))
                    .then(|| "an assignment to a snapshot or unknown variable".to_string()),
                Action::Havoc(var) => (!writable(*var))
                    .then(|| "a havoc of a snapshot or unknown variable".to_string()),
                Action::Assume(cond) => validate_cond(cond, &known).err(),
                Action::Call {
                    callee,
                    args,
                    results,
                } => validate_call(program, *callee, args, results, &known, &writable),
            };
            if let Some(message) = problem {
                return fail(message);
            }
        }
    }
    Ok(())
}

fn validate_call(
    program: &Program,
    callee: ProcId,
    args: &[Expr],
    results: &[VarId],
    known: &dyn Fn(&Expr) -> bool,
    writable: &dyn Fn(VarId) -> bool,
) -> Option<String> {
    let Some(target) = program.procedures.get(callee.0) else {
        return Some("a call to an unknown procedure".to_string());
    };
    if args.len() != target.formals.len() || results.len() != target.returns.len() {
        return Some(format!(
            "a call to {} with the wrong number of arguments or results",
            target.name
        ));
    }
    if !args.iter().all(known) || !results.iter().all(|&r| writable(r)) {
        return Some(format!(
            "a call to {} with an unknown variable or a snapshot result",
            target.name
        ));
    }
    None
}

fn validate_cond(cond: &Cond, known: &dyn Fn(&Expr) -> bool) -> Result<(), String> {
    if !cond.exprs().into_iter().all(known) {
        return Err("a guard mentions an unknown variable".to_string());
    }
    if !moduli_are_valid(cond) {
        return Err("a mod guard needs a modulus >= 1 and a residue in [0, modulus)".to_string());
    }
    Ok(())
}

fn moduli_are_valid(cond: &Cond) -> bool {
    match cond {
        Cond::Mod {
            modulus, residue, ..
        } => modulus.is_positive() && !residue.is_negative() && residue < modulus,
        Cond::Not(inner) => moduli_are_valid(inner),
        Cond::And(parts) | Cond::Or(parts) => parts.iter().all(moduli_are_valid),
        _ => true,
    }
}

/// `a < b`
pub fn lt(a: impl Into<Expr>, b: impl Into<Expr>) -> Cond {
    Cond::Ge(b.into().minus(&a.into()) - 1)
}
/// `a <= b`
pub fn le(a: impl Into<Expr>, b: impl Into<Expr>) -> Cond {
    Cond::Ge(b.into().minus(&a.into()))
}
/// `a > b`
pub fn gt(a: impl Into<Expr>, b: impl Into<Expr>) -> Cond {
    lt(b, a)
}
/// `a >= b`
pub fn ge(a: impl Into<Expr>, b: impl Into<Expr>) -> Cond {
    le(b, a)
}
/// `a == b`
pub fn eq(a: impl Into<Expr>, b: impl Into<Expr>) -> Cond {
    Cond::Eq(a.into().minus(&b.into()))
}
/// `a != b`
pub fn ne(a: impl Into<Expr>, b: impl Into<Expr>) -> Cond {
    Cond::Ne(a.into().minus(&b.into()))
}
/// `expr mod modulus == residue` (Euclidean; the residue is reduced into `[0, modulus)`). A
/// modulus below 1 is kept as given and rejected by [`ProgramBuilder::build`].
pub fn modulo(expr: impl Into<Expr>, modulus: i64, residue: i64) -> Cond {
    let modulus = Int::from(modulus);
    let residue = if modulus >= Int::one() {
        Int::from(residue).mod_floor(&modulus)
    } else {
        Int::from(residue)
    };
    Cond::Mod {
        expr: expr.into(),
        modulus,
        residue,
    }
}
pub fn and(parts: Vec<Cond>) -> Cond {
    Cond::And(parts)
}
pub fn or(parts: Vec<Cond>) -> Cond {
    Cond::Or(parts)
}
pub fn not(cond: Cond) -> Cond {
    Cond::Not(Box::new(cond))
}

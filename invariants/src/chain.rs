//! Call chains: the conjunction of local invariants frame by frame, each callee's snapshots
//! bound to the caller's actual arguments (`n_init = i`), as the thesis's invariant
//! globaliser does. The callee's columns are renamed `<call point>__<name>` (an isl identifier) so frames never
//! clash; the entry procedure's snapshots stay the parameters.

use membound_polyhedra::{Constraint, Int, Polyhedron};

use crate::analysis::Analysis;
use crate::domain::{Conjunct, Value};
use crate::invariant::Invariant;
use crate::program::{Action, Expr, PointId, Program, VarId};

#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ChainError {
    #[error("point {0} is not followed by a call")]
    NotACall(String),
    #[error("point {point} is not in the procedure called at {call}")]
    WrongProcedure { call: String, point: String },
}

/// The invariant of the chain that enters through the calls at `calls` (the first in the
/// entry procedure, each next one in the procedure the previous one calls) and ends at
/// `target`.
pub fn chain_invariant(
    program: &Program,
    analysis: &Analysis,
    calls: &[PointId],
    target: PointId,
) -> Result<Invariant, ChainError> {
    let Some((&first, _)) = calls.split_first() else {
        return Ok(analysis.invariant(target).clone());
    };
    let mut chain = analysis.invariant(first).clone();
    let mut caller_prefix = String::new();
    let frames = calls
        .iter()
        .zip(calls.iter().skip(1).chain(std::iter::once(&target)));
    for (&call, &next) in frames {
        let call_point = program.point(call);
        let (callee, args) = call_at(program, call)?;
        let next_point = program.point(next);
        if next_point.procedure != callee {
            return Err(ChainError::WrongProcedure {
                call: call_point.name.clone(),
                point: next_point.name.clone(),
            });
        }
        let callee_prefix = format!("{}__", call_point.name);
        let caller = program.procedure(call_point.procedure);
        let bindings: Vec<Binding> = program
            .procedure(callee)
            .snapshots
            .iter()
            .zip(args)
            .map(|(snapshot, actual)| {
                let terms = actual
                    .terms
                    .iter()
                    .map(|(var, coeff)| {
                        (
                            format!("{caller_prefix}{}", caller.var_name(*var)),
                            coeff.clone(),
                        )
                    })
                    .collect();
                let name = format!(
                    "{callee_prefix}{}",
                    program.procedure(callee).var_name(*snapshot)
                );
                Binding {
                    column: name,
                    terms,
                    constant: actual.constant.clone(),
                }
            })
            .collect();
        let renamed = renamed(analysis.invariant(next), &callee_prefix);
        chain = conjoin(&chain, &renamed, &bindings);
        caller_prefix = callee_prefix;
    }
    Ok(chain)
}

/// `column = Σ coeff·term + constant`: a callee snapshot bound to a caller expression.
struct Binding {
    column: String,
    terms: Vec<(String, Int)>,
    constant: Int,
}

fn call_at(
    program: &Program,
    call: PointId,
) -> Result<(crate::program::ProcId, &[Expr]), ChainError> {
    let point = program.point(call);
    program
        .procedure(point.procedure)
        .outgoing(point.node)
        .find_map(|edge| match &edge.action {
            Action::Call { callee, args, .. } => Some((*callee, args.as_slice())),
            _ => None,
        })
        .ok_or_else(|| ChainError::NotACall(point.name.clone()))
}

fn renamed(invariant: &Invariant, prefix: &str) -> Invariant {
    let rename = |names: &[String]| names.iter().map(|n| format!("{prefix}{n}")).collect();
    Invariant {
        params: rename(&invariant.params),
        dims: rename(&invariant.dims),
        value: invariant.value.clone(),
    }
}

/// `caller ∧ callee ∧ bindings`, where every column of `callee` becomes a dimension after the
/// caller's and each binding says `column = Σ coeff·caller column + constant`.
fn conjoin(caller: &Invariant, callee: &Invariant, bindings: &[Binding]) -> Invariant {
    let caller_width = caller.params.len() + caller.dims.len();
    let callee_names: Vec<String> = callee.params.iter().chain(&callee.dims).cloned().collect();
    let width = caller_width + callee_names.len();
    let mut dims = caller.dims.clone();
    dims.extend(callee_names.iter().cloned());
    let mut result = Invariant {
        params: caller.params.clone(),
        dims,
        value: Value::bottom(width),
    };
    let column = |name: &str| {
        result
            .params
            .iter()
            .chain(&result.dims)
            .position(|n| n == name)
            .map(VarId)
    };
    let binding_exprs: Vec<Expr> = bindings
        .iter()
        .filter_map(
            |Binding {
                 column: name,
                 terms,
                 constant,
             }| {
                let mut expr = Expr::constant(-constant.clone());
                expr.add_term(column(name)?, Int::from(1));
                for (term, coeff) in terms {
                    expr.add_term(column(term)?, -coeff.clone());
                }
                Some(expr)
            },
        )
        .collect();
    let mut parts = Vec::new();
    for left in &caller.value.parts {
        for right in &callee.value.parts {
            let mut part = Some(side_by_side(left, right, width));
            for expr in &binding_exprs {
                part = part.and_then(|p| p.meet_zero(expr));
            }
            parts.extend(part);
        }
    }
    result.value = Value { dim: width, parts };
    result
}

/// The conjunction of `left` (on the first columns) and `right` (on the next ones): the two
/// constraint systems and the product of the two lattices side by side.
fn side_by_side(left: &Conjunct, right: &Conjunct, width: usize) -> Conjunct {
    let offset = left.dim();
    let constraints: Vec<Constraint> = left
        .poly
        .constraints()
        .iter()
        .cloned()
        .chain(
            right
                .poly
                .constraints()
                .iter()
                .map(|c| c.remap(|k| k + offset)),
        )
        .collect();
    Conjunct {
        poly: Polyhedron::from_constraints(width, constraints),
        lattice: left.lattice.product(&right.lattice),
    }
}

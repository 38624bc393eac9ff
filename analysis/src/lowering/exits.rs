//! Why a loop may be unbounded, in the source's terms: the tests that leave it, each operand
//! named by where its value comes from (a local or parameter, a field, an array element or
//! length, a call's result), so an ∞ says which variable or field the loop waits on.

use membound_front::ir::{BinOp, Body, Expr, Operand, Place, StmtKind, Terminator, VarId};
use membound_jvm::MethodRef;

use super::loops::{block_successors, find_loops};

/// The loop whose head block starts at `head_pc` in `body`, as "the loop at m@pc (line L)
/// exits only when …", or `None` when no such loop exists.
pub fn describe_loop(method: &MethodRef, body: &Body, head_pc: u32) -> Option<String> {
    let loops = find_loops(&block_successors(body));
    let head = body.blocks.iter().position(|b| b.pc == head_pc)?;
    let blocks: Vec<usize> = (0..body.blocks.len())
        .filter(|&b| loops.enclosing[b].contains(&head))
        .collect();
    let tests: Vec<String> = blocks
        .iter()
        .filter_map(|&block| exit_test(body, &blocks, block))
        .collect();
    let line = blocks
        .iter()
        .flat_map(|&b| &body.blocks[b].stmts)
        .find_map(|stmt| stmt.line)
        .map_or_else(String::new, |line| format!(" (line {line})"));
    let at = format!("the loop at {}@{head_pc}{line}", method.name);
    Some(if tests.is_empty() {
        format!("{at} has no exit test on values (it ends by a return or an exception)")
    } else {
        format!("{at} exits only when {}", tests.join(" or "))
    })
}

/// Argument `index` (the receiver aside) of the call at `pc` in `body`, as the operation
/// computing it, when that is one the lowering does not follow (a shift by a variable, a right
/// shift or a bitwise operation, a product of two variables, a quotient by one):
/// `(1 << levels)`; `None` otherwise.
pub fn untracked_argument(body: &Body, pc: u32, index: usize) -> Option<String> {
    let (block, definition, var) = argument_definition(body, pc, index)?;
    let StmtKind::Assign {
        value: value @ Expr::Binary { op, lhs, rhs },
        ..
    } = &body.blocks[block].stmts[definition].kind
    else {
        return None;
    };
    let constant = |operand: &Operand| matches!(operand, Operand::Const(_));
    let followed = match op {
        BinOp::Add | BinOp::Sub => true,
        BinOp::Mul => constant(lhs) || constant(rhs),
        BinOp::Div | BinOp::Rem | BinOp::Shl => constant(rhs),
        _ => false,
    };
    (!followed).then(|| value_source(body, block, definition, var, value))
}

/// Where argument `index` (the receiver aside) of the call at `pc` in `body` is computed, when
/// that is in the call's block: the block, the index of the defining statement and the
/// variable it defines (through the block's copies).
pub(super) fn argument_definition(
    body: &Body,
    pc: u32,
    index: usize,
) -> Option<(usize, usize, VarId)> {
    let (block, at, call) = body.blocks.iter().enumerate().find_map(|(b, block)| {
        block
            .stmts
            .iter()
            .enumerate()
            .find_map(|(i, stmt)| match &stmt.kind {
                StmtKind::Invoke { call, .. } if stmt.pc == pc => Some((b, i, call)),
                _ => None,
            })
    })?;
    match traced(body, block, at, call.args.get(index)?)? {
        (var, Some(definition)) => Some((block, definition, var)),
        (_, None) => None,
    }
}

/// The test by which `block`'s branch leaves the loop made of `blocks`, if it does, with the
/// loop's assignments to the variables it compares that the analysis cannot follow.
fn exit_test(body: &Body, blocks: &[usize], block: usize) -> Option<String> {
    let Terminator::If {
        op,
        lhs,
        rhs,
        then_target,
        else_target,
    } = &body.blocks[block].terminator
    else {
        return None;
    };
    let leaves = |target: u32| !blocks.contains(&(target as usize));
    let (leaves_then, leaves_else) = (leaves(then_target.0), leaves(else_target.0));
    if leaves_then == leaves_else {
        return None;
    }
    let op = if leaves_then { *op } else { op.negate() };
    let end = body.blocks[block].stmts.len();
    let source = |operand| operand_source(body, block, end, operand);
    let test = format!("{} {} {}", source(lhs), op.symbol(), source(rhs));
    let updates: Vec<String> = [lhs, rhs]
        .into_iter()
        .filter_map(|operand| compared_variable(body, block, operand))
        .flat_map(|var| untracked_updates(body, blocks, var))
        .collect();
    Some(if updates.is_empty() {
        test
    } else {
        format!("{test}, where the loop sets {}", updates.join(" and "))
    })
}

/// The variable `operand` holds before the statement `end` of `block`, through the block's
/// copies, with the index of the statement defining it there (`None`: defined before the
/// block).
pub(super) fn traced(
    body: &Body,
    block: usize,
    end: usize,
    operand: &Operand,
) -> Option<(VarId, Option<usize>)> {
    let &Operand::Var(mut var) = operand else {
        return None;
    };
    let stmts = &body.blocks[block].stmts;
    let mut end = end;
    while let Some(index) = stmts[..end].iter().rposition(|s| s.assigns(var)) {
        match &stmts[index].kind {
            StmtKind::Assign {
                value: Expr::Use(Operand::Var(source)),
                ..
            } => {
                var = *source;
                end = index;
            }
            _ => return Some((var, Some(index))),
        }
    }
    Some((var, None))
}

/// Where `operand`, read before the statement `end` of `block`, gets its value.
pub(super) fn operand_source(body: &Body, block: usize, end: usize, operand: &Operand) -> String {
    let Some((var, definition)) = traced(body, block, end, operand) else {
        return match operand {
            Operand::Const(constant) => constant.to_string(),
            Operand::Var(var) => variable(body, *var),
        };
    };
    let Some(index) = definition else {
        return variable(body, var);
    };
    match &body.blocks[block].stmts[index].kind {
        StmtKind::Assign { value, .. } => value_source(body, block, index, var, value),
        StmtKind::Invoke { call, .. } => {
            format!(
                "the result of {}.{}",
                call.method.class.simple(),
                call.method.name
            )
        }
        _ => variable(body, var),
    }
}

/// The local or parameter a test compares, when the operand holds one as it was before the
/// block.
fn compared_variable(body: &Body, block: usize, operand: &Operand) -> Option<VarId> {
    let end = body.blocks[block].stmts.len();
    match traced(body, block, end, operand)? {
        (var, None) => Some(var),
        _ => None,
    }
}

/// The loop's assignments to `var` other than constant steps, as `var = value`.
fn untracked_updates(body: &Body, blocks: &[usize], var: VarId) -> Vec<String> {
    let mut updates = Vec::new();
    for &block in blocks {
        for (index, stmt) in body.blocks[block].stmts.iter().enumerate() {
            let StmtKind::Assign { dst, value } = &stmt.kind else {
                continue;
            };
            if *dst == var && !is_constant_step(var, value) {
                let value = value_source(body, block, index, var, value);
                updates.push(format!("{} = {value}", body.var(var).name));
            }
        }
    }
    updates
}

/// `var ± c` or a constant: what the analysis follows exactly.
fn is_constant_step(var: VarId, value: &Expr) -> bool {
    let constant = |operand: &Operand| matches!(operand, Operand::Const(_));
    match value {
        Expr::Use(operand) => constant(operand),
        Expr::Binary { op, lhs, rhs } => {
            let own = Operand::Var(var);
            matches!(op, BinOp::Add | BinOp::Sub)
                && ((*lhs == own && constant(rhs)) || (*rhs == own && constant(lhs)))
        }
        _ => false,
    }
}

/// The source of the value `value` assigns to `var` at the statement `index` of `block`.
fn value_source(body: &Body, block: usize, index: usize, var: VarId, value: &Expr) -> String {
    let operand = |operand: &Operand| operand_source(body, block, index, operand);
    let object = |operand: &Operand| match operand {
        Operand::Var(var) => body.var(*var).name.to_string(),
        Operand::Const(constant) => constant.to_string(),
    };
    match value {
        Expr::Load(Place::Field {
            object: holder,
            field,
        }) => {
            format!("field {} of {}", field.name, object(holder))
        }
        Expr::Load(Place::Static(field)) => {
            format!("static field {}.{}", field.class.simple(), field.name)
        }
        Expr::Load(Place::ArrayElement { array, .. }) => {
            format!("an element of {}", object(array))
        }
        Expr::ArrayLength(array) => format!("{}.length", object(array)),
        Expr::Convert(source, ty) if ty.is_narrow_integer() => {
            let (low, high) = ty.integer_range().unwrap_or_default();
            let narrowed = format!("({ty}) {}", operand(source));
            format!("{narrowed}, which wraps around outside {low}..{high}")
        }
        Expr::Binary { op, lhs, rhs } => {
            format!("({} {} {})", operand(lhs), op.symbol(), operand(rhs))
        }
        _ => variable(body, var),
    }
}

/// A variable by its source name, a reference one said to be one (a linked structure's cursor
/// compared with null, typically).
fn variable(body: &Body, var: VarId) -> String {
    let declared = body.var(var);
    if declared.ty.is_reference() {
        format!("reference {}", declared.name)
    } else {
        declared.name.to_string()
    }
}

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
//! It only classifies; [`super::body`] turns walks into variables and actions.

use membound_front::ir::{self, Expr, Operand, Place, StmtKind};
use membound_jvm::FieldRef;

/// What the chain views take for granted; the certificate lists it when a bound has a chain
/// length as a parameter.
pub const ACYCLIC_CHAINS: &str = "a linked structure a method walks (origin `length of the chain from …`) is acyclic along the field walked: following it from the root reaches null after that many nodes; no other thread, reflection or JNI changes that field or the root's field while the method runs";

/// Where a walk starts: a value the method's callers (and the agent, at entry) can name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Root {
    /// A reference parameter the method never reassigns (or the walked parameter itself).
    Param(ir::VarId),
    /// A field of the method's `this`.
    This(FieldRef),
    /// A field of a reference parameter the method never reassigns.
    ParamField(ir::VarId, FieldRef),
}

/// One root's chain along one field: a formal of the method.
#[derive(Clone, Debug)]
pub struct ChainRoot {
    pub root: Root,
    /// The field the walk follows from it.
    pub field: FieldRef,
    /// The formal's name, after the reference: `head_length`.
    pub name: String,
    /// What the formal is, for the certificate and `validate`.
    pub origin: String,
    /// For the chain from a declared parameter, its index: callers bind it to their argument's.
    pub param: Option<u16>,
}

/// What an assignment to a walked local does to its rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkStep {
    /// `p = p.f` or `p = p.getF()`: one node further.
    Next,
    /// `p = root`: the rest is the root's chain length (an index into [`Walks::roots`]).
    Start(usize),
}

/// A method's walks: its chain roots (formals, in order) and its walked locals.
#[derive(Clone, Debug, Default)]
pub struct Walks {
    pub roots: Vec<ChainRoot>,
    pub locals: Vec<WalkedLocal>,
}

/// A reference local a loop moves along one field. A walked parameter's entry value is its
/// own root.
#[derive(Clone, Debug)]
pub struct WalkedLocal {
    pub var: ir::VarId,
    pub field: FieldRef,
    /// Per assignment's offset, what it does.
    pub steps: Vec<(u32, WalkStep)>,
}

impl Walks {
    /// The root whose chain a walked parameter starts with at entry.
    pub fn entry_root(&self, param: ir::VarId) -> Option<usize> {
        self.roots.iter().position(|r| r.root == Root::Param(param))
    }
}

/// What the lowering needs to know from outside the body.
pub struct WalkContext<'a> {
    /// The variable holding `this`, when it is never reassigned.
    pub this: Option<ir::VarId>,
    /// Whether anything the method runs (its body included) may write the field.
    pub may_write: &'a dyn Fn(&FieldRef) -> bool,
    /// The field the call at this offset returns from its receiver, when every method it may
    /// run is a getter of it.
    pub getter: &'a dyn Fn(u32) -> Option<FieldRef>,
}

/// The walks of `body`: reference locals whose every assignment is a step along one field or
/// a root, with at least one step, and whose field and roots nothing the method runs writes.
pub fn walks(body: &ir::Body, context: &WalkContext<'_>) -> Walks {
    let mut walks = Walks::default();
    for (index, var) in body.vars.iter().enumerate() {
        let var_id = ir::VarId(index as u32);
        if !matches!(var.ty, membound_jvm::Type::Ref(_)) {
            continue;
        }
        if let Some(walked) = walk_of(body, context, var_id, &mut walks.roots) {
            walks.locals.push(walked);
        }
    }
    walks
}

/// The steps of `var` when it is a walk, adding the roots it starts from to `roots`.
fn walk_of(
    body: &ir::Body,
    context: &WalkContext<'_>,
    var: ir::VarId,
    roots: &mut Vec<ChainRoot>,
) -> Option<WalkedLocal> {
    let mut field: Option<FieldRef> = None;
    let mut found: Vec<(u32, Result<Root, ()>)> = Vec::new();
    for (_, stmt) in body.statements() {
        let next = match &stmt.kind {
            StmtKind::Assign { dst, value } if *dst == var => step_field(value, var)
                .map(Err)
                .or_else(|| root_of(body, context, value).map(Ok))?,
            StmtKind::Invoke { dst, call } if *dst == Some(var) => {
                let own = call.receiver == Some(Operand::Var(var)) && call.args.is_empty();
                Err(own.then(|| (context.getter)(stmt.pc)).flatten()?)
            }
            _ => continue,
        };
        match next {
            Err(step) => {
                if field.as_ref().is_some_and(|f| *f != step) {
                    return None;
                }
                field = Some(step);
                found.push((stmt.pc, Err(())));
            }
            Ok(root) => found.push((stmt.pc, Ok(root))),
        }
    }
    let field = field?;
    if (context.may_write)(&field) {
        return None;
    }
    let mut steps = Vec::new();
    let is_param = matches!(body.var(var).origin, ir::VarOrigin::Param(_));
    if is_param && !found.iter().all(|(_, f)| f.is_err()) {
        // A parameter both walked and restarted: keep it simple, no view.
        return None;
    }
    if is_param {
        chain_root(body, context, Root::Param(var), &field, roots)?;
    }
    for (pc, step) in found {
        let step = match step {
            Err(()) => WalkStep::Next,
            Ok(root) => WalkStep::Start(chain_root(body, context, root, &field, roots)?),
        };
        steps.push((pc, step));
    }
    Some(WalkedLocal { var, field, steps })
}

/// The field `value` reads from `var` itself.
fn step_field(value: &Expr, var: ir::VarId) -> Option<FieldRef> {
    match value {
        Expr::Load(Place::Field {
            object: Operand::Var(object),
            field,
        }) if *object == var => Some(field.clone()),
        _ => None,
    }
}

/// The root `value` reads, when it is one.
fn root_of(body: &ir::Body, context: &WalkContext<'_>, value: &Expr) -> Option<Root> {
    match value {
        Expr::Use(Operand::Var(source)) if fixed_param(body, context, *source) => {
            Some(Root::Param(*source))
        }
        Expr::Load(Place::Field {
            object: Operand::Var(object),
            field,
        }) => {
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
        && !body.statements().any(|(_, stmt)| match &stmt.kind {
            StmtKind::Assign { dst, .. } => *dst == var,
            StmtKind::Invoke { dst, .. } => *dst == Some(var),
            _ => false,
        })
}

/// The index of `root`'s chain along `field` in `roots`, added when new; None when something
/// the method runs may write the root's field.
fn chain_root(
    body: &ir::Body,
    context: &WalkContext<'_>,
    root: Root,
    field: &FieldRef,
    roots: &mut Vec<ChainRoot>,
) -> Option<usize> {
    if let Some(index) = roots
        .iter()
        .position(|r| r.root == root && r.field == *field)
    {
        return Some(index);
    }
    let along = format!("along {}.{}", field.class, field.name);
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
                format!("{name}_length"),
                format!("length of the chain from {text} {along}"),
            )
        }
        Root::This(held) => {
            if (context.may_write)(held) {
                return None;
            }
            let origin = format!(
                "length of the chain from field {} of this {along}",
                held.name
            );
            (format!("{}_length", held.name), origin)
        }
        Root::ParamField(var, held) => {
            if (context.may_write)(held) {
                return None;
            }
            let (text, name) = param(*var);
            let origin = format!(
                "length of the chain from field {} of {text} {along}",
                held.name
            );
            (format!("{name}_{}_length", held.name), origin)
        }
    };
    let param = match root {
        Root::Param(var) => Some(index(var)),
        _ => None,
    };
    roots.push(ChainRoot {
        param,
        root,
        field: field.clone(),
        name,
        origin,
    });
    Some(roots.len() - 1)
}

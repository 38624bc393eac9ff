//! Recursions over trees: a method that reads two or more fields of a parameter `t` of `t`'s
//! own type, `t` never reassigned, and hands the children to calls (`walk(t.left);
//! walk(t.right)`); a field of another type is a value the node holds, not a child. An instance
//! method of the node does the same with `this` (`left.count()`, the children as receivers): its
//! tree's size is `this_size`, its children's `left_size`, and `this` is never null.
//!
//! The parameter's *size* along those fields, the nodes reachable from it by them, is a formal
//! (`t_size`), and so is each child's (`t_left_size`): a [`super::chains::ChainRoot`] with
//! several branches. When no node is reached twice (the assumption [`TREE_SHAPED`]) the
//! children's subtrees are disjoint and miss `t`, so for a non-null `t` their sizes sum to at
//! most `t_size - 1`; for a null one every size is 0. A local that only ever holds children of
//! `t` is walked with the size of the child it holds, which callers bind to a callee's own
//! `t_size`: a recursion along the fields splits its measure (`summary::measured`), and the
//! activations with a non-null tree are at most `t_size`, those with a null one `t_size + 1`.
//!
//! A field holding an array of the parameter's type is a branch too (`v.children[i]`, a
//! `Village[]`): the node's children are the array's elements, its formal (`v_children_size`)
//! the sum of their sizes (a null element or array 0), and a local read from an element at any
//! index holds a size between 0 and that sum. Whether the calls of one activation pass
//! distinct elements, whose sizes then sum to at most the array's, is for the invariants at the
//! calls to show (`ElementCall`, read by the summaries' split law); nothing the method runs may
//! store into an array of references ([`array_elements`]).
//!
//! The agent records every size at the method's entry, walking the nodes once, and reports a
//! node reached twice (a shared subtree or a cycle) as a broken assumption in `validate`.

use std::collections::{BTreeMap, BTreeSet};

use super::chains::{Root, WalkContext, WalkStep, WalkedLocal, Walks, chain_root, passed_to_calls};

use membound_front::ir::{self, Expr, Operand, Place, StmtKind};
use membound_jvm::{ClassName, FieldRef, Type};

/// What the tree views take for granted; the certificate lists it when a bound has a tree size
/// as a parameter.
pub const TREE_SHAPED: &str = "a tree a method recurses over (origin `size of the tree from …`) reaches no node twice along the fields followed: the subtrees of a node's children (an array field's elements among them) are disjoint and do not contain the node; no other thread, reflection or JNI changes those fields, or those arrays' elements, while the method runs";

/// The elements of every array of references, as the writes of a method see them: a store into
/// such an array (`aastore`) writes this pseudo-field, whose name no field of a class file can
/// have, so a tree over an array field needs it unwritten.
pub fn array_elements() -> FieldRef {
    FieldRef {
        class: ClassName::new("java/lang/Object"),
        name: "[]".into(),
        ty: Type::Ref(ClassName::new("java/lang/Object")),
    }
}

/// Whether a tree's branch is an array field whose elements are the children.
pub fn is_array_branch(field: &FieldRef) -> bool {
    matches!(field.ty, Type::Array(_))
}

/// Whether a walk along `fields` is a tree's: two or more fields, or an array field.
pub fn is_tree(fields: &[FieldRef]) -> bool {
    fields.len() > 1 || fields.iter().any(is_array_branch)
}

/// A local's read of a child of the tree's parameter: `t.f`, or an element of the array in
/// `t.f` at `index`.
#[derive(Clone, Debug)]
struct ChildRead {
    pc: u32,
    field: FieldRef,
    index: Option<Operand>,
}

/// One parameter's tree: the roots of its size and of its children's, indices into
/// [`Walks::roots`].
#[derive(Clone, Debug)]
pub struct TreeRoots {
    /// The parameter, or `this`.
    pub var: ir::VarId,
    /// Its own size's root.
    pub whole: usize,
    /// Per branch field, the size of the tree from that child.
    pub children: Vec<usize>,
}

/// A parameter (or `this`) walked as a tree, before its roots are added.
pub struct TreeCandidate {
    param: ir::VarId,
    /// The fields followed, sorted.
    branches: Vec<FieldRef>,
    /// The locals holding its children, with their reads.
    holders: BTreeMap<ir::VarId, Vec<ChildRead>>,
}

impl TreeCandidate {
    /// Whether the tree walks `var`, its parameter or a holder of its children: the chains
    /// leave it alone.
    pub fn walks(&self, var: ir::VarId) -> bool {
        var == self.param || self.holders.contains_key(&var)
    }
}

/// The trees of `body`'s parameters (and of its `this`): those whose children along two or more
/// fields of their own type, or along an array field of it, are handed to calls (as arguments
/// or receivers), through locals that hold nothing else, while nothing the method runs writes
/// those fields (nor, for an array field, any array of references).
pub fn tree_candidates(body: &ir::Body, context: &WalkContext<'_>) -> Vec<TreeCandidate> {
    let passed = handed_to_calls(body);
    let mut found = Vec::new();
    for param in (0..body.vars.len()).map(|index| ir::VarId(index as u32)) {
        if !is_tree_candidate(body, context, param) {
            continue;
        }
        let holders: BTreeMap<ir::VarId, Vec<ChildRead>> = child_reads(body, param)
            .into_iter()
            .filter(|(var, _)| passed.contains(var))
            .collect();
        let mut branches: Vec<FieldRef> = holders
            .values()
            .flatten()
            .map(|read| read.field.clone())
            .collect();
        branches.sort();
        branches.dedup();
        let written = |f: &FieldRef| {
            context.may_write(f) || (is_array_branch(f) && context.may_write(&array_elements()))
        };
        if is_tree(&branches) && !branches.iter().any(written) {
            found.push(TreeCandidate {
                param,
                branches,
                holders,
            });
        }
    }
    found
}

/// Adds the trees to `walks`: their parameters' roots (`this`'s, [`Root::Receiver`]) and
/// children's, and their locals.
pub fn add_trees(body: &ir::Body, candidates: Vec<TreeCandidate>, walks: &mut Walks) {
    for TreeCandidate {
        param,
        branches,
        holders,
    } in candidates
    {
        let on_this = matches!(body.var(param).origin, ir::VarOrigin::This);
        let child = |field: FieldRef| match on_this {
            true => Root::This(field),
            false => Root::ParamField(param, field),
        };
        let whole = if on_this {
            Root::Receiver
        } else {
            Root::Param(param)
        };
        let whole = chain_root(body, whole, &branches, &mut walks.roots);
        let children: Vec<usize> = branches
            .iter()
            .map(|f| chain_root(body, child(f.clone()), &branches, &mut walks.roots))
            .collect();
        let tree = walks.trees.len();
        walks.trees.push(TreeRoots {
            var: param,
            whole,
            children: children.clone(),
        });
        walks.locals.push(WalkedLocal {
            var: param,
            field: branches[0].clone(),
            branches: branches.clone(),
            steps: Vec::new(),
        });
        for (var, reads) in holders {
            let steps = reads
                .into_iter()
                .map(|read| {
                    let branch = branches
                        .iter()
                        .position(|b| *b == read.field)
                        .unwrap_or_default();
                    let root = children[branch];
                    let step = match read.index {
                        None => WalkStep::Child { tree, root },
                        Some(index) => WalkStep::Element { tree, root, index },
                    };
                    (read.pc, step)
                })
                .collect();
            walks.locals.push(WalkedLocal {
                var,
                field: branches[0].clone(),
                branches: branches.clone(),
                steps,
            });
        }
    }
}

/// A declared reference parameter that the body never assigns, or `this` when it never does.
fn is_tree_candidate(body: &ir::Body, context: &WalkContext<'_>, var: ir::VarId) -> bool {
    let fixed = match body.var(var).origin {
        ir::VarOrigin::Param(_) => Some(var) != context.this && !body.assigns(var),
        ir::VarOrigin::This => Some(var) == context.this,
        _ => false,
    };
    fixed && matches!(body.var(var).ty, Type::Ref(_))
}

/// The locals `body` hands to its calls, as arguments or as receivers (`t.left.walk()`).
fn handed_to_calls(body: &ir::Body) -> BTreeSet<ir::VarId> {
    let receivers = body.statements().filter_map(|(_, stmt)| match &stmt.kind {
        StmtKind::Invoke { call, .. } => match &call.receiver {
            Some(Operand::Var(var)) => Some(*var),
            _ => None,
        },
        _ => None,
    });
    passed_to_calls(body).into_iter().chain(receivers).collect()
}

/// The reference locals whose every assignment reads a child of `param`: a field of `param`'s
/// own type (a child, not a value the node holds), or an element of an array field of that
/// type, through a local holding nothing but that field; with those reads.
fn child_reads(body: &ir::Body, param: ir::VarId) -> BTreeMap<ir::VarId, Vec<ChildRead>> {
    let node = &body.var(param).ty;
    let of_param = |value: &Expr, wanted: &dyn Fn(&Type) -> bool| match value {
        Expr::Load(Place::Field {
            object: Operand::Var(object),
            field,
        }) if *object == param && wanted(&field.ty) => Some(field.clone()),
        _ => None,
    };
    let array_of_nodes = |ty: &Type| matches!(ty, Type::Array(element) if **element == *node);
    let mut arrays = only_assigned(body, |value| of_param(value, &array_of_nodes));
    arrays.retain(|_, list| list.iter().all(|(_, field)| *field == list[0].1));
    let reads = only_assigned(body, |value| match value {
        Expr::Load(Place::ArrayElement {
            array: Operand::Var(array),
            index,
        }) => Some((arrays.get(array)?.first()?.1.clone(), Some(index.clone()))),
        _ => Some((of_param(value, &|ty| ty == node)?, None)),
    });
    reads
        .into_iter()
        .filter(|(var, _)| matches!(body.var(*var).ty, Type::Ref(_)))
        .map(|(var, list)| {
            let list = list
                .into_iter()
                .map(|(pc, (field, index))| ChildRead { pc, field, index })
                .collect();
            (var, list)
        })
        .collect()
}

/// The locals (parameters aside) whose every assignment `read` maps to a value, with those
/// values by offset; a local some call's result or other value is assigned to is left out.
fn only_assigned<T: Clone + PartialEq>(
    body: &ir::Body,
    read: impl Fn(&Expr) -> Option<T>,
) -> BTreeMap<ir::VarId, Vec<(u32, T)>> {
    let mut reads: BTreeMap<ir::VarId, Option<Vec<(u32, T)>>> = BTreeMap::new();
    for (_, stmt) in body.statements() {
        let (dst, value) = match &stmt.kind {
            StmtKind::Assign { dst, value } => (*dst, read(value)),
            StmtKind::Invoke { dst: Some(dst), .. } => (*dst, None),
            _ => continue,
        };
        let entry = reads.entry(dst).or_insert_with(|| Some(Vec::new()));
        match (entry.as_mut(), value) {
            (Some(list), Some(value)) => list.push((stmt.pc, value)),
            _ => *entry = None,
        }
    }
    reads
        .into_iter()
        .filter_map(|(var, list)| Some((var, list?)))
        .filter(|(var, _)| !matches!(body.var(*var).origin, ir::VarOrigin::Param(_)))
        .collect()
}

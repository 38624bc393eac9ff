//! A callee's tree sizes bound through a tree the caller passes fresh from an earlier call
//! ([`crate::lowering::FreshTreeFormals`]): `top = createVillage(levels, 0, null); simulate(top,
//! time)`. Every node of that tree is an object of the node's class (or a subclass) that the
//! earlier call allocated, so its size is at most the count `U` of those allocations, which
//! the earlier call's summary gives summed over its executions (in the caller's formals:
//! `(4^levels - 1)/3`), and its children's sizes are between 0 and the size.
//!
//! The callee's quantity `q(size, children, …)` is replaced by an upper bound of its largest
//! value over `0 <= children, Σ children <= size <= N` (Bernstein, [`bound_expr_over`]) with
//! `N` a parameter, and then `U` is put in for `N`: in its polynomial leaves exactly, and where
//! a guard reads `N` (which a power of `U` cannot be put into) the arm is kept for the rest of
//! its guard at the largest of its value and what follows it ([`relaxed`]), never below.

use membound_bernstein::{Arm, Atom, BoundExpr, Guard, ParametricPolytope, bound_expr_over};
use membound_jvm::ClassName;
use membound_polyhedra::{Affine, Constraint, Rat};

use membound_front::hierarchy::Hierarchy;
use membound_jvm::Type;

use super::{MethodSummary, Qty};
use crate::lowering::{CALLEE_PREFIX, FreshTreeFormals};
use crate::memalloc::Quantity;
use crate::sites::{AllocationKind, LocalSites};

/// One fresh tree of a call: the callee's formals of its sizes (renamed with
/// [`CALLEE_PREFIX`]) and the largest size, in the caller's formals.
#[derive(Clone, Debug)]
pub struct FreshBound {
    pub size: String,
    pub children: Vec<String>,
    pub largest: Quantity,
}

impl FreshBound {
    /// `tree`'s bound, `largest` in the caller's formals.
    pub fn new(tree: &FreshTreeFormals, largest: Quantity) -> FreshBound {
        let renamed = |name: &String| format!("{CALLEE_PREFIX}{name}");
        FreshBound {
            size: renamed(&tree.size),
            children: tree.children.iter().map(renamed).collect(),
            largest,
        }
    }
}

/// How many objects of `node` (or a subclass) a call of `summary`'s method allocates, in its
/// formals: the count of every site it reaches that creates one.
pub(super) fn nodes_allocated(
    summary: &MethodSummary,
    local: &LocalSites,
    hierarchy: &Hierarchy<'_>,
    node: &ClassName,
) -> Qty {
    summary
        .sites
        .iter()
        .filter(|entry| {
            let allocation = &local.sites[entry.site].allocation;
            let object = matches!(
                allocation.kind,
                AllocationKind::Object | AllocationKind::ConstructorReference
            );
            matches!(&allocation.ty, Type::Ref(class) if object && hierarchy.is_subtype(class, node))
        })
        .fold(Qty::zero(&summary.params), |sum, entry| {
            sum.add(&entry.total(&summary.params).count)
        })
}

/// Whether some of `names` are sizes of the trees.
pub(super) fn reads_tree(names: &[String], trees: &[FreshBound]) -> bool {
    trees.iter().any(|tree| {
        std::iter::once(&tree.size)
            .chain(&tree.children)
            .any(|formal| names.contains(formal))
    })
}

/// An upper bound of `quantity` (over the callee's renamed formals) wherever the trees' sizes
/// are at most their bounds; `None` when one cannot be put in.
pub(super) fn over_fresh_trees(quantity: &Quantity, trees: &[FreshBound]) -> Option<Quantity> {
    let mut bounded = quantity.clone();
    for (index, tree) in trees.iter().enumerate() {
        let largest = format!("fresh_tree__{index}");
        let over = largest_over_sizes(&bounded, tree, &largest)?;
        bounded = relaxed(&over, &largest, &tree.largest)?;
        if bounded.may_be_infinite() {
            return None;
        }
    }
    Some(bounded)
}

/// An upper bound of the largest `quantity` over the tree's sizes with `0 <= children`,
/// `Σ children <= size <= largest` (a parameter named `largest`), in the other names.
fn largest_over_sizes(quantity: &Quantity, tree: &FreshBound, largest: &str) -> Option<Quantity> {
    let vars: Vec<String> = std::iter::once(tree.size.clone())
        .chain(tree.children.iter().cloned())
        .collect();
    let mut params: Vec<String> = quantity
        .params()
        .into_iter()
        .filter(|name| !vars.contains(name))
        .collect();
    params.push(largest.to_string());
    let column = |name: &String| {
        let index = params.iter().chain(&vars).position(|n| n == name);
        Affine::var(index.expect("a name of the polytope"))
    };
    let size = column(&tree.size);
    let children = tree
        .children
        .iter()
        .fold(Affine::constant(Rat::from(0)), |sum, child| {
            sum.add(&column(child))
        });
    let mut constraints = vec![
        Constraint::ge(column(&largest.to_string()).sub(&size)),
        Constraint::ge(size.sub(&children)),
    ];
    constraints.extend(tree.children.iter().map(|c| Constraint::ge(column(c))));
    let polytope = ParametricPolytope::new(params, vars, constraints);
    bound_expr_over(quantity, &polytope).ok()
}

/// `expr` with `value` put in for the parameter `name`, or a larger expression: exact in
/// polynomial leaves (`Σ c_k · value^k`); a `Cases` arm whose guard reads `name` holds for the
/// rest of its guard, at the largest of its value and the value of the arms after it. `None`
/// where `name` is in a periodic leaf, a power's exponent or a logarithm.
fn relaxed(expr: &BoundExpr, name: &str, value: &BoundExpr) -> Option<BoundExpr> {
    let all = |items: &[BoundExpr]| -> Option<Vec<BoundExpr>> {
        items.iter().map(|e| relaxed(e, name, value)).collect()
    };
    let reads = |e: &BoundExpr| e.params().iter().any(|p| p == name);
    Some(match expr {
        BoundExpr::Pol(qp) => {
            let polynomial = qp.as_polynomial()?;
            let name = name.to_string();
            let terms = polynomial
                .coefficients_in(&name)
                .into_iter()
                .enumerate()
                .filter(|(_, coefficient)| !coefficient.is_zero())
                .map(|(power, coefficient)| {
                    let factors = std::iter::once(BoundExpr::pol(coefficient))
                        .chain(std::iter::repeat_n(value.clone(), power));
                    membound_bernstein::simplify::product_of(factors.collect())
                })
                .collect();
            membound_bernstein::simplify::sum_of(terms)
        }
        BoundExpr::Inf => BoundExpr::Inf,
        BoundExpr::Sum(items) => BoundExpr::Sum(all(items)?),
        BoundExpr::Max(items) => BoundExpr::Max(all(items)?),
        BoundExpr::Mul(items) => BoundExpr::Mul(all(items)?),
        BoundExpr::Pow { .. } | BoundExpr::Log2 { .. } if reads(expr) => return None,
        BoundExpr::Pow { .. } | BoundExpr::Log2 { .. } => expr.clone(),
        BoundExpr::Cases { arms, default } => relaxed_cases(arms, default, name, value)?,
    })
}

/// [`relaxed`] of `cases(arms; otherwise default)`, arm by arm.
fn relaxed_cases(
    arms: &[Arm],
    default: &BoundExpr,
    name: &str,
    value: &BoundExpr,
) -> Option<BoundExpr> {
    let Some((first, rest)) = arms.split_first() else {
        return relaxed(default, name, value);
    };
    let after = relaxed_cases(rest, default, name, value)?;
    let expr = relaxed(&first.expr, name, value)?;
    let (reading, kept): (Vec<Atom>, Vec<Atom>) = first
        .guard
        .atoms
        .iter()
        .cloned()
        .partition(|atom| atom.expr.variables().iter().any(|v| v == name));
    let expr = match reading.is_empty() {
        true => expr,
        // Where the rest of the guard holds, either the arm or a later one applies.
        false => BoundExpr::Max(vec![expr, after.clone()]),
    };
    Some(BoundExpr::Cases {
        arms: vec![Arm {
            guard: Guard::from_atoms(kept),
            expr,
        }],
        default: Box::new(after),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use membound_bernstein::parse_bound;
    use std::collections::BTreeMap;

    fn eval(expr: &BoundExpr, point: &[(&str, i64)]) -> Rat {
        let point: BTreeMap<String, Rat> = point
            .iter()
            .map(|(name, value)| (name.to_string(), Rat::from(*value)))
            .collect();
        match expr.eval(&point).expect("evaluates") {
            membound_polyhedra::Value::Finite(value) => value,
            other => panic!("not finite: {other:?}"),
        }
    }

    fn tree() -> FreshBound {
        FreshBound {
            size: "s".to_string(),
            children: vec!["c".to_string()],
            largest: parse_bound("cases(n >= 1 -> 2^(n) + (-1); otherwise -> (0))")
                .expect("parses"),
        }
    }

    #[test]
    fn a_bound_linear_in_the_size_takes_the_largest_size() {
        // simulate's shape: t * 6s where the tree is not empty, else 0.
        let quantity =
            parse_bound("cases(c >= 0 and s >= c + 1 and t >= 1 -> (6*t*s); otherwise -> (0))")
                .expect("parses");
        let bounded = over_fresh_trees(&quantity, &[tree()]).expect("bounded");
        assert!(!bounded.params().contains(&"s".to_string()));
        // n = 3: at most 7 nodes.
        assert_eq!(eval(&bounded, &[("n", 3), ("t", 5)]), Rat::from(6 * 5 * 7));
        assert_eq!(eval(&bounded, &[("n", 0), ("t", 5)]), Rat::from(0));
    }

    #[test]
    fn a_bound_falling_with_the_size_is_bounded_at_its_largest() {
        // 10 - s: largest at the empty tree, whatever the bound on the size.
        let quantity = parse_bound("cases(s >= 0 -> (10 - s); otherwise -> (0))").expect("parses");
        let bounded = over_fresh_trees(&quantity, &[tree()]).expect("bounded");
        for n in 0..5 {
            assert!(eval(&bounded, &[("n", n)]) >= Rat::from(10));
        }
    }

    #[test]
    fn guards_on_the_bound_are_relaxed_to_the_largest_arm() {
        let guarded = parse_bound("cases(m >= 3 -> (5*m); otherwise -> (1))").expect("parses");
        let value = parse_bound("2^(n)").expect("parses");
        let relaxed = relaxed(&guarded, "m", &value).expect("relaxed");
        // 2^1 = 2 < 3: the arm does not hold, but the relaxed form may only be larger.
        assert!(eval(&relaxed, &[("n", 1)]) >= Rat::from(1));
        assert_eq!(eval(&relaxed, &[("n", 3)]), Rat::from(40));
    }
}

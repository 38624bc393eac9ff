//! The abstract domain: finite disjunctions of (polyhedron × congruence lattice).
//!
//! The polyhedron bounds the states (join = convex hull, widening with thresholds); the
//! lattice ([`lattice`]) keeps the strides and `mod` facts that bounds cannot express. Their
//! conjunction describes exactly the integer points of strided iteration spaces. A disjunction
//! appears only where a guard needs one (`i % 3 != 0`, `i != m`, `||`) and is merged at the
//! next join point, so loop heads always hold a single convex part.

mod guard;
pub mod hull;
pub(crate) mod integer_matrix;
pub mod lattice;
pub mod polyhedral;

use membound_polyhedra::{Affine, Constraint, Int, Polyhedron, Rat};

use crate::program::Expr;
use lattice::{Congruence, Lattice};

/// Guards that split a part into more than this many are merged back by convex hull.
pub const MAX_PARTS: usize = 8;

/// One convex part: the states in `poly` whose integer coordinates lie in `lattice`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Conjunct {
    pub poly: Polyhedron,
    pub lattice: Lattice,
}

/// A finite union of parts over `dim` variables; no part means unreachable.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Value {
    pub dim: usize,
    pub parts: Vec<Conjunct>,
}

/// `expr` as an affine form over variable indices.
pub fn affine_of(expr: &Expr) -> Affine {
    let mut form = Affine::constant(Rat::from(expr.constant.clone()));
    for (var, coeff) in &expr.terms {
        form.set_coeff(var.0, Rat::from(coeff.clone()));
    }
    form
}

/// The integer coefficient vector of `expr` over `dim` variables.
fn coefficients_of(expr: &Expr, dim: usize) -> Vec<Int> {
    (0..dim)
        .map(|k| expr.coeff(crate::program::VarId(k)))
        .collect()
}

impl Conjunct {
    pub fn universe(dim: usize) -> Conjunct {
        Conjunct {
            poly: Polyhedron::universe(dim),
            lattice: Lattice::universe(dim),
        }
    }
    pub fn dim(&self) -> usize {
        self.poly.dim()
    }

    pub fn assign(&self, var: usize, expr: &Expr) -> Conjunct {
        let coeffs = coefficients_of(expr, self.dim());
        Conjunct {
            poly: polyhedral::assign(&self.poly, var, &affine_of(expr)),
            lattice: self.lattice.assign(var, &coeffs, &expr.constant),
        }
    }

    pub fn havoc(&self, var: usize) -> Conjunct {
        self.havoc_all(&[var])
    }

    /// Forgets each of `vars` at once.
    pub fn havoc_all(&self, vars: &[usize]) -> Conjunct {
        if vars.is_empty() {
            return self.clone();
        }
        Conjunct {
            poly: polyhedral::havoc_all(&self.poly, vars),
            lattice: self.lattice.havoc_all(vars),
        }
    }

    /// `expr >= 0`; `None` when no state is left.
    pub fn meet_nonnegative(&self, expr: &Expr) -> Option<Conjunct> {
        let mut poly = self.poly.clone();
        poly.add_constraint(Constraint::ge(affine_of(expr)).normalized_for_integers());
        (!poly.is_empty()).then(|| Conjunct {
            poly,
            lattice: self.lattice.clone(),
        })
    }

    /// Every form of `forms` `>= 0`; `None` when no state is left.
    pub fn meet_all_nonnegative(&self, forms: &[Expr]) -> Option<Conjunct> {
        forms
            .iter()
            .try_fold(self.clone(), |part, form| part.meet_nonnegative(form))
    }

    /// `expr = 0`.
    pub fn meet_zero(&self, expr: &Expr) -> Option<Conjunct> {
        self.meet_congruence(expr, &Int::from(0), &Int::from(0))
    }

    /// `expr mod modulus = residue` (`expr = residue` when `modulus` is 0).
    pub fn meet_congruence(&self, expr: &Expr, modulus: &Int, residue: &Int) -> Option<Conjunct> {
        let congruence = Congruence {
            coeffs: coefficients_of(expr, self.dim()),
            residue: residue - &expr.constant,
            modulus: modulus.clone(),
        };
        let lattice = self.lattice.meet(&congruence)?;
        let mut poly = self.poly.clone();
        if modulus == &Int::from(0) {
            poly.add_constraint(Constraint::eq(
                affine_of(expr).sub(&Affine::constant(Rat::from(residue.clone()))),
            ));
            if poly.is_empty() {
                return None;
            }
        }
        Some(Conjunct { poly, lattice })
    }

    /// Both parts' common states (same dimension); `None` when none is left.
    pub fn meet(&self, other: &Conjunct) -> Option<Conjunct> {
        let mut lattice = self.lattice.clone();
        for congruence in other.lattice.congruences() {
            lattice = lattice.meet(&congruence)?;
        }
        let poly = self.poly.intersect(&other.poly);
        (!poly.is_empty()).then_some(Conjunct { poly, lattice })
    }

    /// The part in a space of `dim` variables where variable `k` becomes `position[k]`; the
    /// other variables are unconstrained.
    pub fn embed(&self, dim: usize, position: &[usize]) -> Conjunct {
        let constraints = self
            .poly
            .constraints()
            .iter()
            .map(|c| c.remap(|k| position[k]))
            .collect();
        Conjunct {
            poly: Polyhedron::from_constraints(dim, constraints),
            lattice: self.lattice.embed(dim, position),
        }
    }

    /// The part's shadow on the variables in `keep`, in that order (rational projection of
    /// the polyhedron, exact projection of the lattice).
    pub fn project_onto(&self, keep: &[usize]) -> Conjunct {
        Conjunct {
            poly: self.poly.project_onto(keep),
            lattice: self.lattice.project_onto(keep),
        }
        .reduced()
    }

    /// Convex join of both parts.
    pub fn join(&self, other: &Conjunct) -> Conjunct {
        Conjunct {
            poly: hull::convex_hull(&self.poly, &other.poly),
            lattice: self.lattice.join(&other.lattice),
        }
        .reduced()
    }

    pub fn includes(&self, other: &Conjunct) -> bool {
        self.lattice.includes(&other.lattice) && self.poly.includes(&other.poly)
    }

    /// `self ∇ newer` for `self ⊆ newer`; the lattice needs no widening.
    pub fn widen(&self, newer: &Conjunct, thresholds: &[Constraint]) -> Conjunct {
        Conjunct {
            poly: polyhedral::widen(&self.poly, &newer.poly, thresholds),
            lattice: newer.lattice.clone(),
        }
        .reduced()
    }

    /// Gives the polyhedron the lattice's affine equalities, which widening never loses.
    fn reduced(mut self) -> Conjunct {
        for equality in self.lattice.equalities() {
            let coeffs = equality
                .coeffs
                .iter()
                .map(|c| Rat::from(c.clone()))
                .collect();
            let constraint = Constraint::eq(Affine::from_coeffs(
                coeffs,
                -Rat::from(equality.residue.clone()),
            ));
            if !self.poly.implies(&constraint) {
                self.poly.add_constraint(constraint);
            }
        }
        self
    }

    /// Membership of an integer state.
    pub fn contains(&self, state: &[Int]) -> bool {
        let rational: Vec<Rat> = state.iter().map(|v| Rat::from(v.clone())).collect();
        self.poly.contains(&rational) && self.lattice.contains(state)
    }
}

/// The classes of a partition by the signs of `partition`'s expressions: per expression `e`,
/// `-e >= 0` or `e - 1 >= 0`, as lists of forms `>= 0`; one empty class without expressions.
pub fn partition_classes(partition: &[Expr]) -> Vec<Vec<Expr>> {
    partition.iter().fold(vec![Vec::new()], |classes, e| {
        classes
            .into_iter()
            .flat_map(|class| {
                let mut at_most_zero = class.clone();
                at_most_zero.push(e.negated());
                let mut above = class;
                above.push(e.clone() - 1);
                [at_most_zero, above]
            })
            .collect()
    })
}

impl Value {
    pub fn bottom(dim: usize) -> Value {
        Value {
            dim,
            parts: Vec::new(),
        }
    }
    pub fn universe(dim: usize) -> Value {
        Value::from_part(Conjunct::universe(dim))
    }
    pub fn from_part(part: Conjunct) -> Value {
        Value {
            dim: part.dim(),
            parts: vec![part],
        }
    }
    pub fn is_bottom(&self) -> bool {
        self.parts.is_empty()
    }

    /// The union of both.
    pub fn union(mut self, other: Value) -> Value {
        self.parts.extend(other.parts);
        self.capped()
    }

    /// One convex part covering every part (bottom stays bottom).
    pub fn merged(&self) -> Value {
        match self.parts.split_first() {
            None => self.clone(),
            Some((first, [])) => Value::from_part(first.clone()),
            Some((first, rest)) => {
                Value::from_part(rest.iter().fold(first.clone(), |acc, p| acc.join(p)))
            }
        }
    }

    /// One convex part per class of `partition` holding states (a class fixes, for each
    /// expression `e`, whether `e <= 0` or `e >= 1`), each the hull of what the class has of
    /// every part. With no expression it is [`Self::merged`].
    pub fn partitioned(&self, partition: &[Expr]) -> Value {
        let parts = partition_classes(partition)
            .iter()
            .filter_map(|class| self.class_part(class))
            .collect();
        Value {
            dim: self.dim,
            parts,
        }
    }

    /// The hull of the parts' states in `class` (each form `>= 0`), if any.
    pub fn class_part(&self, class: &[Expr]) -> Option<Conjunct> {
        self.parts
            .iter()
            .filter_map(|part| part.meet_all_nonnegative(class))
            .reduce(|acc, part| acc.join(&part))
    }

    fn capped(self) -> Value {
        if self.parts.len() > MAX_PARTS {
            self.merged()
        } else {
            self
        }
    }

    /// True when every part of `other` lies in one part of `self` (a sufficient test).
    pub fn includes(&self, other: &Value) -> bool {
        other
            .parts
            .iter()
            .all(|p| self.parts.iter().any(|q| q.includes(p)))
    }

    pub fn map_parts(&self, f: impl Fn(&Conjunct) -> Conjunct) -> Value {
        Value {
            dim: self.dim,
            parts: self.parts.iter().map(f).collect(),
        }
    }

    /// The states that satisfy `cond`.
    pub fn assume(&self, cond: &crate::program::Cond) -> Value {
        let parts = self
            .parts
            .iter()
            .flat_map(|p| guard::refine(p, cond, true))
            .collect();
        Value {
            dim: self.dim,
            parts,
        }
        .capped()
    }

    pub fn contains(&self, state: &[Int]) -> bool {
        self.parts.iter().any(|p| p.contains(state))
    }
}

//! The answer at a point: a union of (polyhedron × lattice) parts over named columns, the
//! snapshots first (the isl parameters) and then the visible variables (the isl dimensions),
//! convertible to a polyhedra-crate [`Set`] that can be printed or counted directly.

use std::collections::BTreeMap;

use membound_polyhedra::isl::print::set_to_isl;
use membound_polyhedra::{
    Affine, BasicSet, Constraint, Int, Polyhedron, Rat, Relation, Set, Space,
};
use num_traits::Zero;

use crate::domain::lattice::{Congruence, Lattice};
use crate::domain::{Conjunct, Value};
use crate::program::{Procedure, VarKind};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invariant {
    pub params: Vec<String>,
    pub dims: Vec<String>,
    /// Over the columns `params ++ dims`.
    pub value: Value,
}

impl Invariant {
    /// The invariant of `procedure` whose node value is `value` (over variable indices).
    pub fn of_procedure(procedure: &Procedure, value: &Value) -> Invariant {
        Invariant::over_columns(procedure, |order| project_value(value, order))
    }

    /// "Any state" over `procedure`'s columns: the invariant of a node whose value is the
    /// universe, built without projecting one (the projection of a universe lattice costs dim³
    /// operations on big integers).
    pub fn any_state(procedure: &Procedure) -> Invariant {
        Invariant::over_columns(procedure, |order| Value::universe(order.len()))
    }

    /// The invariant whose value over the columns (snapshots, then visible variables, by index)
    /// `value` gives.
    fn over_columns(procedure: &Procedure, value: impl FnOnce(&[usize]) -> Value) -> Invariant {
        let snapshots: Vec<usize> = procedure
            .var_ids()
            .filter(|v| matches!(procedure.vars[v.0].kind, VarKind::Snapshot(_)))
            .map(|v| v.0)
            .collect();
        let visible: Vec<usize> = procedure.visible_vars().iter().map(|v| v.0).collect();
        let order: Vec<usize> = snapshots.iter().chain(&visible).copied().collect();
        let name = |k: &usize| procedure.vars[*k].name.clone();
        Invariant {
            params: snapshots.iter().map(name).collect(),
            dims: visible.iter().map(name).collect(),
            value: value(&order),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.value.is_bottom()
    }

    pub fn space(&self) -> Space {
        Space::new(self.params.clone(), self.dims.clone())
    }

    /// The same invariant keeping only the dimensions named in `dims` (in that order) and every
    /// parameter. Projection over the rationals keeps it sound; it is exact when the dropped
    /// variables are determined by the kept ones.
    pub fn project_onto(&self, dims: &[&str]) -> Invariant {
        let params = 0..self.params.len();
        let kept: Vec<usize> = dims
            .iter()
            .filter_map(|d| self.dims.iter().position(|n| n == d))
            .collect();
        let order: Vec<usize> = params
            .chain(kept.iter().map(|k| k + self.params.len()))
            .collect();
        Invariant {
            params: self.params.clone(),
            dims: kept.iter().map(|&k| self.dims[k].clone()).collect(),
            value: project_value(&self.value, &order),
        }
    }

    /// Whether every part bounds the dimension `dim` from above by the parameters alone (`false`
    /// for a name that is not a dimension).
    pub fn bounds_above(&self, dim: &str) -> bool {
        let projected = self.project_onto(&[dim]);
        if projected.dims.len() != 1 {
            return false;
        }
        let column = projected.params.len();
        let bounding = |c: &Constraint| match c.rel {
            Relation::Eq => !c.expr.coeff(column).is_zero(),
            Relation::Ge => c.expr.coeff(column).is_negative(),
        };
        let fixed = |g: &Congruence| g.modulus.is_zero() && !g.coeffs[column].is_zero();
        projected
            .value
            .parts
            .iter()
            .filter(|part| !part.poly.is_empty())
            .all(|part| {
                part.poly.constraints().iter().any(bounding)
                    || part.lattice.congruences().iter().any(fixed)
            })
    }

    /// The invariant as an isl-style integer set: polyhedral constraints, and the lattice as
    /// equalities and `mod` constraints.
    pub fn to_set(&self) -> Set {
        let space = self.space();
        let parts = self
            .value
            .parts
            .iter()
            .filter(|p| !p.poly.is_empty())
            .map(|p| basic_set(&space, p))
            .collect();
        Set { space, parts }
    }

    pub fn to_isl(&self) -> String {
        set_to_isl(&self.to_set())
    }

    /// Reads a set back (e.g. an expected invariant written in isl syntax). Divisions and
    /// existential variables are projected out, which is exact for `e mod k = r` constraints and
    /// an over-approximation otherwise.
    pub fn from_set(set: &Set) -> Invariant {
        let columns = set.space.params.len() + set.space.dims.len();
        let parts = set
            .parts
            .iter()
            .filter_map(|part| conjunct_of_basic_set(part, columns))
            .collect();
        Invariant {
            params: set.space.params.clone(),
            dims: set.space.dims.clone(),
            value: Value {
                dim: columns,
                parts,
            },
        }
    }

    /// Equality of the described sets, tested part by part (each part of one lies in a part of
    /// the other); false negatives are possible when the same union is split differently.
    pub fn same_set(&self, other: &Invariant) -> bool {
        self.params == other.params
            && self.dims == other.dims
            && self.value.includes(&other.value)
            && other.value.includes(&self.value)
    }

    /// Membership of a point given by name (missing names make it false).
    pub fn contains_named(&self, values: &BTreeMap<String, Int>) -> bool {
        let point: Option<Vec<Int>> = self
            .params
            .iter()
            .chain(&self.dims)
            .map(|n| values.get(n).cloned())
            .collect();
        point.is_some_and(|p| self.value.contains(&p))
    }

    /// Membership of a valuation of `procedure`'s variables (as the interpreter records them).
    pub fn contains_valuation(&self, procedure: &Procedure, valuation: &[Int]) -> bool {
        let named = procedure
            .vars
            .iter()
            .zip(valuation)
            .map(|(v, value)| (v.name.clone(), value.clone()))
            .collect();
        self.contains_named(&named)
    }
}

/// Every part restricted to the coordinates `order` (in that order).
fn project_value(value: &Value, order: &[usize]) -> Value {
    let parts = value
        .parts
        .iter()
        .map(|p| Conjunct {
            poly: p.poly.project_onto(order),
            lattice: p.lattice.project_onto(order),
        })
        .collect();
    Value {
        dim: order.len(),
        parts,
    }
}

fn basic_set(space: &Space, part: &Conjunct) -> BasicSet {
    let mut set = BasicSet::universe(space.clone());
    let poly = part.poly.minimized();
    for constraint in poly.constraints() {
        set.add_constraint(constraint.clone());
    }
    for congruence in part.lattice.congruences() {
        let form = Affine::from_coeffs(
            congruence
                .coeffs
                .iter()
                .map(|c| Rat::from(c.clone()))
                .collect(),
            Rat::zero(),
        );
        if congruence.modulus.is_zero() {
            let equality =
                Constraint::eq(form.sub(&Affine::constant(Rat::from(congruence.residue.clone()))));
            if !poly.implies(&equality) {
                set.add_constraint(equality);
            }
        } else {
            set.add_mod_constraint(
                &form,
                congruence.modulus.clone(),
                congruence.residue.clone(),
            );
        }
    }
    set
}

/// The part described by `set`, with its locals projected out; `None` when it is empty.
fn conjunct_of_basic_set(set: &BasicSet, columns: usize) -> Option<Conjunct> {
    let all = set.all_constraints();
    let width = set.n_columns();
    let mut lattice = Some(Lattice::universe(width));
    for constraint in all.iter().filter(|c| c.rel == Relation::Eq) {
        let form = constraint.expr.primitive();
        let coeffs = (0..width)
            .map(|k| form.coeff(k).to_int().unwrap_or_default())
            .collect();
        let residue = (-form.constant.clone()).to_int().unwrap_or_default();
        lattice = lattice.and_then(|l| {
            l.meet(&Congruence {
                coeffs,
                residue,
                modulus: Int::zero(),
            })
        });
    }
    let poly = Polyhedron::from_constraints(width, all);
    let keep: Vec<usize> = (0..columns).collect();
    let part = Conjunct {
        poly: poly.project_onto(&keep),
        lattice: lattice?.project_onto(&keep),
    };
    (!part.poly.is_empty()).then_some(part)
}

//! Integer sets with parameters: `[params] -> { [dims] : constraints }`, with local variables
//! that are either integer divisions (`floor(e/k)`, which is how `mod` and `floor` are kept) or
//! existentially quantified (`exists t : n = 3t`), and finite unions of such basic sets.
//!
//! Columns of a basic set are numbered params first, then dims, then locals.

use serde::{Deserialize, Serialize};

use crate::affine::Affine;
use crate::constraint::Constraint;
use crate::fourier_motzkin::System;
use crate::polyhedron::Polyhedron;
use crate::scalar::{Int, Rat};

#[derive(Clone, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
pub struct Space {
    pub params: Vec<String>,
    pub dims: Vec<String>,
}

impl Space {
    pub fn new(params: Vec<String>, dims: Vec<String>) -> Space {
        Space { params, dims }
    }
    /// The parameter-only space of the same parameters.
    pub fn params_only(&self) -> Space {
        Space {
            params: self.params.clone(),
            dims: Vec::new(),
        }
    }
    /// The same space with every parameter and dim renamed (`rename` injective).
    pub fn renamed(&self, rename: &dyn Fn(&str) -> String) -> Space {
        let all = |names: &[String]| names.iter().map(|n| rename(n)).collect();
        Space::new(all(&self.params), all(&self.dims))
    }
}

/// `floor(numerator / denominator)` with `numerator` over earlier columns.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Div {
    pub numerator: Affine,
    pub denominator: Int,
}

impl Div {
    /// `0 <= numerator - denominator * q <= denominator - 1`, which define `q` (at `column`) as
    /// this division.
    pub fn defining_constraints(&self, column: usize) -> [Constraint; 2] {
        let k = Rat::from(self.denominator.clone());
        let remainder = self.numerator.sub(&Affine::term(column, k.clone()));
        [
            Constraint::ge(remainder.clone()),
            Constraint::ge(Affine::constant(k - Rat::one()).sub(&remainder)),
        ]
    }
}

/// A local variable: an integer division when `div` is set, else existentially quantified.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Local {
    pub name: String,
    pub div: Option<Div>,
}

/// A conjunction of linear constraints over params, dims and locals.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct BasicSet {
    pub space: Space,
    pub locals: Vec<Local>,
    pub constraints: Vec<Constraint>,
}

/// A finite union of basic sets over one space.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Set {
    pub space: Space,
    pub parts: Vec<BasicSet>,
}

impl BasicSet {
    pub fn universe(space: Space) -> BasicSet {
        BasicSet {
            space,
            locals: Vec::new(),
            constraints: Vec::new(),
        }
    }
    pub fn n_params(&self) -> usize {
        self.space.params.len()
    }
    pub fn n_dims(&self) -> usize {
        self.space.dims.len()
    }
    pub fn n_columns(&self) -> usize {
        self.n_params() + self.n_dims() + self.locals.len()
    }
    pub fn local_column(&self, index: usize) -> usize {
        self.n_params() + self.n_dims() + index
    }
    pub fn column_name(&self, column: usize) -> String {
        let (np, nd) = (self.n_params(), self.n_dims());
        if column < np {
            self.space.params[column].clone()
        } else if column < np + nd {
            self.space.dims[column - np].clone()
        } else {
            self.locals
                .get(column - np - nd)
                .map_or_else(|| format!("c{column}"), |l| l.name.clone())
        }
    }
    pub fn add_constraint(&mut self, constraint: Constraint) {
        self.constraints.push(constraint);
    }
    /// Adds (or reuses) the local `floor(numerator / denominator)`; returns its column.
    pub fn add_div(&mut self, numerator: Affine, denominator: Int) -> usize {
        let div = Div {
            numerator,
            denominator,
        };
        if let Some(i) = self
            .locals
            .iter()
            .position(|l| l.div.as_ref() == Some(&div))
        {
            return self.local_column(i);
        }
        let name = format!("_d{}", self.locals.len());
        self.locals.push(Local {
            name,
            div: Some(div),
        });
        self.local_column(self.locals.len() - 1)
    }
    /// Adds an existentially quantified local; returns its column.
    pub fn add_exists(&mut self, name: &str) -> usize {
        self.locals.push(Local {
            name: name.to_string(),
            div: None,
        });
        self.local_column(self.locals.len() - 1)
    }
    /// Adds `expr mod modulus = residue` (through an integer division).
    pub fn add_mod_constraint(&mut self, expr: &Affine, modulus: Int, residue: Int) {
        let q = self.add_div(expr.clone(), modulus.clone());
        let remainder = expr.sub(&Affine::term(q, Rat::from(modulus)));
        self.add_constraint(Constraint::eq(
            remainder.sub(&Affine::constant(Rat::from(residue))),
        ));
    }
    /// The inequalities `0 <= numerator - denominator * q <= denominator - 1` of every division.
    pub fn div_constraints(&self) -> Vec<Constraint> {
        let mut out = Vec::new();
        for (i, local) in self.locals.iter().enumerate() {
            let Some(div) = &local.div else { continue };
            out.extend(div.defining_constraints(self.local_column(i)));
        }
        out
    }
    /// The rational polyhedron of every constraint, the divisions' included, over all its
    /// columns (params, dims, locals).
    pub fn to_polyhedron(&self) -> Polyhedron {
        Polyhedron::from_constraints(self.n_columns(), self.all_constraints())
    }
    /// Every constraint including those defining the divisions.
    pub fn all_constraints(&self) -> Vec<Constraint> {
        let mut all = self.constraints.clone();
        all.extend(self.div_constraints());
        all
    }
    /// True when every local is an integer division (so membership is decidable by evaluation).
    pub fn has_only_divs(&self) -> bool {
        self.locals.iter().all(|l| l.div.is_some())
    }
    /// Values of params, dims and divisions at a point, or `None` if a local is existential.
    pub fn column_values(&self, params: &[Int], dims: &[Int]) -> Option<Vec<Rat>> {
        let mut values: Vec<Rat> = params.iter().chain(dims).map(Rat::from).collect();
        for local in &self.locals {
            let div = local.div.as_ref()?;
            let quotient = div.numerator.eval(&values) / Rat::from(div.denominator.clone());
            values.push(Rat::from(quotient.floor()));
        }
        Some(values)
    }
    /// Membership of an integer point, for sets whose locals are all divisions.
    pub fn contains(&self, params: &[Int], dims: &[Int]) -> Option<bool> {
        let values = self.column_values(params, dims)?;
        Some(self.constraints.iter().all(|c| c.is_satisfied(&values)))
    }
    /// The conjunction of two basic sets over the same space.
    pub fn intersect(&self, other: &BasicSet) -> BasicSet {
        let mut result = self.clone();
        let shared = self.n_params() + self.n_dims();
        let mut column_of_other: Vec<usize> = (0..shared).collect();
        for local in &other.locals {
            let column = match &local.div {
                Some(div) => {
                    let numerator = div.numerator.remap(|c| column_of_other[c]);
                    result.add_div(numerator, div.denominator.clone())
                }
                None => result.add_exists(&local.name),
            };
            column_of_other.push(column);
        }
        for c in &other.constraints {
            result.add_constraint(c.remap(|col| column_of_other[col]));
        }
        result
    }
}

impl BasicSet {
    /// The same set with `names` as new, unconstrained dims after the existing ones (locals
    /// move up by as many columns).
    pub fn append_dims(&self, names: &[String]) -> BasicSet {
        let first_local = self.n_params() + self.n_dims();
        let shift = |c: usize| if c < first_local { c } else { c + names.len() };
        let mut space = self.space.clone();
        space.dims.extend(names.iter().cloned());
        self.moved_to(space, shift)
    }

    /// The same set in `space`, its column `c` (a param, dim or local) moved to `column(c)`
    /// in constraints and division numerators; the locals keep their order.
    pub fn moved_to(&self, space: Space, column: impl Fn(usize) -> usize) -> BasicSet {
        BasicSet {
            space,
            locals: self
                .locals
                .iter()
                .map(|local| Local {
                    name: local.name.clone(),
                    div: local.div.as_ref().map(|div| Div {
                        numerator: div.numerator.remap(&column),
                        denominator: div.denominator.clone(),
                    }),
                })
                .collect(),
            constraints: self.constraints.iter().map(|c| c.remap(&column)).collect(),
        }
    }

    /// The rational shadow of the set without the dims at `columns` (see
    /// [`Set::project_out_dims`]); `None` when the elimination finds the set empty.
    fn project_out_columns(&self, columns: &[usize]) -> Option<BasicSet> {
        let mut constraints = self.constraints.clone();
        let mut locals = self.locals.clone();
        // A division over a projected column loses its definition: it becomes an existential
        // variable bound by its defining inequalities (and so do the divisions built on it).
        let mut dropped: Vec<usize> = columns.to_vec();
        for (i, local) in locals.iter_mut().enumerate() {
            let Some(div) = &local.div else { continue };
            if !div.numerator.support().any(|c| dropped.contains(&c)) {
                continue;
            }
            let column = self.local_column(i);
            constraints.extend(div.defining_constraints(column));
            local.div = None;
            dropped.push(column);
        }
        // Integer mode tightens each result, which keeps every integer point of the shadow.
        let mut system = System::from_constraints(&constraints, true);
        for &column in columns {
            system.eliminate(column);
        }
        if system.infeasible {
            return None;
        }
        let shift = |c: usize| c - columns.iter().filter(|&&d| d < c).count();
        let mut space = self.space.clone();
        let first_dim = self.n_params();
        space.dims = (0..self.n_dims())
            .filter(|d| !columns.contains(&(first_dim + d)))
            .map(|d| self.space.dims[d].clone())
            .collect();
        Some(BasicSet {
            space,
            locals: locals
                .into_iter()
                .map(|local| Local {
                    div: local.div.map(|div| Div {
                        numerator: div.numerator.remap(shift),
                        denominator: div.denominator,
                    }),
                    name: local.name,
                })
                .collect(),
            constraints: system
                .eqs
                .iter()
                .map(|e| Constraint::eq(e.remap(shift)))
                .chain(
                    system
                        .ineqs
                        .iter()
                        .map(|i| Constraint::ge(i.expr.remap(shift))),
                )
                .collect(),
        })
    }
}

impl Set {
    /// The same set over renamed parameters and dims (`rename` injective; columns, locals
    /// and constraints are unchanged).
    pub fn renamed(&self, rename: &dyn Fn(&str) -> String) -> Set {
        Set {
            space: self.space.renamed(rename),
            parts: self
                .parts
                .iter()
                .map(|part| BasicSet {
                    space: part.space.renamed(rename),
                    ..part.clone()
                })
                .collect(),
        }
    }

    /// The same set with `names` as new, unconstrained dims after the existing ones.
    pub fn append_dims(&self, names: &[String]) -> Set {
        let mut space = self.space.clone();
        space.dims.extend(names.iter().cloned());
        Set {
            space,
            parts: self.parts.iter().map(|p| p.append_dims(names)).collect(),
        }
    }

    /// The set with `constraint` added to every part. The constraint is over the params and
    /// dims (columns `0..params + dims`); it must not mention a local, since each part numbers
    /// its own.
    pub fn constrain(&self, constraint: Constraint) -> Set {
        let columns = self.space.params.len() + self.space.dims.len();
        debug_assert!(
            constraint.expr.support().all(|c| c < columns),
            "a constraint for every part mentions only params and dims"
        );
        let mut result = self.clone();
        for part in &mut result.parts {
            part.add_constraint(constraint.clone());
        }
        result
    }

    /// The set without the named dims, as their *rational* shadow: Fourier–Motzkin
    /// elimination with each result tightened for integers. It holds every integer point of
    /// the exact projection and may hold more (`{ [i, j] : i = 2j }` without `j` is every `i`),
    /// so it is an over-approximation, exact when every eliminated dim has unit coefficients
    /// on one side of its bounds. Divisions over a removed dim become existential variables.
    /// Names that are not dims are ignored.
    pub fn project_out_dims(&self, names: &[&str]) -> Set {
        let first_dim = self.space.params.len();
        let columns: Vec<usize> = self
            .space
            .dims
            .iter()
            .enumerate()
            .filter(|(_, d)| names.contains(&d.as_str()))
            .map(|(i, _)| first_dim + i)
            .collect();
        let mut space = self.space.clone();
        space.dims.retain(|d| !names.contains(&d.as_str()));
        Set {
            space,
            parts: self
                .parts
                .iter()
                .filter_map(|p| p.project_out_columns(&columns))
                .collect(),
        }
    }
    pub fn empty(space: Space) -> Set {
        Set {
            space,
            parts: Vec::new(),
        }
    }
    pub fn from_basic(basic: BasicSet) -> Set {
        Set {
            space: basic.space.clone(),
            parts: vec![basic],
        }
    }
    /// Membership of an integer point; `None` when a part has existential locals.
    pub fn contains(&self, params: &[Int], dims: &[Int]) -> Option<bool> {
        let mut any = false;
        for part in &self.parts {
            any |= part.contains(params, dims)?;
        }
        Some(any)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isl::parse_set;

    fn ints(values: &[i64]) -> Vec<Int> {
        values.iter().map(|&v| Int::from(v)).collect()
    }

    fn holds(set: &Set, params: &[i64], dims: &[i64]) -> bool {
        set.contains(&ints(params), &ints(dims)).unwrap()
    }

    #[test]
    fn appended_dims_are_free_and_divisions_keep_their_meaning() {
        let set = parse_set("[n] -> { [i] : 0 <= i <= n and i mod 2 = 0 }").unwrap();
        let wider = set.append_dims(&["j".to_string(), "k".to_string()]);
        assert_eq!(wider.space.dims, ["i", "j", "k"]);
        for i in -1..=6 {
            for j in [-5, 0, 9] {
                assert_eq!(
                    holds(&wider, &[5], &[i, j, 3]),
                    holds(&set, &[5], &[i]),
                    "i = {i}, j = {j}"
                );
            }
        }
    }

    #[test]
    fn a_constraint_applies_to_every_part() {
        let set = parse_set("[n] -> { [i] : 0 <= i <= 2 or 5 <= i <= n }").unwrap();
        // i <= 5
        let cut = set.constrain(Constraint::ge(Affine::constant(5).sub(&Affine::var(1))));
        let inside: Vec<i64> = (-1..=9).filter(|&i| holds(&cut, &[8], &[i])).collect();
        assert_eq!(inside, [0, 1, 2, 5]);
    }

    #[test]
    fn projection_is_the_shadow_and_holds_every_projected_point() {
        let triangle = parse_set("[n] -> { [i, j] : 0 <= j <= i <= n }").unwrap();
        let shadow = triangle.project_out_dims(&["i"]);
        assert_eq!(shadow.space.dims, ["j"]);
        let inside: Vec<i64> = (-2..=6).filter(|&j| holds(&shadow, &[4], &[j])).collect();
        assert_eq!(inside, [0, 1, 2, 3, 4]);
        // Not exact for integers: i = 2j without j is every i in range, odd ones included.
        let even = parse_set("[n] -> { [i, j] : i = 2j and 0 <= i <= n }").unwrap();
        let shadow = even.project_out_dims(&["j"]);
        let inside: Vec<i64> = (-2..=6).filter(|&i| holds(&shadow, &[4], &[i])).collect();
        assert_eq!(inside, [0, 1, 2, 3, 4]);
        // Unknown names change nothing; an empty part disappears.
        assert_eq!(triangle.project_out_dims(&["z"]), triangle);
        let empty = parse_set("[n] -> { [i, j] : 0 <= i <= j and j < 0 and i >= 1 }").unwrap();
        assert!(empty.project_out_dims(&["i", "j"]).parts.is_empty());
    }

    #[test]
    fn a_division_over_a_projected_dim_becomes_existential() {
        let set = parse_set("[n] -> { [i, j] : 0 <= i <= n and j = i and i mod 3 = 0 }").unwrap();
        let shadow = set.project_out_dims(&["i"]);
        assert!(shadow.parts[0].locals.iter().all(|l| l.div.is_none()));
        // Exact here: j = i carries the stride over through the existential quotient.
        let counted = crate::count::count(&shadow).unwrap();
        let at = |n: i64| {
            let point = [("n".to_string(), Int::from(n))].into_iter().collect();
            counted.eval(&point).unwrap()
        };
        assert_eq!(at(7), crate::count::Value::Finite(Rat::from(3)));
    }
}

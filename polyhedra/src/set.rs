//! Integer sets with parameters: `[params] -> { [dims] : constraints }`, with local variables
//! that are either integer divisions (`floor(e/k)`, which is how `mod` and `floor` are kept) or
//! existentially quantified (`exists t : n = 3t`), and finite unions of such basic sets.
//!
//! Columns of a basic set are numbered params first, then dims, then locals.

use serde::{Deserialize, Serialize};

use crate::affine::Affine;
use crate::constraint::Constraint;
use crate::scalar::{Int, Rat};

#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
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
}

/// `floor(numerator / denominator)` with `numerator` over earlier columns.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Div {
    pub numerator: Affine,
    pub denominator: Int,
}

/// A local variable: an integer division when `div` is set, else existentially quantified.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Local {
    pub name: String,
    pub div: Option<Div>,
}

/// A conjunction of linear constraints over params, dims and locals.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct BasicSet {
    pub space: Space,
    pub locals: Vec<Local>,
    pub constraints: Vec<Constraint>,
}

/// A finite union of basic sets over one space.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
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
            let k = Rat::from(div.denominator.clone());
            let remainder = div
                .numerator
                .sub(&Affine::term(self.local_column(i), k.clone()));
            out.push(Constraint::ge(remainder.clone()));
            out.push(Constraint::ge(
                Affine::constant(k - Rat::one()).sub(&remainder),
            ));
        }
        out
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

impl Set {
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

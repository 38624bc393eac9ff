//! Linear constraints `expr = 0` and `expr >= 0` over indexed variables.

use serde::{Deserialize, Serialize};

use crate::affine::Affine;
use crate::scalar::Rat;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Relation {
    /// `expr = 0`
    Eq,
    /// `expr >= 0`
    Ge,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Constraint {
    pub expr: Affine,
    pub rel: Relation,
}

impl Constraint {
    /// `expr = 0`
    pub fn eq(expr: Affine) -> Constraint {
        Constraint {
            expr,
            rel: Relation::Eq,
        }
    }
    /// `expr >= 0`
    pub fn ge(expr: Affine) -> Constraint {
        Constraint {
            expr,
            rel: Relation::Ge,
        }
    }
    /// `lhs <= rhs`
    pub fn le_of(lhs: &Affine, rhs: &Affine) -> Constraint {
        Constraint::ge(rhs.sub(lhs))
    }
    pub fn is_equality(&self) -> bool {
        self.rel == Relation::Eq
    }
    pub fn is_satisfied(&self, point: &[Rat]) -> bool {
        let value = self.expr.eval(point);
        match self.rel {
            Relation::Eq => value.is_zero(),
            Relation::Ge => !value.is_negative(),
        }
    }
    /// The constraints whose union is the complement of `self` over integer points, given that
    /// `expr` takes integer values there (`e >= 0` becomes `-e - 1 >= 0`).
    pub fn integer_complement(&self) -> Vec<Constraint> {
        let expr = self.expr.primitive();
        let below = Constraint::ge(expr.neg().add(&Affine::constant(-1)));
        match self.rel {
            Relation::Ge => vec![below],
            Relation::Eq => vec![below, Constraint::ge(expr.add(&Affine::constant(-1)))],
        }
    }
    /// Same constraint in lowest integer terms (`x/2 >= 1/2` becomes `x - 1 >= 0`); for
    /// inequalities over integer points the constant is also rounded down.
    pub fn normalized_for_integers(&self) -> Constraint {
        match self.rel {
            Relation::Eq => Constraint::eq(self.expr.primitive()),
            Relation::Ge => Constraint::ge(self.expr.tightened_for_integers()),
        }
    }
    pub fn remap(&self, map: impl Fn(usize) -> usize) -> Constraint {
        Constraint {
            expr: self.expr.remap(map),
            rel: self.rel,
        }
    }
}

//! Exact rational linear programming (simplex with Bland's rule) over free variables:
//! `minimize objective subject to constraints`. Decides emptiness, implication and
//! redundancy far faster than Fourier–Motzkin once there are more than a handful of columns.

use crate::affine::Affine;
use crate::constraint::Constraint;
use crate::scalar::Rat;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LpResult {
    Infeasible,
    Unbounded,
    Optimal(Rat),
}

/// A simplex tableau in Jordan form: row `i` says `row_var[i] = constants[i] + Σ_j rows[i][j] *
/// col_var[j]`, with the nonbasic variables (the columns) at 0; the objective is written the same
/// way. Only nonbasic variables have columns, so a pivot costs rows × columns, not rows ×
/// variables. Variables `0..free` are free, the rest (slacks, the artificial one) are `>= 0`.
struct Tableau {
    row_var: Vec<usize>,
    col_var: Vec<usize>,
    constants: Vec<Rat>,
    rows: Vec<Vec<Rat>>,
    objective_constant: Rat,
    objective: Vec<Rat>,
    free: usize,
}

enum Pivot {
    Optimal,
    Unbounded,
    Step(usize, usize),
}

impl Tableau {
    fn is_free(&self, var: usize) -> bool {
        var < self.free
    }

    /// Bland's rule: the lowest-index improving nonbasic variable, and the tightest row (ties to
    /// the lowest-index basic variable).
    fn choose_pivot(&self) -> Pivot {
        let entering = (0..self.col_var.len())
            .filter(|&j| {
                let c = &self.objective[j];
                c.is_negative() || (self.is_free(self.col_var[j]) && c.is_positive())
            })
            .min_by_key(|&j| self.col_var[j]);
        let Some(column) = entering else {
            return Pivot::Optimal;
        };
        // Moving the entering variable in the improving direction.
        let increase = self.objective[column].is_negative();
        let mut best: Option<(Rat, usize)> = None;
        for (row, coefficients) in self.rows.iter().enumerate() {
            if self.is_free(self.row_var[row]) {
                continue;
            }
            let rate = &coefficients[column];
            let limiting = if increase {
                rate.is_negative()
            } else {
                rate.is_positive()
            };
            if !limiting {
                continue;
            }
            let ratio = (&self.constants[row] / rate).abs();
            let better = match &best {
                None => true,
                Some((r, b)) => ratio < *r || (ratio == *r && self.row_var[row] < self.row_var[*b]),
            };
            if better {
                best = Some((ratio, row));
            }
        }
        match best {
            Some((_, row)) => Pivot::Step(row, column),
            None => Pivot::Unbounded,
        }
    }

    /// Exchanges the basic variable of `row` with the nonbasic variable of `column`.
    fn pivot(&mut self, row: usize, column: usize) {
        let p = self.rows[row][column].clone();
        let inverse = Rat::one() / &p;
        // entering = (leaving - constant - Σ_{j≠column} rows[row][j] x_j) / p
        let mut expression: Vec<Rat> = self.rows[row].iter().map(|c| -(c * &inverse)).collect();
        expression[column] = inverse.clone();
        let constant = -(&self.constants[row] * &inverse);
        let eliminate = |target_constant: &mut Rat, target: &mut [Rat]| {
            let factor = std::mem::take(&mut target[column]);
            if factor.is_zero() {
                return;
            }
            *target_constant += &factor * &constant;
            for (c, e) in target.iter_mut().zip(&expression) {
                if !e.is_zero() {
                    *c += &factor * e;
                }
            }
        };
        for other in 0..self.rows.len() {
            if other != row {
                eliminate(&mut self.constants[other], &mut self.rows[other]);
            }
        }
        eliminate(&mut self.objective_constant, &mut self.objective);
        self.rows[row] = expression;
        self.constants[row] = constant;
        std::mem::swap(&mut self.row_var[row], &mut self.col_var[column]);
    }

    /// Runs the simplex to optimality; `false` when unbounded.
    fn optimize(&mut self) -> bool {
        loop {
            match self.choose_pivot() {
                Pivot::Optimal => return true,
                Pivot::Unbounded => return false,
                Pivot::Step(row, column) => self.pivot(row, column),
            }
        }
    }

    /// Sets the objective to `Σ_var weights(var) * var + constant`, rewritten over the
    /// nonbasic variables.
    fn set_objective(&mut self, constant: Rat, weight: impl Fn(usize) -> Rat) {
        self.objective_constant = constant;
        self.objective = self.col_var.iter().map(|&v| weight(v)).collect();
        for row in 0..self.rows.len() {
            let factor = weight(self.row_var[row]);
            if factor.is_zero() {
                continue;
            }
            self.objective_constant += &factor * &self.constants[row];
            for (c, e) in self.objective.iter_mut().zip(&self.rows[row]) {
                if !e.is_zero() {
                    *c += &factor * e;
                }
            }
        }
    }

    /// Removes the column of `var`, first making it nonbasic when it is basic (at value 0).
    fn drop_variable(&mut self, var: usize) {
        if let Some(row) = self.row_var.iter().position(|&b| b == var) {
            match (0..self.col_var.len()).find(|&j| !self.rows[row][j].is_zero()) {
                Some(column) => self.pivot(row, column),
                None => {
                    // The row says `var = 0` and nothing else: it carries no constraint.
                    self.row_var.remove(row);
                    self.constants.remove(row);
                    self.rows.remove(row);
                    return;
                }
            }
        }
        if let Some(column) = self.col_var.iter().position(|&v| v == var) {
            self.col_var.remove(column);
            for row in &mut self.rows {
                row.remove(column);
            }
            if column < self.objective.len() {
                self.objective.remove(column);
            }
        }
    }
}

/// Minimizes `objective` over the points of `constraints` (variables are free).
pub(crate) fn minimize(objective: &Affine, constraints: &[Constraint]) -> LpResult {
    let n = constraints
        .iter()
        .map(|c| c.expr.coeffs.len())
        .chain([objective.coeffs.len()])
        .max()
        .unwrap_or(0);
    // An equality is two inequalities.
    let negated: Vec<Affine> = constraints
        .iter()
        .filter(|c| c.is_equality())
        .map(|c| c.expr.neg())
        .collect();
    let rows: Vec<&Affine> = constraints
        .iter()
        .map(|c| &c.expr)
        .chain(&negated)
        .collect();
    let m = rows.len();
    // Variables: free 0..n, slacks n..n+m (slack i is row i's value), artificial n+m, which
    // is added to every row so that one pivot makes the start feasible.
    let artificial = n + m;
    let mut tableau = Tableau {
        row_var: (n..n + m).collect(),
        col_var: (0..n).chain([artificial]).collect(),
        constants: rows.iter().map(|r| r.constant.clone()).collect(),
        rows: rows
            .iter()
            .map(|r| (0..n).map(|j| r.coeff(j)).chain([Rat::one()]).collect())
            .collect(),
        objective_constant: Rat::zero(),
        objective: vec![Rat::zero(); n + 1],
        free: n,
    };
    let most_negative = (0..m)
        .filter(|&i| tableau.constants[i].is_negative())
        .min_by(|&a, &b| {
            tableau.constants[a]
                .cmp(&tableau.constants[b])
                .then(a.cmp(&b))
        });
    if let Some(row) = most_negative {
        // Phase 1: minimize the artificial variable, which becomes basic and feasible.
        tableau.pivot(row, n);
        tableau.set_objective(Rat::zero(), |v| {
            if v == artificial {
                Rat::one()
            } else {
                Rat::zero()
            }
        });
        tableau.optimize();
        if tableau.objective_constant.is_positive() {
            return LpResult::Infeasible;
        }
    }
    // Phase 2: the artificial variable is gone (it is 0 at every feasible point).
    tableau.drop_variable(artificial);
    tableau.set_objective(objective.constant.clone(), |v| {
        if v < n {
            objective.coeff(v)
        } else {
            Rat::zero()
        }
    });
    if tableau.optimize() {
        LpResult::Optimal(tableau.objective_constant)
    } else {
        LpResult::Unbounded
    }
}

/// True when the constraints have no rational solution.
pub(crate) fn is_infeasible(constraints: &[Constraint]) -> bool {
    minimize(&Affine::zero(), constraints) == LpResult::Infeasible
}

/// True when some point of `constraints` satisfies every inequality strictly, so that none of
/// them is an implicit equality. One linear program, `maximize t` with each inequality `>= t`
/// and `t <= 1`, instead of one per inequality: if each inequality is strict at some point, the
/// average of those points is strict for all of them.
pub(crate) fn has_strictly_feasible_point(constraints: &[Constraint]) -> bool {
    let t = constraints
        .iter()
        .map(|c| c.expr.coeffs.len())
        .max()
        .unwrap_or(0);
    let mut lifted: Vec<Constraint> = constraints
        .iter()
        .map(|c| {
            let mut expr = c.expr.clone();
            if !c.is_equality() {
                expr.set_coeff(t, -Rat::one());
            }
            Constraint { expr, rel: c.rel }
        })
        .collect();
    lifted.push(Constraint::ge(Affine::constant(1).sub(&Affine::var(t))));
    match minimize(&Affine::var(t).neg(), &lifted) {
        LpResult::Optimal(value) => value.is_negative(),
        LpResult::Infeasible | LpResult::Unbounded => false,
    }
}

/// True when every solution of `constraints` satisfies `expr >= 0` (vacuously when there is
/// none).
pub(crate) fn implies_nonnegative(constraints: &[Constraint], expr: &Affine) -> bool {
    match minimize(expr, constraints) {
        LpResult::Infeasible => true,
        LpResult::Unbounded => false,
        LpResult::Optimal(value) => !value.is_negative(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ge(coeffs: &[i64], constant: i64) -> Constraint {
        Constraint::ge(Affine::from_ints(coeffs, constant))
    }

    #[test]
    fn finds_the_minimum_of_a_triangle() {
        // 0 <= y <= x <= 4, minimize y - x  => -4
        let constraints = [ge(&[0, 1], 0), ge(&[1, -1], 0), ge(&[-1, 0], 4)];
        let objective = Affine::from_coeffs(vec![Rat::from(-1), Rat::from(1)], Rat::zero());
        assert_eq!(
            minimize(&objective, &constraints),
            LpResult::Optimal(Rat::from(-4))
        );
        assert_eq!(
            minimize(&Affine::var(0).neg(), &[ge(&[1], 0)]),
            LpResult::Unbounded
        );
    }

    #[test]
    fn a_strictly_feasible_point_exists_unless_an_inequality_is_tight_everywhere() {
        // 0 <= y <= x <= 4 has an interior; 0 <= x <= 0 and y <= x <= y do not.
        assert!(has_strictly_feasible_point(&[
            ge(&[0, 1], 0),
            ge(&[1, -1], 0),
            ge(&[-1, 0], 4)
        ]));
        assert!(!has_strictly_feasible_point(&[
            ge(&[1, 0], 0),
            ge(&[-1, 0], 0),
            ge(&[0, 1], 0)
        ]));
        assert!(!has_strictly_feasible_point(&[
            ge(&[1, -1], 0),
            ge(&[-1, 1], 0)
        ]));
        // Equalities stay equalities: only inequalities need to be strict.
        let on_line = [
            Constraint::eq(Affine::var(0).sub(&Affine::var(1))),
            ge(&[1, 0], 0),
        ];
        assert!(has_strictly_feasible_point(&on_line));
    }

    #[test]
    fn detects_infeasibility_and_equalities() {
        assert!(is_infeasible(&[ge(&[1], -3), ge(&[-1], 2)]));
        let on_line = [
            Constraint::eq(Affine::var(0).sub(&Affine::var(1))),
            ge(&[1, 0], -2),
            ge(&[0, -1], 1),
        ];
        assert!(is_infeasible(&on_line));
        assert!(!is_infeasible(&on_line[..2]));
    }
}

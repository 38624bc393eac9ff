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

/// A dictionary: `basic[i] = constants[i] + Σ_j rows[i][j] * x_j` (nonbasic `x_j`); the
/// objective likewise. Columns `0..free` are free variables, the rest are `>= 0`.
struct Dictionary {
    basic: Vec<usize>,
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

impl Dictionary {
    fn is_free(&self, var: usize) -> bool {
        var < self.free
    }

    /// Bland's rule: the lowest-index improving nonbasic variable, and the tightest row.
    fn choose_pivot(&self) -> Pivot {
        let basic_set: Vec<bool> = (0..self.objective.len())
            .map(|v| self.basic.contains(&v))
            .collect();
        let entering = (0..self.objective.len()).find(|&v| {
            let c = &self.objective[v];
            !basic_set[v] && (c.is_negative() || (self.is_free(v) && c.is_positive()))
        });
        let Some(entering) = entering else {
            return Pivot::Optimal;
        };
        // Moving `entering` in the improving direction.
        let increase = self.objective[entering].is_negative();
        let mut best: Option<(Rat, usize, usize)> = None;
        for (row, coefficients) in self.rows.iter().enumerate() {
            if self.is_free(self.basic[row]) {
                continue;
            }
            let rate = if increase {
                coefficients[entering].clone()
            } else {
                -coefficients[entering].clone()
            };
            if !rate.is_negative() {
                continue;
            }
            let ratio = &self.constants[row] / -rate;
            let better = match &best {
                None => true,
                Some((r, _, var)) => ratio < *r || (ratio == *r && self.basic[row] < *var),
            };
            if better {
                best = Some((ratio, row, self.basic[row]));
            }
        }
        match best {
            Some((_, row, _)) => Pivot::Step(entering, row),
            None => Pivot::Unbounded,
        }
    }

    fn pivot(&mut self, entering: usize, row: usize) {
        let leaving = self.basic[row];
        let a = self.rows[row][entering].clone();
        // entering = (leaving - constant - Σ_{j≠entering} rows[row][j] x_j) / a
        let mut expression: Vec<Rat> = self.rows[row].iter().map(|c| -c / &a).collect();
        expression[entering] = Rat::zero();
        expression[leaving] = Rat::one() / &a;
        let constant = -&self.constants[row] / &a;
        for other in 0..self.rows.len() {
            if other == row {
                continue;
            }
            let factor = std::mem::take(&mut self.rows[other][entering]);
            if factor.is_zero() {
                continue;
            }
            self.constants[other] += &factor * &constant;
            for (c, e) in self.rows[other].iter_mut().zip(&expression) {
                if !e.is_zero() {
                    *c += &factor * e;
                }
            }
        }
        let factor = std::mem::take(&mut self.objective[entering]);
        if !factor.is_zero() {
            self.objective_constant += &factor * &constant;
            for (c, e) in self.objective.iter_mut().zip(&expression) {
                if !e.is_zero() {
                    *c += &factor * e;
                }
            }
        }
        self.rows[row] = expression;
        self.constants[row] = constant;
        self.basic[row] = entering;
    }

    /// Runs the simplex to optimality; `false` when unbounded.
    fn optimize(&mut self) -> bool {
        loop {
            match self.choose_pivot() {
                Pivot::Optimal => return true,
                Pivot::Unbounded => return false,
                Pivot::Step(entering, row) => self.pivot(entering, row),
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
    let mut rows: Vec<&Affine> = Vec::new();
    let mut negated: Vec<Affine> = Vec::new();
    for c in constraints {
        if c.is_equality() {
            negated.push(c.expr.neg());
        }
    }
    for c in constraints {
        rows.push(&c.expr);
    }
    rows.extend(negated.iter());
    let m = rows.len();
    // Columns: free variables 0..n, slacks n..n+m, artificial n+m.
    let columns = n + m + 1;
    let artificial = n + m;
    let mut dictionary = Dictionary {
        basic: (n..n + m).collect(),
        constants: rows.iter().map(|r| r.constant.clone()).collect(),
        rows: rows
            .iter()
            .map(|r| {
                let mut row: Vec<Rat> = (0..n).map(|j| r.coeff(j)).collect();
                row.resize(columns, Rat::zero());
                row[artificial] = Rat::one();
                row
            })
            .collect(),
        objective_constant: Rat::zero(),
        objective: vec![Rat::zero(); columns],
        free: n,
    };
    let most_negative = (0..m)
        .filter(|&i| dictionary.constants[i].is_negative())
        .min_by(|&a, &b| {
            dictionary.constants[a]
                .cmp(&dictionary.constants[b])
                .then(a.cmp(&b))
        });
    if let Some(row) = most_negative {
        // Phase 1: minimize the artificial variable, which starts basic and feasible.
        dictionary.pivot(artificial, row);
        dictionary.objective = vec![Rat::zero(); columns];
        dictionary.objective[artificial] = Rat::one();
        dictionary.substitute_basics_into_objective();
        dictionary.optimize();
        if dictionary.objective_constant.is_positive() {
            return LpResult::Infeasible;
        }
        dictionary.drive_out(artificial);
    }
    // Phase 2: the artificial variable stays at 0.
    for row in &mut dictionary.rows {
        row[artificial] = Rat::zero();
    }
    dictionary.objective = (0..columns).map(|j| objective.coeff(j)).collect();
    for j in n..columns {
        dictionary.objective[j] = Rat::zero();
    }
    dictionary.objective_constant = objective.constant.clone();
    dictionary.substitute_basics_into_objective();
    if dictionary.optimize() {
        LpResult::Optimal(dictionary.objective_constant.clone())
    } else {
        LpResult::Unbounded
    }
}

impl Dictionary {
    /// Rewrites the objective in terms of the current nonbasic variables.
    fn substitute_basics_into_objective(&mut self) {
        for row in 0..self.rows.len() {
            let var = self.basic[row];
            let factor = std::mem::take(&mut self.objective[var]);
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

    /// Makes `var` (at value 0) nonbasic, pivoting on any non-zero entry of its row.
    fn drive_out(&mut self, var: usize) {
        let Some(row) = self.basic.iter().position(|&b| b == var) else {
            return;
        };
        if let Some(entering) =
            (0..self.rows[row].len()).find(|&j| j != var && !self.rows[row][j].is_zero())
        {
            self.pivot(entering, row);
        }
    }
}

/// True when the constraints have no rational solution.
pub(crate) fn is_infeasible(constraints: &[Constraint]) -> bool {
    minimize(&Affine::zero(), constraints) == LpResult::Infeasible
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
        Constraint::ge(Affine::from_coeffs(
            coeffs.iter().map(|&c| Rat::from(c)).collect(),
            Rat::from(constant),
        ))
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

//! The counting engine: exact symbolic summation over the variables of a parametric polytope,
//! one variable at a time.
//!
//! A *cell* is a conjunction of integer linear constraints plus a polynomial summand; the count
//! of a set is the sum over its cells of the summand over their integer points. Eliminating a
//! variable `x`:
//! - when `x` has a non-unit coefficient in a bound, the other variables in that bound are split
//!   by residue (`y = m*y' + r`) so that the bound becomes `affine + floor(symbols / a)`; the
//!   floor of parameters becomes a *division column*, a symbol like a parameter;
//! - the cell is split by which lower and which upper bound is active (ties go to the first),
//!   and the summand is summed in closed form: `Σ_{x=L}^{U} x^k = S_k(U) - S_k(L-1)` with the
//!   Faulhaber polynomials `S_k`. That formula is exact and gives 0 at `U = L - 1`, so the cell
//!   keeps `U - L + 1 >= 0` as its condition (one guard fewer than `U >= L`).
//!
//! Equalities are removed first by unimodular changes of variables (which keep the count). The
//! sets it counts have division locals only (existentials are eliminated before, in
//! `existential.rs`): a division is a function of the dims, so counting it as a variable keeps
//! the count. Rationally empty cells are pruned (sound for integer points).

use std::collections::HashMap;

use num_integer::Integer;
use num_traits::{One, Signed, Zero};

use crate::affine::Affine;
use crate::constraint::Constraint;
use crate::lp;
use crate::polynomial::Polynomial;
use crate::scalar::{Int, Rat};
use crate::set::{BasicSet, Div};

use super::CountError;
use super::piecewise::without_parallel_duplicates;

/// Above this many live cells the engine stops rather than exhaust memory.
const CELL_LIMIT: usize = 20_000;

/// A polynomial over engine columns.
pub(crate) type ColumnPoly = Polynomial<usize>;

/// A finished cell: the summand is valid where `guard` holds; both mention only parameters and
/// division columns.
pub(crate) struct FinishedCell {
    pub guard: Vec<Constraint>,
    pub summand: ColumnPoly,
}

pub(crate) enum EngineResult {
    Finite(Vec<FinishedCell>),
    Infinite,
}

#[derive(Clone)]
struct Cell {
    constraints: Vec<Constraint>,
    summand: ColumnPoly,
    vars: Vec<usize>,
}

/// A variable of a summand handed to the engine: a column of the set (a parameter or a dim), or
/// a symbol, an opaque factor that stays in the result as it is (the counting code uses it for
/// a periodic coefficient in the parameters).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(crate) enum SummandVar {
    Column(usize),
    Symbol(usize),
}

/// The summation of one basic set. Its columns are the parameters, the symbols, the set's
/// variables, then the divisions it creates, so every affine form stays as short as the set is
/// small (forms are dense vectors: an engine shared by many sets, each on columns of its own,
/// made forms of thousands of zeros).
pub(crate) struct Engine {
    n_params: usize,
    /// Symbols are the columns right after the parameters.
    n_symbols: usize,
    /// Division columns created while counting: column → definition over params and earlier
    /// divisions.
    pub divs: Vec<(usize, Div)>,
    next_column: usize,
}

/// The placeholder variable of the Faulhaber polynomials.
const FAULHABER_VAR: usize = usize::MAX;

impl Engine {
    pub fn new(n_params: usize, n_symbols: usize) -> Engine {
        Engine {
            n_params,
            n_symbols,
            divs: Vec::new(),
            next_column: n_params + n_symbols,
        }
    }

    /// The engine column of symbol `index`, when it is one.
    pub fn symbol_of_column(&self, column: usize) -> Option<usize> {
        (self.n_params..self.n_params + self.n_symbols)
            .contains(&column)
            .then(|| column - self.n_params)
    }

    /// Sums `summand` over the integer points of `set` (its dims and locals are the variables;
    /// its locals are divisions, so each point of the dims has one value of them). An engine
    /// sums one set.
    pub fn sum(
        &mut self,
        set: &BasicSet,
        summand: &Polynomial<SummandVar>,
    ) -> Result<EngineResult, CountError> {
        let first_var = self.n_params;
        let n_vars = set.n_dims() + set.locals.len();
        let offset = self.next_column;
        let column = |c: usize| {
            if c < first_var {
                c
            } else {
                c - first_var + offset
            }
        };
        self.next_column = offset + n_vars;
        let constraints: Vec<Constraint> = set
            .all_constraints()
            .iter()
            .map(|c| c.remap(column).normalized_for_integers())
            .collect();
        let summand = summand.map_vars(|var| match *var {
            SummandVar::Column(c) => column(c),
            SummandVar::Symbol(index) => first_var + index,
        });
        let cell = Cell {
            constraints,
            summand,
            vars: (offset..offset + n_vars).collect(),
        };
        let Some(cell) = self.without_equalities(cell) else {
            return Ok(EngineResult::Finite(Vec::new()));
        };
        self.sum_cells(vec![cell])
    }

    fn sum_cells(&mut self, mut work: Vec<Cell>) -> Result<EngineResult, CountError> {
        let mut finished = Vec::new();
        while let Some(cell) = work.pop() {
            if work.len() > CELL_LIMIT {
                return Err(CountError::TooComplex);
            }
            super::deadline::check()?;
            if cell.vars.is_empty() {
                finished.push(FinishedCell {
                    guard: cell.constraints,
                    summand: cell.summand,
                });
                continue;
            }
            match self.eliminate_one(cell)? {
                Step::Cells(cells) => work.extend(cells),
                Step::Unbounded => return Ok(EngineResult::Infinite),
            }
        }
        Ok(EngineResult::Finite(finished))
    }

    /// Rational (integer-tightened) emptiness, with the division definitions.
    fn is_empty(&self, constraints: &[Constraint]) -> bool {
        let mut all: Vec<Constraint> = constraints.to_vec();
        all.extend(self.div_constraints(&self.divs_used_by(constraints)));
        let tightened: Vec<Constraint> = all
            .iter()
            .map(Constraint::normalized_for_integers)
            .collect();
        lp::is_infeasible(&tightened)
    }

    /// Division columns mentioned by `constraints`, directly or through other divisions.
    pub fn divs_used_by(&self, constraints: &[Constraint]) -> Vec<usize> {
        let mut used: Vec<usize> = Vec::new();
        let mut pending: Vec<usize> = constraints.iter().flat_map(|c| c.expr.support()).collect();
        while let Some(column) = pending.pop() {
            if used.contains(&column) {
                continue;
            }
            if let Some((_, div)) = self.divs.iter().find(|(c, _)| *c == column) {
                used.push(column);
                pending.extend(div.numerator.support());
            }
        }
        used.sort_unstable();
        used
    }

    /// The defining inequalities of the given division columns.
    fn div_constraints(&self, columns: &[usize]) -> Vec<Constraint> {
        let mut out = Vec::new();
        for (column, div) in self.divs.iter().filter(|(c, _)| columns.contains(c)) {
            out.extend(div.defining_constraints(*column));
        }
        out
    }

    /// The column of `floor(numerator / denominator)`, creating it if needed.
    fn div_column(&mut self, numerator: Affine, denominator: Int) -> usize {
        let div = Div {
            numerator,
            denominator,
        };
        if let Some((column, _)) = self.divs.iter().find(|(_, d)| *d == div) {
            return *column;
        }
        let column = self.next_column;
        self.next_column += 1;
        self.divs.push((column, div));
        column
    }

    /// Removes every equality that mentions a variable; `None` when the cell is empty.
    fn without_equalities(&mut self, mut cell: Cell) -> Option<Cell> {
        loop {
            let position = cell.constraints.iter().position(|c| {
                c.is_equality() && cell.vars.iter().any(|v| c.expr.coeff_ref(*v).is_some())
            });
            let Some(position) = position else {
                return Some(cell);
            };
            let equality = cell.constraints.remove(position).expr;
            cell = self.apply_equality(cell, equality)?;
        }
    }

    fn apply_equality(&mut self, mut cell: Cell, equality: Affine) -> Option<Cell> {
        let (var_part, symbol_part) = split_affine(&equality, &cell.vars);
        let g = var_part
            .coeffs
            .iter()
            .fold(Int::zero(), |acc, c| acc.gcd(&c.numer()));
        let mut equality = equality;
        if !g.is_one() {
            // var_part / g is integral, so the rest must be divisible by g.
            if symbol_part.is_constant() {
                if !symbol_part.constant.numer().is_multiple_of(&g) {
                    return None;
                }
                equality = equality.scale(&Rat::from(Int::one()).recip_of(&g));
            } else {
                let d = self.div_column(symbol_part.clone(), g.clone());
                let exact = symbol_part.sub(&Affine::term(d, Rat::from(g.clone())));
                cell.constraints.push(Constraint::eq(exact));
                equality = var_part
                    .scale(&Rat::one().recip_of(&g))
                    .add(&Affine::var(d));
            }
        }
        // Now the variable coefficients have gcd 1: reduce them by unimodular changes of
        // variables until one is ±1, then substitute that variable away.
        loop {
            let mut with_var: Vec<(usize, Int)> = cell
                .vars
                .iter()
                .filter_map(|&v| equality.coeff_ref(v).map(|c| (v, c.numer())))
                .collect();
            with_var.sort_by_key(|(_, c)| c.abs());
            let (pivot, pivot_coeff) = with_var[0].clone();
            if pivot_coeff.abs().is_one() {
                let mut rest = equality.clone();
                rest.set_coeff(pivot, Rat::zero());
                let value = rest.scale(&Rat::from(-pivot_coeff.signum()));
                return Some(self.substitute_var(cell, pivot, &value));
            }
            // x_pivot := x_pivot - q*x_other reduces the other coefficient modulo the pivot's
            // (a unimodular change of variables, so the count is unchanged).
            let (other, other_coeff) = with_var[1].clone();
            let q = other_coeff.div_floor(&pivot_coeff);
            let replacement = Affine::var(pivot).sub(&Affine::term(other, Rat::from(q)));
            equality = equality.substitute(pivot, &replacement);
            cell = self.substitute_var_keep(cell, pivot, &replacement);
        }
    }

    /// Replaces `var` by `value` everywhere and drops it from the variables.
    fn substitute_var(&self, cell: Cell, var: usize, value: &Affine) -> Cell {
        let mut cell = self.substitute_var_keep(cell, var, value);
        cell.vars.retain(|&v| v != var);
        cell
    }

    /// Replaces `var` by `value` (which may mention `var`: a change of variables).
    fn substitute_var_keep(&self, cell: Cell, var: usize, value: &Affine) -> Cell {
        let constraints = cell
            .constraints
            .iter()
            .map(|c| {
                Constraint {
                    expr: c.expr.substitute(var, value),
                    rel: c.rel,
                }
                .normalized_for_integers()
            })
            .collect();
        let summand = cell.summand.substitute(&var, &affine_poly(value));
        Cell {
            constraints,
            summand,
            vars: cell.vars,
        }
    }

    fn eliminate_one(&mut self, mut cell: Cell) -> Result<Step, CountError> {
        // A parallel constraint with a larger constant is implied: each one kept would be one
        // more bound, so more cells, and one more row in every emptiness test.
        cell.constraints = without_parallel_duplicates(std::mem::take(&mut cell.constraints));
        let var = self.choose_variable(&cell);
        let bounds: Vec<&Constraint> = cell
            .constraints
            .iter()
            .filter(|c| c.expr.coeff_ref(var).is_some())
            .collect();
        let has_lower = bounds.iter().any(|c| c.expr.coeff(var).is_positive());
        let has_upper = bounds.iter().any(|c| c.expr.coeff(var).is_negative());
        if !has_lower || !has_upper {
            return Ok(if self.is_empty(&cell.constraints) {
                Step::Cells(Vec::new())
            } else {
                Step::Unbounded
            });
        }
        // The sum over `var` follows its splits at once: choosing again could pick a variable
        // whose bounds the splits just made larger, and split without end.
        let splits = self.needed_splits(&cell, var);
        let cells = self.split(cell, &splits)?;
        Ok(Step::Cells(
            cells
                .into_iter()
                .flat_map(|c| self.sum_over(c, var))
                .collect(),
        ))
    }

    /// Prefers variables whose bounds need no residue split, then the fewest bound pairs.
    fn choose_variable(&self, cell: &Cell) -> usize {
        let cost = |var: usize| {
            let bounds = cell
                .constraints
                .iter()
                .filter(|c| c.expr.coeff_ref(var).is_some());
            let non_unit = bounds
                .clone()
                .filter(|c| !c.expr.coeff(var).abs().is_one())
                .count();
            let lower = bounds
                .clone()
                .filter(|c| c.expr.coeff(var).is_positive())
                .count();
            let upper = bounds.filter(|c| c.expr.coeff(var).is_negative()).count();
            (non_unit, lower * upper)
        };
        cell.vars
            .iter()
            .copied()
            .min_by_key(|&v| cost(v))
            .unwrap_or(cell.vars[0])
    }

    /// For each other variable, the modulus it must be split by so that every bound on `var`
    /// has a variable part divisible by `var`'s coefficient.
    fn needed_splits(&self, cell: &Cell, var: usize) -> Vec<(usize, Int)> {
        let mut moduli: HashMap<usize, Int> = HashMap::new();
        for c in &cell.constraints {
            let a = c.expr.coeff(var).abs();
            if a.is_zero() || a.is_one() {
                continue;
            }
            let a = a.numer();
            for &other in &cell.vars {
                let coeff = c.expr.coeff(other);
                if other == var || coeff.numer().is_multiple_of(&a) {
                    continue;
                }
                let needed = &a / a.gcd(&coeff.numer());
                let entry = moduli.entry(other).or_insert_with(Int::one);
                *entry = entry.lcm(&needed);
            }
        }
        let mut splits: Vec<(usize, Int)> = moduli.into_iter().collect();
        splits.sort();
        splits
    }

    /// One cell per residue class: `y = m*y + r` for each split `(y, m)`; a modulus with more
    /// residues than the engine keeps cells is too complex.
    fn split(&self, cell: Cell, splits: &[(usize, Int)]) -> Result<Vec<Cell>, CountError> {
        let mut cells = vec![cell];
        for (var, modulus) in splits {
            let m: i64 = modulus
                .try_into()
                .ok()
                .filter(|&m: &i64| m <= CELL_LIMIT as i64)
                .ok_or(CountError::TooComplex)?;
            cells = cells
                .into_iter()
                .flat_map(|c| {
                    (0..m).map(move |r| {
                        let value = Affine::term(*var, Rat::from(m)).add(&Affine::constant(r));
                        self.substitute_var_keep(c.clone(), *var, &value)
                    })
                })
                .filter(|c| !self.is_empty(&c.constraints))
                .collect();
        }
        Ok(cells)
    }

    /// Sums the summand over `var`, one cell per (active lower, active upper) bound pair.
    fn sum_over(&mut self, cell: Cell, var: usize) -> Vec<Cell> {
        let mut lowers: Vec<Affine> = Vec::new();
        let mut uppers: Vec<Affine> = Vec::new();
        let mut rest: Vec<Constraint> = Vec::new();
        for c in &cell.constraints {
            let a = c.expr.coeff(var);
            if a.is_zero() {
                rest.push(c.clone());
            } else if a.is_positive() {
                let bound = self.integer_bound(&c.expr, var, &cell.vars, true);
                push_unique(&mut lowers, bound);
            } else {
                let bound = self.integer_bound(&c.expr, var, &cell.vars, false);
                push_unique(&mut uppers, bound);
            }
        }
        let vars: Vec<usize> = cell.vars.iter().copied().filter(|&v| v != var).collect();
        let mut cells = Vec::new();
        for (i, lower) in lowers.iter().enumerate() {
            for (j, upper) in uppers.iter().enumerate() {
                let mut constraints = rest.clone();
                constraints.extend(active_conditions(&lowers, i, true));
                constraints.extend(active_conditions(&uppers, j, false));
                // Non-empty range, relaxed by one: the closed form is 0 at U = L - 1.
                constraints.push(Constraint::ge(upper.sub(lower).add(&Affine::constant(1))));
                let constraints: Vec<Constraint> = constraints
                    .into_iter()
                    .map(|c| c.normalized_for_integers())
                    .filter(|c| !is_trivial(c))
                    .collect();
                if self.is_empty(&constraints) {
                    continue;
                }
                let summand = self.sum_polynomial(&cell.summand, var, lower, upper);
                if summand.is_zero() {
                    continue;
                }
                cells.push(Cell {
                    constraints,
                    summand,
                    vars: vars.clone(),
                });
            }
        }
        cells
    }

    /// The bound on `var` from `expr >= 0` as an integer-valued affine form (a division
    /// column stands for the floor of its symbolic part).
    fn integer_bound(&mut self, expr: &Affine, var: usize, vars: &[usize], lower: bool) -> Affine {
        // lower: a*x + e >= 0, x >= -floor(e/a); upper: -b*x + f >= 0, x <= floor(f/b).
        let a = expr.coeff(var).abs();
        let mut e = expr.clone();
        e.set_coeff(var, Rat::zero());
        let (var_part, symbol_part) = split_affine(&e, vars);
        let floor = if a.is_one() {
            e
        } else {
            let denominator = a.numer();
            let floor_of_symbols = if symbol_part.is_constant() {
                Affine::constant(Rat::from((&symbol_part.constant / &a).floor()))
            } else {
                Affine::var(self.div_column(symbol_part, denominator))
            };
            var_part
                .scale(&a.recip().unwrap_or_else(Rat::one))
                .add(&floor_of_symbols)
        };
        if lower { floor.neg() } else { floor }
    }

    /// `Σ_{var = lower}^{upper} summand` as a polynomial in the other columns.
    fn sum_polynomial(
        &mut self,
        summand: &ColumnPoly,
        var: usize,
        lower: &Affine,
        upper: &Affine,
    ) -> ColumnPoly {
        let upper_poly = affine_poly(upper);
        let below_lower = affine_poly(&lower.sub(&Affine::constant(1)));
        let mut total = ColumnPoly::zero();
        for (k, coefficient) in summand.coefficients_in(&var).into_iter().enumerate() {
            if coefficient.is_zero() {
                continue;
            }
            let s_k = faulhaber(k);
            let at_upper = s_k.substitute(&FAULHABER_VAR, &upper_poly);
            let at_below = s_k.substitute(&FAULHABER_VAR, &below_lower);
            total = total + &coefficient * &(at_upper - at_below);
        }
        total
    }
}

thread_local! {
    /// The Faulhaber polynomials computed so far (every engine needs the same few).
    static FAULHABER: std::cell::RefCell<Vec<ColumnPoly>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `S_k(m) = Σ_{x=0}^{m} x^k`, from `(m+1)^{k+1} = Σ_{j<=k} C(k+1, j) S_j(m)`.
fn faulhaber(k: usize) -> ColumnPoly {
    FAULHABER.with_borrow_mut(|known| {
        while known.len() <= k {
            let n = known.len();
            let m_plus_one = ColumnPoly::var(FAULHABER_VAR) + ColumnPoly::one();
            let mut rest = m_plus_one.pow(n as u32 + 1);
            let mut binomial = Rat::one();
            for (j, s_j) in known.iter().enumerate() {
                rest = &rest - &s_j.scale(&binomial);
                binomial = binomial * Rat::from((n + 1 - j) as i64) / Rat::from((j + 1) as i64);
            }
            known.push(rest.scale(&(Rat::one() / Rat::from(n as i64 + 1))));
        }
        known[k].clone()
    })
}

enum Step {
    Cells(Vec<Cell>),
    Unbounded,
}

impl Rat {
    /// `self / divisor` (divisor non-zero).
    fn recip_of(&self, divisor: &Int) -> Rat {
        self / Rat::from(divisor.clone())
    }
}

fn push_unique(list: &mut Vec<Affine>, item: Affine) {
    if !list.contains(&item) {
        list.push(item);
    }
}

fn is_trivial(c: &Constraint) -> bool {
    c.expr.is_constant() && c.is_satisfied(&[])
}

/// The conditions making bound `index` the active one: strictly beyond the earlier bounds and
/// at least as far as the later ones (so exactly one bound is active at each point).
fn active_conditions(bounds: &[Affine], index: usize, lower: bool) -> Vec<Constraint> {
    let chosen = &bounds[index];
    bounds
        .iter()
        .enumerate()
        .filter(|(k, _)| *k != index)
        .map(|(k, other)| {
            let margin = if lower {
                chosen.sub(other)
            } else {
                other.sub(chosen)
            };
            let strictness = if k < index { -1 } else { 0 };
            Constraint::ge(margin.add(&Affine::constant(strictness)))
        })
        .collect()
}

/// Splits a form into its part on `vars` and the rest (symbols and constant).
fn split_affine(form: &Affine, vars: &[usize]) -> (Affine, Affine) {
    let mut var_part = Affine::zero();
    let mut rest = Affine::constant(form.constant.clone());
    for i in form.support() {
        let target = if vars.contains(&i) {
            &mut var_part
        } else {
            &mut rest
        };
        target.set_coeff(i, form.coeff(i));
    }
    (var_part, rest)
}

pub(crate) fn affine_poly(form: &Affine) -> ColumnPoly {
    form.support()
        .fold(ColumnPoly::constant(form.constant.clone()), |acc, i| {
            acc + ColumnPoly::var(i).scale(&form.coeff(i))
        })
}

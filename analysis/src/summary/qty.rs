//! Quantities of summaries: an exact piecewise quasi-polynomial in a method's formals (0 outside
//! its pieces), a bound expression where no quasi-polynomial is exact (the closed forms of
//! recursion: powers, logarithms), or ∞. They add, scale, rename and, through a call, sum over
//! the call's integer points: exactly for a quasi-polynomial (the polyhedra crate's weighted
//! counting), as the number of points times the expression's maximum over them otherwise (exact
//! when the call fixes the arguments the expression reads). They become bound expressions
//! ([`Qty::to_quantity`]) when a result is written.

use membound_polyhedra::{
    Affine, BasicSet, Constraint, Count, CountError, Int, Piece, PiecewiseQuasiPolynomial,
    Polyhedron, Polynomial, QuasiPolynomial, Rat, Relation, Set, Space, count,
};

use membound_bernstein::{BoundExpr, ParametricPolytope, bound_expr_over, simplify};

use crate::memalloc::{Quantity, maximum, pieces_times, pw_quantity, scaled_sum};

/// A count, a number of objects or of bytes, per call of a method.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Qty {
    Finite(PiecewiseQuasiPolynomial),
    /// An upper bound that is not a quasi-polynomial, never negative.
    Expr(BoundExpr),
    Inf,
}

impl Qty {
    /// 0, over the parameters `params`.
    pub fn zero(params: &[String]) -> Qty {
        Qty::Finite(PiecewiseQuasiPolynomial {
            space: Space::new(params.to_vec(), Vec::new()),
            pieces: Vec::new(),
        })
    }

    /// `value` everywhere, over the parameters `params`.
    pub fn constant(params: &[String], value: Rat) -> Qty {
        let space = Space::new(params.to_vec(), Vec::new());
        if value.is_zero() {
            return Qty::zero(params);
        }
        Qty::Finite(PiecewiseQuasiPolynomial {
            pieces: vec![Piece {
                domain: Set::from_basic(BasicSet::universe(space.clone())),
                qp: QuasiPolynomial::constant(value),
            }],
            space,
        })
    }

    /// The number of integer points of `set` (∞ for an unbounded one), over its parameters.
    pub fn count_of(set: &Set) -> Result<Qty, CountError> {
        Ok(match count(set)? {
            Count::Finite(pw) => Qty::Finite(pw),
            Count::Infinite => Qty::Inf,
        })
    }

    pub fn is_zero(&self) -> bool {
        match self {
            Qty::Finite(pw) => pw.pieces.iter().all(|p| p.qp.is_zero()),
            Qty::Expr(expr) => expr.is_zero(),
            Qty::Inf => false,
        }
    }

    pub fn is_infinite(&self) -> bool {
        matches!(self, Qty::Inf)
    }

    /// Whether it is ∞ for some parameter values (∞, or an expression with an ∞ arm).
    pub fn may_be_infinite(&self) -> bool {
        match self {
            Qty::Finite(_) => false,
            Qty::Expr(expr) => expr.may_be_infinite(),
            Qty::Inf => true,
        }
    }

    /// The value when it is the same for every value of the parameters.
    pub fn as_constant(&self) -> Option<Rat> {
        let Qty::Finite(pw) = self else {
            return None;
        };
        match pw.pieces.as_slice() {
            [] => Some(Rat::zero()),
            [piece] if is_universe(&piece.domain) => piece.qp.as_polynomial()?.as_constant(),
            _ => None,
        }
    }

    /// The largest value over all parameters, when every piece is a constant: the largest
    /// constant when no two pieces overlap, the sum of the positive ones otherwise.
    pub fn largest_constant(&self) -> Option<Rat> {
        if let Some(value) = self.as_constant() {
            return Some(value);
        }
        let Qty::Finite(pw) = self else {
            return None;
        };
        let values = pw
            .pieces
            .iter()
            .map(|piece| piece.qp.as_polynomial()?.as_constant())
            .collect::<Option<Vec<Rat>>>()?;
        let disjoint = disjoint_pieces(pw);
        let positive = values.into_iter().filter(|v| *v > Rat::zero());
        Some(if disjoint {
            positive.max().unwrap_or_default()
        } else {
            positive.fold(Rat::zero(), |sum, v| sum + v)
        })
    }

    /// [`Qty::largest_constant`] over `region` alone, whose columns name every parameter of
    /// this quantity: the pieces whose domains meet the region (rationally: an integer-empty
    /// meeting only makes it larger) and nothing else.
    pub fn largest_constant_on(&self, region: &Set) -> Option<Rat> {
        let Qty::Finite(pw) = self else {
            return self.largest_constant();
        };
        let meets = |piece: &&Piece| {
            piece.domain.parts.iter().any(|part| {
                let part = embedded(part, &region.space);
                region
                    .parts
                    .iter()
                    .any(|within| !within.intersect(&part).to_polyhedron().is_empty())
            })
        };
        Qty::Finite(PiecewiseQuasiPolynomial {
            space: pw.space.clone(),
            pieces: pw.pieces.iter().filter(meets).cloned().collect(),
        })
        .largest_constant()
    }

    /// `self + other` (over the same parameters); ∞ absorbs.
    pub fn add(&self, other: &Qty) -> Qty {
        if other.is_zero() {
            return self.clone();
        }
        if self.is_zero() {
            return other.clone();
        }
        match (self, other) {
            (Qty::Finite(a), Qty::Finite(b)) => {
                if b.pieces.is_empty() {
                    return self.clone();
                }
                if a.pieces.is_empty() {
                    return other.clone();
                }
                let pieces = a.pieces.iter().chain(&b.pieces).cloned().collect();
                Qty::Finite(PiecewiseQuasiPolynomial::from_overlapping(
                    a.space.clone(),
                    pieces,
                ))
            }
            (Qty::Inf, _) | (_, Qty::Inf) => Qty::Inf,
            _ => Qty::Expr(scaled_sum([
                (Rat::from(1), self.to_quantity()),
                (Rat::from(1), other.to_quantity()),
            ])),
        }
    }

    /// `factor · self` (`factor >= 0`; 0 · ∞ is 0).
    pub fn scale(&self, factor: &Rat) -> Qty {
        match self {
            _ if factor.is_zero() => Qty::zero(&self.params()),
            Qty::Finite(pw) => Qty::Finite(PiecewiseQuasiPolynomial {
                space: pw.space.clone(),
                pieces: pw
                    .pieces
                    .iter()
                    .map(|p| Piece {
                        domain: p.domain.clone(),
                        qp: p.qp.scale(factor),
                    })
                    .collect(),
            }),
            Qty::Expr(expr) => Qty::Expr(scaled_sum([(factor.clone(), expr.clone())])),
            Qty::Inf => Qty::Inf,
        }
    }

    /// The same quantity over the parameters `params` (in that order), which include every
    /// parameter it has.
    pub fn aligned(&self, params: &[String]) -> Qty {
        match self {
            Qty::Finite(pw) if pw.space.params != params => {
                let space = Space::new(params.to_vec(), Vec::new());
                Qty::Finite(PiecewiseQuasiPolynomial {
                    pieces: pw
                        .pieces
                        .iter()
                        .map(|p| Piece {
                            domain: Set {
                                space: space.clone(),
                                parts: p
                                    .domain
                                    .parts
                                    .iter()
                                    .map(|part| embedded(part, &space))
                                    .collect(),
                            },
                            qp: p.qp.clone(),
                        })
                        .collect(),
                    space,
                })
            }
            _ => self.clone(),
        }
    }

    /// The names its value depends on: those of its polynomials and of its pieces' domains'
    /// constraints.
    pub fn variables(&self) -> Vec<String> {
        let pw = match self {
            Qty::Finite(pw) => pw,
            Qty::Expr(expr) => return expr.params(),
            Qty::Inf => return Vec::new(),
        };
        let mut names: Vec<String> = Vec::new();
        for piece in &pw.pieces {
            names.extend(piece.qp.variables());
            for part in &piece.domain.parts {
                let named = part.n_params() + part.n_dims();
                let mut columns: Vec<usize> = part
                    .all_constraints()
                    .iter()
                    .flat_map(|c| c.expr.support().collect::<Vec<_>>())
                    .filter(|&c| c < named)
                    .collect();
                columns.sort_unstable();
                columns.dedup();
                names.extend(columns.into_iter().map(|c| part.column_name(c)));
            }
        }
        names.sort();
        names.dedup();
        names
    }

    /// The same quantity over only the parameters it depends on ([`Qty::variables`]).
    pub fn over_its_variables(&self) -> Qty {
        let Qty::Finite(pw) = self else {
            return self.clone();
        };
        let used = self.variables();
        let kept: Vec<String> = pw
            .space
            .params
            .iter()
            .filter(|p| used.contains(p))
            .cloned()
            .collect();
        if kept.len() == pw.space.params.len() {
            return self.clone();
        }
        let space = Space::new(kept, Vec::new());
        Qty::Finite(PiecewiseQuasiPolynomial {
            pieces: pw
                .pieces
                .iter()
                .map(|piece| Piece {
                    domain: Set {
                        space: space.clone(),
                        parts: piece
                            .domain
                            .parts
                            .iter()
                            .map(|part| narrowed(part, &space))
                            .collect(),
                    },
                    qp: piece.qp.clone(),
                })
                .collect(),
            space,
        })
    }

    /// The parameters (those it mentions for an expression, none for ∞).
    pub fn params(&self) -> Vec<String> {
        match self {
            Qty::Finite(pw) => pw.space.params.clone(),
            Qty::Expr(expr) => expr.params(),
            Qty::Inf => Vec::new(),
        }
    }

    /// The same quantity over renamed parameters (`rename` injective).
    pub fn renamed(&self, rename: &dyn Fn(&str) -> String) -> Qty {
        match self {
            Qty::Finite(pw) => Qty::Finite(pw.renamed(rename)),
            Qty::Expr(expr) => Qty::Expr(expr.renamed(rename)),
            Qty::Inf => Qty::Inf,
        }
    }

    /// `Σ self(x)` over the integer points `x` of `set`, whose columns (parameters and dims)
    /// name every parameter of `self`: a quantity over the set's parameters. An empty set sums
    /// to 0 even for ∞.
    pub fn sum_over(&self, set: &Set) -> Result<Qty, CountError> {
        let params = set.space.params.clone();
        if set.parts.is_empty() || self.is_zero() {
            return Ok(Qty::zero(&params));
        }
        match self {
            Qty::Inf => Ok(Qty::Inf),
            Qty::Finite(weight) => match fixed_arguments(set, weight) {
                Some((points, at_arguments)) => Ok(product(&points?, &at_arguments)),
                None => weighted_sum(set, weight),
            },
            Qty::Expr(expr) => Ok(points_times_maximum(set, expr)),
        }
    }

    /// The bound expression of this quantity.
    pub fn to_quantity(&self) -> Quantity {
        match self {
            Qty::Finite(pw) => pw_quantity(pw),
            Qty::Expr(expr) => expr.clone(),
            Qty::Inf => Quantity::Inf,
        }
    }
}

/// Whether no two pieces of `pw` meet (rationally, over the parameters alone: an integer-empty
/// meeting counts as one), so its value is one piece's, never a sum of several.
pub(crate) fn disjoint_pieces(pw: &PiecewiseQuasiPolynomial) -> bool {
    // Each piece's parts over the parameters alone: the columns beyond them are each piece's own
    // locals.
    let params: Vec<usize> = (0..pw.space.params.len()).collect();
    let shadows: Vec<Vec<Polyhedron>> = pw
        .pieces
        .iter()
        .map(|piece| {
            let parts = &piece.domain.parts;
            parts
                .iter()
                .map(|part| part.to_polyhedron().project_onto(&params))
                .collect()
        })
        .collect();
    shadows.iter().enumerate().all(|(i, a)| {
        shadows[i + 1..]
            .iter()
            .flatten()
            .all(|q| a.iter().all(|p| p.intersect(q).is_empty()))
    })
}

/// `Σ expr(x)` over the points of `set` bounded by their number times the maximum of `expr`
/// over them (exact when `expr` reads only columns the set fixes); ∞ where that cannot be
/// bounded.
fn points_times_maximum(set: &Set, expr: &BoundExpr) -> Qty {
    let points = match Qty::count_of(set) {
        Ok(points) => points,
        Err(_) => return Qty::Inf,
    };
    if points.is_infinite() {
        return Qty::Inf;
    }
    let mut maxima = Vec::new();
    for part in &set.parts {
        let polytope =
            ParametricPolytope::of_part(set.space.params.clone(), set.space.dims.clone(), part);
        match bound_expr_over(expr, &polytope) {
            Ok(bound) => maxima.push(bound),
            Err(_) => return Qty::Inf,
        }
    }
    let largest = maximum(maxima);
    if largest.may_be_infinite() {
        return Qty::Inf;
    }
    let product = match &points {
        // Each piece's count times the largest, on its domain: a call that runs once reads
        // as the callee's bound under the call's condition, not as a product.
        Qty::Finite(pw) => pieces_times(pw, &largest),
        _ => BoundExpr::Mul(vec![points.to_quantity(), largest]),
    };
    Qty::Expr(simplify(&product, &membound_bernstein::Guard::always()))
}

fn is_universe(set: &Set) -> bool {
    set.parts
        .iter()
        .any(|part| part.constraints.is_empty() && part.locals.is_empty())
}

/// `part` over the larger space `target`, its params and dims found by name (every one of them
/// must be in `target`); its locals come after `target`'s columns.
pub fn embedded(part: &BasicSet, target: &Space) -> BasicSet {
    let names = target.params.iter().chain(&target.dims);
    let width = target.params.len() + target.dims.len();
    let column_of = |name: &String| {
        names
            .clone()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("embedded: {name} is not in the target space"))
    };
    let own: Vec<usize> = part
        .space
        .params
        .iter()
        .chain(&part.space.dims)
        .map(column_of)
        .collect();
    let map = |column: usize| {
        own.get(column)
            .copied()
            .unwrap_or(width + column - own.len())
    };
    part.moved_to(target.clone(), map)
}

/// `Σ weight(x)` over the integer points of `set`, exactly.
fn weighted_sum(set: &Set, weight: &PiecewiseQuasiPolynomial) -> Result<Qty, CountError> {
    Ok(match membound_polyhedra::sum_piecewise(set, weight)? {
        Count::Finite(pw) => Qty::Finite(pw),
        Count::Infinite => Qty::Inf,
    })
}

/// When `set` fixes every dim `weight` reads to an affine function of its parameters with
/// integer coefficients (`x = n - 1`) and `weight` is not periodic in them: the number of the
/// set's points and the weight at those arguments, whose product is the sum (each point has the
/// same weight). This is how most calls pass their arguments, and it spares the summation.
fn fixed_arguments(
    set: &Set,
    weight: &PiecewiseQuasiPolynomial,
) -> Option<(Result<Qty, CountError>, PiecewiseQuasiPolynomial)> {
    let [part] = set.parts.as_slice() else {
        return None;
    };
    if !part.locals.is_empty() {
        return None;
    }
    let n = set.space.params.len();
    let mut arguments: Vec<(String, Affine)> = Vec::new();
    let mut read_dims = Vec::new();
    for name in &weight.space.params {
        let Some(dim) = set.space.dims.iter().position(|d| d == name) else {
            // A parameter of the set: it stays itself.
            let column = set.space.params.iter().position(|p| p == name)?;
            arguments.push((name.clone(), Affine::var(column)));
            continue;
        };
        let value = affine_of_params(part, n + dim, n)?;
        arguments.push((name.clone(), value));
        read_dims.push(set.space.dims[dim].clone());
    }
    for piece in &weight.pieces {
        if piece
            .qp
            .periods()
            .iter()
            .any(|(name, _)| read_dims.contains(name))
        {
            return None;
        }
    }
    let at_arguments = substituted(weight, &arguments, &set.space.params)?;
    let kept: Vec<usize> = (0..set.space.dims.len())
        .filter(|&d| !read_dims.contains(&set.space.dims[d]))
        .collect();
    let points = Qty::count_of(&projected(set, &kept));
    Some((points, at_arguments))
}

/// The dims of `set` it fixes to an integer constant (a set of one part without locals; none
/// otherwise), with their values.
pub(crate) fn constant_dims(set: &Set) -> Vec<(String, Int)> {
    let [part] = set.parts.as_slice() else {
        return Vec::new();
    };
    if !part.locals.is_empty() {
        return Vec::new();
    }
    let n = set.space.params.len();
    set.space
        .dims
        .iter()
        .enumerate()
        .filter_map(|(dim, name)| {
            let value = affine_of_params(part, n + dim, n)?;
            (value.support().next().is_none()).then(|| (name.clone(), value.constant.floor()))
        })
        .collect()
}

/// `column` as an affine function of the first `n` columns (the parameters) with integer
/// coefficients, when the part's equalities determine it so.
fn affine_of_params(part: &BasicSet, column: usize, n: usize) -> Option<Affine> {
    let width = part.n_columns();
    let mut rows: Vec<Affine> = part
        .constraints
        .iter()
        .filter(|c| c.rel == Relation::Eq)
        .map(|c| c.expr.clone())
        .collect();
    // Eliminate every other dim: what is left relates `column` to the parameters alone.
    for other in n..width {
        if other == column {
            continue;
        }
        let Some(pivot) = rows.iter().position(|r| !r.coeff(other).is_zero()) else {
            continue;
        };
        let row = rows.remove(pivot);
        rows = rows
            .into_iter()
            .map(|r| {
                let factor = r.coeff(other) / row.coeff(other);
                r.sub(&row.scale(&factor))
            })
            .collect();
    }
    let row = rows
        .iter()
        .find(|r| !r.coeff(column).is_zero() && r.support().all(|c| c < n || c == column))?;
    // column = -(row - a·column) / a
    let a = row.coeff(column);
    let value = row
        .sub(&Affine::term(column, a.clone()))
        .scale(&(Rat::from(-1) / a));
    let integral =
        value.constant.is_integer() && value.support().all(|c| value.coeff(c).is_integer());
    integral.then_some(value)
}

/// The set with only the dims `kept` (rational shadow; exact here since the others are
/// functions of the parameters).
fn projected(set: &Set, kept: &[usize]) -> Set {
    let names: Vec<&str> = kept.iter().map(|&d| set.space.dims[d].as_str()).collect();
    let dropped: Vec<&str> = set
        .space
        .dims
        .iter()
        .map(String::as_str)
        .filter(|d| !names.contains(d))
        .collect();
    set.project_out_dims(&dropped)
}

/// `weight` with each of its parameters replaced by an affine function of `params`.
fn substituted(
    weight: &PiecewiseQuasiPolynomial,
    arguments: &[(String, Affine)],
    params: &[String],
) -> Option<PiecewiseQuasiPolynomial> {
    let space = Space::new(params.to_vec(), Vec::new());
    let polynomial_of = |affine: &Affine| {
        affine.support().fold(
            Polynomial::constant(affine.constant.clone()),
            |sum, column| {
                sum + Polynomial::var(params[column].clone()).scale(&affine.coeff(column))
            },
        )
    };
    let mut pieces = Vec::new();
    for piece in &weight.pieces {
        let mut classes = Vec::new();
        for class in piece.qp.classes() {
            let mut class = class.clone();
            // Through fresh names first, so an argument that reads another parameter of the
            // weight is not substituted twice.
            for (index, (name, _)) in arguments.iter().enumerate() {
                class = class.substitute(name, &Polynomial::var(format!("{SUBSTITUTED}{index}")));
            }
            for (index, (_, value)) in arguments.iter().enumerate() {
                class = class.substitute(&format!("{SUBSTITUTED}{index}"), &polynomial_of(value));
            }
            classes.push(class);
        }
        let qp = QuasiPolynomial::from_classes(piece.qp.periods().to_vec(), classes)?;
        let parts = piece
            .domain
            .parts
            .iter()
            .map(|part| substituted_part(part, arguments, &space))
            .collect::<Option<Vec<_>>>()?;
        pieces.push(Piece {
            domain: Set {
                space: space.clone(),
                parts,
            },
            qp,
        });
    }
    Some(PiecewiseQuasiPolynomial { space, pieces })
}

/// A fresh variable name while substituting.
const SUBSTITUTED: &str = "substituted__";

/// A domain part over the weight's parameters as a part over `space`, each parameter replaced
/// by its argument.
fn substituted_part(
    part: &BasicSet,
    arguments: &[(String, Affine)],
    space: &Space,
) -> Option<BasicSet> {
    if part.n_dims() != 0 {
        return None;
    }
    let own = part.n_params();
    let width = space.params.len();
    let value_of = |column: usize| -> Affine {
        if column < own {
            let name = &part.space.params[column];
            arguments
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, value)| value.clone())
                .unwrap_or_else(Affine::zero)
        } else {
            Affine::var(width + column - own)
        }
    };
    let substitute = |expr: &Affine| -> Affine {
        expr.support()
            .fold(Affine::constant(expr.constant.clone()), |sum, column| {
                sum.add(&value_of(column).scale(&expr.coeff(column)))
            })
    };
    Some(BasicSet {
        space: space.clone(),
        locals: part
            .locals
            .iter()
            .map(|local| membound_polyhedra::set::Local {
                name: local.name.clone(),
                div: local.div.as_ref().map(|div| membound_polyhedra::set::Div {
                    numerator: substitute(&div.numerator),
                    denominator: div.denominator.clone(),
                }),
            })
            .collect(),
        constraints: part
            .constraints
            .iter()
            .map(|c| Constraint {
                expr: substitute(&c.expr),
                rel: c.rel,
            })
            .collect(),
    })
}

/// The product of two quantities over the same parameters.
fn product(a: &Qty, b: &PiecewiseQuasiPolynomial) -> Qty {
    let Qty::Finite(a) = a else {
        return if b.pieces.iter().all(|p| p.qp.is_zero()) {
            Qty::zero(&b.space.params)
        } else {
            Qty::Inf
        };
    };
    let mut pieces = Vec::new();
    for x in &a.pieces {
        for y in &b.pieces {
            let parts: Vec<BasicSet> = x
                .domain
                .parts
                .iter()
                .flat_map(|p| y.domain.parts.iter().map(move |q| p.intersect(q)))
                .collect();
            pieces.push(Piece {
                domain: Set {
                    space: a.space.clone(),
                    parts,
                },
                qp: x.qp.mul(&y.qp),
            });
        }
    }
    Qty::Finite(PiecewiseQuasiPolynomial::from_overlapping(
        a.space.clone(),
        pieces,
    ))
}

/// `part` over `space`, which keeps every parameter the part's constraints and divisions read
/// (the others are unconstrained, so dropping them keeps its points).
fn narrowed(part: &BasicSet, space: &Space) -> BasicSet {
    let own = part.n_params();
    let width = space.params.len();
    let map = |column: usize| {
        if column < own {
            space
                .params
                .iter()
                .position(|p| *p == part.space.params[column])
                .unwrap_or(column)
        } else {
            width + column - own
        }
    };
    part.moved_to(space.clone(), map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use membound_polyhedra::{parse_piecewise, parse_set};

    /// A cursor's `next()`: 161 objects where its chain is empty (the exception), else none.
    fn throws_when_empty() -> Qty {
        let pw = parse_piecewise("[n] -> { 161 : n = 0 }").expect("a piecewise quasi-polynomial");
        Qty::Finite(pw)
    }

    fn largest_on(region: &str) -> Option<Rat> {
        let region = parse_set(region).expect("a set");
        throws_when_empty().largest_constant_on(&region)
    }

    #[test]
    fn the_largest_constant_on_a_region_counts_only_the_pieces_it_meets() {
        // After `hasNext()`: the chain has a node, the exception's piece is out of reach.
        assert_eq!(largest_on("{ [n] : n >= 1 }"), Some(Rat::zero()));
        assert_eq!(largest_on("{ [n] : n >= 0 }"), Some(Rat::from(161)));
        assert_eq!(largest_on("{ [n] : 0 <= n <= 3 }"), Some(Rat::from(161)));
        // Over the caller's parameters too: some value of `m` lets the call pass 0.
        assert_eq!(largest_on("[m] -> { [n] : n >= m }"), Some(Rat::from(161)));
    }

    #[test]
    fn a_quantity_growing_in_the_region_has_no_largest_constant() {
        let pw = parse_piecewise("[n] -> { n : n >= 0 }").expect("a piecewise quasi-polynomial");
        let region = parse_set("{ [n] : n >= 1 }").expect("a set");
        assert_eq!(Qty::Finite(pw).largest_constant_on(&region), None);
    }
}

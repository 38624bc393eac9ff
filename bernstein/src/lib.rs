//! Polynomial maximization over parametric polytopes (Bernstein expansion) and bound expressions.
//!
//! This crate owns the Bernstein expansion of a polynomial over a parametric polytope, the
//! pruning of candidate bounds, and the bound expressions (`Sum`, `Max`, `Cases`, `Pol`, `Inf`,
//! and for the closed forms of recursion `Mul`, `Pow`, `Log2`) that memory bounds are written
//! in. It knows nothing of Java or of programs: it maximizes a
//! polynomial in some variables over a polytope whose constraints depend linearly on
//! parameters, and writes the result as an expression in the parameters. It does not count
//! integer points (that is the polyhedra crate) and it does not build the memRq tree (that is
//! the analyzer); it simplifies, evaluates, prints, stores and compiles the trees it is given.
//!
//! # Map
//! - [`BoundExpr`] ([`expr`]): the evaluation tree, exact [`BoundExpr::eval`] (∞ is
//!   [`Value::Infinite`](membound_polyhedra::Value)), serde, [`BoundExpr::to_readable`],
//!   [`BoundExpr::to_text`] and [`parse_bound`] ([`text`]), [`simplify()`] ([`mod@simplify`]),
//!   [`to_java`] ([`java`]: exact evaluation in `BigInteger` fractions, a result beyond a
//!   `long` raises `ArithmeticException`).
//! - [`Guard`] / [`ParamDomain`] ([`guard`]): conjunctions of linear constraints over integer
//!   parameters and the exact (integer-aware) reasoning on them.
//! - [`ParametricPolytope`] ([`vertices`]): parametric vertices and chambers.
//! - [`expansion`]: substitution of affine forms, homogenization, Bernstein coefficients over
//!   the generators of a polytope (total degree, one weight per generator).
//! - [`compare`]: sign tests used to prune candidates (constant, linear, Taylor, Sturm,
//!   Bernstein on the difference); [`univariate`]: Sturm sequences and Taylor shifts.
//! - [`maximize`]: [`upper_bound`] of a polynomial over a parametric polytope,
//!   [`bound_expr_over`] of a bound expression;
//!   [`small_values`]: exact maxima at the smallest parameter values.
//!
//! # Soundness
//! Parameters are integers (isl's semantics). At every integer parameter value where the set
//! has an integer point, a bound is never below the maximum of the polynomial over those
//! points: it is computed over the rational relaxation of the set after its constraints are
//! tightened for integers (and exactly, by enumeration, at the smallest parameter values);
//! where the rational relaxation is empty it is 0. Exact rational arithmetic decides every
//! comparison; floats are never used. Evaluation accepts rational parameter values (`p/q`)
//! and is exact, but guards are derived for integer parameters, so the bound is only claimed
//! at integer points.
//!
//! Powers and `⌊log2⌋` are bounded through their monotonicity, products of factors proved
//! non-negative by the product of the factors' bounds ([`bound_expr_over`]); evaluation of a
//! power or product beyond [`expr::MAX_VALUE_BITS`] bits is an error, never a hang.
//!
//! Known looseness: several isl pieces (or the residue classes of periodic coefficients) are
//! combined by `Max`, each piece being 0 where it is empty; an unbounded set gives `Inf`
//! unless the polynomial is affine in the set variables and does not grow along its rays.
//!
//! # The `membound bound` API
//! `membound bound TEXT [--at POINT]` is [`bound_command`]: it parses TEXT with the polyhedra
//! crate's isl parser (errors carry a column), bounds it ([`bound_text`]: the maximum over the
//! set variables, as an expression in the parameters), prints [`BoundExpr::to_readable`], and
//! with a point prints the value alone on the last line (an integer, `p/q` or `infty`). A
//! chamber whose expansion would have more coefficients than [`Limits`] allows (the degree and
//! the number of vertices decide it, before anything is expanded) is bounded by the largest
//! coordinates of its vertices instead, and a `note:` line says so.
//! ```
//! use membound_bernstein::{bound_command, bound_text, parse_point};
//! let bound = bound_text("[n] -> { [i] -> i*(n - i) : 0 <= i <= n }").unwrap();
//! // n = 1 is solved exactly (its integer maximum 0 is below 1/4).
//! assert_eq!(bound.to_readable(), "cases(n = 1 -> 0; n >= 0 -> 1/4*n^2; otherwise -> 0)");
//! let value = bound.eval(&parse_point("n=10").unwrap()).unwrap();
//! assert_eq!(value.to_string(), "25");
//! // What the CLI prints for `membound bound '…' --at n=10`: the bound, then the value.
//! let limits = membound_bernstein::Limits::default();
//! let out = bound_command("[n] -> { [i] -> i*(n - i) : 0 <= i <= n }", Some("n=10"), &limits)
//!     .unwrap();
//! assert_eq!(out.lines().last(), Some("25"));
//! // The parseable text form, for certificates and round trips:
//! assert_eq!(membound_bernstein::parse_bound(&bound.to_text()).unwrap(), bound);
//! ```

mod api;
pub mod compare;
pub mod expansion;
pub mod expr;
pub mod guard;
pub mod java;
pub mod maximize;
mod powers;
pub mod simplify;
pub mod small_values;
pub mod text;
pub mod univariate;
pub mod vertices;

pub use api::{
    BoundReport, Error, bound_command, bound_piecewise, bound_piecewise_within, bound_report,
    bound_text, parse_point, render_value,
};
pub use expr::{Arm, BoundExpr, EvalError};
pub use guard::{Atom, Guard, ParamDomain};
pub use java::to_java;
pub use maximize::{
    DEFAULT_MAX_COEFFICIENTS, DEFAULT_MAX_DEGREE, Limits, bound_expr_over, expand, upper_bound,
    upper_bound_within,
};
pub use simplify::simplify;
pub use text::parse_bound;
pub use vertices::{Chamber, ParametricPolytope};

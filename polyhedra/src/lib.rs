//! Exact polyhedra and parametric integer-point counting.
//!
//! This crate owns membound's exact scalar type, affine forms, constraint systems (equalities,
//! inequalities, modular constraints, existential variables), polyhedra and their operations, the
//! polynomial and quasi-polynomial types, an isl-like text syntax for sets, and the counting of
//! integer points of parametric polytopes as piecewise quasi-polynomials. It knows nothing of Java
//! or of programs: it is a math library another tool could reuse.
//!
//! # Map
//! - [`Rat`] / [`Int`] ([`scalar`]): the one exact number type of the math crates.
//! - [`Affine`], [`Constraint`]: linear forms and `= 0` / `>= 0` constraints over indexed
//!   variables.
//! - [`Polyhedron`]: rational polyhedra with `is_empty`, `contains`, `intersect`, `project_out`
//!   / `project_onto`, `includes`, `implies`, `minimized` (normal form), `hull` (convex hull,
//!   the invariant engine's join) and `generators` (vertices, rays, lines); constraint-level
//!   access through `constraints()` / `add_constraint` for widening.
//! - [`chambers`]: parametric vertices of a parametric polytope and the chamber decomposition of
//!   its parameter space (Loechner–Wilde).
//! - [`Set`] / [`BasicSet`] ([`set`]): integer sets with parameters, integer divisions (`mod`,
//!   `floor`) and existential variables, and finite unions; `append_dims`, `constrain` (on
//!   every part) and `project_out_dims` (the rational shadow, an over-approximation).
//! - [`Polynomial`], [`QuasiPolynomial`]: exact multivariate (quasi-)polynomials.
//! - [`count()`]: integer points of a set as a [`Count`]: a [`PiecewiseQuasiPolynomial`] with
//!   disjoint chambers (0 outside them), or `Infinite` for unbounded sets. [`sum()`] /
//!   [`sum_piecewise`] / [`sum_text`]: the sum of a (piecewise) quasi-polynomial weight over the
//!   integer points, in the same form (`count` is `sum` with weight 1). Results are cached
//!   by canonical form (names renamed in order), so a set is counted once per process
//!   ([`clear_count_cache`]).
//! - [`isl`]: parsing and printing of isl syntax ([`parse_set`], [`parse_piecewise`]); errors
//!   are [`ParseError`]s with a column, never panics.
//!
//! # The `membound count` API
//! ```
//! use membound_polyhedra::{count_text, parse_point, Value};
//! let count = count_text("[n] -> { [i, j] : 1 <= i <= n and 1 <= j <= i }").unwrap();
//! assert_eq!(count.to_isl(), "[n] -> { (1/2*n^2 + 1/2*n) : n >= 0 }");
//! let at = count.eval(&parse_point("n=7").unwrap()).unwrap();
//! assert_eq!(at, Value::Finite(28.into()));
//! let json = serde_json::to_string(&count.report()).unwrap(); // chambers and expressions
//! # let _ = json;
//! ```
//! A weighted sum (what a call site contributes: a callee's count summed over the caller's
//! points) takes isl's piecewise quasi-polynomial syntax:
//! ```
//! use membound_polyhedra::{parse_point, sum_text, Value};
//! let sum = sum_text("[n] -> { [i, j] -> i*j : 0 <= i <= n and 0 <= j <= i }").unwrap();
//! let at = sum.eval(&parse_point("n=3").unwrap()).unwrap();
//! assert_eq!(at, Value::Finite(25.into())); // 1*1 + 2*(1+2) + 3*(1+2+3)
//! ```
//! `count.to_readable()` prints one chamber per line with periodic numbers in the thesis
//! notation (`[a0, a1, a2]_n`, index 0 when `n ≡ 0 mod 3`); `to_isl()` prints the same value
//! in isl syntax with `floor` terms.

pub mod affine;
mod api;
pub mod chambers;
pub mod constraint;
pub mod count;
mod fourier_motzkin;
pub mod generators;
mod hull;
pub mod isl;
mod linalg;
mod lp;
pub mod polyhedron;
pub mod polynomial;
pub mod quasipoly;
pub mod scalar;
pub mod set;

pub use affine::Affine;
pub use api::{ChamberReport, CountReport, Error, count_at, count_text, parse_point, sum_text};
pub use constraint::{Constraint, Relation};
pub use count::{
    Count, CountError, Piece, PiecewiseQuasiPolynomial, Value, clear_count_cache, count, sum,
    sum_piecewise, with_deadline,
};
pub use isl::{ParseError, parse_piecewise, parse_set};
pub use polyhedron::Polyhedron;
pub use polynomial::{Monomial, Polynomial};
pub use quasipoly::QuasiPolynomial;
pub use scalar::{Int, Rat};
pub use set::{BasicSet, Set, Space};

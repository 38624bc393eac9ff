//! isl's text syntax for integer sets and piecewise quasi-polynomials: parsing and printing.
//!
//! Sets: `[n] -> { [i, j] : 1 <= i <= n and 1 <= j <= i }` with `and`/`or`/`not`, `mod`,
//! `floor`/`ceil`, `exists (t : …)`, chained comparisons (`0 <= i, j < n` compares both),
//! integer and rational coefficients (`2i`, `1/2 * n`), unions with `;` or `or`.
//! Quasi-polynomials: `[n] -> { [i] -> i*(n - i) : 0 <= i <= n }`,
//! `[n] -> { (1/2 * n + 1/2 * n^2) : n >= 1 }`, pieces separated by `;`.

mod lexer;
pub mod parse;
pub mod print;

pub use parse::{ParseError, parse_piecewise, parse_set};

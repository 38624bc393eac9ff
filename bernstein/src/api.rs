//! The library side of `membound bound`: parse an isl piecewise quasi-polynomial, bound it from
//! above over its set variables, render the bound, evaluate it at a parameter point.

use std::collections::BTreeMap;

use membound_polyhedra::{ParseError, PiecewiseQuasiPolynomial, Rat, Value, parse_piecewise};

use crate::expr::{BoundExpr, EvalError};
use crate::guard::Guard;
use crate::maximize::{Limits, upper_bound_within};
use crate::simplify::simplify;
use crate::vertices::{ParametricPolytope, VertexError};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Parse(#[from] ParseError),
    #[error("{0}")]
    Vertices(#[from] VertexError),
    #[error("{0}")]
    Eval(#[from] EvalError),
    #[error("bad parameter point `{text}`: {reason}")]
    Point { text: String, reason: String },
}

/// An upper bound, in the parameters, of the maximum over the set variables of a piecewise
/// quasi-polynomial: the maximum over its pieces (and, for periodic coefficients, over their
/// residue classes) of the Bernstein bound of each. Pieces are read over the rationals, so
/// integer divisions and existential variables are relaxed, which is sound.
pub fn bound_piecewise(pw: &PiecewiseQuasiPolynomial) -> Result<BoundExpr, VertexError> {
    bound_piecewise_within(pw, &Limits::default(), &mut Vec::new())
}

/// [`bound_piecewise`] within `limits`, with a note for each place a cheaper bound was used.
pub fn bound_piecewise_within(
    pw: &PiecewiseQuasiPolynomial,
    limits: &Limits,
    notes: &mut Vec<String>,
) -> Result<BoundExpr, VertexError> {
    let mut bounds = Vec::new();
    for piece in &pw.pieces {
        for part in &piece.domain.parts {
            let polytope =
                ParametricPolytope::of_part(pw.space.params.clone(), pw.space.dims.clone(), part);
            for class in piece.qp.classes() {
                bounds.push(upper_bound_within(class, &polytope, limits, notes)?);
            }
        }
    }
    Ok(match bounds.len() {
        0 => BoundExpr::zero(),
        1 => bounds.remove(0),
        _ => simplify(&BoundExpr::Max(bounds), &Guard::always()),
    })
}

/// Parses isl text (`[n] -> { [i] -> i*(n - i) : 0 <= i <= n }`) and bounds it.
pub fn bound_text(text: &str) -> Result<BoundExpr, Error> {
    let pw = parse_piecewise(text)?;
    Ok(bound_piecewise(&pw)?)
}

/// Parses `n=10, m=7/2` into a point (values are integers or `p/q`).
pub fn parse_point(text: &str) -> Result<BTreeMap<String, Rat>, Error> {
    let bad = |reason: &str| Error::Point {
        text: text.to_string(),
        reason: reason.to_string(),
    };
    let mut point = BTreeMap::new();
    for assignment in text.split(',').map(str::trim).filter(|a| !a.is_empty()) {
        let (name, value) = assignment
            .split_once('=')
            .ok_or_else(|| bad("expected name=value"))?;
        let value: Rat = value
            .trim()
            .parse()
            .map_err(|_| bad("a value is an integer or p/q"))?;
        point.insert(name.trim().to_string(), value);
    }
    Ok(point)
}

/// A value as the CLI's text prints it: an integer, `p/q`, or `∞` (machine formats write
/// `infty`, as [`Value`]'s `Display` does).
pub fn render_value(value: &Value) -> String {
    match value {
        Value::Infinite => "∞".to_string(),
        Value::Finite(v) => v.to_string(),
    }
}

/// What `membound bound TEXT [--at POINT]` finds: the bound, a note for each chamber bounded
/// more cheaply because its expansion would pass the limits, and the value at the point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundReport {
    pub bound: BoundExpr,
    pub notes: Vec<String>,
    /// With a point: the bound's value there.
    pub value: Option<Value>,
}

impl BoundReport {
    /// The readable bound, a `note:` line per note, then, with a point, the value alone on the
    /// last line.
    pub fn to_text(&self) -> String {
        let mut out = self.bound.to_readable();
        for note in &self.notes {
            out.push_str("\nnote: ");
            out.push_str(note);
        }
        if let Some(value) = &self.value {
            out.push('\n');
            out.push_str(&render_value(value));
        }
        out
    }
}

/// Parses `text`, bounds it within `limits`, and evaluates the bound at `at` when given.
pub fn bound_report(text: &str, at: Option<&str>, limits: &Limits) -> Result<BoundReport, Error> {
    let pw = parse_piecewise(text)?;
    let mut notes = Vec::new();
    let bound = bound_piecewise_within(&pw, limits, &mut notes)?;
    let value = at
        .map(|point| bound.eval(&parse_point(point)?).map_err(Error::from))
        .transpose()?;
    Ok(BoundReport {
        bound,
        notes,
        value,
    })
}

/// What `membound bound TEXT [--at POINT]` prints: [`BoundReport::to_text`].
pub fn bound_command(text: &str, at: Option<&str>, limits: &Limits) -> Result<String, Error> {
    Ok(bound_report(text, at, limits)?.to_text())
}

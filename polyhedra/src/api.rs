//! The entry points the CLI wraps (`membound count '<set>' [--at n=7,m=5] [--format json]`, and
//! the weighted sum of a piecewise quasi-polynomial over its domain).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::count::{Count, CountError, Value, count, sum_piecewise};
use crate::isl::print::basic_constraints_text;
use crate::isl::{ParseError, parse_piecewise, parse_set};
use crate::quasipoly::QuasiPolynomial;
use crate::scalar::Int;
use crate::set::{BasicSet, Set};

/// Anything that can go wrong between a set's text and its count.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("parse error at {0}")]
    Parse(#[from] ParseError),
    #[error(transparent)]
    Count(#[from] CountError),
    #[error("bad point: {0}")]
    Point(String),
    #[error(transparent)]
    Eval(#[from] crate::count::EvalError),
}

/// Parses an isl set and counts its integer points.
pub fn count_text(text: &str) -> Result<Count, Error> {
    Ok(count(&parse_set(text)?)?)
}

/// Parses an isl piecewise quasi-polynomial over a set (`[n] -> { [i, j] -> i*j : 0 <= j <= i
/// <= n }`) and sums each piece's quasi-polynomial over the integer points of its domain, as a
/// piecewise quasi-polynomial in the parameters (pieces that overlap add up, as in isl).
pub fn sum_text(text: &str) -> Result<Count, Error> {
    let weight = parse_piecewise(text)?;
    let everywhere = Set::from_basic(BasicSet::universe(weight.space.clone()));
    Ok(sum_piecewise(&everywhere, &weight)?)
}

/// Parses `n=7,m=5` (spaces allowed) into parameter values.
pub fn parse_point(text: &str) -> Result<BTreeMap<String, Int>, Error> {
    let mut point = BTreeMap::new();
    for assignment in text.split(',').map(str::trim).filter(|a| !a.is_empty()) {
        let (name, value) = assignment
            .split_once('=')
            .ok_or_else(|| Error::Point(format!("expected name=value in {assignment:?}")))?;
        let value: Int = value
            .trim()
            .parse()
            .map_err(|_| Error::Point(format!("{:?} is not an integer", value.trim())))?;
        point.insert(name.trim().to_string(), value);
    }
    Ok(point)
}

/// The count of the set `text` at `point`.
pub fn count_at(text: &str, point: &BTreeMap<String, Int>) -> Result<Value, Error> {
    Ok(count_text(text)?.eval(point)?)
}

/// JSON shape of a count: its parameters, whether it is infinite, the whole result in isl
/// syntax, and one entry per chamber.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountReport {
    pub params: Vec<String>,
    pub infinite: bool,
    pub isl: String,
    pub chambers: Vec<ChamberReport>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChamberReport {
    /// The chamber's constraints in isl syntax (empty for "everywhere").
    pub domain: String,
    /// The quasi-polynomial in the thesis notation (`[a0, a1]_n`).
    pub readable: String,
    /// The quasi-polynomial in isl's floor notation.
    pub isl: String,
    /// The exact value: periods and one polynomial per residue class.
    pub quasi_polynomial: QuasiPolynomial,
}

impl Count {
    pub fn report(&self) -> CountReport {
        match self {
            Count::Infinite => CountReport {
                params: Vec::new(),
                infinite: true,
                isl: self.to_isl(),
                chambers: Vec::new(),
            },
            Count::Finite(pw) => CountReport {
                params: pw.space.params.clone(),
                infinite: false,
                isl: pw.to_isl(),
                chambers: pw
                    .pieces
                    .iter()
                    .flat_map(|piece| {
                        piece.domain.parts.iter().map(|part| ChamberReport {
                            domain: basic_constraints_text(part),
                            readable: piece.qp.to_readable(),
                            isl: piece.qp.to_isl(),
                            quasi_polynomial: piece.qp.clone(),
                        })
                    })
                    .collect(),
            },
        }
    }
}

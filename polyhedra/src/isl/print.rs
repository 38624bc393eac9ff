//! Printing sets and piecewise quasi-polynomials in isl syntax (re-parsable by
//! [`super::parse`] and by isl) and in a readable one-chamber-per-line form.

use crate::affine::Affine;
use crate::constraint::{Constraint, Relation};
use crate::count::PiecewiseQuasiPolynomial;
use crate::set::{BasicSet, Set};

/// `[n] -> { [i, j] : … ; [i, j] : … }`.
pub fn set_to_isl(set: &Set) -> String {
    let tuple = format!("[{}]", set.space.dims.join(", "));
    let parts: Vec<String> = if set.parts.is_empty() {
        vec![format!("{tuple} : false")]
    } else {
        set.parts
            .iter()
            .map(|part| match basic_constraints_text(part) {
                text if text.is_empty() => tuple.clone(),
                text => format!("{tuple} : {text}"),
            })
            .collect()
    };
    format!(
        "{}{{ {} }}",
        params_prefix(&set.space.params),
        parts.join("; ")
    )
}

fn params_prefix(params: &[String]) -> String {
    if params.is_empty() {
        String::new()
    } else {
        format!("[{}] -> ", params.join(", "))
    }
}

/// The constraints of a basic set joined by `and`, wrapped in `exists (…)` when it has
/// existential locals; divisions are written inline as `floor(…)`.
pub fn basic_constraints_text(set: &BasicSet) -> String {
    let names = column_names(set);
    let constraints: Vec<String> = set
        .constraints
        .iter()
        .map(|c| constraint_text(c, &names))
        .collect();
    let body = constraints.join(" and ");
    let existential: Vec<&str> = set
        .locals
        .iter()
        .filter(|l| l.div.is_none())
        .map(|l| l.name.as_str())
        .collect();
    if existential.is_empty() || body.is_empty() {
        body
    } else {
        format!("exists ({} : {body})", existential.join(", "))
    }
}

/// Names of every column; divisions get their `floor((…)/k)` text.
fn column_names(set: &BasicSet) -> Vec<String> {
    let mut names: Vec<String> = set
        .space
        .params
        .iter()
        .chain(&set.space.dims)
        .cloned()
        .collect();
    for local in &set.locals {
        let name = match &local.div {
            Some(div) => format!(
                "floor(({})/{})",
                affine_text(&div.numerator, &names),
                div.denominator
            ),
            None => local.name.clone(),
        };
        names.push(name);
    }
    names
}

fn affine_text(form: &Affine, names: &[String]) -> String {
    struct Shown<'a>(&'a Affine, &'a [String]);
    impl std::fmt::Display for Shown<'_> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            self.0.fmt_with(f, &|i| {
                self.1.get(i).cloned().unwrap_or_else(|| format!("x{i}"))
            })
        }
    }
    Shown(form, names).to_string()
}

/// `lhs >= rhs` with positive coefficients on both sides (`i - n + 1 >= 0` prints as
/// `i + 1 >= n`).
pub fn constraint_text(constraint: &Constraint, names: &[String]) -> String {
    let form = constraint.expr.primitive();
    let mut left = Affine::zero();
    let mut right = Affine::zero();
    for i in form.support() {
        let c = form.coeff(i);
        if c.is_positive() {
            left.set_coeff(i, c)
        } else {
            right.set_coeff(i, -c)
        }
    }
    if form.constant.is_negative() {
        right.constant = -form.constant.clone();
    } else {
        left.constant = form.constant.clone();
    }
    let relation = match constraint.rel {
        Relation::Eq => "=",
        Relation::Ge => ">=",
    };
    format!(
        "{} {relation} {}",
        affine_text(&left, names),
        affine_text(&right, names)
    )
}

/// `[n] -> { (qp) : domain; … }` (`{ 0 }` when there is no piece).
pub fn piecewise_to_isl(pw: &PiecewiseQuasiPolynomial) -> String {
    let tuple = if pw.space.dims.is_empty() {
        String::new()
    } else {
        format!("[{}] -> ", pw.space.dims.join(", "))
    };
    let pieces: Vec<String> = pw
        .pieces
        .iter()
        .flat_map(|piece| {
            let qp = format!("{tuple}({})", piece.qp.to_isl());
            piece
                .domain
                .parts
                .iter()
                .map(move |part| match basic_constraints_text(part) {
                    text if text.is_empty() => qp.clone(),
                    text => format!("{qp} : {text}"),
                })
        })
        .collect();
    let body = if pieces.is_empty() {
        format!("{tuple}0")
    } else {
        pieces.join("; ")
    };
    format!("{}{{ {body} }}", params_prefix(&pw.space.params))
}

/// One line per piece: `domain: quasi-polynomial` in the thesis notation.
pub fn piecewise_to_readable(pw: &PiecewiseQuasiPolynomial) -> String {
    if pw.pieces.is_empty() {
        return "0".to_string();
    }
    let lines: Vec<String> = pw
        .pieces
        .iter()
        .flat_map(|piece| {
            let qp = piece.qp.to_readable();
            piece
                .domain
                .parts
                .iter()
                .map(move |part| match basic_constraints_text(part) {
                    text if text.is_empty() => format!("true: {qp}"),
                    text => format!("{text}: {qp}"),
                })
        })
        .collect();
    lines.join("\n")
}

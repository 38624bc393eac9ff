//! Printing bound expressions (readable, and a text form that [`parse_bound`] reads back) and
//! parsing the text form.
//!
//! Text form grammar (whitespace free between tokens):
//! ```text
//! expr := item ('+' item)*                                   Sum when more than one item
//! item := '(' quasi-polynomial in isl syntax ')'              Pol
//!       | 'max(' expr (',' expr)* ')'
//!       | 'cases(' guard '->' expr (';' guard '->' expr)* ';' 'otherwise' '->' expr ')'
//!       | 'infty'
//! guard := a conjunction of linear constraints in isl syntax (`n >= 1 and m <= 2n`)
//! ```
//! Polynomial leaves and guards are read by the polyhedra crate's isl parser, so errors carry
//! the column of the whole input.

use membound_polyhedra::{ParseError, QuasiPolynomial, Relation, parse_piecewise, parse_set};

use crate::expr::{Arm, BoundExpr};
use crate::guard::{Atom, Guard, affine_to_linear};

impl BoundExpr {
    /// Readable form: `3*mc + 1 + cases(mc >= 7 -> mc^2; otherwise -> 6*mc)`, `∞`, periodic
    /// coefficients in the thesis notation.
    pub fn to_readable(&self) -> String {
        self.render(&|qp| qp.to_readable(), "∞")
    }
    /// The parseable text form (polynomial leaves in parentheses, isl syntax).
    pub fn to_text(&self) -> String {
        self.render(&|qp| format!("({})", qp.to_isl()), "infty")
    }

    fn render(&self, leaf: &dyn Fn(&QuasiPolynomial) -> String, infinity: &str) -> String {
        match self {
            BoundExpr::Inf => infinity.to_string(),
            BoundExpr::Pol(qp) => leaf(qp),
            BoundExpr::Sum(items) if items.is_empty() => leaf(&QuasiPolynomial::zero()),
            BoundExpr::Sum(items) => items
                .iter()
                .map(|e| e.render(leaf, infinity))
                .collect::<Vec<_>>()
                .join(" + "),
            BoundExpr::Max(items) => {
                let inner: Vec<String> = items.iter().map(|e| e.render(leaf, infinity)).collect();
                format!("max({})", inner.join(", "))
            }
            BoundExpr::Cases { arms, default } => {
                let mut parts: Vec<String> = arms
                    .iter()
                    .map(|arm| {
                        format!(
                            "{} -> {}",
                            arm.guard.to_isl(),
                            arm.expr.render(leaf, infinity)
                        )
                    })
                    .collect();
                parts.push(format!("otherwise -> {}", default.render(leaf, infinity)));
                format!("cases({})", parts.join("; "))
            }
        }
    }
}

impl std::fmt::Display for BoundExpr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_readable())
    }
}

/// Parses the text form written by [`BoundExpr::to_text`].
pub fn parse_bound(text: &str) -> Result<BoundExpr, ParseError> {
    let mut parser = Parser { text, pos: 0 };
    let expr = parser.expr()?;
    parser.skip_space();
    if parser.pos < text.len() {
        return Err(parser.error("unexpected text after the expression"));
    }
    Ok(expr)
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn column_of(&self, byte: usize) -> usize {
        self.text[..byte.min(self.text.len())].chars().count() + 1
    }
    fn error(&self, message: &str) -> ParseError {
        ParseError::new(self.column_of(self.pos), message)
    }
    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }
    fn skip_space(&mut self) {
        let trimmed = self.rest().trim_start();
        self.pos = self.text.len() - trimmed.len();
    }
    fn eat(&mut self, token: &str) -> bool {
        self.skip_space();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, token: &str) -> Result<(), ParseError> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.error(&format!("expected `{token}`")))
        }
    }

    fn expr(&mut self) -> Result<BoundExpr, ParseError> {
        let mut items = vec![self.item()?];
        while self.eat("+") {
            items.push(self.item()?);
        }
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            BoundExpr::Sum(items)
        })
    }

    fn item(&mut self) -> Result<BoundExpr, ParseError> {
        if self.eat("infty") {
            Ok(BoundExpr::Inf)
        } else if self.eat("max(") {
            let mut items = vec![self.expr()?];
            while self.eat(",") {
                items.push(self.expr()?);
            }
            self.expect(")")?;
            Ok(BoundExpr::Max(items))
        } else if self.eat("cases(") {
            self.cases()
        } else if self.eat("(") {
            self.leaf()
        } else {
            Err(self.error("expected `(polynomial)`, `max(`, `cases(` or `infty`"))
        }
    }

    fn cases(&mut self) -> Result<BoundExpr, ParseError> {
        let mut arms = Vec::new();
        loop {
            self.skip_space();
            let start = self.pos;
            let length = self
                .rest()
                .find("->")
                .ok_or_else(|| self.error("expected `guard -> expression`"))?;
            let guard_text = &self.text[start..start + length];
            self.pos = start + length + 2;
            if guard_text.trim() == "otherwise" {
                let default = self.expr()?;
                self.expect(")")?;
                return Ok(BoundExpr::Cases {
                    arms,
                    default: Box::new(default),
                });
            }
            let guard = self.guard(guard_text, start)?;
            let expr = self.expr()?;
            arms.push(Arm { guard, expr });
            self.expect(";")?;
        }
    }

    /// The text up to the `)` that closes the one just read, parsed as an isl quasi-polynomial.
    fn leaf(&mut self) -> Result<BoundExpr, ParseError> {
        let start = self.pos;
        let mut depth = 1usize;
        let mut end = None;
        for (offset, ch) in self.rest().char_indices() {
            match ch {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(start + offset);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end.ok_or_else(|| self.error("unclosed `(`"))?;
        let body = &self.text[start..end];
        let names = identifiers(body).join(", ");
        let prefix = format!("[{names}] -> {{ ");
        let wrapped = format!("{prefix}{body} }}");
        let pw = parse_piecewise(&wrapped).map_err(|e| self.relocated(e, &prefix, start))?;
        self.pos = end + 1;
        let qp = match pw.pieces.as_slice() {
            [] => QuasiPolynomial::zero(),
            [piece] => piece.qp.clone(),
            _ => {
                return Err(ParseError::new(
                    self.column_of(start),
                    "a polynomial leaf has one piece",
                ));
            }
        };
        Ok(BoundExpr::Pol(qp))
    }

    fn guard(&self, text: &str, start: usize) -> Result<Guard, ParseError> {
        let names = identifiers(text);
        let prefix = format!("[{}] -> {{ : ", names.join(", "));
        let wrapped = format!("{prefix}{text} }}");
        let set = parse_set(&wrapped).map_err(|e| self.relocated(e, &prefix, start))?;
        let not_conjunction = || {
            ParseError::new(
                self.column_of(start),
                "a guard is a conjunction of linear constraints",
            )
        };
        let [part] = set.parts.as_slice() else {
            return Err(not_conjunction());
        };
        if !part.locals.is_empty() {
            return Err(not_conjunction());
        }
        let atoms = part
            .constraints
            .iter()
            .map(|c| Atom {
                expr: affine_to_linear(&c.expr, &set.space.params),
                rel: c.rel,
            })
            .filter(|a| {
                !(a.rel == Relation::Ge && a.expr.as_constant().is_some_and(|v| !v.is_negative()))
            })
            .collect();
        Ok(Guard { atoms })
    }

    /// Moves an error of the wrapped text `prefix + body` to its column in the whole input.
    fn relocated(&self, error: ParseError, prefix: &str, body_start: usize) -> ParseError {
        let offset = error.column.saturating_sub(prefix.chars().count() + 1);
        ParseError::new(self.column_of(body_start) + offset, error.message)
    }
}

/// Names used in isl text, without keywords, in first-seen order.
fn identifiers(text: &str) -> Vec<String> {
    const KEYWORDS: [&str; 8] = ["floor", "ceil", "mod", "and", "or", "not", "exists", "true"];
    let mut names: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut starts_with_digit = false;
    for ch in text.chars().chain(std::iter::once(' ')) {
        if ch.is_ascii_alphanumeric() || ch == '_' || ch == '\'' {
            if current.is_empty() {
                starts_with_digit = ch.is_ascii_digit();
            }
            current.push(ch);
            continue;
        }
        let word = std::mem::take(&mut current);
        // `2n` is a coefficient and a name; keep the name part.
        let name = if starts_with_digit {
            word.trim_start_matches(|c: char| c.is_ascii_digit())
                .to_string()
        } else {
            word
        };
        if !name.is_empty() && !KEYWORDS.contains(&name.as_str()) && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form_round_trips() {
        let text = "(1 + 3*mc) + cases(mc >= 7 -> (mc^2); otherwise -> max((6*mc), (1/2*mc^2)))";
        let expr = parse_bound(text).unwrap();
        let printed = expr.to_text();
        assert_eq!(parse_bound(&printed).unwrap(), expr);
        assert_eq!(
            expr.to_readable(),
            "3*mc + 1 + cases(mc >= 7 -> mc^2; otherwise -> max(6*mc, 1/2*mc^2))"
        );
        assert_eq!(parse_bound("infty").unwrap(), BoundExpr::Inf);
    }

    #[test]
    fn errors_point_at_the_column() {
        let error = parse_bound("max((n), (n +))").unwrap_err();
        assert!(error.column >= 10 && error.column <= 15, "{error}");
        let error = parse_bound("(n) + oops").unwrap_err();
        assert_eq!(error.column, 7);
        let error = parse_bound("cases(n >= 1 or n <= -1 -> (n); otherwise -> (0))").unwrap_err();
        assert_eq!(error.column, 7);
    }
}

//! Printing bound expressions (readable, and a text form that [`parse_bound`] reads back) and
//! parsing the text form.
//!
//! Text form grammar (whitespace free between tokens):
//! ```text
//! expr   := term ('+' term)*                              Sum when more than one term
//! term   := factor ('*' factor)*                          Mul when more than one factor
//! factor := '(' quasi-polynomial in isl syntax ')'         Pol
//!         | 'max(' expr (',' expr)* ')'
//!         | 'cases(' guard '->' expr (';' guard '->' expr)* ';' 'otherwise' '->' expr ')'
//!         | 'infty'
//!         | INTEGER '^' factor                            Pow (the integer at least 2)
//!         | 'floor_log2' factor                           Log2
//!         | '[' expr ']'                                  grouping
//! guard  := a conjunction of linear constraints in isl syntax (`n >= 1 and m <= 2n`)
//! ```
//! `2^(d) + (-1)` is `2^d - 1`, `(8/3)*4^(l) + (-8/3)` is `8/3*4^l - 8/3`, `(n)*2^(n)` is
//! `n*2^n`, and `2^[floor_log2(n) + (1)] + (-1)` is `2^(floor_log2(n) + 1) - 1`.
//!
//! [`BoundExpr::to_text`] writes a sum inside a sum or a product, and a product inside a
//! product, in brackets, so `parse_bound(e.to_text()) == e` for every expression whose sums and
//! products have two items or more and whose maxima have one or more (an empty or one-item sum
//! or product is written as its value, which reads back as a leaf of the same value).
//!
//! Polynomial leaves and guards are read by the polyhedra crate's isl parser, so errors carry
//! the column of the whole input. Nesting deeper than [`MAX_NESTING`] is an error, not a stack
//! overflow.

use membound_polyhedra::{Int, ParseError, QuasiPolynomial, Relation, parse_piecewise, parse_set};

use crate::expr::{Arm, BoundExpr};
use crate::guard::{Atom, Guard, affine_to_linear};

/// How deeply `max(`, `cases(`, `[`, powers and logarithms may nest in the text form.
pub const MAX_NESTING: usize = 100;

/// The two printed forms.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    /// For people: `n*2^n - 1`, `∞`, periodic coefficients in the thesis notation.
    Readable,
    /// For [`parse_bound`]: polynomial leaves in parentheses, isl syntax.
    Text,
}

impl BoundExpr {
    /// Readable form: `3*mc + 1 + cases(mc >= 7 -> mc^2; otherwise -> 6*mc)`, `∞`, periodic
    /// coefficients in the thesis notation, `n*2^n - 1`, `floor_log2(n)`.
    pub fn to_readable(&self) -> String {
        self.render(Style::Readable)
    }
    /// The parseable text form (polynomial leaves in parentheses, isl syntax).
    pub fn to_text(&self) -> String {
        self.render(Style::Text)
    }

    fn render(&self, style: Style) -> String {
        let leaf = |qp: &QuasiPolynomial| match style {
            Style::Readable => qp.to_readable(),
            Style::Text => format!("({})", qp.to_isl()),
        };
        match self {
            BoundExpr::Inf if style == Style::Readable => "∞".to_string(),
            BoundExpr::Inf => "infty".to_string(),
            BoundExpr::Pol(qp) => leaf(qp),
            BoundExpr::Sum(items) if items.is_empty() => leaf(&QuasiPolynomial::zero()),
            BoundExpr::Mul(items) if items.is_empty() => leaf(&QuasiPolynomial::constant(1)),
            BoundExpr::Sum(items) => {
                let mut out = String::new();
                for item in items {
                    let text = match (style, item) {
                        (Style::Text, BoundExpr::Sum(_)) => format!("[{}]", item.render(style)),
                        _ => item.render(style),
                    };
                    push_term(&mut out, &text, style);
                }
                out
            }
            BoundExpr::Mul(items) => items
                .iter()
                .map(|item| item.render_factor(style))
                .collect::<Vec<_>>()
                .join("*"),
            BoundExpr::Max(items) => {
                let inner: Vec<String> = items.iter().map(|e| e.render(style)).collect();
                format!("max({})", inner.join(", "))
            }
            BoundExpr::Cases { arms, default } => {
                let mut parts: Vec<String> = arms
                    .iter()
                    .map(|arm| format!("{} -> {}", arm.guard.to_isl(), arm.expr.render(style)))
                    .collect();
                parts.push(format!("otherwise -> {}", default.render(style)));
                format!("cases({})", parts.join("; "))
            }
            BoundExpr::Pow { base, exponent } => {
                format!("{base}^{}", exponent.render_operand(style))
            }
            BoundExpr::Log2 { arg } => match style {
                Style::Readable => format!("floor_log2({})", arg.render(style)),
                Style::Text => format!("floor_log2{}", arg.render_operand(style)),
            },
        }
    }

    /// A factor of a product: in the text form a sum or product in brackets; in the readable
    /// form a sum, or a polynomial of several terms, in parentheses.
    fn render_factor(&self, style: Style) -> String {
        let text = self.render(style);
        let grouped = match (style, self) {
            (Style::Text, BoundExpr::Sum(_) | BoundExpr::Mul(_)) => true,
            (Style::Readable, BoundExpr::Sum(_) | BoundExpr::Pol(_)) => has_top_level_sum(&text),
            _ => false,
        };
        match (grouped, style) {
            (false, _) => text,
            (true, Style::Text) => format!("[{text}]"),
            (true, Style::Readable) => format!("({text})"),
        }
    }

    /// An exponent or a logarithm's argument: in the text form a leaf as itself and anything
    /// else in brackets; in the readable form a name or a number as itself, else in
    /// parentheses.
    fn render_operand(&self, style: Style) -> String {
        let text = self.render(style);
        match style {
            Style::Text if matches!(self, BoundExpr::Pol(_)) => text,
            Style::Text => format!("[{text}]"),
            Style::Readable if text.chars().all(|c| c.is_alphanumeric() || c == '_') => text,
            Style::Readable => format!("({text})"),
        }
    }
}

/// Appends a term to a sum: `a + b`, and in the readable form `a - b` for a term `-b`.
fn push_term(out: &mut String, term: &str, style: Style) {
    if out.is_empty() {
        out.push_str(term);
    } else if let (Style::Readable, Some(rest)) = (style, term.strip_prefix('-')) {
        out.push_str(" - ");
        out.push_str(rest);
    } else {
        out.push_str(" + ");
        out.push_str(term);
    }
}

/// Whether readable text is a sum or difference outside any parentheses or brackets.
fn has_top_level_sum(text: &str) -> bool {
    let mut depth = 0i32;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'+' | b'-' if depth == 0 && i > 0 && bytes[i - 1] == b' ' => return true,
            _ => {}
        }
    }
    false
}

impl std::fmt::Display for BoundExpr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_readable())
    }
}

/// Parses the text form written by [`BoundExpr::to_text`].
pub fn parse_bound(text: &str) -> Result<BoundExpr, ParseError> {
    let mut parser = Parser {
        text,
        pos: 0,
        depth: 0,
    };
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
    /// How many nested factors are open.
    depth: usize,
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
        self.joined("+", Self::term, BoundExpr::Sum)
    }

    fn term(&mut self) -> Result<BoundExpr, ParseError> {
        self.joined("*", Self::factor, BoundExpr::Mul)
    }

    /// `part (separator part)*`: the part alone, or `join` of them all.
    fn joined(
        &mut self,
        separator: &str,
        part: fn(&mut Self) -> Result<BoundExpr, ParseError>,
        join: fn(Vec<BoundExpr>) -> BoundExpr,
    ) -> Result<BoundExpr, ParseError> {
        let mut parts = vec![part(self)?];
        while self.eat(separator) {
            parts.push(part(self)?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            join(parts)
        })
    }

    /// One factor, with the nesting depth counted around it.
    fn factor(&mut self) -> Result<BoundExpr, ParseError> {
        if self.depth >= MAX_NESTING {
            return Err(self.error(&format!(
                "the expression nests deeper than {MAX_NESTING} levels"
            )));
        }
        self.depth += 1;
        let factor = self.bare_factor();
        self.depth -= 1;
        factor
    }

    fn bare_factor(&mut self) -> Result<BoundExpr, ParseError> {
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
        } else if self.eat("floor_log2") {
            Ok(BoundExpr::log2(self.factor()?))
        } else if self.eat("[") {
            let inner = self.expr()?;
            self.expect("]")?;
            Ok(inner)
        } else if self.eat("(") {
            self.leaf()
        } else if self.rest().starts_with(|c: char| c.is_ascii_digit()) {
            self.power()
        } else {
            Err(self.error(
                "expected `(polynomial)`, `max(`, `cases(`, `infty`, `BASE^`, `floor_log2` or `[`",
            ))
        }
    }

    /// `BASE^factor` with an integer base of at least 2.
    fn power(&mut self) -> Result<BoundExpr, ParseError> {
        let start = self.pos;
        let digits = self
            .rest()
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(self.rest().len());
        let base: Int = self.rest()[..digits]
            .parse()
            .map_err(|_| self.error("expected an integer base"))?;
        self.pos += digits;
        self.expect("^")?;
        let exponent = self.factor()?;
        BoundExpr::pow(base.clone(), exponent).ok_or_else(|| {
            ParseError::new(
                self.column_of(start),
                format!("the base of a power is {base}; it must be at least 2"),
            )
        })
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

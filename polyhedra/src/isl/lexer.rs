//! Tokens of the isl syntax, each with the 1-based column where it starts.

use crate::scalar::Int;

use super::parse::ParseError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Token {
    Ident(String),
    Int(Int),
    /// Punctuation and operators, spelled as in the source (`<=`, `->`, `&&`, …).
    Sym(&'static str),
    End,
}

#[derive(Clone, Debug)]
pub(crate) struct Spanned {
    pub token: Token,
    pub column: usize,
}

/// Longest symbols first so that `<=` wins over `<`.
const SYMBOLS: &[&str] = &[
    "->", "<=", ">=", "==", "!=", "&&", "||", "[", "]", "{", "}", "(", ")", ":", ";", ",", "+",
    "-", "*", "/", "^", "<", ">", "=", "%", "!",
];

pub(crate) fn tokenize(text: &str) -> Result<Vec<Spanned>, ParseError> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let column = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let digits: String = chars[start..i].iter().collect();
            let value = digits
                .parse::<Int>()
                .map_err(|_| ParseError::new(column, "bad number"))?;
            tokens.push(Spanned {
                token: Token::Int(value),
                column,
            });
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '\'')
            {
                i += 1;
            }
            tokens.push(Spanned {
                token: Token::Ident(chars[start..i].iter().collect()),
                column,
            });
        } else {
            let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
            let symbol = SYMBOLS
                .iter()
                .find(|s| rest.starts_with(**s))
                .ok_or_else(|| ParseError::new(column, format!("unexpected character '{c}'")))?;
            tokens.push(Spanned {
                token: Token::Sym(symbol),
                column,
            });
            i += symbol.chars().count();
        }
    }
    tokens.push(Spanned {
        token: Token::End,
        column: chars.len() + 1,
    });
    Ok(tokens)
}

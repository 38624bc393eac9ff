//! Parser for isl sets and piecewise quasi-polynomials. Never panics: every problem is a
//! [`ParseError`] with the column where it was found.

use std::fmt;

use num_traits::Signed;

use super::lexer::{Spanned, Token, tokenize};
use crate::affine::Affine;
use crate::constraint::Constraint;
use crate::count::{Piece, PiecewiseQuasiPolynomial};
use crate::quasipoly::QuasiPolynomial;
use crate::scalar::{Int, Rat, lcm_of_denominators};
use crate::set::{BasicSet, Set, Space};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based column in the input.
    pub column: usize,
    pub message: String,
}

impl ParseError {
    pub fn new(column: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            column,
            message: message.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Parses `[params] -> { [dims] : formula }` (parts may be separated by `;`).
pub fn parse_set(text: &str) -> Result<Set, ParseError> {
    let mut parser = Parser::new(text)?;
    let params = parser.params()?;
    parser.expect("{")?;
    let mut dims: Option<Vec<String>> = None;
    let mut parts = Vec::new();
    loop {
        if parser.peek_is("}") {
            break;
        }
        let column = parser.column();
        let tuple = if parser.peek_is(":") {
            Vec::new()
        } else {
            parser.tuple()?
        };
        if dims.as_ref().is_some_and(|d| *d != tuple) {
            return Err(ParseError::new(
                column,
                "all parts of a set must have the same tuple",
            ));
        }
        let formula = if parser.eat(":") {
            parser.formula()?
        } else {
            Formula::True
        };
        let space = Space::new(params.clone(), tuple.clone());
        parts.extend(lower_formula(&space, &formula)?);
        dims = Some(tuple);
        if !parser.eat(";") {
            break;
        }
    }
    parser.expect("}")?;
    parser.expect_end()?;
    Ok(Set {
        space: Space::new(params, dims.unwrap_or_default()),
        parts,
    })
}

/// Parses `[params] -> { [dims] -> expr : formula; … }`.
pub fn parse_piecewise(text: &str) -> Result<PiecewiseQuasiPolynomial, ParseError> {
    let mut parser = Parser::new(text)?;
    let params = parser.params()?;
    parser.expect("{")?;
    let mut dims: Option<Vec<String>> = None;
    let mut pieces = Vec::new();
    while !parser.peek_is("}") {
        let column = parser.column();
        let tuple = if parser.peek_is("[") || parser.peek_tuple_name() {
            let tuple = parser.tuple()?;
            parser.expect("->")?;
            tuple
        } else {
            Vec::new()
        };
        if dims.as_ref().is_some_and(|d| *d != tuple) {
            return Err(ParseError::new(
                column,
                "all pieces must have the same tuple",
            ));
        }
        let space = Space::new(params.clone(), tuple.clone());
        let expr = parser.expr()?;
        let qp = lower_qp(&space, &expr)?;
        let formula = if parser.eat(":") {
            parser.formula()?
        } else {
            Formula::True
        };
        let domain = Set {
            space: space.clone(),
            parts: lower_formula(&space, &formula)?,
        };
        pieces.push(Piece { domain, qp });
        dims = Some(tuple);
        if !parser.eat(";") {
            break;
        }
    }
    parser.expect("}")?;
    parser.expect_end()?;
    Ok(PiecewiseQuasiPolynomial {
        space: Space::new(params, dims.unwrap_or_default()),
        pieces,
    })
}

#[derive(Clone, Debug)]
enum Expr {
    Num(Rat),
    Var(String, usize),
    Add(Box<Expr>, Box<Expr>),
    Sub(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>, usize),
    Div(Box<Expr>, Box<Expr>, usize),
    Neg(Box<Expr>),
    Pow(Box<Expr>, u32),
    Floor(Box<Expr>, usize),
    Ceil(Box<Expr>, usize),
    Mod(Box<Expr>, Int),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Lt,
    Le,
    Eq,
    Ne,
    Ge,
    Gt,
}

impl Op {
    fn negated(self) -> Op {
        match self {
            Op::Lt => Op::Ge,
            Op::Le => Op::Gt,
            Op::Eq => Op::Ne,
            Op::Ne => Op::Eq,
            Op::Ge => Op::Lt,
            Op::Gt => Op::Le,
        }
    }
}

#[derive(Clone, Debug)]
enum Formula {
    True,
    False,
    /// `lists[0] ops[0] lists[1] ops[1] …`; each list compares element-wise with all others.
    Chain(Vec<Vec<Expr>>, Vec<Op>, usize),
    And(Vec<Formula>),
    Or(Vec<Formula>),
    Not(Box<Formula>, usize),
    Exists(Vec<String>, Box<Formula>),
}

/// Comparison operators with their spelling.
const OPERATORS: &[(&str, Op)] = &[
    ("<=", Op::Le),
    (">=", Op::Ge),
    ("<", Op::Lt),
    (">", Op::Gt),
    ("==", Op::Eq),
    ("=", Op::Eq),
    ("!=", Op::Ne),
];

/// Deepest nesting accepted, so hostile input cannot overflow the stack.
const MAX_DEPTH: usize = 200;

struct Parser {
    tokens: Vec<Spanned>,
    position: usize,
    depth: usize,
}

impl Parser {
    fn new(text: &str) -> Result<Parser, ParseError> {
        Ok(Parser {
            tokens: tokenize(text)?,
            position: 0,
            depth: 0,
        })
    }
    fn peek(&self) -> &Token {
        &self.tokens[self.position.min(self.tokens.len() - 1)].token
    }
    fn peek_at(&self, offset: usize) -> &Token {
        &self.tokens[(self.position + offset).min(self.tokens.len() - 1)].token
    }
    fn column(&self) -> usize {
        self.tokens[self.position.min(self.tokens.len() - 1)].column
    }
    fn advance(&mut self) {
        if self.position < self.tokens.len() - 1 {
            self.position += 1;
        }
    }
    fn peek_is(&self, symbol: &str) -> bool {
        matches!(self.peek(), Token::Sym(s) if *s == symbol)
    }
    fn peek_keyword(&self, word: &str) -> bool {
        matches!(self.peek(), Token::Ident(w) if w == word)
    }
    fn peek_tuple_name(&self) -> bool {
        matches!(self.peek(), Token::Ident(_)) && matches!(self.peek_at(1), Token::Sym("["))
    }
    fn eat(&mut self, symbol: &str) -> bool {
        let found = self.peek_is(symbol);
        if found {
            self.advance();
        }
        found
    }
    fn eat_keyword(&mut self, word: &str) -> bool {
        let found = self.peek_keyword(word);
        if found {
            self.advance();
        }
        found
    }
    fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError::new(self.column(), message)
    }
    fn expect(&mut self, symbol: &str) -> Result<(), ParseError> {
        if self.eat(symbol) {
            Ok(())
        } else {
            Err(self.error(format!("expected '{symbol}'")))
        }
    }
    fn expect_end(&self) -> Result<(), ParseError> {
        match self.peek() {
            Token::End => Ok(()),
            _ => Err(self.error("unexpected text after the closing '}'")),
        }
    }
    fn ident(&mut self) -> Result<String, ParseError> {
        match self.peek().clone() {
            Token::Ident(name) if !is_keyword(&name) => {
                self.advance();
                Ok(name)
            }
            _ => Err(self.error("expected a name")),
        }
    }
    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            Err(self.error("nesting too deep"))
        } else {
            Ok(())
        }
    }

    /// `[a, b] ->` (optional).
    fn params(&mut self) -> Result<Vec<String>, ParseError> {
        if !self.peek_is("[") {
            return Ok(Vec::new());
        }
        let names = self.name_list()?;
        self.expect("->")?;
        Ok(names)
    }
    /// `[a, b]`, optionally preceded by a tuple name (`S[i]`).
    fn tuple(&mut self) -> Result<Vec<String>, ParseError> {
        if self.peek_tuple_name() {
            self.advance();
        }
        self.name_list()
    }
    fn name_list(&mut self) -> Result<Vec<String>, ParseError> {
        self.expect("[")?;
        let mut names = Vec::new();
        if !self.peek_is("]") {
            loop {
                let column = self.column();
                let name = self.ident()?;
                if names.contains(&name) {
                    return Err(ParseError::new(column, format!("'{name}' declared twice")));
                }
                names.push(name);
                if !self.eat(",") {
                    break;
                }
            }
        }
        self.expect("]")?;
        Ok(names)
    }

    fn formula(&mut self) -> Result<Formula, ParseError> {
        self.enter()?;
        let mut disjuncts = vec![self.conjunction()?];
        while self.eat_keyword("or") || self.eat("||") {
            disjuncts.push(self.conjunction()?);
        }
        self.depth -= 1;
        Ok(if disjuncts.len() == 1 {
            disjuncts.remove(0)
        } else {
            Formula::Or(disjuncts)
        })
    }
    fn conjunction(&mut self) -> Result<Formula, ParseError> {
        let mut conjuncts = vec![self.negation()?];
        while self.eat_keyword("and") || self.eat("&&") {
            conjuncts.push(self.negation()?);
        }
        Ok(if conjuncts.len() == 1 {
            conjuncts.remove(0)
        } else {
            Formula::And(conjuncts)
        })
    }
    fn negation(&mut self) -> Result<Formula, ParseError> {
        let column = self.column();
        if self.eat_keyword("not") || self.eat("!") {
            self.enter()?;
            let inner = self.negation()?;
            self.depth -= 1;
            return Ok(Formula::Not(Box::new(inner), column));
        }
        self.atom()
    }
    fn atom(&mut self) -> Result<Formula, ParseError> {
        if self.eat_keyword("true") {
            return Ok(Formula::True);
        }
        if self.eat_keyword("false") {
            return Ok(Formula::False);
        }
        if self.eat_keyword("exists") {
            let parenthesised = self.eat("(");
            let mut names = vec![self.ident()?];
            while self.eat(",") {
                names.push(self.ident()?);
            }
            self.expect(":")?;
            let body = self.formula()?;
            if parenthesised {
                self.expect(")")?;
            }
            return Ok(Formula::Exists(names, Box::new(body)));
        }
        if self.peek_is("(") {
            // Either a parenthesised formula or an expression starting a comparison: try the
            // comparison first and fall back.
            let start = self.position;
            let depth = self.depth;
            if let Ok(chain) = self.chain() {
                return Ok(chain);
            }
            self.position = start;
            self.depth = depth;
            self.advance();
            let inner = self.formula()?;
            self.expect(")")?;
            return Ok(inner);
        }
        self.chain()
    }
    fn chain(&mut self) -> Result<Formula, ParseError> {
        let column = self.column();
        let mut lists = vec![self.expr_list()?];
        let mut ops = Vec::new();
        while let Some(op) = self.comparison_operator() {
            ops.push(op);
            lists.push(self.expr_list()?);
        }
        if ops.is_empty() {
            return Err(self.error("expected a comparison operator"));
        }
        Ok(Formula::Chain(lists, ops, column))
    }
    fn comparison_operator(&mut self) -> Option<Op> {
        let op = OPERATORS
            .iter()
            .find(|(s, _)| self.peek_is(s))
            .map(|(_, op)| *op)?;
        self.advance();
        Some(op)
    }
    fn expr_list(&mut self) -> Result<Vec<Expr>, ParseError> {
        let mut list = vec![self.expr()?];
        while self.peek_is(",") {
            self.advance();
            list.push(self.expr()?);
        }
        Ok(list)
    }

    fn expr(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let mut left = self.term()?;
        loop {
            if self.eat("+") {
                left = Expr::Add(Box::new(left), Box::new(self.term()?));
            } else if self.eat("-") {
                left = Expr::Sub(Box::new(left), Box::new(self.term()?));
            } else {
                break;
            }
        }
        self.depth -= 1;
        Ok(left)
    }
    fn term(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.unary()?;
        loop {
            let column = self.column();
            if self.eat("*") {
                left = Expr::Mul(Box::new(left), Box::new(self.unary()?), column);
            } else if self.eat("/") {
                left = Expr::Div(Box::new(left), Box::new(self.unary()?), column);
            } else if self.eat_keyword("mod") || self.eat("%") {
                let modulus = self.positive_int()?;
                left = Expr::Mod(Box::new(left), modulus);
            } else if self.starts_factor() {
                // Implicit multiplication: `2i`, `3(n - 1)`.
                left = Expr::Mul(Box::new(left), Box::new(self.power()?), column);
            } else {
                break;
            }
        }
        Ok(left)
    }
    fn starts_factor(&self) -> bool {
        match self.peek() {
            Token::Ident(name) => !is_keyword(name) || name == "floor" || name == "ceil",
            Token::Sym("(") => true,
            _ => false,
        }
    }
    fn positive_int(&mut self) -> Result<Int, ParseError> {
        match self.peek().clone() {
            Token::Int(value) if value.is_positive() => {
                self.advance();
                Ok(value)
            }
            _ => Err(self.error("expected a positive integer modulus")),
        }
    }
    fn unary(&mut self) -> Result<Expr, ParseError> {
        if self.eat("-") {
            self.enter()?;
            let inner = self.unary()?;
            self.depth -= 1;
            return Ok(Expr::Neg(Box::new(inner)));
        }
        if self.eat("+") {
            return self.unary();
        }
        self.power()
    }
    fn power(&mut self) -> Result<Expr, ParseError> {
        let base = self.primary()?;
        if self.eat("^") {
            let column = self.column();
            return match self.peek().clone() {
                Token::Int(exponent) => {
                    self.advance();
                    let exponent: u32 = exponent
                        .try_into()
                        .ok()
                        .filter(|e| *e <= 64)
                        .ok_or_else(|| ParseError::new(column, "exponent too large"))?;
                    Ok(Expr::Pow(Box::new(base), exponent))
                }
                _ => Err(ParseError::new(column, "expected an integer exponent")),
            };
        }
        Ok(base)
    }
    fn primary(&mut self) -> Result<Expr, ParseError> {
        let column = self.column();
        match self.peek().clone() {
            Token::Int(value) => {
                self.advance();
                Ok(Expr::Num(Rat::from_int(value)))
            }
            Token::Ident(name) if name == "floor" || name == "ceil" => {
                self.advance();
                self.expect("(")?;
                let inner = self.expr()?;
                self.expect(")")?;
                Ok(if name == "floor" {
                    Expr::Floor(Box::new(inner), column)
                } else {
                    Expr::Ceil(Box::new(inner), column)
                })
            }
            Token::Ident(name) if !is_keyword(&name) => {
                self.advance();
                Ok(Expr::Var(name, column))
            }
            Token::Sym("(") => {
                self.advance();
                let inner = self.expr()?;
                self.expect(")")?;
                Ok(inner)
            }
            _ => Err(self.error("expected an expression")),
        }
    }
}

fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "and" | "or" | "not" | "mod" | "floor" | "ceil" | "exists" | "true" | "false"
    )
}

/// A conjunction of comparisons under existential variables: one disjunct of the DNF.
#[derive(Clone, Debug, Default)]
struct Conjunct {
    exists: Vec<String>,
    atoms: Vec<(Expr, Op, Expr, usize)>,
}

/// Disjunctive normal form, with negations pushed to the comparisons.
fn dnf(formula: &Formula, negated: bool, fresh: &mut usize) -> Result<Vec<Conjunct>, ParseError> {
    match (formula, negated) {
        (Formula::True, false) | (Formula::False, true) => Ok(vec![Conjunct::default()]),
        (Formula::True, true) | (Formula::False, false) => Ok(Vec::new()),
        (Formula::Not(inner, _), _) => dnf(inner, !negated, fresh),
        (Formula::And(items), false) | (Formula::Or(items), true) => {
            let mut result = vec![Conjunct::default()];
            for item in items {
                let alternatives = dnf(item, negated, fresh)?;
                result = result
                    .iter()
                    .flat_map(|left| alternatives.iter().map(move |right| conjoin(left, right)))
                    .collect();
            }
            Ok(result)
        }
        (Formula::Or(items), false) | (Formula::And(items), true) => {
            let mut result = Vec::new();
            for item in items {
                result.extend(dnf(item, negated, fresh)?);
            }
            Ok(result)
        }
        (Formula::Chain(lists, ops, column), _) => Ok(chain_dnf(lists, ops, *column, negated)),
        (Formula::Exists(names, body), false) => {
            let renamed: Vec<(String, String)> = names
                .iter()
                .map(|n| {
                    *fresh += 1;
                    (n.clone(), format!("{n}_{fresh}"))
                })
                .collect();
            let body = rename_formula(body, &renamed);
            let mut result = dnf(&body, false, fresh)?;
            for conjunct in &mut result {
                conjunct
                    .exists
                    .extend(renamed.iter().map(|(_, new)| new.clone()));
            }
            Ok(result)
        }
        (Formula::Exists(..), true) => Err(ParseError::new(
            first_column(formula),
            "negating 'exists' is not supported (use mod or floor instead)",
        )),
    }
}

fn first_column(formula: &Formula) -> usize {
    match formula {
        Formula::Chain(_, _, column) | Formula::Not(_, column) => *column,
        Formula::And(items) | Formula::Or(items) => items.first().map_or(1, first_column),
        Formula::Exists(_, body) => first_column(body),
        Formula::True | Formula::False => 1,
    }
}

fn conjoin(left: &Conjunct, right: &Conjunct) -> Conjunct {
    Conjunct {
        exists: [left.exists.clone(), right.exists.clone()].concat(),
        atoms: [left.atoms.clone(), right.atoms.clone()].concat(),
    }
}

/// `a op1 b op2 c` means `a op1 b and b op2 c`; its negation is the disjunction of the negated
/// links.
fn chain_dnf(lists: &[Vec<Expr>], ops: &[Op], column: usize, negated: bool) -> Vec<Conjunct> {
    let mut links = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        for left in &lists[i] {
            for right in &lists[i + 1] {
                links.push((left.clone(), *op, right.clone(), column));
            }
        }
    }
    let expand = |(l, op, r, c): (Expr, Op, Expr, usize)| -> Vec<(Expr, Op, Expr, usize)> {
        match op {
            Op::Ne => vec![(l.clone(), Op::Lt, r.clone(), c), (l, Op::Gt, r, c)],
            _ => vec![(l, op, r, c)],
        }
    };
    if negated {
        links
            .into_iter()
            .flat_map(|(l, op, r, c)| expand((l, op.negated(), r, c)))
            .map(|atom| Conjunct {
                exists: Vec::new(),
                atoms: vec![atom],
            })
            .collect()
    } else {
        // `!=` links split the conjunction into alternatives.
        let mut result = vec![Conjunct::default()];
        for link in links {
            let options = expand(link);
            result = result
                .iter()
                .flat_map(|c| {
                    options.iter().map(move |atom| {
                        let mut next = c.clone();
                        next.atoms.push(atom.clone());
                        next
                    })
                })
                .collect();
        }
        result
    }
}

fn rename_formula(formula: &Formula, renamed: &[(String, String)]) -> Formula {
    match formula {
        Formula::Chain(lists, ops, column) => Formula::Chain(
            lists
                .iter()
                .map(|l| l.iter().map(|e| rename_expr(e, renamed)).collect())
                .collect(),
            ops.clone(),
            *column,
        ),
        Formula::And(items) => {
            Formula::And(items.iter().map(|f| rename_formula(f, renamed)).collect())
        }
        Formula::Or(items) => {
            Formula::Or(items.iter().map(|f| rename_formula(f, renamed)).collect())
        }
        Formula::Not(inner, column) => {
            Formula::Not(Box::new(rename_formula(inner, renamed)), *column)
        }
        Formula::Exists(names, body) => {
            // Inner quantifiers shadow outer names.
            let visible: Vec<(String, String)> = renamed
                .iter()
                .filter(|(old, _)| !names.contains(old))
                .cloned()
                .collect();
            Formula::Exists(names.clone(), Box::new(rename_formula(body, &visible)))
        }
        Formula::True | Formula::False => formula.clone(),
    }
}

fn rename_expr(expr: &Expr, renamed: &[(String, String)]) -> Expr {
    let r = |e: &Expr| Box::new(rename_expr(e, renamed));
    match expr {
        Expr::Var(name, column) => {
            let new = renamed
                .iter()
                .find(|(old, _)| old == name)
                .map_or(name.clone(), |(_, new)| new.clone());
            Expr::Var(new, *column)
        }
        Expr::Num(_) => expr.clone(),
        Expr::Add(a, b) => Expr::Add(r(a), r(b)),
        Expr::Sub(a, b) => Expr::Sub(r(a), r(b)),
        Expr::Mul(a, b, c) => Expr::Mul(r(a), r(b), *c),
        Expr::Div(a, b, c) => Expr::Div(r(a), r(b), *c),
        Expr::Neg(a) => Expr::Neg(r(a)),
        Expr::Pow(a, e) => Expr::Pow(r(a), *e),
        Expr::Floor(a, c) => Expr::Floor(r(a), *c),
        Expr::Ceil(a, c) => Expr::Ceil(r(a), *c),
        Expr::Mod(a, k) => Expr::Mod(r(a), k.clone()),
    }
}

/// One basic set per disjunct of `formula`.
fn lower_formula(space: &Space, formula: &Formula) -> Result<Vec<BasicSet>, ParseError> {
    let mut fresh = 0;
    dnf(formula, false, &mut fresh)?
        .iter()
        .map(|conjunct| lower_conjunct(space, conjunct))
        .collect()
}

fn lower_conjunct(space: &Space, conjunct: &Conjunct) -> Result<BasicSet, ParseError> {
    let mut set = BasicSet::universe(space.clone());
    let mut scope: Vec<(String, usize)> = space
        .params
        .iter()
        .chain(&space.dims)
        .cloned()
        .zip(0..)
        .collect();
    for name in &conjunct.exists {
        let column = set.add_exists(name.split('_').next().unwrap_or(name));
        scope.push((name.clone(), column));
    }
    for (left, op, right, _) in &conjunct.atoms {
        let difference =
            lower_affine(&mut set, &scope, left)?.sub(&lower_affine(&mut set, &scope, right)?);
        // Columns are integers, so strict comparisons become `>= 1` on the primitive form.
        let constraint = match op {
            Op::Eq => Constraint::eq(difference),
            Op::Ge => Constraint::ge(difference),
            Op::Le => Constraint::ge(difference.neg()),
            Op::Gt => Constraint::ge(difference.primitive().sub(&Affine::constant(1))),
            Op::Lt => Constraint::ge(difference.neg().primitive().sub(&Affine::constant(1))),
            Op::Ne => unreachable_ne(),
        };
        set.add_constraint(constraint);
    }
    Ok(set)
}

/// `!=` is expanded into `<` or `>` before lowering; keeping the match total without a panic.
fn unreachable_ne() -> Constraint {
    Constraint::ge(Affine::constant(-1))
}

fn lower_affine(
    set: &mut BasicSet,
    scope: &[(String, usize)],
    expr: &Expr,
) -> Result<Affine, ParseError> {
    let mut lower = |e: &Expr| lower_affine(set, scope, e);
    Ok(match expr {
        Expr::Num(value) => Affine::constant(value.clone()),
        Expr::Var(name, column) => {
            let (_, index) =
                scope.iter().rev().find(|(n, _)| n == name).ok_or_else(|| {
                    ParseError::new(*column, format!("unknown variable '{name}'"))
                })?;
            Affine::var(*index)
        }
        Expr::Add(a, b) => lower(a)?.add(&lower(b)?),
        Expr::Sub(a, b) => lower(a)?.sub(&lower(b)?),
        Expr::Neg(a) => lower(a)?.neg(),
        Expr::Mul(a, b, column) => {
            let (a, b) = (lower(a)?, lower(b)?);
            if a.is_constant() {
                b.scale(&a.constant)
            } else if b.is_constant() {
                a.scale(&b.constant)
            } else {
                return Err(ParseError::new(
                    *column,
                    "non-linear product in a constraint",
                ));
            }
        }
        Expr::Div(a, b, column) => {
            let (a, b) = (lower(a)?, lower(b)?);
            match (b.is_constant(), b.constant.recip()) {
                (true, Some(inverse)) => a.scale(&inverse),
                _ => {
                    return Err(ParseError::new(
                        *column,
                        "division by a non-constant or zero",
                    ));
                }
            }
        }
        Expr::Pow(a, exponent) => {
            let a = lower(a)?;
            if *exponent == 1 {
                a
            } else if a.is_constant() {
                Affine::constant(a.constant.pow(*exponent))
            } else {
                return Err(ParseError::new(1, "non-linear power in a constraint"));
            }
        }
        Expr::Floor(a, _) => {
            let a = lower(a)?;
            floor_column(set, &a)
        }
        Expr::Ceil(a, _) => {
            let a = lower(a)?;
            floor_column(set, &a.neg()).neg()
        }
        Expr::Mod(a, modulus) => {
            let a = lower(a)?;
            let k = Rat::from(modulus.clone());
            let quotient = floor_column(set, &a.scale(&(Rat::one() / &k)));
            a.sub(&quotient.scale(&k))
        }
    })
}

/// `floor(form)` as a division column (or a constant).
fn floor_column(set: &mut BasicSet, form: &Affine) -> Affine {
    if form.is_constant() {
        return Affine::constant(Rat::from(form.constant.floor()));
    }
    let denominator = lcm_of_denominators(form.coeffs.iter().chain([&form.constant]));
    let numerator = form.scale(&Rat::from(denominator.clone()));
    if denominator == Int::from(1) {
        return numerator;
    }
    Affine::var(set.add_div(numerator, denominator))
}

fn lower_qp(space: &Space, expr: &Expr) -> Result<QuasiPolynomial, ParseError> {
    let known = |name: &str| space.params.iter().chain(&space.dims).any(|n| n == name);
    let lower = |e: &Expr| lower_qp(space, e);
    Ok(match expr {
        Expr::Num(value) => QuasiPolynomial::constant(value.clone()),
        Expr::Var(name, column) => {
            if !known(name) {
                return Err(ParseError::new(
                    *column,
                    format!("unknown variable '{name}'"),
                ));
            }
            QuasiPolynomial::var(name)
        }
        Expr::Add(a, b) => lower(a)?.add(&lower(b)?),
        Expr::Sub(a, b) => lower(a)?.sub(&lower(b)?),
        Expr::Neg(a) => lower(a)?.neg(),
        Expr::Mul(a, b, _) => lower(a)?.mul(&lower(b)?),
        Expr::Div(a, b, column) => {
            let divisor = lower(b)?;
            let inverse = divisor
                .as_polynomial()
                .and_then(|p| p.as_constant())
                .and_then(|c| c.recip());
            let inverse = inverse
                .ok_or_else(|| ParseError::new(*column, "division by a non-constant or zero"))?;
            lower(a)?.scale(&inverse)
        }
        Expr::Pow(a, exponent) => {
            let base = lower(a)?;
            (0..*exponent).fold(QuasiPolynomial::constant(1), |acc, _| acc.mul(&base))
        }
        Expr::Floor(a, column) => floor_qp(&lower(a)?, *column)?,
        Expr::Ceil(a, column) => floor_qp(&lower(a)?.neg(), *column)?.neg(),
        Expr::Mod(a, modulus) => {
            let value = lower(a)?;
            let k = Rat::from(modulus.clone());
            let quotient = floor_qp(&value.scale(&(Rat::one() / &k)), 1)?;
            value.sub(&quotient.scale(&k))
        }
    })
}

fn floor_qp(value: &QuasiPolynomial, column: usize) -> Result<QuasiPolynomial, ParseError> {
    value
        .floor_of_linear()
        .ok_or_else(|| ParseError::new(column, "floor of a non-linear expression"))
}

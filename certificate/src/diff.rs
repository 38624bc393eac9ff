//! Comparing two certificates method by method (`membound diff`): each per-method quantity
//! (memAlloc, memCaptured, memEscapes, memRq, in objects and in bytes) is classified as a
//! regression (a new ∞, a higher degree, a larger leading coefficient, a larger value at a given
//! point) or an improvement (the reverse), and creation sites are matched by their chain's
//! methods and their type (offsets and lines move with every edit, so they are not part of the
//! match). New creation sites are regressions; removed ones, added and removed methods are
//! information.
//!
//! Degree and leading coefficients are read from the expressions' polynomial leaves without
//! deciding where each `cases` arm applies, so they describe growth, not values: a change below
//! the leading terms is caught only at the points given. Nothing here decides soundness (that
//! is `validate` and `check`); the comparison is of the certificates' text, never re-analyzed.

use std::collections::BTreeMap;
use std::fmt::Write;

use membound_bernstein::simplify::product_of;
use membound_bernstein::{BoundExpr, Guard, parse_bound, simplify};
use membound_polyhedra::{Monomial, Polynomial, Rat, Value};

use super::{Certificate, MethodEntry, SiteEntry};
use crate::budget::{Quantity, Unit};
use membound_jvm::error::{Error, Result};

/// How fast an expression grows with its parameters: a polynomial degree, below every
/// exponential, below ∞.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Degree {
    /// A polynomial of this degree; a logarithm counts 0, and `b^floor_log2(x)` counts as the
    /// polynomial it is (`2^floor_log2(n)` is about `n`: degree 1; a base that is not a power
    /// of 2 is rounded up to the next one, `3^floor_log2(n)` counting as degree 2).
    Finite(u32),
    /// A power whose exponent grows like a polynomial of this degree (`2^n`: 1, `2^(n^2)`: 2;
    /// 0 for an exponent whose growth is not recognized), above every polynomial.
    Exponential(u32),
    Infinite,
}

impl std::fmt::Display for Degree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Degree::Finite(d) => write!(f, "degree {d}"),
            Degree::Exponential(0) => write!(f, "exponential"),
            Degree::Exponential(d) => write!(f, "exponential (exponent of degree {d})"),
            Degree::Infinite => write!(f, "∞"),
        }
    }
}

/// The growth class of an expression: the largest of its sums', maxima's and cases' items
/// (of any periodic class), ∞ when it has an ∞ leaf anywhere (in any `cases` arm).
pub fn degree(expr: &BoundExpr) -> Degree {
    match expr {
        BoundExpr::Inf => Degree::Infinite,
        BoundExpr::Pol(qp) => Degree::Finite(qp.degree()),
        BoundExpr::Sum(_) | BoundExpr::Max(_) | BoundExpr::Cases { .. } => expr
            .children()
            .into_iter()
            .map(degree)
            .max()
            .unwrap_or(Degree::Finite(0)),
        BoundExpr::Mul(items) => items
            .iter()
            .map(degree)
            .fold(Degree::Finite(0), product_degree),
        BoundExpr::Log2 { arg } => match degree(arg) {
            Degree::Infinite => Degree::Infinite,
            Degree::Finite(_) => Degree::Finite(0),
            // The logarithm of b^(n^k) grows like n^k.
            Degree::Exponential(k) => Degree::Finite(k),
        },
        BoundExpr::Pow { base, exponent } => match degree(exponent) {
            Degree::Infinite => Degree::Infinite,
            Degree::Exponential(_) => Degree::Exponential(u32::MAX),
            Degree::Finite(0) => match logarithmic_weight(exponent) {
                // b^(w·log2 n) = n^(w·log2 b), log2 b rounded up.
                Some(weight) => {
                    let exponent = weight * Rat::from((base - 1u32).bits() as i64);
                    Degree::Finite(u32::try_from(exponent.ceil()).unwrap_or(u32::MAX))
                }
                None => Degree::Exponential(0),
            },
            Degree::Finite(d) => Degree::Exponential(d),
        },
    }
}

/// The growth of a product of two factors.
fn product_degree(a: Degree, b: Degree) -> Degree {
    match (a, b) {
        (Degree::Infinite, _) | (_, Degree::Infinite) => Degree::Infinite,
        (Degree::Exponential(x), Degree::Exponential(y)) => Degree::Exponential(x.max(y)),
        (Degree::Exponential(x), _) | (_, Degree::Exponential(x)) => Degree::Exponential(x),
        (Degree::Finite(x), Degree::Finite(y)) => Degree::Finite(x.saturating_add(y)),
    }
}

/// For an exponent of degree 0: `w` such that it grows like `w·log2 n` (each `floor_log2(x)`
/// weighing the degree of `x`), `None` when its form is not recognized.
fn logarithmic_weight(expr: &BoundExpr) -> Option<Rat> {
    match expr {
        BoundExpr::Pol(qp) if qp.degree() == 0 => Some(Rat::zero()),
        BoundExpr::Log2 { arg } => match degree(arg) {
            Degree::Finite(d) => Some(Rat::from(i64::from(d))),
            _ => None,
        },
        BoundExpr::Sum(items) => items.iter().map(logarithmic_weight).sum(),
        BoundExpr::Max(_) | BoundExpr::Cases { .. } => expr
            .children()
            .into_iter()
            .map(logarithmic_weight)
            .collect::<Option<Vec<Rat>>>()?
            .into_iter()
            .max(),
        BoundExpr::Mul(items) => {
            // A constant times one logarithmic factor.
            let mut weight = None;
            let mut scale = Rat::one();
            for item in items {
                match item.as_polynomial().and_then(Polynomial::as_constant) {
                    Some(c) => scale *= c,
                    None if weight.is_none() => weight = Some(logarithmic_weight(item)?),
                    None => return None,
                }
            }
            Some(weight.unwrap_or_default() * scale.abs())
        }
        _ => None,
    }
}

/// How `expr` grows as its parameters grow, for a summary line: `∞`, or the leading terms of
/// an upper bound of it (`8*k^2`, `24*2^n`): of a polynomial its terms of the highest degree;
/// of polynomials under a sum, a `cases`, a `max` or a product the coefficients [`leading`]
/// gives (the largest among branches); of powers and logarithms the terms that grow fastest,
/// their exponents and arguments as the parameters grow ([`eventual`]); equal terms added up.
pub fn growth_text(expr: &BoundExpr) -> String {
    if degree(expr) == Degree::Infinite {
        return "∞".to_string();
    }
    let mut terms: Vec<(BoundExpr, i64)> = Vec::new();
    for term in fastest_terms(expr) {
        match terms.iter_mut().find(|(seen, _)| *seen == term) {
            Some((_, count)) => *count += 1,
            None => terms.push((term, 1)),
        }
    }
    let sum = terms
        .into_iter()
        .map(|(term, count)| match count {
            1 => term,
            _ => product_of(vec![BoundExpr::pol(Polynomial::constant(count)), term]),
        })
        .collect();
    simplify(&BoundExpr::Sum(sum), &Guard::always()).to_readable()
}

/// The terms of `expr` that grow fastest (see [`growth_text`]).
fn fastest_terms(expr: &BoundExpr) -> Vec<BoundExpr> {
    let top = degree(expr);
    if let BoundExpr::Pol(qp) = expr
        && let [class] = qp.classes()
    {
        let Degree::Finite(d) = top else {
            return Vec::new();
        };
        let terms = class.terms().filter(|(m, _)| m.degree() == d);
        return vec![BoundExpr::pol(Polynomial::from_terms(
            terms.map(|(m, c)| (m.clone(), c.clone())),
        ))];
    }
    if let Degree::Finite(d) = top
        && let Some(terms) = leading(expr, d)
    {
        return vec![BoundExpr::pol(Polynomial::from_terms(terms))];
    }
    match expr {
        BoundExpr::Sum(items) => items
            .iter()
            .filter(|item| degree(item) == top)
            .flat_map(fastest_terms)
            .collect(),
        BoundExpr::Max(_) | BoundExpr::Cases { .. } => {
            fastest_branch(expr).map(fastest_terms).unwrap_or_default()
        }
        BoundExpr::Mul(items) => vec![product_of(
            items
                .iter()
                .map(|item| BoundExpr::Sum(fastest_terms(item)))
                .collect(),
        )],
        BoundExpr::Pow { base, exponent } => vec![BoundExpr::Pow {
            base: base.clone(),
            exponent: Box::new(eventual(exponent)),
        }],
        BoundExpr::Log2 { arg } => vec![BoundExpr::Log2 {
            arg: Box::new(eventual(arg)),
        }],
        BoundExpr::Pol(_) | BoundExpr::Inf => vec![expr.clone()],
    }
}

/// The first branch of a `cases` (its arms, then its default) or item of a `max` that grows
/// like the whole.
fn fastest_branch(expr: &BoundExpr) -> Option<&BoundExpr> {
    let top = degree(expr);
    expr.children()
        .into_iter()
        .find(|branch| degree(branch) == top)
}

/// `expr` with each `cases` and `max` replaced by its [`fastest_branch`], all its terms kept:
/// what an exponent or a logarithm's argument becomes as the parameters grow.
fn eventual(expr: &BoundExpr) -> BoundExpr {
    let all = |items: &[BoundExpr]| items.iter().map(eventual).collect::<Vec<_>>();
    match expr {
        BoundExpr::Max(_) | BoundExpr::Cases { .. } => {
            fastest_branch(expr).map_or_else(|| expr.clone(), eventual)
        }
        BoundExpr::Sum(items) => simplify(&BoundExpr::Sum(all(items)), &Guard::always()),
        BoundExpr::Mul(items) => product_of(all(items)),
        BoundExpr::Pow { base, exponent } => BoundExpr::Pow {
            base: base.clone(),
            exponent: Box::new(eventual(exponent)),
        },
        BoundExpr::Log2 { arg } => BoundExpr::Log2 {
            arg: Box::new(eventual(arg)),
        },
        BoundExpr::Pol(_) | BoundExpr::Inf => expr.clone(),
    }
}

/// The coefficients of the monomials of total degree `d`: added over a sum, the largest over
/// the items of a `max`, the arms of a `cases` and the classes of a periodic leaf (a branch
/// without the monomial counts 0), multiplied over a product of polynomials; `None` when a
/// power or a logarithm grows at degree `d` (its terms have no coefficients to compare).
fn leading(expr: &BoundExpr, d: u32) -> Option<BTreeMap<Monomial<String>, Rat>> {
    let mut out = BTreeMap::new();
    match expr {
        BoundExpr::Inf => {}
        BoundExpr::Pol(qp) => {
            for class in qp.classes() {
                let top = class.terms().filter(|(m, _)| m.degree() == d);
                let branch = top.map(|(m, c)| (m.clone(), c.clone())).collect();
                merge_max(&mut out, branch);
            }
        }
        BoundExpr::Sum(items) => {
            for item in items {
                for (m, c) in leading(item, d)? {
                    *out.entry(m).or_insert_with(Rat::zero) += c;
                }
            }
        }
        BoundExpr::Max(_) | BoundExpr::Cases { .. } => {
            for branch in expr.children() {
                merge_max(&mut out, leading(branch, d)?);
            }
        }
        BoundExpr::Mul(items) => return leading_of_product(items, d),
        BoundExpr::Pow { .. } | BoundExpr::Log2 { .. } => {
            if degree(expr) >= Degree::Finite(d) {
                return None;
            }
        }
    }
    out.retain(|_, c| !c.is_zero());
    Some(out)
}

/// The leading coefficients of a product: the product of its factors' leading terms when
/// their degrees add up to `d`.
fn leading_of_product(items: &[BoundExpr], d: u32) -> Option<BTreeMap<Monomial<String>, Rat>> {
    let mut product = Polynomial::one();
    let mut total = 0u32;
    for item in items {
        let Degree::Finite(k) = degree(item) else {
            return None;
        };
        total = total.saturating_add(k);
        let terms = leading(item, k)?;
        product = &product * &Polynomial::from_terms(terms);
    }
    if total != d {
        return Some(BTreeMap::new());
    }
    Some(
        product
            .terms()
            .filter(|(m, c)| m.degree() == d && !c.is_zero())
            .map(|(m, c)| (m.clone(), c.clone()))
            .collect(),
    )
}

/// `into[m] = max(into[m], branch[m])`, a missing monomial counting 0.
fn merge_max(into: &mut BTreeMap<Monomial<String>, Rat>, branch: BTreeMap<Monomial<String>, Rat>) {
    let monomials: Vec<Monomial<String>> = into.keys().chain(branch.keys()).cloned().collect();
    for m in monomials {
        let a = into.get(&m).cloned().unwrap_or_else(Rat::zero);
        let b = branch.get(&m).cloned().unwrap_or_else(Rat::zero);
        into.insert(m, a.max(b));
    }
}

/// How one thing changed between the old and the new certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    NewInfinity,
    HigherDegree,
    LargerLeading,
    /// Larger at the point (its `n=…,m=…` text).
    LargerAt(String),
    NewSite,
    InfinityRemoved,
    LowerDegree,
    SmallerLeading,
    SmallerAt(String),
    SiteRemoved,
    /// The expression changed, but neither its degree, its leading coefficients nor its value
    /// at a given point says in which direction.
    Changed,
    MethodAdded,
    MethodRemoved,
    QuantityAdded,
    QuantityRemoved,
}

impl Kind {
    pub fn is_regression(&self) -> bool {
        matches!(
            self,
            Kind::NewInfinity
                | Kind::HigherDegree
                | Kind::LargerLeading
                | Kind::LargerAt(_)
                | Kind::NewSite
        )
    }
    pub fn is_improvement(&self) -> bool {
        matches!(
            self,
            Kind::InfinityRemoved
                | Kind::LowerDegree
                | Kind::SmallerLeading
                | Kind::SmallerAt(_)
                | Kind::SiteRemoved
        )
    }
    pub fn label(&self) -> String {
        match self {
            Kind::NewInfinity => "new ∞".to_string(),
            Kind::HigherDegree => "higher degree".to_string(),
            Kind::LargerLeading => "larger leading coefficient".to_string(),
            Kind::LargerAt(point) => format!("larger at {point}"),
            Kind::NewSite => "new creation site".to_string(),
            Kind::InfinityRemoved => "∞ removed".to_string(),
            Kind::LowerDegree => "lower degree".to_string(),
            Kind::SmallerLeading => "smaller leading coefficient".to_string(),
            Kind::SmallerAt(point) => format!("smaller at {point}"),
            Kind::SiteRemoved => "creation site removed".to_string(),
            Kind::Changed => "changed below the leading terms".to_string(),
            Kind::MethodAdded => "new method".to_string(),
            Kind::MethodRemoved => "method removed".to_string(),
            Kind::QuantityAdded => "quantity added".to_string(),
            Kind::QuantityRemoved => "quantity no longer given".to_string(),
        }
    }
}

/// One classified change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub method: String,
    /// `memAlloc bytes`, or a creation site (type and chain), or empty for a whole method.
    pub what: String,
    pub kind: Kind,
    /// What was compared, before and after: a degree, leading terms, a value, an expression.
    pub old: String,
    pub new: String,
    /// The old and new expressions of a changed quantity.
    pub expressions: Option<(String, String)>,
}

/// Everything that changed, in the new certificate's method order.
#[derive(Clone, Debug, Default)]
pub struct Diff {
    pub changes: Vec<Change>,
    /// (method, point, missing parameters): comparisons not made at a point.
    pub not_at: Vec<(String, String, Vec<String>)>,
}

/// Compares `old` and `new` method by method (matched by their full name), at `points` too.
pub fn diff(
    old: &Certificate,
    new: &Certificate,
    points: &[BTreeMap<String, Rat>],
) -> Result<Diff> {
    let every: Vec<&MethodEntry> = old.methods.iter().chain(&new.methods).collect();
    for point in points {
        crate::check_read::check_point_names(point, &every)?;
    }
    let mut out = Diff::default();
    for method in &new.methods {
        match old.methods.iter().find(|m| m.method == method.method) {
            Some(before) => compare_method(before, method, points, &mut out)?,
            None => out
                .changes
                .push(whole_method(&method.method, Kind::MethodAdded)),
        }
    }
    for method in &old.methods {
        if !new.methods.iter().any(|m| m.method == method.method) {
            out.changes
                .push(whole_method(&method.method, Kind::MethodRemoved));
        }
    }
    Ok(out)
}

fn whole_method(method: &str, kind: Kind) -> Change {
    Change {
        method: method.to_string(),
        what: String::new(),
        kind,
        old: String::new(),
        new: String::new(),
        expressions: None,
    }
}

fn compare_method(
    old: &MethodEntry,
    new: &MethodEntry,
    points: &[BTreeMap<String, Rat>],
    out: &mut Diff,
) -> Result<()> {
    let mut usable = Vec::new();
    for point in points {
        let mut missing: Vec<String> = new
            .params
            .iter()
            .chain(&old.params)
            .filter(|p| !point.contains_key(&p.name))
            .map(|p| p.name.clone())
            .collect();
        missing.sort();
        missing.dedup();
        if missing.is_empty() {
            usable.push(point);
        } else {
            out.not_at
                .push((new.method.clone(), point_text(point), missing));
        }
    }
    for quantity in Quantity::ALL {
        for unit in Unit::BOTH {
            let what = format!("{} {}", quantity.name(), unit.name());
            let before = quantity.of(old).map(|a| unit.of(a));
            let after = quantity.of(new).map(|a| unit.of(a));
            let presence = |kind: Kind, was: &str, now: &str| Change {
                method: new.method.clone(),
                what: what.clone(),
                kind,
                old: was.to_string(),
                new: now.to_string(),
                expressions: None,
            };
            match (before, after) {
                (None, None) => {}
                (Some(a), None) => out.changes.push(presence(Kind::QuantityRemoved, a, "")),
                (None, Some(b)) => out.changes.push(presence(Kind::QuantityAdded, "", b)),
                (Some(a), Some(b)) if a == b => {}
                (Some(a), Some(b)) => {
                    let changes = compare_expressions(&new.method, &what, a, b, &usable)?;
                    out.changes.extend(changes);
                }
            }
        }
    }
    compare_sites(&old.sites, &new.sites, &new.method, out);
    Ok(())
}

/// A certificate expression parsed; a malformed one is an input error naming the method.
pub fn parse_expression(method: &str, text: &str) -> Result<BoundExpr> {
    parse_bound(text).map_err(|e| Error::Input(format!("{method}: bad expression `{text}`: {e}")))
}

/// `k=1000,n=5`.
pub fn point_text(point: &BTreeMap<String, Rat>) -> String {
    let values: Vec<String> = point.iter().map(|(n, v)| format!("{n}={v}")).collect();
    values.join(",")
}

/// The changes of one quantity whose expression text changed: its growth (∞, degree, leading
/// coefficients), then its value at each point; `Changed` when none of them moved.
fn compare_expressions(
    method: &str,
    what: &str,
    old_text: &str,
    new_text: &str,
    points: &[&BTreeMap<String, Rat>],
) -> Result<Vec<Change>> {
    let (old, new) = (
        parse_expression(method, old_text)?,
        parse_expression(method, new_text)?,
    );
    let change = |kind: Kind, old: String, new: String| Change {
        method: method.to_string(),
        what: what.to_string(),
        kind,
        old,
        new,
        expressions: Some((old_text.to_string(), new_text.to_string())),
    };
    let (before, after) = (degree(&old), degree(&new));
    let degrees = |kind: Kind| Some((kind, before.to_string(), after.to_string()));
    let growth = match (before, after) {
        (Degree::Infinite, Degree::Infinite) => None,
        (_, Degree::Infinite) => degrees(Kind::NewInfinity),
        (Degree::Infinite, _) => degrees(Kind::InfinityRemoved),
        (a, b) if b > a => degrees(Kind::HigherDegree),
        (a, b) if b < a => degrees(Kind::LowerDegree),
        (Degree::Finite(d), _) => leading_change(&old, &new, d),
        // Exponentials of one class: only their values at the points tell.
        _ => None,
    };
    let mut changes: Vec<Change> = growth
        .into_iter()
        .map(|(kind, was, now)| change(kind, was, now))
        .collect();
    for point in points {
        let at = |expr: &BoundExpr| {
            expr.eval(point)
                .map_err(|e| Error::Input(format!("{method}: {e}")))
        };
        let (a, b) = (at(&old)?, at(&new)?);
        let kind = if above(&b, &a) {
            Kind::LargerAt(point_text(point))
        } else if above(&a, &b) {
            Kind::SmallerAt(point_text(point))
        } else {
            continue;
        };
        changes.push(change(kind, a.to_string(), b.to_string()));
    }
    if changes.is_empty() {
        changes.push(change(Kind::Changed, String::new(), String::new()));
    }
    Ok(changes)
}

/// How the leading coefficients (of degree `d`, both expressions' degree) moved, with the
/// leading terms before and after; a regression when any coefficient grew; `None` when they
/// did not move or a power or logarithm at that degree has none.
fn leading_change(old: &BoundExpr, new: &BoundExpr, d: u32) -> Option<(Kind, String, String)> {
    let (before, after) = (leading(old, d)?, leading(new, d)?);
    let coefficient = |lead: &BTreeMap<_, Rat>, m| lead.get(m).cloned().unwrap_or_default();
    let monomials: Vec<&Monomial<String>> = before.keys().chain(after.keys()).collect();
    let grew = |from: &BTreeMap<_, Rat>, to: &BTreeMap<_, Rat>| {
        monomials
            .iter()
            .any(|m| coefficient(to, *m) > coefficient(from, *m))
    };
    let kind = if grew(&before, &after) {
        Kind::LargerLeading
    } else if grew(&after, &before) {
        Kind::SmallerLeading
    } else {
        return None;
    };
    let text = |lead: &BTreeMap<Monomial<String>, Rat>| {
        Polynomial::from_terms(lead.iter().map(|(m, c)| (m.clone(), c.clone()))).to_string()
    };
    Some((kind, text(&before), text(&after)))
}

/// `a > b`, ∞ being above every number.
pub fn above(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Finite(a), Value::Finite(b)) => a > b,
        (Value::Infinite, Value::Finite(_)) => true,
        (_, Value::Infinite) => false,
    }
}

/// Sites are matched by their steps' methods and type, as multisets (offsets move with any
/// edit): the new certificate's sites beyond the old one's number of the same key are new, and
/// the other way round removed.
fn compare_sites(old: &[SiteEntry], new: &[SiteEntry], method: &str, out: &mut Diff) {
    let key = |site: &SiteEntry| -> (Vec<String>, String) {
        let steps = site.steps().map(|e| e.method.clone()).collect();
        (steps, site.ty.clone())
    };
    let group = |sites: &[SiteEntry]| {
        let mut groups: BTreeMap<(Vec<String>, String), Vec<SiteEntry>> = BTreeMap::new();
        for site in sites {
            groups.entry(key(site)).or_default().push(site.clone());
        }
        groups
    };
    let (before, after) = (group(old), group(new));
    let surplus = |of: &BTreeMap<_, Vec<SiteEntry>>, than: &BTreeMap<_, Vec<SiteEntry>>| {
        of.iter()
            .flat_map(|(k, sites)| sites.iter().skip(than.get(k).map_or(0, Vec::len)))
            .cloned()
            .collect::<Vec<SiteEntry>>()
    };
    let site_change = |site: &SiteEntry, kind: Kind| {
        let bytes = format!("bytes: {}", site.bytes);
        let (old, new) = match kind {
            Kind::NewSite => (String::new(), bytes),
            _ => (bytes, String::new()),
        };
        Change {
            method: method.to_string(),
            what: site_text(site),
            kind,
            old,
            new,
            expressions: None,
        }
    };
    for site in surplus(&after, &before) {
        out.changes.push(site_change(&site, Kind::NewSite));
    }
    for site in surplus(&before, &after) {
        out.changes.push(site_change(&site, Kind::SiteRemoved));
    }
}

/// `Intro$B at Intro.m1(I)V@16 (line 22) -> Intro.m2(I)V@7 (line 28)`.
fn site_text(site: &SiteEntry) -> String {
    let chain = membound_jvm::chain::join(
        site.steps()
            .map(|e| membound_jvm::chain::step(&e.method, e.offset, e.line)),
    );
    format!("{} at {chain}", site.ty)
}

impl Change {
    /// `(old -> new)`, `(new)` or `(was old)`, empty when there is nothing to show.
    fn detail(&self) -> String {
        match (self.old.is_empty(), self.new.is_empty()) {
            (false, false) => format!(" ({} -> {})", self.old, self.new),
            (true, false) => format!(" ({})", self.new),
            (false, true) => format!(" (was {})", self.old),
            (true, true) => String::new(),
        }
    }
    /// `memAlloc bytes: higher degree`, `new creation site A at M.m()V:3`, `method removed`.
    fn title(&self) -> String {
        match self.kind {
            _ if self.what.is_empty() => self.kind.label(),
            Kind::NewSite | Kind::SiteRemoved => format!("{} {}", self.kind.label(), self.what),
            _ => format!("{}: {}", self.what, self.kind.label()),
        }
    }
    fn heading(&self) -> &'static str {
        if self.kind.is_regression() {
            "REGRESSION"
        } else if self.kind.is_improvement() {
            "IMPROVEMENT"
        } else {
            "INFO"
        }
    }
}

impl Diff {
    pub fn regressions(&self) -> usize {
        self.changes
            .iter()
            .filter(|c| c.kind.is_regression())
            .count()
    }

    fn improvements(&self) -> usize {
        self.changes
            .iter()
            .filter(|c| c.kind.is_improvement())
            .count()
    }

    /// The changes as JSON: each with its method, what changed, its `kind` (the label the text
    /// prints), its `class` (`regression`, `improvement` or `info`), the old and new values
    /// compared and expressions; the comparisons not made at a point; and the counts.
    pub fn to_json(&self) -> serde_json::Value {
        let changes: Vec<serde_json::Value> = self
            .changes
            .iter()
            .map(|c| {
                let mut change = serde_json::json!({
                    "method": c.method,
                    "what": c.what,
                    "kind": c.kind.label(),
                    "class": c.heading().to_lowercase(),
                    "old": c.old,
                    "new": c.new,
                });
                if let Some((old, new)) = &c.expressions {
                    change["expressions"] = serde_json::json!({"old": old, "new": new});
                }
                change
            })
            .collect();
        let not_compared: Vec<serde_json::Value> = self
            .not_at
            .iter()
            .map(|(method, point, missing)| {
                serde_json::json!({"method": method, "at": point, "missing_params": missing})
            })
            .collect();
        serde_json::json!({
            "changes": changes,
            "not_compared": not_compared,
            "regressions": self.regressions(),
            "improvements": self.improvements(),
        })
    }

    /// One line per change (the expressions below a regression), then the points not used and
    /// a summary line.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let mut shown: Vec<(&str, &str)> = Vec::new();
        for c in &self.changes {
            let _ = writeln!(
                out,
                "{:<12} {}: {}{}",
                c.heading(),
                c.method,
                c.title(),
                c.detail()
            );
            // A regressing quantity's expressions, once.
            if let (true, Some((old, new))) = (c.kind.is_regression(), &c.expressions)
                && !shown.contains(&(c.method.as_str(), c.what.as_str()))
            {
                shown.push((&c.method, &c.what));
                let _ = writeln!(out, "             old: {old}\n             new: {new}");
            }
        }
        for (method, point, missing) in &self.not_at {
            let _ = writeln!(
                out,
                "{:<12} {method}: not compared at {point} (no value for {})",
                "INFO",
                missing.join(", ")
            );
        }
        if self.changes.is_empty() {
            out.push_str("no change in the bounds or the creation sites\n");
        }
        let others = self.changes.len() - self.regressions() - self.improvements();
        let _ = writeln!(
            out,
            "{} regression(s), {} improvement(s), {others} other change(s)",
            self.regressions(),
            self.improvements()
        );
        out
    }

    /// A pull-request comment: a heading with the count, a table per method with
    /// regressions (and its expressions folded), then one table of everything else.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let regressing: Vec<&str> = {
            let mut methods: Vec<&str> = Vec::new();
            for c in self.changes.iter().filter(|c| c.kind.is_regression()) {
                if !methods.contains(&c.method.as_str()) {
                    methods.push(&c.method);
                }
            }
            methods
        };
        if regressing.is_empty() {
            out.push_str("### membound diff: no memory regression\n");
        } else {
            let _ = writeln!(
                out,
                "### membound diff: {} regression(s) in {} method(s)",
                self.regressions(),
                regressing.len()
            );
        }
        for method in &regressing {
            let _ = writeln!(
                out,
                "\n#### `{}`\n\n| what | change | old | new |\n|---|---|---|---|",
                cell(method)
            );
            let mine: Vec<&Change> = self
                .changes
                .iter()
                .filter(|c| c.method == *method && c.kind.is_regression())
                .collect();
            for c in &mine {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} |",
                    cell(&c.what),
                    cell(&c.kind.label()),
                    code(&c.old),
                    code(&c.new)
                );
            }
            let mut expressions: Vec<(&str, &(String, String))> = Vec::new();
            for c in &mine {
                if let Some(pair) = &c.expressions
                    && !expressions.iter().any(|(what, _)| *what == c.what)
                {
                    expressions.push((&c.what, pair));
                }
            }
            if !expressions.is_empty() {
                out.push_str("\n<details><summary>expressions</summary>\n\n");
                out.push_str("| what | old | new |\n|---|---|---|\n");
                for (what, (old, new)) in expressions {
                    let _ = writeln!(out, "| {} | {} | {} |", cell(what), code(old), code(new));
                }
                out.push_str("\n</details>\n");
            }
        }
        let others: Vec<&Change> = self
            .changes
            .iter()
            .filter(|c| !c.kind.is_regression())
            .collect();
        if !others.is_empty() {
            // Folded: on a large certificate this is long, and none of it fails the check.
            let _ = writeln!(
                out,
                "\n<details><summary>{} improvement(s) and {} other change(s)</summary>\n",
                self.improvements(),
                others.len() - self.improvements()
            );
            out.push_str("| method | what | change | old | new |\n|---|---|---|---|---|\n");
            for c in others {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} | {} | {} |",
                    cell(&c.method),
                    cell(&c.what),
                    cell(&c.kind.label()),
                    code(&c.old),
                    code(&c.new)
                );
            }
            out.push_str("\n</details>\n");
        }
        // One line per point, naming the methods it did not apply to.
        let mut by_point: Vec<(&str, Vec<&str>)> = Vec::new();
        for (method, point, _) in &self.not_at {
            match by_point.iter_mut().find(|(p, _)| p == point) {
                Some((_, methods)) => methods.push(method),
                None => by_point.push((point, vec![method])),
            }
        }
        for (point, methods) in by_point {
            let names: Vec<String> = methods.iter().map(|m| format!("`{m}`")).collect();
            let _ = writeln!(
                out,
                "\nNot compared at `{point}` (a parameter has no value there): {}",
                names.join(", ")
            );
        }
        out
    }
}

/// Table cell text: a `|` would end the cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// A table cell in code font, empty for no text.
fn code(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!("`{}`", cell(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ChainEntry;

    fn expr(text: &str) -> BoundExpr {
        parse_bound(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn kinds(old: &str, new: &str, points: &[&str]) -> Vec<Kind> {
        let points: Vec<BTreeMap<String, Rat>> = points
            .iter()
            .map(|p| {
                let (name, value) = p.split_once('=').expect("name=value");
                BTreeMap::from([(name.to_string(), value.parse().expect("a number"))])
            })
            .collect();
        let refs: Vec<&BTreeMap<String, Rat>> = points.iter().collect();
        compare_expressions("M", "memAlloc bytes", old, new, &refs)
            .expect("valid expressions")
            .into_iter()
            .map(|c| c.kind)
            .collect()
    }

    #[test]
    fn degree_is_the_largest_leaf_degree_and_infinity_is_above_all() {
        assert_eq!(degree(&expr("(3)")), Degree::Finite(0));
        assert_eq!(
            degree(&expr("cases(n >= 1 -> (n^2*m + 1); otherwise -> (n))")),
            Degree::Finite(3)
        );
        assert_eq!(degree(&expr("max((n), infty)")), Degree::Infinite);
        assert!(Degree::Infinite > Degree::Finite(1000));
    }

    #[test]
    fn leading_terms_add_over_sums_and_take_the_maximum_over_branches() {
        let lead = leading(
            &expr("(2*n^2 + n) + max((3*n^2), cases(n >= 1 -> (5*n^2); otherwise -> (0)))"),
            2,
        );
        let n2 = Monomial::from_powers([("n".to_string(), 2)]);
        assert_eq!(lead, Some(BTreeMap::from([(n2, Rat::from(7))])));
    }

    #[test]
    fn each_class_of_change_is_found() {
        assert_eq!(kinds("(n)", "(n) + infty", &[]), [Kind::NewInfinity]);
        assert_eq!(kinds("infty", "(n)", &[]), [Kind::InfinityRemoved]);
        assert_eq!(kinds("(n)", "(n^2)", &[]), [Kind::HigherDegree]);
        assert_eq!(kinds("(n^2)", "(n)", &[]), [Kind::LowerDegree]);
        assert_eq!(kinds("(2*n)", "(3*n)", &[]), [Kind::LargerLeading]);
        assert_eq!(kinds("(3*n)", "(2*n)", &[]), [Kind::SmallerLeading]);
        // One coefficient up and another down: a regression.
        assert_eq!(
            kinds("(2*n + 3*m)", "(3*n + 2*m)", &[]),
            [Kind::LargerLeading]
        );
        // Below the leading terms only a point tells.
        assert_eq!(kinds("(n + 1)", "(n + 2)", &[]), [Kind::Changed]);
        assert_eq!(
            kinds("(n + 1)", "(n + 2)", &["n=5"]),
            [Kind::LargerAt("n=5".to_string())]
        );
        assert_eq!(
            kinds("(n + 2)", "(n + 1)", &["n=5"]),
            [Kind::SmallerAt("n=5".to_string())]
        );
        // Equal at the point: nothing to report there.
        assert_eq!(
            kinds("cases(n >= 9 -> (n); otherwise -> (0))", "(n)", &["n=10"]),
            [Kind::Changed]
        );
    }

    /// A site by its steps: the method's call (when there are two), then the allocation.
    fn site(steps: &[(&str, u32)], ty: &str) -> SiteEntry {
        let step = |(method, offset): &(&str, u32)| ChainEntry {
            method: method.to_string(),
            offset: *offset,
            line: None,
        };
        SiteEntry {
            at: step(steps.last().expect("a step")),
            via: (steps.len() > 1).then(|| step(&steps[0])),
            ty: ty.to_string(),
            count: "(1)".to_string(),
            objects: "(1)".to_string(),
            bytes: "(16)".to_string(),
            region: None,
            reasons: Vec::new(),
        }
    }

    #[test]
    fn sites_match_by_their_steps_methods_and_type_not_offsets() {
        let old = [
            site(&[("M.a()V", 4)], "A"),
            site(&[("M.a()V", 9), ("M.b()V", 2)], "B"),
        ];
        // Offsets moved; one more A in a; B's chain now goes through c.
        let new = [
            site(&[("M.a()V", 6)], "A"),
            site(&[("M.a()V", 12)], "A"),
            site(&[("M.a()V", 11), ("M.c()V", 2)], "B"),
        ];
        let mut out = Diff::default();
        compare_sites(&old, &new, "M.a()V", &mut out);
        let found: Vec<(Kind, &str)> = out
            .changes
            .iter()
            .map(|c| (c.kind.clone(), c.what.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (Kind::NewSite, "A at M.a()V@12"),
                (Kind::NewSite, "B at M.a()V@11 -> M.c()V@2"),
                (Kind::SiteRemoved, "B at M.a()V@9 -> M.b()V@2"),
            ]
        );
        assert_eq!(out.regressions(), 2);
    }
}

//! A budget over a parameter range: an upper bound of the quantity over the range's integer
//! points, or a point of the range where the quantity is above the limit.
//!
//! One Bernstein bound over the whole range over-approximates, and a quantity may be largest
//! inside the range (`k·(100 - k)` at k = 50), where no vertex of the range is. So while the
//! bound is above the limit, the range is cut in two along a parameter (`x <= c` and
//! `x >= c + 1`: together they keep every integer point), best piece first: each piece gets its
//! own, tighter bound, and the integer points at and around its vertices are evaluated exactly.
//! A cut goes through the middle of the piece's widest parameter, so pieces around the maximum
//! shrink to single points (where the bound is the value) and the search ends with a witness, a
//! proof, or the piece budget spent.

use std::collections::BTreeMap;

use membound_bernstein::{BoundExpr, ParametricPolytope, bound_expr_over};
use membound_polyhedra::{Affine, BasicSet, Constraint, Int, Polynomial, Rat, Set, Value};

use super::Range;
use crate::diff::above;
use membound_jvm::error::{Error, Result};

/// How many pieces the search bounds at most (one Bernstein expansion each): enough to halve a
/// two-parameter range of 10⁴ × 10⁴ down to the points around a maximum.
const MAX_PIECES: usize = 256;

/// Past this many fractional coordinates a vertex's rounded neighbours are not tried (there are
/// two per such coordinate).
const MAX_ROUNDED_COORDINATES: usize = 10;

/// What the search found over a range.
pub(super) struct Searched {
    /// An upper bound over every integer point of the range.
    pub bound: Value,
    /// A point where the quantity is above the limit, with its value there.
    pub witness: Option<(BTreeMap<String, Rat>, Value)>,
    /// Why the bound is ∞ when the certificate does not say (an unbounded range, or the
    /// expansion gave up).
    pub note: Option<String>,
}

/// A piece of the range with its bound, and where it would be cut.
struct Piece {
    part: BasicSet,
    bound: Value,
    cut: Option<Cut>,
}

/// `x_column <= at` on one side, `x_column >= at + 1` on the other.
struct Cut {
    column: usize,
    at: Int,
}

enum Examined {
    /// The piece has no rational point.
    Empty,
    Bounded(Piece),
    Broken(BTreeMap<String, Rat>, Value),
    /// The Bernstein expansion failed; its message.
    GaveUp(String),
}

/// Bounds `expr` over the integer points of `set` (the range the user wrote, over the
/// method's parameters), looking for a point above `limit` while the bound is above it.
pub(super) fn search(
    method: &str,
    expr: &BoundExpr,
    set: &Set,
    range: &Range,
    limit: &Rat,
) -> Result<Searched> {
    let dims = &set.space.dims;
    let mut pieces = Vec::new();
    let mut unbounded = false;
    for part in &set.parts {
        let polytope = ParametricPolytope::of_part(Vec::new(), dims.clone(), part);
        let cone = polytope.recession_cone();
        unbounded |= !(cone.rays.is_empty() && cone.lines.is_empty());
        match examine(method, expr, dims, part.clone(), limit)? {
            Examined::Empty => {}
            Examined::Bounded(piece) => pieces.push(piece),
            Examined::Broken(point, value) => return Ok(broken(point, value)),
            Examined::GaveUp(message) => {
                let note = format!("the Bernstein expansion over the range gave up: {message}");
                return Ok(Searched {
                    bound: Value::Infinite,
                    witness: None,
                    note: Some(note),
                });
            }
        }
    }
    if pieces.is_empty() {
        // A budget over no point holds vacuously; a range like that is a mistake.
        return Err(Error::Input(format!(
            "the range `{}` for {method} has no point (its constraints contradict each other)",
            range.text
        )));
    }
    let mut bounded = pieces.len();
    while bounded + 2 <= MAX_PIECES {
        let Some(index) = worst_cuttable(&pieces, limit) else {
            break;
        };
        let piece = pieces.swap_remove(index);
        for half in halves(&piece) {
            bounded += 1;
            match examine(method, expr, dims, half.clone(), limit)? {
                Examined::Empty => {}
                Examined::Bounded(piece) => pieces.push(piece),
                Examined::Broken(point, value) => return Ok(broken(point, value)),
                // The whole piece's bound holds for its half.
                Examined::GaveUp(_) => pieces.push(Piece {
                    part: half,
                    bound: piece.bound.clone(),
                    cut: None,
                }),
            }
        }
    }
    let bound =
        pieces
            .into_iter()
            .map(|piece| piece.bound)
            .fold(Value::Finite(Rat::zero()), |a, b| {
                if above(&b, &a) { b } else { a }
            });
    let note = (bound == Value::Infinite && unbounded).then(|| {
        format!(
            "the range `{}` is not bounded: give every parameter a lower and an upper bound (e.g. `0 <= {} <= 10000`)",
            range.text,
            dims.first().map_or("n", String::as_str)
        )
    });
    Ok(Searched {
        bound,
        witness: None,
        note,
    })
}

pub(super) fn within_limit(value: &Value, limit: &Rat) -> bool {
    match value {
        Value::Finite(v) => v <= limit,
        Value::Infinite => false,
    }
}

fn broken(point: BTreeMap<String, Rat>, value: Value) -> Searched {
    Searched {
        bound: value.clone(),
        witness: Some((point, value)),
        note: None,
    }
}

/// The piece with the largest bound above the limit, among those that can be cut.
fn worst_cuttable(pieces: &[Piece], limit: &Rat) -> Option<usize> {
    let mut worst: Option<usize> = None;
    for (index, piece) in pieces.iter().enumerate() {
        let candidate = piece.cut.is_some() && !within_limit(&piece.bound, limit);
        if candidate && worst.is_none_or(|w| above(&piece.bound, &pieces[w].bound)) {
            worst = Some(index);
        }
    }
    worst
}

/// The two sides of the piece's cut.
fn halves(piece: &Piece) -> Vec<BasicSet> {
    let Some(cut) = &piece.cut else {
        return Vec::new();
    };
    let at = Affine::constant(Rat::from(cut.at.clone()));
    let x = Affine::var(cut.column);
    let at_most = Constraint::ge(at.sub(&x));
    let beyond = Constraint::ge(x.sub(&at).add(&Affine::constant(-1)));
    [at_most, beyond]
        .into_iter()
        .map(|side| {
            let mut half = piece.part.clone();
            half.add_constraint(side);
            half
        })
        .collect()
}

/// The piece's Bernstein bound and, when it is above the limit, a point around one of its
/// vertices that breaks the limit, or else where to cut it.
fn examine(
    method: &str,
    expr: &BoundExpr,
    dims: &[String],
    part: BasicSet,
    limit: &Rat,
) -> Result<Examined> {
    let polytope = ParametricPolytope::of_part(Vec::new(), dims.to_vec(), &part);
    if polytope.context().is_empty() {
        return Ok(Examined::Empty);
    }
    let bound = match bound_expr_over(expr, &polytope) {
        Ok(bound) => bound,
        Err(e) => return Ok(Examined::GaveUp(e.to_string())),
    };
    // Without parameters every guard is decided and every leaf is a constant.
    let bound = bound
        .eval(&BTreeMap::new())
        .map_err(|e| Error::Input(format!("{method}: bound over the range: {e}")))?;
    if within_limit(&bound, limit) {
        return Ok(Examined::Bounded(Piece {
            part,
            bound,
            cut: None,
        }));
    }
    // Vertices exist only where the piece has no line; a piece with a ray is not cut (its
    // halves would be as unbounded).
    let cone = polytope.recession_cone();
    let vertices = if cone.lines.is_empty() {
        constant_vertices(&polytope, dims.len())
    } else {
        Vec::new()
    };
    for vertex in &vertices {
        if let Some((point, value)) = broken_around(expr, dims, &part, vertex, limit) {
            return Ok(Examined::Broken(point, value));
        }
    }
    // An existential local (not a division of the parameters) leaves a piece's integer points
    // unknown to `contains`: such a piece keeps its bound.
    let cuttable = cone.rays.is_empty() && cone.lines.is_empty() && part.has_only_divs();
    // Without its vertices (the expansion found none) a piece is not cut either.
    let extent = cuttable.then(|| extent(&vertices, dims.len())).flatten();
    let Some(extent) = extent else {
        return Ok(Examined::Bounded(Piece {
            part,
            bound,
            cut: None,
        }));
    };
    match extent {
        Extent::NoPoint => Ok(Examined::Empty),
        Extent::Cut(cut) => Ok(Examined::Bounded(Piece {
            part,
            bound,
            cut: Some(cut),
        })),
        // That point, if the piece has it, was evaluated with the vertices' neighbours and is
        // within the limit: the piece's exact maximum.
        Extent::AtMost(point) => {
            if part.contains(&[], &point) != Some(true) {
                return Ok(Examined::Empty);
            }
            let value = expr.eval(&named_point(dims, point)).unwrap_or(bound);
            Ok(Examined::Bounded(Piece {
                part,
                bound: value,
                cut: None,
            }))
        }
    }
}

fn named_point(dims: &[String], point: Vec<Int>) -> BTreeMap<String, Rat> {
    dims.iter()
        .cloned()
        .zip(point.into_iter().map(Rat::from))
        .collect()
}

/// The vertices of a polytope without parameters, on the range's parameters (a local's
/// coordinate, the quotient of a division, follows from them).
fn constant_vertices(polytope: &ParametricPolytope, n_dims: usize) -> Vec<Vec<Rat>> {
    let Ok(chambers) = polytope.chambers() else {
        return Vec::new();
    };
    chambers
        .iter()
        .flat_map(|chamber| &chamber.vertices)
        .filter_map(|vertex| {
            vertex
                .iter()
                .take(n_dims)
                .map(Polynomial::as_constant)
                .collect()
        })
        .collect()
}

/// An integer point at or around `vertex`, in the piece, where `expr` is above `limit`.
fn broken_around(
    expr: &BoundExpr,
    dims: &[String],
    part: &BasicSet,
    vertex: &[Rat],
    limit: &Rat,
) -> Option<(BTreeMap<String, Rat>, Value)> {
    for point in integer_points_around(vertex) {
        if part.contains(&[], &point) != Some(true) {
            continue;
        }
        let named = named_point(dims, point);
        if let Ok(value) = expr.eval(&named)
            && !within_limit(&value, limit)
        {
            return Some((named, value));
        }
    }
    None
}

/// The integer points whose every coordinate is the floor or the ceiling of the vertex's (the
/// vertex itself when it is integral).
fn integer_points_around(vertex: &[Rat]) -> Vec<Vec<Int>> {
    let fractional = vertex.iter().filter(|c| c.floor() != c.ceil()).count();
    if fractional > MAX_ROUNDED_COORDINATES {
        return Vec::new();
    }
    let mut points = vec![Vec::new()];
    for coordinate in vertex {
        let (floor, ceil) = (coordinate.floor(), coordinate.ceil());
        let choices = if floor == ceil {
            vec![floor]
        } else {
            vec![floor, ceil]
        };
        points = points
            .into_iter()
            .flat_map(|point: Vec<Int>| {
                choices.iter().map(move |choice| {
                    let mut next = point.clone();
                    next.push(choice.clone());
                    next
                })
            })
            .collect();
    }
    points
}

/// What a bounded piece's vertices say about its integer points: none, at most one (each
/// parameter has at most one integer value between its vertices' extremes), or more, cut
/// through the middle of the parameter with the most.
enum Extent {
    NoPoint,
    AtMost(Vec<Int>),
    Cut(Cut),
}

/// `None` without vertices.
fn extent(vertices: &[Vec<Rat>], n_dims: usize) -> Option<Extent> {
    let mut only = Vec::new();
    let mut widest: Option<(Int, Cut)> = None;
    for column in 0..n_dims {
        let values = vertices.iter().map(|vertex| &vertex[column]);
        let (low, high) = (values.clone().min()?.ceil(), values.max()?.floor());
        if high < low {
            return Some(Extent::NoPoint);
        }
        let width = high.clone() - low.clone();
        if width > Int::from(0) && widest.as_ref().is_none_or(|(w, _)| &width > w) {
            let at = (Rat::from(low.clone() + high) / Rat::from(2)).floor();
            widest = Some((width, Cut { column, at }));
        }
        only.push(low);
    }
    Some(match widest {
        Some((_, cut)) => Extent::Cut(cut),
        None => Extent::AtMost(only),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use membound_bernstein::parse_bound;
    use membound_polyhedra::parse_set;

    /// The largest value of `expr` over the points of `[0, size]²` in `set`, by enumeration.
    fn brute_max(expr: &BoundExpr, set: &Set, size: i64) -> Rat {
        let mut largest = Rat::zero();
        for a in 0..=size {
            for b in 0..=size {
                let point = [Int::from(a), Int::from(b)];
                if set.contains(&[], &point) != Some(true) {
                    continue;
                }
                let named = named_point(&set.space.dims, point.to_vec());
                match expr.eval(&named) {
                    Ok(Value::Finite(v)) if v > largest => largest = v,
                    _ => {}
                }
            }
        }
        largest
    }

    /// Around the true maximum, the search's verdict agrees with enumeration: a witness is a
    /// point of the range above the limit, a bound within the limit is at least the maximum.
    #[test]
    fn the_search_agrees_with_enumeration_around_the_maximum() {
        let size = 30;
        let expressions = [
            "(30*k - k^2 + n)",
            "(k*n - k^2 + 3)",
            "cases(k >= 5 and n >= k -> (2*k*n - 2*k^2 + 2); otherwise -> (1))",
            // (k - 13)(17 - k)(n + 1): positive only for 13 < k < 17.
            "(-k^2*n + 30*k*n - 221*n - k^2 + 30*k - 221)",
            "max((20*k - k^2), (24*n - n^2))",
        ];
        let ranges = [
            "0 <= k <= 30 and 0 <= n <= 30",
            "0 <= k and 0 <= n and k + n <= 29",
            "0 <= k <= n <= 30 and k mod 3 = 1",
        ];
        for text in expressions {
            let expr = parse_bound(text).expect("a bound");
            for range_text in ranges {
                let set = parse_set(&format!("{{ [k, n] : {range_text} }}")).expect("a set");
                let range = Range {
                    text: range_text.to_string(),
                };
                let max = brute_max(&expr, &set, size);
                for limit in [
                    max.clone() - Rat::from(1),
                    max.clone(),
                    max.clone() + Rat::from(1),
                ] {
                    let found = search("M", &expr, &set, &range, &limit).expect("a search");
                    let case = format!("{text} over {range_text}, limit {limit}");
                    match (&found.witness, &found.bound) {
                        (Some((point, value)), _) => {
                            assert!(limit < max, "{case}: a witness {point:?}");
                            assert_eq!(expr.eval(point).as_ref(), Ok(value), "{case}");
                            assert!(!within_limit(value, &limit), "{case}");
                        }
                        (None, Value::Finite(bound)) => assert!(*bound >= max, "{case}: {bound}"),
                        (None, Value::Infinite) => {}
                    }
                    if limit < max {
                        assert!(found.witness.is_some(), "{case}: no witness");
                    } else {
                        assert!(within_limit(&found.bound, &limit), "{case}: not proved");
                    }
                }
            }
        }
    }
}

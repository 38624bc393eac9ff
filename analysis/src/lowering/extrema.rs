//! `Math.min`, `Math.max` and `Math.abs` on integers (and their `StrictMath` twins) as the
//! choice they make: their result is one of their arguments (or its negation), picked by a
//! comparison. Lowered as one branch per choice, the result keeps an exact relation to the
//! arguments, so `for (i = 0; i < Math.min(n, 10); i++)` or a callee passed `Math.max(n, 4)`
//! is counted in `n`, where an opaque result would leave the loop unbounded.

use membound_front::ir::{self, CallKind};
use membound_invariants::builder::{ge, le, lt};
use membound_invariants::{Action, Expr, VarId};

/// Which of the three integer functions a call runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extremum {
    Min,
    Max,
    Abs,
}

impl Extremum {
    /// The function `call` runs, when it is `min`, `max` or `abs` of `int`s or `long`s.
    pub fn of(call: &ir::Call) -> Option<Extremum> {
        let method = &call.method;
        let class = method.class.internal();
        if !matches!(call.kind, CallKind::Static)
            || !matches!(class, "java/lang/Math" | "java/lang/StrictMath")
        {
            return None;
        }
        match (&*method.name, &*method.descriptor) {
            ("min", "(II)I" | "(JJ)J") => Some(Extremum::Min),
            ("max", "(II)I" | "(JJ)J") => Some(Extremum::Max),
            ("abs", "(I)I" | "(J)J") => Some(Extremum::Abs),
            _ => None,
        }
    }

    /// The branches that set `result` to the call's value, each a list of actions: for `min`
    /// and `max` one per argument the result may be; an argument with no affine value leaves
    /// the result anything on the right side of the other one. `None` when no argument has a
    /// value (the result is then unknown).
    ///
    /// `abs` of the least integer is that negative integer in Java; the analysis assumes no
    /// overflow, under which the result is `-a` for every negative `a`.
    pub fn branches(self, args: &[Option<Expr>], result: VarId) -> Option<Vec<Vec<Action>>> {
        let assign = |expr: &Expr| Action::Assign {
            var: result,
            expr: expr.clone(),
        };
        let value = Expr::var(result);
        match (self, args) {
            (Extremum::Abs, [Some(a)]) => Some(vec![
                vec![Action::Assume(ge(a.clone(), 0)), assign(a)],
                vec![Action::Assume(lt(a.clone(), 0)), assign(&a.negated())],
            ]),
            (Extremum::Min | Extremum::Max, [Some(a), Some(b)]) => {
                let (first, second) = match self {
                    Extremum::Min => (le(a.clone(), b.clone()), lt(b.clone(), a.clone())),
                    _ => (ge(a.clone(), b.clone()), lt(a.clone(), b.clone())),
                };
                Some(vec![
                    vec![Action::Assume(first), assign(a)],
                    vec![Action::Assume(second), assign(b)],
                ])
            }
            (Extremum::Min | Extremum::Max, [Some(known), None] | [None, Some(known)]) => {
                let beyond = match self {
                    Extremum::Min => le(value, known.clone()),
                    _ => ge(value, known.clone()),
                };
                Some(vec![
                    vec![assign(known)],
                    vec![Action::Havoc(result), Action::Assume(beyond)],
                ])
            }
            _ => None,
        }
    }

    /// The expression whose sign tells the branches apart (`e <= 0` the first, `e >= 1` the
    /// second), for the fixpoint to keep them apart at joins: their convex hull would lose the
    /// result's bound on one side (`max(n, 4)` would be unbounded above for a fixed `n`).
    pub fn split(self, args: &[Option<Expr>]) -> Option<Expr> {
        match (self, args) {
            (Extremum::Abs, [Some(a)]) => Some(a.negated()),
            (Extremum::Min, [Some(a), Some(b)]) => Some(a.minus(b)),
            (Extremum::Max, [Some(a), Some(b)]) => Some(b.minus(a)),
            _ => None,
        }
    }
}

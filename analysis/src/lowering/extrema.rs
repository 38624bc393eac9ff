//! `Math.min`, `Math.max` and `Math.abs` on integers (and their `StrictMath` twins) as the
//! choice they make: their result is one of their arguments (or its negation), picked by a
//! comparison. Lowered as one branch per choice, the result keeps an exact relation to the
//! arguments, so `for (i = 0; i < Math.min(n, 10); i++)` or a callee passed `Math.max(n, 4)`
//! is counted in `n`, where an opaque result would leave the loop unbounded.

use membound_front::ir::{self, CallKind, Operand};
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
    fn of(call: &ir::Call) -> Option<Extremum> {
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

    /// The function `call` runs, when it is followed as branches in `body`: every argument a
    /// constant or a parameter the body never assigns, so the comparison that picks the branch
    /// is one of the run's fixed values, which every join of the method can keep apart. Over
    /// other values a split would not mean the same at the joins after the call (`$s =
    /// Math.min($s, k)` overwrites its argument) and the joined branches' hull lets the result
    /// range below a minimum, which callers then sum over (a comparator's `Math.min` passed to
    /// `substring` made a sort's analysis run 100 times longer); the result is then unknown, as
    /// any call's.
    pub fn followed(call: &ir::Call, body: &ir::Body) -> Option<Extremum> {
        let fixed = |arg: &Operand| match arg {
            Operand::Var(var) => body.params.contains(var) && !body.assigns(*var),
            Operand::Const(_) => true,
        };
        Extremum::of(call).filter(|_| call.args.iter().all(fixed))
    }

    /// The branches that set `result` to the call's value, each a list of actions: for `min`
    /// and `max` one per argument the result may be. `None` when an argument has no affine
    /// value (the result is then unknown).
    ///
    /// `abs` of the least integer is that negative integer in Java; the analysis assumes no
    /// overflow, under which the result is `-a` for every negative `a`.
    pub fn branches(self, args: &[Option<Expr>], result: VarId) -> Option<Vec<Vec<Action>>> {
        let assign = |expr: &Expr| Action::Assign {
            var: result,
            expr: expr.clone(),
        };
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

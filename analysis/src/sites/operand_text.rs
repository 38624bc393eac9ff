//! Source-like text for an operand of an allocation (`n`, `2 * j + 1`, `a.length`): operand-stack
//! temporaries are replaced by the expression that computed them in the same block.

use membound_front::ir::{Block, Body, Expr, Operand, Place, StmtKind, VarId, VarOrigin};

/// How deep temporaries are expanded; deeper ones keep their variable name.
const MAX_DEPTH: usize = 6;

/// The text of `operand` as used by statement `index` of `block`.
pub fn render(body: &Body, block: &Block, index: usize, operand: &Operand) -> String {
    Renderer { body, block }.operand(operand, index, MAX_DEPTH)
}

struct Renderer<'a> {
    body: &'a Body,
    block: &'a Block,
}

impl Renderer<'_> {
    fn operand(&self, operand: &Operand, before: usize, depth: usize) -> String {
        match operand {
            Operand::Const(constant) => constant.to_string(),
            Operand::Var(var) => self.var(*var, before, depth),
        }
    }

    fn var(&self, var: VarId, before: usize, depth: usize) -> String {
        let info = self.body.var(var);
        if depth > 0 && matches!(info.origin, VarOrigin::Stack(_)) {
            let text = match self.definition(var, before) {
                Some((at, StmtKind::Assign { value, .. })) => self.expr(value, at, depth - 1),
                Some((_, StmtKind::Invoke { call, .. })) => Some(format!(
                    "{}.{}(…)",
                    call.method.class.simple(),
                    call.method.name
                )),
                _ => None,
            };
            if let Some(text) = text {
                return text;
            }
        }
        info.name.to_string()
    }

    /// The last statement among the block's before `before` that sets `var`.
    fn definition(&self, var: VarId, before: usize) -> Option<(usize, &StmtKind)> {
        self.block.stmts[..before.min(self.block.stmts.len())]
            .iter()
            .enumerate()
            .rev()
            .find(|(_, stmt)| stmt.assigns(var))
            .map(|(at, stmt)| (at, &stmt.kind))
    }

    fn expr(&self, expr: &Expr, at: usize, depth: usize) -> Option<String> {
        let text = match expr {
            Expr::Use(operand) => self.operand(operand, at, depth),
            Expr::Binary { op, lhs, rhs } if op.is_arithmetic() => {
                format!(
                    "{} {} {}",
                    self.wrapped(lhs, at, depth),
                    op.symbol(),
                    self.wrapped(rhs, at, depth)
                )
            }
            Expr::Neg(operand) => format!("-{}", self.wrapped(operand, at, depth)),
            Expr::ArrayLength(array) => format!("{}.length", self.operand(array, at, depth)),
            Expr::Load(Place::Field { object, field }) => {
                format!("{}.{}", self.operand(object, at, depth), field.name)
            }
            Expr::Load(Place::Static(field)) => format!("{}.{}", field.class.simple(), field.name),
            Expr::Load(Place::ArrayElement { array, index }) => format!(
                "{}[{}]",
                self.operand(array, at, depth),
                self.operand(index, at, depth)
            ),
            Expr::Convert(operand, _) => self.operand(operand, at, depth),
            _ => return None,
        };
        Some(text)
    }

    /// An operand in parentheses when it expands to a compound expression.
    fn wrapped(&self, operand: &Operand, at: usize, depth: usize) -> String {
        let text = self.operand(operand, at, depth);
        if text.contains(' ') {
            format!("({text})")
        } else {
            text
        }
    }
}

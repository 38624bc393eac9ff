//! Calls of `String.format(String, Object...)`, `"…".formatted(Object...)` and
//! `System.out.printf(String, Object...)` (or `format`, or on `System.err`) whose format is a
//! literal and whose arguments are strings and boxes, each stored once into the varargs array
//! between its creation and the call (code entered only where the array is created, running
//! forward: a conditional argument's branches): what the formatter makes is then a function of
//! that text and of the arguments' types (`analysis::sites::format`), and it runs no code of
//! the program (a `String` or a `java.lang` box formats itself, and the stream is the JVM's
//! own), so the call graph takes the call for an allocation of its own instead of a call
//! (`CallGraph::formats`).

use std::sync::Arc;

use membound_jvm::{ClassName, Type};

use super::{Body, Call, CallKind, Const, Expr, Operand, Place, Stmt, StmtKind, VarId};

/// A format call the call graph need not follow.
#[derive(Clone, Debug, PartialEq)]
pub struct FormatCall {
    /// Where the text goes.
    pub output: FormatOutput,
    /// The format string's text.
    pub format: Arc<str>,
    /// The varargs array's elements' types, in order.
    pub args: Vec<FormatArg>,
    /// The varargs array's elements, in order: the operand each was stored from, `None` where
    /// its variable is set again before the call (its value at the call is another's).
    pub operands: Vec<Option<Operand>>,
}

/// Where a format call's text goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatOutput {
    /// A new `String` (`String.format`, `formatted`).
    Text,
    /// `System.out` or `System.err`, piece by piece (`printf`, `format`).
    Stream,
}

/// The static type of one argument of a format call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatArg {
    /// A `String` (a literal or a variable of that type).
    Text,
    /// A `Byte`, `Short`, `Integer` or `Long`: its primitive type.
    Integral(IntegralType),
    /// A `Character`.
    Char,
    /// A `Boolean`.
    Boolean,
    /// A `Float` or a `Double`.
    Floating,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntegralType {
    Byte,
    Short,
    Int,
    Long,
}

impl Body {
    /// The format call `call` at `pc` is, when it is one (see the module documentation).
    pub fn format_call(&self, pc: u32, call: &Call) -> Option<FormatCall> {
        let (output, format, array) = format_operands(call)?;
        let Operand::Var(array) = array else {
            return None;
        };
        let code = self.argument_code(pc, *array)?;
        let Operand::Const(Const::String(format)) = code.resolve(format) else {
            return None;
        };
        if output == FormatOutput::Stream && !standard_stream(&code, call.receiver.as_ref()?) {
            return None;
        }
        let elements = varargs(self, &code, *array)?;
        let args = elements
            .iter()
            .map(|(operand, _)| format_arg(self, operand))
            .collect::<Option<_>>()?;
        let operands = elements
            .into_iter()
            .map(|(operand, held)| held.then_some(operand))
            .collect();
        Some(FormatCall {
            output,
            format,
            args,
            operands,
        })
    }
}

/// The code of a call's arguments from the varargs array's creation on.
struct ArgumentCode<'b> {
    /// The statements of the creation's block before it.
    lead: Vec<&'b Stmt>,
    /// The statements that may run from the creation (the first) to the call, in offset order.
    region: Vec<&'b Stmt>,
    /// How many of them are the creation's block's: every path to the call runs them.
    start: usize,
}

impl ArgumentCode<'_> {
    /// What `operand` holds, through the copies (`$s3 = $s2`, `$s4 = 0`, `$s1 = "%s"`) the
    /// creation's block makes of a value before a branch: a variable that block sets once, with
    /// nothing else up to the call setting it, is its value.
    fn resolve(&self, operand: &Operand) -> Operand {
        let Operand::Var(var) = operand else {
            return operand.clone();
        };
        // The creation's block, the creation included, then the rest of the region.
        let code: Vec<&Stmt> = self.lead.iter().chain(&self.region).copied().collect();
        let mut defs = code.iter().enumerate().filter(|(_, s)| s.assigns(*var));
        let (Some((at, stmt)), None) = (defs.next(), defs.next()) else {
            return operand.clone();
        };
        let StmtKind::Assign {
            value: Expr::Use(value),
            ..
        } = &stmt.kind
        else {
            return operand.clone();
        };
        // A copy of a variable set again later holds its earlier value.
        let still_held = match value {
            Operand::Var(source) => !code[at + 1..].iter().any(|s| s.assigns(*source)),
            Operand::Const(_) => true,
        };
        if at < self.lead.len() + self.start && still_held {
            value.clone()
        } else {
            operand.clone()
        }
    }
}

impl Body {
    /// The code from the last creation of `array` before the call at `pc` to the call: the
    /// blocks from the creation's to the call's, when they are entered only at the creation's
    /// block and their edges all go forward (javac's code for a call's arguments: a conditional
    /// argument branches and merges inside it), so that every path from the creation to the
    /// call runs among their statements.
    fn argument_code(&self, pc: u32, array: VarId) -> Option<ArgumentCode<'_>> {
        let mut order: Vec<usize> = (0..self.blocks.len()).collect();
        order.sort_by_key(|&b| self.blocks[b].pc);
        let call_block = *order
            .iter()
            .find(|&&b| self.blocks[b].stmts.iter().any(|stmt| stmt.pc == pc))?;
        let statements: Vec<(usize, &Stmt)> = order
            .iter()
            .flat_map(|&b| self.blocks[b].stmts.iter().map(move |stmt| (b, stmt)))
            .take_while(|(_, stmt)| stmt.pc < pc)
            .collect();
        let created = statements
            .iter()
            .rposition(|(_, stmt)| stmt.assigns(array))?;
        let start = statements[created].0;
        let (low, high) = (self.blocks[start].pc, self.blocks[call_block].pc);
        let inside = |b: usize| (low..=high).contains(&self.blocks[b].pc);
        for (b, block) in self.blocks.iter().enumerate() {
            let targets = block.terminator.successors().into_iter();
            for target in targets.chain(block.handlers.iter().map(|h| h.target)) {
                let target = target.0 as usize;
                let forward = self.blocks[target].pc > block.pc;
                if inside(target) && target != start && !(inside(b) && forward) {
                    return None;
                }
            }
        }
        if inside(0) && start != 0 {
            return None;
        }
        let lead = self.blocks[start]
            .stmts
            .iter()
            .take_while(|stmt| !std::ptr::eq(*stmt, statements[created].1))
            .collect();
        let region = statements[created..]
            .iter()
            .map(|(_, stmt)| *stmt)
            .collect();
        let start = statements[created..]
            .iter()
            .take_while(|(b, _)| *b == start)
            .count();
        Some(ArgumentCode {
            lead,
            region,
            start,
        })
    }
}

/// Where the text goes, the format and the varargs array of `String.format(String, Object[])`,
/// `String.formatted(Object[])` and `PrintStream.printf(String, Object[])` (and `format`).
fn format_operands(call: &Call) -> Option<(FormatOutput, &Operand, &Operand)> {
    let text = (
        FormatOutput::Text,
        call.method.class.internal() == "java/lang/String",
    );
    let stream = (
        FormatOutput::Stream,
        call.method.class.internal() == "java/io/PrintStream",
    );
    match (&call.kind, &*call.method.name, &*call.method.descriptor) {
        (
            CallKind::Static,
            "format",
            "(Ljava/lang/String;[Ljava/lang/Object;)Ljava/lang/String;",
        ) if text.1 => Some((text.0, call.args.first()?, call.args.get(1)?)),
        (CallKind::Virtual, "formatted", "([Ljava/lang/Object;)Ljava/lang/String;") if text.1 => {
            Some((text.0, call.receiver.as_ref()?, call.args.first()?))
        }
        (
            CallKind::Virtual,
            "printf" | "format",
            "(Ljava/lang/String;[Ljava/lang/Object;)Ljava/io/PrintStream;",
        ) if stream.1 => Some((stream.0, call.args.first()?, call.args.get(1)?)),
        _ => None,
    }
}

/// Whether the code before the varargs array's creation loads `receiver` from `System.out` or
/// `System.err`, and nothing after it sets `receiver` again.
fn standard_stream(code: &ArgumentCode<'_>, receiver: &Operand) -> bool {
    let Operand::Var(receiver) = receiver else {
        return false;
    };
    if code.region.iter().any(|stmt| stmt.assigns(*receiver)) {
        return false;
    }
    let Some(stmt) = code.lead.iter().rev().find(|stmt| stmt.assigns(*receiver)) else {
        return false;
    };
    matches!(
        &stmt.kind,
        StmtKind::Assign { value: Expr::Load(Place::Static(field)), .. }
            if field.class.internal() == "java/lang/System"
                && matches!(&*field.name, "out" | "err")
    )
}

/// The elements of the `Object[]` that `array` holds at the call, when `region` (from its
/// creation on) creates it with a constant length and stores every element at a constant
/// index, each once: each element's operand, and whether it still holds the element at the
/// call (a variable nothing sets again before it, or a constant).
fn varargs(body: &Body, code: &ArgumentCode<'_>, array: VarId) -> Option<Vec<(Operand, bool)>> {
    let (creation, rest) = code.region.split_first()?;
    let StmtKind::Assign {
        value: Expr::NewArray { ty, dims },
        ..
    } = &creation.kind
    else {
        return None;
    };
    let object_array = Type::Array(Box::new(Type::Ref(ClassName::object())));
    let [Operand::Const(Const::Int(length))] = dims.as_slice() else {
        return None;
    };
    if *ty != object_array {
        return None;
    }
    let mut args: Vec<Option<(Operand, bool)>> = vec![None; usize::try_from(*length).ok()?];
    let the_array = |operand: &Operand| code.resolve(operand) == Operand::Var(array);
    for (at, stmt) in rest.iter().enumerate() {
        // A call that may see the array, or a store into an array of objects that may be it
        // under another name, could set an element unseen.
        let handed_on = matches!(&stmt.kind, StmtKind::Invoke { .. })
            && stmt.operands().into_iter().any(the_array);
        let aliased = matches!(&stmt.kind, StmtKind::Store { place: Place::ArrayElement { array: other, .. }, .. }
            if !the_array(other) && matches!(other, Operand::Var(v) if holds_objects(&body.var(*v).ty)));
        if handed_on || aliased {
            return None;
        }
        let StmtKind::Store {
            place:
                Place::ArrayElement {
                    array: stored,
                    index,
                },
            value,
        } = &stmt.kind
        else {
            continue;
        };
        if code.resolve(stored) != Operand::Var(array) {
            continue;
        }
        let Operand::Const(Const::Int(index)) = code.resolve(index) else {
            return None;
        };
        let slot = args.get_mut(usize::try_from(index).ok()?)?;
        if slot.is_some() {
            return None;
        }
        let set_again = |var: VarId| rest[at + 1..].iter().any(|later| later.assigns(var));
        let held = !matches!(value, Operand::Var(var) if set_again(*var));
        *slot = Some((value.clone(), held));
    }
    args.into_iter().collect()
}

/// Whether a variable of this type may hold an array of objects.
fn holds_objects(ty: &Type) -> bool {
    match ty {
        Type::Array(element) => element.is_reference(),
        Type::Ref(class) => class == &ClassName::object(),
        _ => false,
    }
}

/// The argument's type, when formatting it runs no code of the program.
fn format_arg(body: &Body, value: &Operand) -> Option<FormatArg> {
    let ty = match value {
        Operand::Const(Const::String(_)) => return Some(FormatArg::Text),
        Operand::Const(_) => return None,
        Operand::Var(var) => &body.var(*var).ty,
    };
    let Type::Ref(class) = ty else {
        return None;
    };
    Some(match class.internal() {
        "java/lang/String" => FormatArg::Text,
        "java/lang/Byte" => FormatArg::Integral(IntegralType::Byte),
        "java/lang/Short" => FormatArg::Integral(IntegralType::Short),
        "java/lang/Integer" => FormatArg::Integral(IntegralType::Int),
        "java/lang/Long" => FormatArg::Integral(IntegralType::Long),
        "java/lang/Character" => FormatArg::Char,
        "java/lang/Boolean" => FormatArg::Boolean,
        "java/lang/Float" | "java/lang/Double" => FormatArg::Floating,
        _ => return None,
    })
}

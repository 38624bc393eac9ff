//! Calls of `String.format(String, Object...)`, `"…".formatted(Object...)` and
//! `System.out.printf(String, Object...)` (or `format`, or on `System.err`) whose format is a
//! literal and whose arguments are strings and boxes, each stored into the varargs array in
//! the call's own block: what the formatter makes is then a function of that text and of the
//! arguments' types (`analysis::sites::format`), and it runs no code of the program (a `String`
//! or a `java.lang` box formats itself, and the stream is the JVM's own), so the call graph
//! takes the call for an allocation of its own instead of a call (`CallGraph::formats`).

use std::sync::Arc;

use membound_jvm::{ClassName, Type};

use super::{Body, Call, CallKind, Const, Expr, Operand, Place, StmtKind, VarId};

/// A format call the call graph need not follow.
#[derive(Clone, Debug, PartialEq)]
pub struct FormatCall {
    /// Where the text goes.
    pub output: FormatOutput,
    /// The format string's text.
    pub format: Arc<str>,
    /// The varargs array's elements' types, in order.
    pub args: Vec<FormatArg>,
    /// The varargs array's elements, in order.
    pub operands: Vec<Operand>,
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
        let (Operand::Const(Const::String(format)), Operand::Var(array)) = (format, array) else {
            return None;
        };
        let block = self
            .blocks
            .iter()
            .find(|block| block.stmts.iter().any(|stmt| stmt.pc == pc))?;
        let index = block.stmts.iter().position(|stmt| stmt.pc == pc)?;
        let before = &block.stmts[..index];
        if output == FormatOutput::Stream && !standard_stream(before, call.receiver.as_ref()?) {
            return None;
        }
        let operands = varargs(before, *array)?;
        let args = operands
            .iter()
            .map(|operand| format_arg(self, operand))
            .collect::<Option<_>>()?;
        Some(FormatCall {
            output,
            format: format.clone(),
            args,
            operands,
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

/// Whether the statements before the call load `receiver` from `System.out` or `System.err`.
fn standard_stream(before: &[super::Stmt], receiver: &Operand) -> bool {
    let Operand::Var(receiver) = receiver else {
        return false;
    };
    let Some(stmt) = before.iter().rev().find(|stmt| stmt.assigns(*receiver)) else {
        return false;
    };
    matches!(
        &stmt.kind,
        StmtKind::Assign { value: Expr::Load(Place::Static(field)), .. }
            if field.class.internal() == "java/lang/System"
                && matches!(&*field.name, "out" | "err")
    )
}

/// The elements of the `Object[]` that `array` holds, when the statements before the call
/// create it with a constant length and store every element at a constant index, each once.
fn varargs(before: &[super::Stmt], array: VarId) -> Option<Vec<Operand>> {
    let created = before.iter().rposition(|stmt| stmt.assigns(array))?;
    let StmtKind::Assign {
        value: Expr::NewArray { ty, dims },
        ..
    } = &before[created].kind
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
    let mut args: Vec<Option<Operand>> = vec![None; usize::try_from(*length).ok()?];
    for stmt in &before[created + 1..] {
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
        if *stored != Operand::Var(array) {
            continue;
        }
        let Operand::Const(Const::Int(index)) = index else {
            return None;
        };
        let slot = args.get_mut(usize::try_from(*index).ok()?)?;
        if slot.is_some() {
            return None;
        }
        *slot = Some(value.clone());
    }
    args.into_iter().collect()
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

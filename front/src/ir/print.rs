//! A readable, Jimple-like rendering of a lifted body, for `membound ir` and for tests.
//!
//! The rendering shows the method's signature, the variables with their types, then each block
//! with its label, bytecode offset and exception edges, its statements (with `// line N`
//! markers where the source line changes) and its terminator. It is meant for people and for
//! snapshot tests, not to be parsed back.

use std::fmt::Write;

use crate::ir::{
    Block, Body, Call, CallKind, DynamicCall, Expr, Operand, Place, Stmt, StmtKind, Terminator,
    VarId, VarOrigin,
};
use membound_jvm::{MethodRef, Type};

/// Renders a whole body.
pub fn print_body(body: &Body) -> String {
    let printer = Printer { body };
    let mut out = String::new();
    printer.header(&mut out);
    for (index, block) in body.blocks.iter().enumerate() {
        printer.block(&mut out, index, block);
    }
    out.push_str("}\n");
    out
}

/// A body as JSON: its `method` (Soot signature), whether it is `static`, its `vars` (name,
/// type, and `this`/`parameter N` where it is one), and its `blocks`, each with its bytecode
/// `pc`, exception `handlers`, statements (`pc`, source `line`, and the `text` the text form
/// prints), its `terminator` and the blocks it may go to next (`successors`).
pub fn body_to_json(body: &Body) -> serde_json::Value {
    let printer = Printer { body };
    let vars: Vec<serde_json::Value> = body
        .vars
        .iter()
        .map(|var| {
            let mut json =
                serde_json::json!({"name": var.name.to_string(), "type": var.ty.to_string()});
            match var.origin {
                VarOrigin::This => json["origin"] = "this".into(),
                VarOrigin::Param(index) => json["origin"] = format!("parameter {index}").into(),
                VarOrigin::Local(_) | VarOrigin::Stack(_) => {}
            }
            json
        })
        .collect();
    let blocks: Vec<serde_json::Value> = body
        .blocks
        .iter()
        .map(|block| {
            let handlers: Vec<serde_json::Value> = block
                .handlers
                .iter()
                .map(|handler| {
                    let catch = handler.catch.as_ref().map(ToString::to_string);
                    serde_json::json!({"catch": catch, "target": handler.target.0})
                })
                .collect();
            let stmts: Vec<serde_json::Value> = block
                .stmts
                .iter()
                .map(|stmt| serde_json::json!({"pc": stmt.pc, "line": stmt.line, "text": printer.stmt(stmt)}))
                .collect();
            let successors: Vec<u32> = block.terminator.successors().iter().map(|b| b.0).collect();
            serde_json::json!({
                "pc": block.pc,
                "handlers": handlers,
                "stmts": stmts,
                "terminator": printer.terminator(&block.terminator),
                "successors": successors,
            })
        })
        .collect();
    serde_json::json!({
        "method": jimple_signature(&body.method),
        "static": body.is_static,
        "vars": vars,
        "blocks": blocks,
    })
}

struct Printer<'a> {
    body: &'a Body,
}

impl Printer<'_> {
    fn header(&self, out: &mut String) {
        let body = self.body;
        let kind = if body.is_static { "static " } else { "" };
        let _ = writeln!(out, "{kind}{}", jimple_signature(&body.method));
        out.push_str("{\n");
        for var in &body.vars {
            let origin = match var.origin {
                VarOrigin::This => " // this".to_string(),
                VarOrigin::Param(index) => format!(" // parameter {index}"),
                VarOrigin::Local(_) | VarOrigin::Stack(_) => String::new(),
            };
            let _ = writeln!(out, "    {} {};{origin}", var.ty, var.name);
        }
    }

    fn block(&self, out: &mut String, index: usize, block: &Block) {
        let _ = write!(out, "\n  B{index}: // pc {}", block.pc);
        for handler in &block.handlers {
            let catch = handler
                .catch
                .as_ref()
                .map_or("any".to_string(), |class| class.to_string());
            let _ = write!(out, ", catch {catch} -> B{}", handler.target.0);
        }
        out.push('\n');
        let mut line = None;
        for stmt in &block.stmts {
            if stmt.line.is_some() && stmt.line != line {
                line = stmt.line;
                if let Some(number) = line {
                    let _ = writeln!(out, "    // line {number}");
                }
            }
            let _ = writeln!(out, "    {}", self.stmt(stmt));
        }
        let _ = writeln!(out, "    {}", self.terminator(&block.terminator));
    }

    fn var(&self, id: VarId) -> String {
        self.body
            .vars
            .get(id.0 as usize)
            .map_or_else(|| format!("?{}", id.0), |var| var.name.to_string())
    }

    fn operand(&self, operand: &Operand) -> String {
        match operand {
            Operand::Var(id) => self.var(*id),
            Operand::Const(constant) => constant.to_string(),
        }
    }

    fn stmt(&self, stmt: &Stmt) -> String {
        match &stmt.kind {
            StmtKind::Assign { dst, value } => format!("{} = {}", self.var(*dst), self.expr(value)),
            StmtKind::Invoke { dst, call } => match dst {
                Some(dst) => format!("{} = {}", self.var(*dst), self.call(call)),
                None => self.call(call),
            },
            StmtKind::Store { place, value } => {
                format!("{} = {}", self.place(place), self.operand(value))
            }
            StmtKind::Monitor { enter, object } => {
                let word = if *enter {
                    "entermonitor"
                } else {
                    "exitmonitor"
                };
                format!("{word} {}", self.operand(object))
            }
        }
    }

    fn expr(&self, expr: &Expr) -> String {
        match expr {
            Expr::Use(operand) => self.operand(operand),
            Expr::Binary { op, lhs, rhs } => format!(
                "{} {} {}",
                self.operand(lhs),
                op.symbol(),
                self.operand(rhs)
            ),
            Expr::Neg(operand) => format!("-{}", self.operand(operand)),
            Expr::Convert(operand, ty) | Expr::CheckCast(operand, ty) => {
                format!("({ty}) {}", self.operand(operand))
            }
            Expr::InstanceOf(operand, ty) => format!("{} instanceof {ty}", self.operand(operand)),
            Expr::Load(place) => self.place(place),
            Expr::ArrayLength(operand) => format!("lengthof {}", self.operand(operand)),
            Expr::New(class) => format!("new {class}"),
            Expr::NewArray { ty, dims } => self.new_array(ty, dims),
            Expr::CaughtException => "@caughtexception".to_string(),
        }
    }

    /// `newarray int[n][]`: the base element type, given dimensions, then the open ones.
    fn new_array(&self, ty: &Type, dims: &[Operand]) -> String {
        let mut base = ty;
        while let Some(element) = base.element() {
            base = element;
        }
        let mut text = format!("newarray {base}");
        for dim in dims {
            let _ = write!(text, "[{}]", self.operand(dim));
        }
        for _ in dims.len()..ty.rank() {
            text.push_str("[]");
        }
        text
    }

    fn place(&self, place: &Place) -> String {
        match place {
            Place::Field { object, field } => format!("{}.{field}", self.operand(object)),
            Place::Static(field) => field.to_string(),
            Place::ArrayElement { array, index } => {
                format!("{}[{}]", self.operand(array), self.operand(index))
            }
        }
    }

    fn call(&self, call: &Call) -> String {
        let args: Vec<String> = call.args.iter().map(|a| self.operand(a)).collect();
        let args = args.join(", ");
        let target = jimple_signature(&call.method);
        let receiver = call
            .receiver
            .as_ref()
            .map(|r| format!("{}.", self.operand(r)))
            .unwrap_or_default();
        match &call.kind {
            CallKind::Static => format!("staticinvoke {target}({args})"),
            CallKind::Special => format!("specialinvoke {receiver}{target}({args})"),
            CallKind::Virtual => format!("virtualinvoke {receiver}{target}({args})"),
            CallKind::Interface => format!("interfaceinvoke {receiver}{target}({args})"),
            CallKind::Dynamic(dynamic) => {
                format!(
                    "dynamicinvoke {target}({args}) // {}",
                    dynamic_text(dynamic)
                )
            }
        }
    }

    fn terminator(&self, terminator: &Terminator) -> String {
        match terminator {
            Terminator::Goto(target) => format!("goto B{}", target.0),
            Terminator::If {
                op,
                lhs,
                rhs,
                then_target,
                else_target,
            } => format!(
                "if {} {} {} goto B{} else B{}",
                self.operand(lhs),
                op.symbol(),
                self.operand(rhs),
                then_target.0,
                else_target.0
            ),
            Terminator::Switch {
                key,
                cases,
                default,
            } => {
                let mut text = format!("switch {} {{", self.operand(key));
                for (value, target) in cases {
                    let _ = write!(text, " case {value}: B{};", target.0);
                }
                let _ = write!(text, " default: B{} }}", default.0);
                text
            }
            Terminator::Return(None) => "return".to_string(),
            Terminator::Return(Some(value)) => format!("return {}", self.operand(value)),
            Terminator::Throw(value) => format!("throw {}", self.operand(value)),
        }
    }
}

/// `<java.lang.Integer: void <init>(int)>`; a descriptor that does not parse is shown raw.
fn jimple_signature(method: &MethodRef) -> String {
    match method.parsed_descriptor() {
        Ok(descriptor) => {
            let ret = descriptor
                .ret
                .as_ref()
                .map_or("void".to_string(), |ty| ty.to_string());
            let params: Vec<String> = descriptor.params.iter().map(|p| p.to_string()).collect();
            format!(
                "<{}: {ret} {}({})>",
                method.class,
                method.name,
                params.join(",")
            )
        }
        Err(_) => format!("<{}: {}{}>", method.class, method.name, method.descriptor),
    }
}

fn dynamic_text(dynamic: &DynamicCall) -> String {
    match dynamic {
        DynamicCall::StringConcat {
            recipe: Some(recipe),
        } => {
            format!("string concat {recipe:?}")
        }
        DynamicCall::StringConcat { recipe: None } => "string concat".to_string(),
        DynamicCall::Lambda {
            interface,
            implementation,
        } => format!("lambda {interface} -> {implementation}"),
        DynamicCall::Other { bootstrap } => format!("bootstrap {bootstrap}"),
    }
}

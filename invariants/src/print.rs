//! A readable listing of a program: one block per procedure, one line per edge.
//!
//! ```text
//! proc m(n) [snapshots n_init] requires true
//!   entry 0, exit 9
//!   0 -> 1: i := 0
//!   2 -> 3: assume n - i - 1 >= 0    @S
//! ```

use std::fmt::Write;

use crate::program::{Action, Cond, Expr, ProcId, Procedure, Program};

pub fn program_to_string(program: &Program) -> String {
    let mut out = String::new();
    for (index, procedure) in program.procedures.iter().enumerate() {
        write_procedure(&mut out, program, ProcId(index), procedure);
    }
    out
}

fn write_procedure(out: &mut String, program: &Program, id: ProcId, procedure: &Procedure) {
    let names = |vars: &[crate::program::VarId]| {
        vars.iter()
            .map(|v| procedure.var_name(*v))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        out,
        "proc {}({}) [snapshots {}] requires {}",
        procedure.name,
        names(&procedure.formals),
        names(&procedure.snapshots),
        cond_text(procedure, &procedure.precondition)
    );
    if !procedure.returns.is_empty() {
        let _ = writeln!(out, "  returns {}", names(&procedure.returns));
    }
    let _ = writeln!(
        out,
        "  entry {}, exit {}",
        procedure.entry.0, procedure.exit.0
    );
    for edge in &procedure.edges {
        let labels: Vec<&str> = program
            .points
            .iter()
            .filter(|p| p.procedure == id && p.node == edge.to)
            .map(|p| p.name.as_str())
            .collect();
        let label = if labels.is_empty() {
            String::new()
        } else {
            format!("    @{}", labels.join(" @"))
        };
        let _ = writeln!(
            out,
            "  {} -> {}: {}{label}",
            edge.from.0,
            edge.to.0,
            action_text(program, procedure, &edge.action)
        );
    }
}

fn action_text(program: &Program, procedure: &Procedure, action: &Action) -> String {
    match action {
        Action::Skip => "skip".to_string(),
        Action::Assign { var, expr } => format!(
            "{} := {}",
            procedure.var_name(*var),
            expr_text(procedure, expr)
        ),
        Action::Havoc(var) => format!("havoc {}", procedure.var_name(*var)),
        Action::Assume(cond) => format!("assume {}", cond_text(procedure, cond)),
        Action::Call {
            callee,
            args,
            results,
        } => {
            let args: Vec<String> = args.iter().map(|a| expr_text(procedure, a)).collect();
            let call = format!(
                "call {}({})",
                program.procedure(*callee).name,
                args.join(", ")
            );
            if results.is_empty() {
                call
            } else {
                let results: Vec<&str> = results.iter().map(|r| procedure.var_name(*r)).collect();
                format!("{} := {call}", results.join(", "))
            }
        }
    }
}

pub fn cond_text(procedure: &Procedure, cond: &Cond) -> String {
    let join = |parts: &[Cond], word: &str| {
        let texts: Vec<String> = parts
            .iter()
            .map(|p| format!("({})", cond_text(procedure, p)))
            .collect();
        if texts.is_empty() {
            if word == "and" {
                "true".to_string()
            } else {
                "false".to_string()
            }
        } else {
            texts.join(&format!(" {word} "))
        }
    };
    match cond {
        Cond::True => "true".to_string(),
        Cond::False => "false".to_string(),
        Cond::Ge(e) => format!("{} >= 0", expr_text(procedure, e)),
        Cond::Eq(e) => format!("{} = 0", expr_text(procedure, e)),
        Cond::Ne(e) => format!("{} != 0", expr_text(procedure, e)),
        Cond::Mod {
            expr,
            modulus,
            residue,
        } => format!("({}) mod {modulus} = {residue}", expr_text(procedure, expr)),
        Cond::Not(inner) => format!("not ({})", cond_text(procedure, inner)),
        Cond::And(parts) => join(parts, "and"),
        Cond::Or(parts) => join(parts, "or"),
    }
}

pub fn expr_text(procedure: &Procedure, expr: &Expr) -> String {
    let mut text = String::new();
    for (var, coeff) in &expr.terms {
        let name = procedure.var_name(*var);
        let magnitude = if coeff < &0.into() {
            -coeff.clone()
        } else {
            coeff.clone()
        };
        let sign = match (text.is_empty(), coeff < &0.into()) {
            (true, true) => "-",
            (true, false) => "",
            (false, true) => " - ",
            (false, false) => " + ",
        };
        let term = if magnitude == 1.into() {
            name.to_string()
        } else {
            format!("{magnitude}*{name}")
        };
        let _ = write!(text, "{sign}{term}");
    }
    let zero = 0.into();
    if text.is_empty() {
        return expr.constant.to_string();
    }
    if expr.constant > zero {
        let _ = write!(text, " + {}", expr.constant);
    } else if expr.constant < zero {
        let _ = write!(text, " - {}", -expr.constant.clone());
    }
    text
}

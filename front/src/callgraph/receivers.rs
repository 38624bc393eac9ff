//! The classes a method's own objects decide: a variable every value of which is a `new C` the
//! method makes (or a copy or cast of such a variable, or null) holds only those classes, so a
//! virtual call on it selects its targets from them, whatever else the program instantiates.

use std::collections::BTreeSet;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::ir::{Body, Const, Expr, Operand, StmtKind, VarId};
use membound_jvm::ClassName;

/// Where one value a variable is assigned comes from.
enum Source {
    New(ClassName),
    Copy(VarId),
    Null,
    /// A parameter, a call's result, a load, a caught exception: objects made out of sight.
    Unseen,
}

/// For each variable whose values all come from the method's own `new`s, their classes.
pub(super) fn created_classes(body: &Body) -> HashMap<VarId, BTreeSet<ClassName>> {
    let sources = sources(body);
    let mut unseen: HashSet<VarId> = sources
        .iter()
        .filter(|(_, from)| from.iter().any(|s| matches!(s, Source::Unseen)))
        .map(|(&var, _)| var)
        .collect();
    let mut classes: HashMap<VarId, BTreeSet<ClassName>> = HashMap::default();
    // Least fixpoint over the copies (a loop copies a variable into itself through others); a
    // copy of a variable holding an unseen object holds one too.
    let mut changed = true;
    while changed {
        changed = false;
        for (&var, from) in &sources {
            if unseen.contains(&var) {
                continue;
            }
            for source in from {
                let added: Vec<ClassName> = match source {
                    Source::New(class) => vec![class.clone()],
                    Source::Copy(other) if unseen.contains(other) => {
                        unseen.insert(var);
                        changed = true;
                        break;
                    }
                    Source::Copy(other) => classes
                        .get(other)
                        .map(|c| c.iter().cloned().collect())
                        .unwrap_or_default(),
                    Source::Null | Source::Unseen => Vec::new(),
                };
                let held = classes.entry(var).or_default();
                for class in added {
                    changed |= held.insert(class);
                }
            }
        }
    }
    classes.retain(|var, held| !unseen.contains(var) && !held.is_empty());
    classes
}

/// Every assignment of each variable, by where its value comes from; a parameter (and `this`)
/// holds an object from outside.
fn sources(body: &Body) -> HashMap<VarId, Vec<Source>> {
    let mut sources: HashMap<VarId, Vec<Source>> = HashMap::default();
    for &param in &body.params {
        sources.entry(param).or_default().push(Source::Unseen);
    }
    for (_, stmt) in body.statements() {
        let (dst, source) = match &stmt.kind {
            StmtKind::Assign { dst, value } => (*dst, source_of(value)),
            StmtKind::Invoke { dst: Some(dst), .. } => (*dst, Source::Unseen),
            _ => continue,
        };
        sources.entry(dst).or_default().push(source);
    }
    sources
}

fn source_of(value: &Expr) -> Source {
    match value {
        Expr::New(class) => Source::New(class.clone()),
        Expr::Use(Operand::Var(other)) | Expr::CheckCast(Operand::Var(other), _) => {
            Source::Copy(*other)
        }
        Expr::Use(Operand::Const(Const::Null))
        | Expr::CheckCast(Operand::Const(Const::Null), _) => Source::Null,
        _ => Source::Unseen,
    }
}

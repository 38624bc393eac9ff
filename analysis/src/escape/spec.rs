//! The summary of a method a library spec stands for, read from the spec instead of computed
//! from code: where each allocation goes, what the method returns and which argument it may
//! store into which. What a spec leaves unsaid is taken at its worst: without `stores`, or when
//! the method calls back into code (`calls`), every argument escapes; a reference result the spec
//! does not describe is global.

use membound_front::program::Program;
use membound_front::specs::{Arg, Holder, MethodSpec};
use membound_jvm::MethodRef;

use super::method::{Label, Roots, Summary, SummaryNode, Translation};

/// The summary and translation of a spec'd method.
pub fn spec_summary(
    method: &MethodRef,
    spec: &MethodSpec,
    is_static: bool,
) -> (Summary, Translation) {
    let mut summary = Summary::default();
    let mut translation = Translation::default();
    let descriptor = method.parsed_descriptor().ok();
    let arguments = descriptor.as_ref().map_or(0, |d| d.params.len()) + usize::from(!is_static);
    let all_arguments = || (0..arguments).filter_map(|k| u16::try_from(k).ok());
    let mut returns_described = false;
    for (index, allocation) in spec.allocations.iter().enumerate() {
        let node = match allocation.escapes {
            Holder::Captured => None,
            Holder::Global => Some(SummaryNode::Global),
            Holder::Returned => {
                returns_described = true;
                let roots = Roots {
                    params: Vec::new(),
                    returned: true,
                };
                summary.returns.insert(SummaryNode::Fresh(roots.clone()));
                Some(fresh(&mut summary, roots))
            }
            Holder::Argument(arg) => Some(match arg.index(is_static) {
                Some(k) => {
                    let roots = Roots {
                        params: vec![k],
                        returned: false,
                    };
                    let node = fresh(&mut summary, roots);
                    summary
                        .edges
                        .insert((SummaryNode::Param(k), Label::Any, node.clone()));
                    node
                }
                None => SummaryNode::Global,
            }),
        };
        translation
            .allocations
            .insert(MethodSpec::allocation_pc(index), node);
    }
    for holder in &spec.returns {
        returns_described = true;
        match holder {
            Holder::Captured | Holder::Returned => {}
            Holder::Global => {
                summary.returns.insert(SummaryNode::Global);
            }
            Holder::Argument(arg) => {
                summary.returns.insert(argument_node(*arg, is_static));
            }
        }
    }
    let returns_reference = descriptor
        .as_ref()
        .is_some_and(|d| d.ret.as_ref().is_some_and(|t| t.is_reference()));
    if returns_reference && !returns_described {
        summary.returns.insert(SummaryNode::Global);
    }
    match &spec.stores {
        Some(stores) if spec.calls.is_empty() => {
            for store in stores {
                let into = argument_node(store.into, is_static);
                let value = argument_node(store.value, is_static);
                summary.edges.insert((into, Label::Any, value));
            }
        }
        _ => {
            for k in all_arguments() {
                summary
                    .edges
                    .insert((SummaryNode::Global, Label::Any, SummaryNode::Param(k)));
            }
        }
    }
    (summary, translation)
}

/// Whether `method` is static, if its class can be read (the spec's argument numbering depends
/// on it).
pub fn is_static(program: &Program, method: &MethodRef) -> Option<bool> {
    let class = program.class(&method.class).ok()?;
    let declared = class
        .methods
        .iter()
        .find(|m| m.name == method.name && m.descriptor == method.descriptor)?;
    Some(declared.access.is_static())
}

/// The summary node of an argument; `this` of a static method (which has none) is global.
fn argument_node(arg: Arg, is_static: bool) -> SummaryNode {
    arg.index(is_static)
        .map_or(SummaryNode::Global, SummaryNode::Param)
}

fn fresh(summary: &mut Summary, roots: Roots) -> SummaryNode {
    summary.fresh.insert(roots.clone());
    SummaryNode::Fresh(roots)
}

//! memAlloc: how much a method allocates, per creation site and in total, as exact expressions
//! in its parameters, read off the per-method summaries ([`crate::summary`]).
//!
//! Every method that reaches an allocation from the entry gets a [`MethodBound`]: its
//! parameters with their origins, its memAlloc (objects and bytes, by the object model), and one
//! [`SiteBound`] per local site it reaches through each of its statements (its own allocation,
//! or one of its calls), with how often the site runs per call of the method.
//!
//! What cannot be bounded is ∞ with a reason, never 0: recursion, a set the counter cannot
//! count exactly, a string concatenation of objects (their `toString` is not analyzed: a
//! concatenation of strings and primitives makes two objects, and its bytes are bounded
//! without strings), and for a method's total, any reachable method whose code is unknown
//! (native, missing, unresolved) and that no library spec covers. This module does not decide
//! regions (that is [`crate::escape`] and [`crate::memrq`]) and does not print.

pub(crate) mod quantity;
mod render;

use std::collections::{BTreeSet, HashMap};

use membound_polyhedra::{Int, Rat};

use crate::lowering::{
    FormalKind, GHOST_COUNTERS, JDK_NATIVES_KEEP_FIELDS, Lowered, formal_kinds, spec_formal_kinds,
    spec_formal_names,
};
use crate::memrq::RegionAmounts;
use crate::sites::{AllocationKind, ChainElement, ConcatShape, FormatShape, LocalSites};
use crate::summary::depth_free::DEPTH_FREE_RECURSION;
use crate::summary::{Levels, MethodSummary, SiteSummary, Summaries};
use membound_front::callgraph::{CallGraph, NodeId, NodeKind};
use membound_front::program::Program;
use membound_front::sizes::ObjectModel;
use membound_front::specs::{MethodSpec, SpecSource};
use membound_jvm::error::{Error, Result};
use membound_jvm::{MethodRef, Type};

pub use quantity::{
    Quantity, count_quantity, maximum, merged_cases, pieces_times, pw_quantity, scaled_sum, tidy,
};

pub use render::to_text;

/// Objects and bytes (in the `count` model: the thesis's units) of something allocated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Amount {
    pub objects: Quantity,
    pub bytes: Quantity,
}

impl Amount {
    pub fn zero() -> Amount {
        Amount {
            objects: Quantity::zero(),
            bytes: Quantity::zero(),
        }
    }

    /// `self + other`, ∞ absorbing.
    pub fn plus(&self, other: &Amount) -> Amount {
        let add = |a: &Quantity, b: &Quantity| {
            scaled_sum([(Rat::from(1), a.clone()), (Rat::from(1), b.clone())])
        };
        Amount {
            objects: add(&self.objects, &other.objects),
            bytes: add(&self.bytes, &other.bytes),
        }
    }
}

/// One local site as seen from one method, through one of the method's statements.
#[derive(Clone, Debug)]
pub struct SiteBound {
    /// The index of the site in [`crate::sites::LocalSites::sites`].
    pub site: usize,
    /// The allocating instruction.
    pub at: ChainElement,
    /// The method's own call through which the site is reached; `None` when it is the
    /// method's own allocation.
    pub via: Option<ChainElement>,
    pub ty: Type,
    pub kind: AllocationKind,
    /// How often the allocation runs per call of the method, through `via`.
    pub count: Quantity,
    pub amount: Amount,
    /// Where its objects live, seen from the method (set with the regions).
    pub residence: Option<Residence>,
    /// Why something here is ∞.
    pub reasons: Vec<String>,
}

/// Where a site's objects live, seen from one method: each place that holds some of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Residence {
    /// In the method's own region.
    pub here: bool,
    /// In the regions of methods it calls.
    pub callees: bool,
    /// Outliving the method.
    pub escapes: bool,
}

/// A parameter of a method's bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    /// Where its value comes from: `parameter 0 (int n)`, `length of parameter 1 (a)`,
    /// `static field p.C.size`, `field n of this`.
    pub origin: String,
}

/// memAlloc of one method of the call tree.
#[derive(Clone, Debug)]
pub struct MethodBound {
    pub method: MethodRef,
    pub params: Vec<Param>,
    pub mem_alloc: Amount,
    pub sites: Vec<SiteBound>,
    /// Why the total is ∞ beyond its sites (unknown code reached), if it is.
    pub unbounded: Vec<String>,
    /// memCaptured, memEscapes and memRq (set by [`crate::memrq`]).
    pub regions: Option<RegionAmounts>,
    /// Where the spec that stands for the method comes from (`bundled`, or its file), when one
    /// does.
    pub spec: Option<String>,
}

impl MethodBound {
    /// Applies `edit` to every quantity of the method's bounds: memAlloc, its sites, and its
    /// region quantities and region tree.
    pub fn edit_quantities(&mut self, edit: &dyn Fn(&Quantity) -> Quantity) {
        let amount = |amount: &mut Amount| {
            amount.objects = edit(&amount.objects);
            amount.bytes = edit(&amount.bytes);
        };
        amount(&mut self.mem_alloc);
        for site in &mut self.sites {
            site.count = edit(&site.count);
            amount(&mut site.amount);
        }
        if let Some(regions) = &mut self.regions {
            amount(&mut regions.mem_captured);
            amount(&mut regions.mem_escapes);
            amount(&mut regions.mem_rq);
            for node in &mut regions.tree {
                amount(&mut node.r_size);
                amount(&mut node.mem_rq);
            }
        }
    }

    /// Renames parameter `old` to `new` in the parameter list and every quantity; an unknown
    /// `old` or a `new` already taken is an input error listing the parameters.
    pub fn rename_param(&mut self, old: &str, new: &str) -> Result<()> {
        self.param_index(old, &format!("--param {new}={old}"))?;
        if new != old && self.params.iter().any(|p| p.name == new) {
            return Err(Error::Input(format!(
                "--param {new}={old}: {} already has a parameter `{new}`; {}",
                self.method,
                self.param_list()
            )));
        }
        let rename = |name: &str| {
            if name == old {
                new.to_string()
            } else {
                name.to_string()
            }
        };
        self.edit_quantities(&|q| q.renamed(&rename));
        for param in self.params.iter_mut().filter(|p| p.name == old) {
            param.name = new.to_string();
            param.origin = format!("{}; named {new} by --param", param.origin);
        }
        Ok(())
    }

    /// Fixes parameter `name` to `value` in every quantity and drops it from the parameter
    /// list; returns the assumption the bounds now rest on.
    pub fn pin_param(&mut self, name: &str, value: i64) -> Result<String> {
        let index = self.param_index(name, &format!("--param {name}={value}"))?;
        let value = Int::from(value);
        let always = membound_bernstein::Guard::always();
        self.edit_quantities(&|q| {
            merged_cases(&tidy(&membound_bernstein::simplify(
                &q.with_value(name, &value),
                &always,
            )))
        });
        let param = self.params.remove(index);
        Ok(format!(
            "{} runs with {} = {value} ({}; pinned by --param)",
            self.method, param.name, param.origin
        ))
    }

    /// The position of parameter `name`, or an input error (prefixed `what`) listing them.
    fn param_index(&self, name: &str, what: &str) -> Result<usize> {
        self.params
            .iter()
            .position(|p| p.name == name)
            .ok_or_else(|| {
                Error::Input(format!(
                    "{what}: {} has no parameter `{name}`; {}",
                    self.method,
                    self.param_list()
                ))
            })
    }

    fn param_list(&self) -> String {
        if self.params.is_empty() {
            "it has none".to_string()
        } else {
            let names: Vec<&str> = self.params.iter().map(|p| p.name.as_str()).collect();
            format!("its parameters: {}", names.join(", "))
        }
    }
}

/// memAlloc of a method and of every method on its creation sites' chains, entry first.
#[derive(Clone, Debug)]
pub struct Bounds {
    pub model: ObjectModel,
    pub methods: Vec<MethodBound>,
    /// The calls between them: (caller, callee), each once, in the callers' offset order.
    pub callees: Vec<(MethodRef, MethodRef)>,
    /// What the bounds take for granted.
    pub assumptions: Vec<String>,
}

/// memAlloc of every summarized method, entry first then in depth-first order of the calls.
pub fn bounds(
    program: &Program,
    graph: &CallGraph,
    local: &LocalSites,
    lowered: &Lowered,
    summaries: &Summaries,
    model: ObjectModel,
) -> Result<Bounds> {
    let mut methods = methods_in_call_order(graph, summaries)
        .into_iter()
        .filter_map(|node| summaries.of(node))
        .map(|summary| {
            let spec = graph.methods[summary.node].kind.spec();
            method_bound(program, graph, local, lowered, summary, spec)
        })
        .collect::<Result<Vec<_>>>()?;
    if summaries.of(0).is_none() {
        methods.insert(0, entry_without_sites(graph));
    }
    let callees = calls_between(graph, summaries);
    Ok(Bounds {
        model,
        methods,
        callees,
        assumptions: assumptions(model)
            .into_iter()
            .chain(compact_strings(local))
            .chain(float_texts(local))
            .chain(format_calls(local))
            .chain(lowered.assumptions.iter().cloned())
            .chain(depth_free_recursion(summaries))
            .chain(ghost_counters(summaries, lowered))
            .chain(spec_assumptions(graph))
            .chain(external_objects(graph))
            .chain(field_writers(graph))
            .collect(),
    })
}

/// The calls from a summarized method into another, each (caller, callee) once.
fn calls_between(graph: &CallGraph, summaries: &Summaries) -> Vec<(MethodRef, MethodRef)> {
    let mut seen: BTreeSet<(NodeId, NodeId)> = BTreeSet::new();
    let mut calls: Vec<(MethodRef, MethodRef)> = Vec::new();
    for edge in graph.adjacency().into_iter().flatten() {
        let (Some(caller), Some(callee)) = (summaries.of(edge.caller), summaries.of(edge.callee))
        else {
            continue;
        };
        if seen.insert((edge.caller, edge.callee)) {
            calls.push((caller.method.clone(), callee.method.clone()));
        }
    }
    calls
}

/// The bound of an entry that reaches no allocation: 0, or ∞ when it reaches code the analysis
/// cannot see (its region quantities alike).
fn entry_without_sites(graph: &CallGraph) -> MethodBound {
    let unbounded = unknown_reached(graph).remove(&0).unwrap_or_default();
    let quantity = if unbounded.is_empty() {
        Quantity::zero()
    } else {
        Quantity::Inf
    };
    let amount = Amount {
        objects: quantity.clone(),
        bytes: quantity,
    };
    MethodBound {
        method: graph.entry().clone(),
        params: Vec::new(),
        mem_alloc: amount.clone(),
        sites: Vec::new(),
        unbounded,
        regions: Some(RegionAmounts {
            mem_captured: amount.clone(),
            mem_escapes: amount.clone(),
            mem_rq: amount,
            tree: Vec::new(),
            reasons: Vec::new(),
        }),
        spec: graph.methods[0]
            .kind
            .spec()
            .map(|spec| spec.source.to_string()),
    }
}

/// The summarized methods reachable from the entry, in depth-first preorder of the calls.
fn methods_in_call_order(graph: &CallGraph, summaries: &Summaries) -> Vec<NodeId> {
    let adjacency = graph.adjacency();
    let mut seen = vec![false; graph.methods.len()];
    let mut order = Vec::new();
    let mut stack = vec![0];
    while let Some(node) = stack.pop() {
        if std::mem::replace(&mut seen[node], true) || summaries.of(node).is_none() {
            continue;
        }
        order.push(node);
        stack.extend(adjacency[node].iter().rev().map(|edge| edge.callee));
    }
    order
}

fn assumptions(model: ObjectModel) -> Vec<String> {
    vec![
        "integer arithmetic does not overflow".to_string(),
        membound_front::callgraph::JDK_INITIALIZED.to_string(),
        membound_front::ir::JDK_ASSERTIONS_DISABLED.to_string(),
        format!("object sizes follow the {} object model", model.name()),
    ]
}

/// The assumption of a recursion bounded without its depth, when one is.
fn depth_free_recursion(summaries: &Summaries) -> Option<String> {
    summaries
        .in_order()
        .filter_map(|summary| summary.recursion.as_ref())
        .any(|recursion| matches!(recursion.levels, Levels::Unbounded))
        .then(|| DEPTH_FREE_RECURSION.to_string())
}

/// The assumptions of calls whose callee's ghost counters are bounded by the caller's
/// increments, when there is one: [`GHOST_COUNTERS`], and that JDK natives do not write the
/// counters when one is reachable and no view said so already.
fn ghost_counters(summaries: &Summaries, lowered: &Lowered) -> Vec<String> {
    let counters: BTreeSet<&str> = summaries
        .in_order()
        .flat_map(|summary| &summary.fresh_calls)
        .flat_map(|call| call.counters.iter().map(String::as_str))
        .collect();
    if counters.is_empty() {
        return Vec::new();
    }
    let natives = lowered.counters_assume_jdk_natives()
        && !lowered
            .assumptions
            .iter()
            .any(|a| a == JDK_NATIVES_KEEP_FIELDS);
    let names: Vec<&str> = counters.into_iter().collect();
    std::iter::once(format!("{GHOST_COUNTERS} ({})", names.join(", ")))
        .chain(natives.then(|| JDK_NATIVES_KEEP_FIELDS.to_string()))
        .collect()
}

/// The assumption behind the bytes of bounded concatenations, when there is one.
fn compact_strings(local: &LocalSites) -> Option<String> {
    concat_assumption(local, COMPACT_STRINGS, |shape| {
        shape.texts_known && shape.max_bytes.is_some()
    })
}

/// The assumption behind concatenations of a `float` or a `double`, when there is one.
fn float_texts(local: &LocalSites) -> Option<String> {
    concat_assumption(local, FLOAT_TEXT_ASSUMPTION, |shape| shape.float_texts > 0)
}

/// The assumption behind the bounds of format calls with a literal format, when one is
/// bounded (its objects at least).
fn format_calls(local: &LocalSites) -> Option<String> {
    local
        .sites
        .iter()
        .any(|site| {
            matches!(
                &site.allocation.kind,
                AllocationKind::Format(FormatShape::Bounded(_) | FormatShape::Text(_))
            )
        })
        .then(|| FORMAT_ASSUMPTION.to_string())
}

/// What the bounds of `String.format` calls (`sites::format_shape`) take for granted.
pub const FORMAT_ASSUMPTION: &str = "String.format (and printf to System.out or System.err, the JVM's own streams, not replaced by System.setOut) with a literal format allocates what JDK 17's java.util.Formatter allocates on HotSpot 17, measured under the agent with the default locale en, strings compact; its %s, %S, %x, %X, %o, %c, %b, %n and %% read no locale data (measured the same in de_DE); %d, %f and %e read the default locale's number symbols, a DecimalFormatSymbols per call (and per %f or %e, for the decimal separator), and their first use in a run loads the locale's data, charged once at the most measured in a fresh JVM among en, de, es, fr, hi, ja, ru, th and zh, so the default locale is one of them (or en_US, which reads none), the JDK's caches of that data (soft references) are not cleared under memory pressure, and the first use loads no more than in a fresh JVM; a float's or a double's text is made as JDK 17's FloatingDecimal and FormattedFloatingDecimal make it, into their thread's buffers, whose ThreadLocalMap entries, if the map exists, do not grow it";

/// `assumption`, when a concatenation of `local` has a shape `holds` of.
fn concat_assumption(
    local: &LocalSites,
    assumption: &str,
    holds: fn(&ConcatShape) -> bool,
) -> Option<String> {
    local
        .sites
        .iter()
        .any(|site| matches!(&site.allocation.kind, AllocationKind::StringConcat(shape) if holds(shape)))
        .then(|| assumption.to_string())
}

/// What the byte bounds of concatenations take for granted.
pub const COMPACT_STRINGS: &str =
    "strings are compact: Latin-1 text takes one byte per char (the JVM's default)";

/// What the bound of a `float`'s or a `double`'s text (`sites::float_text`, and the bundled
/// specs of `Double.toString` and its kin) takes for granted.
pub const FLOAT_TEXT_ASSUMPTION: &str = "a float's or a double's text is made as JDK 17's FloatingDecimal makes it, into its thread's buffer, whose ThreadLocalMap entry, if the map exists, does not grow it";

/// One assumption per spec standing for a reached method, sorted, after what the bundled
/// specs all take for granted when one is used.
/// The assumption behind the classes read from fields, naming the fields.
fn field_writers(graph: &CallGraph) -> Option<String> {
    let fields: Vec<&str> = graph.fields_by_stores.iter().map(String::as_str).collect();
    (!fields.is_empty()).then(|| {
        format!(
            "{} ({})",
            membound_front::callgraph::FIELD_WRITERS,
            fields.join(", ")
        )
    })
}

/// The assumption about objects handed in, naming the JDK types it concerns.
fn external_objects(graph: &CallGraph) -> Vec<String> {
    let named = |assumption: &str, types: &BTreeSet<membound_jvm::ClassName>| {
        let types: Vec<String> = types.iter().map(|c| c.source().to_string()).collect();
        (!types.is_empty()).then(|| format!("{assumption} ({})", types.join(", ")))
    };
    [
        named(
            membound_front::callgraph::EXTERNAL_OBJECTS,
            &graph.external_jdk_types,
        ),
        named(
            membound_front::callgraph::EXTERNAL_USER_OBJECTS,
            &graph.external_user_types,
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn spec_assumptions(graph: &CallGraph) -> Vec<String> {
    let used: Vec<&MethodSpec> = graph
        .methods
        .iter()
        .filter_map(|node| node.kind.spec().map(|spec| &**spec))
        .collect();
    let bundled = used.iter().any(|spec| spec.source == SpecSource::Bundled);
    let texts: BTreeSet<String> = used.iter().map(|spec| spec.assumption_text()).collect();
    bundled
        .then(|| membound_front::specs::BUNDLED_NORMAL_COMPLETION.to_string())
        .into_iter()
        .chain(texts)
        .collect()
}

fn method_bound(
    program: &Program,
    graph: &CallGraph,
    local: &LocalSites,
    lowered: &Lowered,
    summary: &MethodSummary,
    spec: Option<&std::sync::Arc<MethodSpec>>,
) -> Result<MethodBound> {
    let method = &summary.method;
    let params = match spec {
        Some(spec) => spec_params(method, spec),
        None => params_of(program, lowered, method)?,
    };
    let sites = summary
        .sites
        .iter()
        .map(|site| site_bound(graph, local, summary, site))
        .collect();
    Ok(MethodBound {
        method: method.clone(),
        params,
        mem_alloc: Amount {
            objects: summary.written(&summary.objects.add(&summary.once_objects)),
            bytes: summary.written(&summary.bytes.add(&summary.once_bytes)),
        },
        sites,
        unbounded: summary.unbounded.clone(),
        regions: None,
        spec: spec.map(|spec| spec.source.to_string()),
    })
}

/// The bound of one entry of a summary.
fn site_bound(
    graph: &CallGraph,
    local: &LocalSites,
    summary: &MethodSummary,
    site: &SiteSummary,
) -> SiteBound {
    let allocation = &local.sites[site.site];
    let total = site.total(&summary.params);
    let via = site.via.map(|pc| ChainElement {
        method: summary.method.clone(),
        pc,
        line: graph
            .edges
            .iter()
            .find(|e| e.caller == summary.node && e.pc == pc)
            .and_then(|e| e.line),
    });
    SiteBound {
        site: site.site,
        at: ChainElement {
            method: allocation.method.clone(),
            pc: allocation.pc,
            line: allocation.line,
        },
        via,
        ty: allocation.allocation.ty.clone(),
        kind: allocation.allocation.kind.clone(),
        count: summary.written(&total.count),
        amount: Amount {
            objects: summary.written(&total.objects),
            bytes: summary.written(&total.bytes),
        },
        residence: None,
        reasons: site
            .reasons
            .iter()
            .cloned()
            .chain(summary.diverges.iter().map(|d| d.why.clone()))
            .collect(),
    }
}

/// The method's integer and array parameters, then its integer field views, under the names
/// its bounds use.
fn params_of(program: &Program, lowered: &Lowered, method: &MethodRef) -> Result<Vec<Param>> {
    let body = program.body(method)?;
    let names = lowered.formal_names(method).unwrap_or_default();
    let declared = body
        .params
        .iter()
        .filter(|&&v| body.var(v).origin != membound_front::ir::VarOrigin::This);
    let mut params = Vec::new();
    for (index, (var, kind)) in declared.zip(formal_kinds(&body)).enumerate() {
        let Some(kind) = kind else { continue };
        let Some(name) = names.get(params.len()) else {
            break;
        };
        let var = body.var(*var);
        let origin = match kind {
            FormalKind::Value => format!("parameter {index} ({} {})", var.ty, var.name),
            FormalKind::ArrayLength | FormalKind::StringLength | FormalKind::ReceiverLength => {
                format!("length of parameter {index} ({})", var.name)
            }
            FormalKind::CollectionSize => format!("size of parameter {index} ({})", var.name),
            FormalKind::BoxedValue => {
                format!("value of parameter {index} ({} {})", var.ty, var.name)
            }
            // `formal_kinds` gives neither to a method with code.
            FormalKind::ReceiverSize | FormalKind::ReceiverFirst | FormalKind::CollectorKind => {
                format!("parameter {index} ({})", var.name)
            }
        };
        params.push(Param {
            name: name.clone(),
            origin,
        });
    }
    params.extend(
        lowered
            .view_params(method)
            .into_iter()
            .map(|(name, origin)| Param { name, origin }),
    );
    Ok(params)
}

/// The parameters of a method a spec stands for, named as its spec names them.
fn spec_params(method: &MethodRef, spec: &MethodSpec) -> Vec<Param> {
    let kinds = spec_formal_kinds(method, spec);
    spec_formal_names(method, spec)
        .into_iter()
        .map(|(index, name)| {
            let origin = match kinds[index] {
                Some(FormalKind::ArrayLength | FormalKind::StringLength) => {
                    format!("length of parameter {index}")
                }
                Some(FormalKind::ReceiverLength) => "length of this".to_string(),
                Some(FormalKind::ReceiverSize) => "size of this (its elements)".to_string(),
                Some(FormalKind::ReceiverFirst) => {
                    "first element of this (128 when not a range's)".to_string()
                }
                Some(FormalKind::CollectorKind) => format!("kind of parameter {index}"),
                _ => format!("parameter {index}"),
            };
            Param { name, origin }
        })
        .collect()
}

/// For each method that reaches code the analysis cannot see, why (a few reasons).
pub fn unknown_reached(graph: &CallGraph) -> HashMap<usize, Vec<String>> {
    const SHOWN: usize = 3;
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); graph.methods.len()];
    for edge in &graph.edges {
        callers[edge.callee].push(edge.caller);
    }
    let mut roots: Vec<(usize, String)> = Vec::new();
    for (node, method) in graph.methods.iter().enumerate() {
        let why = match &method.kind {
            NodeKind::Code | NodeKind::Spec(_) => continue,
            NodeKind::Native => "native method",
            NodeKind::Abstract => "no implementation found",
            NodeKind::Broken(reason) => reason.as_str(),
        };
        roots.push((node, format!("{} ({why})", method.method)));
    }
    for call in &graph.unresolved {
        roots.push((
            call.caller,
            format!("unresolved call to {} ({})", call.target, call.reason),
        ));
    }
    let mut reasons: HashMap<usize, Vec<String>> = HashMap::new();
    for (root, why) in roots {
        let mut stack = vec![root];
        let mut seen = BTreeSet::from([root]);
        while let Some(node) = stack.pop() {
            let list = reasons.entry(node).or_default();
            if list.len() < SHOWN {
                list.push(format!("reaches {why}"));
            }
            for &caller in &callers[node] {
                if seen.insert(caller) {
                    stack.push(caller);
                }
            }
        }
    }
    reasons
}

//! memAlloc: how much a method allocates, per creation site and in total, as exact expressions
//! in its parameters.
//!
//! For every method on a creation site's chain, the part of the chain from that method down to
//! the allocation is counted: its invariant ([`crate::lowering`]) has one integer point per
//! execution of the allocation per call of the method, and the polyhedra crate counts those
//! points as a piecewise quasi-polynomial. Sizes come from the object model
//! ([`membound_front::sizes`]): an object costs its instance size per execution; an array allocation of
//! `k` given dimensions creates, at level `j`, one array per cell of the levels above, each of
//! the length given for level `j`, so its objects and bytes are counts of sets extended with one
//! cell column per outer level and, for bytes, one column per aligned size unit (which makes an
//! array's aligned size an exact quasi-polynomial in its length). In the `count` model an array
//! counts the cells of its given dimensions, as the thesis does.
//!
//! What cannot be bounded is ∞ with a reason, never 0: a chain through recursion, a set the
//! counter cannot count exactly, a string concatenation of objects (their `toString` is not
//! analyzed: a concatenation of strings and primitives makes two objects, and its bytes are
//! bounded without strings), and for a method's
//! total, any reachable method whose code is unknown (native, missing, unresolved) and that no
//! library spec covers. A method's total counts a virtual call whose targets each allocate a
//! constant once per execution, at the largest ([`alternatives`]).
//! This module does not decide regions (that is [`crate::escape`]) and does not print.

mod alternatives;
mod quantity;
mod render;

use std::collections::{BTreeSet, HashMap};

use rayon::prelude::*;

use membound_polyhedra::{Affine, Constraint, Int, Rat, Set};

use crate::escape::SiteRegion;
use crate::lowering::{
    FormalKind, Lowered, SiteInvariant, formal_kinds, spec_formal_kinds, spec_formal_names,
};
use crate::memrq::RegionAmounts;
use crate::sites::{AllocationKind, ChainElement, ConcatShape, Sites};
use membound_front::callgraph::{CallGraph, NodeKind};
use membound_front::program::Program;
use membound_front::sizes::ObjectModel;
use membound_front::specs::{MethodSpec, SpecSource};
use membound_jvm::error::{Error, Result};
use membound_jvm::{ClassName, MethodRef, Type};

pub use quantity::{Quantity, count_quantity, maximum, scaled_sum, tidy};

pub use render::to_text;

/// Objects and bytes (in the `count` model: the thesis's units) of something allocated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Amount {
    pub objects: Quantity,
    pub bytes: Quantity,
}

impl Amount {
    fn unbounded() -> Amount {
        Amount {
            objects: Quantity::Inf,
            bytes: Quantity::Inf,
        }
    }
}

/// One creation site as seen from one method: the chain from that method to the allocation.
#[derive(Clone, Debug)]
pub struct SiteBound {
    /// The index in [`Sites::sites`] of a site whose chain ends with [`Self::chain`].
    pub site: usize,
    pub chain: Vec<ChainElement>,
    pub ty: Type,
    pub kind: AllocationKind,
    /// How often the allocation runs per call of the chain's first method.
    pub count: Quantity,
    pub amount: Amount,
    /// Where the objects live, relative to [`Self::chain`] (set by [`crate::memrq`]).
    pub region: Option<SiteRegion>,
    /// Why something here is ∞.
    pub reasons: Vec<String>,
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
            tidy(&membound_bernstein::simplify(
                &q.with_value(name, &value),
                &always,
            ))
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
    /// What the bounds take for granted.
    pub assumptions: Vec<String>,
}

/// Computes memAlloc for the entry of `graph` and every method on `sites`' chains, whose
/// methods `lowered` holds. `progress` is called once per counted chain suffix (from several
/// threads).
pub fn analyze(
    program: &Program,
    lowered: &Lowered,
    graph: &CallGraph,
    sites: &Sites,
    model: ObjectModel,
    progress: &(dyn Fn() + Sync),
) -> Result<Bounds> {
    let recursive = recursive_methods(graph);
    let unknown = unknown_reached(graph);
    let mut methods: Vec<MethodRef> = vec![sites.entry.clone()];
    for element in sites.sites.iter().flat_map(|s| &s.chain) {
        if !methods.contains(&element.method) {
            methods.push(element.method.clone());
        }
    }
    let suffixes: Vec<(usize, usize, usize)> = methods
        .iter()
        .enumerate()
        .flat_map(|(index, method)| {
            distinct_suffixes(sites, method)
                .into_iter()
                .map(move |(site, from)| (index, site, from))
        })
        .collect();
    let counted: Vec<(usize, SiteBound)> = suffixes
        .par_iter()
        .map(|&(index, site, from)| {
            let bound = site_bound(program, lowered, &recursive, model, sites, site, from);
            progress();
            (index, bound)
        })
        .collect();
    let mut per_method: Vec<Vec<SiteBound>> = vec![Vec::new(); methods.len()];
    for (index, bound) in counted {
        per_method[index].push(bound);
    }
    let bounds = methods
        .iter()
        .zip(per_method)
        .map(|(method, sites)| {
            let node = graph.node(method);
            let unbounded = node
                .and_then(|node| unknown.get(&node).cloned())
                .unwrap_or_default();
            let spec = node.and_then(|node| graph.methods[node].kind.spec());
            method_bound(program, lowered, method, spec, sites, unbounded)
        })
        .collect::<Result<Vec<_>>>()?;
    let per_call: HashMap<MethodRef, (Rat, Rat)> = bounds
        .iter()
        .filter_map(|b| alternatives::constant_per_call(b).map(|c| (b.method.clone(), c)))
        .collect();
    let mut bounds = bounds;
    for bound in bounds.iter_mut().filter(|b| b.unbounded.is_empty()) {
        bound.mem_alloc = alternatives::total(lowered, sites, bound, &per_call);
    }
    Ok(Bounds {
        model,
        methods: bounds,
        assumptions: assumptions(model)
            .into_iter()
            .chain(compact_strings(sites))
            .chain(lowered.assumptions.iter().cloned())
            .chain(spec_assumptions(graph))
            .chain(external_objects(graph))
            .collect(),
    })
}

fn assumptions(model: ObjectModel) -> Vec<String> {
    vec![
        "integer arithmetic does not overflow".to_string(),
        membound_front::callgraph::JDK_INITIALIZED.to_string(),
        format!("object sizes follow the {} object model", model.name()),
    ]
}

/// The assumption behind the bytes of bounded concatenations, when there is one.
fn compact_strings(sites: &Sites) -> Option<String> {
    sites
        .sites
        .iter()
        .any(|site| {
            matches!(
                site.allocation.kind,
                AllocationKind::StringConcat(ConcatShape {
                    two_objects: true,
                    max_bytes: Some(_),
                })
            )
        })
        .then(|| COMPACT_STRINGS.to_string())
}

/// What the byte bounds of concatenations take for granted.
pub const COMPACT_STRINGS: &str =
    "strings are compact: Latin-1 text takes one byte per char (the JVM's default)";

/// One assumption per spec standing for a reached method, sorted, after what the bundled
/// specs all take for granted when one is used.
/// The assumption about objects handed in, naming the JDK types it concerns.
fn external_objects(graph: &CallGraph) -> Option<String> {
    let types: Vec<String> = graph
        .external_jdk_types
        .iter()
        .map(|c| c.source().to_string())
        .collect();
    (!types.is_empty()).then(|| {
        format!(
            "{} ({})",
            membound_front::callgraph::EXTERNAL_OBJECTS,
            types.join(", ")
        )
    })
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

/// The chains of `sites` from `method` down, each once: (index of a site with that suffix,
/// index of `method` in its chain).
fn distinct_suffixes(sites: &Sites, method: &MethodRef) -> Vec<(usize, usize)> {
    let mut seen: Vec<(&[ChainElement], &crate::sites::Allocation)> = Vec::new();
    let mut found = Vec::new();
    for (index, site) in sites.sites.iter().enumerate() {
        let Some(from) = site.chain.iter().position(|e| &e.method == method) else {
            continue;
        };
        let key = (&site.chain[from..], &site.allocation);
        if !seen.contains(&key) {
            seen.push(key);
            found.push((index, from));
        }
    }
    found
}

fn method_bound(
    program: &Program,
    lowered: &Lowered,
    method: &MethodRef,
    spec: Option<&std::sync::Arc<MethodSpec>>,
    sites: Vec<SiteBound>,
    unbounded: Vec<String>,
) -> Result<MethodBound> {
    let params = match spec {
        Some(spec) => spec_params(method, spec),
        None => params_of(program, lowered, method)?,
    };
    let total = |pick: fn(&SiteBound) -> &Quantity| {
        if unbounded.is_empty() {
            scaled_sum(sites.iter().map(|s| (Rat::from(1), pick(s).clone())))
        } else {
            Quantity::Inf
        }
    };
    let mem_alloc = Amount {
        objects: total(|s| &s.amount.objects),
        bytes: total(|s| &s.amount.bytes),
    };
    Ok(MethodBound {
        method: method.clone(),
        params,
        mem_alloc,
        sites,
        unbounded,
        regions: None,
        spec: spec.map(|spec| spec.source.to_string()),
    })
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
            FormalKind::ArrayLength | FormalKind::StringLength => {
                format!("length of parameter {index} ({})", var.name)
            }
            FormalKind::CollectionSize => format!("size of parameter {index} ({})", var.name),
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
    let kinds = spec_formal_kinds(method);
    spec_formal_names(method, spec)
        .into_iter()
        .map(|(index, name)| {
            let origin = match kinds[index] {
                Some(FormalKind::ArrayLength) => format!("length of parameter {index}"),
                _ => format!("parameter {index}"),
            };
            Param { name, origin }
        })
        .collect()
}

/// Methods in a recursive component of the call graph.
fn recursive_methods(graph: &CallGraph) -> BTreeSet<MethodRef> {
    graph
        .recursive_components()
        .into_iter()
        .flatten()
        .map(|node| graph.methods[node].method.clone())
        .collect()
}

/// For each method that reaches code the analysis cannot see, why (a few reasons).
fn unknown_reached(graph: &CallGraph) -> HashMap<usize, Vec<String>> {
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

/// The bound of one chain suffix.
fn site_bound(
    program: &Program,
    lowered: &Lowered,
    recursive: &BTreeSet<MethodRef>,
    model: ObjectModel,
    sites: &Sites,
    index: usize,
    from: usize,
) -> SiteBound {
    let site = &sites.sites[index];
    let chain = site.chain[from..].to_vec();
    let mut bound = SiteBound {
        site: index,
        chain,
        ty: site.allocation.ty.clone(),
        kind: site.allocation.kind,
        count: Quantity::Inf,
        amount: Amount::unbounded(),
        region: None,
        reasons: Vec::new(),
    };
    if let Some(element) = bound.chain.iter().find(|e| recursive.contains(&e.method)) {
        bound
            .reasons
            .push(format!("recursion through {}", element.method));
        return bound;
    }
    let invariant = match lowered.suffix_invariant(site, from) {
        Ok(invariant) => invariant,
        Err(error) => {
            bound.reasons.push(error.to_string());
            return bound;
        }
    };
    let mut count = |set: &Set| match count_quantity(set) {
        Ok(quantity) => quantity,
        Err(error) => {
            bound.reasons.push(format!("not counted exactly: {error}"));
            Quantity::Inf
        }
    };
    let executions = count(&invariant.executions_set().to_set());
    let amount = match site.allocation.kind {
        AllocationKind::Object | AllocationKind::ConstructorReference => {
            object_amount(program, model, &site.allocation.ty, &executions)
        }
        AllocationKind::Array => array_amount(
            model,
            &site.allocation.ty,
            &invariant,
            &executions,
            &mut count,
        ),
        AllocationKind::StringConcat(shape) => {
            bound.reasons.extend(concat_reasons(shape));
            concat_amount(program, model, shape, &executions)
        }
    };
    bound.amount = amount.unwrap_or_else(|error| {
        bound.reasons.push(error.to_string());
        Amount::unbounded()
    });
    // An unbounded set counts as ∞ without an error: say which set it was.
    if bound.reasons.is_empty() {
        if executions.may_be_infinite() {
            bound.reasons.push(
                "its executions are not bounded by the parameters (a data-dependent loop, or a loop bound the lowering cannot express)"
                    .to_string(),
            );
        } else if bound.amount.objects.may_be_infinite() || bound.amount.bytes.may_be_infinite() {
            bound
                .reasons
                .push("the array's lengths are not bounded by the parameters".to_string());
        }
    }
    bound.count = executions;
    bound
}

/// A concatenation's `String` and `byte[]` per execution (see [`crate::sites::ConcatShape`]):
/// its objects are bounded when its arguments allocate nothing to become text, its bytes when
/// the text's length is bounded too.
fn concat_amount(
    program: &Program,
    model: ObjectModel,
    shape: ConcatShape,
    executions: &Quantity,
) -> Result<Amount> {
    if !shape.two_objects {
        return Ok(Amount::unbounded());
    }
    let objects = scaled_sum([(Rat::from(2), executions.clone())]);
    let bytes = match shape.max_bytes {
        Some(length) => {
            let string = model.instance_size(program, &ClassName::new("java/lang/String"))?;
            let array = model.array_layout(&Type::Byte).size(length);
            scaled_sum([(Rat::from(Int::from(string + array)), executions.clone())])
        }
        None => Quantity::Inf,
    };
    Ok(Amount { objects, bytes })
}

/// Why a concatenation's quantities are ∞, if they are.
fn concat_reasons(shape: ConcatShape) -> Option<String> {
    if !shape.two_objects {
        Some("string concatenation of a float, double or object: the text it makes of them (toString) is not analyzed".to_string())
    } else if shape.max_bytes.is_none() {
        Some(
            "string concatenation of a String: its length is not bounded by the parameters"
                .to_string(),
        )
    } else {
        None
    }
}

fn object_amount(
    program: &Program,
    model: ObjectModel,
    ty: &Type,
    executions: &Quantity,
) -> Result<Amount> {
    let Type::Ref(class) = ty else {
        return Err(membound_jvm::error::Error::Input(format!(
            "an object allocation of non-class type {ty}"
        )));
    };
    let size = model.instance_size(program, class)?;
    Ok(Amount {
        objects: executions.clone(),
        bytes: scaled_sum([(Rat::from(Int::from(size)), executions.clone())]),
    })
}

/// Objects and bytes of an array allocation (see the module documentation): level `j` has one
/// array per cell of the levels above it, so level 0 is one array per execution.
fn array_amount(
    model: ObjectModel,
    ty: &Type,
    invariant: &SiteInvariant,
    executions: &Quantity,
    count: &mut dyn FnMut(&Set) -> Quantity,
) -> Result<Amount> {
    let set = invariant.set.to_set();
    let first_length = set.space.params.len() + invariant.executions.len();
    let levels = invariant.lengths.len();
    let cells = |upto: usize| -> (Vec<String>, Vec<Constraint>) {
        let names = (0..upto).map(|j| format!("cell_{}", j + 1)).collect();
        let base = set.space.params.len() + set.space.dims.len();
        let constraints = (0..upto)
            .flat_map(|j| {
                [
                    quantity::at_least(base + j, 1),
                    quantity::at_most(base + j, &Affine::var(first_length + j)),
                ]
            })
            .collect();
        (names, constraints)
    };
    let mut objects = vec![(Rat::from(1), executions.clone())];
    for level in 1..levels {
        let (names, constraints) = cells(level);
        objects.push((
            Rat::from(1),
            count(&quantity::extend_set(&set, &names, &constraints)),
        ));
    }
    let objects = scaled_sum(objects);
    if model == ObjectModel::Count {
        let (names, constraints) = cells(levels);
        let units = count(&quantity::extend_set(&set, &names, &constraints));
        return Ok(Amount {
            objects,
            bytes: units,
        });
    }
    let mut bytes = Vec::new();
    let mut level_type = ty.clone();
    for level in 0..levels {
        let element = level_type.element().cloned().ok_or_else(|| {
            membound_jvm::error::Error::Input(format!(
                "{ty} has fewer than {} dimensions",
                level + 1
            ))
        })?;
        let (mut names, mut constraints) = cells(level);
        // Units of `align` bytes: `1 <= w` and `align * w <= base + size * length + align - 1`.
        let layout = model.array_layout(&element);
        let unit = set.space.params.len() + set.space.dims.len() + level;
        let align = layout.align as i64;
        let available = Affine::var(first_length + level)
            .scale(&Rat::from(Int::from(layout.element_size)))
            .add(&Affine::constant(Rat::from(
                Int::from(layout.base) + Int::from(align - 1),
            )));
        names.push("unit".to_string());
        constraints.push(quantity::at_least(unit, 1));
        constraints.push(Constraint::ge(
            available.sub(&Affine::var(unit).scale(&Rat::from(align))),
        ));
        bytes.push((
            Rat::from(align),
            count(&quantity::extend_set(&set, &names, &constraints)),
        ));
        level_type = element;
    }
    Ok(Amount {
        objects,
        bytes: scaled_sum(bytes),
    })
}

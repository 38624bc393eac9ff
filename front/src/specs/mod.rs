//! Library specs: what a method allocates, stated instead of analyzed.
//!
//! A spec replaces a method's code for every stage of the analysis: the call graph does not
//! follow a spec'd method (its `calls` become the only edges out of it), its `allocates` entries
//! become creation sites at the call, each running at most `count` times per call (an affine
//! expression in the method's integer parameters, an array parameter standing for its length),
//! and escape analysis reads what it returns and keeps from the spec. This is the thesis's
//! proposal for library code (notes §14: "treat each annotated call like an array allocation")
//! and the way to bound natives and recursion. A spec is a claim: every certificate that uses one
//! lists it among its assumptions, with where it came from, and `validate` compares it with real
//! runs like any other prediction.
//!
//! An interface spec (one with `covers`) is different: it names an abstract interface method
//! and the JDK classes that objects created out of the analysis's sight may be when they reach
//! a call of it. It states no allocation: the call graph's class-hierarchy fallback dispatches
//! such a call only to those JDK classes (whose own methods are analyzed or spec'd as usual) and
//! to the application's classes, instead of to every implementation in the JDK. The list is a
//! claim too, listed like the others.
//!
//! Specs come from YAML files ([`file`], documented in docs/specs.md): the bundled JDK specs
//! ([`BUNDLED`]) and the user's `--spec` files, whose entries take precedence. This module knows
//! JVM names and types; it does not count, lower or analyze escape (the stages that read specs
//! do).

mod file;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use membound_polyhedra::{Affine, Constraint, Int, Rat, Relation};

use membound_jvm::error::{Error, Result};
use membound_jvm::{ClassName, MethodDescriptor, MethodRef, Type};

/// The bundled specs of JDK methods (natives and hot library methods).
pub const BUNDLED: &str = include_str!("../../specs/jdk.yaml");

/// What every use of the bundled specs takes for granted.
pub const BUNDLED_NORMAL_COMPLETION: &str = "the bundled specs count what JDK methods allocate when they return normally (exceptions they throw are not counted)";

/// What a spec with `ends_program` takes for granted: the call does not return (no security
/// manager refuses it), and the shutdown hooks' allocations are not the analyzed method's.
pub const PROGRAM_END: &str = "ends the program: the code after the call does not run and the shutdown hooks are not analyzed";

/// Where a spec was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpecSource {
    Bundled,
    File(String),
}

/// `bundled`, or the file's path.
impl std::fmt::Display for SpecSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpecSource::Bundled => f.write_str("bundled"),
            SpecSource::File(path) => f.write_str(path),
        }
    }
}

/// The stream classes whose specs may name the receiver's size `this`: the pipelines every
/// stream of `java.util.stream` is.
const STREAM_PIPELINES: &[&str] = &[
    "java/util/stream/AbstractPipeline",
    "java/util/stream/ReferencePipeline",
    "java/util/stream/IntPipeline",
    "java/util/stream/LongPipeline",
    "java/util/stream/DoublePipeline",
    "java/util/stream/ReferencePipeline$Head",
    "java/util/stream/IntPipeline$Head",
    "java/util/stream/LongPipeline$Head",
    "java/util/stream/DoublePipeline$Head",
];

/// Whether `class` is a stream pipeline, whose spec's `this` is its size.
pub fn is_stream_pipeline(class: &ClassName) -> bool {
    STREAM_PIPELINES.contains(&class.internal())
}

/// Whether `class` is an `IntStream` pipeline, whose spec may name its first element `first`.
pub fn is_int_pipeline(class: &ClassName) -> bool {
    matches!(
        class.internal(),
        "java/util/stream/IntPipeline" | "java/util/stream/IntPipeline$Head"
    )
}

/// A `Collector` parameter of a spec stands for its kind: which factory of `Collectors` made it
/// (the lowering's views number them: 1 for `toList()`).
pub const COLLECTOR: &str = "java/util/stream/Collector";

/// What one method is specified to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MethodSpec {
    pub class: ClassName,
    pub name: String,
    /// `None`: the spec covers every overload (its expressions then use no parameter).
    pub descriptor: Option<String>,
    pub source: SpecSource,
    /// The names expressions use for the declared parameters, in order (`p0`, `p1`, … unless
    /// the spec names them).
    pub params: Vec<String>,
    /// Whether its expressions name the receiver's measure, `this`: a `String` method's
    /// length, a stream pipeline's size (how many elements it has, [`is_stream_pipeline`]); a
    /// column after [`MethodSpec::params`].
    pub receiver_length: bool,
    /// Whether they name an `IntStream`'s first element, `first` ([`is_int_pipeline`]): a
    /// column after the receiver's size.
    pub receiver_first: bool,
    pub allocations: Vec<SpecAllocation>,
    /// Methods it calls on objects it receives (user code it runs: `hashCode`, `toString`).
    pub calls: Vec<SpecCall>,
    /// What the method may return, besides allocations that escape by being returned.
    pub returns: Vec<Holder>,
    /// Which argument it may store into which; `None`: unknown, every argument escapes.
    pub stores: Option<Vec<Store>>,
    /// Whether it may write integer fields of the program (which field views then cannot read).
    pub writes_fields: bool,
    /// Whether a call of it ends the program (`System.exit`): it never returns, so the code
    /// after the call does not run, and what runs on the way out (shutdown hooks) is not counted.
    pub ends_program: bool,
    /// What the spec takes for granted beyond what it states, listed when it is used.
    pub assumption: Option<String>,
    /// For an interface spec: the JDK classes a receiver created out of sight may be (see the
    /// module documentation); `None` for a spec of a method's own behaviour.
    pub covers: Option<Vec<ClassName>>,
}

/// One kind of object a spec'd method allocates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecAllocation {
    pub ty: Type,
    /// At most this many per call (an affine expression over [`MethodSpec::params`]); `None`:
    /// no bound (what the method allocates depends on state no parameter measures, such as a
    /// stream's elements), which makes every count through it ∞.
    pub count: Option<SpecExpr>,
    /// For an array: its length; `None` for an object, or an array whose length is not bounded.
    pub length: Option<SpecExpr>,
    /// Only at calls whose arguments satisfy this (boxing allocates outside its cache); `None`:
    /// at every call.
    pub when: Option<SpecCondition>,
    pub escapes: Holder,
}

/// A condition on a spec's parameters: a disjunction of conjunctions of affine constraints,
/// with its text for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecCondition {
    pub text: String,
    /// Each alternative's constraints, over the indices of [`MethodSpec::params`].
    pub alternatives: Vec<Vec<Constraint>>,
}

/// Where an object ends up or a value comes from, from the spec'd method's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// It dies when the method returns.
    Captured,
    /// It is (reachable from) the returned value.
    Returned,
    /// It is stored into an object reachable from this argument.
    Argument(Arg),
    /// It may be reached from anywhere.
    Global,
}

/// An argument of a spec'd method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    This,
    /// The declared parameter with this index (0 is the first after `this`).
    Param(usize),
}

impl Arg {
    /// The JVM's numbering of arguments, `this` first in an instance method; `None` for `this`
    /// of a static method.
    pub fn index(self, is_static: bool) -> Option<u16> {
        match (self, is_static) {
            (Arg::This, true) => None,
            (Arg::This, false) => Some(0),
            (Arg::Param(i), is_static) => u16::try_from(i + usize::from(!is_static)).ok(),
        }
    }
}

/// `value` may be stored into an object reachable from `into`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Store {
    pub value: Arg,
    pub into: Arg,
}

/// A method a spec'd method calls, dispatched virtually like any call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecCall {
    pub method: MethodRef,
    /// At most this many calls per call of the spec'd method; `None`: not bounded.
    pub times: Option<SpecExpr>,
}

/// An affine expression over a spec's parameters, with its text for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecExpr {
    pub text: String,
    /// Over the indices of [`MethodSpec::params`].
    pub affine: Affine,
}

impl SpecExpr {
    /// The expression scaled to integer coefficients: (coefficient per parameter, constant,
    /// the positive factor it was multiplied by).
    pub fn integer_form(&self, params: usize) -> (Vec<Int>, Int, Int) {
        integer_form(&self.affine, params)
    }
}

impl SpecCondition {
    /// Each alternative's constraints scaled to integer coefficients: (coefficient per
    /// parameter, constant, relation to zero).
    pub fn integer_alternatives(&self, params: usize) -> Vec<Vec<(Vec<Int>, Int, Relation)>> {
        self.alternatives
            .iter()
            .map(|constraints| {
                constraints
                    .iter()
                    .map(|c| {
                        let (terms, constant, _) = integer_form(&c.expr, params);
                        (terms, constant, c.rel)
                    })
                    .collect()
            })
            .collect()
    }
}

/// `affine` scaled to integer coefficients: (coefficient per parameter, constant, the positive
/// factor it was multiplied by).
fn integer_form(affine: &Affine, params: usize) -> (Vec<Int>, Int, Int) {
    let terms: Vec<Rat> = (0..params).map(|i| affine.coeff(i)).collect();
    let denominator =
        membound_polyhedra::scalar::lcm_of_denominators(terms.iter().chain([&affine.constant]));
    let factor = Rat::from_int(denominator.clone());
    let scale = |value: &Rat| (value * &factor).numer();
    (
        terms.iter().map(scale).collect(),
        scale(&affine.constant),
        denominator,
    )
}

impl MethodSpec {
    /// The offset a spec'd method's `index`-th allocation is made at: its allocations take
    /// offsets `0..allocations` (a spec'd method has no bytecode for them to clash with).
    pub fn allocation_pc(index: usize) -> u32 {
        u32::try_from(index).unwrap_or(u32::MAX)
    }

    /// The allocation stated at offset `pc`, if one is.
    pub fn allocation_at(&self, pc: u32) -> Option<&SpecAllocation> {
        self.allocations.get(usize::try_from(pc).ok()?)
    }

    /// The offset its `index`-th call is made from: the ones after its allocations'.
    pub fn call_pc(&self, index: usize) -> u32 {
        Self::allocation_pc(self.allocations.len() + index)
    }

    /// Whether this spec is the one for `method`.
    pub fn covers(&self, method: &MethodRef) -> bool {
        self.class == method.class
            && *self.name == *method.name
            && self
                .descriptor
                .as_deref()
                .is_none_or(|d| d == &*method.descriptor)
    }

    /// `java.util.ArrayList.add(Ljava/lang/Object;)Z`, or without a descriptor `….add(…)`.
    pub fn target(&self) -> String {
        match &self.descriptor {
            Some(descriptor) => format!("{}.{}{descriptor}", self.class, self.name),
            None => format!("{}.{}(…)", self.class, self.name),
        }
    }

    /// The sentence a certificate lists when the spec is used.
    pub fn assumption_text(&self) -> String {
        let what = if let Some(covers) = &self.covers {
            let classes: Vec<String> = covers.iter().map(ToString::to_string).collect();
            format!(
                "a receiver created outside the analyzed code is a {} or an application class's object",
                classes.join(", ")
            )
        } else if self.ends_program {
            PROGRAM_END.to_string()
        } else if self.allocations.is_empty() {
            "allocates nothing".to_string()
        } else {
            let parts: Vec<String> = self
                .allocations
                .iter()
                .map(|a| {
                    let count = a.count.as_ref().map_or("unboundedly many", |c| &c.text);
                    let what = match &a.length {
                        Some(length) if matches!(a.ty, Type::Array(_)) => {
                            format!("{count} × {} of length {}", a.ty, length.text)
                        }
                        None if matches!(a.ty, Type::Array(_)) => {
                            format!("{count} × {} of unbounded length", a.ty)
                        }
                        _ => format!("{count} × {}", a.ty),
                    };
                    match &a.when {
                        Some(when) => format!("{what} when {}", when.text),
                        None => what,
                    }
                })
                .collect();
            format!("allocates at most {}", parts.join(", "))
        };
        let kind = if self.covers.is_some() {
            "interface spec"
        } else {
            "spec"
        };
        let source = match &self.source {
            SpecSource::Bundled => format!("bundled {kind}"),
            SpecSource::File(path) => format!("{kind} from {path}"),
        };
        let extra = self
            .assumption
            .as_deref()
            .map(|a| format!("; {a}"))
            .unwrap_or_default();
        let per_call = if self.covers.is_some() || self.ends_program {
            ""
        } else {
            " per call"
        };
        format!("{}: {what}{per_call} ({source}{extra})", self.target())
    }
}

/// A set of specs, later files overriding earlier ones method by method.
#[derive(Clone, Debug, Default)]
pub struct Specs {
    by_name: HashMap<(ClassName, String), Vec<Arc<MethodSpec>>>,
    /// Interface specs by method name and descriptor (a call names a subinterface or class as
    /// often as the interface itself).
    interfaces: HashMap<(String, String), Vec<Arc<MethodSpec>>>,
}

impl Specs {
    /// No specs at all: every method is analyzed from its code.
    pub fn none() -> Specs {
        Specs::default()
    }

    /// The bundled JDK specs.
    pub fn bundled() -> Specs {
        let mut specs = Specs::none();
        specs
            .add_yaml(BUNDLED, SpecSource::Bundled)
            .expect("the bundled specs parse (tested)");
        specs
    }

    /// Adds the specs of a YAML file; an entry for a method already spec'd replaces it.
    pub fn add_file(&mut self, path: &Path) -> Result<()> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        self.add_yaml(&text, SpecSource::File(path.display().to_string()))
    }

    /// Adds the specs of YAML text (see [`file`]).
    pub fn add_yaml(&mut self, text: &str, source: SpecSource) -> Result<()> {
        let origin = match &source {
            SpecSource::Bundled => "the bundled specs".to_string(),
            SpecSource::File(path) => path.clone(),
        };
        let parsed =
            file::parse(text, &source).map_err(|e| Error::Input(format!("{origin}: {e}")))?;
        for spec in parsed {
            if let (Some(_), Some(descriptor)) = (&spec.covers, &spec.descriptor) {
                let list = self
                    .interfaces
                    .entry((spec.name.clone(), descriptor.clone()))
                    .or_default();
                list.retain(|old| old.class != spec.class);
                list.push(Arc::new(spec));
                continue;
            }
            let list = self
                .by_name
                .entry((spec.class.clone(), spec.name.clone()))
                .or_default();
            list.retain(|old| old.descriptor != spec.descriptor);
            // Specs with a descriptor are tried before those covering every overload.
            list.push(Arc::new(spec));
            list.sort_by_key(|s| s.descriptor.is_none());
        }
        Ok(())
    }

    /// The spec of `method`, if any.
    pub fn find(&self, method: &MethodRef) -> Option<&Arc<MethodSpec>> {
        self.by_name
            .get(&(method.class.clone(), method.name.to_string()))?
            .iter()
            .find(|spec| spec.covers(method))
    }

    /// The interface specs of methods named like `method` (same name and descriptor), on any
    /// class: the caller keeps those whose interface the called class implements.
    pub fn interface_specs(&self, method: &MethodRef) -> &[Arc<MethodSpec>] {
        self.interfaces
            .get(&(method.name.to_string(), method.descriptor.to_string()))
            .map_or(&[], Vec::as_slice)
    }

    pub fn len(&self) -> usize {
        self.by_name
            .values()
            .chain(self.interfaces.values())
            .map(Vec::len)
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The declared parameter types of a spec's method, when it names its descriptor.
fn declared_params(descriptor: &str) -> std::result::Result<Vec<Type>, String> {
    MethodDescriptor::parse(descriptor).map(|d| d.params)
}

#[cfg(test)]
mod tests;

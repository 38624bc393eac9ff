//! The YAML form of specs (docs/specs.md is the reference) and its checking: every method,
//! type, parameter name and expression is validated here, so a bad spec file is one input error
//! naming the entry, never a surprise later.

use serde::Deserialize;

use membound_polyhedra::{Affine, Rat, parse_set};

use super::{
    Arg, Holder, MethodSpec, SpecAllocation, SpecCall, SpecCondition, SpecExpr, SpecSource, Store,
    declared_params,
};
use membound_jvm::{ClassName, MethodRef, Type};

/// The format version this membound reads.
pub const FORMAT: u32 = 1;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    membound_specs: u32,
    #[serde(default)]
    specs: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    method: String,
    params: Option<Vec<String>>,
    #[serde(default)]
    allocates: Vec<AllocationEntry>,
    #[serde(default)]
    calls: Vec<CallEntry>,
    returns: Option<String>,
    stores: Option<Vec<StoreEntry>>,
    #[serde(default)]
    writes_fields: bool,
    #[serde(default)]
    ends_program: bool,
    assumption: Option<String>,
    covers: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AllocationEntry {
    #[serde(rename = "type")]
    ty: String,
    count: Option<Scalar>,
    length: Option<Scalar>,
    when: Option<String>,
    escapes: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallEntry {
    method: String,
    times: Option<Scalar>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreEntry {
    value: String,
    into: String,
}

/// An expression written as a YAML number or string.
#[derive(Deserialize)]
#[serde(untagged)]
enum Scalar {
    Number(i64),
    Text(String),
}

impl Scalar {
    fn text(&self) -> String {
        match self {
            Scalar::Number(n) => n.to_string(),
            Scalar::Text(t) => t.trim().to_string(),
        }
    }
}

/// Parses and checks a spec file.
pub fn parse(text: &str, source: &SpecSource) -> Result<Vec<MethodSpec>, String> {
    let file: SpecFile = serde_norway::from_str(text).map_err(|e| e.to_string())?;
    if file.membound_specs != FORMAT {
        return Err(format!(
            "spec format {} is not supported (this membound reads format {FORMAT})",
            file.membound_specs
        ));
    }
    file.specs
        .into_iter()
        .map(|entry| {
            let method = entry.method.clone();
            convert(entry, source).map_err(|e| format!("spec of {method}: {e}"))
        })
        .collect()
}

fn convert(entry: Entry, source: &SpecSource) -> Result<MethodSpec, String> {
    if entry.covers.is_some() {
        return interface_spec(entry, source);
    }
    if entry.ends_program && !(entry.allocates.is_empty() && entry.calls.is_empty()) {
        return Err(
            "a method that ends the program (`ends_program`) states no allocations \
                    or calls: nothing after it is counted"
                .to_string(),
        );
    }
    let (class, name, descriptor) = split_method(&entry.method)?;
    let declared = match &descriptor {
        Some(d) => declared_params(d).map_err(|e| format!("bad descriptor {d}: {e}"))?,
        None => Vec::new(),
    };
    let params = match entry.params {
        Some(names) if descriptor.is_none() => {
            return Err(format!(
                "`params` ({}) needs a descriptor to name",
                names.join(", ")
            ));
        }
        Some(names) if names.len() != declared.len() => {
            return Err(format!(
                "`params` names {} parameters, the descriptor declares {}",
                names.len(),
                declared.len()
            ));
        }
        Some(names) => names,
        None => (0..declared.len()).map(|i| format!("p{i}")).collect(),
    };
    if let Some(bad) = params
        .iter()
        .find(|n| !is_class_part(n) || n.contains('$') || *n == "this")
    {
        return Err(format!("`{bad}` is not a parameter name"));
    }
    // A String's methods may name its length `this`, a column after the declared parameters;
    // so may a StringBuilder's, whose length the lowering knows for the method's own builders,
    // and a stream's its size (an integer). An IntStream's may name its first element `first`
    // too, a column after `this`.
    let string = Type::Ref(ClassName::new(STRING));
    let receiver =
        [STRING, BUILDER].contains(&class.internal()) || super::is_stream_pipeline(&class);
    let first = super::is_int_pipeline(&class);
    let (named, types) = if receiver {
        let receivers = [RECEIVER, FIRST].into_iter().take(1 + usize::from(first));
        let named = params
            .iter()
            .cloned()
            .chain(receivers.clone().map(str::to_string))
            .collect();
        let types = declared
            .iter()
            .cloned()
            .chain(receivers.map(|name| {
                if name == RECEIVER {
                    string.clone()
                } else {
                    Type::Int
                }
            }))
            .collect();
        (named, types)
    } else {
        (params.clone(), declared.clone())
    };
    let names = Names {
        params: &named,
        declared: &types,
    };
    let allocations = entry
        .allocates
        .iter()
        .map(|a| allocation(a, &names))
        .collect::<Result<Vec<_>, String>>()?;
    let calls = entry
        .calls
        .iter()
        .map(|c| {
            let (class, name, descriptor) = split_method(&c.method)?;
            let descriptor =
                descriptor.ok_or_else(|| format!("the call {} needs a descriptor", c.method))?;
            let times = c
                .times
                .as_ref()
                .map(|t| names.expr(&t.text()))
                .transpose()?;
            Ok(SpecCall {
                method: MethodRef::new(class, &name, &descriptor),
                times,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let returns = match entry.returns.as_deref() {
        None => Vec::new(),
        Some(text) => vec![names.holder(text)?],
    };
    let stores = entry
        .stores
        .map(|list| {
            list.iter()
                .map(|s| {
                    Ok(Store {
                        value: names.argument(&s.value)?,
                        into: names.argument(&s.into)?,
                    })
                })
                .collect::<Result<Vec<_>, String>>()
        })
        .transpose()?;
    let receiver_first = first && names_receiver(&allocations, &calls, FIRST);
    let receiver_length =
        receiver && (receiver_first || names_receiver(&allocations, &calls, RECEIVER));
    Ok(MethodSpec {
        class,
        name,
        descriptor,
        source: source.clone(),
        params,
        receiver_length,
        receiver_first,
        allocations,
        calls,
        returns,
        stores,
        writes_fields: entry.writes_fields,
        ends_program: entry.ends_program,
        assumption: entry.assumption,
        covers: None,
    })
}

/// An entry with `covers`: the JDK classes a call of an interface method may reach when its
/// receiver was created out of sight. It states nothing else (its classes' methods do).
fn interface_spec(entry: Entry, source: &SpecSource) -> Result<MethodSpec, String> {
    let (class, name, descriptor) = split_method(&entry.method)?;
    let descriptor = descriptor.ok_or("an interface spec (`covers`) needs a descriptor")?;
    declared_params(&descriptor).map_err(|e| format!("bad descriptor {descriptor}: {e}"))?;
    let states_more = entry.params.is_some()
        || !entry.allocates.is_empty()
        || !entry.calls.is_empty()
        || entry.returns.is_some()
        || entry.stores.is_some()
        || entry.writes_fields
        || entry.ends_program;
    if states_more {
        return Err(
            "an interface spec (`covers`) states only the classes it covers and an \
                    assumption: what they allocate is their own methods' business"
                .to_string(),
        );
    }
    let covers = entry
        .covers
        .unwrap_or_default()
        .iter()
        .map(|text| match source_type(text)? {
            Type::Ref(class) => Ok(class),
            other => Err(format!("`covers` lists classes; {other} is not one")),
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(MethodSpec {
        class,
        name,
        descriptor: Some(descriptor),
        source: source.clone(),
        params: Vec::new(),
        receiver_length: false,
        receiver_first: false,
        allocations: Vec::new(),
        calls: Vec::new(),
        returns: Vec::new(),
        stores: Some(Vec::new()),
        writes_fields: false,
        ends_program: false,
        assumption: entry.assumption,
        covers: Some(covers),
    })
}

/// The name a `String` method's spec gives its receiver's length (a stream's, its size).
const RECEIVER: &str = "this";

/// The name an `IntStream`'s spec gives its first element.
const FIRST: &str = "first";

const STRING: &str = "java/lang/String";
const BUILDER: &str = "java/lang/StringBuilder";

/// Whether an expression or a condition names the receiver's `name` (`this`, `first`).
fn names_receiver(allocations: &[SpecAllocation], calls: &[SpecCall], name: &str) -> bool {
    let exprs = allocations
        .iter()
        .flat_map(|a| [a.count.as_ref(), a.length.as_ref()])
        .chain(calls.iter().map(|c| c.times.as_ref()))
        .flatten()
        .map(|e| e.text.as_str());
    let conditions = allocations
        .iter()
        .filter_map(|a| a.when.as_ref())
        .map(|c| c.text.as_str());
    exprs.chain(conditions).any(|text| mentions(text, name))
}

fn allocation(entry: &AllocationEntry, names: &Names<'_>) -> Result<SpecAllocation, String> {
    let ty = source_type(&entry.ty)?;
    let count = match entry
        .count
        .as_ref()
        .map_or("1".to_string(), Scalar::text)
        .as_str()
    {
        "unbounded" => None,
        text => Some(names.expr(text)?),
    };
    let length = match (&ty, &entry.length) {
        (Type::Array(_), Some(length)) => match length.text().as_str() {
            "unbounded" => None,
            text => Some(names.expr(text)?),
        },
        (Type::Array(_), None) => {
            return Err(format!(
                "the array {ty} needs a `length` (an expression, or `unbounded`)"
            ));
        }
        (_, Some(_)) => return Err(format!("{ty} is not an array: it has no `length`")),
        (_, None) => None,
    };
    let when = entry
        .when
        .as_deref()
        .map(|text| names.condition(text.trim()))
        .transpose()?;
    let escapes = match entry.escapes.as_deref() {
        None => Holder::Global,
        Some(text) => names.holder(text)?,
    };
    Ok(SpecAllocation {
        ty,
        count,
        length,
        when,
        escapes,
    })
}

/// How a spec entry names things.
struct Names<'a> {
    params: &'a [String],
    declared: &'a [Type],
}

impl Names<'_> {
    /// An affine expression over the numeric parameters.
    fn expr(&self, text: &str) -> Result<SpecExpr, String> {
        self.only_numeric(text)?;
        let set = format!(
            "[{}] -> {{ [spec_value] : spec_value = {text} }}",
            self.params.join(", ")
        );
        let parsed = parse_set(&set).map_err(|e| format!("bad expression `{text}`: {e}"))?;
        let column = self.params.len();
        let affine = match parsed.parts.as_slice() {
            [basic] if basic.locals.is_empty() => basic.constraints.iter().find_map(|c| {
                let coeff = c.expr.coeff(column);
                let factor = coeff.recip().filter(|_| c.is_equality())?;
                let mut rest = c.expr.clone();
                rest.set_coeff(column, Rat::zero());
                Some(rest.scale(&-factor))
            }),
            _ => None,
        };
        let affine: Affine = affine
            .ok_or_else(|| format!("`{text}` is not an affine expression of the parameters"))?;
        Ok(SpecExpr {
            text: text.to_string(),
            affine,
        })
    }

    /// A condition over the numeric parameters: affine comparisons joined by `and` and `or`
    /// (isl's syntax: `i <= -129 or i >= 128`, `0 <= c <= 127`).
    fn condition(&self, text: &str) -> Result<SpecCondition, String> {
        self.only_numeric(text)?;
        let set = format!("[{}] -> {{ [] : {text} }}", self.params.join(", "));
        let parsed = parse_set(&set).map_err(|e| format!("bad condition `{text}`: {e}"))?;
        let alternatives = parsed
            .parts
            .iter()
            .map(|part| {
                // A division or `mod` would need existential variables the lowering does not
                // give a spec's guards.
                part.locals
                    .is_empty()
                    .then(|| part.constraints.clone())
                    .ok_or_else(|| {
                        format!("`{text}` is not made of affine comparisons of the parameters")
                    })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(SpecCondition {
            text: text.to_string(),
            alternatives,
        })
    }

    /// Fails when `text` names a parameter without an integer value (a `String` stands for
    /// its length, as an array does).
    fn only_numeric(&self, text: &str) -> Result<(), String> {
        let string = Type::Ref(ClassName::new(STRING));
        let collector = Type::Ref(ClassName::new(super::COLLECTOR));
        match self.params.iter().zip(self.declared).find(|(name, ty)| {
            ty.numeric_measure().is_none()
                && **ty != string
                && **ty != collector
                && mentions(text, name)
        }) {
            Some((name, ty)) => Err(format!(
                "`{text}`: parameter {name} is a {ty}, which has no integer value"
            )),
            None => Ok(()),
        }
    }

    /// `this`, a parameter name, `returned`, `captured` or `global`.
    fn holder(&self, text: &str) -> Result<Holder, String> {
        match text {
            "returned" | "fresh" => Ok(Holder::Returned),
            "captured" => Ok(Holder::Captured),
            "global" | "unknown" => Ok(Holder::Global),
            other => {
                let name = other.strip_prefix("into ").unwrap_or(other);
                self.argument(name).map(Holder::Argument)
            }
        }
    }

    /// `this` or a reference parameter.
    fn argument(&self, name: &str) -> Result<Arg, String> {
        if name == "this" {
            return Ok(Arg::This);
        }
        let index = self
            .params
            .iter()
            .position(|p| p == name)
            .ok_or_else(|| format!("`{name}` is not `this` or a parameter of the spec"))?;
        if !self.declared[index].is_reference() {
            return Err(format!("parameter {name} is not a reference"));
        }
        Ok(Arg::Param(index))
    }
}

/// `pkg.Class.name(desc)` or `pkg.Class.name` → class, name, descriptor.
fn split_method(text: &str) -> Result<(ClassName, String, Option<String>), String> {
    let selector =
        membound_jvm::selector::Selector::parse(text.trim()).map_err(|e| e.to_string())?;
    let descriptor = match selector.params {
        membound_jvm::selector::Params::Any => None,
        membound_jvm::selector::Params::Descriptor(descriptor) => Some(descriptor),
        membound_jvm::selector::Params::Java { .. } => {
            return Err(format!(
                "`{}`: a spec names its method with a descriptor, `pkg.C.m(I)V`",
                text.trim()
            ));
        }
    };
    Ok((
        ClassName::from_source(&selector.class),
        selector.name,
        descriptor,
    ))
}

/// `int`, `java.lang.String`, `byte[]`, `java.lang.Object[][]`.
fn source_type(text: &str) -> Result<Type, String> {
    let text = text.trim();
    if let Some(element) = text.strip_suffix("[]") {
        return source_type(element).map(Type::array_of);
    }
    Ok(match text {
        "boolean" => Type::Boolean,
        "byte" => Type::Byte,
        "char" => Type::Char,
        "short" => Type::Short,
        "int" => Type::Int,
        "long" => Type::Long,
        "float" => Type::Float,
        "double" => Type::Double,
        class if !class.is_empty() && class.split('.').all(is_class_part) => {
            Type::Ref(ClassName::from_source(class))
        }
        _ => return Err(format!("`{text}` is not a type")),
    })
}

/// A Java identifier (class and package names; `$` separates nested classes).
fn is_class_part(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// Whether `name` occurs in `text` as a whole identifier.
fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|word| word == name)
}

//! What one local site allocates per call of its own method: how often it runs (the integer
//! points of its invariant), and its objects and bytes by the object model. An object costs its
//! instance size per execution; an array allocation of `k` given dimensions creates, at level
//! `j`, one array per cell of the levels above, each of the length given for level `j`, so its
//! objects and bytes are counts of sets extended with one cell column per outer level and, for
//! bytes, one column per aligned size unit (which makes an array's aligned size an exact
//! quasi-polynomial in its length), the length columns then projected out so that an execution
//! counts its largest possible array, not the sum over its possible lengths. In the `count`
//! model an array counts the cells of its given dimensions, as the thesis does.

use membound_front::program::Program;
use membound_front::sizes::ObjectModel;
use membound_jvm::{ClassName, Type};
use membound_polyhedra::{Affine, Constraint, Int, Rat, Set};

use super::qty::Qty;
use crate::lowering::{Lowered, SiteInvariant, counter_head, describe_loop};
use crate::memalloc::quantity::{at_least, at_most, extend_set};
use crate::sites::{
    AllocationKind, ConcatShape, FormatShape, FormatText, LOCALE_DATA_OBJECTS, LocalSite,
    TextAllocation, TextObject, float_text, locale_data_bytes,
};

/// Executions, objects and bytes of one local site per call of its method, with why any is ∞.
#[derive(Clone, Debug)]
pub struct LocalAmount {
    pub count: Qty,
    pub objects: Qty,
    pub bytes: Qty,
    pub reasons: Vec<String>,
}

/// The amounts of `site` (a site of a method `lowered` holds) under `model`.
pub fn local_amount(
    program: &Program,
    lowered: &Lowered,
    model: ObjectModel,
    params: &[String],
    site: &LocalSite,
) -> LocalAmount {
    let mut reasons = Vec::new();
    let infinite = |reasons: Vec<String>| LocalAmount {
        count: Qty::Inf,
        objects: Qty::Inf,
        bytes: Qty::Inf,
        reasons,
    };
    let invariant = match lowered.local_invariant(&site.method, site.pc) {
        Ok(invariant) => invariant,
        Err(error) => return infinite(vec![error.to_string()]),
    };
    let mut count = |set: &Set| match Qty::count_of(set) {
        Ok(qty) => qty,
        Err(error) => {
            reasons.push(format!("not counted exactly: {error}"));
            Qty::Inf
        }
    };
    let executions_set = invariant.executions_set().to_set();
    let executions = match site.allocation.kind {
        AllocationKind::FormatLocaleData => at_most_once(&executions_set, params),
        _ => count(&executions_set),
    };
    let amounts = match &site.allocation.kind {
        AllocationKind::Object | AllocationKind::ConstructorReference => {
            object_amount(program, model, &site.allocation.ty, &executions)
        }
        AllocationKind::CapturingLambda(captures) => {
            let size = model.captured_size(&captures.types());
            Ok((
                executions.clone(),
                executions.scale(&Rat::from(Int::from(size))),
            ))
        }
        AllocationKind::Array => array_amount(
            model,
            &site.allocation.ty,
            &invariant,
            &executions,
            &mut count,
        ),
        AllocationKind::StringConcat(shape) if text_length_column(*shape, &invariant) => {
            let amounts = string_and_bytes(program, model, &invariant, &executions, &mut count)
                .and_then(|amounts| with_float_texts(program, model, *shape, &executions, amounts));
            if matches!(&amounts, Ok((_, bytes)) if bytes.is_infinite()) {
                reasons.extend(concat_reasons(*shape));
            }
            amounts
        }
        AllocationKind::StringConcat(shape) => {
            reasons.extend(concat_reasons(*shape));
            concat_amount(program, model, *shape, &executions, params)
                .and_then(|amounts| with_float_texts(program, model, *shape, &executions, amounts))
        }
        AllocationKind::Format(FormatShape::Text(text)) if invariant.lengths.len() == 1 => {
            let amounts =
                format_text_amount(program, model, text, &invariant, &executions, &mut count);
            if matches!(&amounts, Ok((_, bytes)) if bytes.is_infinite()) {
                reasons.push(text.why_bytes.clone());
            }
            amounts
        }
        AllocationKind::Format(shape) => {
            format_amount(program, model, shape, &executions, params, &mut reasons)
        }
        AllocationKind::FormatLocaleData => Ok((
            executions.scale(&Rat::from(Int::from(LOCALE_DATA_OBJECTS))),
            executions.scale(&Rat::from(Int::from(locale_data_bytes(model)))),
        )),
    };
    let (objects, bytes) = amounts.unwrap_or_else(|error| {
        reasons.push(error.to_string());
        (Qty::Inf, Qty::Inf)
    });
    if reasons.is_empty() {
        if executions.is_infinite() {
            let loops = unbounded_loops(program, lowered, site, &invariant);
            reasons.push(if loops.is_empty() {
                "its executions are not bounded by the parameters (a data-dependent loop, or a loop bound the lowering cannot express)"
                    .to_string()
            } else {
                format!(
                    "its executions are not bounded by the parameters: {}",
                    loops.join("; ")
                )
            });
        } else if objects.is_infinite() || bytes.is_infinite() {
            reasons.push(unbounded_lengths(site, &invariant));
        }
    }
    LocalAmount {
        count: executions,
        objects,
        bytes,
        reasons,
    }
}

/// A site that runs at most once per run (the locale's number data, loaded by its first use):
/// once for the parameters where the call may run, however often (even where that is not
/// bounded), none elsewhere: the points of the executions' shadow on the parameters (which
/// may hold more parameters than the executions, never fewer), or once everywhere when that
/// cannot be counted.
fn at_most_once(executions: &Set, params: &[String]) -> Qty {
    let dims: Vec<&str> = executions.space.dims.iter().map(String::as_str).collect();
    Qty::count_of(&executions.project_out_dims(&dims))
        .unwrap_or_else(|_| Qty::constant(params, Rat::from(Int::from(1))))
}

/// The loops around `site` whose counters its invariant leaves without an upper bound, each
/// with the tests that leave it (see [`describe_loop`]), then why the method's cursors are not
/// followed, if they are not.
fn unbounded_loops(
    program: &Program,
    lowered: &Lowered,
    site: &LocalSite,
    invariant: &SiteInvariant,
) -> Vec<String> {
    let Ok(body) = program.body(&site.method) else {
        return Vec::new();
    };
    let executions = invariant.executions_set();
    let mut loops: Vec<String> = invariant
        .executions
        .iter()
        .filter(|counter| !executions.bounds_above(counter))
        .filter_map(|counter| counter_head(counter))
        .filter_map(|pc| describe_loop(&site.method, &body, pc))
        .collect();
    if !loops.is_empty() {
        loops.extend(lowered.unfollowed_walks(&site.method).iter().cloned());
    }
    loops
}

/// Why an array site that runs a bounded number of times has ∞ objects or bytes: the array,
/// where it is made, and each dimension its invariant leaves without an upper bound, by its
/// source text (the variable, field or call result it is given), or the spec that bounds none.
fn unbounded_lengths(site: &LocalSite, invariant: &SiteInvariant) -> String {
    let line = site
        .line
        .map_or_else(String::new, |line| format!(" (line {line})"));
    let array = format!(
        "the {} made at {}@{}{line}",
        site.allocation.ty, site.method, site.pc
    );
    let unbounded: Vec<&str> = invariant
        .lengths
        .iter()
        .zip(&site.allocation.dims)
        .filter(|(column, _)| !invariant.set.bounds_above(column))
        .map(|(_, dim)| dim.as_str())
        .collect();
    match unbounded.as_slice() {
        [] => format!("{array}: its lengths are not bounded by the parameters"),
        ["unbounded"] => format!("{array}: its spec states no bound on its length"),
        [dim] => format!("{array}: its length `{dim}` is not bounded by the parameters"),
        dims => format!(
            "{array}: its lengths `{}` are not bounded by the parameters",
            dims.join("`, `")
        ),
    }
}

type Amounts = membound_jvm::error::Result<(Qty, Qty)>;

fn object_amount(program: &Program, model: ObjectModel, ty: &Type, executions: &Qty) -> Amounts {
    let Type::Ref(class) = ty else {
        return Err(membound_jvm::error::Error::Input(format!(
            "an object allocation of non-class type {ty}"
        )));
    };
    let size = model.instance_size(program, class)?;
    Ok((
        executions.clone(),
        executions.scale(&Rat::from(Int::from(size))),
    ))
}

/// A concatenation's `String` and `byte[]` per execution (see [`ConcatShape`]): its objects
/// are bounded when no argument is an object, its bytes when the text's length is bounded too.
fn concat_amount(
    program: &Program,
    model: ObjectModel,
    shape: ConcatShape,
    executions: &Qty,
    params: &[String],
) -> Amounts {
    if !shape.texts_known {
        return Ok((Qty::Inf, Qty::Inf));
    }
    let objects = executions.scale(&Rat::from(2));
    let bytes = match shape.max_bytes {
        Some(length) => {
            let string = model.instance_size(program, &ClassName::new("java/lang/String"))?;
            let array = model.array_layout(&Type::Byte).size(length);
            executions.scale(&Rat::from(Int::from(string + array)))
        }
        None if executions.is_zero() => Qty::zero(params),
        None => Qty::Inf,
    };
    Ok((objects, bytes))
}

/// Whether the lowering gave a concatenation whose `String` arguments make its text the
/// length of its bytes, as an array's (`lowering::body`'s `call_point`).
fn text_length_column(shape: ConcatShape, invariant: &SiteInvariant) -> bool {
    shape.texts_known && shape.max_bytes.is_none() && invariant.lengths.len() == 1
}

/// `amounts` and, per execution, what making each `float` and `double` argument text
/// allocates ([`float_text`]).
fn with_float_texts(
    program: &Program,
    model: ObjectModel,
    shape: ConcatShape,
    executions: &Qty,
    (objects, bytes): (Qty, Qty),
) -> Amounts {
    if shape.float_texts == 0 {
        return Ok((objects, bytes));
    }
    let (text_objects, text_bytes) = objects_and_bytes(program, model, &float_text())?;
    let texts = u64::from(shape.float_texts);
    Ok((
        objects.add(&executions.scale(&Rat::from(Int::from(texts * text_objects)))),
        bytes.add(&executions.scale(&Rat::from(Int::from(texts * text_bytes)))),
    ))
}

/// How many objects `allocations` are, and their bytes under `model`.
fn objects_and_bytes(
    program: &Program,
    model: ObjectModel,
    allocations: &[TextAllocation],
) -> membound_jvm::error::Result<(u64, u64)> {
    let mut objects: u64 = 0;
    let mut bytes: u64 = 0;
    for allocation in allocations {
        let size = match &allocation.object {
            TextObject::Array { element, length } => model.array_layout(element).size(*length),
            TextObject::Instance(class) => model.instance_size(program, &ClassName::new(class))?,
        };
        objects += allocation.count;
        bytes += allocation.count * size;
    }
    Ok((objects, bytes))
}

/// A format call's objects and bytes per execution (see [`FormatShape`]): what is not bounded
/// is ∞, with its reason, where the call runs at all.
fn format_amount(
    program: &Program,
    model: ObjectModel,
    shape: &FormatShape,
    executions: &Qty,
    params: &[String],
    reasons: &mut Vec<String>,
) -> Amounts {
    let per_call = |n: u64| executions.scale(&Rat::from(Int::from(n)));
    let unless_never = |reasons: &mut Vec<String>, why: &str| {
        if executions.is_zero() {
            Qty::zero(params)
        } else {
            reasons.push(why.to_string());
            Qty::Inf
        }
    };
    Ok(match shape {
        FormatShape::Bounded(allocations) => {
            let (objects, bytes) = objects_and_bytes(program, model, allocations)?;
            (per_call(objects), per_call(bytes))
        }
        FormatShape::Text(text) => {
            let (objects, _) = objects_and_bytes(program, model, &text.allocations)?;
            (per_call(objects), unless_never(reasons, &text.why_bytes))
        }
        FormatShape::Unbounded(why) => {
            let objects = unless_never(reasons, why);
            (objects, unless_never(&mut Vec::new(), why))
        }
    })
}

/// A format call whose text's length the lowering gave as an array's (`lowering::body`'s
/// `call_point`): its allocations per execution, and the payload of the arrays the text sets
/// as one `byte[]` of that length.
fn format_text_amount(
    program: &Program,
    model: ObjectModel,
    text: &FormatText,
    invariant: &SiteInvariant,
    executions: &Qty,
    count: &mut dyn FnMut(&Set) -> Qty,
) -> Amounts {
    let (objects, bytes) = objects_and_bytes(program, model, &text.allocations)?;
    let bytes_type = Type::Array(Box::new(Type::Byte));
    let (_, payload) = array_amount(model, &bytes_type, invariant, executions, count)?;
    let per_call = |n: u64| executions.scale(&Rat::from(Int::from(n)));
    Ok((per_call(objects), per_call(bytes).add(&payload)))
}

/// A concatenation's `String` per execution and its `byte[]` of the length the invariant
/// tells: ∞ bytes where the strings' lengths are not bounded by the parameters.
fn string_and_bytes(
    program: &Program,
    model: ObjectModel,
    invariant: &SiteInvariant,
    executions: &Qty,
    count: &mut dyn FnMut(&Set) -> Qty,
) -> Amounts {
    let string = Type::Ref(ClassName::new("java/lang/String"));
    let (strings, string_bytes) = object_amount(program, model, &string, executions)?;
    let bytes_type = Type::Array(Box::new(Type::Byte));
    let (arrays, array_bytes) = array_amount(model, &bytes_type, invariant, executions, count)?;
    Ok((strings.add(&arrays), string_bytes.add(&array_bytes)))
}

/// Why a concatenation's quantities are ∞, if they are.
fn concat_reasons(shape: ConcatShape) -> Option<String> {
    if !shape.texts_known {
        Some(
            "string concatenation of an object: the text its toString makes is not analyzed"
                .to_string(),
        )
    } else if shape.max_bytes.is_none() {
        Some(
            "string concatenation of a String: its length is not bounded by the parameters"
                .to_string(),
        )
    } else {
        None
    }
}

/// Objects and bytes of an array allocation (see the module documentation): level `j` has one
/// array per cell of the levels above it, so level 0 is one array per execution.
fn array_amount(
    model: ObjectModel,
    ty: &Type,
    invariant: &SiteInvariant,
    executions: &Qty,
    count: &mut dyn FnMut(&Set) -> Qty,
) -> Amounts {
    let set = invariant.set.to_set();
    let first_length = set.space.params.len() + invariant.executions.len();
    let levels = invariant.lengths.len();
    let cells = |upto: usize| -> (Vec<String>, Vec<Constraint>) {
        let names = (0..upto).map(|j| format!("cell_{}", j + 1)).collect();
        let base = set.space.params.len() + set.space.dims.len();
        let constraints = (0..upto)
            .flat_map(|j| {
                [
                    at_least(base + j, 1),
                    at_most(base + j, &Affine::var(first_length + j)),
                ]
            })
            .collect();
        (names, constraints)
    };
    // One execution allocates with one tuple of lengths: counting the cells and units with the
    // lengths as columns would add up every tuple the invariant allows for it (quadratic in the
    // length when only its bounds are known). With the lengths projected out, an execution
    // counts the cells and units some tuple reaches: at least those of its own tuple, exactly
    // those where the lengths are a function of the execution.
    let length_columns: Vec<&str> = invariant.lengths.iter().map(String::as_str).collect();
    let mut per_execution = |names: &[String], constraints: &[Constraint]| {
        count(&extend_set(&set, names, constraints).project_out_dims(&length_columns))
    };
    let mut objects = executions.clone();
    for level in 1..levels {
        let (names, constraints) = cells(level);
        objects = objects.add(&per_execution(&names, &constraints));
    }
    if model == ObjectModel::Count {
        let (names, constraints) = cells(levels);
        let units = per_execution(&names, &constraints);
        return Ok((objects, units));
    }
    let mut bytes = Qty::zero(&set.space.params);
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
        constraints.push(at_least(unit, 1));
        constraints.push(Constraint::ge(
            available.sub(&Affine::var(unit).scale(&Rat::from(align))),
        ));
        let units = per_execution(&names, &constraints);
        bytes = bytes.add(&units.scale(&Rat::from(align)));
        level_type = element;
    }
    Ok((objects, bytes))
}

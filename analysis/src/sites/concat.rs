//! What a string concatenation (`invokedynamic` to `StringConcatFactory`) allocates, read from
//! its argument types and its recipe's constants.
//!
//! JDK 17's concatenation strategy sizes the result first and allocates two objects, the
//! `String` and its `byte[]`, once every argument is text. Strings and the primitives other than
//! `float` and `double` become text without allocating. A `float` or a `double` is first made a
//! `String` by `String.valueOf` (`FloatingDecimal`'s conversion, [`float_text`]); an object goes
//! through its `toString`, code the call graph does not follow. The array's length is the
//! text's: at most 11 chars for an `int`, 20 for a `long`, 26 for a `float` or a `double`, … and,
//! with compact strings, one byte per char unless a char outside Latin-1 (a `char` argument, a
//! constant) makes it two. A `String` argument adds its length, or four for `null`
//! ([`concat_text`]), and then two bytes per char, since it may be UTF-16: the lowering gives
//! such a site its bytes' length as an array's.

use membound_jvm::{ClassName, MethodDescriptor, Type};

/// The allocations of one concatenation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConcatShape {
    /// No argument is an object, whose text its `toString` makes: the concatenation allocates
    /// its `String`, that `String`'s `byte[]` and what its `float_texts` make, nothing else.
    pub texts_known: bool,
    /// How many `float` and `double` arguments it makes a `String` of first ([`float_text`]).
    pub float_texts: u32,
    /// The longest `byte[]` it can need; `None` when a `String` argument (or a constant the
    /// recipe does not show) makes it unbounded.
    pub max_bytes: Option<u64>,
}

/// The recipe's marks: an argument, and a constant passed to the bootstrap method.
const ARGUMENT: char = '\u{1}';
const CONSTANT: char = '\u{2}';

/// The shape of a concatenation with this call-site descriptor and recipe (`None`: every
/// argument, no constant, as `makeConcat` does).
pub fn concat_shape(descriptor: &str, recipe: Option<&str>) -> ConcatShape {
    let Ok(descriptor) = MethodDescriptor::parse(descriptor) else {
        return ConcatShape {
            texts_known: false,
            float_texts: 0,
            max_bytes: None,
        };
    };
    let string = Type::Ref(ClassName::new("java/lang/String"));
    let texts_known = descriptor
        .params
        .iter()
        .all(|ty| *ty == string || !ty.is_reference());
    let float_texts = descriptor
        .params
        .iter()
        .filter(|ty| matches!(ty, Type::Float | Type::Double))
        .count() as u32;
    let mut chars: u64 = 0;
    let mut latin1 = true;
    let mut bounded = true;
    for ty in &descriptor.params {
        match max_chars(ty) {
            Some(n) => chars += n,
            None => bounded = false,
        }
        latin1 &= *ty != Type::Char;
    }
    for c in recipe.unwrap_or_default().chars() {
        match c {
            ARGUMENT => {}
            CONSTANT => bounded = false,
            c => {
                chars += 1;
                latin1 &= u32::from(c) <= 0xFF;
            }
        }
    }
    ConcatShape {
        texts_known,
        float_texts,
        max_bytes: bounded.then_some(if latin1 { chars } else { 2 * chars }),
    }
}

/// The text of a concatenation whose `String` arguments make its length unbounded by the
/// types alone: at most `fixed_chars` besides those arguments' own chars.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConcatText {
    /// The recipe's constant chars, the longest text of every primitive argument, and four
    /// chars per `String` argument: a null one is written `null`, which its length (a view of
    /// a string, which a null is not) does not count.
    pub fixed_chars: u64,
    /// The positions of the `String` arguments among the call's arguments.
    pub strings: Vec<usize>,
}

/// The chars of a null `String`'s text, `null`.
const NULL_CHARS: u64 = 4;

/// Two bytes per char: a `String` argument may be UTF-16, and then the whole text is.
pub const CONCAT_BYTES_PER_CHAR: i64 = 2;

/// The text of a concatenation that allocates its two objects and takes `String` arguments,
/// when nothing else leaves its length unknown (a constant the recipe only names).
pub fn concat_text(descriptor: &str, recipe: Option<&str>) -> Option<ConcatText> {
    let descriptor = MethodDescriptor::parse(descriptor).ok()?;
    let string = Type::Ref(ClassName::new("java/lang/String"));
    let mut fixed_chars = 0;
    let mut strings = Vec::new();
    for (index, ty) in descriptor.params.iter().enumerate() {
        match max_chars(ty) {
            Some(n) => fixed_chars += n,
            None if *ty == string => {
                fixed_chars += NULL_CHARS;
                strings.push(index);
            }
            None => return None,
        }
    }
    for c in recipe.unwrap_or_default().chars() {
        match c {
            ARGUMENT => {}
            CONSTANT => return None,
            _ => fixed_chars += 1,
        }
    }
    (!strings.is_empty()).then_some(ConcatText {
        fixed_chars,
        strings,
    })
}

/// The longest text of a value of this type, when bounded.
fn max_chars(ty: &Type) -> Option<u64> {
    match ty {
        Type::Boolean => Some(5),
        Type::Byte => Some(4),
        Type::Short => Some(6),
        Type::Char => Some(1),
        Type::Int => Some(11),
        Type::Long => Some(20),
        Type::Float | Type::Double => Some(FLOAT_TEXT_CHARS),
        Type::Ref(_) | Type::Array(_) => None,
    }
}

/// The longest text of a `float` or a `double` in JDK 17: `FloatingDecimal` writes every one
/// into its thread's `char[26]` buffer (`BinaryToASCIIBuffer.getChars`), all Latin-1. (The
/// longest seen, `-1.2345678901234567E-300`, has 24.)
pub const FLOAT_TEXT_CHARS: u64 = 26;

/// One kind of object a `float`'s or a `double`'s text makes, and at most how many per text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextAllocation {
    pub object: TextObject,
    pub count: u64,
}

/// An instance of a class (named as the JVM does) or an array of a given length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextObject {
    Instance(&'static str),
    Array { element: Type, length: u64 },
}

/// What `String.valueOf(double)` (and `float`) allocates at most when it returns, read from
/// JDK 17's `FloatingDecimal` (the bundled specs of `Double.toString` and its kin charge the
/// same; a test keeps them equal). The text: a `String` and its Latin-1 `byte[]` of at most 26
/// chars. The thread's `BinaryToASCIIBuffer` (its `char[20]` digits and `char[26]` buffer) and
/// its `ThreadLocalMap` entry, made at the thread's first conversion, charged to every one, with
/// the map itself and its first table (a `ThreadLocalMap$Entry[16]`), which a thread without
/// thread-local values yet makes then (the main thread, measured).
/// And `dtoa`'s big-integer path, taken where the digits do not fit a `long`: the starting
/// values `S` (made and normalized), `B`, `M` and `10S` and the first comparison of `B + M`
/// with `10S` (at most 5 `FDBigInteger`s and 7 `int[]`s), then per further digit (at most 20,
/// the digits' array) `M`'s multiplication by 10 (one grown `int[]`) and the comparison (one
/// sum: an `FDBigInteger` and its `int[]`), and a last shift of `B` (one of each): 26
/// `FDBigInteger`s and 48 `int[]`s. No value it computes reaches 2^1024 (at most 860 bits:
/// `5^326 < 2^758` times the significand's 53 bits, shifts below a word and `M`'s factor
/// `10^21`), 32 words, and an array is at most two words longer than its value: `int[34]`.
/// The most a run over every binary exponent measured is 728 bytes per conversion; this
/// bound, about 9 KB, is what reading the code proves.
pub fn float_text() -> [TextAllocation; 10] {
    let entry = || Type::Ref(ClassName::new("java/lang/ThreadLocal$ThreadLocalMap$Entry"));
    [
        instance("java/lang/String", 1),
        array(Type::Byte, FLOAT_TEXT_CHARS, 1),
        instance("jdk/internal/math/FloatingDecimal$BinaryToASCIIBuffer", 1),
        array(Type::Char, 20, 1),
        array(Type::Char, 26, 1),
        instance("java/lang/ThreadLocal$ThreadLocalMap$Entry", 1),
        instance("java/lang/ThreadLocal$ThreadLocalMap", 1),
        array(entry(), 16, 1),
        instance("jdk/internal/math/FDBigInteger", 26),
        array(Type::Int, 34, 48),
    ]
}

/// `count` instances of `class`.
pub(super) fn instance(class: &'static str, count: u64) -> TextAllocation {
    TextAllocation {
        object: TextObject::Instance(class),
        count,
    }
}

/// `count` arrays of `length` elements.
pub(super) fn array(element: Type, length: u64, count: u64) -> TextAllocation {
    TextAllocation {
        object: TextObject::Array { element, length },
        count,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use membound_front::specs::{SpecAllocation, Specs};
    use membound_jvm::MethodRef;
    use membound_polyhedra::Int;

    /// An allocation as (type, constant length, constant count).
    fn charged(allocation: &SpecAllocation) -> (Type, Option<Int>, Option<Int>) {
        let constant = |expr: &membound_front::specs::SpecExpr| expr.integer_form(0).1;
        (
            allocation.ty.clone(),
            allocation.length.as_ref().map(constant),
            allocation.count.as_ref().map(constant),
        )
    }

    fn float_text_charges() -> Vec<(Type, Option<Int>, Option<Int>)> {
        float_text()
            .iter()
            .map(|allocation| match &allocation.object {
                TextObject::Instance(class) => (
                    Type::Ref(ClassName::new(class)),
                    None,
                    Some(Int::from(allocation.count)),
                ),
                TextObject::Array { element, length } => (
                    Type::Array(Box::new(element.clone())),
                    Some(Int::from(*length)),
                    Some(Int::from(allocation.count)),
                ),
            })
            .collect()
    }

    #[test]
    fn the_bundled_specs_charge_a_float_text_as_concatenations_do() {
        let specs = Specs::bundled();
        let spec = |class: &str, name: &str, descriptor: &str| {
            let method = MethodRef::new(ClassName::from_source(class), name, descriptor);
            specs.find(&method).expect("a bundled spec").clone()
        };
        for (class, name, descriptor) in [
            ("java.lang.Double", "toString", "(D)Ljava/lang/String;"),
            ("java.lang.Float", "toString", "(F)Ljava/lang/String;"),
            ("java.lang.String", "valueOf", "(D)Ljava/lang/String;"),
            ("java.lang.String", "valueOf", "(F)Ljava/lang/String;"),
        ] {
            let charges: Vec<_> = spec(class, name, descriptor)
                .allocations
                .iter()
                .map(charged)
                .collect();
            assert_eq!(charges, float_text_charges(), "{class}.{name}{descriptor}");
        }
        // Appending makes no String: the chars are charged as a builder's appended chars.
        for descriptor in [
            "(D)Ljava/lang/StringBuilder;",
            "(F)Ljava/lang/StringBuilder;",
        ] {
            let charges: Vec<_> = spec("java.lang.StringBuilder", "append", descriptor)
                .allocations
                .iter()
                .map(charged)
                .collect();
            let appended = (
                Type::Array(Box::new(Type::Byte)),
                Some(Int::from(4)),
                Some(Int::from(FLOAT_TEXT_CHARS)),
            );
            assert_eq!(charges[0], appended);
            assert_eq!(
                charges[1..],
                float_text_charges()[2..],
                "append{descriptor}"
            );
        }
    }

    #[test]
    fn primitives_and_constants_bound_the_text() {
        // "ab" + int + 'x' as javac writes it: the char is an argument.
        let shape = concat_shape("(IC)Ljava/lang/String;", Some("ab\u{1}\u{1}"));
        assert_eq!(
            shape,
            ConcatShape {
                texts_known: true,
                float_texts: 0,
                max_bytes: Some(2 * (2 + 11 + 1)),
            }
        );
        let shape = concat_shape("(JZ)Ljava/lang/String;", Some("n=\u{1}, ok=\u{1}"));
        assert_eq!(shape.max_bytes, Some(7 + 20 + 5));
        // A constant outside Latin-1 makes the text UTF-16.
        let shape = concat_shape("(I)Ljava/lang/String;", Some("€\u{1}"));
        assert_eq!(shape.max_bytes, Some(2 * 12));
    }

    #[test]
    fn strings_are_unbounded_and_objects_allocate() {
        let shape = concat_shape("(Ljava/lang/String;I)Ljava/lang/String;", None);
        assert_eq!(
            shape,
            ConcatShape {
                texts_known: true,
                float_texts: 0,
                max_bytes: None,
            }
        );
        let shape = concat_shape("(Ljava/lang/Object;)Ljava/lang/String;", None);
        assert!(!shape.texts_known);
        let shape = concat_shape("(I)Ljava/lang/String;", Some("\u{2}\u{1}"));
        assert_eq!(shape.max_bytes, None);
    }

    #[test]
    fn floats_and_doubles_are_made_text_first() {
        // "x=" + double + ", y=" + float: 2 + 4 constant chars and 26 per number, Latin-1.
        let shape = concat_shape("(DF)Ljava/lang/String;", Some("x=\u{1}, y=\u{1}"));
        assert_eq!(
            shape,
            ConcatShape {
                texts_known: true,
                float_texts: 2,
                max_bytes: Some(6 + 2 * FLOAT_TEXT_CHARS),
            }
        );
    }

    #[test]
    fn strings_add_their_lengths_to_the_rest_of_the_text() {
        // "alloc " + String + " objects " + long: 6 + 9 constant chars, 20 for the long, and
        // the string's length or, for a null, 4.
        let text = concat_text(
            "(Ljava/lang/String;J)Ljava/lang/String;",
            Some("alloc \u{1} objects \u{1}"),
        );
        assert_eq!(
            text,
            Some(ConcatText {
                fixed_chars: 6 + 9 + 20 + 4,
                strings: vec![0],
            })
        );
        // Without a String argument the types bound the text; an object's text and a
        // constant the recipe only names leave it unknown.
        assert_eq!(concat_text("(IJ)Ljava/lang/String;", None), None);
        assert_eq!(
            concat_text("(Ljava/lang/String;D)Ljava/lang/String;", None),
            Some(ConcatText {
                fixed_chars: 4 + FLOAT_TEXT_CHARS,
                strings: vec![0],
            })
        );
        assert_eq!(
            concat_text(
                "(Ljava/lang/String;Ljava/lang/Object;)Ljava/lang/String;",
                None
            ),
            None
        );
        let constant = concat_text("(Ljava/lang/String;)Ljava/lang/String;", Some("\u{2}\u{1}"));
        assert_eq!(constant, None);
    }
}

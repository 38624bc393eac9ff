//! What a string concatenation (`invokedynamic` to `StringConcatFactory`) allocates, read from
//! its argument types and its recipe's constants.
//!
//! The JDK's concatenation strategy sizes the result first and allocates exactly two objects,
//! the `String` and its `byte[]`, when every argument turns into text without allocating:
//! strings and the primitives other than `float` and `double` (whose text is built by
//! `FloatingDecimal`). Objects go through their `toString`, code the call graph does not follow.
//! The array's length is the text's: at most 11 chars for an `int`, 20 for a `long`, … and, with
//! compact strings, one byte per char unless a char outside Latin-1 (a `char` argument, a
//! constant) makes it two. A `String` argument adds its length, or four for `null`
//! ([`concat_text`]), and then two bytes per char, since it may be UTF-16: the lowering gives
//! such a site its bytes' length as an array's.

use membound_jvm::{ClassName, MethodDescriptor, Type};

/// The allocations of one concatenation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConcatShape {
    /// Every argument becomes text without allocating: the concatenation allocates its
    /// `String` and that `String`'s `byte[]`, nothing else.
    pub two_objects: bool,
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
            two_objects: false,
            max_bytes: None,
        };
    };
    let string = Type::Ref(ClassName::new("java/lang/String"));
    let two_objects = descriptor.params.iter().all(|ty| {
        *ty == string || (!ty.is_reference() && !matches!(ty, Type::Float | Type::Double))
    });
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
        two_objects,
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
        Type::Float | Type::Double | Type::Ref(_) | Type::Array(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitives_and_constants_bound_the_text() {
        // "ab" + int + 'x' as javac writes it: the char is an argument.
        let shape = concat_shape("(IC)Ljava/lang/String;", Some("ab\u{1}\u{1}"));
        assert_eq!(
            shape,
            ConcatShape {
                two_objects: true,
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
                two_objects: true,
                max_bytes: None,
            }
        );
        let shape = concat_shape("(Ljava/lang/Object;)Ljava/lang/String;", None);
        assert!(!shape.two_objects);
        let shape = concat_shape("(D)Ljava/lang/String;", None);
        assert!(!shape.two_objects);
        let shape = concat_shape("(I)Ljava/lang/String;", Some("\u{2}\u{1}"));
        assert_eq!(shape.max_bytes, None);
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
        // Without a String argument the types bound the text; a double's or an object's text
        // and a constant the recipe only names leave it unknown.
        assert_eq!(concat_text("(IJ)Ljava/lang/String;", None), None);
        assert_eq!(
            concat_text("(Ljava/lang/String;D)Ljava/lang/String;", None),
            None
        );
        let constant = concat_text("(Ljava/lang/String;)Ljava/lang/String;", Some("\u{2}\u{1}"));
        assert_eq!(constant, None);
    }
}

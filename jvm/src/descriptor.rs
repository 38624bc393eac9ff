//! Field types and method descriptors (JVMS §4.3), parsed from their class-file strings.

use std::fmt;

use super::ClassName;

/// A JVM value type: a primitive, a class or interface reference, or an array.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    Boolean,
    Byte,
    Char,
    Short,
    Int,
    Long,
    Float,
    Double,
    Ref(ClassName),
    Array(Box<Type>),
}

/// What number stands for a value in a bound (see [`Type::numeric_measure`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumericMeasure {
    /// An integer's value.
    Value,
    /// An array's length.
    Length,
}

impl Type {
    /// Parses one field descriptor (`I`, `[Ljava/lang/String;`) that must span the whole text.
    pub fn parse(text: &str) -> Result<Type, String> {
        let mut parser = Parser::new(text);
        let ty = parser.field_type()?;
        parser.expect_end()?;
        Ok(ty)
    }

    /// The type named by a `CONSTANT_Class` entry: an internal class name, or an array descriptor
    /// for the array classes used by `anewarray`, `checkcast` and `multianewarray`.
    pub fn from_class_constant(text: &str) -> Result<Type, String> {
        if text.starts_with('[') {
            Type::parse(text)
        } else if text.is_empty() {
            Err("empty class name".to_string())
        } else {
            Ok(Type::Ref(ClassName::new(text)))
        }
    }

    /// An array of `self`.
    pub fn array_of(self) -> Type {
        Type::Array(Box::new(self))
    }

    /// The element type of an array type.
    pub fn element(&self) -> Option<&Type> {
        match self {
            Type::Array(elem) => Some(elem),
            _ => None,
        }
    }

    /// The number of array dimensions (0 for a non-array).
    pub fn rank(&self) -> usize {
        match self {
            Type::Array(elem) => 1 + elem.rank(),
            _ => 0,
        }
    }

    /// Whether values of this type are references (objects or arrays).
    pub fn is_reference(&self) -> bool {
        matches!(self, Type::Ref(_) | Type::Array(_))
    }

    /// Whether this is `int` or a type the JVM computes with as `int` (boolean, byte, char, short).
    pub fn is_int_like(&self) -> bool {
        matches!(
            self,
            Type::Boolean | Type::Byte | Type::Char | Type::Short | Type::Int
        )
    }

    /// Whether this is an integer type of Java: int-like or `long`.
    pub fn is_integer(&self) -> bool {
        self.is_int_like() || *self == Type::Long
    }

    /// The least and greatest values of an integer type (`boolean` is not one: the JVM's
    /// conversions never produce it).
    pub fn integer_range(&self) -> Option<(i64, i64)> {
        Some(match self {
            Type::Byte => (i64::from(i8::MIN), i64::from(i8::MAX)),
            Type::Short => (i64::from(i16::MIN), i64::from(i16::MAX)),
            Type::Char => (0, i64::from(u16::MAX)),
            Type::Int => (i64::from(i32::MIN), i64::from(i32::MAX)),
            Type::Long => (i64::MIN, i64::MAX),
            _ => return None,
        })
    }

    /// Whether this is `byte`, `short` or `char`: an `int` narrows to it with wrap-around
    /// (`i2b`, `i2s`, `i2c`), and its values are a range an invariant can state.
    pub fn is_narrow_integer(&self) -> bool {
        matches!(self, Type::Byte | Type::Short | Type::Char)
    }

    /// The number a value of this type is measured by in a bound, without object views: an
    /// integer by its value, an array by its length. The one rule bodies, specs and spec
    /// expressions all follow.
    pub fn numeric_measure(&self) -> Option<NumericMeasure> {
        if self.is_integer() {
            Some(NumericMeasure::Value)
        } else if matches!(self, Type::Array(_)) {
            Some(NumericMeasure::Length)
        } else {
            None
        }
    }

    /// Whether a value of this type takes two local-variable slots (long, double).
    pub fn is_wide(&self) -> bool {
        matches!(self, Type::Long | Type::Double)
    }

    /// The descriptor text, `[Ljava/lang/String;`.
    pub fn descriptor(&self) -> String {
        match self {
            Type::Ref(name) => format!("L{};", name.internal()),
            Type::Array(elem) => format!("[{}", elem.descriptor()),
            primitive => primitive.primitive_char().to_string(),
        }
    }

    fn primitive_char(&self) -> char {
        match self {
            Type::Boolean => 'Z',
            Type::Byte => 'B',
            Type::Char => 'C',
            Type::Short => 'S',
            Type::Int => 'I',
            Type::Long => 'J',
            Type::Float => 'F',
            Type::Double => 'D',
            Type::Ref(_) => 'L',
            Type::Array(_) => '[',
        }
    }
}

/// Java source form: `int`, `java.lang.String`, `int[][]`.
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Boolean => f.write_str("boolean"),
            Type::Byte => f.write_str("byte"),
            Type::Char => f.write_str("char"),
            Type::Short => f.write_str("short"),
            Type::Int => f.write_str("int"),
            Type::Long => f.write_str("long"),
            Type::Float => f.write_str("float"),
            Type::Double => f.write_str("double"),
            Type::Ref(name) => write!(f, "{name}"),
            Type::Array(elem) => write!(f, "{elem}[]"),
        }
    }
}

impl fmt::Debug for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A parsed method descriptor: parameter types and return type (`None` for `void`).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct MethodDescriptor {
    pub params: Vec<Type>,
    pub ret: Option<Type>,
}

impl MethodDescriptor {
    /// Parses `(I[Ljava/lang/String;)V`.
    pub fn parse(text: &str) -> Result<MethodDescriptor, String> {
        let mut parser = Parser::new(text);
        parser.expect('(')?;
        let mut params = Vec::new();
        while parser.peek() != Some(')') {
            params.push(parser.field_type()?);
        }
        parser.expect(')')?;
        let ret = if parser.peek() == Some('V') {
            parser.next();
            None
        } else {
            Some(parser.field_type()?)
        };
        parser.expect_end()?;
        Ok(MethodDescriptor { params, ret })
    }

    /// The number of local-variable slots the parameters take (long and double take two),
    /// not counting `this`.
    pub fn param_slots(&self) -> usize {
        self.params
            .iter()
            .map(|t| if t.is_wide() { 2 } else { 1 })
            .sum()
    }
}

/// A cursor over descriptor text with one-character look-ahead.
struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser { text, pos: 0 }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn expect(&mut self, wanted: char) -> Result<(), String> {
        match self.next() {
            Some(c) if c == wanted => Ok(()),
            _ => Err(self.error(&format!("expected '{wanted}'"))),
        }
    }

    fn expect_end(&self) -> Result<(), String> {
        if self.pos == self.text.len() {
            Ok(())
        } else {
            Err(self.error("unexpected trailing characters"))
        }
    }

    fn error(&self, what: &str) -> String {
        format!("bad descriptor '{}' at {}: {what}", self.text, self.pos)
    }

    fn field_type(&mut self) -> Result<Type, String> {
        let ty = match self.next() {
            Some('Z') => Type::Boolean,
            Some('B') => Type::Byte,
            Some('C') => Type::Char,
            Some('S') => Type::Short,
            Some('I') => Type::Int,
            Some('J') => Type::Long,
            Some('F') => Type::Float,
            Some('D') => Type::Double,
            Some('L') => self.class_name()?,
            Some('[') => self.field_type()?.array_of(),
            _ => return Err(self.error("expected a field type")),
        };
        Ok(ty)
    }

    fn class_name(&mut self) -> Result<Type, String> {
        let rest = &self.text[self.pos..];
        let end = rest
            .find(';')
            .ok_or_else(|| self.error("unterminated class name"))?;
        if end == 0 {
            return Err(self.error("empty class name"));
        }
        self.pos += end + 1;
        Ok(Type::Ref(ClassName::new(&rest[..end])))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_method_descriptors() {
        let d = MethodDescriptor::parse("(IJ[Ljava/lang/String;[[D)V").unwrap();
        assert_eq!(d.params.len(), 4);
        assert_eq!(d.params[2].to_string(), "java.lang.String[]");
        assert_eq!(d.params[3].to_string(), "double[][]");
        assert_eq!(d.ret, None);
        assert_eq!(d.param_slots(), 1 + 2 + 1 + 1);
    }

    #[test]
    fn descriptors_round_trip() {
        for text in ["I", "[[J", "Ljava/util/List;", "[Ljava/lang/Object;"] {
            assert_eq!(Type::parse(text).unwrap().descriptor(), text);
        }
    }

    #[test]
    fn malformed_descriptors_are_errors() {
        for text in [
            "",
            "(",
            "(I",
            "(I)",
            "(L;)V",
            "(Ljava/lang/String)V",
            "(I)VV",
            "Q",
        ] {
            assert!(
                MethodDescriptor::parse(text).is_err() && Type::parse(text).is_err(),
                "{text}"
            );
        }
    }

    #[test]
    fn class_constants_name_classes_or_arrays() {
        assert_eq!(
            Type::from_class_constant("[I").unwrap(),
            Type::Int.array_of()
        );
        assert_eq!(
            Type::from_class_constant("java/lang/Object").unwrap(),
            Type::Ref(ClassName::object())
        );
    }
}

//! The abstract values of the lifter's data-flow analysis: what each local slot and each
//! operand-stack entry holds at the start of a block, and how two such states merge where
//! control flow joins.
//!
//! The analysis is the verifier's type inference, simplified: reference types merge to their
//! common type when equal and to `java.lang.Object` otherwise (no class hierarchy is consulted,
//! so the lifter stays a function of one class file), int-like types merge to `int`, and
//! values of different kinds merge to "unusable" in a local and to an error on the stack.

use super::decode::Kind;
use membound_jvm::{ClassName, Type};

/// The abstract value of a slot or stack entry.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Abs {
    /// `int` or a type the JVM computes with as `int`; the exact type is kept while known.
    Int(Type),
    Long,
    Float,
    Double,
    Ref(Type),
    /// The `null` constant, before it meets a typed reference.
    Null,
    /// A `jsr` return address: the offset of the instruction after the `jsr`.
    ReturnAddress(u32),
}

impl Abs {
    /// The abstract value of a field, parameter or return type.
    pub(super) fn of(ty: &Type) -> Abs {
        match ty {
            Type::Long => Abs::Long,
            Type::Float => Abs::Float,
            Type::Double => Abs::Double,
            Type::Ref(_) | Type::Array(_) => Abs::Ref(ty.clone()),
            int_like => Abs::Int(int_like.clone()),
        }
    }

    pub(super) fn int() -> Abs {
        Abs::Int(Type::Int)
    }

    pub(super) fn object() -> Abs {
        Abs::Ref(Type::Ref(ClassName::object()))
    }

    /// The kind of value, `None` for return addresses.
    pub(super) fn kind(&self) -> Option<Kind> {
        match self {
            Abs::Int(_) => Some(Kind::Int),
            Abs::Long => Some(Kind::Long),
            Abs::Float => Some(Kind::Float),
            Abs::Double => Some(Kind::Double),
            Abs::Ref(_) | Abs::Null => Some(Kind::Ref),
            Abs::ReturnAddress(_) => None,
        }
    }

    /// How many words the value takes on the stack and in the locals (long and double take 2).
    pub(super) fn words(&self) -> u8 {
        match self {
            Abs::Long | Abs::Double => 2,
            _ => 1,
        }
    }

    /// The IR type of a variable holding this value; `null` alone is typed `Object`.
    pub(super) fn ir_type(&self) -> Type {
        match self {
            Abs::Int(ty) | Abs::Ref(ty) => ty.clone(),
            Abs::Long => Type::Long,
            Abs::Float => Type::Float,
            Abs::Double => Type::Double,
            Abs::Null | Abs::ReturnAddress(_) => Type::Ref(ClassName::object()),
        }
    }

    /// The least upper bound of two values, `None` when they cannot meet (different kinds, or
    /// two different return addresses).
    pub(super) fn join(&self, other: &Abs) -> Option<Abs> {
        if self == other {
            return Some(self.clone());
        }
        match (self, other) {
            (Abs::Int(_), Abs::Int(_)) => Some(Abs::int()),
            (Abs::Null, Abs::Ref(ty)) | (Abs::Ref(ty), Abs::Null) => Some(Abs::Ref(ty.clone())),
            (Abs::Ref(_), Abs::Ref(_)) => Some(Abs::object()),
            _ => None,
        }
    }
}

/// A local slot: unusable (never written on some path, or written with different kinds, or
/// the second half of a long or double), or holding a value.
pub(super) type Slot = Option<Abs>;

/// The state at the start of a block.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Frame {
    pub locals: Vec<Slot>,
    pub stack: Vec<Abs>,
}

impl Frame {
    /// Merges `other` into `self`; whether `self` changed. Stacks must agree in height and
    /// kinds, as the JVM requires at every join.
    pub(super) fn merge(&mut self, other: &Frame, pc: u32) -> Result<bool, String> {
        if self.stack.len() != other.stack.len() {
            return Err(format!(
                "stack heights {} and {} meet at pc {pc}",
                self.stack.len(),
                other.stack.len()
            ));
        }
        let mut changed = merge_locals(&mut self.locals, &other.locals);
        for (mine, theirs) in self.stack.iter_mut().zip(&other.stack) {
            let joined = mine.join(theirs).ok_or_else(|| {
                format!("stack values of different kinds ({mine:?}, {theirs:?}) meet at pc {pc}")
            })?;
            if joined != *mine {
                *mine = joined;
                changed = true;
            }
        }
        Ok(changed)
    }
}

/// Merges local slots pointwise; whether `mine` changed.
pub(super) fn merge_locals(mine: &mut [Slot], theirs: &[Slot]) -> bool {
    let mut changed = false;
    for (slot, other) in mine.iter_mut().zip(theirs) {
        let joined = match (&*slot, other) {
            (Some(a), Some(b)) => a.join(b),
            _ => None,
        };
        if joined != *slot {
            *slot = joined;
            changed = true;
        }
    }
    changed
}

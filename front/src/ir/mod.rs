//! The IR: a typed three-address form of one method body, with an explicit control-flow graph
//! and exception edges, lifted from the JVM's stack machine (Soot's Jimple is the model).
//!
//! Every value lives in a variable ([`VarId`]): the method's parameters, its local-variable slots
//! (a slot reused with another type is another variable) and the operand-stack slots of the
//! bytecode (`$s0`, `$s1`, …). Statements keep the bytecode offset (`pc`) of the instruction they
//! come from and its source line, so creation sites and call sites can be named as the class file
//! names them. The IR knows nothing of the analyses run on it; lifting lives in `lift*`, printing
//! in `print`.

use std::fmt;
use std::sync::Arc;

use membound_jvm::{ClassName, FieldRef, MethodRef, Type};

mod assertions;
mod exceptions;
mod format_call;
mod lift;
mod print;

pub use assertions::{JDK_ASSERTIONS_DISABLED, without_assertions};
pub use exceptions::Exceptions;
pub use format_call::{FormatArg, FormatCall, FormatOutput, IntegralType};
pub use lift::lift_method;
pub use print::{body_to_json, print_body};

/// Index of a variable in [`Body::vars`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct VarId(pub u32);

/// Index of a basic block in [`Body::blocks`]; block 0 is the entry.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct BlockId(pub u32);

/// One lifted method body.
#[derive(Clone, Debug)]
pub struct Body {
    pub method: MethodRef,
    pub is_static: bool,
    pub vars: Vec<Var>,
    /// `this` first for instance methods, then the declared parameters in order.
    pub params: Vec<VarId>,
    /// `blocks[0]` is the entry block.
    pub blocks: Vec<Block>,
}

impl Body {
    pub fn var(&self, id: VarId) -> &Var {
        &self.vars[id.0 as usize]
    }

    /// The array and its type when `call` is `array.clone()`: the VM makes one array of the
    /// same type and length (no method runs), so the instruction is an allocation of its own.
    /// (The class file names `Object.clone`; the receiver's type tells it is an array's.)
    pub fn cloned_array<'c>(&self, call: &'c Call) -> Option<(&'c Operand, &Type)> {
        let object_clone = call.kind == CallKind::Virtual
            && call.method.class == ClassName::object()
            && &*call.method.name == "clone"
            && &*call.method.descriptor == "()Ljava/lang/Object;";
        let receiver = call.receiver.as_ref().filter(|_| object_clone)?;
        let Operand::Var(var) = receiver else {
            return None;
        };
        let ty = &self.var(*var).ty;
        matches!(ty, Type::Array(_)).then_some((receiver, ty))
    }

    pub fn block(&self, id: BlockId) -> &Block {
        &self.blocks[id.0 as usize]
    }

    /// Every statement with the block it stands in, in block order.
    pub fn statements(&self) -> impl Iterator<Item = (BlockId, &Stmt)> {
        self.blocks.iter().enumerate().flat_map(|(index, block)| {
            block
                .stmts
                .iter()
                .map(move |stmt| (BlockId(index as u32), stmt))
        })
    }

    /// Whether some statement writes `var` (a parameter that none does keeps its entry value).
    pub fn assigns(&self, var: VarId) -> bool {
        self.statements().any(|(_, stmt)| stmt.assigns(var))
    }
}

/// A typed variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    /// The source name from the LocalVariableTable when the class file has one, else a made-up
    /// name: `this`, `p0`…, `l3` (local slot 3), `$s0` (operand-stack slot 0).
    pub name: Arc<str>,
    pub ty: Type,
    pub origin: VarOrigin,
}

/// Where a variable comes from in the bytecode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarOrigin {
    This,
    /// The n-th declared parameter (0-based, not counting `this`).
    Param(u16),
    /// A local-variable slot.
    Local(u16),
    /// An operand-stack slot (depth from the bottom).
    Stack(u16),
}

/// A basic block: straight-line statements and one terminator.
#[derive(Clone, Debug)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub terminator: Terminator,
    /// Where an exception raised in this block may go, in the order the handlers are tried;
    /// each handler block starts with `v = @caughtexception`.
    pub handlers: Vec<Handler>,
    /// Bytecode offset of the block's first instruction.
    pub pc: u32,
}

/// An exception edge: the handler block and the class it catches (`None` catches everything,
/// as `finally` does).
#[derive(Clone, Debug, PartialEq)]
pub struct Handler {
    pub catch: Option<ClassName>,
    pub target: BlockId,
}

/// A statement with its position in the bytecode and in the source.
#[derive(Clone, Debug)]
pub struct Stmt {
    pub pc: u32,
    pub line: Option<u32>,
    pub kind: StmtKind,
}

impl Stmt {
    /// Whether it writes `var`: an assignment to it, or a call whose result it receives.
    pub fn assigns(&self, var: VarId) -> bool {
        self.defined() == Some(var)
    }

    /// The operands it reads (a store reads its place's operands and the value).
    pub fn operands(&self) -> Vec<&Operand> {
        match &self.kind {
            StmtKind::Assign { value, .. } => value.operands(),
            StmtKind::Invoke { call, .. } => call.receiver.iter().chain(&call.args).collect(),
            StmtKind::Store { place, value } => {
                let mut operands = place.operands();
                operands.push(value);
                operands
            }
            StmtKind::Monitor { object, .. } => vec![object],
        }
    }

    /// The variable it writes, if any: an assignment's, or the one receiving a call's result.
    pub fn defined(&self) -> Option<VarId> {
        match &self.kind {
            StmtKind::Assign { dst, .. } => Some(*dst),
            StmtKind::Invoke { dst, .. } => *dst,
            StmtKind::Store { .. } | StmtKind::Monitor { .. } => None,
        }
    }
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `dst = value`.
    Assign { dst: VarId, value: Expr },
    /// A call whose result, if any, goes to `dst`.
    Invoke { dst: Option<VarId>, call: Call },
    /// A write to a field, a static field or an array element.
    Store { place: Place, value: Operand },
    /// `monitorenter` / `monitorexit`.
    Monitor { enter: bool, object: Operand },
}

/// A memory location read by [`Expr::Load`] and written by [`StmtKind::Store`].
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    Field { object: Operand, field: FieldRef },
    Static(FieldRef),
    ArrayElement { array: Operand, index: Operand },
}

impl Place {
    /// The operands that name the location: the object, or the array and the index.
    pub fn operands(&self) -> Vec<&Operand> {
        match self {
            Place::Field { object, .. } => vec![object],
            Place::Static(_) => Vec::new(),
            Place::ArrayElement { array, index } => vec![array, index],
        }
    }
}

/// The right-hand side of an assignment: one operation on operands.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Use(Operand),
    Binary {
        op: BinOp,
        lhs: Operand,
        rhs: Operand,
    },
    Neg(Operand),
    /// A primitive conversion (`i2l`, `d2i`, `i2b`, …) to the given type.
    Convert(Operand, Type),
    CheckCast(Operand, Type),
    InstanceOf(Operand, Type),
    Load(Place),
    ArrayLength(Operand),
    /// `new C`: allocates an object; the constructor is a separate `specialinvoke <init>`.
    New(ClassName),
    /// `newarray`, `anewarray`, `multianewarray`: allocates an array of type `ty` (the whole
    /// array type, `int[][]`) with the given dimensions, outermost first; `dims.len()` may be
    /// less than the rank (`new int[n][]`).
    NewArray {
        ty: Type,
        dims: Vec<Operand>,
    },
    /// The exception object at the start of a handler block.
    CaughtException,
}

impl Expr {
    /// The operands it reads.
    pub fn operands(&self) -> Vec<&Operand> {
        match self {
            Expr::Use(a) | Expr::Neg(a) | Expr::ArrayLength(a) => vec![a],
            Expr::Convert(a, _) | Expr::CheckCast(a, _) | Expr::InstanceOf(a, _) => vec![a],
            Expr::Binary { lhs, rhs, .. } => vec![lhs, rhs],
            Expr::Load(place) => place.operands(),
            Expr::NewArray { dims, .. } => dims.iter().collect(),
            Expr::New(_) | Expr::CaughtException => Vec::new(),
        }
    }
}

/// Arithmetic, bitwise and comparison operators of the JVM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    Ushr,
    And,
    Or,
    Xor,
    /// `lcmp`: -1, 0 or 1.
    Cmp,
    /// `fcmpl` / `dcmpl`: -1 on NaN.
    Cmpl,
    /// `fcmpg` / `dcmpg`: 1 on NaN.
    Cmpg,
}

impl BinOp {
    /// The operator as Java writes it (`+`, `>>>`), or the bytecode's name for the comparisons
    /// Java has no operator for (`cmp`, `cmpl`, `cmpg`).
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Ushr => ">>>",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Cmp => "cmp",
            BinOp::Cmpl => "cmpl",
            BinOp::Cmpg => "cmpg",
        }
    }

    /// Whether the operator is one of Java's arithmetic or bitwise operators (not a comparison).
    pub fn is_arithmetic(self) -> bool {
        !matches!(self, BinOp::Cmp | BinOp::Cmpl | BinOp::Cmpg)
    }
}

/// A variable or a constant.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Var(VarId),
    Const(Const),
}

/// A constant operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Const {
    Null,
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    String(Arc<str>),
    /// A class literal (`ldc` of a class): `Foo.class`.
    Class(Type),
    /// Another loadable constant (method handle, method type, dynamic constant), described.
    Other(Arc<str>),
}

/// Java source form: `7`, `7L`, `1.5F`, `"text"`, `Foo.class`, `null`.
impl fmt::Display for Const {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Const::Null => f.write_str("null"),
            Const::Int(v) => write!(f, "{v}"),
            Const::Long(v) => write!(f, "{v}L"),
            Const::Float(v) => write!(f, "{v:?}F"),
            Const::Double(v) => write!(f, "{v:?}"),
            Const::String(text) => write!(f, "{text:?}"),
            Const::Class(ty) => write!(f, "{ty}.class"),
            Const::Other(text) => f.write_str(text),
        }
    }
}

/// A call: invoked method, receiver and arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub kind: CallKind,
    /// The method named by the instruction. For `invokedynamic`: the bootstrap method's class
    /// with the call site's name and descriptor.
    pub method: MethodRef,
    /// The receiver of `invokevirtual`, `invokeinterface` and `invokespecial`.
    pub receiver: Option<Operand>,
    pub args: Vec<Operand>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum CallKind {
    Static,
    Special,
    Virtual,
    Interface,
    Dynamic(DynamicCall),
}

/// What an `invokedynamic` call site does, as far as its bootstrap method tells.
#[derive(Clone, Debug, PartialEq)]
pub enum DynamicCall {
    /// `StringConcatFactory.makeConcat[WithConstants]`: builds a new `String` (and its bytes).
    StringConcat { recipe: Option<Arc<str>> },
    /// `LambdaMetafactory.metafactory` / `altMetafactory`: creates an instance of `interface`
    /// whose method runs `implementation`.
    Lambda {
        interface: ClassName,
        implementation: MethodRef,
    },
    /// Any other bootstrap method.
    Other { bootstrap: MethodRef },
}

/// How a basic block ends.
#[derive(Clone, Debug, PartialEq)]
pub enum Terminator {
    Goto(BlockId),
    /// `if lhs op rhs goto then_target else else_target`.
    If {
        op: CmpOp,
        lhs: Operand,
        rhs: Operand,
        then_target: BlockId,
        else_target: BlockId,
    },
    /// `tableswitch` and `lookupswitch`.
    Switch {
        key: Operand,
        cases: Vec<(i32, BlockId)>,
        default: BlockId,
    },
    Return(Option<Operand>),
    Throw(Operand),
}

impl Terminator {
    /// The operands it reads.
    pub fn operands(&self) -> Vec<&Operand> {
        match self {
            Terminator::If { lhs, rhs, .. } => vec![lhs, rhs],
            Terminator::Switch { key, .. } => vec![key],
            Terminator::Return(Some(operand)) | Terminator::Throw(operand) => vec![operand],
            Terminator::Goto(_) | Terminator::Return(None) => Vec::new(),
        }
    }

    /// The blocks control may go to next, not counting exception edges.
    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            Terminator::Goto(target) => vec![*target],
            Terminator::If {
                then_target,
                else_target,
                ..
            } => vec![*then_target, *else_target],
            Terminator::Switch { cases, default, .. } => {
                let mut targets: Vec<BlockId> = cases.iter().map(|(_, t)| *t).collect();
                targets.push(*default);
                targets
            }
            Terminator::Return(_) | Terminator::Throw(_) => Vec::new(),
        }
    }
}

/// Comparison of a conditional branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Ge,
    Gt,
    Le,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Ge => ">=",
            CmpOp::Gt => ">",
            CmpOp::Le => "<=",
        }
    }

    /// The comparison that holds exactly when `self` does not.
    pub fn negate(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Ge => CmpOp::Lt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Le => CmpOp::Gt,
        }
    }
}

//! Decoding of bytecode bytes into instructions (JVMS chapter 6), grouped by what they do.
//!
//! Every opcode of the class-file format is decoded, including `wide`, the two switches with
//! their alignment padding, `jsr`/`ret` and `goto_w`/`jsr_w`. Branch targets become absolute
//! offsets and are checked to start an instruction. Constant-pool indices are kept as they are;
//! the lifter resolves them. Nothing here knows the operand stack.

use crate::ir::{BinOp, CmpOp};
use membound_jvm::Type;

/// The computational kind an instruction works on (`i`, `l`, `f`, `d`, `a` prefixes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Kind {
    Int,
    Long,
    Float,
    Double,
    Ref,
}

/// Element type of an array load or store (`baload` serves `byte[]` and `boolean[]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Element {
    Int,
    Long,
    Float,
    Double,
    Ref,
    ByteOrBoolean,
    Char,
    Short,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum InvokeKind {
    Virtual,
    Special,
    Static,
    Interface,
}

/// A constant pushed by an instruction itself.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Immediate {
    Null,
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Insn {
    Nop,
    Push(Immediate),
    /// `ldc`, `ldc_w` (`wide` false) and `ldc2_w` (`wide` true).
    Ldc {
        index: u16,
        wide: bool,
    },
    Load(Kind, u16),
    Store(Kind, u16),
    ArrayLoad(Element),
    ArrayStore(Element),
    /// `pop` (1 word) and `pop2` (2 words).
    Pop {
        words: u8,
    },
    /// The `dup` family: copy the top `words` words below the `below` words under them
    /// (`dup` 1,0; `dup_x1` 1,1; `dup_x2` 1,2; `dup2` 2,0; `dup2_x1` 2,1; `dup2_x2` 2,2).
    Dup {
        words: u8,
        below: u8,
    },
    Swap,
    Binary(Kind, BinOp),
    Neg(Kind),
    Iinc {
        slot: u16,
        delta: i32,
    },
    Convert {
        from: Kind,
        to: Type,
    },
    /// `lcmp`, `fcmpl`, `fcmpg`, `dcmpl`, `dcmpg`.
    Compare(Kind, BinOp),
    /// `ifeq` … `ifle`: compare an int with zero.
    IfZero(CmpOp, u32),
    IfIntCmp(CmpOp, u32),
    IfRefCmp(CmpOp, u32),
    /// `ifnull` (`Eq`) and `ifnonnull` (`Ne`).
    IfNull(CmpOp, u32),
    Goto(u32),
    Jsr(u32),
    Ret(u16),
    Switch {
        default: u32,
        cases: Vec<(i32, u32)>,
    },
    Return(Option<Kind>),
    GetStatic(u16),
    PutStatic(u16),
    GetField(u16),
    PutField(u16),
    Invoke(InvokeKind, u16),
    InvokeDynamic(u16),
    New(u16),
    /// `newarray` of a primitive element type.
    NewPrimitiveArray(Type),
    ANewArray(u16),
    MultiANewArray {
        index: u16,
        dims: u8,
    },
    ArrayLength,
    Throw,
    CheckCast(u16),
    InstanceOf(u16),
    MonitorEnter,
    MonitorExit,
}

impl Insn {
    /// Whether control never goes on to the next instruction.
    pub(super) fn ends_flow(&self) -> bool {
        matches!(
            self,
            Insn::Goto(_)
                | Insn::Jsr(_)
                | Insn::Ret(_)
                | Insn::Switch { .. }
                | Insn::Return(_)
                | Insn::Throw
        )
    }

    /// Branch targets named by the instruction (not the fall-through).
    pub(super) fn targets(&self) -> Vec<u32> {
        match self {
            Insn::IfZero(_, t)
            | Insn::IfIntCmp(_, t)
            | Insn::IfRefCmp(_, t)
            | Insn::IfNull(_, t)
            | Insn::Goto(t)
            | Insn::Jsr(t) => vec![*t],
            Insn::Switch { default, cases } => {
                let mut targets: Vec<u32> = cases.iter().map(|(_, t)| *t).collect();
                targets.push(*default);
                targets
            }
            _ => Vec::new(),
        }
    }

    /// Whether the next instruction starts a new block (after a branch of any kind).
    pub(super) fn ends_block(&self) -> bool {
        self.ends_flow() || !self.targets().is_empty()
    }
}

/// One decoded instruction at offset `pc`; `next` is the offset of the one after it.
#[derive(Clone, Debug)]
pub(super) struct Decoded {
    pub pc: u32,
    pub next: u32,
    pub insn: Insn,
}

/// Decodes a whole method's bytecode and checks that every branch lands on an instruction.
pub(super) fn decode(code: &[u8]) -> Result<Vec<Decoded>, String> {
    let mut reader = Reader { code, pos: 0 };
    let mut decoded = Vec::new();
    while reader.pos < code.len() {
        let pc = reader.pos as u32;
        let insn = reader.instruction(pc)?;
        decoded.push(Decoded {
            pc,
            next: reader.pos as u32,
            insn,
        });
    }
    for d in &decoded {
        for target in d.insn.targets() {
            if decoded.binary_search_by_key(&target, |d| d.pc).is_err() {
                return Err(format!(
                    "branch at pc {} to {target}, which is not the start of an instruction",
                    d.pc
                ));
            }
        }
    }
    Ok(decoded)
}

struct Reader<'a> {
    code: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn bytes<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let bytes = self
            .code
            .get(self.pos..self.pos + N)
            .and_then(|b| <[u8; N]>::try_from(b).ok())
            .ok_or_else(|| {
                format!(
                    "instruction at pc {} runs past the end of the code",
                    self.pos
                )
            })?;
        self.pos += N;
        Ok(bytes)
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.bytes::<1>()?[0])
    }
    fn i8(&mut self) -> Result<i8, String> {
        Ok(i8::from_be_bytes(self.bytes()?))
    }
    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_be_bytes(self.bytes()?))
    }
    fn i16(&mut self) -> Result<i16, String> {
        Ok(i16::from_be_bytes(self.bytes()?))
    }
    fn i32(&mut self) -> Result<i32, String> {
        Ok(i32::from_be_bytes(self.bytes()?))
    }

    /// `pc + offset`, which must lie inside the code.
    fn target(&self, pc: u32, offset: i32) -> Result<u32, String> {
        i64::from(pc)
            .checked_add(i64::from(offset))
            .filter(|t| (0..self.code.len() as i64).contains(t))
            .map(|t| t as u32)
            .ok_or_else(|| format!("branch at pc {pc} by {offset} leaves the code"))
    }

    fn instruction(&mut self, pc: u32) -> Result<Insn, String> {
        use Insn::*;
        let opcode = self.u8()?;
        let insn = match opcode {
            0x00 => Nop,
            0x01 => Push(Immediate::Null),
            0x02..=0x08 => Push(Immediate::Int(i32::from(opcode) - 3)),
            0x09 | 0x0a => Push(Immediate::Long(i64::from(opcode - 0x09))),
            0x0b..=0x0d => Push(Immediate::Float(f32::from(opcode - 0x0b))),
            0x0e | 0x0f => Push(Immediate::Double(f64::from(opcode - 0x0e))),
            0x10 => Push(Immediate::Int(i32::from(self.i8()?))),
            0x11 => Push(Immediate::Int(i32::from(self.i16()?))),
            0x12 => Ldc {
                index: u16::from(self.u8()?),
                wide: false,
            },
            0x13 => Ldc {
                index: self.u16()?,
                wide: false,
            },
            0x14 => Ldc {
                index: self.u16()?,
                wide: true,
            },
            0x15..=0x19 => Load(kind_of(opcode - 0x15), u16::from(self.u8()?)),
            0x1a..=0x2d => Load(kind_of((opcode - 0x1a) / 4), u16::from((opcode - 0x1a) % 4)),
            0x2e..=0x35 => ArrayLoad(element_of(opcode - 0x2e)),
            0x36..=0x3a => Store(kind_of(opcode - 0x36), u16::from(self.u8()?)),
            0x3b..=0x4e => Store(kind_of((opcode - 0x3b) / 4), u16::from((opcode - 0x3b) % 4)),
            0x4f..=0x56 => ArrayStore(element_of(opcode - 0x4f)),
            0x57 => Pop { words: 1 },
            0x58 => Pop { words: 2 },
            0x59 => Dup { words: 1, below: 0 },
            0x5a => Dup { words: 1, below: 1 },
            0x5b => Dup { words: 1, below: 2 },
            0x5c => Dup { words: 2, below: 0 },
            0x5d => Dup { words: 2, below: 1 },
            0x5e => Dup { words: 2, below: 2 },
            0x5f => Swap,
            0x60..=0x73 => {
                let ops = [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Rem];
                let op = ops[usize::from((opcode - 0x60) / 4)];
                Binary(kind_of((opcode - 0x60) % 4), op)
            }
            0x74..=0x77 => Neg(kind_of(opcode - 0x74)),
            0x78..=0x83 => {
                let ops = [
                    BinOp::Shl,
                    BinOp::Shr,
                    BinOp::Ushr,
                    BinOp::And,
                    BinOp::Or,
                    BinOp::Xor,
                ];
                let op = ops[usize::from((opcode - 0x78) / 2)];
                let kind = if (opcode - 0x78) % 2 == 0 {
                    Kind::Int
                } else {
                    Kind::Long
                };
                Binary(kind, op)
            }
            0x84 => Iinc {
                slot: u16::from(self.u8()?),
                delta: i32::from(self.i8()?),
            },
            0x85..=0x93 => conversion(opcode),
            0x94 => Compare(Kind::Long, BinOp::Cmp),
            0x95 => Compare(Kind::Float, BinOp::Cmpl),
            0x96 => Compare(Kind::Float, BinOp::Cmpg),
            0x97 => Compare(Kind::Double, BinOp::Cmpl),
            0x98 => Compare(Kind::Double, BinOp::Cmpg),
            0x99..=0x9e => IfZero(cmp_of(opcode - 0x99), self.branch16(pc)?),
            0x9f..=0xa4 => IfIntCmp(cmp_of(opcode - 0x9f), self.branch16(pc)?),
            0xa5 => IfRefCmp(CmpOp::Eq, self.branch16(pc)?),
            0xa6 => IfRefCmp(CmpOp::Ne, self.branch16(pc)?),
            0xa7 => Goto(self.branch16(pc)?),
            0xa8 => Jsr(self.branch16(pc)?),
            0xa9 => Ret(u16::from(self.u8()?)),
            0xaa => self.table_switch(pc)?,
            0xab => self.lookup_switch(pc)?,
            0xac..=0xb0 => Return(Some(kind_of(opcode - 0xac))),
            0xb1 => Return(None),
            0xb2 => GetStatic(self.u16()?),
            0xb3 => PutStatic(self.u16()?),
            0xb4 => GetField(self.u16()?),
            0xb5 => PutField(self.u16()?),
            0xb6 => Invoke(InvokeKind::Virtual, self.u16()?),
            0xb7 => Invoke(InvokeKind::Special, self.u16()?),
            0xb8 => Invoke(InvokeKind::Static, self.u16()?),
            0xb9 => {
                let index = self.u16()?;
                // The argument count and a zero byte, both redundant with the descriptor.
                self.bytes::<2>()?;
                Invoke(InvokeKind::Interface, index)
            }
            0xba => {
                let index = self.u16()?;
                self.bytes::<2>()?;
                InvokeDynamic(index)
            }
            0xbb => New(self.u16()?),
            0xbc => NewPrimitiveArray(self.array_type(pc)?),
            0xbd => ANewArray(self.u16()?),
            0xbe => ArrayLength,
            0xbf => Throw,
            0xc0 => CheckCast(self.u16()?),
            0xc1 => InstanceOf(self.u16()?),
            0xc2 => MonitorEnter,
            0xc3 => MonitorExit,
            0xc4 => self.wide(pc)?,
            0xc5 => MultiANewArray {
                index: self.u16()?,
                dims: self.u8()?,
            },
            0xc6 => IfNull(CmpOp::Eq, self.branch16(pc)?),
            0xc7 => IfNull(CmpOp::Ne, self.branch16(pc)?),
            0xc8 => {
                let offset = self.i32()?;
                Goto(self.target(pc, offset)?)
            }
            0xc9 => {
                let offset = self.i32()?;
                Jsr(self.target(pc, offset)?)
            }
            _ => return Err(format!("invalid opcode 0x{opcode:02x} at pc {pc}")),
        };
        Ok(insn)
    }

    fn branch16(&mut self, pc: u32) -> Result<u32, String> {
        let offset = self.i16()?;
        self.target(pc, i32::from(offset))
    }

    fn array_type(&mut self, pc: u32) -> Result<Type, String> {
        Ok(match self.u8()? {
            4 => Type::Boolean,
            5 => Type::Char,
            6 => Type::Float,
            7 => Type::Double,
            8 => Type::Byte,
            9 => Type::Short,
            10 => Type::Int,
            11 => Type::Long,
            other => return Err(format!("newarray at pc {pc} has bad element type {other}")),
        })
    }

    /// The switches' operands start at the next multiple of 4 from the start of the code.
    fn skip_padding(&mut self) -> Result<(), String> {
        while !self.pos.is_multiple_of(4) {
            self.u8()?;
        }
        Ok(())
    }

    fn table_switch(&mut self, pc: u32) -> Result<Insn, String> {
        self.skip_padding()?;
        let default = self.i32()?;
        let low = self.i32()?;
        let high = self.i32()?;
        if low > high {
            return Err(format!(
                "tableswitch at pc {pc} has low {low} above high {high}"
            ));
        }
        let count = i64::from(high) - i64::from(low) + 1;
        if count * 4 > (self.code.len() - self.pos) as i64 {
            return Err(format!(
                "tableswitch at pc {pc} runs past the end of the code"
            ));
        }
        let mut cases = Vec::with_capacity(count as usize);
        for key in low..=high {
            let offset = self.i32()?;
            cases.push((key, self.target(pc, offset)?));
        }
        Ok(Insn::Switch {
            default: self.target(pc, default)?,
            cases,
        })
    }

    fn lookup_switch(&mut self, pc: u32) -> Result<Insn, String> {
        self.skip_padding()?;
        let default = self.i32()?;
        let pairs = self.i32()?;
        if pairs < 0 || i64::from(pairs) * 8 > (self.code.len() - self.pos) as i64 {
            return Err(format!(
                "lookupswitch at pc {pc} has a bad pair count {pairs}"
            ));
        }
        let mut cases: Vec<(i32, u32)> = Vec::with_capacity(pairs as usize);
        for _ in 0..pairs {
            let key = self.i32()?;
            let offset = self.i32()?;
            if cases.last().is_some_and(|(previous, _)| *previous >= key) {
                return Err(format!("lookupswitch at pc {pc} has keys out of order"));
            }
            cases.push((key, self.target(pc, offset)?));
        }
        Ok(Insn::Switch {
            default: self.target(pc, default)?,
            cases,
        })
    }

    /// `wide` widens the local index of a load, store, `ret` or `iinc` to 16 bits (and the
    /// increment of `iinc` to 16 bits).
    fn wide(&mut self, pc: u32) -> Result<Insn, String> {
        let opcode = self.u8()?;
        let insn = match opcode {
            0x15..=0x19 => Insn::Load(kind_of(opcode - 0x15), self.u16()?),
            0x36..=0x3a => Insn::Store(kind_of(opcode - 0x36), self.u16()?),
            0xa9 => Insn::Ret(self.u16()?),
            0x84 => Insn::Iinc {
                slot: self.u16()?,
                delta: i32::from(self.i16()?),
            },
            _ => return Err(format!("wide at pc {pc} modifies opcode 0x{opcode:02x}")),
        };
        Ok(insn)
    }
}

/// `i`, `l`, `f`, `d`, `a` in opcode order.
fn kind_of(index: u8) -> Kind {
    match index {
        0 => Kind::Int,
        1 => Kind::Long,
        2 => Kind::Float,
        3 => Kind::Double,
        _ => Kind::Ref,
    }
}

/// `ia`, `la`, `fa`, `da`, `aa`, `ba`, `ca`, `sa` in opcode order.
fn element_of(index: u8) -> Element {
    match index {
        0 => Element::Int,
        1 => Element::Long,
        2 => Element::Float,
        3 => Element::Double,
        4 => Element::Ref,
        5 => Element::ByteOrBoolean,
        6 => Element::Char,
        _ => Element::Short,
    }
}

/// `eq`, `ne`, `lt`, `ge`, `gt`, `le` in opcode order.
fn cmp_of(index: u8) -> CmpOp {
    match index {
        0 => CmpOp::Eq,
        1 => CmpOp::Ne,
        2 => CmpOp::Lt,
        3 => CmpOp::Ge,
        4 => CmpOp::Gt,
        _ => CmpOp::Le,
    }
}

/// `i2l` (0x85) … `i2s` (0x93).
fn conversion(opcode: u8) -> Insn {
    let (from, to) = match opcode {
        0x85 => (Kind::Int, Type::Long),
        0x86 => (Kind::Int, Type::Float),
        0x87 => (Kind::Int, Type::Double),
        0x88 => (Kind::Long, Type::Int),
        0x89 => (Kind::Long, Type::Float),
        0x8a => (Kind::Long, Type::Double),
        0x8b => (Kind::Float, Type::Int),
        0x8c => (Kind::Float, Type::Long),
        0x8d => (Kind::Float, Type::Double),
        0x8e => (Kind::Double, Type::Int),
        0x8f => (Kind::Double, Type::Long),
        0x90 => (Kind::Double, Type::Float),
        0x91 => (Kind::Int, Type::Byte),
        0x92 => (Kind::Int, Type::Char),
        _ => (Kind::Int, Type::Short),
    };
    Insn::Convert { from, to }
}

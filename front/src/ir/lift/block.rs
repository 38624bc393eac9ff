//! Symbolic execution of one basic block: the operand stack becomes variables, each
//! instruction becomes at most one statement.
//!
//! The stack holds operands, not just types: constants and local-variable reads are pushed as
//! they are and only copied into a stack variable when they must be (the local is about to be
//! overwritten, or the block ends with the value still on the stack), so `iload 1; iconst_1;
//! iadd; istore 1` becomes `i = i + 1`. A result that the next instruction stores into a local
//! is assigned to that local directly. At the end of a block every value left on the stack is
//! moved into the variable the successor expects at that depth (a parallel move: a swap on the
//! stack needs a temporary). Return addresses of `jsr` are values with no variable; `ret` goes
//! back to the caller's continuation recorded in the block's subroutine context.

use std::collections::HashMap;

use super::decode::{Decoded, Element, Immediate, Insn, InvokeKind, Kind};
use super::state::{Abs, Frame, Slot, merge_locals};
use super::vars::Vars;
use super::{NodeKey, Shape};
use crate::classfile::{Handle, Loadable};
use crate::ir::{
    BinOp, BlockId, Call, CallKind, CmpOp, Const, DynamicCall, Expr, Operand, Place, Stmt,
    StmtKind, Terminator, VarId,
};
use membound_jvm::{ClassName, MethodRef, Type};

/// Deepest nesting of `jsr` subroutines; javac never nests more than a few `finally` blocks,
/// and a recursive `jsr` (which the JVM rejects) would otherwise unfold forever.
const MAX_SUBROUTINE_DEPTH: usize = 16;

/// A value on the operand stack. Return addresses carry a placeholder operand that is never
/// emitted: every use of a stack value checks its kind first.
#[derive(Clone, Debug)]
struct Val {
    op: Operand,
    abs: Abs,
}

/// What running a block produced. Terminator targets are indices into `successors`.
pub(super) struct Exit {
    pub stmts: Vec<Stmt>,
    pub terminator: Terminator,
    pub successors: Vec<(NodeKey, Frame)>,
    /// The locals at every point where an exception can leave the block, merged.
    pub handler_locals: Vec<Slot>,
}

/// The entry stacks of blocks as far as they are known: final in the emitting pass.
pub(super) type EntryStacks<'a> = &'a dyn Fn(&NodeKey) -> Option<Vec<Abs>>;

pub(super) struct Interp<'s, 'v> {
    shape: &'s Shape<'s>,
    vars: &'s mut Vars<'v>,
    key: &'s NodeKey,
    entry_stacks: EntryStacks<'s>,
    locals: Vec<Slot>,
    stack: Vec<Val>,
    stmts: Vec<Stmt>,
    handler_locals: Vec<Slot>,
    pc: u32,
    line: Option<u32>,
    /// Temporaries made so far in this block.
    temporaries: u32,
    /// Words on the operand stack (long and double take two).
    words: usize,
}

type Step = Result<Option<(Terminator, Vec<(NodeKey, Frame)>)>, String>;

impl<'s, 'v> Interp<'s, 'v> {
    pub(super) fn new(
        shape: &'s Shape<'s>,
        vars: &'s mut Vars<'v>,
        key: &'s NodeKey,
        entry_stacks: EntryStacks<'s>,
    ) -> Self {
        Interp {
            shape,
            vars,
            key,
            entry_stacks,
            locals: Vec::new(),
            stack: Vec::new(),
            stmts: Vec::new(),
            handler_locals: Vec::new(),
            pc: 0,
            line: None,
            temporaries: 0,
            words: 0,
        }
    }

    /// Runs the block from its entry frame to its terminator.
    pub(super) fn run(mut self, entry: &Frame) -> Result<Exit, String> {
        let block = self.shape.block(self.key.block)?;
        let insns = self.shape.insns_of(block);
        let first_pc = insns.first().map(|d| d.pc).unwrap_or(0);
        self.pc = first_pc;
        self.line = self.shape.code.line_at(first_pc);
        self.locals = entry.locals.clone();
        self.handler_locals = entry.locals.clone();
        self.enter(entry);
        let guarded = !block.handlers.is_empty();
        for (position, decoded) in insns.iter().enumerate() {
            self.pc = decoded.pc;
            self.line = self.shape.code.line_at(decoded.pc);
            if guarded {
                merge_locals(&mut self.handler_locals, &self.locals);
            }
            let next = insns.get(position + 1).map(|d| &d.insn);
            if let Some((terminator, successors)) = self.step(decoded, next)? {
                return Ok(self.exit(terminator, successors));
            }
        }
        let end = insns.last().map(|d| d.next).unwrap_or(first_pc);
        let successors = self.jump(&[(end, self.key.context.clone())])?;
        Ok(self.exit(Terminator::Goto(BlockId(0)), successors))
    }

    fn exit(self, terminator: Terminator, successors: Vec<(NodeKey, Frame)>) -> Exit {
        Exit {
            stmts: self.stmts,
            terminator,
            successors,
            handler_locals: self.handler_locals,
        }
    }

    /// Sets up the stack: entry values live in their depth's variable; a handler block first
    /// takes the exception.
    fn enter(&mut self, entry: &Frame) {
        for (depth, abs) in entry.stack.iter().enumerate() {
            let op = match abs {
                Abs::ReturnAddress(_) => placeholder(),
                _ => Operand::Var(self.vars.stack(depth as u16, abs)),
            };
            self.words += usize::from(abs.words());
            self.stack.push(Val {
                op,
                abs: abs.clone(),
            });
        }
        if !self.key.handler {
            return;
        }
        if let Some(Val {
            op: Operand::Var(var),
            abs,
        }) = self.stack.first().cloned()
        {
            self.assign(var, Expr::CaughtException, &abs);
        }
    }

    // ----- statements and variables -------------------------------------------------------

    fn emit(&mut self, kind: StmtKind) {
        self.stmts.push(Stmt {
            pc: self.pc,
            line: self.line,
            kind,
        });
    }

    fn assign(&mut self, dst: VarId, value: Expr, abs: &Abs) {
        self.vars.assigned(dst, abs);
        self.emit(StmtKind::Assign { dst, value });
    }

    /// Before `var` is overwritten, stack entries still reading it get a copy: in the
    /// variable of their depth when nothing else reads that (`reads` are the operands of the
    /// statement about to be emitted), else in a fresh temporary.
    fn before_write(&mut self, var: VarId, reads: &[Operand]) {
        for depth in 0..self.stack.len() {
            if self.stack[depth].op != Operand::Var(var) {
                continue;
            }
            let abs = self.stack[depth].abs.clone();
            let own = self.vars.stack(depth as u16, &abs);
            let busy = own == var
                || self.stack.iter().any(|v| v.op == Operand::Var(own))
                || reads.contains(&Operand::Var(own));
            let copy = if busy { self.temporary(&abs) } else { own };
            self.assign(copy, Expr::Use(Operand::Var(var)), &abs);
            for value in &mut self.stack {
                if value.op == Operand::Var(var) {
                    value.op = Operand::Var(copy);
                }
            }
        }
    }

    /// A variable no stack entry refers to, numbered above the deepest stack the method can
    /// have, unique within the block.
    fn temporary(&mut self, abs: &Abs) -> VarId {
        let depth = u32::from(self.shape.code.max_stack) + 1 + self.temporaries;
        self.temporaries += 1;
        self.vars
            .stack(u16::try_from(depth).unwrap_or(u16::MAX), abs)
    }

    /// Moves every stack value into the variable of its depth for the given entry types, as
    /// a parallel move: a move runs once no other pending move still reads its target; when
    /// only cycles are left (a swap), one source is parked in a temporary.
    fn materialize(&mut self, types: &[Abs]) {
        let mut pending: Vec<Option<VarId>> = vec![None; self.stack.len()];
        let mut writer: HashMap<VarId, usize> = HashMap::new();
        let mut readers: HashMap<VarId, usize> = HashMap::new();
        for (depth, (value, abs)) in self.stack.iter().zip(types).enumerate() {
            if matches!(value.abs, Abs::ReturnAddress(_)) || matches!(abs, Abs::ReturnAddress(_)) {
                continue;
            }
            let target = self.vars.stack(depth as u16, abs);
            if value.op != Operand::Var(target) {
                pending[depth] = Some(target);
                writer.insert(target, depth);
                if let Operand::Var(source) = value.op {
                    *readers.entry(source).or_default() += 1;
                }
            }
        }
        let mut ready: Vec<usize> = (0..pending.len())
            .filter(|depth| pending[*depth].is_some_and(|t| !readers.contains_key(&t)))
            .collect();
        let mut remaining = pending.iter().flatten().count();
        while remaining > 0 {
            while let Some(depth) = ready.pop() {
                let Some(target) = pending[depth].take() else {
                    continue;
                };
                let source = self.stack[depth].op.clone();
                self.move_entry(depth, target);
                remaining -= 1;
                let Operand::Var(source) = source else {
                    continue;
                };
                let count = readers.entry(source).or_default();
                *count = count.saturating_sub(1);
                if *count == 0 {
                    readers.remove(&source);
                    ready.extend(writer.get(&source).filter(|d| pending[**d].is_some()));
                }
            }
            if remaining > 0 && !self.break_cycle(&mut pending, &writer, &mut readers, &mut ready) {
                break;
            }
        }
    }

    /// Parks the source of one pending move that is itself a pending target in a temporary,
    /// which lets the move writing that target go; false if there is none (no cycle).
    fn break_cycle(
        &mut self,
        pending: &mut [Option<VarId>],
        writer: &HashMap<VarId, usize>,
        readers: &mut HashMap<VarId, usize>,
        ready: &mut Vec<usize>,
    ) -> bool {
        let is_pending_target =
            |var: &VarId| writer.get(var).is_some_and(|d| pending[*d].is_some());
        let Some(source) = (0..pending.len())
            .filter(|depth| pending[*depth].is_some())
            .find_map(|depth| match self.stack[depth].op {
                Operand::Var(var) if is_pending_target(&var) => Some((var, depth)),
                _ => None,
            })
        else {
            return false;
        };
        let (source, depth) = source;
        let abs = self.stack[depth].abs.clone();
        let temporary = self.temporary(&abs);
        self.assign(temporary, Expr::Use(Operand::Var(source)), &abs);
        for (value, target) in self.stack.iter_mut().zip(pending.iter()) {
            if target.is_some() && value.op == Operand::Var(source) {
                value.op = Operand::Var(temporary);
            }
        }
        readers.remove(&source);
        ready.extend(writer.get(&source).copied());
        true
    }

    fn move_entry(&mut self, depth: usize, target: VarId) {
        let Some(value) = self.stack.get(depth).cloned() else {
            return;
        };
        self.assign(target, Expr::Use(value.op), &value.abs);
        if let Some(entry) = self.stack.get_mut(depth) {
            entry.op = Operand::Var(target);
        }
    }

    // ----- the operand stack ----------------------------------------------------------------

    fn pop(&mut self) -> Result<Val, String> {
        let value = self
            .stack
            .pop()
            .ok_or_else(|| format!("operand stack underflow at pc {}", self.pc))?;
        self.words = self.words.saturating_sub(usize::from(value.abs.words()));
        Ok(value)
    }

    fn pop_kind(&mut self, kind: Kind) -> Result<Val, String> {
        let value = self.pop()?;
        if value.abs.kind() != Some(kind) {
            return Err(format!(
                "expected {} on the stack at pc {}, found {:?}",
                kind_name(kind),
                self.pc,
                value.abs
            ));
        }
        Ok(value)
    }

    fn pop_op(&mut self, kind: Kind) -> Result<Operand, String> {
        Ok(self.pop_kind(kind)?.op)
    }

    fn push(&mut self, op: Operand, abs: Abs) -> Result<(), String> {
        let words = self.words + usize::from(abs.words());
        if words > usize::from(self.shape.code.max_stack) {
            return Err(format!(
                "operand stack overflow at pc {} (max_stack {})",
                self.pc, self.shape.code.max_stack
            ));
        }
        self.words = words;
        self.stack.push(Val { op, abs });
        Ok(())
    }

    /// The variable that receives a computed value: the local the next instruction stores it
    /// into, else the stack variable of the depth it is pushed at.
    /// `reads` are the operands of the statement computing the value.
    fn result_var(&mut self, abs: &Abs, next: Option<&Insn>, reads: &[Operand]) -> VarId {
        if let Some(Insn::Store(kind, slot)) = next {
            let fits = usize::from(*slot) + usize::from(abs.words())
                <= usize::from(self.shape.code.max_locals);
            if abs.kind() == Some(*kind) && fits {
                let local = self.vars.local(*slot, *kind);
                self.before_write(local, reads);
                return local;
            }
        }
        let var = self.vars.stack(self.stack.len() as u16, abs);
        self.before_write(var, reads);
        var
    }

    fn push_expr(&mut self, value: Expr, abs: Abs, next: Option<&Insn>) -> Result<(), String> {
        let reads: Vec<Operand> = value.operands().into_iter().cloned().collect();
        let dst = self.result_var(&abs, next, &reads);
        self.assign(dst, value, &abs);
        self.push(Operand::Var(dst), abs)
    }

    // ----- local variables ------------------------------------------------------------------

    fn load(&mut self, kind: Kind, slot: u16) -> Result<(), String> {
        let abs = match self.locals.get(usize::from(slot)) {
            Some(Some(abs)) if abs.kind() == Some(kind) => abs.clone(),
            Some(other) => {
                return Err(format!(
                    "load of {} from local {slot} at pc {}, which holds {other:?}",
                    kind_name(kind),
                    self.pc
                ));
            }
            None => return Err(self.bad_slot(slot)),
        };
        let var = self.vars.local(slot, kind);
        self.push(Operand::Var(var), abs)
    }

    fn store(&mut self, kind: Kind, slot: u16) -> Result<(), String> {
        let value = self.pop()?;
        if kind == Kind::Ref && matches!(value.abs, Abs::ReturnAddress(_)) {
            return self.set_local(slot, value.abs);
        }
        if value.abs.kind() != Some(kind) {
            return Err(format!(
                "store of {:?} as {} into local {slot} at pc {}",
                value.abs,
                kind_name(kind),
                self.pc
            ));
        }
        self.set_local(slot, value.abs.clone())?;
        let var = self.vars.local(slot, kind);
        if value.op != Operand::Var(var) {
            self.before_write(var, std::slice::from_ref(&value.op));
            self.assign(var, Expr::Use(value.op), &value.abs);
        }
        Ok(())
    }

    /// Records a value in a slot; a long or double also takes the next slot, and a value
    /// written over half of a long or double makes the other half unusable.
    fn set_local(&mut self, slot: u16, abs: Abs) -> Result<(), String> {
        let index = usize::from(slot);
        let words = usize::from(abs.words());
        if index + words > self.locals.len() {
            return Err(self.bad_slot(slot));
        }
        if let Some(previous) = index.checked_sub(1)
            && matches!(self.locals[previous], Some(Abs::Long | Abs::Double))
        {
            self.locals[previous] = None;
        }
        self.locals[index] = Some(abs);
        if words == 2 {
            self.locals[index + 1] = None;
        }
        Ok(())
    }

    fn bad_slot(&self, slot: u16) -> String {
        format!(
            "local {slot} at pc {} is beyond max_locals {}",
            self.pc,
            self.locals.len()
        )
    }

    fn iinc(&mut self, slot: u16, delta: i32) -> Result<(), String> {
        match self.locals.get(usize::from(slot)) {
            Some(Some(Abs::Int(_))) => {}
            Some(_) => return Err(format!("iinc of non-int local {slot} at pc {}", self.pc)),
            None => return Err(self.bad_slot(slot)),
        }
        let var = self.vars.local(slot, Kind::Int);
        self.before_write(var, &[]);
        let sum = Expr::Binary {
            op: BinOp::Add,
            lhs: Operand::Var(var),
            rhs: Operand::Const(Const::Int(delta)),
        };
        self.assign(var, sum, &Abs::int());
        self.set_local(slot, Abs::int())
    }

    // ----- instructions ---------------------------------------------------------------------

    fn step(&mut self, decoded: &Decoded, next: Option<&Insn>) -> Step {
        let pc = self.pc;
        match &decoded.insn {
            Insn::Nop => {}
            Insn::Push(immediate) => {
                let (value, abs) = immediate_value(*immediate);
                self.push(Operand::Const(value), abs)?;
            }
            Insn::Ldc { index, wide } => self.ldc(*index, *wide)?,
            Insn::Load(kind, slot) => self.load(*kind, *slot)?,
            Insn::Store(kind, slot) => self.store(*kind, *slot)?,
            Insn::ArrayLoad(element) => self.array_load(*element, next)?,
            Insn::ArrayStore(element) => self.array_store(*element)?,
            Insn::Pop { words } => {
                self.pop_words(*words)?;
            }
            Insn::Dup { words, below } => self.dup(*words, *below)?,
            Insn::Swap => self.swap()?,
            Insn::Binary(kind, op) => self.binary(*kind, *op, next)?,
            Insn::Neg(kind) => {
                let operand = self.pop_op(*kind)?;
                self.push_expr(Expr::Neg(operand), abs_of_kind(*kind), next)?;
            }
            Insn::Iinc { slot, delta } => self.iinc(*slot, *delta)?,
            Insn::Convert { from, to } => {
                let operand = self.pop_op(*from)?;
                self.push_expr(Expr::Convert(operand, to.clone()), Abs::of(to), next)?;
            }
            Insn::Compare(kind, op) => {
                let rhs = self.pop_op(*kind)?;
                let lhs = self.pop_op(*kind)?;
                self.push_expr(Expr::Binary { op: *op, lhs, rhs }, Abs::int(), next)?;
            }
            Insn::IfZero(op, target) => {
                let lhs = self.pop_op(Kind::Int)?;
                return self.branch(
                    *op,
                    lhs,
                    Operand::Const(Const::Int(0)),
                    *target,
                    decoded.next,
                );
            }
            Insn::IfIntCmp(op, target) => {
                let rhs = self.pop_op(Kind::Int)?;
                let lhs = self.pop_op(Kind::Int)?;
                return self.branch(*op, lhs, rhs, *target, decoded.next);
            }
            Insn::IfRefCmp(op, target) => {
                let rhs = self.pop_op(Kind::Ref)?;
                let lhs = self.pop_op(Kind::Ref)?;
                return self.branch(*op, lhs, rhs, *target, decoded.next);
            }
            Insn::IfNull(op, target) => {
                let lhs = self.pop_op(Kind::Ref)?;
                return self.branch(*op, lhs, Operand::Const(Const::Null), *target, decoded.next);
            }
            Insn::Goto(target) => {
                let successors = self.jump(&[(*target, self.key.context.clone())])?;
                return Ok(Some((Terminator::Goto(BlockId(0)), successors)));
            }
            Insn::Jsr(target) => return self.jsr(*target, decoded.next),
            Insn::Ret(slot) => return self.ret(*slot),
            Insn::Switch { default, cases } => return self.switch(*default, cases),
            Insn::Return(kind) => return self.return_(*kind),
            Insn::Throw => {
                let exception = self.pop_op(Kind::Ref)?;
                return Ok(Some((Terminator::Throw(exception), Vec::new())));
            }
            Insn::GetStatic(index) => {
                let field = self.shape.pool_at(pc, |p| p.field_ref(*index))?;
                let abs = Abs::of(&field.ty);
                self.push_expr(Expr::Load(Place::Static(field)), abs, next)?;
            }
            Insn::PutStatic(index) => {
                let field = self.shape.pool_at(pc, |p| p.field_ref(*index))?;
                let value = self.pop_for(&field.ty)?;
                self.emit(StmtKind::Store {
                    place: Place::Static(field),
                    value,
                });
            }
            Insn::GetField(index) => {
                let field = self.shape.pool_at(pc, |p| p.field_ref(*index))?;
                let object = self.pop_op(Kind::Ref)?;
                let abs = Abs::of(&field.ty);
                self.push_expr(Expr::Load(Place::Field { object, field }), abs, next)?;
            }
            Insn::PutField(index) => {
                let field = self.shape.pool_at(pc, |p| p.field_ref(*index))?;
                let value = self.pop_for(&field.ty)?;
                let object = self.pop_op(Kind::Ref)?;
                self.emit(StmtKind::Store {
                    place: Place::Field { object, field },
                    value,
                });
            }
            Insn::Invoke(kind, index) => self.invoke(*kind, *index, next)?,
            Insn::InvokeDynamic(index) => self.invoke_dynamic(*index, next)?,
            Insn::New(index) => {
                let class = self.shape.pool_at(pc, |p| p.class_name(*index))?;
                let abs = Abs::Ref(Type::Ref(class.clone()));
                self.push_expr(Expr::New(class), abs, next)?;
            }
            Insn::NewPrimitiveArray(element) => {
                self.new_array(element.clone().array_of(), 1, next)?
            }
            Insn::ANewArray(index) => {
                let element = self.shape.pool_at(pc, |p| p.class_type(*index))?;
                self.new_array(element.array_of(), 1, next)?;
            }
            Insn::MultiANewArray { index, dims } => {
                let ty = self.shape.pool_at(pc, |p| p.class_type(*index))?;
                if *dims == 0 || usize::from(*dims) > ty.rank() {
                    return Err(format!(
                        "multianewarray at pc {pc} makes {dims} dimensions of {ty}"
                    ));
                }
                self.new_array(ty, *dims, next)?;
            }
            Insn::ArrayLength => {
                let array = self.pop_op(Kind::Ref)?;
                self.push_expr(Expr::ArrayLength(array), Abs::int(), next)?;
            }
            Insn::CheckCast(index) => {
                let ty = self.shape.pool_at(pc, |p| p.class_type(*index))?;
                let object = self.pop_op(Kind::Ref)?;
                self.push_expr(Expr::CheckCast(object, ty.clone()), Abs::Ref(ty), next)?;
            }
            Insn::InstanceOf(index) => {
                let ty = self.shape.pool_at(pc, |p| p.class_type(*index))?;
                let object = self.pop_op(Kind::Ref)?;
                self.push_expr(Expr::InstanceOf(object, ty), Abs::int(), next)?;
            }
            Insn::MonitorEnter | Insn::MonitorExit => {
                let object = self.pop_op(Kind::Ref)?;
                let enter = decoded.insn == Insn::MonitorEnter;
                self.emit(StmtKind::Monitor { enter, object });
            }
        }
        Ok(None)
    }

    fn pop_for(&mut self, ty: &Type) -> Result<Operand, String> {
        let kind = Abs::of(ty).kind().unwrap_or(Kind::Ref);
        self.pop_op(kind)
    }

    fn ldc(&mut self, index: u16, wide: bool) -> Result<(), String> {
        let loadable = self.shape.pool_at(self.pc, |p| p.loadable(index))?;
        let is_wide = matches!(loadable, Loadable::Long(_) | Loadable::Double(_))
            || matches!(&loadable, Loadable::Dynamic { ty, .. } if ty.is_wide());
        if is_wide != wide {
            return Err(format!(
                "ldc at pc {} loads constant {index} of the wrong size",
                self.pc
            ));
        }
        let (value, abs) = loadable_value(loadable);
        self.push(Operand::Const(value), abs)
    }

    fn array_load(&mut self, element: Element, next: Option<&Insn>) -> Result<(), String> {
        let index = self.pop_op(Kind::Int)?;
        let array = self.pop_kind(Kind::Ref)?;
        let abs = element_value(element, &array.abs);
        let place = Place::ArrayElement {
            array: array.op,
            index,
        };
        self.push_expr(Expr::Load(place), abs, next)
    }

    fn array_store(&mut self, element: Element) -> Result<(), String> {
        let value = self.pop_op(element_kind(element))?;
        let index = self.pop_op(Kind::Int)?;
        let array = self.pop_op(Kind::Ref)?;
        self.emit(StmtKind::Store {
            place: Place::ArrayElement { array, index },
            value,
        });
        Ok(())
    }

    /// Pops whole values making up exactly `words` words (a long is one value of two words).
    fn pop_words(&mut self, words: u8) -> Result<Vec<Val>, String> {
        let mut popped = Vec::new();
        let mut taken = 0;
        while taken < words {
            let value = self.pop()?;
            taken += value.abs.words();
            popped.push(value);
        }
        if taken != words {
            return Err(format!(
                "instruction at pc {} splits a two-word value on the stack",
                self.pc
            ));
        }
        popped.reverse();
        Ok(popped)
    }

    /// The `dup` family by word counts, which covers every form of JVMS §6.5 `dup_x2`,
    /// `dup2_x1` and `dup2_x2`: the top `words` words are copied below the `below` words
    /// under them.
    fn dup(&mut self, words: u8, below: u8) -> Result<(), String> {
        let top = self.pop_words(words)?;
        let under = self.pop_words(below)?;
        for value in top.iter().chain(&under).chain(&top) {
            self.push(value.op.clone(), value.abs.clone())?;
        }
        Ok(())
    }

    fn swap(&mut self) -> Result<(), String> {
        let first = self.pop_words(1)?;
        let second = self.pop_words(1)?;
        for value in first.iter().chain(&second) {
            self.push(value.op.clone(), value.abs.clone())?;
        }
        Ok(())
    }

    fn binary(&mut self, kind: Kind, op: BinOp, next: Option<&Insn>) -> Result<(), String> {
        let shift = matches!(op, BinOp::Shl | BinOp::Shr | BinOp::Ushr);
        // Shift distances are ints even when shifting a long.
        let rhs = self.pop_op(if shift { Kind::Int } else { kind })?;
        let lhs = self.pop_op(kind)?;
        self.push_expr(Expr::Binary { op, lhs, rhs }, abs_of_kind(kind), next)
    }

    fn new_array(&mut self, ty: Type, dims: u8, next: Option<&Insn>) -> Result<(), String> {
        let mut sizes = Vec::with_capacity(usize::from(dims));
        for _ in 0..dims {
            sizes.push(self.pop_op(Kind::Int)?);
        }
        // The outermost dimension was pushed first.
        sizes.reverse();
        let abs = Abs::Ref(ty.clone());
        self.push_expr(Expr::NewArray { ty, dims: sizes }, abs, next)
    }

    fn pop_arguments(&mut self, params: &[Type]) -> Result<Vec<Operand>, String> {
        let mut args = Vec::with_capacity(params.len());
        for param in params.iter().rev() {
            args.push(self.pop_for(param)?);
        }
        args.reverse();
        Ok(args)
    }

    fn invoke(&mut self, kind: InvokeKind, index: u16, next: Option<&Insn>) -> Result<(), String> {
        let (method, _interface) = self.shape.pool_at(self.pc, |p| p.method_ref(index))?;
        let descriptor = method
            .parsed_descriptor()
            .map_err(|e| format!("call at pc {}: {e}", self.pc))?;
        let args = self.pop_arguments(&descriptor.params)?;
        let receiver = match kind {
            InvokeKind::Static => None,
            _ => Some(self.pop_op(Kind::Ref)?),
        };
        let kind = match kind {
            InvokeKind::Virtual => CallKind::Virtual,
            InvokeKind::Special => CallKind::Special,
            InvokeKind::Static => CallKind::Static,
            InvokeKind::Interface => CallKind::Interface,
        };
        let call = Call {
            kind,
            method,
            receiver,
            args,
        };
        self.call(call, descriptor.ret.as_ref(), next)
    }

    fn call(&mut self, call: Call, ret: Option<&Type>, next: Option<&Insn>) -> Result<(), String> {
        let Some(ret) = ret else {
            self.emit(StmtKind::Invoke { dst: None, call });
            return Ok(());
        };
        let abs = Abs::of(ret);
        let reads: Vec<Operand> = call.receiver.iter().chain(&call.args).cloned().collect();
        let dst = self.result_var(&abs, next, &reads);
        self.vars.assigned(dst, &abs);
        self.emit(StmtKind::Invoke {
            dst: Some(dst),
            call,
        });
        self.push(Operand::Var(dst), abs)
    }

    fn invoke_dynamic(&mut self, index: u16, next: Option<&Insn>) -> Result<(), String> {
        let pc = self.pc;
        let (bootstrap_index, name, descriptor) = self.shape.pool_at(pc, |p| {
            p.invoke_dynamic(index)
                .map(|(bootstrap, name, descriptor)| (bootstrap, name.clone(), descriptor.clone()))
        })?;
        let bootstrap = self
            .shape
            .class
            .bootstrap_methods
            .get(usize::from(bootstrap_index))
            .ok_or_else(|| {
                format!("invokedynamic at pc {pc}: no bootstrap method {bootstrap_index}")
            })?;
        let Handle::Method(_, bootstrap_method) = &bootstrap.method else {
            return Err(format!(
                "invokedynamic at pc {pc}: bootstrap handle is not a method"
            ));
        };
        let site = MethodRef {
            class: bootstrap_method.class.clone(),
            name,
            descriptor,
        };
        let parsed = site
            .parsed_descriptor()
            .map_err(|e| format!("invokedynamic at pc {pc}: {e}"))?;
        let dynamic =
            self.dynamic_call(bootstrap_method, &bootstrap.arguments, parsed.ret.as_ref())?;
        let args = self.pop_arguments(&parsed.params)?;
        let call = Call {
            kind: CallKind::Dynamic(dynamic),
            method: site,
            receiver: None,
            args,
        };
        self.call(call, parsed.ret.as_ref(), next)
    }

    /// Recognises string concatenation and lambdas by their bootstrap methods.
    fn dynamic_call(
        &self,
        bootstrap: &MethodRef,
        arguments: &[u16],
        ret: Option<&Type>,
    ) -> Result<DynamicCall, String> {
        let argument = |i: usize| -> Result<Option<Loadable>, String> {
            match arguments.get(i) {
                Some(index) => self
                    .shape
                    .pool_at(self.pc, |p| p.loadable(*index))
                    .map(Some),
                None => Ok(None),
            }
        };
        let dynamic = match (bootstrap.class.internal(), &*bootstrap.name) {
            ("java/lang/invoke/StringConcatFactory", "makeConcatWithConstants") => {
                let recipe = match argument(0)? {
                    Some(Loadable::String(recipe)) => Some(recipe),
                    _ => None,
                };
                DynamicCall::StringConcat { recipe }
            }
            ("java/lang/invoke/StringConcatFactory", "makeConcat") => {
                DynamicCall::StringConcat { recipe: None }
            }
            ("java/lang/invoke/LambdaMetafactory", "metafactory" | "altMetafactory") => {
                match (ret, argument(1)?) {
                    (
                        Some(Type::Ref(interface)),
                        Some(Loadable::MethodHandle(Handle::Method(_, implementation))),
                    ) => DynamicCall::Lambda {
                        interface: interface.clone(),
                        implementation,
                    },
                    _ => DynamicCall::Other {
                        bootstrap: bootstrap.clone(),
                    },
                }
            }
            _ => DynamicCall::Other {
                bootstrap: bootstrap.clone(),
            },
        };
        Ok(dynamic)
    }

    // ----- control flow ---------------------------------------------------------------------

    /// Moves the stack into the successors' entry variables and returns the successors with
    /// the frames flowing into them.
    fn jump(&mut self, targets: &[(u32, Vec<u32>)]) -> Result<Vec<(NodeKey, Frame)>, String> {
        let own: Vec<Abs> = self.stack.iter().map(|v| v.abs.clone()).collect();
        let mut successors = Vec::with_capacity(targets.len());
        for (pc, context) in targets {
            let key = NodeKey {
                block: self.shape.block_at(*pc)?,
                context: context.clone(),
                handler: false,
            };
            let types = (self.entry_stacks)(&key)
                .filter(|types| types.len() == own.len())
                .unwrap_or_else(|| own.clone());
            self.materialize(&types);
            let frame = Frame {
                locals: self.locals.clone(),
                stack: own.clone(),
            };
            successors.push((key, frame));
        }
        Ok(successors)
    }

    /// Copies terminator operands that the end-of-block moves might overwrite: a stack
    /// variable of a depth still occupied by another value.
    fn protect(&mut self, operands: &mut [&mut Operand]) {
        for operand in operands.iter_mut() {
            let Operand::Var(var) = **operand else {
                continue;
            };
            let Some(depth) = self.vars.stack_depth(var) else {
                continue;
            };
            let occupied_by_other = self
                .stack
                .get(usize::from(depth))
                .is_some_and(|v| v.op != Operand::Var(var));
            if occupied_by_other {
                let abs = self.vars.value(var);
                let temporary = self.temporary(&abs);
                self.assign(temporary, Expr::Use(Operand::Var(var)), &abs);
                **operand = Operand::Var(temporary);
            }
        }
    }

    fn branch(
        &mut self,
        op: CmpOp,
        lhs: Operand,
        rhs: Operand,
        target: u32,
        fallthrough: u32,
    ) -> Step {
        let (mut lhs, mut rhs) = (lhs, rhs);
        self.protect(&mut [&mut lhs, &mut rhs]);
        let context = self.key.context.clone();
        let successors = self.jump(&[(target, context.clone()), (fallthrough, context)])?;
        let terminator = Terminator::If {
            op,
            lhs,
            rhs,
            then_target: BlockId(0),
            else_target: BlockId(1),
        };
        Ok(Some((terminator, successors)))
    }

    fn switch(&mut self, default: u32, cases: &[(i32, u32)]) -> Step {
        let mut key = self.pop_op(Kind::Int)?;
        self.protect(&mut [&mut key]);
        let context = self.key.context.clone();
        let mut targets: Vec<(u32, Vec<u32>)> = vec![(default, context.clone())];
        targets.extend(cases.iter().map(|(_, pc)| (*pc, context.clone())));
        let successors = self.jump(&targets)?;
        let cases = cases
            .iter()
            .enumerate()
            .map(|(i, (value, _))| (*value, BlockId(i as u32 + 1)))
            .collect();
        let terminator = Terminator::Switch {
            key,
            cases,
            default: BlockId(0),
        };
        Ok(Some((terminator, successors)))
    }

    fn return_(&mut self, kind: Option<Kind>) -> Step {
        let declared = self
            .shape
            .method
            .parsed_descriptor
            .ret
            .as_ref()
            .map(|ty| Abs::of(ty).kind());
        if declared != kind.map(Some) {
            return Err(format!(
                "return at pc {} does not match the method's return type",
                self.pc
            ));
        }
        let value = match kind {
            Some(kind) => Some(self.pop_op(kind)?),
            None => None,
        };
        Ok(Some((Terminator::Return(value), Vec::new())))
    }

    /// `jsr`: push the return address and enter the subroutine in a deeper context.
    fn jsr(&mut self, target: u32, return_pc: u32) -> Step {
        if self.key.context.len() >= MAX_SUBROUTINE_DEPTH {
            return Err(format!("subroutines nested too deeply at pc {}", self.pc));
        }
        self.push(placeholder(), Abs::ReturnAddress(return_pc))?;
        let mut context = self.key.context.clone();
        context.push(return_pc);
        let successors = self.jump(&[(target, context)])?;
        Ok(Some((Terminator::Goto(BlockId(0)), successors)))
    }

    /// `ret`: continue after the `jsr` whose return address the local holds, in the context
    /// that `jsr` was executed in.
    fn ret(&mut self, slot: u16) -> Step {
        let Some(Some(Abs::ReturnAddress(return_pc))) = self.locals.get(usize::from(slot)).cloned()
        else {
            return Err(format!(
                "ret at pc {} from local {slot}, which holds no return address",
                self.pc
            ));
        };
        let depth = self
            .key
            .context
            .iter()
            .rposition(|pc| *pc == return_pc)
            .ok_or_else(|| format!("ret at pc {} returns to no active jsr", self.pc))?;
        let context = self.key.context[..depth].to_vec();
        let successors = self.jump(&[(return_pc, context)])?;
        Ok(Some((Terminator::Goto(BlockId(0)), successors)))
    }
}

/// The operand of a return address, never emitted.
fn placeholder() -> Operand {
    Operand::Const(Const::Null)
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Int => "int",
        Kind::Long => "long",
        Kind::Float => "float",
        Kind::Double => "double",
        Kind::Ref => "reference",
    }
}

fn abs_of_kind(kind: Kind) -> Abs {
    match kind {
        Kind::Int => Abs::int(),
        Kind::Long => Abs::Long,
        Kind::Float => Abs::Float,
        Kind::Double => Abs::Double,
        Kind::Ref => Abs::object(),
    }
}

fn immediate_value(immediate: Immediate) -> (Const, Abs) {
    match immediate {
        Immediate::Null => (Const::Null, Abs::Null),
        Immediate::Int(v) => (Const::Int(v), Abs::int()),
        Immediate::Long(v) => (Const::Long(v), Abs::Long),
        Immediate::Float(v) => (Const::Float(v), Abs::Float),
        Immediate::Double(v) => (Const::Double(v), Abs::Double),
    }
}

fn class_type(name: &str) -> Abs {
    Abs::Ref(Type::Ref(ClassName::new(name)))
}

fn loadable_value(loadable: Loadable) -> (Const, Abs) {
    match loadable {
        Loadable::Integer(v) => (Const::Int(v), Abs::int()),
        Loadable::Float(v) => (Const::Float(v), Abs::Float),
        Loadable::Long(v) => (Const::Long(v), Abs::Long),
        Loadable::Double(v) => (Const::Double(v), Abs::Double),
        Loadable::String(text) => (Const::String(text), class_type("java/lang/String")),
        Loadable::Class(ty) => (Const::Class(ty), class_type("java/lang/Class")),
        Loadable::MethodType(descriptor) => (
            Const::Other(format!("methodtype {descriptor}").into()),
            class_type("java/lang/invoke/MethodType"),
        ),
        Loadable::MethodHandle(handle) => (
            Const::Other(describe_handle(&handle).into()),
            class_type("java/lang/invoke/MethodHandle"),
        ),
        Loadable::Dynamic { name, ty } => {
            let abs = Abs::of(&ty);
            (Const::Other(format!("dynamic {name}: {ty}").into()), abs)
        }
    }
}

fn describe_handle(handle: &Handle) -> String {
    match handle {
        Handle::Field(kind, field) => format!("methodhandle {kind:?} {field}"),
        Handle::Method(kind, method) => format!("methodhandle {kind:?} {method}"),
    }
}

fn element_kind(element: Element) -> Kind {
    match element {
        Element::Long => Kind::Long,
        Element::Float => Kind::Float,
        Element::Double => Kind::Double,
        Element::Ref => Kind::Ref,
        Element::Int | Element::ByteOrBoolean | Element::Char | Element::Short => Kind::Int,
    }
}

/// The value an array load produces, typed from the array's type where it is known.
fn element_value(element: Element, array: &Abs) -> Abs {
    let array_element = match array {
        Abs::Ref(Type::Array(element)) => Some(&**element),
        _ => None,
    };
    match element {
        Element::Ref => array_element
            .filter(|ty| ty.is_reference())
            .map(|ty| Abs::Ref(ty.clone()))
            .unwrap_or_else(Abs::object),
        Element::ByteOrBoolean => match array_element {
            Some(Type::Boolean) => Abs::Int(Type::Boolean),
            _ => Abs::Int(Type::Byte),
        },
        Element::Char => Abs::Int(Type::Char),
        Element::Short => Abs::Int(Type::Short),
        Element::Int => Abs::int(),
        Element::Long => Abs::Long,
        Element::Float => Abs::Float,
        Element::Double => Abs::Double,
    }
}

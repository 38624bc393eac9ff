//! Lifting: from a method's stack-machine bytecode to the typed three-address [`Body`].
//!
//! The bytecode is decoded ([`decode`]) and cut into basic blocks at branch targets, after
//! branches, and at the edges of exception ranges, so that every instruction of a block has
//! the same handlers. A data-flow analysis over these blocks ([`state`]) finds, at each block
//! entry, the types of the locals and of the operand stack, following normal and exception
//! edges until nothing changes. A second pass runs each block once more ([`block`]) with the
//! final entry types and emits statements into variables named and typed by [`vars`].
//!
//! Old class files' `jsr`/`ret` subroutines are inlined: a block is analysed once per chain of
//! active `jsr` return points (its subroutine context), so each `ret` knows where it returns.
//! An exception handler entered by an exception is a block of its own, which begins with
//! `v = @caughtexception`. Unreachable code is dropped. Anything the JVM's verifier would
//! reject and that the lifter notices (stack underflow, a bad branch target, a bad constant-pool
//! index, a type clash) is an [`Error::Input`] naming the method, never a panic.

mod block;
mod decode;
mod state;
mod vars;

use std::collections::{BTreeSet, HashMap, VecDeque};

use block::Interp;
use decode::{Decoded, decode};
use state::{Abs, Frame};
use vars::Vars;

use crate::classfile::{Class, Code, ConstantPool, ExceptionHandler, Method, PoolResult};
use crate::ir::{Block, BlockId, Body, Handler, Terminator, VarId, VarOrigin};
use membound_jvm::error::{Error, Result};
use membound_jvm::{ClassName, Type};

/// Most local slots, summed over all blocks' entry frames, a method may need: bounds the
/// memory of the analysis (the biggest methods of java.base need well under a tenth).
const MAX_FRAME_SLOTS: usize = 8_000_000;
/// Most work (instructions run plus local slots merged) the data-flow analysis may do on one
/// method before giving up: bounds the time of pathological input.
const MAX_WORK: usize = 200_000_000;

/// Lifts one method of `class` to IR. Abstract and native methods have no body: an error.
pub fn lift_method(class: &Class, method: &Method) -> Result<Body> {
    let reference = method.reference(&class.name);
    lift(class, method).map_err(|e| Error::Input(format!("{reference}: {e}")))
}

fn lift(class: &Class, method: &Method) -> std::result::Result<Body, String> {
    let code = method
        .code
        .as_ref()
        .ok_or("has no code (it is abstract or native)")?;
    let shape = Shape::new(class, method, code)?;
    let entry = shape.entry_frame()?;
    let graph = analyse(&shape, entry)?;
    emit(&shape, &graph)
}

/// A block as analysed: a code block in a subroutine context, entered normally or by an
/// exception.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct NodeKey {
    /// Index into [`Shape::blocks`].
    block: usize,
    /// Return points of the active `jsr`s, outermost first.
    context: Vec<u32>,
    /// Entered by an exception: the stack holds just the caught exception.
    handler: bool,
}

/// A basic block of the bytecode: instructions `start..end` (indices into the decoded
/// instructions), first at offset `pc`, covered by exception-table rows `handlers`.
struct CodeBlock {
    start: usize,
    end: usize,
    pc: u32,
    handlers: Vec<usize>,
}

/// Everything about the method that does not change during lifting.
struct Shape<'a> {
    class: &'a Class,
    method: &'a Method,
    code: &'a Code,
    insns: Vec<Decoded>,
    blocks: Vec<CodeBlock>,
}

impl<'a> Shape<'a> {
    fn new(
        class: &'a Class,
        method: &'a Method,
        code: &'a Code,
    ) -> std::result::Result<Self, String> {
        let insns = decode(&code.bytecode)?;
        let mut shape = Shape {
            class,
            method,
            code,
            insns,
            blocks: Vec::new(),
        };
        shape.check_exception_table()?;
        shape.blocks = shape.cut_blocks();
        Ok(shape)
    }

    fn is_instruction(&self, pc: u32) -> bool {
        self.insns.binary_search_by_key(&pc, |d| d.pc).is_ok()
    }

    fn check_exception_table(&self) -> std::result::Result<(), String> {
        let length = self.code.bytecode.len() as u32;
        for row in &self.code.exception_table {
            let range_ok = row.start_pc < row.end_pc
                && self.is_instruction(row.start_pc)
                && (row.end_pc == length || self.is_instruction(row.end_pc));
            if !range_ok || !self.is_instruction(row.handler_pc) {
                return Err(format!(
                    "exception-table row {}..{} -> {} does not fit the code",
                    row.start_pc, row.end_pc, row.handler_pc
                ));
            }
        }
        Ok(())
    }

    /// Block leaders: the first instruction, branch targets, instructions after a branch,
    /// handlers, and the bounds of exception ranges.
    fn cut_blocks(&self) -> Vec<CodeBlock> {
        let mut leaders = BTreeSet::from([0u32]);
        for decoded in &self.insns {
            leaders.extend(decoded.insn.targets());
            if decoded.insn.ends_block() {
                leaders.insert(decoded.next);
            }
        }
        for row in &self.code.exception_table {
            leaders.extend([row.start_pc, row.end_pc, row.handler_pc]);
        }
        let mut blocks: Vec<CodeBlock> = Vec::new();
        for (index, decoded) in self.insns.iter().enumerate() {
            if leaders.contains(&decoded.pc) || blocks.is_empty() {
                let handlers = self
                    .code
                    .exception_table
                    .iter()
                    .enumerate()
                    .filter(|(_, row)| row.start_pc <= decoded.pc && decoded.pc < row.end_pc)
                    .map(|(row, _)| row)
                    .collect();
                blocks.push(CodeBlock {
                    start: index,
                    end: index + 1,
                    pc: decoded.pc,
                    handlers,
                });
            } else if let Some(block) = blocks.last_mut() {
                block.end = index + 1;
            }
        }
        blocks
    }

    fn block(&self, index: usize) -> std::result::Result<&CodeBlock, String> {
        self.blocks
            .get(index)
            .ok_or_else(|| format!("no block {index}"))
    }

    fn insns_of(&self, block: &CodeBlock) -> &[Decoded] {
        self.insns.get(block.start..block.end).unwrap_or(&[])
    }

    /// The block starting at `pc`; control reaching the end of the code is an error.
    fn block_at(&self, pc: u32) -> std::result::Result<usize, String> {
        self.blocks
            .binary_search_by_key(&pc, |b| b.pc)
            .map_err(|_| format!("control reaches pc {pc}, which starts no block (it falls off the end of the code)"))
    }

    /// A constant-pool lookup for the instruction at `pc`.
    fn pool_at<T>(
        &self,
        pc: u32,
        lookup: impl FnOnce(&ConstantPool) -> PoolResult<T>,
    ) -> std::result::Result<T, String> {
        lookup(&self.class.pool).map_err(|e| format!("at pc {pc}: {e}"))
    }

    /// The exception a handler receives: its catch type when every row sending exceptions
    /// there agrees, else `Throwable`.
    fn caught(&self, handler_pc: u32) -> Abs {
        let mut types = self
            .code
            .exception_table
            .iter()
            .filter(|row| row.handler_pc == handler_pc)
            .map(|row| row.catch_type.clone());
        let throwable = ClassName::new("java/lang/Throwable");
        let first = types.next().flatten().unwrap_or_else(|| throwable.clone());
        let class = if types.all(|t| t.as_ref() == Some(&first)) {
            first
        } else {
            throwable
        };
        Abs::Ref(Type::Ref(class))
    }

    /// `this` and the parameters in their slots (long and double take two).
    fn parameter_slots(&self) -> Vec<(u16, Abs, VarOrigin)> {
        let mut slots = Vec::new();
        let mut slot = 0u16;
        if !self.method.is_static() {
            slots.push((
                0,
                Abs::Ref(Type::Ref(self.class.name.clone())),
                VarOrigin::This,
            ));
            slot = 1;
        }
        for (index, ty) in self.method.parsed_descriptor.params.iter().enumerate() {
            let abs = Abs::of(ty);
            let words = u16::from(abs.words());
            slots.push((slot, abs, VarOrigin::Param(index as u16)));
            slot = slot.saturating_add(words);
        }
        slots
    }

    fn entry_frame(&self) -> std::result::Result<Frame, String> {
        let mut locals = vec![None; usize::from(self.code.max_locals)];
        for (slot, abs, _) in self.parameter_slots() {
            let index = usize::from(slot);
            if index + usize::from(abs.words()) > locals.len() {
                return Err(format!(
                    "parameters need more than max_locals {}",
                    self.code.max_locals
                ));
            }
            locals[index] = Some(abs);
        }
        Ok(Frame {
            locals,
            stack: Vec::new(),
        })
    }
}

/// The analysed blocks and their final entry frames; node 0 is the method entry.
struct Graph {
    keys: Vec<NodeKey>,
    ids: HashMap<NodeKey, usize>,
    entries: Vec<Frame>,
}

impl Graph {
    /// Adds a frame flowing into `key`; whether the node is new or its entry changed.
    fn flow_into(
        &mut self,
        key: NodeKey,
        frame: Frame,
        pc: u32,
    ) -> std::result::Result<(usize, bool), String> {
        if let Some(&id) = self.ids.get(&key) {
            let changed = self.entries[id].merge(&frame, pc)?;
            return Ok((id, changed));
        }
        if (self.keys.len() + 1) * frame.locals.len().max(1) > MAX_FRAME_SLOTS {
            return Err(format!(
                "too large to lift: {} blocks with {} locals each",
                self.keys.len() + 1,
                frame.locals.len()
            ));
        }
        let id = self.keys.len();
        self.ids.insert(key.clone(), id);
        self.keys.push(key);
        self.entries.push(frame);
        Ok((id, true))
    }

    fn entry_stack(&self, key: &NodeKey) -> Option<Vec<Abs>> {
        let id = self.ids.get(key)?;
        self.entries.get(*id).map(|frame| frame.stack.clone())
    }
}

/// The exception-table rows covering a block, with the handler nodes they lead to, in the
/// order the JVM tries them.
fn handler_targets<'s>(
    shape: &'s Shape<'_>,
    key: &NodeKey,
) -> std::result::Result<Vec<(NodeKey, &'s ExceptionHandler)>, String> {
    let block = shape.block(key.block)?;
    let mut targets = Vec::with_capacity(block.handlers.len());
    for row in block
        .handlers
        .iter()
        .filter_map(|row| shape.code.exception_table.get(*row))
    {
        let handler_key = NodeKey {
            block: shape.block_at(row.handler_pc)?,
            context: key.context.clone(),
            handler: true,
        };
        targets.push((handler_key, row));
    }
    Ok(targets)
}

/// Runs the data-flow analysis to its fixed point.
fn analyse(shape: &Shape<'_>, entry: Frame) -> std::result::Result<Graph, String> {
    let mut graph = Graph {
        keys: Vec::new(),
        ids: HashMap::new(),
        entries: Vec::new(),
    };
    let start = NodeKey {
        block: 0,
        context: Vec::new(),
        handler: false,
    };
    graph.flow_into(start, entry, 0)?;
    let mut queue = VecDeque::from([0usize]);
    let mut queued = vec![true];
    let mut scratch = Vars::new(&shape.code.local_variables);
    let mut work = 0;
    while let Some(id) = queue.pop_front() {
        queued[id] = false;
        let key = graph.keys[id].clone();
        let block = shape.block(key.block)?;
        work += graph.entries[id].locals.len() + (block.end - block.start);
        if work > MAX_WORK {
            return Err("too complex to lift: the type analysis does not settle".into());
        }
        let no_stacks = |_: &NodeKey| None;
        let exit = Interp::new(shape, &mut scratch, &key, &no_stacks).run(&graph.entries[id])?;
        let pc = block.pc;
        let mut edges = exit.successors.clone();
        for (handler_key, row) in handler_targets(shape, &key)? {
            let frame = Frame {
                locals: exit.handler_locals.clone(),
                stack: vec![shape.caught(row.handler_pc)],
            };
            edges.push((handler_key, frame));
        }
        for (successor, frame) in edges {
            let (next, changed) = graph.flow_into(successor, frame, pc)?;
            queued.resize(graph.keys.len(), false);
            if changed && !queued[next] {
                queued[next] = true;
                queue.push_back(next);
            }
        }
    }
    Ok(graph)
}

/// Runs every block once more with the final entry frames, producing the body.
fn emit(shape: &Shape<'_>, graph: &Graph) -> std::result::Result<Body, String> {
    let mut vars = Vars::new(&shape.code.local_variables);
    let params: Vec<VarId> = shape
        .parameter_slots()
        .into_iter()
        .map(|(slot, abs, origin)| vars.parameter(slot, &abs, origin))
        .collect();
    let entry_stacks = |key: &NodeKey| graph.entry_stack(key);
    let mut blocks = Vec::with_capacity(graph.keys.len());
    for (id, key) in graph.keys.iter().enumerate() {
        let exit = Interp::new(shape, &mut vars, key, &entry_stacks).run(&graph.entries[id])?;
        let node_id = |successor: &NodeKey| {
            graph
                .ids
                .get(successor)
                .map(|id| BlockId(*id as u32))
                .ok_or_else(|| "a block was reached only in the final pass".to_string())
        };
        let targets = exit
            .successors
            .iter()
            .map(|(successor, _)| node_id(successor))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let handlers = handler_targets(shape, key)?
            .into_iter()
            .map(|(handler_key, row)| {
                Ok(Handler {
                    catch: row.catch_type.clone(),
                    target: node_id(&handler_key)?,
                })
            })
            .collect::<std::result::Result<Vec<_>, String>>()?;
        let block = shape.block(key.block)?;
        blocks.push(Block {
            stmts: exit.stmts,
            terminator: retarget(exit.terminator, &targets)?,
            handlers,
            pc: block.pc,
        });
    }
    Ok(Body {
        method: shape.method.reference(&shape.class.name),
        is_static: shape.method.is_static(),
        vars: vars.finish(),
        params,
        blocks,
    })
}

/// Replaces the successor indices of a block's terminator by the successors' block ids.
fn retarget(
    terminator: Terminator,
    targets: &[BlockId],
) -> std::result::Result<Terminator, String> {
    let map = |id: BlockId| {
        targets
            .get(id.0 as usize)
            .copied()
            .ok_or_else(|| format!("terminator names successor {} of {}", id.0, targets.len()))
    };
    Ok(match terminator {
        Terminator::Goto(target) => Terminator::Goto(map(target)?),
        Terminator::If {
            op,
            lhs,
            rhs,
            then_target,
            else_target,
        } => Terminator::If {
            op,
            lhs,
            rhs,
            then_target: map(then_target)?,
            else_target: map(else_target)?,
        },
        Terminator::Switch {
            key,
            cases,
            default,
        } => Terminator::Switch {
            key,
            cases: cases
                .into_iter()
                .map(|(value, target)| Ok((value, map(target)?)))
                .collect::<std::result::Result<_, String>>()?,
            default: map(default)?,
        },
        other => other,
    })
}

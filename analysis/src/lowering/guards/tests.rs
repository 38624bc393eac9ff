//! The transfer of guard facts on small hand-written bodies: `hasNext()` at offset 10 on local
//! 0 tests field `next`; the call at offset 30 writes it (another `next()`, a `remove`), the
//! one at offset 20 does not.

use std::sync::Arc;

use super::super::tests::block;
use super::{GuardContext, guarded_calls};
use membound_front::ir::{
    Block, BlockId, Body, Call, CallKind, CmpOp, Const, Expr, Handler, Operand, Place, Stmt,
    StmtKind, Terminator, Var, VarId, VarOrigin,
};
use membound_jvm::{ClassName, FieldRef, MethodRef, Type};

const HAS_NEXT: u32 = 10;
const READS: u32 = 20;
const WRITES: u32 = 30;

fn field() -> FieldRef {
    FieldRef {
        class: ClassName::new("Cursor"),
        name: Arc::from("next"),
        ty: Type::Ref(ClassName::new("Node")),
    }
}

fn var(name: &str, ty: Type) -> Var {
    Var {
        name: Arc::from(name),
        ty,
        origin: VarOrigin::Local(0),
    }
}

/// Local 0 the cursor, local 1 `hasNext()`'s result, local 2 another reference.
fn body(blocks: Vec<Block>) -> Body {
    Body {
        method: MethodRef::new(ClassName::new("T"), "m", "()V"),
        is_static: true,
        vars: vec![
            var("e", Type::Ref(ClassName::new("Cursor"))),
            var("more", Type::Boolean),
            var("p", Type::Ref(ClassName::new("Node"))),
        ],
        params: Vec::new(),
        blocks,
    }
}

fn call(pc: u32, dst: Option<u32>, name: &str, descriptor: &str) -> Stmt {
    Stmt {
        pc,
        line: None,
        kind: StmtKind::Invoke {
            dst: dst.map(VarId),
            call: Call {
                kind: CallKind::Interface,
                method: MethodRef::new(ClassName::new("Cursor"), name, descriptor),
                receiver: Some(Operand::Var(VarId(0))),
                args: Vec::new(),
            },
        },
    }
}

/// `p = e.next()` at `pc`.
fn next(pc: u32) -> Stmt {
    call(pc, Some(2), "next", "()Ljava/lang/Object;")
}

fn has_next() -> Stmt {
    call(HAS_NEXT, Some(1), "hasNext", "()Z")
}

/// `if more == 0 goto exit else body`.
fn test_more(exit: u32, body: u32) -> Terminator {
    Terminator::If {
        op: CmpOp::Eq,
        lhs: Operand::Var(VarId(1)),
        rhs: Operand::Const(Const::Int(0)),
        then_target: BlockId(exit),
        else_target: BlockId(body),
    }
}

/// The fields guarded at the call at `pc` of `body`.
fn guarded_at(body: &Body, pc: u32) -> Vec<FieldRef> {
    let has_more = |at: u32| match at {
        HAS_NEXT => vec![field()],
        _ => Vec::new(),
    };
    let call_writes = |stmt: &Stmt, _: &FieldRef| stmt.pc == WRITES;
    let context = GuardContext {
        has_more: &has_more,
        call_writes: &call_writes,
    };
    guarded_calls(body, &context)
        .get(&pc)
        .cloned()
        .unwrap_or_default()
}

/// `while (e.hasNext()) { <between>; e.next() (offset 40); }`.
fn loop_with(between: Vec<Stmt>) -> Body {
    let mut stmts = between;
    stmts.push(next(40));
    body(vec![
        block(vec![has_next()], test_more(1, 2)),
        block(Vec::new(), Terminator::Return(None)),
        block(stmts, Terminator::Goto(BlockId(0))),
    ])
}

#[test]
fn a_true_has_next_guards_the_next_call_on_the_same_receiver() {
    assert_eq!(guarded_at(&loop_with(Vec::new()), 40), vec![field()]);
}

#[test]
fn a_call_that_does_not_write_the_field_keeps_the_fact() {
    assert_eq!(
        guarded_at(&loop_with(vec![call(READS, None, "peek", "()V")]), 40),
        vec![field()]
    );
}

#[test]
fn a_call_that_may_write_the_field_kills_the_fact() {
    assert!(guarded_at(&loop_with(vec![call(WRITES, None, "skip", "()V")]), 40).is_empty());
}

#[test]
fn a_store_of_the_field_kills_the_fact() {
    let store = Stmt {
        pc: 35,
        line: None,
        kind: StmtKind::Store {
            place: Place::Field {
                object: Operand::Var(VarId(0)),
                field: field(),
            },
            value: Operand::Const(Const::Null),
        },
    };
    assert!(guarded_at(&loop_with(vec![store]), 40).is_empty());
}

#[test]
fn reassigning_the_receiver_kills_the_fact() {
    let reassign = Stmt {
        pc: 35,
        line: None,
        kind: StmtKind::Assign {
            dst: VarId(0),
            value: Expr::Use(Operand::Var(VarId(2))),
        },
    };
    assert!(guarded_at(&loop_with(vec![reassign]), 40).is_empty());
}

#[test]
fn the_false_branch_and_a_join_with_it_have_no_fact() {
    // if (e.hasNext()) {} ; e.next() at 40: reached from both branches.
    let joined = body(vec![
        block(vec![has_next()], test_more(1, 2)),
        block(vec![next(40)], Terminator::Return(None)),
        block(Vec::new(), Terminator::Goto(BlockId(1))),
    ]);
    assert!(guarded_at(&joined, 40).is_empty());
    // The branch where the result is zero has no node.
    let on_false = body(vec![
        block(vec![has_next()], test_more(1, 2)),
        block(vec![next(40)], Terminator::Return(None)),
        block(Vec::new(), Terminator::Return(None)),
    ]);
    assert!(guarded_at(&on_false, 40).is_empty());
}

#[test]
fn the_second_next_after_one_has_next_is_not_guarded() {
    let twice = loop_with(vec![next(WRITES)]);
    assert!(guarded_at(&twice, 40).is_empty());
    assert!(!guarded_at(&twice, WRITES).is_empty());
}

#[test]
fn an_exception_handler_starts_without_facts() {
    let mut guarded = loop_with(Vec::new());
    guarded
        .blocks
        .push(block(vec![next(50)], Terminator::Return(None)));
    guarded.blocks[2].handlers.push(Handler {
        catch: None,
        target: BlockId(3),
    });
    assert!(guarded_at(&guarded, 50).is_empty());
}

//! Lowering of small hand-written bodies, checked by counting the points of the invariant at an
//! allocation against how often the body really runs it.

use std::collections::BTreeMap;
use std::sync::Arc;

use membound_invariants::{Options, Point, PointId, ProcId, Program, analyze};
use membound_polyhedra::{Int, Rat, Value, count};

use super::Exceptions;
use super::body::{CallTargets, LoweredBody, PointKey, lower_body};
use super::fields::FieldPlan;
use membound_front::ir::{
    BinOp, Block, BlockId, Body, CmpOp, Const, Expr, Handler, Operand, Place, Stmt, StmtKind,
    Terminator, Var, VarId, VarOrigin,
};
use membound_jvm::{ClassName, FieldRef, MethodRef, Type};

fn var(name: &str, ty: Type, origin: VarOrigin) -> Var {
    Var {
        name: Arc::from(name),
        ty,
        origin,
    }
}

fn object() -> Type {
    Type::Ref(ClassName::object())
}

fn assign(pc: u32, dst: u32, value: Expr) -> Stmt {
    Stmt {
        pc,
        line: None,
        kind: StmtKind::Assign {
            dst: VarId(dst),
            value,
        },
    }
}

/// A block with no exception handlers.
pub(super) fn block(stmts: Vec<Stmt>, terminator: Terminator) -> Block {
    Block {
        stmts,
        terminator,
        handlers: Vec::new(),
        pc: 0,
    }
}

fn local(id: u32) -> Operand {
    Operand::Var(VarId(id))
}

fn int(value: i32) -> Operand {
    Operand::Const(Const::Int(value))
}

fn static_body(vars: Vec<Var>, blocks: Vec<Block>) -> Body {
    let mut blocks = blocks;
    for (index, block) in blocks.iter_mut().enumerate() {
        block.pc = index as u32;
    }
    Body {
        method: MethodRef::new(ClassName::new("T"), "m", "(I)V"),
        is_static: true,
        vars,
        params: vec![VarId(0)],
        blocks,
    }
}

/// `body` lowered on its own: no field views, no callees, exceptional paths followed.
fn lower_alone(body: &Body) -> LoweredBody {
    lower_body(
        "m",
        body,
        &FieldPlan::default(),
        &|_| CallTargets::default(),
        Exceptions::Followed,
    )
}

/// The number of visits of the point `key` when the method runs with `n`, per its invariant.
fn visits(lowered: &LoweredBody, key: PointKey, n: i64) -> Value {
    let mut program = Program::default();
    program.procedures.push(lowered.procedure.clone());
    for point in &lowered.points {
        program.points.push(Point {
            name: format!("p{}", program.points.len()),
            procedure: ProcId(0),
            node: point.node,
        });
    }
    let index = lowered
        .points
        .iter()
        .position(|p| p.key == key)
        .expect("the point exists");
    let analysis = analyze(&program, &Options::default());
    let names: Vec<&str> = lowered.points[index]
        .inductive
        .iter()
        .map(|&v| lowered.procedure.var_name(v))
        .collect();
    let invariant = analysis.invariant(PointId(index)).project_onto(&names);
    let counted = count(&invariant.to_set()).expect("countable");
    let at = BTreeMap::from([("n_init".to_string(), Int::from(n))]);
    counted.eval(&at).expect("evaluates")
}

fn finite(value: i64) -> Value {
    Value::Finite(Rat::from(Int::from(value)))
}

/// `for (i = 0; i < n; i += 2) new Object();` runs the allocation ceil(n / 2) times.
#[test]
fn counted_loop_with_step_two() {
    let body = static_body(
        vec![
            var("n", Type::Int, VarOrigin::Param(0)),
            var("i", Type::Int, VarOrigin::Local(1)),
            var("o", object(), VarOrigin::Stack(0)),
        ],
        vec![
            block(
                vec![assign(0, 1, Expr::Use(int(0)))],
                Terminator::Goto(BlockId(1)),
            ),
            block(
                Vec::new(),
                Terminator::If {
                    op: CmpOp::Ge,
                    lhs: local(1),
                    rhs: local(0),
                    then_target: BlockId(3),
                    else_target: BlockId(2),
                },
            ),
            block(
                vec![
                    assign(10, 2, Expr::New(ClassName::object())),
                    assign(
                        14,
                        1,
                        Expr::Binary {
                            op: BinOp::Add,
                            lhs: local(1),
                            rhs: int(2),
                        },
                    ),
                ],
                Terminator::Goto(BlockId(1)),
            ),
            block(Vec::new(), Terminator::Return(None)),
        ],
    );
    let lowered = lower_alone(&body);
    for n in [-1, 0, 1, 4, 7] {
        let expected = if n <= 0 { 0 } else { (n + 1) / 2 };
        assert_eq!(
            visits(&lowered, PointKey::At(10), n),
            finite(expected),
            "n = {n}"
        );
    }
}

/// `for (j = 1; j <= n; j++) if (j % 3 == 0) new Object();` runs it floor(n / 3) times.
#[test]
fn remainder_guard_becomes_a_mod_guard() {
    let body = static_body(
        vec![
            var("n", Type::Int, VarOrigin::Param(0)),
            var("j", Type::Int, VarOrigin::Local(1)),
            var("$s0", Type::Int, VarOrigin::Stack(0)),
            var("o", object(), VarOrigin::Stack(0)),
        ],
        vec![
            block(
                vec![assign(0, 1, Expr::Use(int(1)))],
                Terminator::Goto(BlockId(1)),
            ),
            block(
                Vec::new(),
                Terminator::If {
                    op: CmpOp::Gt,
                    lhs: local(1),
                    rhs: local(0),
                    then_target: BlockId(5),
                    else_target: BlockId(2),
                },
            ),
            block(
                vec![assign(
                    8,
                    2,
                    Expr::Binary {
                        op: BinOp::Rem,
                        lhs: local(1),
                        rhs: int(3),
                    },
                )],
                Terminator::If {
                    op: CmpOp::Ne,
                    lhs: local(2),
                    rhs: int(0),
                    then_target: BlockId(4),
                    else_target: BlockId(3),
                },
            ),
            block(
                vec![assign(20, 3, Expr::New(ClassName::object()))],
                Terminator::Goto(BlockId(4)),
            ),
            block(
                vec![assign(
                    30,
                    1,
                    Expr::Binary {
                        op: BinOp::Add,
                        lhs: local(1),
                        rhs: int(1),
                    },
                )],
                Terminator::Goto(BlockId(1)),
            ),
            block(Vec::new(), Terminator::Return(None)),
        ],
    );
    let lowered = lower_alone(&body);
    for n in [0, 2, 3, 8, 9] {
        assert_eq!(
            visits(&lowered, PointKey::At(20), n),
            finite(n / 3),
            "n = {n}"
        );
    }
}

/// An allocation reached only through an exception handler still has a (sound) invariant:
/// the handler runs at most once here, so it is counted once.
#[test]
fn allocation_only_in_a_handler_is_reached() {
    let field = FieldRef {
        class: ClassName::new("T"),
        name: Arc::from("f"),
        ty: Type::Int,
    };
    let mut protected = block(
        vec![assign(0, 1, Expr::Load(Place::Static(field)))],
        Terminator::Goto(BlockId(1)),
    );
    protected.handlers.push(Handler {
        catch: None,
        target: BlockId(2),
    });
    let body = static_body(
        vec![
            var("n", Type::Int, VarOrigin::Param(0)),
            var("x", Type::Int, VarOrigin::Local(1)),
            var("e", object(), VarOrigin::Stack(0)),
            var("o", object(), VarOrigin::Stack(0)),
        ],
        vec![
            protected,
            block(Vec::new(), Terminator::Return(None)),
            block(
                vec![
                    assign(20, 2, Expr::CaughtException),
                    assign(21, 3, Expr::New(ClassName::object())),
                ],
                Terminator::Return(None),
            ),
        ],
    );
    let lowered = lower_alone(&body);
    assert_eq!(visits(&lowered, PointKey::At(21), 5), finite(1));
}

//! Golden tests: for each loop shape the invariant at the body statement is exactly the
//! expected iteration space (compared as sets), its isl text is snapshotted, and counting it
//! gives exactly the visits the interpreter observes.

mod support;

use expect_test::{Expect, expect};
use membound_invariants::builder::{and, eq, ge, gt, le, lt, modulo, not, or};
use membound_invariants::{
    Body, Expr, Invariant, ProcId, Program, ProgramBuilder, chain_invariant,
};
use membound_polyhedra::{Int, Rat, Value, count, parse_set};
use support::{analyzed, assert_exact, assert_same_set, grid, parameter_point};

/// A one-procedure program with the given formals.
fn single(formals: &[&str], body: impl FnOnce(&mut Body)) -> (Program, ProcId) {
    let mut builder = ProgramBuilder::new();
    let m = builder.declare("m", formals);
    builder.define(m, body);
    (builder.build().expect("valid program"), m)
}

/// Checks the point `S` on its counters: same set as `expected`, printed as `snapshot`, exact
/// counts on `args`.
fn check(
    program: &Program,
    entry: ProcId,
    counters: &[&str],
    expected: &str,
    snapshot: Expect,
    args: &[Vec<i64>],
) {
    let analysis = analyzed(program);
    assert_same_set(&analysis, program, "S", counters, expected);
    let projected = assert_exact(program, &analysis, entry, "S", counters, args);
    snapshot.assert_eq(&projected.to_isl());
    let reparsed =
        Invariant::from_set(&parse_set(&projected.to_isl()).expect("printed isl parses"));
    assert!(
        reparsed.same_set(&projected),
        "printing and parsing back changes {}",
        projected.to_isl()
    );
}

#[test]
fn counted_loop_up() {
    let (program, m) = single(&["n"], |b| {
        let (n, i) = (b.formal(0), b.local("i"));
        b.for_loop(i, 0, lt(i, n), 1, |b| {
            b.point("S");
        });
    });
    check(
        &program,
        m,
        &["i"],
        "[n_init] -> { [i] : 0 <= i < n_init }",
        expect![[r#"[n_init] -> { [i] : i >= 0 and n_init >= i + 1 }"#]],
        &grid(1, -2..=8),
    );
}

#[test]
fn counted_loop_down() {
    let (program, m) = single(&["n"], |b| {
        let (n, i) = (b.formal(0), b.local("i"));
        b.for_loop(i, n, gt(i, 0), -1, |b| {
            b.point("S");
        });
    });
    check(
        &program,
        m,
        &["i"],
        "[n_init] -> { [i] : 0 < i <= n_init }",
        expect!["[n_init] -> { [i] : i >= 1 and n_init >= i }"],
        &grid(1, -2..=8),
    );
}

#[test]
fn counted_loop_with_step_three_needs_the_congruence() {
    let (program, m) = single(&["n"], |b| {
        let (n, i) = (b.formal(0), b.local("i"));
        b.for_loop(i, 0, lt(i, n), 3, |b| {
            b.point("S");
        });
    });
    check(
        &program,
        m,
        &["i"],
        "[n_init] -> { [i] : 0 <= i < n_init and i mod 3 = 0 }",
        expect!["[n_init] -> { [i] : i >= 0 and n_init >= i + 1 and i = 3*floor((i)/3) }"],
        &grid(1, -2..=10),
    );
}

#[test]
fn counted_loop_down_with_step_two_from_a_parameter() {
    let (program, m) = single(&["n"], |b| {
        let (n, i) = (b.formal(0), b.local("i"));
        b.for_loop(i, n, ge(i, 0), -2, |b| {
            b.point("S");
        });
    });
    check(
        &program,
        m,
        &["i"],
        "[n_init] -> { [i] : 0 <= i <= n_init and (n_init - i) mod 2 = 0 }",
        expect![
            "[n_init] -> { [i] : i >= 0 and n_init >= i and n_init + i = 2*floor((n_init + i)/2) }"
        ],
        &grid(1, -2..=9),
    );
}

#[test]
fn strided_loop_between_two_parameters() {
    let (program, m) = single(&["a", "b"], |b| {
        let (lo, hi, i) = (b.formal(0), b.formal(1), b.local("i"));
        b.for_loop(i, lo, le(i, hi), 3, |b| {
            b.point("S");
        });
    });
    check(
        &program,
        m,
        &["i"],
        "[a_init, b_init] -> { [i] : a_init <= i <= b_init and (i - a_init) mod 3 = 0 }",
        expect![
            "[a_init, b_init] -> { [i] : i >= a_init and b_init >= i and a_init = i + 3*floor((a_init - i)/3) }"
        ],
        &grid(2, -3..=7),
    );
}

#[test]
fn triangular_nest() {
    let (program, m) = single(&["n"], |b| {
        let (n, i, j) = (b.formal(0), b.local("i"), b.local("j"));
        b.for_loop(i, 0, lt(i, n), 1, |b| {
            b.for_loop(j, 0, le(j, i), 1, |b| {
                b.point("S");
            });
        });
    });
    check(
        &program,
        m,
        &["i", "j"],
        "[n_init] -> { [i, j] : 0 <= j <= i < n_init }",
        expect!["[n_init] -> { [i, j] : j >= 0 and i >= j and n_init >= i + 1 }"],
        &grid(1, -1..=8),
    );
}

#[test]
fn trapezoidal_nest() {
    let (program, m) = single(&["n", "w"], |b| {
        let (n, w, i, j) = (b.formal(0), b.formal(1), b.local("i"), b.local("j"));
        b.for_loop(i, 0, lt(i, n), 1, |b| {
            b.for_loop(j, i, lt(j, i + w), 1, |b| {
                b.point("S");
            });
        });
    });
    check(
        &program,
        m,
        &["i", "j"],
        "[n_init, w_init] -> { [i, j] : 0 <= i < n_init and i <= j < i + w_init }",
        expect![
            "[n_init, w_init] -> { [i, j] : j >= i and i >= 0 and w_init + i >= j + 1 and n_init >= i + 1 }"
        ],
        &grid(2, -1..=6),
    );
}

#[test]
fn rectangular_nest_bounded_by_parameters() {
    let (program, m) = single(&["n", "m"], |b| {
        let (n, mm, i, j) = (b.formal(0), b.formal(1), b.local("i"), b.local("j"));
        b.for_loop(i, 1, le(i, n), 1, |b| {
            b.for_loop(j, 1, le(j, mm), 1, |b| {
                b.point("S");
            });
        });
    });
    check(
        &program,
        m,
        &["i", "j"],
        "[n_init, m_init] -> { [i, j] : 1 <= i <= n_init and 1 <= j <= m_init }",
        expect![
            "[n_init, m_init] -> { [i, j] : j >= 1 and i >= 1 and m_init >= j and n_init >= i }"
        ],
        &grid(2, -1..=6),
    );
}

#[test]
fn depth_three_nest() {
    let (program, m) = single(&["n"], |b| {
        let (n, i, j, k) = (b.formal(0), b.local("i"), b.local("j"), b.local("k"));
        b.for_loop(i, 0, lt(i, n), 1, |b| {
            b.for_loop(j, 0, lt(j, i), 1, |b| {
                b.for_loop(k, j, lt(k, i), 1, |b| {
                    b.point("S");
                });
            });
        });
    });
    check(
        &program,
        m,
        &["i", "j", "k"],
        "[n_init] -> { [i, j, k] : 0 <= j <= k < i < n_init }",
        expect!["[n_init] -> { [i, j, k] : k >= j and j >= 0 and i >= k + 1 and n_init >= i + 1 }"],
        &grid(1, -1..=7),
    );
}

#[test]
fn strided_nest_over_an_outer_counter() {
    let (program, m) = single(&["n"], |b| {
        let (n, i, j) = (b.formal(0), b.local("i"), b.local("j"));
        b.for_loop(i, 0, lt(i, n), 2, |b| {
            b.for_loop(j, i, lt(j, n), 3, |b| {
                b.point("S");
            });
        });
    });
    check(
        &program,
        m,
        &["i", "j"],
        "[n_init] -> { [i, j] : 0 <= i <= j < n_init and i mod 2 = 0 and (j - i) mod 3 = 0 }",
        expect![
            "[n_init] -> { [i, j] : j >= i and i >= 0 and n_init >= j + 1 and i = 2*floor((i)/2) and i = j + 3*floor((i - j)/3) }"
        ],
        &grid(1, -1..=12),
    );
}

#[test]
fn break_on_an_affine_guard() {
    let (program, m) = single(&["n", "m"], |b| {
        let (n, mm, i) = (b.formal(0), b.formal(1), b.local("i"));
        b.for_loop(i, 0, lt(i, n), 1, |b| {
            b.if_then(ge(i, mm), |b| b.break_loop());
            b.point("S");
        });
    });
    check(
        &program,
        m,
        &["i"],
        "[n_init, m_init] -> { [i] : 0 <= i < n_init and i < m_init }",
        expect!["[n_init, m_init] -> { [i] : i >= 0 and m_init >= i + 1 and n_init >= i + 1 }"],
        &grid(2, -1..=6),
    );
}

#[test]
fn continue_on_a_modular_guard() {
    let (program, m) = single(&["n"], |b| {
        let (n, i) = (b.formal(0), b.local("i"));
        b.for_loop(i, 0, lt(i, n), 1, |b| {
            b.if_then(modulo(i, 2, 1), |b| b.continue_loop());
            b.point("S");
        });
    });
    check(
        &program,
        m,
        &["i"],
        "[n_init] -> { [i] : 0 <= i < n_init and i mod 2 = 0 }",
        expect!["[n_init] -> { [i] : i >= 0 and n_init >= i + 1 and i = 2*floor((i)/2) }"],
        &grid(1, -1..=9),
    );
}

#[test]
fn loop_over_an_array_length() {
    let (program, m) = single(&["len"], |b| {
        let (len, i) = (b.formal(0), b.local("i"));
        b.require(ge(len, 0));
        b.for_loop(i, 0, lt(i, len), 1, |b| {
            b.point("S");
        });
    });
    check(
        &program,
        m,
        &["i"],
        "[len_init] -> { [i] : 0 <= i < len_init }",
        expect!["[len_init] -> { [i] : i >= 0 and len_init >= i + 1 }"],
        &grid(1, 0..=8),
    );
}

#[test]
fn while_loop_with_an_affine_counter() {
    let (program, m) = single(&["n"], |b| {
        let (n, k, t) = (b.formal(0), b.local("k"), b.local("t"));
        b.assign(k, n);
        b.assign(t, 0);
        b.while_loop(gt(k, 0), |b| {
            b.point("S");
            b.assign(k, k - 2);
            b.assign(t, t + 1);
        });
    });
    check(
        &program,
        m,
        &["k", "t"],
        "[n_init] -> { [k, t] : 0 < k <= n_init and k = n_init - 2t }",
        expect!["[n_init] -> { [k, t] : k + 2*t = n_init and k >= 1 and n_init >= k }"],
        &grid(1, -2..=9),
    );
}

/// The thesis's m2 (Fig. 2.1): `for (j = 1; j <= n; j++) if (j % 3 == 0) A else B`.
fn thesis_m2() -> (Program, ProcId) {
    single(&["n"], |b| {
        let (n, j) = (b.formal(0), b.local("j"));
        b.for_loop(j, 1, le(j, n), 1, |b| {
            b.if_else(
                modulo(j, 3, 0),
                |b| {
                    b.point("S");
                },
                |b| {
                    b.point("else");
                },
            );
            b.point("after");
        });
    })
}

#[test]
fn if_with_a_modular_guard() {
    let (program, m) = thesis_m2();
    check(
        &program,
        m,
        &["j"],
        "[n_init] -> { [j] : 1 <= j <= n_init and j mod 3 = 0 }",
        expect!["[n_init] -> { [j] : j >= 1 and n_init >= j and j = 3*floor((j)/3) }"],
        &grid(1, -1..=10),
    );
}

#[test]
fn else_of_a_modular_guard_is_a_union() {
    let (program, m) = thesis_m2();
    let analysis = analyzed(&program);
    assert_same_set(
        &analysis,
        &program,
        "else",
        &["j"],
        "[n_init] -> { [j] : 1 <= j <= n_init and j mod 3 = 1; [j] : 1 <= j <= n_init and j mod 3 = 2 }",
    );
    assert_exact(&program, &analysis, m, "else", &["j"], &grid(1, -1..=10));
    assert_exact(&program, &analysis, m, "after", &["j"], &grid(1, -1..=10));
}

#[test]
fn if_else_with_an_affine_guard() {
    let (program, m) = single(&["n"], |b| {
        let (n, i) = (b.formal(0), b.local("i"));
        b.for_loop(i, 0, lt(i, n), 1, |b| {
            b.if_else(
                lt(i * 2, n),
                |b| {
                    b.point("S");
                },
                |b| {
                    b.point("upper");
                },
            );
        });
    });
    check(
        &program,
        m,
        &["i"],
        "[n_init] -> { [i] : 0 <= i and 2i < n_init }",
        expect!["[n_init] -> { [i] : i >= 0 and n_init >= 2*i + 1 }"],
        &grid(1, -1..=9),
    );
    let analysis = analyzed(&program);
    assert_exact(&program, &analysis, m, "upper", &["i"], &grid(1, -1..=9));
}

#[test]
fn not_equal_guard_splits_the_part() {
    let (program, m) = single(&["n", "m"], |b| {
        let (n, mm, i) = (b.formal(0), b.formal(1), b.local("i"));
        b.for_loop(i, 0, lt(i, n), 1, |b| {
            b.if_then(and(vec![not(eq(i, mm))]), |b| {
                b.point("S");
            });
        });
    });
    check(
        &program,
        m,
        &["i"],
        "[n_init, m_init] -> { [i] : 0 <= i < n_init and i < m_init; [i] : 0 <= i < n_init and i > m_init }",
        expect![
            "[n_init, m_init] -> { [i] : i >= 0 and m_init >= i + 1 and n_init >= i + 1; [i] : i >= m_init + 1 and i >= 0 and n_init >= i + 1 }"
        ],
        &grid(2, -1..=6),
    );
}

/// `if (i == m) break;` with `i` counting up: the loop head keeps `i <= m` apart from `i > m`,
/// so the visits stop at `m` when `0 <= m` (one convex head would give `n - 1` instead).
#[test]
fn break_on_equality_keeps_the_counter_below_the_stop() {
    let (program, m) = single(&["n", "m"], |b| {
        let (n, mm, i) = (b.formal(0), b.formal(1), b.local("i"));
        b.for_loop(i, 0, lt(i, n), 1, |b| {
            b.if_then(eq(i, mm), |b| b.break_loop());
            b.point("S");
        });
    });
    check(
        &program,
        m,
        &["i"],
        "[n_init, m_init] -> { [i] : 0 <= i < n_init and i < m_init; [i] : 0 <= i < n_init and m_init < 0 }",
        expect![
            "[n_init, m_init] -> { [i] : i >= 0 and m_init >= i + 1 and n_init >= i + 1; [i] : 0 >= m_init + 1 and i >= 0 and n_init >= i + 1 }"
        ],
        &grid(2, -2..=6),
    );
}

/// `half = n / 2` (Java's division, truncated toward zero: `2 q <= n <= 2 q + 1` for `n >= 0`,
/// `2 q - 1 <= n <= 2 q` below) before `for (i = 0; i < half; i++)`: the loop head keeps the
/// signs of `q` apart, so the visits are floor(n / 2), not the hull's ceil(n / 2).
#[test]
fn truncated_division_before_a_loop_keeps_its_floor() {
    let (program, _) = single(&["n"], |b| {
        let (n, q, half, i) = (b.formal(0), b.local("q"), b.local("half"), b.local("i"));
        b.split_sign(q);
        b.split_sign(Expr::var(q).negated());
        b.havoc(q);
        b.assume(or(vec![
            and(vec![ge(n, 0), le(q * 2, n), le(n, q * 2 + 1)]),
            and(vec![lt(n, 0), le(q * 2 - 1, n), le(n, q * 2)]),
        ]));
        b.assign(half, q);
        b.for_loop(i, 0, lt(i, half), 1, |b| {
            b.point("S");
        });
    });
    // The interpreter cannot choose a havocked value that passes a later guard: sets only.
    let analysis = analyzed(&program);
    let expected = "[n_init] -> { [i] : 0 <= i and 2i + 2 <= n_init }";
    assert_same_set(&analysis, &program, "S", &["i"], expected);
}

/// m1(k) { for (i = 1; i <= k; i++) m2(i) }   m2(n) { for (j = 1; j <= n; j++) S }
#[test]
fn call_chain_composes_caller_and_callee_invariants() {
    let mut builder = ProgramBuilder::new();
    let m1 = builder.declare("m1", &["k"]);
    let m2 = builder.declare("m2", &["n"]);
    builder.define(m1, |b| {
        let (k, i) = (b.formal(0), b.local("i"));
        b.for_loop(i, 1, le(i, k), 1, |b| {
            b.point("call");
            b.call(m2, vec![i.into()], vec![]);
        });
    });
    builder.define(m2, |b| {
        let (n, j) = (b.formal(0), b.local("j"));
        b.for_loop(j, 1, le(j, n), 1, |b| {
            b.point("S");
        });
    });
    let program = builder.build().expect("valid program");
    let analysis = analyzed(&program);
    let call = program.point_by_name("call").expect("call point");
    let target = program.point_by_name("S").expect("target point");
    assert_same_set(
        &analysis,
        &program,
        "S",
        &["j"],
        "[n_init] -> { [j] : 1 <= j <= n_init }",
    );
    let chain = chain_invariant(&program, &analysis, &[call], target)
        .expect("a chain")
        .project_onto(&["i", "call__j"]);
    expect!["[k_init] -> { [i, call__j] : call__j >= 1 and i >= call__j and k_init >= i }"]
        .assert_eq(&chain.to_isl());
    let counted = count(&chain.to_set()).expect("countable");
    for k in -1..=8 {
        let trace = membound_invariants::run(&program, m1, &[Int::from(k)], &Default::default())
            .expect("runs");
        let visits = Value::Finite(Rat::from(trace.visits[target.0] as i64));
        assert_eq!(
            counted
                .eval(&parameter_point(&program, m1, &[k]))
                .expect("evaluates"),
            visits,
            "k = {k}"
        );
    }
}

/// The thesis's ArrayDim in the program form: `add` increments the field `len` it returns, and
/// allocates a block of 5 cells when `len mod 5 = 0`; `addAll` calls it `size` times. Only the
/// callee's summary (`len = len_init + 1`) relates the caller's `len` to its loop counter.
fn array_dim() -> (Program, ProcId) {
    let mut builder = ProgramBuilder::new();
    let add_all = builder.declare("addAll", &["size", "len"]);
    let add = builder.declare("add", &["len"]);
    let new_block = builder.declare("newBlock", &["how"]);
    builder.define(add_all, |b| {
        let (size, len, i) = (b.formal(0), b.formal(1), b.local("i"));
        b.for_loop(i, 0, lt(i, size), 1, |b| {
            b.point("call add");
            b.call(add, vec![len.into()], vec![len]);
        });
    });
    builder.define(add, |b| {
        let len = b.formal(0);
        b.if_then(modulo(len, 5, 0), |b| {
            b.point("call newBlock");
            b.call(new_block, vec![5.into()], vec![]);
        });
        b.assign(len, len + 1);
        b.returns(&[len]);
    });
    builder.define(new_block, |b| {
        let (how, h) = (b.formal(0), b.local("h"));
        b.for_loop(h, 1, le(h, how), 1, |b| {
            b.point("S");
        });
    });
    (builder.build().expect("valid program"), add_all)
}

#[test]
fn a_callee_summary_carries_a_returned_field_across_calls() {
    let (program, add_all) = array_dim();
    let analysis = analyzed(&program);
    let point = |name: &str| program.point_by_name(name).expect("point");
    assert_same_set(
        &analysis,
        &program,
        "call add",
        &["i", "len"],
        "[size_init, len_init] -> { [i, len] : 0 <= i < size_init and len = len_init + i }",
    );
    let chain = chain_invariant(
        &program,
        &analysis,
        &[point("call add"), point("call newBlock")],
        point("S"),
    )
    .expect("a chain");
    let cells = chain.project_onto(&["i", "call newBlock__h"]);
    let counted = count(&cells.to_set()).expect("countable");
    for size in 0..=12 {
        for len in 0..=6 {
            let trace = membound_invariants::run(
                &program,
                add_all,
                &[Int::from(size), Int::from(len)],
                &Default::default(),
            )
            .expect("runs");
            let visits = trace.visits[point("S").0] as i64;
            // A block of 5 for every element added at a multiple of 5.
            let blocks = (len..len + size).filter(|l| l % 5 == 0).count() as i64;
            assert_eq!(visits, 5 * blocks);
            assert_eq!(
                counted
                    .eval(&parameter_point(&program, add_all, &[size, len]))
                    .expect("evaluates"),
                Value::Finite(Rat::from(visits)),
                "size = {size}, len = {len}: {}",
                cells.to_isl()
            );
        }
    }
}

/// A recursive callee has no summary while its cycle is analysed: its results are unknown
/// there, and what the caller outside the cycle learns still holds for every run.
#[test]
fn results_of_calls_inside_a_recursive_cycle_stay_sound() {
    let mut builder = ProgramBuilder::new();
    let top = builder.declare("top", &["n"]);
    let down = builder.declare("down", &["n"]);
    builder.define(top, |b| {
        let (n, r) = (b.formal(0), b.local("r"));
        b.call(down, vec![n.into()], vec![r]);
        b.point("after");
    });
    builder.define(down, |b| {
        let (n, r) = (b.formal(0), b.local("r"));
        b.if_else(
            gt(n, 0),
            |b| {
                b.call(down, vec![n - 1], vec![r]);
                b.assign(r, r + 2);
            },
            |b| b.assign(r, 0),
        );
        b.returns(&[r]);
    });
    let program = builder.build().expect("valid program");
    let analysis = analyzed(&program);
    let after = program.point_by_name("after").expect("point");
    for n in 0..=6 {
        let trace = membound_invariants::run(&program, top, &[Int::from(n)], &Default::default())
            .expect("runs");
        for valuation in &trace.valuations[after.0] {
            assert!(
                analysis
                    .invariant(after)
                    .contains_valuation(program.procedure(top), valuation),
                "{valuation:?} not in {}",
                analysis.invariant(after).to_isl()
            );
        }
    }
}

/// A nest as the bytecode lowering writes it (`membound invariants` of
/// `for (i1 = 0; i1 <= a + 1; i1++) for (i3 = i1; i3 <= 2*b; i3++) { new long[i1][2*b];
/// for (i4 = 0; i4 <= 2 + 2*i1 + 2*i3; i4++) new long[2][i4 + i4]; }`): loop bounds computed
/// into stack temporaries `t`, `u`, `v` that every loop reuses and forgets, a virtual counter per
/// loop and the array lengths as columns. At the inner head `i3 <= 2*b` could be written through
/// a temporary that the inner loop reuses, and widening dropped it: the inner allocation's
/// count was unbounded in `b`. Joins forget the dead temporaries first, which keeps it.
#[test]
fn nest_whose_bounds_pass_through_reused_temporaries_keeps_them() {
    let (program, m) = single(&["a", "b"], |body| {
        let (a, b) = (body.formal(0), body.formal(1));
        let names = [
            "i1", "t", "i3", "u", "v", "i4", "w", "c1", "c3", "c4", "l1", "l2", "l3", "l4",
        ];
        let [i1, t, i3, u, v, i4, w, c1, c3, c4, l1, l2, l3, l4] =
            names.map(|name| body.local(name));
        body.assign(i1, 0);
        body.assign(c1, 0);
        body.loop_forever(|body| {
            body.assign(t, a + 1);
            body.if_then(gt(i1, t), |body| body.break_loop());
            body.havoc(t);
            body.assign(i3, i1);
            body.assign(c3, 0);
            body.loop_forever(|body| {
                body.assign(u, b * 2);
                body.assign(t, u);
                body.if_then(gt(i3, t), |body| body.break_loop());
                body.havoc(t);
                body.havoc(u);
                body.assign(v, i1);
                body.assign(u, b * 2);
                body.assign(t, u);
                body.assign(l1, v);
                body.assign(l2, t);
                body.assign(i4, 0);
                body.assign(c4, 0);
                body.loop_forever(|body| {
                    for temporary in [t, u, v, w] {
                        body.havoc(temporary);
                    }
                    body.assign(u, i1 * 2);
                    body.assign(t, u + 2);
                    body.assign(u, i3 * 2);
                    body.assign(t, t + u);
                    body.if_then(gt(i4, t), |body| body.break_loop());
                    body.havoc(t);
                    body.havoc(u);
                    body.assign(t, i4);
                    body.assign(t, t + i4);
                    body.assign(l3, 2);
                    body.assign(l4, t);
                    body.point("S");
                    body.assign(w, 2);
                    body.assign(i4, i4 + 1);
                    body.assign(c4, c4 + 1);
                });
                for temporary in [t, u, i4, c4] {
                    body.havoc(temporary);
                }
                body.assign(i3, i3 + 1);
                body.assign(c3, c3 + 1);
            });
            for temporary in [t, i3, u, c3] {
                body.havoc(temporary);
            }
            body.assign(i1, i1 + 1);
            body.assign(c1, c1 + 1);
        });
    });
    let analysis = analyzed(&program);
    assert_exact(
        &program,
        &analysis,
        m,
        "S",
        &["c1", "c3", "c4"],
        &grid(2, -1..=3),
    );
}

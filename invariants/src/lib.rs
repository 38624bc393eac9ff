//! Linear invariants by abstract interpretation over polyhedra.
//!
//! This crate owns a small numeric program form (a control-flow graph of affine assignments,
//! havoc, guards and calls with bindings) and an abstract interpreter over the polyhedra crate that
//! yields, at any requested point, a linear invariant exact enough to count with. It knows nothing
//! of Java: the analyzer lowers bytecode into its program form.
//!
//! The invariant at a point is a union of polyhedra, each intersected with an integer lattice
//! (strides and `mod` facts), over the procedure's variables with the entry snapshots `x_init`
//! as parameters. For the loop shapes of ordinary code (counted loops with any constant step,
//! triangular and trapezoidal nests, bounds from outer counters or parameters, `break`,
//! `continue`, affine and modular `if`s) its integer points at a statement in a loop body are
//! exactly the values the counters take there, so counting them counts the visits. It is not an
//! inductive-variable analysis (callers project onto the variables they count). Every procedure
//! is analysed once, for any caller, callees first: a call relates its results to its arguments
//! through the callee's exit relation ([`summary`]); call chains are conjoined frame by frame
//! ([`chain`]).
//!
//! # Map
//! - [`program`]: the program form; [`builder`]: writing it; [`print`]: reading it;
//!   [`interpret`]: running it (the test oracle).
//! - [`domain`]: polyhedra × congruence lattices, with widening; [`wto`]: Bourdoncle's weak
//!   topological order; [`fixpoint`]: the iteration with its budget; [`summary`]: what a call
//!   learns from its callee's exit; [`analysis`]: the entry point (callees first);
//!   [`invariant`]: the answer as a polyhedra-crate `Set`; [`chain`]: call chains.

pub mod analysis;
pub mod builder;
pub mod chain;
pub mod domain;
pub mod fixpoint;
pub mod interpret;
pub mod invariant;
pub mod liveness;
pub mod print;
pub mod program;
pub mod summary;
pub mod wto;

pub use analysis::{Analysis, analyze};
pub use builder::{Body, BuildError, ProgramBuilder};
pub use chain::{ChainError, chain_invariant};
pub use fixpoint::{Limit, Loss, Options, Stats};
pub use interpret::{Outcome, RunOptions, Trace, run};
pub use invariant::Invariant;
pub use program::{
    Action, Cond, Edge, Expr, NodeId, Point, PointId, ProcId, Procedure, Program, VarId, VarKind,
};

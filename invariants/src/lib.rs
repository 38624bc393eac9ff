//! Linear invariants by abstract interpretation over polyhedra.
//!
//! This crate will own a small numeric program form (a control-flow graph of affine assignments,
//! havoc, guards and calls with bindings) and an abstract interpreter over the polyhedra crate that
//! yields, at any requested point, a linear invariant exact enough to count with. It knows nothing
//! of Java: the analyzer lowers bytecode into its program form. It is filled by its own issue;
//! today it is an empty room in the workspace.

//! Polynomial maximization over parametric polytopes (Bernstein expansion) and bound expressions.
//!
//! This crate will own the Bernstein expansion of a polynomial over a parametric polytope, the
//! pruning of candidate bounds, and the bound expressions (`Sum`, `Max`, `Cases`, `Pol`, `Inf`)
//! that memory bounds are written in. It knows nothing of Java or of programs. It is filled by its
//! own issue; today it is an empty room in the workspace.

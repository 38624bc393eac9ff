//! Exact polyhedra and parametric integer-point counting.
//!
//! This crate owns membound's exact scalar type, affine forms, constraint systems (equalities,
//! inequalities, modular constraints, existential variables), polyhedra and their operations, the
//! polynomial and quasi-polynomial types, an isl-like text syntax for sets, and the counting of
//! integer points of parametric polytopes as piecewise quasi-polynomials. It knows nothing of Java
//! or of programs: it is a math library another tool could reuse.

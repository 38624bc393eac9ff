//! membound: parametric heap-memory bounds for Java bytecode.
//!
//! This crate is the only one that knows the JVM. It reads class files from a classpath (jars,
//! directories, the JDK's jmods or jimage), lifts each method to a typed three-address IR with an
//! explicit control-flow graph, builds the class hierarchy and the call graph from the method under
//! analysis, and enumerates creation sites (allocation call chains). The math lives in the
//! `membound-polyhedra`, `membound-bernstein` and `membound-invariants` crates; the command line in
//! [`cli`] is a thin layer over the library. Nothing here panics on input: malformed class files,
//! missing classes and unknown methods become [`error::Error`] values with a one-line message.

pub mod budget;
pub mod callgraph;
pub mod certificate;
pub mod classfile;
pub mod classpath;
pub mod cli;
pub mod error;
pub mod escape;
pub mod hierarchy;
pub mod ir;
pub mod jvm;
pub mod lowering;
pub mod measure;
pub mod memalloc;
pub mod memrq;
pub mod program;
pub mod select;
pub mod sites;
pub mod sizes;
pub mod specs;
pub mod validate;

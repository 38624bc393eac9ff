//! membound's JVM front end: from a classpath to what a program may do.
//!
//! It reads class files from a classpath (jars, directories, the JDK's jmods or jimage), lifts
//! each method to a typed three-address IR with an explicit control-flow graph, builds the class
//! hierarchy and the call graph from a method, and holds the library specs (what a JDK or
//! user-named method allocates, instead of its code) and the object-size models. Nothing here
//! panics on input: malformed class files, missing classes and unknown methods become
//! [`membound_jvm::error::Error`] values with a one-line message.
//!
//! It knows bytecode, the JDK, specs and object layouts, and who may call whom; it knows nothing
//! of integers as math, invariants, bounds or certificates (that is `membound-analysis` and
//! above).
//!
//! # Map
//! - [`classpath`]: entries and reading class bytes by name; [`classfile`]: the owned class-file
//!   model; [`program`]: the classpath with caches of parsed classes and lifted bodies.
//! - [`ir`]: the IR, its lifting from bytecode and its printing.
//! - [`hierarchy`]: supertypes, subtypes, method resolution and selection.
//! - [`callgraph`]: the call graph from an entry (RTA, CHA fallback, specs as leaves).
//! - [`specs`]: library specs; [`sizes`]: object-size models; [`select`]: naming a method;
//!   [`entry_points`]: the public methods or mains of an input, for a whole-program run.

pub mod callgraph;
pub mod classfile;
pub mod classpath;
pub mod entry_points;
pub mod hierarchy;
pub mod ir;
pub mod program;
pub mod select;
pub mod sizes;
pub mod specs;

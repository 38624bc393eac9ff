//! The analysis pipeline up to the summaries, shared by the integration tests.

#![allow(dead_code)] // each test binary reads its own subset of the fields

use std::path::Path;
use std::time::Instant;

use membound_analysis::escape;
use membound_analysis::lowering::{self, Exceptions, Lowered};
use membound_analysis::memalloc::unknown_reached;
use membound_analysis::sites::{self, LocalSites};
use membound_analysis::summary::{self, Inputs, Summaries};
use membound_front::callgraph::{self, CallGraph};
use membound_front::classpath::{Classpath, Jdk};
use membound_front::hierarchy::Hierarchy;
use membound_front::program::Program;
use membound_front::select::select_method;
use membound_front::sizes::ObjectModel;
use membound_invariants::Options;

/// One method of `classes` analysed up to its summaries, in the `count` model.
pub struct Summarized {
    pub program: Program,
    pub graph: CallGraph,
    pub local: LocalSites,
    pub lowered: Lowered,
    pub summaries: Summaries,
}

/// `method` of `classes` with the JDK, its invariants computed under `fixpoint` and its
/// summaries by `deadline`.
pub fn summarized(
    classes: &Path,
    method: &str,
    fixpoint: &Options,
    deadline: Option<Instant>,
) -> Summarized {
    let mut classpath = Classpath::new();
    classpath.add_entry(classes).expect("classes");
    classpath
        .add_jdk(&Jdk::locate(None).expect("a JDK"))
        .expect("the JDK");
    let program = Program::new(classpath);
    let entry = select_method(&program, method).expect("entry method");
    let specs = membound_front::specs::Specs::bundled();
    let graph = callgraph::build(&Hierarchy::new(&program), &entry, &specs).expect("call graph");
    let local = sites::local_sites(&program, &graph).expect("local sites");
    let lowered = lowering::lower_within(&program, &graph, &local, Exceptions::Followed, fixpoint)
        .expect("lowering");
    let fates = escape::fates(&program, &graph);
    let unknown = unknown_reached(&graph);
    let inputs = Inputs {
        program: &program,
        graph: &graph,
        local: &local,
        lowered: &lowered,
        fates: &fates,
        model: ObjectModel::Count,
        unknown: &unknown,
        deadline,
    };
    let summaries = summary::summarize(&inputs, &|_| {});
    Summarized {
        program,
        graph,
        local,
        lowered,
        summaries,
    }
}

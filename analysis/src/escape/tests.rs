//! Regions on Java fixtures compiled with `javac` at test time: the thesis's Fig 1.4 program
//! (the escape and capture sets of Example 1.6) and one entry per escape route in
//! `tests/fixtures/escape`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::method::{self, Context, Summary, SummaryNode};
use super::{MethodSets, Regions, SiteRegion, analyze_within};
use crate::sites::{self, ChainElement, Sites};
use membound_front::callgraph::{self, CallGraph, Dispatch, Edge, EdgeKind};
use membound_front::classpath::{Classpath, Jdk};
use membound_front::hierarchy::Hierarchy;
use membound_front::ir::StmtKind;
use membound_front::program::Program;
use membound_front::select::select_method;
use membound_jvm::{ClassName, MethodRef};

fn fixture_source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(name)
        .join("src")
}

/// Compiles `tests/fixtures/<name>/src` once per test process into a fresh directory.
fn classes(name: &'static str) -> PathBuf {
    static COMPILED: OnceLock<std::sync::Mutex<Vec<(&'static str, PathBuf)>>> = OnceLock::new();
    let compiled = COMPILED.get_or_init(Default::default);
    let mut compiled = compiled.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, dir)) = compiled.iter().find(|(n, _)| *n == name) {
        return dir.clone();
    }
    let out = std::env::temp_dir().join(format!("membound-escape-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let mut sources = Vec::new();
    let mut dirs = vec![fixture_source(name)];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("fixture directory")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "java") {
                sources.push(path);
            }
        }
    }
    let output = Command::new("javac")
        .args(["-g", "-nowarn", "--release", "11", "-d"])
        .arg(&out)
        .args(&sources)
        .output()
        .expect("javac runs (is a JDK on PATH?)");
    assert!(
        output.status.success(),
        "javac failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    compiled.push((name, out.clone()));
    out
}

struct Analyzed {
    graph: CallGraph,
    sites: Sites,
    regions: Regions,
}

fn analyzed(fixture: &'static str, method: &str) -> Analyzed {
    analyzed_within(fixture, method, super::MAX_COMPONENT)
}

fn analyzed_within(fixture: &'static str, method: &str, max_component: usize) -> Analyzed {
    let mut classpath = Classpath::new();
    classpath
        .add_entry(&classes(fixture))
        .expect("fixture classes");
    classpath
        .add_jdk(&Jdk::locate(None).expect("a JDK"))
        .expect("the JDK");
    let program = Program::new(classpath);
    let entry = select_method(&program, method).expect("entry method");
    let graph = callgraph::build(
        &Hierarchy::new(&program),
        &entry,
        &membound_front::specs::Specs::bundled(),
    )
    .expect("call graph");
    let sites = sites::enumerate(&program, &graph, sites::DEFAULT_MAX_CHAINS).expect("sites");
    let regions = analyze_within(&program, &graph, &sites, max_component).expect("regions");
    Analyzed {
        graph,
        sites,
        regions,
    }
}

/// The source line of each numbered statement label (`// 4`) of a fixture's source file.
fn labels(fixture: &str, file: &str) -> Vec<(u32, String)> {
    let path = fixture_source(fixture).join(file);
    let source = std::fs::read_to_string(path).expect("fixture source");
    source
        .lines()
        .enumerate()
        .filter_map(|(index, line)| {
            let label: u32 = line.rsplit_once("// ")?.1.trim().parse().ok()?;
            Some((index as u32 + 1, label.to_string()))
        })
        .collect()
}

/// A chain suffix as the thesis writes it: `m1.5.m2.8`.
fn thesis_name(chain: &[ChainElement], labels: &[(u32, String)]) -> String {
    let parts: Vec<String> = chain
        .iter()
        .map(|element| {
            let line = element.line.expect("fixtures have line numbers");
            let label = labels
                .iter()
                .find(|(l, _)| *l == line)
                .map_or_else(|| format!("line{line}"), |(_, label)| label.clone());
            format!("{}.{label}", element.method.name)
        })
        .collect();
    parts.join(".")
}

fn named(
    sets: &[MethodSets],
    method: &str,
    labels: &[(u32, String)],
) -> (Vec<String>, Vec<String>) {
    let names = |list: &[Vec<ChainElement>]| -> Vec<String> {
        let mut names: Vec<String> = list.iter().map(|c| thesis_name(c, labels)).collect();
        names.sort();
        names
    };
    sets.iter()
        .find(|s| &*s.method.name == method)
        .map_or_else(Default::default, |s| (names(&s.escape), names(&s.capture)))
}

#[test]
fn fig14_escape_and_capture_are_those_of_example_1_6() {
    let result = analyzed("thesis", "thesis.Fig14.m0");
    let sets = result.regions.method_sets(&result.sites);
    let labels = labels("thesis", "thesis/Fig14.java");
    let strings = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        named(&sets, "m0", &labels),
        (strings(&[]), strings(&["m0.2.m2.6", "m0.2.m2.8"]))
    );
    assert_eq!(
        named(&sets, "m1", &labels),
        (strings(&[]), strings(&["m1.4", "m1.5.m2.6", "m1.5.m2.8"]))
    );
    assert_eq!(
        named(&sets, "m2", &labels),
        (strings(&["m2.6", "m2.8"]), strings(&["m2.9"]))
    );
}

/// The ch. 3 example: per-chain capture of an object stored into a parameter's field, with the
/// printed sets' errata corrected (`m0.1` and `m1.2` are captured by their own methods).
#[test]
fn fig31_capture_depends_on_the_chain() {
    let result = analyzed("escape", "escape.Fig31.m0");
    let sets = result.regions.method_sets(&result.sites);
    let labels = labels("escape", "escape/Fig31.java");
    let strings = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        named(&sets, "m0", &labels),
        (
            strings(&[]),
            strings(&[
                "m0.1",
                "m0.2.m1.3",
                "m0.2.m1.5.m2.3",
                "m0.2.m1.5.m2.6",
                "m0.2.m1.5.m2.7",
                "m0.3.m2.3",
                "m0.3.m2.6",
                "m0.3.m2.7",
                "m0.3.m2.8",
            ])
        )
    );
    assert_eq!(
        named(&sets, "m1", &labels),
        (
            strings(&["m1.3", "m1.5.m2.3", "m1.5.m2.6", "m1.5.m2.7"]),
            strings(&["m1.2", "m1.5.m2.8", "m1.6"])
        )
    );
    assert_eq!(
        named(&sets, "m2", &labels),
        (strings(&["m2.3", "m2.6", "m2.7", "m2.8"]), strings(&[]))
    );
}

/// The sites of `escape.Routes.<method>` whose chains stay in the fixture's classes (the JDK
/// code a route reaches allocates too), each as `route>helper:Type` (short method names of the
/// chain, the allocated type without package) with its region: the capturing method's name or
/// `escapes`.
fn routes(method: &str) -> Vec<String> {
    routes_within(method, super::MAX_COMPONENT)
}

fn routes_within(method: &str, max_component: usize) -> Vec<String> {
    let result = analyzed_within("escape", &format!("escape.Routes.{method}"), max_component);
    assert_eq!(result.graph.entry().name.as_ref(), method);
    let mut found: Vec<String> = result
        .sites
        .sites
        .iter()
        .zip(&result.regions.sites)
        .filter(|(site, _)| {
            site.chain
                .iter()
                .all(|e| e.method.class.internal().starts_with("escape/"))
        })
        .map(|(site, region)| {
            let chain: Vec<&str> = site.chain.iter().map(|e| &*e.method.name).collect();
            let ty = site.allocation.ty.to_string();
            let ty = ty.rsplit('.').next().unwrap_or(&ty).to_string();
            let region = match region {
                SiteRegion::CapturedBy(index) => site.chain[*index].method.name.to_string(),
                SiteRegion::EscapesEntry => "escapes".to_string(),
            };
            format!("{}:{ty} -> {region}", chain.join(">"))
        })
        .collect();
    found.sort();
    found
}

fn lines(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_static_field_makes_the_object_escape() {
    assert_eq!(
        routes("staticField"),
        lines(&[
            "staticField:Object -> escapes",
            "staticField:Object -> staticField",
        ])
    );
}

#[test]
fn a_field_of_a_parameter_is_captured_by_the_holders_owner() {
    assert_eq!(
        routes("ownsHolder"),
        lines(&[
            "ownsHolder:Holder -> ownsHolder",
            "ownsHolder>storeIntoParam:Object -> ownsHolder",
        ])
    );
    assert_eq!(
        routes("storeIntoParamEntry"),
        lines(&["storeIntoParamEntry>storeIntoParam:Object -> escapes"])
    );
    assert_eq!(
        routes("storeIntoParamsField"),
        lines(&["storeIntoParamsField:Object -> escapes"])
    );
}

#[test]
fn array_elements_live_as_long_as_the_array() {
    assert_eq!(
        routes("arraysKept"),
        lines(&[
            "arraysKept>fill:Object -> arraysKept",
            "arraysKept>fill:Object[] -> arraysKept",
            "arraysKept>fill:Object[] -> fill",
        ])
    );
    // An element read out of the array and stored into a static: the elements escape; the
    // array is merged with its elements in `fill`'s summary, so it escapes too.
    let arrays = routes("arrays");
    assert!(
        arrays.contains(&"arrays>fill:Object -> escapes".to_string()),
        "{arrays:?}"
    );
    assert!(
        arrays.contains(&"arrays>fill:Object[] -> fill".to_string()),
        "{arrays:?}"
    );
}

#[test]
fn a_returned_object_is_captured_by_the_caller_that_drops_it() {
    assert_eq!(
        routes("dropsMade"),
        lines(&["dropsMade>make:Object -> dropsMade"])
    );
    assert_eq!(
        routes("returnsMade"),
        lines(&["returnsMade>make:Object -> escapes"])
    );
}

#[test]
fn fields_are_told_apart() {
    assert_eq!(
        routes("listOwner"),
        lines(&[
            "listOwner:Cell -> listOwner",
            "listOwner:Object[] -> escapes",
            "listOwner>pushValue:Cell -> listOwner",
            "listOwner>pushValue:Object -> escapes",
        ])
    );
}

#[test]
fn what_is_stored_through_one_parameter_is_read_through_an_alias() {
    assert_eq!(
        routes("aliasEntry"),
        lines(&[
            "aliasEntry:Cell -> escapes",
            "aliasEntry:Cell -> escapes",
            "aliasEntry>storeOneReadOther:Object -> escapes",
        ])
    );
}

#[test]
fn what_an_identity_method_returns_is_its_argument() {
    assert_eq!(
        routes("throughIdentity"),
        lines(&[
            "throughIdentity:Object -> escapes",
            "throughIdentity:Object -> throughIdentity",
        ])
    );
}

/// The throw rule alone, on the lifted bodies of `throwsOne` and `dropsOne`: every call goes
/// to a callee with an empty summary (the exception's constructors keep nothing), so only the
/// `throw` decides. (The whole call graph of an exception's constructor is most of the JDK.)
#[test]
fn a_thrown_object_is_global() {
    let mut classpath = Classpath::new();
    classpath
        .add_entry(&classes("escape"))
        .expect("fixture classes");
    let program = Program::new(classpath);
    for (name, expected) in [("throwsOne", Some(SummaryNode::Global)), ("dropsOne", None)] {
        let method = MethodRef::new(ClassName::new("escape/Routes"), name, "()V");
        let body = program.lift(&method).expect("lifted body");
        let edges: Vec<Edge> = body
            .statements()
            .filter(|(_, stmt)| matches!(stmt.kind, StmtKind::Invoke { .. }))
            .map(|(_, stmt)| Edge {
                caller: 0,
                pc: stmt.pc,
                line: stmt.line,
                callee: 1,
                kind: EdgeKind::Special,
                dispatch: Dispatch::Exact,
            })
            .collect();
        assert_eq!(edges.len(), 1, "{name}: one constructor call");
        let edges: Vec<&Edge> = edges.iter().collect();
        let context = Context {
            methods: &[],
            edges: &edges,
            unresolved: &BTreeSet::new(),
            summaries: &[None, Some(Summary::default())],
            unknown: &[false, false],
            copies: &BTreeSet::new(),
            formats: &BTreeSet::new(),
        };
        let (_, translation) = method::analyze(&body, &context);
        let allocations: Vec<_> = translation.allocations.values().cloned().collect();
        assert_eq!(allocations, vec![expected], "{name}");
    }
}

#[test]
fn what_a_native_method_receives_escapes() {
    assert_eq!(
        routes("toNative"),
        lines(&["toNative:Object -> escapes", "toNative:Object -> toNative"])
    );
}

#[test]
fn recursion_is_analyzed_to_a_fixpoint() {
    assert_eq!(
        routes("usesBuild"),
        lines(&["usesBuild>build:Node -> usesBuild"])
    );
    assert_eq!(routes("leakAll"), lines(&["leakAll:Node -> escapes"]));
    assert_eq!(routes("pingPong"), lines(&["pingPong:Node -> escapes"]));
}

#[test]
fn a_component_too_large_to_analyze_is_unknown_code() {
    assert_eq!(
        routes("usesEvenOdd"),
        lines(&[
            "usesEvenOdd>even:Node -> usesEvenOdd",
            "usesEvenOdd>even>odd:Node -> usesEvenOdd",
        ])
    );
    // `even` and `odd` form a component of two methods; allowing one, what they create
    // escapes.
    assert_eq!(
        routes_within("usesEvenOdd", 1),
        lines(&[
            "usesEvenOdd>even:Node -> escapes",
            "usesEvenOdd>even>odd:Node -> escapes",
        ])
    );
    let result = analyzed_within("escape", "escape.Routes.usesEvenOdd", 1);
    let mut names: Vec<&str> = result.regions.unanalyzed.iter().map(|m| &*m.name).collect();
    names.sort();
    assert_eq!(names, ["even", "odd"]);
}

#[test]
fn an_object_stored_into_a_captured_object_is_captured_with_it() {
    assert_eq!(
        routes("capturedHolder"),
        lines(&[
            "capturedHolder:Holder -> capturedHolder",
            "capturedHolder:Object -> capturedHolder",
        ])
    );
}

#[test]
fn constructors_see_this_as_a_parameter() {
    assert_eq!(
        routes("registers"),
        lines(&["registers:Registering -> escapes",])
    );
    assert_eq!(
        routes("owns"),
        lines(&["owns:Owning -> owns", "owns><init>:Object -> owns"])
    );
    assert_eq!(
        routes("ownsReturned"),
        lines(&[
            "ownsReturned:Owning -> escapes",
            "ownsReturned><init>:Object -> escapes",
        ])
    );
}

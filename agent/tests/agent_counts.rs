//! The agent against programs whose allocations are known exactly: the thesis's Fig 1.4 example
//! (counts per creation site by hand, sizes from `Instrumentation.getObjectSize`) and a program
//! that counts its own allocations in source. The Java sources in `tests/java/` are compiled with
//! `javac` at test time; `javac`, `jar` and `java` must be on `PATH` (or under `JAVA_HOME`).
//!
//! These runs are also the empirical check of the JVM flags in `EXACT_ALLOCATION_FLAGS`: the
//! counts only come out exact when the agent sees every allocation.

use membound_runtime::measure::{self, Event, MeasureOptions, Measurement};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// A JDK tool from `JAVA_HOME`, else from `PATH`.
fn jdk_tool(name: &str) -> PathBuf {
    std::env::var_os("JAVA_HOME")
        .map(|home| PathBuf::from(home).join("bin").join(name))
        .filter(|path| path.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}

fn run_tool(command: &mut Command) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The test programs, compiled once per test run into a fresh directory, with the size probe
/// packed as a `-javaagent` jar.
fn classes() -> &'static Path {
    static CLASSES: OnceLock<PathBuf> = OnceLock::new();
    CLASSES.get_or_init(|| {
        // Cargo's scratch directory for integration tests, inside the target directory.
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("agent-tests-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let sources = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/java");
        let java_files: Vec<PathBuf> = std::fs::read_dir(&sources)
            .expect("tests/java")
            .map(|entry| entry.expect("directory entry").path())
            .filter(|path| path.extension().is_some_and(|e| e == "java"))
            .collect();
        run_tool(
            Command::new(jdk_tool("javac"))
                .arg("-g")
                .arg("-d")
                .arg(&dir)
                .args(&java_files),
        );
        std::fs::write(dir.join("probe.mf"), "Premain-Class: SizeProbe\n").expect("manifest");
        run_tool(Command::new(jdk_tool("jar")).current_dir(&dir).args([
            "cfm",
            "probe.jar",
            "probe.mf",
            "SizeProbe.class",
        ]));
        dir
    })
}

fn measure_in_classes(main: &str, method: &str, args: &[&str]) -> Measurement {
    let options = MeasureOptions {
        input: classes().to_owned(),
        method: method.to_owned(),
        main: Some(main.to_owned()),
        program_args: args.iter().map(|a| a.to_string()).collect(),
        ..MeasureOptions::default()
    };
    let measurement = measure::measure(&options).unwrap_or_else(|e| panic!("measure failed: {e}"));
    assert!(
        measurement.warnings.is_empty(),
        "{:?}",
        measurement.warnings
    );
    measurement
}

/// A site's chain as the methods' simple names (`m0>m1>m2`) and its type.
fn site_key(site: &measure::SiteCount) -> (String, String) {
    let names: Vec<&str> = site
        .chain
        .iter()
        .map(|frame| {
            let name = frame.method.split('(').next().unwrap_or_default();
            name.rsplit('.').next().unwrap_or_default()
        })
        .collect();
    (names.join(">"), site.type_name.clone())
}

/// Fig 1.4 counted by hand (thesis Example 1.1/1.4): per chain and type, as a function of mc.
fn fig14_hand_counts(mc: u64) -> BTreeMap<(String, String), u64> {
    let triangle = mc * (mc + 1) / 2;
    [
        ("m0>m1", "Fig14$A", mc),
        ("m0>m1>m2", "Fig14$B[]", mc),
        ("m0>m1>m2", "Fig14$B", triangle),
        ("m0>m1>m2", "Fig14$C", triangle),
        ("m0>m2", "Fig14$B[]", 1),
        ("m0>m2", "Fig14$B", 2 * mc),
        ("m0>m2", "Fig14$C", 2 * mc),
    ]
    .into_iter()
    .filter(|&(_, _, count)| count > 0)
    .map(|(chain, type_name, count)| ((chain.to_owned(), type_name.to_owned()), count))
    .collect()
}

/// Object sizes as `Instrumentation.getObjectSize` reports them under the same JVM flags.
fn fig14_sizes(mc: u64) -> HashMap<String, u64> {
    let dir = classes();
    let output = run_tool(
        Command::new(jdk_tool("java"))
            .arg(format!("-javaagent:{}", dir.join("probe.jar").display()))
            .args(measure::EXACT_ALLOCATION_FLAGS)
            .arg("-cp")
            .arg(dir)
            .arg("Fig14Sizes")
            .arg(mc.to_string()),
    );
    output
        .lines()
        .map(|line| {
            let (key, size) = line.rsplit_once(' ').expect("`<type> <size>`");
            (key.to_owned(), size.parse().expect("a size"))
        })
        .collect()
}

#[test]
fn fig14_counts_per_creation_site_are_the_hand_counts() {
    for mc in [0u64, 1, 4, 9] {
        let measurement = measure_in_classes("Fig14", "Fig14.m0(I)V", &[&mc.to_string()]);
        let observed: BTreeMap<(String, String), u64> = measurement
            .sites
            .iter()
            .map(|site| (site_key(site), site.count))
            .collect();
        assert_eq!(observed, fig14_hand_counts(mc), "mc = {mc}");
        let total: u64 = fig14_hand_counts(mc).values().sum();
        assert_eq!(measurement.total.objects, total, "mc = {mc}");
        assert_eq!(measurement.params.get("mc"), Some(&Some(mc as i64)));
    }
}

#[test]
fn fig14_bytes_are_the_sizes_the_jvm_reports() {
    let mc = 6;
    let sizes = fig14_sizes(mc);
    let size = |key: &str| sizes[key];
    let triangle = mc * (mc + 1) / 2;
    let arrays_in_m1: u64 = (1..=mc).map(|n| size(&format!("Fig14$B[] {n}"))).sum();
    let expected: BTreeMap<(String, String), u64> = [
        ("m0>m1", "Fig14$A", mc * size("Fig14$A")),
        ("m0>m1>m2", "Fig14$B[]", arrays_in_m1),
        ("m0>m1>m2", "Fig14$B", triangle * size("Fig14$B")),
        ("m0>m1>m2", "Fig14$C", triangle * size("Fig14$C")),
        ("m0>m2", "Fig14$B[]", size(&format!("Fig14$B[] {}", 2 * mc))),
        ("m0>m2", "Fig14$B", 2 * mc * size("Fig14$B")),
        ("m0>m2", "Fig14$C", 2 * mc * size("Fig14$C")),
    ]
    .into_iter()
    .map(|(chain, type_name, bytes)| ((chain.to_owned(), type_name.to_owned()), bytes))
    .collect();
    let measurement = measure_in_classes("Fig14", "Fig14.m0(I)V", &[&mc.to_string()]);
    let observed: BTreeMap<(String, String), u64> = measurement
        .sites
        .iter()
        .map(|site| (site_key(site), site.bytes))
        .collect();
    assert_eq!(observed, expected);
    assert_eq!(measurement.total.bytes, expected.values().sum::<u64>());
}

#[test]
fn fig14_chains_carry_offsets_and_source_lines() {
    let measurement = measure_in_classes("Fig14", "Fig14.m0(I)V", &["2"]);
    let site = measurement
        .sites
        .iter()
        .find(|site| site_key(site) == ("m0>m1>m2".to_owned(), "Fig14$B".to_owned()))
        .expect("the site m0 > m1 > m2 > new B");
    let methods: Vec<&str> = site.chain.iter().map(|f| f.method.as_str()).collect();
    assert_eq!(
        methods,
        ["Fig14.m0(I)V", "Fig14.m1(I)V", "Fig14.m2(I)[LFig14$B;"]
    );
    // Source lines of the calls and of `arrB[j - 1] = new B();` in tests/java/Fig14.java.
    let lines: Vec<Option<u32>> = site.chain.iter().map(|f| f.line).collect();
    assert_eq!(lines, [Some(16), Some(23), Some(30)]);
    assert!(site.chain.iter().all(|f| f.offset >= 0));
}

#[test]
fn class_loading_under_the_method_is_vm_internal() {
    // Fig14's nested classes are loaded on their first `new`, inside m0: the class loader's
    // allocations happen under m0 but must not reach the sites (the exact counts above) and
    // must show up apart.
    let measurement = measure_in_classes("Fig14", "Fig14.m0(I)V", &["3"]);
    assert!(
        measurement.vm_internal.objects > 0,
        "class loading allocates"
    );
    assert!(
        measurement
            .sites
            .iter()
            .all(|s| s.type_name.starts_with("Fig14$"))
    );
}

/// The `<type> <count>` lines Counted prints.
fn counted_in_source(stdout: &str) -> BTreeMap<String, u64> {
    stdout
        .lines()
        .filter(|line| !line.starts_with("sum "))
        .map(|line| {
            let (type_name, count) = line.rsplit_once(' ').expect("`<type> <count>`");
            (type_name.to_owned(), count.parse().expect("a count"))
        })
        .filter(|&(_, count)| count > 0)
        .collect()
}

#[test]
fn counts_per_type_match_the_counters_in_the_source() {
    for (n, seed) in [("500", "7"), ("2000", "12345")] {
        let measurement = measure_in_classes("Counted", "Counted.work(II)I", &[n, seed]);
        let mut observed: BTreeMap<String, u64> = BTreeMap::new();
        for site in &measurement.sites {
            *observed.entry(site.type_name.clone()).or_default() += site.count;
        }
        assert_eq!(
            observed,
            counted_in_source(&measurement.program_stdout),
            "n = {n}"
        );
        assert_eq!(
            measurement.params.get("n"),
            Some(&Some(n.parse().expect("n")))
        );
        assert_eq!(
            measurement.params.get("seed"),
            Some(&Some(seed.parse().expect("seed")))
        );
    }
}

#[test]
fn native_allocations_are_attributed_to_the_native_frame() {
    let measurement = measure_in_classes("Counted", "Counted.work(II)I", &["300", "7"]);
    let clone_site = measurement
        .sites
        .iter()
        .find(|site| {
            site.chain
                .last()
                .is_some_and(|f| f.method == "java.lang.Object.clone()Ljava/lang/Object;")
        })
        .expect("template.clone() allocates in Object.clone");
    assert_eq!(clone_site.type_name, "int[]");
    assert_eq!(clone_site.chain.len(), 2);
}

/// Runs a program under the agent and returns the raw event stream.
fn run_in_classes(main: &str, method: &str, args: &[&str]) -> measure::Run {
    let options = MeasureOptions {
        input: classes().to_owned(),
        method: method.to_owned(),
        main: Some(main.to_owned()),
        program_args: args.iter().map(|a| a.to_string()).collect(),
        ..MeasureOptions::default()
    };
    measure::run_under_agent(&options).unwrap_or_else(|e| panic!("run failed: {e}"))
}

/// Checks what a region replay relies on: every activation is entered once and exits once,
/// every program allocation happens while all the activations of its chain are live, and
/// everything has exited by the end. Returns how often each method was entered.
fn assert_activations_nest(run: &measure::Run) -> HashMap<String, u64> {
    let mut live: HashSet<u64> = HashSet::new();
    let mut entered: HashMap<String, u64> = HashMap::new();
    for event in &run.stream.events {
        match event {
            Event::Enter {
                activation, method, ..
            } => {
                assert!(live.insert(*activation), "entered twice");
                *entered.entry(method.to_string()).or_default() += 1;
            }
            Event::Exit { activation, .. } => {
                assert!(live.remove(activation), "exit without entry")
            }
            Event::Allocation(allocation) if allocation.by_program => {
                for frame in &allocation.chain {
                    assert!(
                        live.contains(&frame.activation),
                        "allocation in a finished activation"
                    );
                }
            }
            Event::Reached { activation, .. } => {
                assert!(live.contains(activation), "a walk at a finished activation")
            }
            Event::Allocation(_) => {}
        }
    }
    assert!(live.is_empty(), "every activation exits");
    entered
}

#[test]
fn the_event_stream_nests_activations_around_their_allocations() {
    let entered = assert_activations_nest(&run_in_classes("Fig14", "Fig14.m0(I)V", &["5"]));
    // m0 once, m1 once, m2 once per loop iteration of m1 and once from m0.
    assert_eq!(entered.get("Fig14.m0(I)V"), Some(&1));
    assert_eq!(entered.get("Fig14.m1(I)V"), Some(&1));
    assert_eq!(entered.get("Fig14.m2(I)[LFig14$B;"), Some(&6));
}

#[test]
fn recursion_and_exceptions_keep_counts_and_activations_exact() {
    let (depth, repeats) = (4, 9);
    let args = [depth.to_string(), repeats.to_string()];
    let method = "Tricky.run(IJF[I)I";
    let measurement = measure_in_classes("Tricky", method, &[&args[0], &args[1]]);
    let mut observed: BTreeMap<String, u64> = BTreeMap::new();
    for site in &measurement.sites {
        *observed.entry(site.type_name.clone()).or_default() += site.count;
    }
    let mut expected = counted_in_source(&measurement.program_stdout);
    expected.remove("caught");
    assert_eq!(observed, expected);
    // An instance method: `this` is no parameter; the float is not recorded.
    let params: Vec<(&str, Option<i64>)> = measurement
        .params
        .iter()
        .map(|(name, value)| (name.as_str(), *value))
        .collect();
    assert_eq!(
        params,
        [
            ("data.length", Some(7)),
            ("depth", Some(depth)),
            ("repeats", Some(repeats))
        ]
    );

    let run = run_in_classes("Tricky", method, &[&args[0], &args[1]]);
    let entered = assert_activations_nest(&run);
    assert_eq!(
        entered.get("Tricky.tree(I)LTricky$Node;"),
        Some(&31),
        "2^(depth+1) - 1 calls"
    );
    assert_eq!(
        entered.get("Tricky.risky(I)V"),
        Some(&repeats.unsigned_abs())
    );
    let vm_made_exception = run.stream.events.iter().any(|event| {
        let exception = "java.lang.ArithmeticException";
        matches!(event, Event::Allocation(a) if !a.by_program && a.type_name == exception)
    });
    assert!(
        vm_made_exception,
        "the VM's ArithmeticException is VM-internal"
    );
}

#[test]
fn concurrent_activations_on_several_threads_are_all_counted() {
    let (threads, n) = (4u64, 3000u64);
    let run = run_in_classes(
        "Threads",
        "Threads.work(I)J",
        &[&threads.to_string(), &n.to_string()],
    );
    assert_eq!(run.stream.info.entries.len() as u64, threads);
    let entered = assert_activations_nest(&run);
    assert_eq!(entered.get("Threads.work(I)J"), Some(&threads));
    let measurement = measure::aggregate(&run.stream).expect("aggregates");
    assert_eq!(measurement.total.objects, threads * n);
    let types: HashSet<&str> = measurement
        .sites
        .iter()
        .map(|s| s.type_name.as_str())
        .collect();
    assert_eq!(types, HashSet::from(["Threads$Item"]));
}

#[test]
fn a_method_the_program_never_calls_is_an_error() {
    let options = MeasureOptions {
        input: classes().to_owned(),
        method: "Fig14.m0(J)V".to_owned(),
        main: Some("Fig14".to_owned()),
        program_args: vec!["1".to_owned()],
        ..MeasureOptions::default()
    };
    let error = measure::measure(&options).expect_err("no such overload");
    assert!(error.to_string().contains("Fig14.m0(J)V"), "{error}");
}

#[test]
fn allocations_in_a_hot_loop_are_all_seen() {
    // Hot.norm's Point never escapes: a JIT with escape analysis would stop allocating it.
    let n = 20_000;
    let measurement = measure_in_classes("Hot", "Hot.run(I)J", &[&n.to_string()]);
    let points: u64 = measurement
        .sites
        .iter()
        .filter(|site| site.type_name == "Hot$Point")
        .map(|site| site.count)
        .sum();
    assert_eq!(points, n);
    assert_eq!(measurement.total.objects, n);
}

#[test]
fn call_site_linkage_is_vm_internal_and_lambda_bodies_are_the_programs() {
    let n = 12;
    let measurement = measure_in_classes("Lambdas", "Lambdas.work(I)J", &[&n.to_string()]);
    let count_ending_in = |method: &str| -> u64 {
        let sites = measurement.sites.iter();
        let ending = sites.filter(|s| s.chain.last().is_some_and(|f| f.method == method));
        ending.map(|s| s.count).sum()
    };
    assert_eq!(count_ending_in("Lambdas.lambda$work$0(I)[I"), n);
    assert_eq!(count_ending_in("Lambdas.make(I)[I"), n);
    let vm_frames = [
        "java.lang.ClassLoader.",
        "MethodHandleNatives.",
        ".<clinit>(",
    ];
    for site in &measurement.sites {
        for frame in &site.chain {
            assert!(
                vm_frames.iter().all(|vm| !frame.method.contains(vm)),
                "a frame the VM pushed in a program chain: {site:?}"
            );
        }
    }
    assert!(
        measurement.vm_internal.objects > 0,
        "linking the call sites allocates"
    );
}

#[test]
fn fig14_region_replay_peaks_where_the_hand_count_says() {
    // Regions of thesis Example 1.6: m2 captures C; m1 captures A and what its m2 calls return
    // (B[] and B); m0 captures what its own m2 call returns. Counting objects, the live set peaks
    // either at the end of m1's last m2 call (mc A, mc B[], mc(mc+1)/2 B in m1, mc C in m2) or at
    // the end of m0's m2 call (one B[] and 2mc B in m0, 2mc C in m2).
    let thesis_regions = |allocation: &measure::Allocation| {
        let last = allocation.chain.len() - 1;
        let through_m1 = allocation
            .chain
            .get(1)
            .is_some_and(|f| f.method.starts_with("Fig14.m1("));
        if allocation.type_name == "Fig14$C" {
            measure::Placement::Frame(last)
        } else if through_m1 {
            measure::Placement::Frame(1)
        } else {
            measure::Placement::Frame(0)
        }
    };
    for mc in [1u64, 2, 4, 7] {
        let run = run_in_classes("Fig14", "Fig14.m0(I)V", &[&mc.to_string()]);
        let peaks = measure::replay_regions(&run.stream, thesis_regions);
        assert_eq!(peaks.len(), 1, "one call of m0");
        let peak = peaks[0].peak;
        let in_m1 = 3 * mc + mc * (mc + 1) / 2;
        let in_m0 = 4 * mc + 1;
        assert_eq!(peak.objects, in_m1.max(in_m0), "mc = {mc}");
    }
}

#[test]
fn a_jar_runs_with_the_main_class_of_its_manifest() {
    let dir = classes();
    let jar = dir.join("fig14.jar");
    let classes_of_fig14: Vec<String> = ["Fig14", "Fig14$A", "Fig14$B", "Fig14$C"]
        .iter()
        .map(|name| format!("{name}.class"))
        .collect();
    run_tool(
        Command::new(jdk_tool("jar"))
            .current_dir(dir)
            .args(["cfe", "fig14.jar", "Fig14"])
            .args(&classes_of_fig14),
    );
    let options = MeasureOptions {
        input: jar.clone(),
        method: "Fig14.m0(I)V".to_owned(),
        program_args: vec!["3".to_owned()],
        ..MeasureOptions::default()
    };
    let measurement = measure::measure(&options).expect("runs from the jar");
    assert_eq!(
        measurement.total.objects,
        fig14_hand_counts(3).values().sum::<u64>()
    );

    let library_jar = dir.join("no-main.jar");
    run_tool(Command::new(jdk_tool("jar")).current_dir(dir).args([
        "cf",
        "no-main.jar",
        "Fig14.class",
    ]));
    let without_main = MeasureOptions {
        input: library_jar,
        ..options
    };
    let error = measure::measure(&without_main).expect_err("no Main-Class");
    assert!(error.to_string().contains("--main"), "{error}");
}

/// The agent library the measure tests load.
fn agent_library() -> PathBuf {
    measure::find_agent(None).expect("the agent is built with the tests")
}

#[test]
fn bad_agent_options_stop_the_jvm_with_a_message() {
    let unwritable = classes().join("no-such-dir").join("events.txt");
    let cases = [
        ("method=Fig14,out=/tmp/x".to_owned(), "not of the form"),
        ("method=Fig14.m0(I)V".to_owned(), "out="),
        (
            format!("method=Fig14.m0(I)V,out={}", unwritable.display()),
            "cannot create",
        ),
    ];
    for (options, message) in cases {
        let output = Command::new(jdk_tool("java"))
            .arg(format!(
                "-agentpath:{}={options}",
                agent_library().display()
            ))
            .arg("-cp")
            .arg(classes())
            .args(["Fig14", "1"])
            .output()
            .expect("java runs");
        assert!(!output.status.success(), "{options}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("membound-agent:") && stderr.contains(message),
            "{stderr}"
        );
    }
}

#[test]
fn entries_record_fields_of_this_static_fields_string_lengths_and_sizes() {
    let options = MeasureOptions {
        input: classes().to_owned(),
        method: "EntryValues$Sub.run".to_owned(),
        main: Some("EntryValues".to_owned()),
        program_args: vec!["4".to_owned()],
        ..MeasureOptions::default()
    };
    let statics = [
        "EntryValues.size".to_owned(),
        "EntryValues$Late.limit".to_owned(),
    ];
    let recording = measure::EntryRecording {
        statics: statics.to_vec(),
        ..measure::EntryRecording::default()
    };
    let measurement = measure::measure_recording(
        &options,
        &recording,
        None::<measure::Regions<fn(&_) -> measure::Placement>>,
    )
    .unwrap_or_else(|e| panic!("measure failed: {e}"));
    assert!(
        measurement.warnings.is_empty(),
        "{:?}",
        measurement.warnings
    );
    // Two calls of 5 objects each; the Object Noisy.size() makes for the agent is not counted.
    assert_eq!(measurement.total.objects, 10);
    assert_eq!(measurement.vm_internal.objects, 0);
    let [first, second] = measurement.entries.as_slice() else {
        panic!("two entries: {:?}", measurement.entries)
    };
    let parameters: Vec<(usize, &str, &str, Option<i64>)> = first
        .parameters
        .iter()
        .map(|p| (p.index, p.name.as_str(), p.kind.as_str(), p.value))
        .collect();
    assert_eq!(
        parameters,
        [
            (0, "text", "string", Some(5)),
            (1, "list", "collection", Some(3)),
            (2, "map", "map", Some(1)),
            (4, "noisy", "collection", Some(2)),
            (5, "nothing", "string", None),
        ]
    );
    assert_eq!(second.parameters[0].value, Some(0));
    let fields: Vec<(&str, &str, i64)> = first
        .this_fields
        .iter()
        .map(|f| (f.class.as_str(), f.name.as_str(), f.value))
        .collect();
    assert_eq!(
        fields,
        [
            ("EntryValues$Sub", "n", 5),
            ("EntryValues$Sub", "s", -3),
            ("EntryValues$Sub", "c", 65),
            ("EntryValues$Sub", "flag", 1),
            ("EntryValues$Sub", "b", 7),
            ("EntryValues$Base", "n", 100),
            ("EntryValues$Base", "big", 1 << 40),
        ]
    );
    let statics = |entry: &measure::EntryValues| -> Vec<(String, i64)> {
        entry
            .statics
            .iter()
            .map(|f| (format!("{}.{}", f.class, f.name), f.value))
            .collect()
    };
    // Late is initialized only between the two calls: before, its field holds no value the
    // program reads.
    assert_eq!(statics(first), [("EntryValues.size".to_owned(), 4)]);
    assert_eq!(
        statics(second),
        [
            ("EntryValues.size".to_owned(), 4),
            ("EntryValues$Late.limit".to_owned(), 9)
        ]
    );
    assert_eq!(measurement.params.get("this.n"), Some(&Some(5)));
    assert_eq!(measurement.params.get("noisy.size"), Some(&Some(2)));
}

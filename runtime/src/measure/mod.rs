//! `membound measure`: the ground truth. Runs a Java program on a real JVM under the JVMTI agent
//! (`membound-agent`, `libmembound_agent.so`), which records every allocation made under the
//! watched method with its call chain, and aggregates what it saw per creation site: the chain
//! from the watched method to the allocating instruction, and the allocated type. Allocations the
//! VM makes on its own behalf while the method runs (class loading, interned names) are counted
//! apart, as VM-internal.
//!
//! [`measure`] is the whole command; [`run_under_agent`] and [`parse_events`] give the raw event
//! stream (with activation entries and exits, in order), and [`replay_regions`] computes the
//! peak of a method-region replay of it once the regions of the creation sites are known.

mod events;
mod launch;
mod reach;
mod replay;
mod report;

pub use events::{
    Allocation, ChainLength, ChainValue, EntryValues, Event, EventStream, FieldValue, Frame,
    HeldBy, LocalValue, Parameter, StreamInfo, parse_events, read_events,
};
pub use launch::{
    AGENT_ENV, EXACT_ALLOCATION_FLAGS, agent_file_name, build_agent_command, find_agent, find_java,
};
pub use reach::{BrokenRegion, RegionCheck, RegionCheckReport};
pub use replay::{EntryPeak, Placement, RegionPeak, RegionReplay, replay_regions};
pub use report::{
    ChainFrame, Measurement, SiteCount, SiteCounter, Totals, aggregate, named_values,
};

use membound_jvm::error::{Error, Result};
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

/// What to run and which method to watch.
#[derive(Debug, Clone, Default)]
pub struct MeasureOptions {
    /// A jar or a directory of classes.
    pub input: PathBuf,
    /// The watched method: `pkg.Class.m(I)V` or `pkg/Class.m(I)V`; without a descriptor every
    /// overload is watched.
    pub method: String,
    /// The main class; defaults to the jar manifest's `Main-Class`.
    pub main: Option<String>,
    /// The `java` launcher; defaults to `$JAVA_HOME/bin/java`, then `java` on `PATH`.
    pub java: Option<PathBuf>,
    /// The agent library; defaults to `$MEMBOUND_AGENT`, then the one next to the executable.
    pub agent: Option<PathBuf>,
    /// Extra JVM options (`-Xmx2g`, `-Xss16m`), placed before the agent's own flags so that
    /// those win where both set the same option.
    pub jvm_args: Vec<String>,
    /// Arguments passed to the program's `main`.
    pub program_args: Vec<String>,
}

/// A finished run under the agent.
#[derive(Debug, Clone)]
pub struct Run {
    pub stream: EventStream,
    /// The program's exit status; None when it was killed by a signal.
    pub exit_code: Option<i32>,
    /// What the program printed on standard output (its standard error is passed through).
    pub stdout: String,
}

/// Runs the program under the agent and aggregates the allocations per creation site. The
/// events are counted as they are read, never held all at once.
pub fn measure(options: &MeasureOptions) -> Result<Measurement> {
    measure_recording(
        options,
        &EntryRecording::default(),
        None::<Regions<fn(&Allocation) -> Placement>>,
    )
}

/// [`measure`], also replaying the run into method regions: `place` says which activation's
/// region holds each allocated object, and the measurement gets each entry's peak.
pub fn measure_regions(
    options: &MeasureOptions,
    place: impl Fn(&Allocation) -> Placement,
) -> Result<Measurement> {
    let regions = Regions { place, check: None };
    measure_recording(options, &EntryRecording::default(), Some(regions))
}

/// Where objects live, for the method-region replay (`place`: the earliest region an object
/// may be freed with) and for the region check (`check`: the region that certainly holds it,
/// [`RegionCheck`]; the agent must then be asked to walk the heap at the exits of the
/// methods whose regions hold objects, [`EntryRecording::regions`]).
pub struct Regions<P> {
    pub place: P,
    pub check: Option<P>,
}

/// What the agent records at every entry of the watched method besides its parameters and
/// the integer fields of `this`.
#[derive(Debug, Clone, Default)]
pub struct EntryRecording {
    /// Static integer fields (`pkg.C.f`, `C` the declaring class), when their class is
    /// initialized by then; `pkg.C.f@pc` once the call or `putstatic` at offset `pc` of the
    /// watched method completed, `pkg.C.f@at:pc` when it reaches offset `pc`, instead of at
    /// the entry.
    pub statics: Vec<String>,
    /// Integer locals, `name@pc`, once the call (or store) at offset `pc` of the watched
    /// method stored its result into them.
    pub locals: Vec<String>,
    /// Lengths of chains, `<root>/<field>` with root `0` (a parameter), `this.f` or `0.f`:
    /// the nodes from the root along the field before null, or `cycle`.
    pub chains: Vec<String>,
    /// Methods (`pkg.C.m(desc)`) at whose exits the heap is walked for the objects the
    /// activation left reachable, for the region check.
    pub regions: Vec<String>,
}

/// [`measure`], or with `regions` [`measure_regions`] (and the region check when asked), the
/// agent also recording `recording` at every entry of the watched method.
pub fn measure_recording(
    options: &MeasureOptions,
    recording: &EntryRecording,
    regions: Option<Regions<impl Fn(&Allocation) -> Placement>>,
) -> Result<Measurement> {
    let mut counter = SiteCounter::default();
    let (place, check) = regions.map_or((None, None), |r| (Some(r.place), r.check));
    let mut replay = place.map(RegionReplay::new);
    let mut check = check.map(RegionCheck::new);
    let finished = run_java(options, recording, |events| {
        read_events(events, |event| {
            counter.add(&event);
            if let Some(replay) = &mut replay {
                replay.add(&event);
            }
            if let Some(check) = &mut check {
                check.add(&event);
            }
        })
    })?;
    let mut measurement = counter.finish(&finished.read)?;
    if let Some(replay) = replay {
        measurement.region_peaks = per_entry(replay.finish(), &finished.read);
    }
    measurement.region_check = check.map(RegionCheck::finish);
    if finished.exit_code != Some(0) {
        let status = finished
            .exit_code
            .map_or_else(|| "a signal".to_owned(), |c| format!("status {c}"));
        measurement
            .warnings
            .push(format!("the program ended with {status}"));
    }
    measurement.program_exit_code = finished.exit_code;
    measurement.program_stdout = finished.stdout;
    Ok(measurement)
}

/// The peaks aligned with the watched method's entries (an entry that allocated nothing
/// peaked at 0).
fn per_entry(peaks: Vec<EntryPeak>, info: &StreamInfo) -> Vec<EntryPeak> {
    info.entries
        .iter()
        .map(|entry| {
            let activation = entry.activation;
            peaks
                .iter()
                .find(|p| p.activation == activation)
                .copied()
                .unwrap_or(EntryPeak {
                    activation,
                    peak: RegionPeak::default(),
                })
        })
        .collect()
}

/// Runs the program under the agent and reads back the whole event stream.
pub fn run_under_agent(options: &MeasureOptions) -> Result<Run> {
    let finished = run_java(options, &EntryRecording::default(), parse_events)?;
    Ok(Run {
        stream: finished.read,
        exit_code: finished.exit_code,
        stdout: finished.stdout,
    })
}

/// When the agent snapshots the heap (`membound heap … --at`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotMoment {
    /// As the main class's `main` returns, its locals still live.
    End,
    /// At each exit of a method, `pkg.Class.method` (every overload) or with a descriptor.
    Exit(String),
    /// After each garbage collection.
    Gc,
    /// At each allocation a method's own code makes, before the new object is stored (the
    /// snapshot's moment names the new object's size: `alloc pkg.C.m(desc)@12 +4016`).
    Alloc(String),
}

impl SnapshotMoment {
    /// `end`, `gc`, `exit:pkg.Class.method[(desc)]` or `alloc:pkg.Class.method[(desc)]`.
    pub fn parse(text: &str) -> Result<SnapshotMoment> {
        match text {
            "end" => Ok(SnapshotMoment::End),
            "gc" => Ok(SnapshotMoment::Gc),
            _ => match (text.strip_prefix("exit:"), text.strip_prefix("alloc:")) {
                (Some(method), _) => {
                    check_method_name(method)?;
                    Ok(SnapshotMoment::Exit(method.to_owned()))
                }
                (_, Some(method)) => {
                    check_method_name(method)?;
                    Ok(SnapshotMoment::Alloc(method.to_owned()))
                }
                _ => Err(Error::Input(format!(
                    "`--at {text}`: say end, gc, exit:pkg.Class.method or alloc:pkg.Class.method"
                ))),
            },
        }
    }

    /// The agent's `snapshot=` option for a program started by `launch`.
    fn agent_option(&self, launch: &launch::Launch) -> Result<String> {
        Ok(match self {
            SnapshotMoment::End => {
                let main = match launch {
                    launch::Launch::Jar(jar) => launch::manifest_main_class(jar)?,
                    launch::Launch::Class { main, .. } => main.clone(),
                };
                format!("snapshot=exit:{main}.main([Ljava/lang/String;)V")
            }
            SnapshotMoment::Exit(method) => format!("snapshot=exit:{method}"),
            SnapshotMoment::Alloc(method) => format!("snapshot=alloc:{method}"),
            SnapshotMoment::Gc => "snapshot=gc".to_owned(),
        })
    }
}

/// A finished run in which the agent snapshotted the heap; its file is removed when this is
/// dropped.
pub struct SnapshotRun {
    file: EventFile,
    /// The program's exit status; None when it was killed by a signal.
    pub exit_code: Option<i32>,
    /// What the program printed on standard output (its standard error is passed through).
    pub stdout: String,
}

impl SnapshotRun {
    /// The agent's snapshot file (read with `membound_heap::agent_file`).
    pub fn path(&self) -> &Path {
        self.file.path()
    }
}

/// Runs the program under the agent in heap mode: the agent writes a snapshot of the heap at
/// each `moment` (`options.method` is not used).
pub fn run_for_snapshots(options: &MeasureOptions, moment: &SnapshotMoment) -> Result<SnapshotRun> {
    let (file, output) = run_agent(options, |launch| moment.agent_option(launch))?;
    Ok(SnapshotRun {
        file,
        exit_code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
    })
}

/// A finished JVM, and what was read from the agent's events.
struct Finished<T> {
    read: T,
    exit_code: Option<i32>,
    stdout: String,
}

/// Runs the program under the agent, also recording `recording`, then hands the agent's event
/// file to `read`.
fn run_java<T>(
    options: &MeasureOptions,
    recording: &EntryRecording,
    read: impl FnOnce(BufReader<File>) -> Result<T>,
) -> Result<Finished<T>> {
    check_method_name(&options.method)?;
    recording
        .statics
        .iter()
        .try_for_each(|field| check_static_field(field))?;
    recording
        .locals
        .iter()
        .try_for_each(|local| check_local(local))?;
    let agent_options = launch::watch_options(&options.method, recording);
    let (events, output) = run_agent(options, |_| Ok(agent_options))?;
    let read = events.open().and_then(read).map_err(|e| match output.status.code() {
        Some(code) if code != 0 => Error::Input(format!(
            "the JVM exited with status {code} before the agent wrote its events (see its messages above)"
        )),
        _ => e,
    })?;
    Ok(Finished {
        read,
        exit_code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
    })
}

/// Runs the program under the agent with the options `agent_options` makes for its launch,
/// the agent writing into a fresh file; the program's stdout is captured, its stderr passed
/// through.
fn run_agent(
    options: &MeasureOptions,
    agent_options: impl FnOnce(&launch::Launch) -> Result<String>,
) -> Result<(EventFile, std::process::Output)> {
    let launch = launch::launch_for(&options.input, options.main.as_deref())?;
    let agent_options = agent_options(&launch)?;
    let java = find_java(options.java.as_deref())?;
    let agent = find_agent(options.agent.as_deref())?;
    let file = EventFile::create()?;
    let program = launch::Program {
        java: &java,
        agent: &agent,
        jvm_args: &options.jvm_args,
        program_args: &options.program_args,
    };
    let output = program
        .command(&launch, &agent_options, file.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| Error::Input(format!("cannot run {}: {e}", java.display())))?;
    Ok((file, output))
}

/// Rejects a method name the agent would refuse, before starting a JVM for nothing: it must be
/// `Class.method`, optionally package-qualified (dots or slashes) and with a descriptor.
fn check_method_name(method: &str) -> Result<()> {
    let qualified = method.split('(').next().unwrap_or_default();
    if is_agent_member(qualified, method) {
        Ok(())
    } else {
        Err(Error::MethodSelection(format!(
            "method `{method}` is not of the form pkg.Class.method or pkg.Class.method(descriptor)"
        )))
    }
}

/// Rejects a static field name the agent would refuse: `Class.field`, optionally
/// package-qualified, optionally with the offset it is recorded after (`@12`).
fn check_static_field(field: &str) -> Result<()> {
    let (name, after) = match field.split_once('@') {
        Some((name, point)) => {
            let pc = point.strip_prefix("at:").unwrap_or(point);
            (name, pc.parse::<u32>().is_ok())
        }
        None => (field, true),
    };
    if after && is_agent_member(name, field) && !field.contains(' ') {
        Ok(())
    } else {
        Err(Error::Input(format!(
            "static field `{field}` is not of the form pkg.Class.field"
        )))
    }
}

/// Rejects a local the agent would refuse: `name@offset`.
fn check_local(local: &str) -> Result<()> {
    let well_formed = local.split_once('@').is_some_and(|(name, pc)| {
        !name.is_empty() && !name.contains([' ', ',']) && pc.parse::<u32>().is_ok()
    });
    if well_formed {
        Ok(())
    } else {
        Err(Error::Input(format!(
            "local `{local}` is not of the form name@offset"
        )))
    }
}

/// Whether `qualified` is `Class.member` and its `option` text has no comma (which would end it
/// in the agent's option string).
fn is_agent_member(qualified: &str, option: &str) -> bool {
    qualified
        .rsplit_once('.')
        .is_some_and(|(class, name)| !class.is_empty() && !name.is_empty())
        && !option.contains(',')
}

/// The agent's output file: a fresh name in the temporary directory, removed when dropped.
struct EventFile {
    path: PathBuf,
}

impl EventFile {
    fn create() -> Result<EventFile> {
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir();
        for attempt in 0..100u32 {
            let path = dir.join(format!(
                "membound-{}-{stamp}-{attempt}.events",
                std::process::id()
            ));
            // create_new: never reuse (or follow a planted link to) an existing file.
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(_) => return Ok(EventFile { path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(source) => return Err(Error::Io { path, source }),
            }
        }
        Err(Error::Input(format!(
            "cannot create a file for the agent's events in {}",
            dir.display()
        )))
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn open(&self) -> Result<BufReader<File>> {
        let file = File::open(&self.path).map_err(|source| Error::Io {
            path: self.path.clone(),
            source,
        })?;
        Ok(BufReader::new(file))
    }
}

impl Drop for EventFile {
    fn drop(&mut self) {
        // Best effort: a leftover file in the temporary directory is harmless.
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_names_need_a_class_and_a_method() {
        assert!(check_method_name("pkg.Class.m(I)V").is_ok());
        assert!(check_method_name("pkg/sub/Class.m").is_ok());
        assert!(check_method_name("m(I)V").is_err());
        assert!(check_method_name("Class.").is_err());
        assert!(check_method_name("").is_err());
        assert!(check_method_name("A.m,out=/etc/passwd").is_err());
    }

    #[test]
    fn static_fields_need_a_class_and_a_field() {
        assert!(check_static_field("p.Config.size").is_ok());
        assert!(check_static_field("Outer$Inner.n").is_ok());
        assert!(check_static_field("p.Main.size@1").is_ok());
        assert!(check_local("count@3").is_ok());
        for bad in ["count", "@3", "count@x", "a,out=/etc/passwd@3"] {
            assert!(check_local(bad).is_err(), "{bad}");
        }
        assert!(check_static_field("p.Main.size@x").is_err());
        assert!(check_static_field("p.Main.size@at:37").is_ok());
        assert!(check_static_field("p.Main.size@at:").is_err());
        assert!(check_static_field("size").is_err());
        assert!(check_static_field("C.n,out=/etc/passwd").is_err());
    }
}

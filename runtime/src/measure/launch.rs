//! Running a Java program under the agent: finding `java`, the agent library and the main class,
//! and choosing the JVM flags under which the agent sees every allocation.

use membound_jvm::error::{Error, Result};
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// JVM flags without which the agent would miss allocations. Each was checked on a program of
/// known allocation count (the agent crate's `tests/agent_counts.rs`):
/// - `-XX:-UseTLAB`: allocation sampling happens on the allocation slow path only; with TLABs
///   from 3% to all of the test programs' allocations went unseen (the agent crate's
///   `slowdown` benchmark prints the share seen under each flag set).
/// - `-XX:+UseG1GC`: with TLABs off, the Serial and Parallel collectors let the interpreter
///   bump-allocate in eden inline, and over 99% of allocations were missed. G1 has no inline
///   eden allocation, so every allocation goes through the sampled path. (Ergonomics would pick
///   Serial on a machine with one CPU, so the collector is chosen explicitly.)
/// - `-Xint`: no JIT, hence no escape analysis, which would remove allocations altogether.
pub const EXACT_ALLOCATION_FLAGS: [&str; 3] = ["-XX:+UseG1GC", "-XX:-UseTLAB", "-Xint"];

/// Environment variable naming the agent library, overriding the search next to the executable.
pub const AGENT_ENV: &str = "MEMBOUND_AGENT";

/// The agent's file name on this platform (`libmembound_agent.so` on Linux).
pub fn agent_file_name() -> String {
    format!(
        "{}membound_agent{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    )
}

/// The agent library: `explicit` if given, else `$MEMBOUND_AGENT`, else the one next to the
/// running executable. In a cargo target directory the agent may sit both in `target/<profile>/`
/// (after `cargo build`) and in `target/<profile>/deps/` (after `cargo test`, which does not copy
/// it up); the most recently built one is taken, so tests never run a stale agent.
pub fn find_agent(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(path) = explicit {
        return existing_agent(path.to_owned(), "--agent names", "omit --agent");
    }
    if let Some(path) = std::env::var_os(AGENT_ENV) {
        let unset = format!("unset {AGENT_ENV}");
        return existing_agent(PathBuf::from(path), &format!("{AGENT_ENV} names"), &unset);
    }
    let exe = std::env::current_exe()
        .map_err(|e| Error::Input(format!("cannot locate the membound executable: {e}")))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let profile_dir = if dir.file_name().is_some_and(|name| name == "deps") {
        dir.parent().unwrap_or(dir)
    } else {
        dir
    };
    let candidates = [
        profile_dir.join(agent_file_name()),
        profile_dir.join("deps").join(agent_file_name()),
    ];
    candidates
        .into_iter()
        .filter_map(|path| {
            let built = std::fs::metadata(&path).and_then(|m| m.modified()).ok()?;
            path.is_file().then_some((built, path))
        })
        .max()
        .map(|(_, path)| path)
        .ok_or_else(|| {
            let release = profile_dir
                .file_name()
                .is_some_and(|name| name == "release");
            Error::Input(format!(
                "the JVMTI agent {} is not next to {} (build it with `{}`, or set {AGENT_ENV})",
                agent_file_name(),
                exe.display(),
                build_agent_command(release)
            ))
        })
}

/// The command that builds the agent library into `target/<profile>/`.
pub fn build_agent_command(release: bool) -> &'static str {
    if release {
        "cargo build --release -p membound-agent"
    } else {
        "cargo build -p membound-agent"
    }
}

/// `path` when it is a file; else an error saying who named it and how to do without it.
fn existing_agent(path: PathBuf, named_by: &str, remedy: &str) -> Result<PathBuf> {
    if path.is_file() {
        Ok(path)
    } else {
        Err(Error::Input(format!(
            "{named_by} the JVMTI agent {}, which does not exist: {remedy} to use the agent \
             built into membound, or build one with `{}` (target/release/{})",
            path.display(),
            build_agent_command(true),
            agent_file_name()
        )))
    }
}

/// The `java` launcher: `explicit` if given, else `$JAVA_HOME/bin/java`, else `java` on `PATH`.
pub fn find_java(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(path) = explicit {
        return if path.is_file() {
            Ok(path.to_owned())
        } else {
            Err(Error::Input(format!(
                "java not found at {}",
                path.display()
            )))
        };
    }
    let from_home =
        std::env::var_os("JAVA_HOME").map(|home| PathBuf::from(home).join("bin").join("java"));
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .map(|dir| dir.join("java"));
    from_home
        .into_iter()
        .chain(on_path)
        .find(|path| path.is_file())
        .ok_or_else(|| {
            Error::Input(
                "java not found: set JAVA_HOME, put java on PATH, or pass --java".to_owned(),
            )
        })
}

/// How the program is started: a jar with its own manifest, or a class on a classpath.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// `java -jar <jar>`: the manifest's `Main-Class` and `Class-Path` apply.
    Jar(PathBuf),
    /// `java -cp <classpath> <main class>`.
    Class { classpath: PathBuf, main: String },
}

/// Decides how to start `input` (a jar or a directory of classes), `main` overriding the jar's
/// `Main-Class`.
pub fn launch_for(input: &Path, main: Option<&str>) -> Result<Launch> {
    if !input.exists() {
        return Err(Error::Input(format!("{} does not exist", input.display())));
    }
    match main {
        Some(main) => Ok(Launch::Class {
            classpath: input.to_owned(),
            main: main.to_owned(),
        }),
        None if input.is_dir() => Err(Error::Input(format!(
            "{} is a directory: name the main class with --main",
            input.display()
        ))),
        None => {
            manifest_main_class(input)?;
            Ok(Launch::Jar(input.to_owned()))
        }
    }
}

/// The `Main-Class` of a jar's manifest.
pub fn manifest_main_class(jar: &Path) -> Result<String> {
    let file = std::fs::File::open(jar).map_err(|source| Error::Io {
        path: jar.to_owned(),
        source,
    })?;
    let not_a_jar =
        |e: zip::result::ZipError| Error::Input(format!("{} is not a jar: {e}", jar.display()));
    let mut archive = zip::ZipArchive::new(file).map_err(not_a_jar)?;
    let mut manifest = String::new();
    archive
        .by_name("META-INF/MANIFEST.MF")
        .map_err(|_| {
            Error::Input(format!(
                "{} has no manifest: name the main class with --main",
                jar.display()
            ))
        })?
        .read_to_string(&mut manifest)
        .map_err(|e| {
            Error::Input(format!(
                "cannot read the manifest of {}: {e}",
                jar.display()
            ))
        })?;
    main_class_in(&manifest).ok_or_else(|| {
        Error::Input(format!(
            "{} names no Main-Class: name it with --main",
            jar.display()
        ))
    })
}

/// The `Main-Class` attribute of a manifest. Manifest lines are at most 72 bytes; longer values
/// continue on lines that start with a space.
fn main_class_in(manifest: &str) -> Option<String> {
    let mut joined: Vec<String> = Vec::new();
    for line in manifest.lines() {
        match (line.strip_prefix(' '), joined.last_mut()) {
            (Some(continued), Some(last)) => last.push_str(continued),
            _ => joined.push(line.to_owned()),
        }
    }
    joined
        .iter()
        .find_map(|line| line.strip_prefix("Main-Class:"))
        .map(|value| value.trim().to_owned())
        .filter(|value| !value.is_empty())
}

/// The agent's options for watching `method`, also recording `recording` at each of its
/// entries.
pub fn watch_options(method: &str, recording: &super::EntryRecording) -> String {
    let mut options = format!("method={method}");
    for field in &recording.statics {
        options.push_str(&format!(",static={field}"));
    }
    for local in &recording.locals {
        options.push_str(&format!(",local={local}"));
    }
    for chain in &recording.chains {
        options.push_str(&format!(",chain={chain}"));
    }
    for method in &recording.regions {
        options.push_str(&format!(",region={method}"));
    }
    options
}

/// A program run under the agent, whatever the agent is asked to record.
pub struct Program<'a> {
    pub java: &'a Path,
    pub agent: &'a Path,
    pub jvm_args: &'a [String],
    pub program_args: &'a [String],
}

impl Program<'_> {
    /// `java -agentpath:<agent>=<options>,out=<output> <jvm args> <exact-allocation flags>
    /// (-jar J | -cp C Main) <args>`.
    pub fn command(&self, launch: &Launch, agent_options: &str, output: &Path) -> Command {
        let mut agent_option = OsString::from("-agentpath:");
        agent_option.push(self.agent);
        agent_option.push(format!("={agent_options},out="));
        agent_option.push(output);
        let mut command = Command::new(self.java);
        command
            .arg(agent_option)
            .args(self.jvm_args)
            .args(EXACT_ALLOCATION_FLAGS);
        match launch {
            Launch::Jar(jar) => command.arg("-jar").arg(jar),
            Launch::Class { classpath, main } => command.arg("-cp").arg(classpath).arg(main),
        };
        command.args(self.program_args).stdin(Stdio::null());
        command
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_main_class_may_continue_on_the_next_line() {
        let manifest = "Manifest-Version: 1.0\r\nMain-Class: org.example.very.long.package.name.that.goes.on.and.\r\n on.Main\r\n\r\n";
        assert_eq!(
            main_class_in(manifest).as_deref(),
            Some("org.example.very.long.package.name.that.goes.on.and.on.Main")
        );
        assert_eq!(main_class_in("Manifest-Version: 1.0\n"), None);
    }

    #[test]
    fn a_directory_needs_a_main_class() {
        let dir = std::env::temp_dir();
        assert!(launch_for(&dir, None).is_err());
        let launch = launch_for(&dir, Some("Main")).expect("a main class is enough");
        assert_eq!(
            launch,
            Launch::Class {
                classpath: dir,
                main: "Main".to_owned()
            }
        );
    }

    #[test]
    fn missing_inputs_are_errors() {
        let missing = Path::new("/nonexistent/membound/app.jar");
        assert!(launch_for(missing, None).is_err());
        assert!(find_java(Some(missing)).is_err());
        assert!(find_agent(Some(missing)).is_err());
    }

    #[test]
    fn the_exact_allocation_flags_come_after_the_users_and_before_the_program() {
        let launch = Launch::Class {
            classpath: PathBuf::from("/cp"),
            main: "Main".to_owned(),
        };
        let program = Program {
            java: Path::new("/bin/java"),
            agent: Path::new("/lib/agent.so"),
            jvm_args: &["-Xmx1g".to_owned(), "-XX:+UseTLAB".to_owned()],
            program_args: &["7".to_owned()],
        };
        let recording = super::super::EntryRecording {
            statics: vec!["p.Config.size".to_owned()],
            locals: vec!["count@3".to_owned()],
            chains: vec!["this.head/next".to_owned()],
            regions: vec!["Main.m(I)V".to_owned()],
        };
        let options = watch_options("Main.m(I)V", &recording);
        let command = program.command(&launch, &options, Path::new("/tmp/e"));
        let args: Vec<_> = command
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let expected = [
            "-agentpath:/lib/agent.so=method=Main.m(I)V,static=p.Config.size,local=count@3,chain=this.head/next,region=Main.m(I)V,out=/tmp/e",
            "-Xmx1g",
            "-XX:+UseTLAB",
            "-XX:+UseG1GC",
            "-XX:-UseTLAB",
            "-Xint",
            "-cp",
            "/cp",
            "Main",
            "7",
        ];
        assert_eq!(args, expected);
    }
}

//! The JVMTI agent membound carries: `build.rs` compiles `agent/` into the binary, and a run
//! writes it out once per content under the user's cache directory, where the JVM loads it.
//! `--agent` or `$MEMBOUND_AGENT` name another library instead.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use membound_jvm::error::{Error, Result};
use membound_runtime::measure::{AGENT_ENV, agent_file_name, build_agent_command, find_agent};

/// The agent library, as compiled by build.rs.
const EMBEDDED_AGENT: &[u8] = include_bytes!(env!("MEMBOUND_AGENT_LIBRARY"));

/// The agent to run under: `explicit` (`--agent`), else `$MEMBOUND_AGENT`, else the one this
/// binary carries.
pub(crate) fn agent_library(explicit: Option<&Path>) -> Result<PathBuf> {
    if explicit.is_some() || std::env::var_os(AGENT_ENV).is_some() {
        return find_agent(explicit);
    }
    write_embedded_agent()
}

/// Writes the embedded agent to `<cache>/membound/agent-<hash>/`, unless an identical file is
/// already there. The directory is named by the content, so binaries carrying different agents
/// never load each other's; the file is written beside and renamed into place, so a concurrent
/// run never loads half of it.
fn write_embedded_agent() -> Result<PathBuf> {
    let mut hasher = DefaultHasher::new();
    EMBEDDED_AGENT.hash(&mut hasher);
    let dir = cache_dir()?
        .join("membound")
        .join(format!("agent-{:016x}", hasher.finish()));
    let path = dir.join(agent_file_name());
    if std::fs::read(&path).is_ok_and(|present| present == EMBEDDED_AGENT) {
        return Ok(path);
    }
    let partial = dir.join(format!(".{}.{}", agent_file_name(), std::process::id()));
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&partial, EMBEDDED_AGENT))
        .and_then(|()| std::fs::rename(&partial, &path))
        .map_err(|e| unwritable(&dir, &e.to_string()))?;
    Ok(path)
}

/// `$XDG_CACHE_HOME`, else `$HOME/.cache`.
fn cache_dir() -> Result<PathBuf> {
    let non_empty = |name| std::env::var_os(name).filter(|value| !value.is_empty());
    non_empty("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| non_empty("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .ok_or_else(|| {
            unwritable(
                Path::new("$HOME/.cache"),
                "neither XDG_CACHE_HOME nor HOME is set",
            )
        })
}

/// Why the embedded agent could not be written, and the ways around it.
fn unwritable(dir: &Path, reason: &str) -> Error {
    Error::Input(format!(
        "cannot write the JVMTI agent to {}: {reason}; set XDG_CACHE_HOME to a writable \
         directory, or {AGENT_ENV} (or --agent) to an agent library: `{}` builds \
         target/release/{}",
        dir.display(),
        build_agent_command(true),
        agent_file_name()
    ))
}

//! `membound completions SHELL` and `membound man`: the shell completion script and the roff
//! man page, generated from the clap definition of the commands so they never drift from the
//! flags the binary takes.

use clap::CommandFactory;
use clap_complete::Shell;
use membound_jvm::error::{Error, Result};

use super::Cli;

/// The completion script of `membound` for `shell`.
pub(super) fn completions(shell: Shell) -> String {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "membound", &mut script);
    // Built from Rust strings only: always UTF-8.
    String::from_utf8_lossy(&script).into_owned()
}

/// The man page of `membound`, in roff: the synopsis, every command with its summary, and the
/// version (with the commit).
pub(super) fn man_page() -> Result<String> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .map_err(|error| Error::Input(format!("cannot render the man page: {error}")))?;
    Ok(String::from_utf8_lossy(&page).into_owned())
}

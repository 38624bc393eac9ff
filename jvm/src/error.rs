//! The one input error of membound, shared by every crate, and how it maps to an exit code.
//!
//! Every failure caused by input (a malformed class file, a truncated jar, a missing class, an
//! unknown method, a bad expression) is an [`Error`] with a one-line message; the command line
//! prints it and exits with code 2. Nothing in the analysis panics on input.

use std::path::PathBuf;

/// Everything that can go wrong while reading input or answering a command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The input is not what the command expects (bad class file, bad archive, bad syntax).
    #[error("{0}")]
    Input(String),
    /// A class named by the program or the user is on no classpath entry.
    #[error("class not found: {0}")]
    ClassNotFound(String),
    /// The user named a method that does not exist or names several.
    #[error("{0}")]
    MethodSelection(String),
}

/// Result type of the membound crates.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The process exit code for this error: every error of input or usage is 2.
    pub fn exit_code(&self) -> u8 {
        2
    }
}

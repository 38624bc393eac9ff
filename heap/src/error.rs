//! The crate's one error type: every failure is caused by input (a malformed dump, a file that
//! cannot be read, a metrics file of another format) and carries a one-line message.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The input is not what it should be; the message says where and what.
    #[error("{0}")]
    Input(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

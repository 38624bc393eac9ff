//! `membound diff` (being written; see issue #10).

use clap::Args;

use crate::error::{Error, Result};

#[derive(Debug, Args)]
pub(super) struct DiffArgs {}

pub(super) fn diff(_args: &DiffArgs) -> Result<(String, bool)> {
    Err(Error::Input(
        "membound diff is not implemented yet".to_string(),
    ))
}

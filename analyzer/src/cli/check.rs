//! `membound check` (being written; see issue #10).

use clap::Args;

use crate::error::{Error, Result};

#[derive(Debug, Args)]
pub(super) struct CheckArgs {}

pub(super) fn check(_args: &CheckArgs) -> Result<(String, bool)> {
    Err(Error::Input(
        "membound check is not implemented yet".to_string(),
    ))
}

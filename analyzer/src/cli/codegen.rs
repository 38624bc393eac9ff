//! `membound codegen` (being written; see issue #10).

use clap::Args;

use crate::error::{Error, Result};

#[derive(Debug, Args)]
pub(super) struct CodegenArgs {}

pub(super) fn codegen(_args: &CodegenArgs) -> Result<(String, bool)> {
    Err(Error::Input(
        "membound codegen is not implemented yet".to_string(),
    ))
}

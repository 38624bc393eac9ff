//! The command line: parses arguments with clap and calls the library. Keep it thin.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Parametric heap-memory bounds for Java bytecode.
#[derive(Debug, Parser)]
#[command(name = "membound", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {}

/// Entry point of the `membound` binary.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match cli.command {}
}

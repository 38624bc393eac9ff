//! The `membound` command: a thin shell over [`membound::cli`].

fn main() -> std::process::ExitCode {
    membound::cli::main()
}

//! `membound codegen`: code that evaluates a certificate's bounds at run time (see
//! `certificate::to_java` for what the class holds).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use membound_certificate::{self as certificate, Certificate, JavaOptions};
use membound_jvm::error::{Error, Result};

#[derive(Debug, Args)]
pub(super) struct CodegenArgs {
    /// A certificate written by `membound analyze -o` (`-`: read it from stdin).
    certificate: PathBuf,
    /// The language to write.
    #[arg(long, value_enum, default_value_t = Lang::Java)]
    lang: Lang,
    /// Write the source under this directory (DIR/<package dirs>/<CLASS>.java) instead of
    /// printing it.
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// The generated class's name.
    #[arg(long = "class", value_name = "NAME", default_value = "MemBounds")]
    class_name: String,
    /// The generated class's package (default: the unnamed package).
    #[arg(long, value_name = "P")]
    package: Option<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Lang {
    Java,
}

pub(super) fn codegen(args: &CodegenArgs) -> Result<(String, bool)> {
    let certificate = Certificate::read(&args.certificate)?;
    let file = match args.lang {
        Lang::Java => certificate::to_java(
            &certificate,
            &JavaOptions {
                class_name: args.class_name.clone(),
                package: args.package.clone(),
            },
        )?,
    };
    let Some(directory) = &args.output else {
        return Ok((file.source, false));
    };
    let path = directory.join(&file.path);
    let io = |e: std::io::Error| Error::Input(format!("cannot write {}: {e}", path.display()));
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    std::fs::write(&path, &file.source).map_err(io)?;
    Ok((format!("wrote {}\n", path.display()), false))
}

//! `membound count` and `membound bound`: the math crates on text in isl syntax, no Java.

use std::path::Path;

use membound_bernstein as bernstein;
use membound_polyhedra as polyhedra;

use membound_jvm::error::{Error, Result};

/// How `count` prints.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum CountFormat {
    /// One chamber per line in the thesis notation, then the isl form.
    Text,
    /// Chambers and expressions as JSON.
    Json,
}

/// Counts the integer points of one set, or of each line of `file`.
pub fn count(
    set: Option<&str>,
    file: Option<&Path>,
    at: Option<&str>,
    format: CountFormat,
) -> Result<String> {
    let sets = match (set, file) {
        (Some(text), None) => vec![text.to_string()],
        (None, Some(path)) => read_lines(path)?,
        _ => return Err(Error::Input("give either a set or --file, not both".into())),
    };
    let point = at
        .map(polyhedra::parse_point)
        .transpose()
        .map_err(math_error)?;
    let mut out = String::new();
    for text in &sets {
        let count = polyhedra::count_text(text).map_err(math_error)?;
        match format {
            CountFormat::Text => {
                out.push_str(&count.to_readable());
                out.push('\n');
                out.push_str(&count.to_isl());
                out.push('\n');
            }
            CountFormat::Json => {
                let report = serde_json::to_value(count.report())
                    .map_err(|e| Error::Input(format!("cannot render the count as JSON: {e}")))?;
                out.push_str(&format!("{report:#}\n"));
            }
        }
        if let Some(point) = &point {
            let value = count.eval(point).map_err(|e| math_error(e.into()))?;
            out.push_str(&format!("{value}\n"));
        }
    }
    Ok(out)
}

/// The upper bound of a piecewise polynomial over its set, in its parameters, within `limits`.
pub fn bound(text: &str, at: Option<&str>, limits: bernstein::Limits) -> Result<String> {
    let mut out =
        bernstein::bound_command(text, at, &limits).map_err(|e| Error::Input(e.to_string()))?;
    out.push('\n');
    Ok(out)
}

fn read_lines(path: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(String::from)
        .collect())
}

fn math_error(error: polyhedra::Error) -> Error {
    Error::Input(error.to_string())
}

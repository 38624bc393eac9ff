//! `membound count` and `membound bound`: the math crates on text in isl syntax, no Java.

use std::path::Path;

use membound_bernstein as bernstein;
use membound_polyhedra as polyhedra;

use membound_jvm::error::{Error, Result};

/// How `count` and `bound` print.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum MathFormat {
    /// For people: the thesis notation (then, for a count, the isl form), and the value at the
    /// point alone on the last line.
    Text,
    /// One JSON object: for a count its chambers and expressions, for a bound its text forms
    /// and notes, with the point's `value`; `--file` gives an array of them.
    Json,
}

/// Counts the integer points of one set (`-`: read it from stdin), or of each line of `file`.
pub fn count(
    set: Option<&str>,
    file: Option<&Path>,
    at: Option<&str>,
    format: MathFormat,
) -> Result<String> {
    let sets = match (set, file) {
        (Some(text), None) => vec![text_or_stdin(text)?],
        (None, Some(path)) => read_lines(path)?,
        _ => return Err(Error::Input("give either a set or --file, not both".into())),
    };
    let point = at
        .map(polyhedra::parse_point)
        .transpose()
        .map_err(math_error)?;
    let mut text = String::new();
    let mut reports = Vec::new();
    for set in &sets {
        if let Some(point) = &point {
            let params = polyhedra::parse_set(set).map_err(|e| math_error(e.into()))?;
            known_names(point.keys(), &params.space.params)?;
        }
        let count = polyhedra::count_text(set).map_err(math_error)?;
        let value = point
            .as_ref()
            .map(|point| count.eval(point).map_err(|e| math_error(e.into())))
            .transpose()?;
        match format {
            MathFormat::Text => {
                text.push_str(&count.to_readable());
                text.push('\n');
                text.push_str(&count.to_isl());
                text.push('\n');
                if let Some(value) = value {
                    text.push_str(&bernstein::render_value(&value));
                    text.push('\n');
                }
            }
            MathFormat::Json => {
                let mut report = serde_json::to_value(count.report())
                    .map_err(|e| Error::Input(format!("cannot render the count as JSON: {e}")))?;
                if let Some(value) = value {
                    report["value"] = value.to_string().into();
                }
                reports.push(report);
            }
        }
    }
    Ok(match format {
        MathFormat::Text => text,
        MathFormat::Json if file.is_some() => super::json_text(&reports.into()),
        MathFormat::Json => super::json_text(&reports.remove(0)),
    })
}

/// The upper bound of a piecewise polynomial (`-`: read it from stdin) over its set, in its
/// parameters, within `limits`.
pub fn bound(
    text: &str,
    at: Option<&str>,
    limits: bernstein::Limits,
    format: MathFormat,
) -> Result<String> {
    let text = text_or_stdin(text)?;
    if let Some(at) = at {
        let point = polyhedra::parse_point(at).map_err(math_error)?;
        let piecewise = polyhedra::parse_piecewise(&text).map_err(|e| math_error(e.into()))?;
        known_names(point.keys(), &piecewise.space.params)?;
    }
    let report =
        bernstein::bound_report(&text, at, &limits).map_err(|e| Error::Input(e.to_string()))?;
    Ok(match format {
        MathFormat::Text => format!("{}\n", report.to_text()),
        MathFormat::Json => super::json_text(&bound_json(&report)),
    })
}

/// A `--at` naming something that is not a parameter is an input error.
fn known_names<'a>(mut names: impl Iterator<Item = &'a String>, params: &[String]) -> Result<()> {
    match names.find(|name| !params.contains(name)) {
        Some(unknown) => Err(Error::Input(format!(
            "--at: no parameter `{unknown}` (the parameters: {})",
            if params.is_empty() {
                "none".to_string()
            } else {
                params.join(", ")
            }
        ))),
        None => Ok(()),
    }
}

/// The lines of `path` (`-`: stdin) that hold a set.
fn read_lines(path: &Path) -> Result<Vec<String>> {
    let text = file_or_stdin(path)?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(String::from)
        .collect())
}

/// `bound` (readable), `text` (the form certificates hold, which `parse_bound` reads back),
/// `notes`, and with a point its `value` (`p/q` or `infty`).
fn bound_json(report: &bernstein::BoundReport) -> serde_json::Value {
    let mut json = serde_json::json!({
        "bound": report.bound.to_readable(),
        "text": report.bound.to_text(),
        "notes": report.notes,
    });
    if let Some(value) = &report.value {
        json["value"] = value.to_string().into();
    }
    json
}

/// `text`, or all of stdin when `text` is `-`.
fn text_or_stdin(text: &str) -> Result<String> {
    if text == "-" {
        read_stdin()
    } else {
        Ok(text.to_string())
    }
}

/// The file's text, or all of stdin when `path` is `-`.
fn file_or_stdin(path: &Path) -> Result<String> {
    if path == Path::new("-") {
        return read_stdin();
    }
    std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn read_stdin() -> Result<String> {
    std::io::read_to_string(std::io::stdin()).map_err(|source| Error::Io {
        path: "standard input".into(),
        source,
    })
}

fn math_error(error: polyhedra::Error) -> Error {
    Error::Input(error.to_string())
}

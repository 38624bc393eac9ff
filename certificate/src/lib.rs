//! Certificates: the versioned file a team ships with its build (YAML or JSON, the same
//! fields), written from the bounds of `membound analyze` and read back by `eval`, `check`,
//! `diff` and `validate`. Every quantity is a bound expression in its text form
//! (`membound_bernstein::parse_bound` reads it), over the parameters listed with the method.
//! docs/certificate.md is the reference for the format.
//!
//! This module knows the file format and how to evaluate it; it does not analyze anything.

pub mod budget;
pub mod check_read;
mod codegen;
pub mod diff;
mod eval;
pub mod join;
mod sarif;

use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use membound_jvm::error::{Error, Result};

pub use codegen::{JavaFile, JavaOptions, to_java};
pub use eval::{Evaluation, evaluate, params_of, value_json, value_of, value_text};
pub use sarif::{sarif_location, to_sarif};

/// A site's `region` when its objects may outlive the chain's first method.
pub const ESCAPES: &str = "escapes";

/// The format version this build writes. It reads this one and every older one from
/// [`OLDEST_FORMAT`] on (format 1 named each site by its whole chain).
pub const FORMAT_VERSION: u32 = 2;

/// The oldest format version this build reads.
pub const OLDEST_FORMAT: u32 = 1;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Certificate {
    /// The format version.
    pub membound: u32,
    pub tool: Tool,
    pub input: Input,
    /// The analyzed method; in a certificate of several entry points, the first of `entries`.
    pub entry: Entry,
    /// Every analyzed entry point, sorted, in a certificate of several (`analyze
    /// --entry-points`, `membound merge`); absent for one entry analyzed alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entries: Vec<String>,
    /// What every bound takes for granted.
    pub assumptions: Vec<String>,
    /// The entry first, then every method of its call tree that allocates; with `entries`,
    /// every entry's and every method of their call trees, sorted by name (see [`join::Joiner`]).
    pub methods: Vec<MethodEntry>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    pub version: String,
    pub object_model: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Input {
    pub path: String,
    pub sha256: String,
}

impl Input {
    /// The input at `path` as given, with its SHA-256 (of a directory's files, see
    /// `sha256`).
    pub fn of(path: &Path) -> Result<Input> {
        Ok(Input {
            path: path.display().to_string(),
            sha256: sha256_of(path)?,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub method: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MethodEntry {
    /// `pkg.Class.name(descriptor)`.
    pub method: String,
    pub params: Vec<ParamEntry>,
    pub mem_alloc: AmountEntry,
    /// The size of the method's region: what a call allocates, callees included, that dies
    /// when it returns (absent when escape analysis did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_captured: Option<AmountEntry>,
    /// What a call allocates that may outlive it (absent when escape analysis did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_escapes: Option<AmountEntry>,
    /// The memory a call needs under method regions: `mem_escapes` plus the largest stack of
    /// regions active at once (absent when escape analysis did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_rq: Option<AmountEntry>,
    /// Why `mem_alloc` is ∞ beyond its sites (code the analysis cannot see).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unbounded: Vec<String>,
    /// Why a region's size (hence `mem_rq`) is ∞ beyond its sites' reasons.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub region_reasons: Vec<String>,
    /// For a method a library spec stands for, where the spec comes from (`bundled` or its
    /// file): its sites are the spec's allocations, at offsets 0, 1, … in the spec's order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// The methods of the certificate it calls, in the order of its calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub callees: Vec<String>,
    pub sites: Vec<SiteEntry>,
}

impl MethodEntry {
    /// A method without bounds: ∞, without parameters and sites, with why.
    pub fn unbounded(method: &str, reason: String) -> MethodEntry {
        let infinite = AmountEntry {
            objects: "infty".to_string(),
            bytes: "infty".to_string(),
        };
        MethodEntry {
            method: method.to_string(),
            params: Vec::new(),
            mem_alloc: infinite,
            mem_captured: None,
            mem_escapes: None,
            mem_rq: None,
            unbounded: vec![reason],
            region_reasons: Vec::new(),
            spec: None,
            callees: Vec::new(),
            sites: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamEntry {
    pub name: String,
    pub origin: String,
}

/// A quantity in objects and in bytes (the `count` model's units for `count`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AmountEntry {
    pub objects: String,
    pub bytes: String,
}

/// One local site as seen from a method: the allocating instruction, reached through one of the
/// method's statements.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawSite")]
pub struct SiteEntry {
    /// The allocating instruction (in the method, or in a method it calls).
    pub at: ChainEntry,
    /// The method's own call through which the site is reached; absent when `at` is the
    /// method's own allocation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<ChainEntry>,
    #[serde(rename = "type")]
    pub ty: String,
    /// How often the allocation runs per call of the method, through `via`.
    pub count: String,
    pub objects: String,
    pub bytes: String,
    /// Where the objects live, seen from the method: the method's name (its region: they die
    /// when it returns), `callees` (the regions of methods it calls), `escapes` (they may
    /// outlive it), or several of these joined by ` + `.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// Why something here is ∞.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
}

/// A site's `region` part for the regions of the methods its method calls.
pub const CALLEES: &str = "callees";

/// Which places a site's `region` names, seen from the method `method`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Places {
    pub here: bool,
    pub callees: bool,
    pub escapes: bool,
}

impl Places {
    /// The `region` text of these places for `method`.
    pub fn text(&self, method: &str) -> String {
        let mut parts = Vec::new();
        if self.here {
            parts.push(method);
        }
        if self.callees {
            parts.push(CALLEES);
        }
        if self.escapes {
            parts.push(ESCAPES);
        }
        parts.join(" + ")
    }
}

impl SiteEntry {
    /// The steps from the method to the allocation: the call it is reached through, if any,
    /// then the allocating instruction.
    pub fn steps(&self) -> impl Iterator<Item = &ChainEntry> {
        self.via.iter().chain(std::iter::once(&self.at))
    }

    /// The places its `region` names for its method `method` (`None` without regions).
    pub fn places(&self, method: &str) -> Option<Places> {
        let region = self.region.as_ref()?;
        let mut places = Places::default();
        for part in region.split(" + ") {
            match part {
                ESCAPES => places.escapes = true,
                CALLEES => places.callees = true,
                name if name == method => places.here = true,
                // A method below (format 1 named the capturing method).
                _ => places.callees = true,
            }
        }
        Some(places)
    }
}

/// A site as either format writes it: format 1 named a site by its whole chain from the
/// method down (`chain`), and its region by the capturing method.
#[derive(Deserialize)]
struct RawSite {
    #[serde(default)]
    at: Option<ChainEntry>,
    #[serde(default)]
    via: Option<ChainEntry>,
    #[serde(default)]
    chain: Option<Vec<ChainEntry>>,
    #[serde(rename = "type")]
    ty: String,
    count: String,
    objects: String,
    bytes: String,
    #[serde(default)]
    region: Option<String>,
    #[serde(default)]
    reasons: Vec<String>,
}

impl TryFrom<RawSite> for SiteEntry {
    type Error = String;

    fn try_from(raw: RawSite) -> std::result::Result<SiteEntry, String> {
        let (at, via, region) = match (raw.at, raw.chain) {
            (Some(at), _) => (at, raw.via, raw.region),
            (None, Some(chain)) => {
                let at = chain
                    .last()
                    .cloned()
                    .ok_or_else(|| "a site with an empty chain".to_string())?;
                let via = (chain.len() > 1).then(|| chain[0].clone());
                let region = raw.region.map(|region| {
                    let method = &chain[0].method;
                    if region == ESCAPES || region == *method {
                        region
                    } else {
                        CALLEES.to_string()
                    }
                });
                (at, via, region)
            }
            (None, None) => return Err("a site without `at`".to_string()),
        };
        Ok(SiteEntry {
            at,
            via,
            ty: raw.ty,
            count: raw.count,
            objects: raw.objects,
            bytes: raw.bytes,
            region,
            reasons: raw.reasons,
        })
    }
}

/// One step of a chain, as `membound sites --format json` prints it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainEntry {
    pub method: String,
    pub offset: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl Certificate {
    /// A certificate of the program at `input` (its SHA-256 is computed here) with these
    /// methods, entry first; this build's version and format.
    pub fn new(
        input: &Path,
        object_model: &str,
        assumptions: Vec<String>,
        methods: Vec<MethodEntry>,
    ) -> Result<Certificate> {
        Ok(Certificate::of_input(
            Input::of(input)?,
            object_model,
            assumptions,
            methods,
        ))
    }

    /// A certificate of the program `input` with these methods, entry first; this build's
    /// version and format.
    pub fn of_input(
        input: Input,
        object_model: &str,
        assumptions: Vec<String>,
        methods: Vec<MethodEntry>,
    ) -> Certificate {
        Certificate {
            membound: FORMAT_VERSION,
            tool: Tool {
                version: env!("CARGO_PKG_VERSION").to_string(),
                object_model: object_model.to_string(),
            },
            input,
            entry: Entry {
                method: methods
                    .first()
                    .map(|m| m.method.clone())
                    .unwrap_or_default(),
            },
            entries: Vec::new(),
            assumptions,
            methods,
        }
    }

    pub fn to_yaml(&self) -> String {
        serde_norway::to_string(self).unwrap_or_else(|e| format!("# cannot write YAML: {e}\n"))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self)
            .map_or_else(|e| format!("{{\"error\": \"{e}\"}}"), |s| s + "\n")
    }

    /// Reads a certificate written as JSON or YAML.
    pub fn read(path: &Path) -> Result<Certificate> {
        let text = check_read::read_text(path)?;
        Certificate::parse(&text).map_err(|e| {
            Error::Input(format!(
                "{}: not a membound certificate: {e}",
                path.display()
            ))
        })
    }

    /// Parses certificate text (JSON when it starts with `{`, else YAML), checks its version
    /// and what [`check_read`] checks.
    pub fn parse(text: &str) -> std::result::Result<Certificate, String> {
        let certificate: Certificate = check_read::deserialize(text)?;
        if !(OLDEST_FORMAT..=FORMAT_VERSION).contains(&certificate.membound) {
            return Err(format!(
                "format version {} (this membound reads versions {OLDEST_FORMAT} to {FORMAT_VERSION})",
                certificate.membound
            ));
        }
        check_read::check_meaning(&certificate)?;
        Ok(certificate)
    }

    /// The entry of the method `name` selects (any selector `analyze --method` takes:
    /// [`membound_jvm::selector`]).
    pub fn method(&self, name: &str) -> Result<&MethodEntry> {
        let selector = membound_jvm::selector::Selector::parse(name);
        let matches: Vec<&MethodEntry> = self
            .methods
            .iter()
            .filter(|m| {
                m.method == name || selector.as_ref().is_ok_and(|s| s.names_method(&m.method))
            })
            .collect();
        match matches.as_slice() {
            [one] => Ok(one),
            [] => Err(Error::Input(format!(
                "the certificate has no method {name}; it has: {}",
                self.methods
                    .iter()
                    .map(|m| m.method.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
            many => Err(Error::Input(format!(
                "{name} is overloaded in the certificate; give a descriptor: {}",
                many.iter()
                    .map(|m| m.method.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }
}

/// The SHA-256 of a file, or of a directory's files in name order (their paths and contents).
fn sha256_of(path: &Path) -> Result<String> {
    let mut hasher = Sha256::new();
    hash_into(path, path, &mut hasher)?;
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

fn hash_into(root: &Path, path: &Path, hasher: &mut Sha256) -> Result<()> {
    let io = |e: std::io::Error| Error::Input(format!("cannot read {}: {e}", path.display()));
    if path.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .map_err(io)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for entry in entries {
            hash_into(root, &entry, hasher)?;
        }
    } else {
        let relative = path.strip_prefix(root).unwrap_or(path);
        hasher.update(relative.to_string_lossy().as_bytes());
        hasher.update(std::fs::read(path).map_err(io)?);
    }
    Ok(())
}

//! Aggregating an event stream per creation site, and the measure report (JSON and text).

use super::events::{EntryValues, Event, EventStream, StreamInfo};
use super::replay::{EntryPeak, RegionPeak};
use membound_jvm::error::{Error, Result};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::Arc;

/// Number of objects and their total size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    pub objects: u64,
    pub bytes: u64,
}

impl Totals {
    fn add(&mut self, bytes: u64) {
        self.objects += 1;
        self.bytes += bytes;
    }
}

/// One frame of a creation site's chain: the call site in `method`, or (last) the allocation.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ChainFrame {
    /// `pkg.Class.name(descriptor)`.
    pub method: String,
    /// Bytecode offset of the call or allocating instruction; -1 in a native method.
    pub offset: i64,
    /// Source line, when the class has a line-number table.
    pub line: Option<u32>,
}

/// What a run allocated at one creation site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SiteCount {
    /// From the watched method down to the allocating instruction.
    pub chain: Vec<ChainFrame>,
    /// Java source form: `B[]`, `int[][]`, `java.lang.Integer` (nested classes as `Outer$Inner`).
    #[serde(rename = "type")]
    pub type_name: String,
    pub count: u64,
    pub bytes: u64,
}

/// The result of `membound measure`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Measurement {
    /// The watched method as loaded, `pkg.Class.name(descriptor)` (overloads joined by `, `).
    pub method: String,
    /// Everything the program allocated under the watched method.
    pub total: Totals,
    /// Per creation site, ordered by chain then type.
    pub sites: Vec<SiteCount>,
    /// Allocations the VM made on its own behalf while the watched method ran.
    pub vm_internal: Totals,
    /// The values recorded at the first entry of the watched method, named as
    /// [`named_values`] names them.
    pub params: BTreeMap<String, Option<i64>>,
    /// The values recorded at every entry of the watched method, in order (the first is
    /// `params`).
    #[serde(skip)]
    pub entries: Vec<EntryValues>,
    /// Given the regions of the creation sites, the method-region replay's peak of each entry
    /// of the watched method, in entry order (empty without regions; see
    /// [`super::RegionReplay`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub region_peaks: Vec<EntryPeak>,
    /// With the region check, the objects found reachable after their region ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region_check: Option<super::RegionCheckReport>,
    /// Reasons the numbers may be incomplete; empty for a clean run.
    pub warnings: Vec<String>,
    #[serde(skip)]
    pub program_exit_code: Option<i32>,
    #[serde(skip)]
    pub program_stdout: String,
}

/// Aggregates a stream held in memory per creation site; see [`SiteCounter`].
pub fn aggregate(stream: &EventStream) -> Result<Measurement> {
    let mut counter = SiteCounter::default();
    stream.events.iter().for_each(|event| counter.add(event));
    counter.finish(&stream.info)
}

/// A site's chain as a counting key: method, offset and line of each frame (activations differ
/// from one execution of the site to the next and are left out).
type ChainKey = Vec<(Arc<str>, i64, Option<u32>)>;

/// Counts allocations per creation site as the events go by.
#[derive(Debug, Default)]
pub struct SiteCounter {
    sites: HashMap<(ChainKey, String), Totals>,
    total: Totals,
    vm_internal: Totals,
}

impl SiteCounter {
    pub fn add(&mut self, event: &Event) {
        let Event::Allocation(allocation) = event else {
            return;
        };
        if !allocation.by_program {
            self.vm_internal.add(allocation.bytes);
            return;
        }
        self.total.add(allocation.bytes);
        let chain = allocation
            .chain
            .iter()
            .map(|f| (Arc::clone(&f.method), f.offset, f.line))
            .collect();
        self.sites
            .entry((chain, allocation.type_name.clone()))
            .or_default()
            .add(allocation.bytes);
    }

    /// The measurement. Fails when the watched method was never loaded or never called, since
    /// an empty measurement would then look like a method that allocates nothing.
    pub fn finish(self, info: &StreamInfo) -> Result<Measurement> {
        if info.targets.is_empty() {
            return Err(Error::MethodSelection(format!(
                "method {} is in no class the program loaded (check the class, name and descriptor)",
                info.watched
            )));
        }
        let Some(first_entry) = info.entries.first() else {
            return Err(Error::MethodSelection(format!(
                "method {} was never called during the run",
                info.watched
            )));
        };
        let mut sites: Vec<SiteCount> = self
            .sites
            .into_iter()
            .map(|((chain, type_name), totals)| SiteCount {
                chain: chain
                    .into_iter()
                    .map(|(method, offset, line)| ChainFrame {
                        method: method.to_string(),
                        offset,
                        line,
                    })
                    .collect(),
                type_name,
                count: totals.objects,
                bytes: totals.bytes,
            })
            .collect();
        sites.sort_by(|a, b| (&a.chain, &a.type_name).cmp(&(&b.chain, &b.type_name)));
        let targets: Vec<&str> = info.targets.iter().map(|t| t.as_ref()).collect();
        Ok(Measurement {
            method: targets.join(", "),
            total: self.total,
            sites,
            vm_internal: self.vm_internal,
            params: named_values(first_entry),
            entries: info.entries.clone(),
            warnings: stream_warnings(info),
            ..Measurement::default()
        })
    }
}

/// The values recorded at an entry by name: `n` for an integer parameter, `a.length` for an
/// array's or a string's length (null for null), `c.size` for a collection's or map's size,
/// `this.f` for a field of `this` (the one `this.f` resolves to), `pkg.C.f` for a static
/// field, `pkg.C.f@pc` for one recorded after the instruction at `pc` and `n@pc` for a local
/// recorded once the call at `pc` set it.
pub fn named_values(entry: &EntryValues) -> BTreeMap<String, Option<i64>> {
    let mut named = BTreeMap::new();
    for p in &entry.parameters {
        let key = match p.kind.as_str() {
            "array" | "string" => format!("{}.length", p.name),
            "collection" | "map" => format!("{}.size", p.name),
            _ => p.name.clone(),
        };
        named.insert(key, p.value);
    }
    // A field a superclass's field of the same name hides comes later: the first stays.
    for field in &entry.this_fields {
        named
            .entry(format!("this.{}", field.name))
            .or_insert(Some(field.value));
    }
    for field in &entry.statics {
        named.insert(format!("{}.{}", field.class, field.name), Some(field.value));
    }
    for (pc, field) in &entry.statics_after {
        let key = format!("{}.{}@{pc}", field.class, field.name);
        named.insert(key, Some(field.value));
    }
    for local in &entry.locals_after {
        named.insert(format!("{}@{}", local.name, local.pc), Some(local.value));
    }
    named
}

fn stream_warnings(info: &StreamInfo) -> Vec<String> {
    let mut warnings: Vec<String> = info
        .problems
        .iter()
        .map(|p| format!("agent: {p}"))
        .collect();
    match info.agent_errors {
        None => warnings.push(
            "the event stream is incomplete: the JVM died before the agent could finish".to_owned(),
        ),
        Some(0) => {}
        Some(n) => warnings.push(format!(
            "{n} JVMTI calls or event writes failed in the agent: some allocations may be missing"
        )),
    }
    warnings
}

impl Measurement {
    /// The JSON form (the `--format json` contract).
    pub fn to_json(&self) -> serde_json::Value {
        // Serialising plain structs of strings and integers cannot fail.
        let mut json = serde_json::to_value(self).unwrap_or(serde_json::Value::Null);
        if let Some(peak) = self.region_peak() {
            json["region_peak"] = serde_json::json!({"objects": peak.objects, "bytes": peak.bytes});
        }
        json
    }

    /// The largest region peak over the entries (objects and bytes each at their largest).
    pub fn region_peak(&self) -> Option<RegionPeak> {
        self.region_peaks
            .iter()
            .map(|e| e.peak)
            .reduce(|a, b| RegionPeak {
                objects: a.objects.max(b.objects),
                bytes: a.bytes.max(b.bytes),
            })
    }

    /// The human-readable form.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        let params: Vec<String> = self
            .params
            .iter()
            .map(|(name, value)| {
                format!(
                    "{name} = {}",
                    value.map_or_else(|| "null".to_owned(), |v| v.to_string())
                )
            })
            .collect();
        let _ = writeln!(text, "measured {} ({})", self.method, params.join(", "));
        let _ = writeln!(
            text,
            "total: {} objects, {} bytes",
            self.total.objects, self.total.bytes
        );
        let _ = writeln!(text, "sites:");
        for site in &self.sites {
            let chain =
                membound_jvm::chain::join(site.chain.iter().map(|frame| {
                    membound_jvm::chain::step(&frame.method, frame.offset, frame.line)
                }));
            let _ = writeln!(
                text,
                "  {:>10} x {:<24} {:>12} bytes  {}",
                site.count, site.type_name, site.bytes, chain
            );
        }
        let _ = writeln!(
            text,
            "vm-internal: {} objects, {} bytes (class loading and other allocations by the VM itself)",
            self.vm_internal.objects, self.vm_internal.bytes
        );
        for (index, entry) in self.region_peaks.iter().enumerate() {
            let _ = writeln!(
                text,
                "region peak of entry {}: {} objects, {} bytes",
                index + 1,
                entry.peak.objects,
                entry.peak.bytes
            );
        }
        for warning in &self.warnings {
            let _ = writeln!(text, "warning: {warning}");
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::parse_events;

    fn stream(text: &str) -> EventStream {
        parse_events(text.as_bytes()).expect("valid stream")
    }

    const TWO_SITES: &str = "membound-agent 4
watch T.m([II)V
method 1 T.m([II)V
method 2 T.f()V
target 1
enter 1 1 1
param 1 0 a array 4
param 1 1 n int 2
field 1 T k int 6
field 1 S k int 1
static 1 p.C size int 8
alloc 1 T$A 16 1:1:3:10
alloc 1 int[] 24 1:1:9:11 2:2:0:20
alloc 1 T$A 16 1:1:3:10
vm 1 java.lang.String 24 0:1:3:10
exit 1 1
end 0
";

    #[test]
    fn allocations_are_counted_per_chain_and_type() {
        let measurement = aggregate(&stream(TWO_SITES)).expect("aggregates");
        assert_eq!(
            measurement.total,
            Totals {
                objects: 3,
                bytes: 56
            }
        );
        assert_eq!(
            measurement.vm_internal,
            Totals {
                objects: 1,
                bytes: 24
            }
        );
        let counts: Vec<(usize, &str, u64, u64)> = measurement
            .sites
            .iter()
            .map(|s| (s.chain.len(), s.type_name.as_str(), s.count, s.bytes))
            .collect();
        assert_eq!(counts, vec![(1, "T$A", 2, 32), (2, "int[]", 1, 24)]);
        assert_eq!(measurement.params.get("a.length"), Some(&Some(4)));
        assert_eq!(measurement.params.get("n"), Some(&Some(2)));
        // The superclass's hidden `k` is not what `this.k` reads.
        assert_eq!(measurement.params.get("this.k"), Some(&Some(6)));
        assert_eq!(measurement.params.get("p.C.size"), Some(&Some(8)));
        assert_eq!(measurement.entries[0].this_fields.len(), 2);
        assert!(measurement.warnings.is_empty());
    }

    #[test]
    fn the_json_follows_the_contract() {
        let json = aggregate(&stream(TWO_SITES)).expect("aggregates").to_json();
        assert_eq!(json["total"]["objects"], 3);
        assert_eq!(json["vm_internal"]["bytes"], 24);
        let site = &json["sites"][1];
        assert_eq!(site["type"], "int[]");
        assert_eq!(site["chain"][1]["method"], "T.f()V");
        assert_eq!(site["chain"][1]["offset"], 0);
        assert_eq!(site["chain"][1]["line"], 20);
        assert_eq!(json["params"]["n"], 2);
    }

    #[test]
    fn the_text_names_every_site() {
        let text = aggregate(&stream(TWO_SITES)).expect("aggregates").to_text();
        assert!(text.contains("total: 3 objects, 56 bytes"), "{text}");
        assert!(
            text.contains("T.m([II)V@9 (line 11) -> T.f()V@0 (line 20)"),
            "{text}"
        );
        assert!(text.contains("vm-internal: 1 objects, 24 bytes"), "{text}");
    }

    #[test]
    fn a_method_never_loaded_or_never_called_is_an_error() {
        let never_loaded = "membound-agent 4\nwatch T.x()V\nend 0\n";
        assert!(aggregate(&stream(never_loaded)).is_err());
        let never_called = "membound-agent 4\nwatch T.x()V\nmethod 1 T.x()V\ntarget 1\nend 0\n";
        let error = aggregate(&stream(never_called)).expect_err("never called");
        assert!(error.to_string().contains("never called"), "{error}");
    }

    #[test]
    fn an_unfinished_stream_is_reported() {
        let cut = TWO_SITES.replace("end 0\n", "");
        let measurement = aggregate(&stream(&cut)).expect("aggregates");
        assert!(measurement.warnings[0].contains("incomplete"));
    }
}

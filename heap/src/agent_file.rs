//! Reading the snapshot file the membound JVMTI agent writes in heap mode (`membound-agent`,
//! option `snapshot=…`). This is its only reader; the agent's `heap_log.rs` its only writer.
//!
//! One line per record, fields separated by single spaces. Definitions (`label`, `class`,
//! `site`) hold for the rest of the file and come before their first use; each snapshot is the
//! lines between `snapshot` and `end-snapshot`:
//!
//! ```text
//! membound-heap 1                          header (format version)
//! label <id> <name>                        a field name
//! class <id> <array 0|1> <name> <label>…   a class (Java form) and its instance reference
//!                                          fields, its superclasses' included
//! site <id> <offset> <line|-> <method>     an allocation site: the allocating frame's method
//!                                          (pkg.C.m(desc)) and bytecode offset
//! snapshot <moment>                        a snapshot starts: `exit pkg.C.m(desc)`, `gc 3`
//! o <tag> <class> <bytes> <site|-> <length|->   an object: its tag (stable over the run), its
//!                                          size (GetObjectSize), where it was allocated, and
//!                                          an array's length
//! r <from> <to> <label>                    a field reference between two objects (by tag)
//! e <from> <to> <index>                    an array element reference
//! root <kind> <tag> <holder|->             a root: static (holder pkg.C.f), local (holder the
//!                                          frame's method), jni-global, jni-local, thread,
//!                                          monitor, other
//! end-snapshot                             the snapshot is complete
//! problem <text>                           something the agent could not do
//! end <errors>                             the VM died; <errors> JVMTI calls failed
//! ```
//!
//! Every `o` line of a snapshot comes before its `r`, `e` and `root` lines.

use crate::error::{Error, Result};
use crate::snapshot::{
    ClassInfo, Label, NO_SITE, Object, RootKind, Site, Snapshot, SnapshotBuilder, Source,
};
use std::io::BufRead;

/// The format version this reader understands.
pub const HEADER: &str = "membound-heap 1";

/// Whether a file starting with `head` is an agent snapshot file.
pub fn is_agent_file(head: &[u8]) -> bool {
    head.starts_with(b"membound-heap ")
}

/// What the agent reported besides its snapshots.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentReport {
    pub problems: Vec<String>,
    /// JVMTI calls that failed; None when the file has no `end` line (the VM was killed).
    pub errors: Option<u64>,
}

/// Reads every snapshot of the file.
pub fn read(reader: impl BufRead) -> Result<Vec<Snapshot>> {
    read_with_report(reader).map(|(snapshots, _)| snapshots)
}

/// Reads every snapshot and what the agent reported.
pub fn read_with_report(reader: impl BufRead) -> Result<(Vec<Snapshot>, AgentReport)> {
    let mut lines = reader.lines();
    let header = lines.next().transpose().map_err(unreadable)?;
    if header.as_deref() != Some(HEADER) {
        return Err(Error::Input(format!(
            "the agent's snapshot file does not start with `{HEADER}` (agent and membound of different versions?)"
        )));
    }
    let mut state = FileReader::default();
    for (index, line) in lines.enumerate() {
        let line = line.map_err(unreadable)?;
        state.read(index + 2, &line)?;
    }
    if state.current.is_some() {
        return Err(Error::Input(
            "the agent's snapshot file ends inside a snapshot (the JVM was killed while writing it?)".into(),
        ));
    }
    Ok((state.snapshots, state.report))
}

fn unreadable(error: std::io::Error) -> Error {
    Error::Input(format!("cannot read the agent's snapshot file: {error}"))
}

fn bad(line: usize, what: &str) -> Error {
    Error::Input(format!("agent snapshot file, line {line}: {what}"))
}

#[derive(Default)]
struct FileReader {
    labels: Vec<String>,
    classes: Vec<ClassInfo>,
    sites: Vec<Site>,
    current: Option<SnapshotBuilder>,
    snapshots: Vec<Snapshot>,
    report: AgentReport,
}

impl FileReader {
    fn read(&mut self, number: usize, line: &str) -> Result<()> {
        let (kind, rest) = line.split_once(' ').unwrap_or((line, ""));
        let fields: Vec<&str> = rest.split(' ').collect();
        let int = |index: usize| -> Result<u64> {
            fields
                .get(index)
                .and_then(|f| f.parse().ok())
                .ok_or_else(|| bad(number, "bad number"))
        };
        let small = |index: usize| -> Result<u32> {
            u32::try_from(int(index)?).map_err(|_| bad(number, "number out of range"))
        };
        match kind {
            "label" => {
                let (id, name) = rest
                    .split_once(' ')
                    .ok_or_else(|| bad(number, "a label without a name"))?;
                self.expect_next(id, self.labels.len(), number)?;
                self.labels.push(name.to_owned());
                if let Some(builder) = &mut self.current {
                    builder.label(name)?;
                }
            }
            "class" => {
                self.expect_next(fields[0], self.classes.len(), number)?;
                let name = fields.get(2).ok_or_else(|| bad(number, "no class name"))?;
                let reference_fields = (3..fields.len())
                    .map(|i| {
                        let label = small(i)?;
                        if (label as usize) < self.labels.len() {
                            Ok(label)
                        } else {
                            Err(bad(number, "a field label defined nowhere before"))
                        }
                    })
                    .collect::<Result<Vec<_>>>()?;
                let class = ClassInfo {
                    name: (*name).to_owned(),
                    is_array: int(1)? == 1,
                    reference_fields,
                };
                if let Some(builder) = &mut self.current {
                    builder.add_class(class.clone())?;
                }
                self.classes.push(class);
            }
            "site" => {
                self.expect_next(fields[0], self.sites.len(), number)?;
                let offset = fields
                    .get(1)
                    .and_then(|f| f.parse().ok())
                    .ok_or_else(|| bad(number, "bad offset"))?;
                let line = match fields.get(2) {
                    Some(&"-") => None,
                    _ => Some(small(2)?),
                };
                let method = fields
                    .get(3..)
                    .filter(|m| !m.is_empty())
                    .ok_or_else(|| bad(number, "a site without a method"))?
                    .join(" ");
                let site = Site {
                    method,
                    offset: Some(offset),
                    line,
                };
                if let Some(builder) = &mut self.current {
                    builder.add_site(site.clone())?;
                }
                self.sites.push(site);
            }
            "snapshot" => {
                if self.current.is_some() {
                    return Err(bad(number, "a snapshot starts inside another"));
                }
                self.current = Some(self.builder(rest)?);
            }
            "o" => {
                let object = Object {
                    identity: int(0)?,
                    class: small(1)?,
                    bytes: int(2)?,
                    site: optional(fields.get(3), number)?.unwrap_or(NO_SITE),
                    length: optional(fields.get(4), number)?,
                };
                self.builder_at(number)?
                    .add_object(object)
                    .map_err(|e| bad(number, &e.to_string()))?;
            }
            "r" | "e" => {
                let (from, to, which) = (int(0)?, int(1)?, small(2)?);
                let label_count = self.labels.len();
                let builder = self.builder_at(number)?;
                let from = builder
                    .index_of(from)
                    .ok_or_else(|| bad(number, "a reference from an object not listed before"))?;
                let label = if kind == "e" {
                    Label::element(which)
                } else if (which as usize) < label_count {
                    Label::field(which)
                } else {
                    return Err(bad(number, "a field label defined nowhere before"));
                };
                builder.add_reference(from, label, to);
            }
            "root" => {
                let root_kind = fields
                    .first()
                    .and_then(|k| RootKind::parse(k))
                    .ok_or_else(|| bad(number, "unknown root kind"))?;
                let target = int(1)?;
                let holder = match fields.get(2..).map(|h| h.join(" ")) {
                    Some(h) if h != "-" => h,
                    _ => String::new(),
                };
                self.builder_at(number)?.add_root(root_kind, holder, target);
            }
            "end-snapshot" => {
                let builder = self
                    .current
                    .take()
                    .ok_or_else(|| bad(number, "end-snapshot outside a snapshot"))?;
                self.snapshots.push(builder.finish()?);
            }
            "problem" => self.report.problems.push(rest.to_owned()),
            "end" => self.report.errors = Some(int(0)?),
            _ => return Err(bad(number, "unknown record")),
        }
        Ok(())
    }

    /// Definitions are numbered from 0 in order.
    fn expect_next(&self, id: &str, next: usize, number: usize) -> Result<()> {
        if id.parse::<usize>().ok() == Some(next) {
            Ok(())
        } else {
            Err(bad(number, &format!("definition `{id}` out of order")))
        }
    }

    fn builder(&self, moment: &str) -> Result<SnapshotBuilder> {
        let mut builder = SnapshotBuilder::new(Source::Agent, moment);
        for label in &self.labels {
            builder.label(label)?;
        }
        for class in &self.classes {
            builder.add_class(class.clone())?;
        }
        for site in &self.sites {
            builder.add_site(site.clone())?;
        }
        Ok(builder)
    }

    fn builder_at(&mut self, number: usize) -> Result<&mut SnapshotBuilder> {
        self.current
            .as_mut()
            .ok_or_else(|| bad(number, "an object, reference or root outside a snapshot"))
    }
}

/// A number or `-`.
fn optional(field: Option<&&str>, number: usize) -> Result<Option<u32>> {
    match field {
        None | Some(&"-") => Ok(None),
        Some(text) => text
            .parse()
            .map(Some)
            .map_err(|_| bad(number, "bad number")),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const SAMPLE: &str = "membound-heap 1
label 0 next
class 0 0 pkg.Node 0
site 0 4 12 pkg.Main.build(I)Lpkg/Node;
snapshot exit pkg.Main.main([Ljava/lang/String;)V
o 65536 0 24 0 -
o 131072 0 24 0 -
class 1 1 pkg.Node[]
o 196608 1 24 - 2
r 65536 131072 0
e 196608 65536 1
root static 65536 pkg.Main.head
root local 196608 pkg.Main.main([Ljava/lang/String;)V
root thread 999 -
end-snapshot
problem a note
end 0
";

    #[test]
    fn a_sample_file_becomes_one_snapshot() {
        let (snapshots, report) = read_with_report(SAMPLE.as_bytes()).expect("valid");
        assert_eq!(report.errors, Some(0));
        assert_eq!(report.problems, ["a note"]);
        let snapshot = &snapshots[0];
        assert_eq!(snapshot.moment, "exit pkg.Main.main([Ljava/lang/String;)V");
        assert_eq!(snapshot.objects().len(), 3);
        assert_eq!(
            snapshot.site_of(0).map(ToString::to_string).as_deref(),
            Some("pkg.Main.build(I)Lpkg/Node; line 12")
        );
        assert_eq!(snapshot.references(0)[0].target, 1);
        assert!(snapshot.references(2)[0].label.is_element());
        let roots: Vec<String> = snapshot.roots().iter().map(|r| r.name()).collect();
        assert_eq!(
            roots,
            [
                "static pkg.Main.head",
                "local pkg.Main.main([Ljava/lang/String;)V"
            ]
        );
        assert_eq!(snapshot.dropped_references, 1);
        assert_eq!(snapshot.class(1).name, "pkg.Node[]");
    }

    #[test]
    fn malformed_files_are_input_errors() {
        assert!(read("membound-heap 9\n".as_bytes()).is_err());
        let cut = SAMPLE.split("end-snapshot").next().unwrap_or_default();
        assert!(read(cut.as_bytes()).is_err());
        for (from, to) in [
            ("r 65536 131072 0", "r 65536 131072 7"),
            ("o 131072 0 24 0 -", "o 131072 5 24 0 -"),
            ("o 131072 0 24 0 -", "o 131072 0 24 3 -"),
            ("r 65536", "r 4"),
            ("class 1 1", "class 2 1"),
            ("root static", "root galaxy"),
        ] {
            let broken = SAMPLE.replace(from, to);
            assert!(read(broken.as_bytes()).is_err(), "{to}");
        }
    }
}

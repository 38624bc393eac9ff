//! Reading the event stream the JVMTI agent (`membound-agent`) writes. The format is documented
//! in the agent crate (`agent/src/lib.rs`); this is its only reader.

use membound_jvm::error::{Error, Result};
use std::collections::{HashMap, HashSet};
use std::io::BufRead;
use std::sync::Arc;

/// The stream version this reader understands.
const HEADER: &str = "membound-agent 4";

/// One frame of an allocation's chain: a call site, or (last) the allocating instruction.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Frame {
    /// `pkg.Class.name(descriptor)`.
    pub method: Arc<str>,
    /// Bytecode offset of the call or allocating instruction; -1 in a native method.
    pub offset: i64,
    pub line: Option<u32>,
    /// The activation this frame belongs to; 0 when untracked (native frames, VM allocations).
    pub activation: u64,
}

/// A recorded allocation under the watched method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allocation {
    pub thread: u32,
    /// Java source form: `B[]`, `int[][]`, `java.lang.Integer`.
    pub type_name: String,
    pub bytes: u64,
    /// Outermost (the watched method) first.
    pub chain: Vec<Frame>,
    /// False for allocations the VM made on its own behalf (class loading, interned names).
    pub by_program: bool,
    /// A program allocation's number, from 1 in the stream's order (what `reached` lines
    /// name); 0 for the VM's.
    pub number: u64,
}

/// A parameter value recorded at an entry of the watched method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parameter {
    /// Position among the declared parameters, from 0.
    pub index: usize,
    /// The source name, or `p<index>` when the class has no local-variable table.
    pub name: String,
    /// `int`, `long`, `array` or `string` (then the value is the length), `collection` or
    /// `map` (then it is the size).
    pub kind: String,
    /// None for a null array or string.
    pub value: Option<i64>,
}

/// An integer field's value recorded at an entry of the watched method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldValue {
    /// The declaring class, `pkg.C`.
    pub class: String,
    pub name: String,
    pub value: i64,
}

/// What the agent recorded at one entry of the watched method.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EntryValues {
    pub activation: u64,
    pub parameters: Vec<Parameter>,
    /// The integer instance fields of `this`, those of the method's class first, then of each
    /// superclass: a name's first field is the one `this.name` resolves to.
    pub this_fields: Vec<FieldValue>,
    /// The static fields the run was asked to record, when their class was initialized.
    pub statics: Vec<FieldValue>,
    /// The chains the run was asked to record, when the method has their root.
    pub chains: Vec<ChainValue>,
    /// The static fields the run was asked to record after an instruction of the activation
    /// (`pkg.C.f@pc`), with that instruction's offset, when the activation got past it.
    pub statics_after: Vec<(u32, FieldValue)>,
    /// The integer locals the run was asked to record once the call or store at an offset
    /// set them, when the activation got past it.
    pub locals_after: Vec<LocalValue>,
}

/// An integer local's value once the call or store at `pc` set it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalValue {
    pub pc: u32,
    pub name: String,
    pub value: i64,
}

/// A chain's length recorded at an entry of the watched method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainValue {
    /// `<root>/<field>`, as the run was asked for it.
    pub chain: String,
    pub length: ChainLength,
}

/// What following a chain found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainLength {
    /// Null after this many nodes.
    Nodes(i64),
    /// A node it passed again.
    Cycle,
    /// More nodes than the agent follows.
    Long,
    /// A tree's walk reached a node twice (a shared subtree or a cycle).
    Shared,
}

/// One event, in the order it happened on its thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A tracked activation started (or, for callees, was first seen allocating).
    Enter {
        thread: u32,
        activation: u64,
        method: Arc<str>,
    },
    /// A tracked activation returned.
    Exit {
        thread: u32,
        activation: u64,
    },
    Allocation(Allocation),
    /// Before a tracked activation's exit (with `--check-regions`): the program allocations,
    /// by number, made since it began that the heap still reached as it returned, with what
    /// held each.
    Reached {
        thread: u32,
        activation: u64,
        objects: Vec<(u64, HeldBy)>,
    },
}

/// What held an object a walk reached, when it first reached it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HeldBy {
    StaticField,
    /// The returning frame's operand stack: its returned value.
    Returned,
    /// A local variable of a caller's frame or of another thread's.
    Local,
    /// A field or an element of an object.
    Object,
    /// Another root (JNI, a monitor, a thread, the JVM).
    Other,
}

impl HeldBy {
    /// The stream's name: `static`, `returned`, `local`, `object`, `other`.
    fn parse(text: &str) -> Option<HeldBy> {
        Some(match text {
            "static" => HeldBy::StaticField,
            "returned" => HeldBy::Returned,
            "local" => HeldBy::Local,
            "object" => HeldBy::Object,
            "other" => HeldBy::Other,
            _ => return None,
        })
    }

    /// For a report: `a static field`, `the returned value`, ….
    pub fn text(self) -> &'static str {
        match self {
            HeldBy::StaticField => "a static field",
            HeldBy::Returned => "the returned value",
            HeldBy::Local => "a local variable of a caller or another thread",
            HeldBy::Object => "a field or element of an object",
            HeldBy::Other => "another root (JNI, a monitor, a thread, the JVM)",
        }
    }
}

/// What a stream says besides its events.
#[derive(Debug, Clone, Default)]
pub struct StreamInfo {
    /// The watched method's name as given to the agent.
    pub watched: String,
    /// The loaded methods that matched it, `pkg.Class.name(descriptor)`.
    pub targets: Vec<Arc<str>>,
    /// What was recorded at each outermost activation of the watched method, in entry order (a
    /// recursive call of it is part of the activation it is under).
    pub entries: Vec<EntryValues>,
    /// What the agent reported it could not do.
    pub problems: Vec<String>,
    /// JVMTI calls or writes that failed inside the agent; None when the stream has no `end`
    /// line (the VM was killed before it could finish).
    pub agent_errors: Option<u64>,
}

/// A whole event stream, held in memory.
#[derive(Debug, Clone, Default)]
pub struct EventStream {
    pub info: StreamInfo,
    pub events: Vec<Event>,
}

fn bad(line_number: usize, what: &str) -> Error {
    Error::Input(format!("agent event stream, line {line_number}: {what}"))
}

fn unreadable(error: std::io::Error) -> Error {
    Error::Input(format!("cannot read the agent's event stream: {error}"))
}

/// Parses a whole stream into memory.
pub fn parse_events(reader: impl BufRead) -> Result<EventStream> {
    let mut events = Vec::new();
    let info = read_events(reader, |event| events.push(event))?;
    Ok(EventStream { info, events })
}

/// Reads a stream line by line, handing each event to `on_event` as it is read, so that a long
/// run can be aggregated without holding its events. The agent defines every method number
/// before any line uses it, so one pass suffices.
pub fn read_events(reader: impl BufRead, mut on_event: impl FnMut(Event)) -> Result<StreamInfo> {
    let mut lines = reader.lines();
    let header = lines.next().transpose().map_err(unreadable)?;
    if header.as_deref() != Some(HEADER) {
        return Err(Error::Input(format!(
            "the agent's event stream does not start with `{HEADER}` (agent and membound of different versions?)"
        )));
    }
    let mut state = LineReader::default();
    for (index, line) in lines.enumerate() {
        let line = line.map_err(unreadable)?;
        // Line numbers from 1, and the header was line 1.
        if let Some(event) = state.read(index + 2, &line)? {
            on_event(event);
        }
    }
    // A recursive call of the watched method is part of the activation it is under: its
    // allocations are that activation's, and so is what it was called with.
    let nested = state.nested;
    state
        .info
        .entries
        .retain(|entry| !nested.contains(&entry.activation));
    Ok(state.info)
}

/// What reading a stream has learnt so far.
#[derive(Default)]
struct LineReader {
    info: StreamInfo,
    methods: HashMap<u32, Arc<str>>,
    /// Per thread, the watched method's activations under way, outermost first.
    open_targets: HashMap<u32, Vec<u64>>,
    /// Activations of the watched method entered while another was under way on their thread.
    nested: HashSet<u64>,
    /// Program allocations read so far.
    program_allocations: u64,
}

impl LineReader {
    /// Reads one line: an event, or something about the stream (None).
    fn read(&mut self, number: usize, line: &str) -> Result<Option<Event>> {
        let fields: Vec<&str> = line.split(' ').collect();
        let number_at = |index: usize| -> Result<u64> {
            fields
                .get(index)
                .and_then(|f| f.parse().ok())
                .ok_or_else(|| bad(number, "bad number"))
        };
        let thread = |index: usize| -> Result<u32> {
            u32::try_from(number_at(index)?).map_err(|_| bad(number, "bad thread number"))
        };
        let event = match fields[0] {
            "watch" => {
                self.info.watched = line["watch ".len()..].to_owned();
                None
            }
            "method" => {
                let (id, name) = line["method ".len()..]
                    .split_once(' ')
                    .ok_or_else(|| bad(number, "a method line without a name"))?;
                let id = id.parse().map_err(|_| bad(number, "bad method number"))?;
                self.methods.insert(id, Arc::from(name));
                None
            }
            "target" => {
                let target = self.method(number, number_at(1)?)?;
                self.info.targets.push(target);
                None
            }
            "enter" => {
                let (thread, activation) = (thread(1)?, number_at(2)?);
                let method = self.method(number, number_at(3)?)?;
                if self.info.targets.contains(&method) {
                    let open = self.open_targets.entry(thread).or_default();
                    if !open.is_empty() {
                        self.nested.insert(activation);
                    }
                    open.push(activation);
                    self.info.entries.push(EntryValues {
                        activation,
                        ..EntryValues::default()
                    });
                }
                Some(Event::Enter {
                    thread,
                    activation,
                    method,
                })
            }
            "exit" => {
                let (thread, activation) = (thread(1)?, number_at(2)?);
                if let Some(open) = self.open_targets.get_mut(&thread)
                    && open.last() == Some(&activation)
                {
                    open.pop();
                }
                Some(Event::Exit { thread, activation })
            }
            "param" => {
                let (activation, parameter) = read_parameter(&fields, number)?;
                entry_of(&mut self.info, activation, number)?
                    .parameters
                    .push(parameter);
                None
            }
            "field" | "static" => {
                let (activation, field) = read_field(&fields, number)?;
                let entry = entry_of(&mut self.info, activation, number)?;
                match fields[0] {
                    "field" => entry.this_fields.push(field),
                    _ => entry.statics.push(field),
                }
                None
            }
            "after" => {
                let [_, activation, pc, rest @ ..] = fields.as_slice() else {
                    return Err(bad(number, "an after line has seven fields"));
                };
                let pc = pc
                    .parse()
                    .map_err(|_| bad(number, "bad instruction offset"))?;
                let mut as_field = vec!["after", *activation];
                as_field.extend_from_slice(rest);
                let (activation, field) = read_field(&as_field, number)?;
                entry_of(&mut self.info, activation, number)?
                    .statics_after
                    .push((pc, field));
                None
            }
            "local" => {
                let [_, activation, pc, name, value] = fields.as_slice() else {
                    return Err(bad(number, "a local line has five fields"));
                };
                let local = LocalValue {
                    pc: pc
                        .parse()
                        .map_err(|_| bad(number, "bad instruction offset"))?,
                    name: (*name).to_owned(),
                    value: value.parse().map_err(|_| bad(number, "bad local value"))?,
                };
                entry_of(&mut self.info, activation_at(activation, number)?, number)?
                    .locals_after
                    .push(local);
                None
            }
            "chain" => {
                let [_, activation, chain, length] = fields.as_slice() else {
                    return Err(bad(number, "a chain line has four fields"));
                };
                let length = match *length {
                    "cycle" => ChainLength::Cycle,
                    "long" => ChainLength::Long,
                    "shared" => ChainLength::Shared,
                    count => ChainLength::Nodes(
                        count.parse().map_err(|_| bad(number, "bad chain length"))?,
                    ),
                };
                let value = ChainValue {
                    chain: (*chain).to_owned(),
                    length,
                };
                entry_of(&mut self.info, activation_at(activation, number)?, number)?
                    .chains
                    .push(value);
                None
            }
            "alloc" | "vm" => {
                let chain = fields
                    .get(4..)
                    .unwrap_or_default()
                    .iter()
                    .map(|token| self.frame(token).ok_or_else(|| bad(number, "bad frame")))
                    .collect::<Result<Vec<_>>>()?;
                let type_name = fields.get(2).ok_or_else(|| bad(number, "no type"))?;
                let by_program = fields[0] == "alloc";
                if by_program {
                    self.program_allocations += 1;
                }
                Some(Event::Allocation(Allocation {
                    thread: thread(1)?,
                    type_name: (*type_name).to_owned(),
                    bytes: number_at(3)?,
                    chain,
                    by_program,
                    number: if by_program {
                        self.program_allocations
                    } else {
                        0
                    },
                }))
            }
            "reached" => {
                let objects = fields
                    .get(3..)
                    .unwrap_or_default()
                    .iter()
                    .map(|token| {
                        let (object, held) = token.split_once(':')?;
                        Some((object.parse().ok()?, HeldBy::parse(held)?))
                    })
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| bad(number, "bad reached object"))?;
                Some(Event::Reached {
                    thread: thread(1)?,
                    activation: number_at(2)?,
                    objects,
                })
            }
            "problem" => {
                self.info.problems.push(line["problem ".len()..].to_owned());
                None
            }
            "end" => {
                self.info.agent_errors = Some(number_at(1)?);
                None
            }
            _ => return Err(bad(number, "unknown event")),
        };
        Ok(event)
    }

    fn method(&self, number: usize, id: u64) -> Result<Arc<str>> {
        u32::try_from(id)
            .ok()
            .and_then(|id| self.methods.get(&id).cloned())
            .ok_or_else(|| bad(number, "a method number defined nowhere before"))
    }

    /// `<activation>:<method>:<offset>:<line or ->`.
    fn frame(&self, token: &str) -> Option<Frame> {
        let mut parts = token.split(':');
        let activation = parts.next()?.parse().ok()?;
        let method = self.methods.get(&parts.next()?.parse().ok()?)?.clone();
        let offset = parts.next()?.parse().ok()?;
        let line = match parts.next()? {
            "-" => None,
            text => Some(text.parse().ok()?),
        };
        parts.next().is_none().then_some(Frame {
            method,
            offset,
            line,
            activation,
        })
    }
}

/// `param <act> <index> <name> <kind> <value>`.
fn read_parameter(fields: &[&str], number: usize) -> Result<(u64, Parameter)> {
    let [_, activation, index, name, kind, value] = fields else {
        return Err(bad(number, "a param line has six fields"));
    };
    let value = match *value {
        "null" => None,
        text => Some(
            text.parse()
                .map_err(|_| bad(number, "bad parameter value"))?,
        ),
    };
    let parameter = Parameter {
        index: index
            .parse()
            .map_err(|_| bad(number, "bad parameter index"))?,
        name: (*name).to_owned(),
        kind: (*kind).to_owned(),
        value,
    };
    Ok((activation_at(activation, number)?, parameter))
}

/// `field|static <act> <class> <name> <type> <value>`.
fn read_field(fields: &[&str], number: usize) -> Result<(u64, FieldValue)> {
    let [_, activation, class, name, _, value] = fields else {
        return Err(bad(number, "a field line has six fields"));
    };
    let field = FieldValue {
        class: (*class).to_owned(),
        name: (*name).to_owned(),
        value: value.parse().map_err(|_| bad(number, "bad field value"))?,
    };
    Ok((activation_at(activation, number)?, field))
}

fn activation_at(text: &str, number: usize) -> Result<u64> {
    text.parse().map_err(|_| bad(number, "bad activation"))
}

/// The entry of `activation` (the latest, should numbers repeat).
fn entry_of(info: &mut StreamInfo, activation: u64, number: usize) -> Result<&mut EntryValues> {
    info.entries
        .iter_mut()
        .rev()
        .find(|entry| entry.activation == activation)
        .ok_or_else(|| bad(number, "a value of an activation that never entered"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "membound-agent 4
watch Fig14.m0(I)V
method 1 Fig14.m0(I)V
target 1
enter 1 1 1
param 1 0 mc int 3
field 1 Fig14 n int 5
field 1 Base n long -2
static 1 p.Config size short 9
after 1 12 p.Config size short 40
local 1 3 count 17
chain 1 0/next 4
chain 1 this.head/next cycle
chain 1 0/p.T.left+p.T.right shared
method 2 Fig14.m1(I)V
alloc 1 Fig14$A 16 1:1:1:16 2:2:7:22
vm 1 java.lang.String 24 0:1:1:16 0:2:7:-
reached 1 1 1:static
exit 1 1
end 0
";

    #[test]
    fn a_stream_becomes_events_with_named_methods() {
        let stream = parse_events(SAMPLE.as_bytes()).expect("valid stream");
        assert_eq!(stream.info.watched, "Fig14.m0(I)V");
        assert_eq!(stream.info.targets, vec![Arc::from("Fig14.m0(I)V")]);
        assert_eq!(stream.info.agent_errors, Some(0));
        let Event::Allocation(first) = &stream.events[1] else {
            panic!("an allocation")
        };
        assert_eq!(first.chain[1].method.as_ref(), "Fig14.m1(I)V");
        assert_eq!((first.chain[1].offset, first.chain[1].line), (7, Some(22)));
        assert!(first.by_program);
        let Event::Allocation(second) = &stream.events[2] else {
            panic!("an allocation")
        };
        assert!(!second.by_program);
        assert_eq!(second.chain[1].line, None);
        // Program allocations are numbered, as `reached` lines name them.
        assert_eq!((first.number, second.number), (1, 0));
        assert_eq!(
            stream.events[3],
            Event::Reached {
                thread: 1,
                activation: 1,
                objects: vec![(1, HeldBy::StaticField)]
            }
        );
        let entry = &stream.info.entries[0];
        assert_eq!(entry.activation, 1);
        assert_eq!(entry.parameters[0].value, Some(3));
        let fields: Vec<(&str, &str, i64)> = entry
            .this_fields
            .iter()
            .map(|f| (f.class.as_str(), f.name.as_str(), f.value))
            .collect();
        assert_eq!(fields, [("Fig14", "n", 5), ("Base", "n", -2)]);
        assert_eq!(entry.statics[0].class, "p.Config");
        assert_eq!(entry.statics[0].value, 9);
        assert_eq!(entry.statics_after[0].0, 12);
        assert_eq!(entry.statics_after[0].1.value, 40);
        let local = &entry.locals_after[0];
        assert_eq!(
            (local.pc, local.name.as_str(), local.value),
            (3, "count", 17)
        );
        let chains: Vec<(&str, ChainLength)> = entry
            .chains
            .iter()
            .map(|c| (c.chain.as_str(), c.length))
            .collect();
        assert_eq!(
            chains,
            [
                ("0/next", ChainLength::Nodes(4)),
                ("this.head/next", ChainLength::Cycle),
                ("0/p.T.left+p.T.right", ChainLength::Shared)
            ]
        );
    }

    #[test]
    fn events_can_be_consumed_one_by_one() {
        let mut allocations = 0;
        let info = read_events(SAMPLE.as_bytes(), |event| {
            allocations += usize::from(matches!(event, Event::Allocation(_)));
        })
        .expect("valid stream");
        assert_eq!(allocations, 2);
        assert_eq!(info.entries.len(), 1);
    }

    #[test]
    fn recursive_calls_of_the_watched_method_are_part_of_their_outermost_activation() {
        let stream = "\
membound-agent 4
watch R.list(I)V
method 1 R.list(I)V
target 1
enter 1 1 1
param 1 0 n int 2
enter 1 2 1
param 2 0 n int 1
exit 1 2
exit 1 1
enter 1 3 1
param 3 0 n int 5
exit 1 3
end 0
";
        let info = read_events(stream.as_bytes(), |_| {}).expect("valid stream");
        let entries: Vec<(u64, Option<i64>)> = info
            .entries
            .iter()
            .map(|e| (e.activation, e.parameters[0].value))
            .collect();
        assert_eq!(entries, [(1, Some(2)), (3, Some(5))]);
    }

    #[test]
    fn a_stream_cut_short_has_no_error_count() {
        let cut = SAMPLE.replace("end 0\n", "");
        let stream = parse_events(cut.as_bytes()).expect("valid");
        assert_eq!(stream.info.agent_errors, None);
    }

    #[test]
    fn malformed_streams_are_input_errors() {
        assert!(parse_events("something else\n".as_bytes()).is_err());
        let bad_frame = SAMPLE.replace("2:2:7:22", "2:9:7:22");
        assert!(parse_events(bad_frame.as_bytes()).is_err());
        let bad_event = format!("{SAMPLE}teleport 1\n");
        assert!(parse_events(bad_event.as_bytes()).is_err());
        let used_before_defined = SAMPLE.replace("target 1\n", "target 3\nmethod 3 X.y()V\n");
        assert!(parse_events(used_before_defined.as_bytes()).is_err());
        let field_of_nobody = SAMPLE.replace("field 1 Fig14", "field 7 Fig14");
        assert!(parse_events(field_of_nobody.as_bytes()).is_err());
        let short_field = SAMPLE.replace("static 1 p.Config size short 9", "static 1 size 9");
        assert!(parse_events(short_field.as_bytes()).is_err());
        for bad in [
            "after 1 x p.Config size short 40",
            "after 1 12 p.Config size 40",
        ] {
            let bad_after = SAMPLE.replace("after 1 12 p.Config size short 40", bad);
            assert!(parse_events(bad_after.as_bytes()).is_err(), "{bad}");
        }
        for bad in ["local 1 3 count", "local 1 3 count x", "local 9 3 count 17"] {
            let bad_local = SAMPLE.replace("local 1 3 count 17", bad);
            assert!(parse_events(bad_local.as_bytes()).is_err(), "{bad}");
        }
        for bad in [
            "reached 1 1 x:static",
            "reached 1 1 1",
            "reached 1 1 1:nowhere",
        ] {
            let bad_reached = SAMPLE.replace("reached 1 1 1:static", bad);
            assert!(parse_events(bad_reached.as_bytes()).is_err(), "{bad}");
        }
        let old_version = SAMPLE.replace("membound-agent 4", "membound-agent 1");
        assert!(parse_events(old_version.as_bytes()).is_err());
    }
}

//! Reading the event stream the JVMTI agent (`membound-agent`) writes. The format is documented
//! in the agent crate (`agent/src/lib.rs`); this is its only reader.

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::io::BufRead;
use std::sync::Arc;

/// The stream version this reader understands.
const HEADER: &str = "membound-agent 1";

/// One frame of an allocation's chain: a call site, or (last) the allocating instruction.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Frame {
    /// `pkg.Class.name(descriptor)`.
    pub method: Arc<str>,
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
}

/// A parameter value recorded at an entry of the watched method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parameter {
    /// Position among the declared parameters, from 0.
    pub index: usize,
    /// The source name, or `p<index>` when the class has no local-variable table.
    pub name: String,
    /// `int`, `long` or `array` (then the value is the length).
    pub kind: String,
    /// None for a null array.
    pub value: Option<i64>,
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
}

/// A whole event stream.
#[derive(Debug, Clone, Default)]
pub struct EventStream {
    /// The watched method's name as given to the agent.
    pub watched: String,
    /// The loaded methods that matched it, `pkg.Class.name(descriptor)`.
    pub targets: Vec<Arc<str>>,
    pub events: Vec<Event>,
    /// Parameters per activation of the watched method, in entry order.
    pub entries: Vec<(u64, Vec<Parameter>)>,
    /// What the agent reported it could not do.
    pub problems: Vec<String>,
    /// JVMTI calls or writes that failed inside the agent; None when the stream has no `end`
    /// line (the VM was killed before it could finish).
    pub agent_errors: Option<u64>,
}

fn bad(line_number: usize, what: &str) -> Error {
    Error::Input(format!("agent event stream, line {line_number}: {what}"))
}

/// Parses a stream. Method numbers may be used before their `method` line (threads interleave),
/// so the lines are read twice: once for the method table, once for the events.
pub fn parse_events(reader: impl BufRead) -> Result<EventStream> {
    let lines: Vec<String> = reader
        .lines()
        .collect::<std::io::Result<_>>()
        .map_err(|e| Error::Input(format!("cannot read the agent's event stream: {e}")))?;
    if lines.first().map(String::as_str) != Some(HEADER) {
        return Err(Error::Input(format!(
            "the agent's event stream does not start with `{HEADER}` (agent and membound of different versions?)"
        )));
    }
    let methods = method_table(&lines)?;
    let mut stream = EventStream::default();
    for (index, line) in lines.iter().enumerate().skip(1) {
        read_line(&mut stream, &methods, index + 1, line)?;
    }
    Ok(stream)
}

fn method_table(lines: &[String]) -> Result<HashMap<u32, Arc<str>>> {
    let mut methods = HashMap::new();
    for (index, line) in lines.iter().enumerate() {
        if let Some(rest) = line.strip_prefix("method ") {
            let (id, name) = rest
                .split_once(' ')
                .ok_or_else(|| bad(index + 1, "method line without a name"))?;
            let id = id
                .parse()
                .map_err(|_| bad(index + 1, "bad method number"))?;
            methods.insert(id, Arc::from(name));
        }
    }
    Ok(methods)
}

fn read_line(
    stream: &mut EventStream,
    methods: &HashMap<u32, Arc<str>>,
    number: usize,
    line: &str,
) -> Result<()> {
    let fields: Vec<&str> = line.split(' ').collect();
    let number_at = |index: usize| -> Result<u64> {
        fields
            .get(index)
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| bad(number, "bad number"))
    };
    let method = |id: u64| -> Result<Arc<str>> {
        u32::try_from(id)
            .ok()
            .and_then(|id| methods.get(&id).cloned())
            .ok_or_else(|| bad(number, "unknown method number"))
    };
    let thread = |index: usize| -> Result<u32> {
        u32::try_from(number_at(index)?).map_err(|_| bad(number, "bad thread number"))
    };
    match fields[0] {
        "watch" => stream.watched = line["watch ".len()..].to_owned(),
        "method" => {}
        "target" => stream.targets.push(method(number_at(1)?)?),
        "enter" => {
            let (thread, activation, method) = (thread(1)?, number_at(2)?, method(number_at(3)?)?);
            if stream.targets.contains(&method) {
                stream.entries.push((activation, Vec::new()));
            }
            stream.events.push(Event::Enter {
                thread,
                activation,
                method,
            });
        }
        "exit" => stream.events.push(Event::Exit {
            thread: thread(1)?,
            activation: number_at(2)?,
        }),
        "param" => read_parameter(stream, &fields, number)?,
        "alloc" | "vm" => {
            let chain = fields
                .get(4..)
                .unwrap_or_default()
                .iter()
                .map(|token| read_frame(token, methods).ok_or_else(|| bad(number, "bad frame")))
                .collect::<Result<Vec<_>>>()?;
            let type_name = fields
                .get(2)
                .ok_or_else(|| bad(number, "no type"))?
                .to_string();
            stream.events.push(Event::Allocation(Allocation {
                thread: thread(1)?,
                type_name,
                bytes: number_at(3)?,
                chain,
                by_program: fields[0] == "alloc",
            }));
        }
        "problem" => stream.problems.push(line["problem ".len()..].to_owned()),
        "end" => stream.agent_errors = Some(number_at(1)?),
        _ => return Err(bad(number, "unknown event")),
    }
    Ok(())
}

fn read_parameter(stream: &mut EventStream, fields: &[&str], number: usize) -> Result<()> {
    let [_, activation, index, name, kind, value] = fields else {
        return Err(bad(number, "a param line has six fields"));
    };
    let activation: u64 = activation
        .parse()
        .map_err(|_| bad(number, "bad activation"))?;
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
    match stream
        .entries
        .iter_mut()
        .rev()
        .find(|(a, _)| *a == activation)
    {
        Some((_, parameters)) => parameters.push(parameter),
        None => return Err(bad(number, "parameter of an activation that never entered")),
    }
    Ok(())
}

/// `<activation>:<method>:<offset>:<line or ->`.
fn read_frame(token: &str, methods: &HashMap<u32, Arc<str>>) -> Option<Frame> {
    let mut parts = token.split(':');
    let activation = parts.next()?.parse().ok()?;
    let method = methods.get(&parts.next()?.parse().ok()?)?.clone();
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

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "membound-agent 1
watch Fig14.m0(I)V
method 1 Fig14.m0(I)V
target 1
enter 1 1 1
param 1 0 mc int 3
alloc 1 Fig14$A 16 1:1:1:16 2:2:7:22
method 2 Fig14.m1(I)V
vm 1 java.lang.String 24 0:1:1:16 0:2:7:-
exit 1 1
end 0
";

    #[test]
    fn a_stream_becomes_events_with_named_methods() {
        let stream = parse_events(SAMPLE.as_bytes()).expect("valid stream");
        assert_eq!(stream.watched, "Fig14.m0(I)V");
        assert_eq!(stream.targets, vec![Arc::from("Fig14.m0(I)V")]);
        assert_eq!(stream.agent_errors, Some(0));
        let Event::Allocation(first) = &stream.events[1] else {
            panic!("an allocation")
        };
        assert_eq!(
            first.chain[1].method.as_ref(),
            "Fig14.m1(I)V",
            "forward reference resolved"
        );
        assert_eq!((first.chain[1].offset, first.chain[1].line), (7, Some(22)));
        assert!(first.by_program);
        let Event::Allocation(second) = &stream.events[2] else {
            panic!("an allocation")
        };
        assert!(!second.by_program);
        assert_eq!(second.chain[1].line, None);
        let (activation, parameters) = &stream.entries[0];
        assert_eq!(*activation, 1);
        assert_eq!(parameters[0].value, Some(3));
    }

    #[test]
    fn a_stream_cut_short_has_no_error_count() {
        let cut = SAMPLE.replace("end 0\n", "");
        assert_eq!(
            parse_events(cut.as_bytes()).expect("valid").agent_errors,
            None
        );
    }

    #[test]
    fn malformed_streams_are_input_errors() {
        assert!(parse_events("something else\n".as_bytes()).is_err());
        let bad_frame = SAMPLE.replace("2:2:7:22", "2:9:7:22");
        assert!(parse_events(bad_frame.as_bytes()).is_err());
        let bad_event = format!("{SAMPLE}teleport 1\n");
        assert!(parse_events(bad_event.as_bytes()).is_err());
    }
}

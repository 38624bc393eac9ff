//! The agent's option string: `method=<M>[,static=<pkg.C.f>]…,out=<FILE>` to watch a method,
//! or `snapshot=exit:<M>,out=<FILE>` / `snapshot=alloc:<M>,out=<FILE>` / `snapshot=gc,out=<FILE>`
//! for heap snapshots.
//!
//! `M` is `pkg/C.m(I)V` or `pkg.C.m(I)V`; without a descriptor every overload of `m` is watched.
//! Each `static=` names a static integer field whose value is recorded at every entry of `M`
//! (`pkg.C.f` or `pkg/C.f`, `C` the declaring class), or with `@<pc>` (`pkg.C.f@1`) once the
//! call or `putstatic` at offset `pc` of `M` completed, with `@at:<pc>` when `M` reaches the
//! instruction at `pc`; each `local=<name>@<pc>` an integer
//! local recorded once the call at `pc` stored its result into it (or the store at `pc`); each `chain=<root>/<field>` a chain whose
//! length is recorded there (root `0`: a parameter, `this.f` or `0.f`: a reference field of
//! `this` or of a parameter), or with several fields `<root>/<f>+<g>` (or an array field whose
//! elements are the children, `<root>/<f>[]`) a tree whose size is (root `this` too: the
//! receiver itself; a root holding an array, the sum of its elements' sizes); each `region=<M>` a method at whose exits the heap is walked to
//! see which objects allocated during the activation are still reachable (watch mode's region
//! check). `out` comes last and runs to the end of the string, so the path may contain commas.

use std::path::PathBuf;

/// The method whose allocations are watched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetMethod {
    /// Internal class name, `pkg/C`.
    pub class: String,
    pub name: String,
    /// `(I)V`; None matches every overload.
    pub descriptor: Option<String>,
}

impl TargetMethod {
    pub fn parse(text: &str) -> Result<TargetMethod, String> {
        let (qualified, descriptor) = match text.find('(') {
            Some(open) => (&text[..open], Some(text[open..].to_owned())),
            None => (text, None),
        };
        let (class, name) = class_and_member(qualified)
            .ok_or_else(|| format!("method `{text}` is not of the form pkg.Class.method(desc)"))?;
        Ok(TargetMethod {
            class,
            name,
            descriptor,
        })
    }

    /// Whether the class with JVMTI signature `class_signature` (`Lpkg/C;`) declares the target.
    pub fn is_declared_by(&self, class_signature: &str) -> bool {
        class_signature
            .strip_prefix('L')
            .and_then(|s| s.strip_suffix(';'))
            == Some(&self.class)
    }

    /// Whether a method of the declaring class is the target.
    pub fn is_method(&self, name: &str, descriptor: &str) -> bool {
        self.name == name && self.descriptor.as_deref().is_none_or(|d| d == descriptor)
    }
}

/// A static field whose value is recorded at each entry of the watched method, or at a point of
/// it: `@<pc>` once the instruction at offset `pc` completed, `@at:<pc>` when the instruction
/// at `pc` is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaticFieldName {
    /// Internal name of the declaring class, `pkg/C`.
    pub class: String,
    pub name: String,
    pub point: Option<RecordPoint>,
}

/// Where in the watched method a value is recorded, once per activation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordPoint {
    /// Once the call or `putstatic` at this offset completed (at the next instruction).
    After(u32),
    /// When the instruction at this offset is reached (a loop's exit).
    At(u32),
}

impl RecordPoint {
    /// The offset the option names, which names the value in the stream.
    pub fn pc(self) -> u32 {
        match self {
            RecordPoint::After(pc) | RecordPoint::At(pc) => pc,
        }
    }
}

impl StaticFieldName {
    fn parse(text: &str) -> Result<StaticFieldName, String> {
        let bad =
            || format!("static field `{text}` is not of the form pkg.Class.field[@[at:]offset]");
        let (field, point) = match text.split_once('@') {
            Some((field, point)) => {
                let (at, pc) = match point.strip_prefix("at:") {
                    Some(pc) => (true, pc),
                    None => (false, point),
                };
                let pc = pc.parse().map_err(|_| bad())?;
                let point = if at {
                    RecordPoint::At(pc)
                } else {
                    RecordPoint::After(pc)
                };
                (field, Some(point))
            }
            None => (text, None),
        };
        let (class, name) = class_and_member(field).ok_or_else(bad)?;
        Ok(StaticFieldName { class, name, point })
    }
}

/// An integer local recorded once the call at `pc` (or the store at `pc`) of the watched method
/// stored its result into it, written `<name>@<pc>`: a value the method fixes itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalName {
    /// Its source name (it names the value in the stream).
    pub name: String,
    pub pc: u32,
}

impl LocalName {
    fn parse(text: &str) -> Result<LocalName, String> {
        let bad = || format!("local `{text}` is not of the form name@offset");
        let (name, pc) = text.split_once('@').ok_or_else(bad)?;
        if name.is_empty() || name.contains(' ') {
            return Err(bad());
        }
        Ok(LocalName {
            name: name.to_owned(),
            pc: pc.parse().map_err(|_| bad())?,
        })
    }
}

/// A chain whose length is recorded at each entry of the watched method: from a root
/// reference along one field, written `<root>/<field>`, the field as `next` or as the
/// instruction names it, `pkg.C.next` (resolved from `C` upwards, as the JVM does); or a tree
/// whose size is, along several fields: `<root>/<field>+<field>`, or along an array field whose
/// elements are the children: `<root>/pkg.C.kids[]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainName {
    pub root: ChainStart,
    /// The reference fields followed: one for a chain, several for a tree.
    pub fields: Vec<ChainField>,
    /// The chain as the options wrote it, which names it in the stream.
    pub text: String,
}

/// A reference field a chain or tree follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainField {
    /// The class the field is resolved from, `pkg.C`; None: the root object's own class.
    pub class: Option<String>,
    /// The field, by name.
    pub name: String,
    /// Written `kids[]`: the field holds an array whose elements are the children (a tree's).
    pub elements: bool,
}

/// Where a recorded chain starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainStart {
    /// Declared parameter `i` (from 0): `3`.
    Param(usize),
    /// A reference field of `this`: `this.head`.
    This(String),
    /// A reference field of declared parameter `i`: `0.first`.
    ParamField(usize, String),
    /// `this` itself (a tree an instance method walks): `this`.
    ThisObject,
}

impl ChainName {
    /// Whether it names a tree: several fields, or an array field's elements.
    pub fn is_tree(&self) -> bool {
        self.fields.len() > 1 || self.fields.iter().any(|field| field.elements)
    }

    fn parse(text: &str) -> Result<ChainName, String> {
        let bad = || {
            format!(
                "chain `{text}` is not of the form <root>/<field>, root `0`, `this.f`, `0.f` or `this`"
            )
        };
        let (root, along) = text.split_once('/').ok_or_else(bad)?;
        let index = |i: &str| i.parse::<usize>().map_err(|_| bad());
        let root = match root.split_once('.') {
            None if root == "this" => ChainStart::ThisObject,
            None => ChainStart::Param(index(root)?),
            Some(("this", held)) if !held.is_empty() => ChainStart::This(held.to_owned()),
            Some((i, held)) if !held.is_empty() => {
                ChainStart::ParamField(index(i)?, held.to_owned())
            }
            Some(_) => return Err(bad()),
        };
        let field = |one: &str| {
            let (one, elements) = match one.strip_suffix("[]") {
                Some(array) => (array, true),
                None => (one, false),
            };
            let (class, name) = match one.rsplit_once('.') {
                Some((class, name)) if !class.is_empty() => (Some(class.replace('/', ".")), name),
                Some(_) => return Err(bad()),
                None => (None, one),
            };
            if name.is_empty() {
                return Err(bad());
            }
            Ok(ChainField {
                class,
                name: name.to_owned(),
                elements,
            })
        };
        Ok(ChainName {
            root,
            fields: along.split('+').map(field).collect::<Result<_, _>>()?,
            text: text.to_owned(),
        })
    }
}

/// `pkg.C.m` or `pkg/C.m` as the internal class name `pkg/C` and the member name `m`.
fn class_and_member(qualified: &str) -> Option<(String, String)> {
    qualified
        .rsplit_once('.')
        .filter(|(class, name)| !class.is_empty() && !name.is_empty())
        .map(|(class, name)| (class.replace('.', "/"), name.to_owned()))
}

/// Everything the option string says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentOptions {
    pub target: TargetMethod,
    pub statics: Vec<StaticFieldName>,
    pub locals: Vec<LocalName>,
    pub chains: Vec<ChainName>,
    /// Methods at whose exits the heap is walked for what the activation left reachable.
    pub regions: Vec<TargetMethod>,
    pub output: PathBuf,
}

impl AgentOptions {
    pub fn parse(text: &str) -> Result<AgentOptions, String> {
        let (head, output) = text.split_once("out=").ok_or(
            "missing `out=<file>` (the agent's options are `method=<M>[,static=<C.f>]…,out=<FILE>`)",
        )?;
        let mut items = head.trim_end_matches(',').split(',');
        let method = items
            .next()
            .and_then(|item| item.strip_prefix("method="))
            .ok_or("missing `method=<M>` before `out=` in the agent's options")?;
        let mut statics = Vec::new();
        let mut locals = Vec::new();
        let mut chains = Vec::new();
        let mut regions = Vec::new();
        for item in items {
            if let Some(field) = item.strip_prefix("static=") {
                statics.push(StaticFieldName::parse(field)?);
            } else if let Some(local) = item.strip_prefix("local=") {
                locals.push(LocalName::parse(local)?);
            } else if let Some(chain) = item.strip_prefix("chain=") {
                chains.push(ChainName::parse(chain)?);
            } else if let Some(method) = item.strip_prefix("region=") {
                regions.push(TargetMethod::parse(method)?);
            } else {
                return Err(format!("unknown agent option `{item}`"));
            }
        }
        if output.is_empty() {
            return Err("`out=` names no file".to_owned());
        }
        Ok(AgentOptions {
            target: TargetMethod::parse(method)?,
            statics,
            locals,
            chains,
            regions,
            output: PathBuf::from(output),
        })
    }
}

/// When heap mode snapshots the heap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotMoment {
    /// At each exit of the method.
    Exit(TargetMethod),
    /// After each garbage collection.
    Gc,
    /// At each allocation the method's own code makes, before the new object is stored.
    Alloc(TargetMethod),
}

impl SnapshotMoment {
    /// The method whose frames the moment watches, if any.
    pub fn target(&self) -> Option<&TargetMethod> {
        match self {
            SnapshotMoment::Exit(target) | SnapshotMoment::Alloc(target) => Some(target),
            SnapshotMoment::Gc => None,
        }
    }
}

/// The options of heap mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeapOptions {
    pub moment: SnapshotMoment,
    pub output: PathBuf,
}

impl HeapOptions {
    /// The heap-mode options, or None when the string asks for watch mode.
    pub fn parse(text: &str) -> Result<Option<HeapOptions>, String> {
        let Some(rest) = text.strip_prefix("snapshot=") else {
            return Ok(None);
        };
        let (moment, output) = rest
            .split_once(",out=")
            .ok_or("missing `,out=<file>` after `snapshot=`")?;
        let moment = match moment {
            "gc" => SnapshotMoment::Gc,
            _ => match (moment.strip_prefix("exit:"), moment.strip_prefix("alloc:")) {
                (Some(method), _) => SnapshotMoment::Exit(TargetMethod::parse(method)?),
                (_, Some(method)) => SnapshotMoment::Alloc(TargetMethod::parse(method)?),
                _ => {
                    return Err(format!(
                        "unknown snapshot moment `{moment}` (exit:<M>, alloc:<M> or gc)"
                    ));
                }
            },
        };
        if output.is_empty() {
            return Err("`out=` names no file".to_owned());
        }
        Ok(Some(HeapOptions {
            moment,
            output: PathBuf::from(output),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slash_and_dot_forms_name_the_same_method() {
        let slashed = TargetMethod::parse("pkg/sub/C.m(I)V").expect("valid");
        let dotted = TargetMethod::parse("pkg.sub.C.m(I)V").expect("valid");
        assert_eq!(slashed, dotted);
        assert_eq!(slashed.class, "pkg/sub/C");
        assert!(slashed.is_declared_by("Lpkg/sub/C;"));
        assert!(slashed.is_method("m", "(I)V"));
        assert!(!slashed.is_method("m", "(J)V"));
    }

    #[test]
    fn without_descriptor_every_overload_matches() {
        let target = TargetMethod::parse("Fig14.m0").expect("valid");
        assert!(target.is_method("m0", "(I)V"));
        assert!(target.is_method("m0", "()V"));
    }

    #[test]
    fn options_keep_commas_in_the_output_path() {
        let options =
            AgentOptions::parse("method=Fig14.m0(I)V,out=/tmp/a,b.events").expect("valid");
        assert_eq!(options.output, PathBuf::from("/tmp/a,b.events"));
        assert_eq!(options.target.name, "m0");
    }

    #[test]
    fn static_fields_come_between_the_method_and_the_output() {
        let options =
            AgentOptions::parse("method=p.Main.m(I)V,static=p.Config.size,static=q/R$S.n,out=/x")
                .expect("valid");
        let names: Vec<(&str, &str)> = options
            .statics
            .iter()
            .map(|s| (s.class.as_str(), s.name.as_str()))
            .collect();
        assert_eq!(names, [("p/Config", "size"), ("q/R$S", "n")]);
        assert!(AgentOptions::parse("method=A.m,static=size,out=/x").is_err());
        assert!(AgentOptions::parse("method=A.m,limit=3,out=/x").is_err());
    }

    #[test]
    fn a_static_field_may_be_recorded_after_an_instruction() {
        let options =
            AgentOptions::parse("method=p.Main.main,static=p.Main.size@1,out=/x").expect("valid");
        assert_eq!(options.statics[0].name, "size");
        assert_eq!(options.statics[0].point, Some(RecordPoint::After(1)));
        let at = AgentOptions::parse("method=p.Main.main,static=p.Main.size@at:37,out=/x")
            .expect("valid");
        assert_eq!(at.statics[0].point, Some(RecordPoint::At(37)));
        assert_rejected(&[
            "static=p.Main.size@",
            "static=p.Main.size@x",
            "static=p.Main.size@-1",
            "static=@1",
            "static=p.M.n@at:",
        ]);
    }

    /// Each option item, between a method and an output, is an error.
    fn assert_rejected(items: &[&str]) {
        for item in items {
            let text = format!("method=p.Main.main,{item},out=/x");
            assert!(AgentOptions::parse(&text).is_err(), "{item}");
        }
    }

    #[test]
    fn a_local_is_named_with_the_offset_that_sets_it() {
        let options =
            AgentOptions::parse("method=p.Main.main,local=count@1,out=/x").expect("valid");
        let expected = LocalName {
            name: "count".to_owned(),
            pc: 1,
        };
        assert_eq!(options.locals, [expected]);
        assert_rejected(&["local=count", "local=count@", "local=@1", "local=count@x"]);
    }

    #[test]
    fn a_tree_follows_the_elements_of_an_array_field() {
        let options = AgentOptions::parse(
            "method=p.M.m,chain=0/p.V.children[],chain=0.children/kids[],out=/x",
        )
        .expect("valid");
        let fields: Vec<(Option<&str>, &str, bool)> = options
            .chains
            .iter()
            .flat_map(|c| &c.fields)
            .map(|f| (f.class.as_deref(), f.name.as_str(), f.elements))
            .collect();
        assert_eq!(
            fields,
            [(Some("p.V"), "children", true), (None, "kids", true)]
        );
        assert!(options.chains.iter().all(ChainName::is_tree));
        assert_eq!(
            options.chains[1].root,
            ChainStart::ParamField(0, "children".to_owned())
        );
        assert_rejected(&["chain=0/[]"]);
    }

    #[test]
    fn chains_name_a_root_and_a_field() {
        let options = AgentOptions::parse(
            "method=p.M.m,chain=0/next,chain=this.head/p.Node.next,chain=1.first/link,chain=0.left/p.T.left+right,chain=this/left+right,out=/x",
        )
        .expect("valid");
        type Fields<'a> = Vec<(Option<&'a str>, &'a str)>;
        let chains: Vec<(&ChainStart, Fields<'_>)> = options
            .chains
            .iter()
            .map(|c| {
                let fields = c.fields.iter();
                (
                    &c.root,
                    fields
                        .map(|f| (f.class.as_deref(), f.name.as_str()))
                        .collect(),
                )
            })
            .collect();
        assert_eq!(
            chains,
            [
                (&ChainStart::Param(0), vec![(None, "next")]),
                (
                    &ChainStart::This("head".to_owned()),
                    vec![(Some("p.Node"), "next")]
                ),
                (
                    &ChainStart::ParamField(1, "first".to_owned()),
                    vec![(None, "link")]
                ),
                (
                    &ChainStart::ParamField(0, "left".to_owned()),
                    vec![(Some("p.T"), "left"), (None, "right")]
                ),
                (
                    &ChainStart::ThisObject,
                    vec![(None, "left"), (None, "right")]
                ),
            ]
        );
        assert_eq!(options.chains[1].text, "this.head/p.Node.next");
        assert!(options.chains[3].is_tree() && !options.chains[1].is_tree());
        assert_rejected(&[
            "chain=next",
            "chain=x/next",
            "chain=this./next",
            "chain=0/",
            "chain=0/.f",
            "chain=0/left+",
        ]);
    }

    #[test]
    fn regions_name_methods_whose_exits_are_walked() {
        let options = AgentOptions::parse(
            "method=p.M.m(I)V,region=p.M.m(I)V,region=p/Q.f([Ljava/lang/String;)V,out=/x",
        )
        .expect("valid");
        let regions: Vec<(&str, &str, Option<&str>)> = options
            .regions
            .iter()
            .map(|r| (r.class.as_str(), r.name.as_str(), r.descriptor.as_deref()))
            .collect();
        assert_eq!(
            regions,
            [
                ("p/M", "m", Some("(I)V")),
                ("p/Q", "f", Some("([Ljava/lang/String;)V"))
            ]
        );
        assert!(AgentOptions::parse("method=p.M.m,region=m,out=/x").is_err());
    }

    #[test]
    fn snapshot_options_name_a_moment_and_a_file() {
        let exit = HeapOptions::parse("snapshot=exit:p.Main.main([Ljava/lang/String;)V,out=/x,y")
            .expect("valid")
            .expect("heap mode");
        assert_eq!(exit.output, PathBuf::from("/x,y"));
        let SnapshotMoment::Exit(target) = exit.moment else {
            panic!("an exit moment")
        };
        assert_eq!(
            (target.class.as_str(), target.name.as_str()),
            ("p/Main", "main")
        );
        let alloc = HeapOptions::parse("snapshot=alloc:p.Main.run,out=/x")
            .expect("valid")
            .expect("heap mode");
        assert!(matches!(alloc.moment, SnapshotMoment::Alloc(ref t) if t.name == "run"));
        let gc = HeapOptions::parse("snapshot=gc,out=/x").expect("valid");
        assert_eq!(gc.map(|o| o.moment), Some(SnapshotMoment::Gc));
        assert_eq!(HeapOptions::parse("method=A.m,out=/x"), Ok(None));
        assert!(HeapOptions::parse("snapshot=soon,out=/x").is_err());
        assert!(HeapOptions::parse("snapshot=gc").is_err());
        assert!(HeapOptions::parse("snapshot=gc,out=").is_err());
    }

    #[test]
    fn malformed_options_are_errors() {
        assert!(AgentOptions::parse("method=Fig14.m0").is_err());
        assert!(AgentOptions::parse("out=/tmp/x").is_err());
        assert!(AgentOptions::parse("method=m0,out=/tmp/x").is_err());
        assert!(AgentOptions::parse("method=A.m,out=").is_err());
    }
}

//! Integer field views: which integer fields the lowering may read as variables instead of
//! havocking them, decided once for every method on the chains before any body is lowered.
//!
//! A view is an integer field that is a static field, an instance field of the method's own
//! `this`, or one of an object the method created and keeps to itself ([`super::fresh`]: a
//! local view, forgotten where its holder is set, viewable when the method's only stores to the
//! field are on the holder and no call but the object's constructor may write it). It is sound to read it as one variable only while nothing else writes it, so the
//! writes of every method reachable in the call graph are collected (`putfield`/`putstatic` by
//! name and type, and by declaring class when both sides resolve); code whose body cannot be
//! seen may write anything, except that a JDK native method is taken not to write the
//! application's fields (an assumption the certificate lists). A write to `C.f` inside `C`'s own
//! class initializer is not counted for other methods: the JVM runs it before any other code
//! can read `C.f`, so no activation outside it sees `C.f` change.
//!
//! Per method and field the view is
//! - a **formal** (a parameter of the method's bounds) when neither the method nor anything it
//!   reaches writes the field: callers bind a static field's view to theirs, and a view of
//!   `this.f` to theirs when the receiver is their own `this`;
//! - a **local** when only the method's own body writes it: stores assign it, the value at entry
//!   is unknown; a static field stored once, outside every loop, with a value the lowering cannot
//!   express (a call's result, a field read) becomes a fresh formal at that store, one unknown
//!   value per call (callers cannot bind it);
//! - a **local fixed by a call** for a static field the method does not store and that only
//!   one of its calls, outside every loop, may write (`parseCmdLine(args)` setting `size`):
//!   unknown before the call, a fresh formal once it returns ([`CallEffect::Fixed`]), which
//!   the agent records at that point for `validate`;
//! - a **local fixed by a loop** for a static field whose every write (stores, and calls that
//!   may write it, which forget it) lies in one outermost loop with one exit, one of them of a
//!   value the lowering cannot follow, and that something after the loop may read (main's own
//!   option loop): equal to a fresh formal on the edges to that exit ([`LoopExit`]), which the
//!   agent records when the method reaches it;
//! - **threaded** for a field of `this` that the code the method calls writes (or that a caller
//!   threads through it): a formal holding the value at entry, assigned by the method's stores,
//!   returned at its exit, and passed in and out of each call on `this` whose every writing
//!   callee threads it too, which the invariants crate relates through the callee's summary
//!   (`len = len_init + 1`). Any other call that may write the field forgets it ([`CallEffect`]),
//!   also on the call's exception edges.
//!
//! The same holds for an integer local with one definition, outside every loop, from a call's
//! result (`int n = Integer.parseInt(args[0])`, directly or through the stack slot the call
//! left it in): it becomes a fresh formal named after the local ([`FixedLocal`]).
//!
//! It does not lower anything ([`super::body`] does) and does not look at array or object
//! fields: only integer ones.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use membound_front::callgraph::{CallGraph, CallSites, NodeKind};
use membound_front::classpath::Origin;
use membound_front::ir::{self, CallKind, DynamicCall, Operand, Place, StmtKind};
use membound_front::program::Program;
use membound_jvm::{ClassName, FieldRef, MethodRef, Type};

use super::appends::{has_appended_fields, tail_appends};
use super::chains::{self, WalkContext, Walks, walks};
use super::cursors::{
    Cursor, CursorCall, CursorMethod, Start, cursor_method, factory_start, own_cursor_field,
};
use super::extrema::Extremum;
use super::fresh::fresh_holders;
use super::fresh_trees;
use super::guards::GuardContext;
use super::held;
use super::loops::{Loops, block_successors, find_loops};
use super::trees::array_elements;
use super::views;

/// The assumption views of application fields rely on when a JDK native method is reachable.
pub const JDK_NATIVES_KEEP_FIELDS: &str = "JDK native methods do not write the application's integer fields (no reflection, JNI or other thread writes them while a method reads them)";

/// A field a view reads: a static field, an instance field of the method's `this`, or one of
/// an object the method created and keeps in a local ([`super::fresh`]), named by its declaring
/// class when it resolves.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ViewKey {
    Static(FieldRef),
    This(FieldRef),
    Fresh(ir::VarId, FieldRef),
}

impl ViewKey {
    fn field(&self) -> &FieldRef {
        match self {
            ViewKey::Static(field) | ViewKey::This(field) | ViewKey::Fresh(_, field) => field,
        }
    }

    /// The key of a field read or write at `place`, with the field as the instruction names it;
    /// `None` for other objects' fields and array elements.
    pub fn at(
        place: &Place,
        this: Option<ir::VarId>,
        holders: &BTreeMap<ir::VarId, Vec<u32>>,
    ) -> Option<ViewKey> {
        match place {
            Place::Static(field) => Some(ViewKey::Static(field.clone())),
            Place::Field {
                object: Operand::Var(object),
                field,
            } if Some(*object) == this => Some(ViewKey::This(field.clone())),
            Place::Field {
                object: Operand::Var(object),
                field,
            } if holders.contains_key(object) => Some(ViewKey::Fresh(*object, field.clone())),
            _ => None,
        }
    }

    fn with_field(&self, field: FieldRef) -> ViewKey {
        match self {
            ViewKey::Static(_) => ViewKey::Static(field),
            ViewKey::This(_) => ViewKey::This(field),
            ViewKey::Fresh(holder, _) => ViewKey::Fresh(*holder, field),
        }
    }

    fn is_static(&self) -> bool {
        matches!(self, ViewKey::Static(_))
    }
}

/// How a view enters its procedure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViewMode {
    /// A formal holding the field's value during the whole activation.
    Formal,
    /// A local written by the method's own stores; with `Some(pc)`, the store or the call at
    /// `pc` gives it a fresh formal's value.
    Local { fixed_at: Option<u32> },
    /// A formal holding the value at entry of a field of `this`, written by stores and calls on
    /// `this`, returned at exit.
    Threaded,
}

/// What a call does to a threaded view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallEffect {
    /// Every callee that may write the field is a chain method, called on `this`, threading it:
    /// the view takes the value the callee returns (a callee no chain goes through leaves it as
    /// it was).
    Returned,
    /// A callee may write the field in a way no summary tells: the view is forgotten.
    Havoc,
    /// The one call of the method that may write a static field, outside every loop: after it
    /// returns, the view holds the fresh formal of its `Local { fixed_at }` mode (forgotten on
    /// the call's exception edges).
    Fixed,
}

/// One integer field view of a procedure.
#[derive(Clone, Debug)]
pub struct View {
    pub key: ViewKey,
    pub mode: ViewMode,
    /// The name its variable (and, when it has one, its formal) wants.
    pub name: String,
    /// Where the formal's value comes from, for the certificate.
    pub origin: String,
}

impl FieldPlan {
    /// The origins of the formals the plan adds, in formal order.
    pub fn formal_origins(&self) -> Vec<String> {
        self.views
            .iter()
            .filter(|v| v.is_formal())
            .map(|v| v.origin.clone())
            .chain(self.locals.iter().map(|l| l.origin.clone()))
            .chain(self.walks.roots.iter().map(|r| r.origin.clone()))
            .collect()
    }

    /// Parallel to [`Self::formal_origins`]: the field of `this` a formal views.
    pub fn formal_fields(&self) -> Vec<Option<FieldRef>> {
        self.views
            .iter()
            .filter(|v| v.is_formal())
            .map(|v| match &v.key {
                ViewKey::This(field) => Some(field.clone()),
                _ => None,
            })
            .chain(self.locals.iter().map(|_| None))
            .chain(self.walks.roots.iter().map(|_| None))
            .collect()
    }
}

impl View {
    /// Whether the view adds a formal to its procedure (after the declared parameters).
    pub fn is_formal(&self) -> bool {
        matches!(
            self.mode,
            ViewMode::Formal | ViewMode::Threaded | ViewMode::Local { fixed_at: Some(_) }
        )
    }
}

/// What a store does to a view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreEffect {
    /// The store writes exactly this field: the view takes the stored value.
    Assign,
    /// The store writes this field with the fresh formal's value.
    Fixed,
    /// The store may write this field (aliasing, an unresolved class): the view is forgotten.
    Havoc,
}

/// An integer local set once per call from a call's result: a fresh formal from its definition.
#[derive(Clone, Debug)]
pub struct FixedLocal {
    pub var: ir::VarId,
    /// The offset of its one definition.
    pub pc: u32,
    pub origin: String,
}

/// The views of one procedure and what its field instructions do to them.
#[derive(Clone, Debug, Default)]
pub struct FieldPlan {
    /// In the order their formals follow the declared parameters.
    pub views: Vec<View>,
    /// Their formals follow those of the views.
    pub locals: Vec<FixedLocal>,
    /// The variable holding `this`, when it is never reassigned.
    pub this: Option<ir::VarId>,
    /// A field read (its key with the field as the instruction names it) → the view it reads.
    pub reads: HashMap<ViewKey, ViewKey>,
    /// The holders of fresh objects ([`super::fresh`]) with their constructor calls' offsets:
    /// their views are forgotten where the holder is set.
    pub holders: BTreeMap<ir::VarId, Vec<u32>>,
    /// Per store offset, the views it changes.
    pub stores: HashMap<u32, Vec<(ViewKey, StoreEffect)>>,
    /// Per call offset, what it does to the threaded views it may change.
    pub calls: HashMap<u32, Vec<(ViewKey, CallEffect)>>,
    /// The walks along linked structures; their roots' formals follow the fixed locals'.
    pub walks: Walks,
    /// The static views that a loop's writes leave with one value: a fresh formal where the
    /// loop exits.
    pub loop_exits: Vec<LoopExit>,
    /// The offsets of the increments of ghost counters, where the lowering puts a point so that
    /// they are counted ([`super::ghost`]).
    pub counted: BTreeSet<u32>,
}

/// A static field that the method writes only inside one outermost loop, which has one exit:
/// its view equals a fresh formal (`Local { fixed_at }` at the exit block's offset) on the
/// edges leaving the loop for that exit, and nothing changes it afterwards. An option loop in
/// `main` (`size = Integer.parseInt(args[++i])`) leaves `size` there.
#[derive(Clone, Debug)]
pub struct LoopExit {
    pub key: ViewKey,
    /// The loop's head block.
    pub head: usize,
    /// The block its exits go to.
    pub exit: usize,
}

/// Whether anything a method runs (its body included, except its stores at the given offsets)
/// may write an instance field like this one, on any object.
type FieldWrites<'a> = Box<dyn Fn(&FieldRef, &[u32]) -> bool + 'a>;

/// A method's statements that may write an instance field like this one, each as `the store
/// at offset 12` or `the call at offset 40 to C.m(…)`.
type FieldWriters<'a> = Box<dyn Fn(&FieldRef) -> Vec<String> + 'a>;

/// The field a method's call at an offset returns from its receiver, when it is a getter.
type Getter<'a> = Box<dyn Fn(u32) -> Option<FieldRef> + 'a>;

/// The reference field a method's constructor call at an offset sets to one of its arguments,
/// and that argument's index, when the constructor does nothing else a walk could see.
type LinkingConstructor<'a> = Box<dyn Fn(u32) -> Option<(FieldRef, usize)> + 'a>;

/// What a method's call at an offset does to a cursor of the program's own, if anything.
type CursorCalls<'a> = Box<dyn Fn(u32) -> Option<CursorCall> + 'a>;

/// The fields a method's call at an offset tests as a `hasNext()` ([`has_more_at`]).
type HasMore<'a> = Box<dyn Fn(u32) -> Vec<FieldRef> + 'a>;

/// Whether a method's statement may write an instance field like this one through a call
/// (an instruction calling what the call graph does not list runs unseen code).
type CallWrites<'a> = Box<dyn Fn(&ir::Stmt, &FieldRef) -> bool + 'a>;

/// The plans of the chain methods, and whether a view relies on [`JDK_NATIVES_KEEP_FIELDS`].
pub struct Plans {
    pub plans: Vec<FieldPlan>,
    pub assumes_jdk_natives: bool,
    /// The calls passing a tree fresh from an earlier call ([`fresh_trees`]).
    pub fresh_trees: fresh_trees::FreshTrees,
}

/// What the code reachable from a method may write.
#[derive(Clone, Debug, Default)]
pub(super) struct Writes {
    /// (static, field as resolved) of every store.
    fields: BTreeSet<(bool, Resolved)>,
    /// Code that cannot be seen was reached.
    pub(super) anything: bool,
    /// A JDK native method was reached.
    pub(super) jdk_native: bool,
}

impl Writes {
    /// Whether one of the writes may change `key`'s field.
    fn may_write(&self, key: &ViewKey) -> bool {
        let target = Resolved {
            field: key.field().clone(),
            resolved: true,
        };
        self.fields
            .iter()
            .any(|(is_static, w)| *is_static == key.is_static() && w.may_alias(&target))
    }

    /// Whether one of the writes may change the instance field `target` (of any object): one
    /// resolved to the same class's field, or of its name and type when either side is
    /// unresolved.
    fn may_write_object_field(&self, target: &Resolved) -> bool {
        self.fields
            .iter()
            .any(|(is_static, w)| !is_static && w.may_alias(target))
    }

    fn add(&mut self, other: &Writes) {
        self.anything |= other.anything;
        self.jdk_native |= other.jdk_native;
        self.fields.extend(other.fields.iter().cloned());
    }
}

/// A field reference with its declaring class when resolution found it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Resolved {
    pub(super) field: FieldRef,
    pub(super) resolved: bool,
}

impl Resolved {
    /// Whether a store to `self` may change `other` (same kind checked by the caller).
    pub(super) fn may_alias(&self, other: &Resolved) -> bool {
        self.field.name == other.field.name
            && self.field.ty == other.field.ty
            && (!(self.resolved && other.resolved) || self.field.class == other.field.class)
    }
}

/// One method's own field instructions.
struct Own {
    this: Option<ir::VarId>,
    /// Integer views read by the body.
    reads: BTreeMap<ViewKey, ViewKey>,
    /// The locals holding fresh objects ([`super::fresh`]), with their constructor calls.
    holders: BTreeMap<ir::VarId, Vec<u32>>,
    /// Its stores to integer fields.
    stores: Vec<Store>,
    /// Calls on `this` (their offsets), for views of `this.f` a callee needs.
    this_calls: BTreeSet<u32>,
    /// The offsets of the calls that run at most once per activation (no loop contains them).
    calls_outside_loops: BTreeSet<u32>,
    /// The block of each call, by its offset.
    call_blocks: HashMap<u32, usize>,
    /// The body's loops.
    loops: Loops,
}

/// A `putfield` or `putstatic` of an integer field.
struct Store {
    pc: u32,
    is_static: bool,
    /// A `putfield` on the method's own `this`.
    on_this: bool,
    /// The object written, when it is a variable.
    object: Option<ir::VarId>,
    field: Resolved,
    /// The stored value is one the lowering havocs (see [`opaque`]).
    opaque: bool,
    /// It runs at most once per call: no loop (natural or not) contains it.
    outside_loops: bool,
    /// The block it is in.
    block: usize,
}

/// Decides every chain method's views. `methods[i]` has `bodies[i]`; `callees` maps (method
/// index, call offset) to the method indices the chains enter there.
pub fn plan(
    java: &Program,
    graph: &CallGraph,
    call_sites: &CallSites,
    methods: &[MethodRef],
    bodies: &[std::sync::Arc<ir::Body>],
    callees: &HashMap<(usize, u32), Vec<usize>>,
    complete: &HashSet<(usize, u32)>,
) -> Plans {
    let mut resolver = Resolver::new(java);
    let node_writes = node_writes(java, graph, &mut resolver);
    let node_writes = without_fresh_writes(java, graph, call_sites, node_writes, &mut resolver);
    let own: Vec<Own> = bodies
        .iter()
        .map(|b| own_fields(b, &mut resolver))
        .collect();
    let resolver = std::cell::RefCell::new(resolver);
    let cursor_writers = CursorWriters {
        java,
        graph,
        node_writes: node_writes.clone(),
    };
    let writers_index = std::cell::RefCell::new(WriteIndex::new(graph, node_writes.clone()));
    let mut writes = WriteIndex::new(graph, node_writes);
    let reachable: Vec<Writes> = methods
        .iter()
        .map(|method| writes.through_calls(graph, method))
        .collect();
    let mut assumes_jdk_natives = false;
    // A view needs every write to be seen (a JDK native writes only JDK fields, assumed).
    let viewable = |index: usize, key: &ViewKey, assumes: &mut bool| -> bool {
        let writes = &reachable[index];
        if writes.anything {
            return false;
        }
        if writes.jdk_native {
            if java.origin(&key.field().class) != Some(Origin::User) {
                return false;
            }
            *assumes = true;
        }
        true
    };
    let written_by_calls = |index: usize, key: &ViewKey| reachable[index].may_write(key);
    // Which views each method needs: its reads, then what its chain callees need through it.
    let mut needed: Vec<BTreeSet<ViewKey>> = own
        .iter()
        .map(|o| o.reads.values().cloned().collect())
        .collect();
    propagate_to_callers(&mut needed, &own, callees);
    let threaded = threaded_views(&mut needed, &own, callees, written_by_calls);
    // Only a method calling a linking constructor skips calls when it checks a field's writes.
    let per_call: Vec<BTreeMap<u32, Writes>> = methods
        .iter()
        .zip(bodies)
        .map(|(method, body)| {
            let links = body.statements().any(|(_, stmt)| {
                matches!(&stmt.kind, StmtKind::Invoke { call, .. } if &*call.method.name == "<init>")
                    && linking_constructor_at(java, graph, call_sites, method, stmt.pc).is_some()
            });
            if links {
                writes_per_call(graph, call_sites, &mut writes, method)
            } else {
                BTreeMap::new()
            }
        })
        .collect();
    let may_write: Vec<FieldWrites<'_>> = (0..bodies.len())
        .map(|index| {
            let through_calls = &reachable[index];
            let calls = &per_call[index];
            let body = &bodies[index];
            let resolver = &resolver;
            Box::new(move |field: &FieldRef, besides: &[u32]| {
                // The field as its instruction names it, resolved to the class declaring it.
                let field_resolved = resolver.borrow_mut().resolve(field);
                let skips_calls = besides.iter().any(|pc| calls.contains_key(pc));
                let calls_write = if skips_calls {
                    calls.iter().any(|(pc, writes)| {
                        !besides.contains(pc)
                            && (writes.anything || writes.may_write_object_field(&field_resolved))
                    })
                } else {
                    through_calls.may_write_object_field(&field_resolved)
                };
                through_calls.anything
                    || calls_write
                    || stores_field(body, &field_resolved, besides, &mut resolver.borrow_mut())
            }) as FieldWrites<'_>
        })
        .collect();
    let writers: Vec<FieldWriters<'_>> = methods
        .iter()
        .zip(bodies)
        .map(|(method, body)| {
            let (resolver, index) = (&resolver, &writers_index);
            Box::new(move |field: &FieldRef| {
                let target = resolver.borrow_mut().resolve(field);
                let per_call = writes_per_call(graph, call_sites, &mut index.borrow_mut(), method);
                field_writers(body, &target, &per_call, &mut resolver.borrow_mut())
            }) as FieldWriters<'_>
        })
        .collect();
    let getters: Vec<Getter<'_>> = methods
        .iter()
        .map(|method| {
            Box::new(move |pc| getter_at(java, graph, call_sites, method, pc)) as Getter<'_>
        })
        .collect();
    let linking: Vec<LinkingConstructor<'_>> = methods
        .iter()
        .map(|method| {
            Box::new(move |pc| linking_constructor_at(java, graph, call_sites, method, pc))
                as LinkingConstructor<'_>
        })
        .collect();
    let cursor_calls: Vec<CursorCalls<'_>> = methods
        .iter()
        .map(|method| {
            let writers = &cursor_writers;
            Box::new(move |pc| cursor_call_at(writers, call_sites, method, pc)) as CursorCalls<'_>
        })
        .collect();
    let has_more: Vec<HasMore<'_>> = methods
        .iter()
        .map(|method| {
            Box::new(move |pc| has_more_at(java, graph, call_sites, method, pc)) as HasMore<'_>
        })
        .collect();
    let call_writes: Vec<CallWrites<'_>> = methods
        .iter()
        .map(|method| {
            let (resolver, index) = (&resolver, &writers_index);
            let per_call = std::cell::OnceCell::new();
            Box::new(move |stmt: &ir::Stmt, field: &FieldRef| {
                let per_call = per_call.get_or_init(|| {
                    writes_per_call(graph, call_sites, &mut index.borrow_mut(), method)
                });
                match per_call.get(&stmt.pc) {
                    Some(writes) => {
                        let field = resolver.borrow_mut().resolve(field);
                        writes.anything || writes.may_write_object_field(&field)
                    }
                    None => matches!(stmt.kind, StmtKind::Invoke { .. }),
                }
            }) as CallWrites<'_>
        })
        .collect();
    let own_cursors: Vec<Option<FieldRef>> = methods
        .iter()
        .map(|method| {
            let own_code = java.origin(&method.class) == Some(Origin::User);
            own_code.then(|| own_cursor_field(java, method)).flatten()
        })
        .collect();
    let walk_context = |index: usize, this: Option<ir::VarId>| WalkContext {
        this,
        writes_besides: &*may_write[index],
        writers: &*writers[index],
        getter: &*getters[index],
        linking_constructor: &*linking[index],
        cursor_call: &*cursor_calls[index],
        own_cursor: own_cursors[index].clone(),
        guards: GuardContext {
            has_more: &*has_more[index],
            call_writes: &*call_writes[index],
        },
    };
    let mut plans = Vec::new();
    for (index, keys) in needed.iter().enumerate() {
        let mut views = Vec::new();
        let mut fixed_by_calls = Vec::new();
        let mut loop_exits = Vec::new();
        for key in keys {
            if matches!(key, ViewKey::This(_)) && own[index].this.is_none() {
                continue;
            }
            let threads = threaded[index].contains(key);
            let written = match key {
                // Its constructor writes another object's field as far as the view goes.
                ViewKey::Fresh(holder, _) => {
                    let constructors = &own[index].holders[holder];
                    let method = &methods[index];
                    calls_may_write(graph, call_sites, &mut writes, method, constructors, key)
                }
                _ => written_by_calls(index, key) && !threads,
            };
            if !viewable(index, key, &mut assumes_jdk_natives) {
                continue;
            }
            if written {
                let method = &methods[index];
                let writing = calls_writing(graph, call_sites, &mut writes, method, key);
                let writing = writing.unwrap_or_default();
                if let Some(pc) = fixing_call(&own[index], key, &writing) {
                    views.push((key.clone(), ViewMode::Local { fixed_at: Some(pc) }));
                    fixed_by_calls.push((pc, CallEffect::Fixed, key.clone()));
                } else if let Some(exit) = fixing_loop(&bodies[index], &own[index], key, &writing) {
                    views.push((key.clone(), exit_mode(&bodies[index], &exit)));
                    let havoc = writing
                        .iter()
                        .map(|&pc| (pc, CallEffect::Havoc, key.clone()));
                    fixed_by_calls.extend(havoc);
                    loop_exits.push(exit);
                }
                continue;
            }
            let stores: Vec<&Store> = own[index]
                .stores
                .iter()
                .filter(|s| store_may_write(s, key))
                .collect();
            let mode = if let ViewKey::Fresh(holder, _) = key {
                // Only the holder's own stores may write it; its value is unknown when set.
                if !stores.iter().all(|s| s.writes_exactly(*holder, key)) {
                    continue;
                }
                ViewMode::Local { fixed_at: None }
            } else if threads {
                ViewMode::Threaded
            } else if stores.is_empty() {
                ViewMode::Formal
            } else {
                let fixed = match stores.as_slice() {
                    [only]
                        if key.is_static()
                            && only.field.resolved
                            && only.field.field == *key.field()
                            && only.opaque
                            && only.outside_loops =>
                    {
                        Some(only.pc)
                    }
                    _ => None,
                };
                match (fixed, fixing_loop(&bodies[index], &own[index], key, &[])) {
                    (None, Some(exit)) => {
                        let mode = exit_mode(&bodies[index], &exit);
                        loop_exits.push(exit);
                        mode
                    }
                    _ => ViewMode::Local { fixed_at: fixed },
                }
            };
            views.push((key.clone(), mode));
        }
        let mut plan = finish_plan(
            &methods[index],
            &bodies[index],
            &own[index],
            views,
            loop_exits,
        );
        plan.calls = call_effects(
            graph,
            call_sites,
            &mut writes,
            methods,
            index,
            &own[index],
            &plan,
            callees,
            &threaded,
        );
        for (pc, effect, key) in fixed_by_calls {
            plan.calls.entry(pc).or_default().push((key, effect));
        }
        // JNI writing the walked field is part of the walks' own assumption.
        plan.walks = walks(&bodies[index], &walk_context(index, plan.this));
        plans.push(plan);
    }
    let contexts: Vec<WalkContext<'_>> = plans
        .iter()
        .enumerate()
        .map(|(index, plan)| walk_context(index, plan.this))
        .collect();
    let mut walks: Vec<Walks> = plans
        .iter_mut()
        .map(|p| std::mem::take(&mut p.walks))
        .collect();
    chains::bind_callee_roots(bodies, &contexts, callees, &mut walks);
    let method_call_writes =
        |method: usize, stmt: &ir::Stmt, field: &FieldRef| call_writes[method](stmt, field);
    held::complete(bodies, callees, &method_call_writes, &mut walks);
    let fresh_trees =
        fresh_trees::fresh_trees(bodies, callees, complete, &method_call_writes, &walks);
    for (plan, walks) in plans.iter_mut().zip(walks) {
        plan.walks = walks;
    }
    Plans {
        plans,
        assumes_jdk_natives,
        fresh_trees,
    }
}

/// Adds to each caller the views its chain callees need: statics always, fields of `this`
/// through calls on `this`.
fn propagate_to_callers(
    needed: &mut [BTreeSet<ViewKey>],
    own: &[Own],
    callees: &HashMap<(usize, u32), Vec<usize>>,
) {
    let mut changed = true;
    while changed {
        changed = false;
        for ((caller, pc), targets) in callees {
            for &callee in targets {
                let through_this = own[*caller].this_calls.contains(pc);
                let wanted: Vec<ViewKey> = needed[callee]
                    .iter()
                    .filter(|k| k.is_static() || (through_this && matches!(k, ViewKey::This(_))))
                    .cloned()
                    .collect();
                for key in wanted {
                    if needed[*caller].insert(key) {
                        changed = true;
                    }
                }
            }
        }
    }
}

/// The fields of `this` each method threads: those it needs that its calls write, and, down
/// the chains, those a caller threads into a callee on `this` that reads or stores them
/// (which then needs them too).
fn threaded_views(
    needed: &mut [BTreeSet<ViewKey>],
    own: &[Own],
    callees: &HashMap<(usize, u32), Vec<usize>>,
    written_by_calls: impl Fn(usize, &ViewKey) -> bool,
) -> Vec<BTreeSet<ViewKey>> {
    let mut threaded: Vec<BTreeSet<ViewKey>> = needed
        .iter()
        .enumerate()
        .map(|(index, keys)| {
            keys.iter()
                .filter(|k| matches!(k, ViewKey::This(_)) && own[index].this.is_some())
                .filter(|k| written_by_calls(index, k))
                .cloned()
                .collect()
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for ((caller, pc), targets) in callees {
            if !own[*caller].this_calls.contains(pc) {
                continue;
            }
            for key in threaded[*caller].clone() {
                for &callee in targets {
                    let uses = needed[callee].contains(&key)
                        || own[callee]
                            .stores
                            .iter()
                            .any(|s| s.on_this && store_may_write(s, &key));
                    if uses && own[callee].this.is_some() && threaded[callee].insert(key.clone()) {
                        needed[callee].insert(key.clone());
                        changed = true;
                    }
                }
            }
        }
    }
    threaded
}

/// What each call of method `index` does to its threaded views: nothing when no callee may
/// write the field, the callee's returned value when every callee that may write it is a
/// chain method called on `this` threading it, else forgotten.
#[allow(clippy::too_many_arguments)]
fn call_effects(
    graph: &CallGraph,
    call_sites: &CallSites,
    writes: &mut WriteIndex,
    methods: &[MethodRef],
    index: usize,
    own: &Own,
    plan: &FieldPlan,
    callees: &HashMap<(usize, u32), Vec<usize>>,
    threaded: &[BTreeSet<ViewKey>],
) -> HashMap<u32, Vec<(ViewKey, CallEffect)>> {
    let threaded_here: Vec<&ViewKey> = plan
        .views
        .iter()
        .filter(|v| v.mode == ViewMode::Threaded)
        .map(|v| &v.key)
        .collect();
    let mut effects: HashMap<u32, Vec<(ViewKey, CallEffect)>> = HashMap::new();
    let Some(node) = graph.node(&methods[index]) else {
        return effects;
    };
    if threaded_here.is_empty() {
        return effects;
    }
    for pc in call_sites.offsets(node) {
        let entered = call_sites.entered(node, pc);
        let unresolved = call_sites.is_unresolved(node, pc);
        let on_chains = callees.get(&(index, pc)).map_or(&[][..], Vec::as_slice);
        let chain_index = |callee: usize| {
            on_chains
                .iter()
                .copied()
                .find(|&m| graph.node(&methods[m]) == Some(callee))
        };
        for &key in &threaded_here {
            let mut effect = None;
            for &callee in entered {
                let running = writes.running(callee);
                if !running.anything && !running.may_write(key) {
                    continue;
                }
                let threads = own.this_calls.contains(&pc)
                    && chain_index(callee).is_some_and(|m| threaded[m].contains(key));
                effect = match (effect, threads) {
                    (Some(CallEffect::Havoc), _) | (_, false) => Some(CallEffect::Havoc),
                    _ => Some(CallEffect::Returned),
                };
            }
            if unresolved {
                effect = Some(CallEffect::Havoc);
            }
            if let Some(effect) = effect {
                effects.entry(pc).or_default().push((key.clone(), effect));
            }
        }
    }
    effects
}

/// Whether a call of `method`, other than those at `skipped`, may write `key`'s field or run
/// code that cannot be seen.
fn calls_may_write(
    graph: &CallGraph,
    call_sites: &CallSites,
    writes: &mut WriteIndex,
    method: &MethodRef,
    skipped: &[u32],
    key: &ViewKey,
) -> bool {
    calls_writing(graph, call_sites, writes, method, key)
        .is_none_or(|writing| writing.iter().any(|pc| !skipped.contains(pc)))
}

/// The offsets of the calls of `method` that may write `key`'s field or run code that cannot
/// be seen; None when the method is not in the call graph.
fn calls_writing(
    graph: &CallGraph,
    call_sites: &CallSites,
    writes: &mut WriteIndex,
    method: &MethodRef,
    key: &ViewKey,
) -> Option<Vec<u32>> {
    let node = graph.node(method)?;
    let writing = call_sites
        .offsets(node)
        .into_iter()
        .filter(|&pc| {
            call_sites.is_unresolved(node, pc)
                || call_sites.entered(node, pc).iter().any(|&callee| {
                    let running = writes.running(callee);
                    running.anything || running.may_write(key)
                })
        })
        .collect();
    Some(writing)
}

/// The call that sets a static field for the rest of the activation: the method's only call
/// that may write it, run at most once (outside every loop), in a method that does not store
/// it itself. After it returns the field holds one value until the method ends, a fresh
/// formal of the method (`parseCmdLine(args); build(size)`: the size the options gave).
fn fixing_call(own: &Own, key: &ViewKey, writing_calls: &[u32]) -> Option<u32> {
    if !key.is_static() || own.stores.iter().any(|s| store_may_write(s, key)) {
        return None;
    }
    match writing_calls {
        [pc] if own.calls_outside_loops.contains(pc) => Some(*pc),
        _ => None,
    }
}

/// The loop whose exit leaves a static field with one value: every store of the method that
/// may write it and every call that may (`writing_calls`) lie in one outermost loop with one
/// exit block, and one of them gives it a value the lowering cannot follow (a call's result, a
/// field read, or a call): otherwise the view follows it already.
fn fixing_loop(
    body: &ir::Body,
    own: &Own,
    key: &ViewKey,
    writing_calls: &[u32],
) -> Option<LoopExit> {
    let loops = &own.loops;
    if !key.is_static() || !loops.reducible {
        return None;
    }
    let stores: Vec<&Store> = own
        .stores
        .iter()
        .filter(|s| store_may_write(s, key))
        .collect();
    let call_blocks: Option<Vec<usize>> = writing_calls
        .iter()
        .map(|pc| own.call_blocks.get(pc).copied())
        .collect();
    let writers: Vec<usize> = stores.iter().map(|s| s.block).chain(call_blocks?).collect();
    let opaque = !writing_calls.is_empty() || stores.iter().any(|s| s.opaque);
    // The outermost loop containing a block: the one no other loop around the block contains.
    let outermost = |block: usize| {
        loops.enclosing[block]
            .iter()
            .copied()
            .find(|&head| loops.enclosing[head] == [head])
    };
    let head = outermost(*writers.first()?)?;
    if !opaque || writers.iter().any(|&block| outermost(block) != Some(head)) {
        return None;
    }
    let inside = |block: usize| loops.enclosing[block].contains(&head);
    if !read_outside(body, &inside, key.field()) {
        return None;
    }
    let exits: BTreeSet<usize> = (0..body.blocks.len())
        .filter(|&block| inside(block))
        .flat_map(|block| body.blocks[block].terminator.successors())
        .map(|target| target.0 as usize)
        .filter(|&target| target < body.blocks.len() && !inside(target))
        .collect();
    let [exit] = exits.into_iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    Some(LoopExit {
        key: key.clone(),
        head,
        exit,
    })
}

/// Whether a block `inside` does not hold may read the static `field` (by name and type), or
/// call a method that may: only then does a formal at the loop's exit say anything.
fn read_outside(body: &ir::Body, inside: &dyn Fn(usize) -> bool, field: &FieldRef) -> bool {
    body.statements()
        .filter(|(block, _)| !inside(block.0 as usize))
        .any(|(_, stmt)| match &stmt.kind {
            StmtKind::Assign {
                value: ir::Expr::Load(Place::Static(read)),
                ..
            } => read.name == field.name && read.ty == field.ty,
            StmtKind::Invoke { .. } => true,
            _ => false,
        })
}

/// The mode of a view a loop's exit fixes: its formal named by the exit block's offset.
fn exit_mode(body: &ir::Body, exit: &LoopExit) -> ViewMode {
    ViewMode::Local {
        fixed_at: Some(body.blocks[exit.exit].pc),
    }
}

impl Store {
    /// Whether the store writes exactly `key`'s field of the object `holder` holds.
    fn writes_exactly(&self, holder: ir::VarId, key: &ViewKey) -> bool {
        self.object == Some(holder) && self.field.resolved && self.field.field == *key.field()
    }
}

fn store_may_write(store: &Store, key: &ViewKey) -> bool {
    let target = Resolved {
        field: key.field().clone(),
        resolved: true,
    };
    store.is_static == key.is_static() && store.field.may_alias(&target)
}

/// Names, origins and store effects of a method's chosen views, and its fixed locals.
fn finish_plan(
    method: &MethodRef,
    body: &ir::Body,
    own: &Own,
    views: Vec<(ViewKey, ViewMode)>,
    loop_exits: Vec<LoopExit>,
) -> FieldPlan {
    let ambiguous: Vec<bool> = views
        .iter()
        .map(|(key, _)| {
            views
                .iter()
                .filter(|(other, _)| other.field().name == key.field().name)
                .count()
                > 1
        })
        .collect();
    let views: Vec<View> = views
        .into_iter()
        .zip(ambiguous)
        .map(|((key, mode), ambiguous)| {
            let field = key.field();
            let name = match &key {
                ViewKey::Fresh(holder, _) => format!("{}_{}", body.var(*holder).name, field.name),
                _ if ambiguous => format!("{}_{}", field.class.simple(), field.name),
                _ => field.name.to_string(),
            };
            let origin = match (&key, &mode) {
                (ViewKey::This(_), _) => format!("field {} of this", field.name),
                (ViewKey::Fresh(holder, _), _) => format!(
                    "field {} of the object {} created in {}",
                    field.name,
                    body.var(*holder).name,
                    method.name
                ),
                (ViewKey::Static(_), ViewMode::Local { fixed_at: Some(pc) }) => {
                    let static_field =
                        format!("static field {}.{}", field.class.source(), field.name);
                    let name = &method.name;
                    let loop_head = loop_exits
                        .iter()
                        .find(|exit| exit.key == key)
                        .map(|exit| body.blocks[exit.head].pc);
                    match loop_head {
                        Some(head) => format!(
                            "{static_field}, once the loop at {name}@{head} exits to {name}@{pc}"
                        ),
                        None if own.stores.iter().any(|s| s.pc == *pc) => {
                            format!("{static_field}, written at {name}@{pc}")
                        }
                        None => format!("{static_field}, written by the call at {name}@{pc}"),
                    }
                }
                (ViewKey::Static(_), _) => {
                    format!("static field {}.{}", field.class.source(), field.name)
                }
            };
            View {
                key,
                mode,
                name,
                origin,
            }
        })
        .collect();
    let reads = own
        .reads
        .iter()
        .filter(|(_, key)| views.iter().any(|v| &v.key == *key))
        .map(|(read, key)| (read.clone(), key.clone()))
        .collect();
    let mut stores: HashMap<u32, Vec<(ViewKey, StoreEffect)>> = HashMap::new();
    for store in &own.stores {
        for view in &views {
            if !store_may_write(store, &view.key) {
                continue;
            }
            // A store to a narrower field keeps only the low bits of an unnarrowed value.
            let on_its_object = match &view.key {
                ViewKey::Static(_) => store.is_static,
                ViewKey::This(_) => store.on_this,
                ViewKey::Fresh(holder, _) => store.object == Some(*holder),
            };
            let exact = store.field.resolved
                && store.field.field == *view.key.field()
                && on_its_object
                && matches!(view.key.field().ty, Type::Int | Type::Long);
            let effect = match view.mode {
                ViewMode::Local { fixed_at: Some(pc) } if pc == store.pc => StoreEffect::Fixed,
                _ if exact => StoreEffect::Assign,
                _ => StoreEffect::Havoc,
            };
            stores
                .entry(store.pc)
                .or_default()
                .push((view.key.clone(), effect));
        }
    }
    FieldPlan {
        views,
        locals: fixed_locals(method, body),
        this: own.this,
        reads,
        holders: own.holders.clone(),
        stores,
        calls: HashMap::new(),
        walks: Walks::default(),
        loop_exits,
        counted: BTreeSet::new(),
    }
}

/// Field resolution (JVMS §5.4.3.2) by class name, cached.
pub(super) struct Resolver<'p> {
    java: &'p Program,
    cache: HashMap<FieldRef, Resolved>,
}

impl<'p> Resolver<'p> {
    pub(super) fn new(java: &'p Program) -> Resolver<'p> {
        Resolver {
            java,
            cache: HashMap::new(),
        }
    }

    pub(super) fn resolve(&mut self, field: &FieldRef) -> Resolved {
        if let Some(known) = self.cache.get(field) {
            return known.clone();
        }
        let declaring = self.declaring(&field.class, field, 0);
        let resolved = match declaring {
            Some(class) => Resolved {
                field: FieldRef {
                    class,
                    ..field.clone()
                },
                resolved: true,
            },
            None => Resolved {
                field: field.clone(),
                resolved: false,
            },
        };
        self.cache.insert(field.clone(), resolved.clone());
        resolved
    }

    /// The class declaring `field` as seen from `class`: itself, its superinterfaces, then its
    /// superclass (depth-limited against malformed cyclic hierarchies).
    fn declaring(&self, class: &ClassName, field: &FieldRef, depth: usize) -> Option<ClassName> {
        const MAX_DEPTH: usize = 64;
        if depth > MAX_DEPTH {
            return None;
        }
        let loaded = self.java.class(class).ok()?;
        if loaded
            .fields
            .iter()
            .any(|f| f.name == field.name && f.ty == field.ty)
        {
            return Some(class.clone());
        }
        loaded
            .interfaces
            .iter()
            .chain(&loaded.super_class)
            .find_map(|next| self.declaring(next, field, depth + 1))
    }
}

/// The integer reads, stores and calls on `this` of one body.
fn own_fields(body: &ir::Body, resolver: &mut Resolver<'_>) -> Own {
    let this = body
        .params
        .iter()
        .copied()
        .find(|&v| body.var(v).origin == ir::VarOrigin::This)
        .filter(|&this| !body.assigns(this));
    let successors = block_successors(body);
    let loops = find_loops(&successors);
    let is_this = |operand: &Operand| matches!(operand, Operand::Var(v) if Some(*v) == this);
    let mut own = Own {
        this,
        reads: BTreeMap::new(),
        holders: fresh_holders(body),
        stores: Vec::new(),
        this_calls: BTreeSet::new(),
        calls_outside_loops: BTreeSet::new(),
        call_blocks: HashMap::new(),
        loops: loops.clone(),
    };
    for (block, stmt) in body.statements() {
        match &stmt.kind {
            StmtKind::Assign {
                value: ir::Expr::Load(place),
                ..
            } => {
                let read = ViewKey::at(place, this, &own.holders);
                if let Some(read) = read.filter(|k| k.field().ty.is_integer()) {
                    let resolved = resolver.resolve(read.field());
                    // Only a resolved field can be told apart from others of its name.
                    if resolved.resolved {
                        let key = read.with_field(resolved.field);
                        own.reads.insert(read, key);
                    }
                }
            }
            StmtKind::Store { place, value } => {
                let (is_static, on_this, object, field) = match place {
                    Place::Static(field) => (true, false, None, field),
                    Place::Field { object, field } => {
                        let variable = match object {
                            Operand::Var(v) => Some(*v),
                            Operand::Const(_) => None,
                        };
                        (false, is_this(object), variable, field)
                    }
                    Place::ArrayElement { .. } => continue,
                };
                if !field.ty.is_integer() {
                    continue;
                }
                own.stores.push(Store {
                    pc: stmt.pc,
                    is_static,
                    on_this,
                    object,
                    field: resolver.resolve(field),
                    opaque: opaque_at(body, block, stmt, value),
                    outside_loops: loops.reducible && loops.enclosing[block.0 as usize].is_empty(),
                    block: block.0 as usize,
                });
            }
            StmtKind::Invoke { call, .. } => {
                own.call_blocks.insert(stmt.pc, block.0 as usize);
                if loops.reducible && loops.enclosing[block.0 as usize].is_empty() {
                    own.calls_outside_loops.insert(stmt.pc);
                }
                if call.receiver.as_ref().is_some_and(is_this)
                    && !matches!(call.kind, CallKind::Dynamic(_))
                {
                    own.this_calls.insert(stmt.pc);
                }
            }
            _ => {}
        }
    }
    own
}

/// The integer locals of `body` defined once, outside every loop, by a call's result: either
/// directly or copied from the stack slot the call just before left it in.
fn fixed_locals(method: &MethodRef, body: &ir::Body) -> Vec<FixedLocal> {
    let successors = block_successors(body);
    let loops = find_loops(&successors);
    let mut definitions: BTreeMap<ir::VarId, Vec<(usize, usize)>> = BTreeMap::new();
    for (block, stmts) in body.blocks.iter().enumerate() {
        for (index, stmt) in stmts.stmts.iter().enumerate() {
            let defined = match &stmt.kind {
                StmtKind::Assign { dst, .. } => Some(*dst),
                StmtKind::Invoke { dst, .. } => *dst,
                _ => None,
            };
            if let Some(var) = defined {
                definitions.entry(var).or_default().push((block, index));
            }
        }
    }
    let mut fixed = Vec::new();
    for (var, places) in definitions {
        let declared = body.var(var);
        let &[(block, index)] = places.as_slice() else {
            continue;
        };
        if !matches!(declared.origin, ir::VarOrigin::Local(_))
            || !declared.ty.is_integer()
            || !loops.reducible
            || !loops.enclosing[block].is_empty()
        {
            continue;
        }
        let stmts = &body.blocks[block].stmts;
        // A parameter's length or size is no unknown value, nor is a followed `Math.min(a, b)`.
        let opaque_call = |call: &ir::Call| {
            !views::reads_parameter_view(body, call) && Extremum::followed(call, body).is_none()
        };
        let from_call = match &stmts[index].kind {
            StmtKind::Invoke { call, .. } => opaque_call(call),
            StmtKind::Assign {
                value: ir::Expr::Use(Operand::Var(slot)),
                ..
            } => index.checked_sub(1).is_some_and(|previous| {
                matches!(&stmts[previous].kind,
                    StmtKind::Invoke { dst: Some(d), call } if d == slot && opaque_call(call))
            }),
            _ => false,
        };
        if from_call {
            let pc = stmts[index].pc;
            fixed.push(FixedLocal {
                var,
                pc,
                origin: format!(
                    "local {} set from a call's result at {}@{pc}",
                    declared.name, method.name
                ),
            });
        }
    }
    fixed
}

/// Whether the value `operand` holds at `stmt` (of `block`) comes from a call's result or a
/// field read (through copies). The latest definition before `stmt` in its block is the only
/// one that reaches it: a stack slot the block set from a call may be reused for arithmetic
/// elsewhere (`$s0 = number(args); rows = $s0` … `$s0 = 3 * k`), which does not make the
/// stored value expressible. Without one in the block, every definition counts ([`opaque`]).
fn opaque_at(body: &ir::Body, block: ir::BlockId, stmt: &ir::Stmt, operand: &Operand) -> bool {
    let Operand::Var(var) = operand else {
        return false;
    };
    let stmts = &body.blocks[block.0 as usize].stmts;
    let before = stmts
        .iter()
        .position(|s| std::ptr::eq(s, stmt))
        .unwrap_or(0);
    for (index, earlier) in stmts[..before].iter().enumerate().rev() {
        match &earlier.kind {
            StmtKind::Assign { dst, value } if dst == var => {
                return match value {
                    ir::Expr::Load(_) => true,
                    ir::Expr::Use(source @ Operand::Var(_)) => {
                        opaque_at(body, block, &stmts[index], source)
                    }
                    _ => false,
                };
            }
            StmtKind::Invoke { dst, .. } if *dst == Some(*var) => return true,
            _ => {}
        }
    }
    opaque(body, operand)
}

/// Whether every value `operand` can hold comes from a call's result or a field read (through
/// copies): values the lowering havocs, which a fixed view may name instead.
fn opaque(body: &ir::Body, operand: &Operand) -> bool {
    let Operand::Var(start) = operand else {
        return false;
    };
    let mut seen = BTreeSet::new();
    let mut stack = vec![*start];
    while let Some(var) = stack.pop() {
        if !seen.insert(var) {
            continue;
        }
        // A parameter holds the caller's value on entry, which no statement defines.
        if matches!(
            body.var(var).origin,
            ir::VarOrigin::Param(_) | ir::VarOrigin::This
        ) {
            return false;
        }
        let mut defined = false;
        for (_, stmt) in body.statements() {
            match &stmt.kind {
                StmtKind::Assign { dst, value } if *dst == var => {
                    defined = true;
                    match value {
                        ir::Expr::Load(_) => {}
                        ir::Expr::Use(Operand::Var(source)) => stack.push(*source),
                        _ => return false,
                    }
                }
                StmtKind::Invoke { dst, .. } if *dst == Some(var) => defined = true,
                _ => {}
            }
        }
        if !defined {
            return false;
        }
    }
    true
}

/// Whether `body` stores to the instance field `target` (see [`Resolved::may_alias`]), on any
/// object, other than at the offsets `besides`.
fn stores_field(
    body: &ir::Body,
    target: &Resolved,
    besides: &[u32],
    resolver: &mut Resolver<'_>,
) -> bool {
    body.statements().any(|(_, stmt)| match &stmt.kind {
        StmtKind::Store {
            place: Place::Field { field: written, .. },
            ..
        } if !besides.contains(&stmt.pc) => resolver.resolve(written).may_alias(target),
        _ => false,
    })
}

/// The statements of `body` that may write `target` (see [`FieldWriters`]); `per_call` is what
/// each call may write.
fn field_writers(
    body: &ir::Body,
    target: &Resolved,
    per_call: &BTreeMap<u32, Writes>,
    resolver: &mut Resolver<'_>,
) -> Vec<String> {
    body.statements()
        .filter_map(|(_, stmt)| match &stmt.kind {
            StmtKind::Store {
                place: Place::Field { field, .. },
                ..
            } if resolver.resolve(field).may_alias(target) => {
                Some(format!("the store at offset {}", stmt.pc))
            }
            StmtKind::Invoke { call, .. }
                if per_call.get(&stmt.pc).is_some_and(|writes| {
                    writes.anything || writes.may_write_object_field(target)
                }) =>
            {
                Some(format!("the call at offset {} to {}", stmt.pc, call.method))
            }
            _ => None,
        })
        .collect()
}

/// What decides whether a class is a cursor: the program, its call graph and what each of the
/// graph's methods' own code writes.
struct CursorWriters<'a> {
    java: &'a Program,
    graph: &'a CallGraph,
    node_writes: Vec<Writes>,
}

impl CursorWriters<'_> {
    /// The cursor whose field is `field`: its class's `next()`s all move it along one field, and
    /// no method of the call graph stores it but the class's linking constructors and those
    /// `next()`s.
    fn cursor(&self, field: &FieldRef) -> Option<Cursor> {
        let class = self.java.class(&field.class).ok()?;
        let declared = class
            .fields
            .iter()
            .any(|f| f.name == field.name && !f.is_static());
        let mut followed = class.methods.iter().filter_map(|m| {
            let method = MethodRef::new(class.name.clone(), &m.name, &m.descriptor);
            match cursor_method(self.java, &method)? {
                CursorMethod::Advance {
                    field: moved,
                    follows,
                } if moved == *field => Some(follows),
                _ => None,
            }
        });
        let follows = followed.next()?;
        if !declared || followed.any(|f| f != follows) {
            return None;
        }
        let declared = Resolved {
            field: field.clone(),
            resolved: true,
        };
        let only_cursor_stores =
            self.graph
                .methods
                .iter()
                .zip(&self.node_writes)
                .all(|(node, writes)| {
                    !writes.may_write_object_field(&declared)
                        || linking_field(self.java, &node.method).is_some_and(|(f, _)| f == *field)
                        || matches!(cursor_method(self.java, &node.method),
                        Some(CursorMethod::Advance { field: moved, .. }) if moved == *field)
                });
        only_cursor_stores.then(|| Cursor {
            field: field.clone(),
            follows,
        })
    }

    /// What entering `callee` does to a cursor: a linking constructor of one, its `hasNext()`
    /// or `next()`, or a factory returning a new one.
    fn call(&self, callee: &MethodRef) -> Option<CursorCall> {
        let create = |(field, start): (FieldRef, Start)| {
            Some(CursorCall::Create {
                start,
                cursor: self.cursor(&field)?,
            })
        };
        if &*callee.name == "<init>" {
            let (field, arg) = linking_field(self.java, callee)?;
            return create((field, Start::Argument(arg)));
        }
        match cursor_method(self.java, callee) {
            Some(CursorMethod::HasMore(field)) => Some(CursorCall::HasMore(self.cursor(&field)?)),
            Some(CursorMethod::Advance { field, .. }) => {
                Some(CursorCall::Advance(self.cursor(&field)?))
            }
            None => {
                let constructor = |call: &ir::Call| linking_field(self.java, &call.method);
                create(factory_start(self.java, callee, &constructor)?)
            }
        }
    }
}

/// The fields the call at `pc` of `method` tests on its receiver as a `hasNext()`: every
/// application method it may run returns non-zero only while its `this`'s field holds a node
/// ([`CursorMethod::HasMore`]), and an object has at most one of those fields (one field, or
/// each declared by a final class of its own). A JDK method it may run is left aside: its
/// receiver, of a JDK class, has none of the application's fields.
fn has_more_at(
    java: &Program,
    graph: &CallGraph,
    call_sites: &CallSites,
    method: &MethodRef,
    pc: u32,
) -> Vec<FieldRef> {
    let Some(node) = graph.node(method) else {
        return Vec::new();
    };
    if call_sites.is_unresolved(node, pc) {
        return Vec::new();
    }
    let mut fields: Vec<FieldRef> = Vec::new();
    for &callee in call_sites.entered(node, pc) {
        let callee = &graph.methods[callee];
        if java.origin(&callee.method.class) == Some(Origin::Jdk) {
            continue;
        }
        let tested = match (&callee.kind, cursor_method(java, &callee.method)) {
            (NodeKind::Code, Some(CursorMethod::HasMore(field))) => field,
            _ => return Vec::new(),
        };
        if !fields.contains(&tested) {
            fields.push(tested);
        }
    }
    let final_class = |field: &FieldRef| {
        java.class(&field.class)
            .is_ok_and(|class| class.access.is_final())
    };
    let one_each = fields.len() == 1
        || fields.iter().enumerate().all(|(i, field)| {
            final_class(field) && fields[..i].iter().all(|other| other.class != field.class)
        });
    if one_each { fields } else { Vec::new() }
}

/// What the call at `pc` of `method` does to a cursor, when it is resolved and every method it
/// may enter does the same.
fn cursor_call_at(
    writers: &CursorWriters<'_>,
    call_sites: &CallSites,
    method: &MethodRef,
    pc: u32,
) -> Option<CursorCall> {
    let node = writers.graph.node(method)?;
    let entered = call_sites.entered(node, pc);
    if call_sites.is_unresolved(node, pc) || entered.is_empty() {
        return None;
    }
    // Cursors are the program's own: the JDK's (and spec'd methods, whose code is never read)
    // are not looked at.
    let mut calls = entered.iter().map(|&callee| {
        let node = &writers.graph.methods[callee];
        let own_code = matches!(node.kind, NodeKind::Code)
            && writers.java.origin(&node.method.class) == Some(Origin::User);
        own_code.then(|| writers.call(&node.method)).flatten()
    });
    let first = calls.next()??;
    calls.all(|c| c.as_ref() == Some(&first)).then_some(first)
}

/// The field the call at `pc` of `method` returns from its receiver, when the call is resolved
/// and every method it may run is a getter of that field (`return this.f`).
fn getter_at(
    java: &Program,
    graph: &CallGraph,
    call_sites: &CallSites,
    method: &MethodRef,
    pc: u32,
) -> Option<FieldRef> {
    let node = graph.node(method)?;
    let entered = call_sites.entered(node, pc);
    if call_sites.is_unresolved(node, pc) || entered.is_empty() {
        return None;
    }
    let mut fields = entered
        .iter()
        .map(|&callee| getter_field(java, &graph.methods[callee].method));
    let first = fields.next()??;
    fields.all(|f| f.as_ref() == Some(&first)).then_some(first)
}

/// What the methods each call of `method` may enter may write (everything, for an unresolved
/// call), by the call's offset.
fn writes_per_call(
    graph: &CallGraph,
    call_sites: &CallSites,
    writes: &mut WriteIndex,
    method: &MethodRef,
) -> BTreeMap<u32, Writes> {
    let Some(node) = graph.node(method) else {
        return BTreeMap::new();
    };
    call_sites
        .offsets(node)
        .into_iter()
        .map(|pc| {
            let mut at = Writes {
                anything: call_sites.is_unresolved(node, pc),
                ..Writes::default()
            };
            for &callee in call_sites.entered(node, pc) {
                at.add(&writes.running(callee));
            }
            (pc, at)
        })
        .collect()
}

/// The field and argument of the constructor the call at `pc` of `method` runs, when the call
/// is resolved and it is a linking constructor (see [`linking_field`]).
fn linking_constructor_at(
    java: &Program,
    graph: &CallGraph,
    call_sites: &CallSites,
    method: &MethodRef,
    pc: u32,
) -> Option<(FieldRef, usize)> {
    let node = graph.node(method)?;
    match call_sites.entered(node, pc) {
        [callee] if !call_sites.is_unresolved(node, pc) => {
            linking_field(java, &graph.methods[*callee].method)
        }
        _ => None,
    }
}

/// A constructor that stores one of its parameters into a reference field of `this`
/// (`Node(int v, Node next) { this.value = v; this.next = next; }`): that field and the
/// parameter's index. Besides, it may only store integers into fields of `this` and call
/// `Object`'s constructor, so the field holds that argument when it returns and nothing else
/// it runs writes a reference.
fn linking_field(java: &Program, method: &MethodRef) -> Option<(FieldRef, usize)> {
    if &*method.name != "<init>" {
        return None;
    }
    let body = java.body(method).ok()?;
    let this = body
        .params
        .iter()
        .copied()
        .find(|&v| body.var(v).origin == ir::VarOrigin::This)?;
    let param_index = |var: ir::VarId| match body.var(var).origin {
        ir::VarOrigin::Param(index) => Some(usize::from(index)),
        _ => None,
    };
    let mut linked = None;
    for (_, stmt) in body.statements() {
        match &stmt.kind {
            StmtKind::Assign { .. } => {}
            StmtKind::Invoke { call, .. } => {
                let object_init = call.method.class.internal() == "java/lang/Object"
                    && &*call.method.name == "<init>";
                if !object_init || call.receiver != Some(Operand::Var(this)) {
                    return None;
                }
            }
            StmtKind::Store {
                place:
                    Place::Field {
                        object: Operand::Var(object),
                        field,
                    },
                value,
            } if *object == this => {
                if !matches!(field.ty, Type::Ref(_)) {
                    continue;
                }
                // One reference stored, a parameter's: the field's value when it returns.
                let index = match value {
                    Operand::Var(value) if !body.assigns(*value) => param_index(*value)?,
                    _ => return None,
                };
                if linked.is_some() {
                    return None;
                }
                linked = Some((field.clone(), index));
            }
            _ => return None,
        }
    }
    linked
}

/// The field a getter returns: a body that is `return this.f`, read through one variable.
fn getter_field(java: &Program, method: &MethodRef) -> Option<FieldRef> {
    let body = java.body(method).ok()?;
    let [block] = body.blocks.as_slice() else {
        return None;
    };
    let this = body
        .params
        .iter()
        .copied()
        .find(|&v| body.var(v).origin == ir::VarOrigin::This)?;
    let [stmt] = block.stmts.as_slice() else {
        return None;
    };
    match (&stmt.kind, &block.terminator) {
        (
            StmtKind::Assign {
                dst,
                value:
                    ir::Expr::Load(Place::Field {
                        object: Operand::Var(object),
                        field,
                    }),
            },
            ir::Terminator::Return(Some(Operand::Var(returned))),
        ) if *object == this && returned == dst => Some(field.clone()),
        _ => None,
    }
}

/// What each call-graph node's own code may write.
pub(super) fn node_writes(
    java: &Program,
    graph: &CallGraph,
    resolver: &mut Resolver<'_>,
) -> Vec<Writes> {
    let mut writes: Vec<Writes> = graph
        .methods
        .iter()
        .map(|node| match &node.kind {
            NodeKind::Code => code_writes(java, &node.method, resolver, &[]),
            // A spec states whether its method writes fields of the program; one that stores
            // into its arguments (or does not say) may store into an array of references.
            NodeKind::Spec(spec) => Writes {
                anything: spec.writes_fields,
                fields: match &spec.stores {
                    Some(stores) if stores.is_empty() => BTreeSet::new(),
                    _ => BTreeSet::from([(false, resolver.resolve(&array_elements()))]),
                },
                ..Writes::default()
            },
            NodeKind::Native if java.origin(&node.method.class) == Some(Origin::Jdk) => Writes {
                jdk_native: true,
                ..Writes::default()
            },
            NodeKind::Native | NodeKind::Abstract | NodeKind::Broken(_) => Writes {
                anything: true,
                ..Writes::default()
            },
        })
        .collect();
    for call in &graph.unresolved {
        writes[call.caller].anything = true;
    }
    writes
}

/// Each node's writes without its stores that write only objects created during its
/// activation: those that append a new node at the tail of a list it builds
/// ([`super::appends`]) and those into the cells of an array it created (`table[i] = node`,
/// `table` only ever set to a new array). They change nothing its callers (or the activations
/// below it) hold. The appends are proven with every write counted, the calls' own too.
fn without_fresh_writes(
    java: &Program,
    graph: &CallGraph,
    call_sites: &CallSites,
    node_writes: Vec<Writes>,
    resolver: &mut Resolver<'_>,
) -> Vec<Writes> {
    let mut index = WriteIndex::new(graph, node_writes.clone());
    let mut without = node_writes;
    for (node, method) in graph.methods.iter().enumerate() {
        let Ok(body) = java.body(&method.method) else {
            continue;
        };
        let fresh_cells = fresh_array_stores(&body);
        if !matches!(method.kind, NodeKind::Code)
            || (!has_appended_fields(&body) && fresh_cells.is_empty())
        {
            continue;
        }
        let per_call = writes_per_call(graph, call_sites, &mut index, &method.method);
        let resolving = std::cell::RefCell::new(&mut *resolver);
        let call_writes = |stmt: &ir::Stmt, field: &FieldRef| match per_call.get(&stmt.pc) {
            Some(writes) => {
                let field = resolving.borrow_mut().resolve(field);
                writes.anything || writes.may_write_object_field(&field)
            }
            None => matches!(stmt.kind, StmtKind::Invoke { .. }),
        };
        let skipped: Vec<u32> = (tail_appends(&body, &call_writes).appends)
            .iter()
            .map(|append| append.pc)
            .chain(fresh_cells)
            .collect();
        if !skipped.is_empty() {
            without[node] = code_writes(java, &method.method, resolver, &skipped);
        }
    }
    without
}

/// The offsets of the stores into the cells of an array the method created: through a local
/// every assignment of which is a new array.
fn fresh_array_stores(body: &ir::Body) -> Vec<u32> {
    let only_new_arrays = |array: ir::VarId| {
        let mut assignments = body.statements().filter(|(_, stmt)| stmt.assigns(array));
        !matches!(body.var(array).origin, ir::VarOrigin::Param(_))
            && assignments.all(|(_, stmt)| {
                matches!(
                    &stmt.kind,
                    StmtKind::Assign {
                        value: ir::Expr::NewArray { .. },
                        ..
                    }
                )
            })
    };
    body.statements()
        .filter_map(|(_, stmt)| match &stmt.kind {
            StmtKind::Store {
                place:
                    Place::ArrayElement {
                        array: Operand::Var(array),
                        ..
                    },
                ..
            } if only_new_arrays(*array) => Some(stmt.pc),
            _ => None,
        })
        .collect()
}

/// What a method's own code may write, but its stores at the offsets `skipped`.
fn code_writes(
    java: &Program,
    method: &MethodRef,
    resolver: &mut Resolver<'_>,
    skipped: &[u32],
) -> Writes {
    let Ok(body) = java.body(method) else {
        return Writes {
            anything: true,
            ..Writes::default()
        };
    };
    let mut writes = Writes::default();
    for (_, stmt) in body.statements() {
        match &stmt.kind {
            StmtKind::Store { .. } if skipped.contains(&stmt.pc) => {}
            StmtKind::Store { place, .. } => {
                let elements;
                let (is_static, field) = match place {
                    Place::Static(field) => (true, field),
                    Place::Field { field, .. } => (false, field),
                    // A reference array's element: a tree over an array field needs none.
                    Place::ArrayElement { array, .. } if stores_reference(&body, array) => {
                        elements = array_elements();
                        (false, &elements)
                    }
                    Place::ArrayElement { .. } => continue,
                };
                // Reference fields too: a walk along one needs every write seen.
                let resolved = resolver.resolve(field);
                // A class initializer's writes to its own static fields happen before anything
                // else can read them (see the module documentation).
                let own_initializer = is_static
                    && method.name.as_ref() == "<clinit>"
                    && resolved.resolved
                    && resolved.field.class == method.class;
                if !own_initializer {
                    writes.fields.insert((is_static, resolved));
                }
            }
            StmtKind::Invoke { call, .. } => {
                // A concatenation runs its object arguments' `toString`, which the call graph
                // does not follow.
                if let CallKind::Dynamic(DynamicCall::StringConcat { .. }) = &call.kind
                    && call.method.parsed_descriptor().map_or(true, |d| {
                        d.params.iter().any(|p| {
                            matches!(p, Type::Ref(c) if c.internal() != "java/lang/String")
                                || matches!(p, Type::Array(_))
                        })
                    })
                {
                    writes.anything = true;
                }
            }
            _ => {}
        }
    }
    writes
}

/// Whether a store into `array` may store a reference: its array's elements are not primitive
/// (or its type is not known).
pub(super) fn stores_reference(body: &ir::Body, array: &Operand) -> bool {
    match array {
        Operand::Var(var) => match &body.var(*var).ty {
            Type::Array(element) => matches!(**element, Type::Ref(_) | Type::Array(_)),
            _ => true,
        },
        Operand::Const(_) => false,
    }
}

/// What running a call-graph node may write: its own code and everything it reaches,
/// computed once per node asked for.
struct WriteIndex {
    successors: Vec<Vec<usize>>,
    nodes: Vec<Writes>,
    running: HashMap<usize, Writes>,
}

impl WriteIndex {
    fn new(graph: &CallGraph, nodes: Vec<Writes>) -> WriteIndex {
        let mut successors: Vec<Vec<usize>> = vec![Vec::new(); graph.methods.len()];
        for edge in &graph.edges {
            successors[edge.caller].push(edge.callee);
        }
        WriteIndex {
            successors,
            nodes,
            running: HashMap::new(),
        }
    }

    /// The writes of every node reachable from `method` through at least one call (its own
    /// body counts only when a call leads back to it), and unseen code when the method itself
    /// has unresolved calls.
    fn through_calls(&mut self, graph: &CallGraph, method: &MethodRef) -> Writes {
        let Some(start) = graph.node(method) else {
            return Writes {
                anything: true,
                ..Writes::default()
            };
        };
        let mut total = Writes {
            anything: self.nodes[start].anything,
            ..Writes::default()
        };
        total.add(&self.reach(self.successors[start].clone()));
        total
    }

    /// The writes of running `node`: its own and those of everything it reaches.
    fn running(&mut self, node: usize) -> Writes {
        if let Some(known) = self.running.get(&node) {
            return known.clone();
        }
        let writes = self.reach(vec![node]);
        self.running.insert(node, writes.clone());
        writes
    }

    /// The union of the writes of the nodes reachable from `starts` (included).
    fn reach(&self, starts: Vec<usize>) -> Writes {
        let mut total = Writes::default();
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = starts;
        while let Some(node) = stack.pop() {
            if std::mem::replace(&mut seen[node], true) {
                continue;
            }
            total.add(&self.nodes[node]);
            stack.extend(&self.successors[node]);
        }
        total
    }
}

//! The lengths of the `StringBuilder`s a method creates and keeps to itself: the text
//! `new StringBuilder().append("offset ").append(offset).toString()` makes is as long as what was
//! appended, so the array its `toString()` copies it into has a bound (the JDK's own classes
//! build their exception messages this way).
//!
//! Per `new StringBuilder` site the lowering keeps one length, set by the constructor and moved
//! by the appends on the site's newest builder. Which local holds that builder at each call is a
//! must-alias fact of this module (javac's stack temporaries hold the builder an `append`
//! returns, and are reused for other builders elsewhere in the method): a local holds the site's
//! builder when it was set to the `new` or to what a builder method returning its receiver
//! returned on it since, and a later `new` at the site takes it back. A site is followed only
//! while its builders stay the method's own: one handed to a call as an argument or stored
//! anywhere is not followed at all (another method may append to it). A call on a builder the
//! facts cannot place (a local two sites' builders reach at a join) forgets the lengths of every
//! site whose builders it may hold, unless it reads only.
//!
//! It knows nothing of the numeric program: [`super::body`] turns the effects into actions.

use std::collections::{BTreeMap, HashMap, HashSet};

use membound_front::ir::{self, CallKind, Const, Operand, StmtKind, VarId};
use membound_jvm::{MethodRef, Type};

const BUILDER: &str = "java/lang/StringBuilder";

/// What a builder's new length or its growth is, from the call's operands: a constant plus
/// measures of arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Amount {
    pub constant: i64,
    pub terms: Vec<(i64, Measure)>,
}

impl Amount {
    fn constant(constant: i64) -> Self {
        Amount {
            constant,
            terms: Vec::new(),
        }
    }

    fn of(measure: Measure) -> Self {
        Amount {
            constant: 0,
            terms: vec![(1, measure)],
        }
    }

    fn plus(mut self, constant: i64) -> Self {
        self.constant += constant;
        self
    }

    fn negated(self) -> Self {
        Amount {
            constant: -self.constant,
            terms: self.terms.into_iter().map(|(c, m)| (-c, m)).collect(),
        }
    }
}

/// An argument's measure (by its index among the call's arguments).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// An integer argument's value.
    Value(usize),
    /// A `String` argument's length (a literal's, or its view).
    StringLength(usize),
    /// An array argument's length.
    ArrayLength(usize),
}

/// What a call does to the length of one site's builder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// The receiver is the site's builder; its length becomes the amount (a constructor,
    /// `setLength`).
    Set { site: usize, length: Amount },
    /// The receiver is the site's builder; its length grows by at least `least` and at most
    /// `most` (an `append` of an `int` adds 1 to 11 chars, of a string that may be null its
    /// length or the 4 of "null").
    Grow {
        site: usize,
        least: Amount,
        most: Amount,
    },
    /// The receiver is the site's builder, whose length the call reads (`toString`, `length`).
    Read { site: usize },
    /// The call may change the site's builder in a way not followed.
    Forget { site: usize },
}

/// The followed sites and, by call offset, what each call does to their lengths.
#[derive(Clone, Debug, Default)]
pub struct Builders {
    /// The offsets of the followed `new StringBuilder` sites, each with a length of its own.
    pub sites: Vec<u32>,
    pub effects: HashMap<u32, Vec<Effect>>,
}

impl Builders {
    /// The site whose builder's length the call at `pc` reads, if it reads one it knows.
    pub fn read_at(&self, pc: u32) -> Option<usize> {
        self.effects
            .get(&pc)?
            .iter()
            .find_map(|effect| match effect {
                Effect::Read { site } => Some(*site),
                _ => None,
            })
    }

    /// Whether the call at `pc` sets or moves a followed builder's length.
    pub fn moves_length_at(&self, pc: u32) -> bool {
        self.effects.get(&pc).is_some_and(|effects| {
            effects
                .iter()
                .any(|e| matches!(e, Effect::Set { .. } | Effect::Grow { .. }))
        })
    }
}

/// The builders of `body` and what its calls do to their lengths.
pub fn builders(body: &ir::Body) -> Builders {
    let (sites, may_hold): (Vec<u32>, Vec<HashSet<VarId>>) = new_builder_sites(body)
        .into_iter()
        .map(|pc| (pc, locals_reached(body, pc)))
        .filter(|(_, locals)| !escapes(body, locals))
        .unzip();
    if sites.is_empty() {
        return Builders::default();
    }
    let entries = must_hold_at_entries(body, &sites);
    let mut effects = HashMap::new();
    for (block, entry) in entries.iter().enumerate() {
        let Some(entry) = entry else { continue };
        let mut holds = entry.clone();
        for stmt in &body.blocks[block].stmts {
            if let StmtKind::Invoke { call, .. } = &stmt.kind {
                let found = call_effects(call, &holds, &may_hold);
                if !found.is_empty() {
                    effects.insert(stmt.pc, found);
                }
            }
            transfer(&mut holds, stmt, &sites);
        }
    }
    Builders { sites, effects }
}

/// The offsets of the method's `new StringBuilder` statements.
fn new_builder_sites(body: &ir::Body) -> Vec<u32> {
    body.statements()
        .filter_map(|(_, stmt)| match &stmt.kind {
            StmtKind::Assign {
                value: ir::Expr::New(class),
                ..
            } if class.internal() == BUILDER => Some(stmt.pc),
            _ => None,
        })
        .collect()
}

/// The locals that may hold a builder made at `site`: its `new`'s, and those set to one of
/// them or to what a builder method returning its receiver returns on one.
fn locals_reached(body: &ir::Body, site: u32) -> HashSet<VarId> {
    let mut reached = HashSet::new();
    let mut changed = true;
    while changed {
        changed = false;
        for (_, stmt) in body.statements() {
            let from = match &stmt.kind {
                StmtKind::Assign {
                    dst,
                    value: ir::Expr::New(_),
                } => (stmt.pc == site).then_some(*dst),
                StmtKind::Assign {
                    dst,
                    value:
                        ir::Expr::Use(Operand::Var(source))
                        | ir::Expr::CheckCast(Operand::Var(source), _),
                } => reached.contains(source).then_some(*dst),
                StmtKind::Invoke {
                    dst: Some(dst),
                    call,
                } => (returns_receiver(&call.method)
                    && matches!(call.receiver, Some(Operand::Var(r)) if reached.contains(&r)))
                .then_some(*dst),
                _ => None,
            };
            if let Some(local) = from {
                changed |= reached.insert(local);
            }
        }
    }
    reached
}

/// Whether a builder one of `locals` holds may be reached by code other than the method's calls
/// on it: handed to a call as an argument (a lambda capturing it too), or stored.
fn escapes(body: &ir::Body, locals: &HashSet<VarId>) -> bool {
    let held = |operand: &Operand| matches!(operand, Operand::Var(v) if locals.contains(v));
    body.statements().any(|(_, stmt)| match &stmt.kind {
        StmtKind::Invoke { call, .. } => call.args.iter().any(held),
        StmtKind::Store { value, .. } => held(value),
        StmtKind::Assign { .. } | StmtKind::Monitor { .. } => false,
    })
}

/// Per block, which locals hold which followed site's newest builder at its start (`None`:
/// not reached yet). A handler starts knowing nothing.
fn must_hold_at_entries(body: &ir::Body, sites: &[u32]) -> Vec<Option<BTreeMap<VarId, usize>>> {
    let mut entries: Vec<Option<BTreeMap<VarId, usize>>> = vec![None; body.blocks.len()];
    if entries.is_empty() {
        return entries;
    }
    entries[0] = Some(BTreeMap::new());
    let mut work: Vec<usize> = vec![0];
    while let Some(block) = work.pop() {
        let Some(entry) = entries[block].clone() else {
            continue;
        };
        let mut holds = entry;
        for stmt in &body.blocks[block].stmts {
            transfer(&mut holds, stmt, sites);
        }
        let handlers = body.blocks[block]
            .handlers
            .iter()
            .map(|h| (h.target, BTreeMap::new()));
        let successors = body.blocks[block]
            .terminator
            .successors()
            .into_iter()
            .map(|target| (target, holds.clone()));
        for (target, state) in successors.chain(handlers) {
            let target = target.0 as usize;
            let joined = match &entries[target] {
                None => state,
                Some(old) => old
                    .iter()
                    .filter(|(var, site)| state.get(var) == Some(site))
                    .map(|(&var, &site)| (var, site))
                    .collect(),
            };
            if entries[target].as_ref() != Some(&joined) {
                entries[target] = Some(joined);
                work.push(target);
            }
        }
    }
    entries
}

/// What `stmt` does to the must-hold facts.
fn transfer(holds: &mut BTreeMap<VarId, usize>, stmt: &ir::Stmt, sites: &[u32]) {
    match &stmt.kind {
        StmtKind::Assign { dst, value } => {
            let held = match value {
                ir::Expr::New(_) => {
                    let site = sites.iter().position(|&pc| pc == stmt.pc);
                    if let Some(site) = site {
                        holds.retain(|_, held| *held != site);
                    }
                    site
                }
                ir::Expr::Use(Operand::Var(source))
                | ir::Expr::CheckCast(Operand::Var(source), _) => holds.get(source).copied(),
                _ => None,
            };
            set(holds, *dst, held);
        }
        StmtKind::Invoke {
            dst: Some(dst),
            call,
        } => {
            let held = match call.receiver {
                Some(Operand::Var(receiver)) if returns_receiver(&call.method) => {
                    holds.get(&receiver).copied()
                }
                _ => None,
            };
            set(holds, *dst, held);
        }
        StmtKind::Invoke { dst: None, .. } | StmtKind::Store { .. } | StmtKind::Monitor { .. } => {}
    }
}

fn set(holds: &mut BTreeMap<VarId, usize>, var: VarId, held: Option<usize>) {
    match held {
        Some(site) => holds.insert(var, site),
        None => holds.remove(&var),
    };
}

/// What `call` does to the followed lengths, given which locals hold which site's builder.
fn call_effects(
    call: &ir::Call,
    holds: &BTreeMap<VarId, usize>,
    may_hold: &[HashSet<VarId>],
) -> Vec<Effect> {
    let Some(Operand::Var(receiver)) = call.receiver else {
        return Vec::new();
    };
    let is_builder_method =
        call.method.class.internal() == BUILDER && !matches!(call.kind, CallKind::Dynamic(_));
    let change = if is_builder_method {
        change_of(call)
    } else {
        Change::Unknown
    };
    let mut effects = Vec::new();
    for (site, locals) in may_hold.iter().enumerate() {
        if !locals.contains(&receiver) {
            continue;
        }
        let effect = match (holds.get(&receiver) == Some(&site), change.clone()) {
            (_, Change::None) => None,
            (true, Change::Set(length)) => Some(Effect::Set { site, length }),
            (true, Change::Grow(least, most)) => Some(Effect::Grow { site, least, most }),
            (true, Change::Read) => Some(Effect::Read { site }),
            (false, Change::Read) => None,
            (_, _) => Some(Effect::Forget { site }),
        };
        effects.extend(effect);
    }
    effects
}

/// What a `StringBuilder` method does to its receiver's length.
#[derive(Clone)]
enum Change {
    None,
    Read,
    Set(Amount),
    Grow(Amount, Amount),
    Unknown,
}

/// The change a call of `StringBuilder`'s makes, by its name and descriptor (Latin-1 or not,
/// lengths count chars). A string argument may be null, which appends "null".
fn change_of(call: &ir::Call) -> Change {
    let literal =
        |index: usize| matches!(call.args.get(index), Some(Operand::Const(Const::String(_))));
    let string = |index: usize| {
        let length = Amount::of(Measure::StringLength(index));
        let most = if literal(index) {
            length.clone()
        } else {
            length.clone().plus(4)
        };
        Change::Grow(length, most)
    };
    let chars =
        |least: i64, most: i64| Change::Grow(Amount::constant(least), Amount::constant(most));
    match (&*call.method.name, &*call.method.descriptor) {
        ("<init>", "()V") | ("<init>", "(I)V") => Change::Set(Amount::constant(0)),
        ("<init>", "(Ljava/lang/String;)V") => Change::Set(Amount::of(Measure::StringLength(0))),
        ("append", "(Ljava/lang/String;)Ljava/lang/StringBuilder;") => string(0),
        ("append", "(C)Ljava/lang/StringBuilder;") => chars(1, 1),
        // Integer.toString's longest: "-2147483648"; Long's "-9223372036854775808".
        ("append", "(I)Ljava/lang/StringBuilder;") => chars(1, 11),
        ("append", "(J)Ljava/lang/StringBuilder;") => chars(1, 20),
        ("append", "(Z)Ljava/lang/StringBuilder;") => chars(4, 5),
        ("append", "([C)Ljava/lang/StringBuilder;") => {
            let length = Amount::of(Measure::ArrayLength(0));
            Change::Grow(length.clone(), length)
        }
        ("append", "([CII)Ljava/lang/StringBuilder;") => {
            let count = Amount::of(Measure::Value(2));
            Change::Grow(count.clone(), count)
        }
        ("append", "(Ljava/lang/CharSequence;II)Ljava/lang/StringBuilder;") => {
            let count = Amount {
                constant: 0,
                terms: vec![(1, Measure::Value(2)), (-1, Measure::Value(1))],
            };
            Change::Grow(count.clone(), count)
        }
        ("insert", "(IC)Ljava/lang/StringBuilder;") => chars(1, 1),
        ("insert", "(II)Ljava/lang/StringBuilder;") => chars(1, 11),
        ("insert", "(ILjava/lang/String;)Ljava/lang/StringBuilder;") => string(1),
        ("deleteCharAt", "(I)Ljava/lang/StringBuilder;") => chars(-1, -1),
        // `end` past the length removes up to the length: at most `end - start` chars.
        ("delete", "(II)Ljava/lang/StringBuilder;") => {
            let removed = Amount {
                constant: 0,
                terms: vec![(1, Measure::Value(1)), (-1, Measure::Value(0))],
            };
            Change::Grow(removed.negated(), Amount::constant(0))
        }
        ("setLength", "(I)V") => Change::Set(Amount::of(Measure::Value(0))),
        ("toString", "()Ljava/lang/String;") | ("length", "()I") => Change::Read,
        ("reverse", "()Ljava/lang/StringBuilder;")
        | ("setCharAt", "(IC)V")
        | ("charAt", "(I)C")
        | ("capacity", "()I")
        | ("indexOf", "(Ljava/lang/String;)I")
        | ("lastIndexOf", "(Ljava/lang/String;)I")
        | ("substring", "(I)Ljava/lang/String;")
        | ("substring", "(II)Ljava/lang/String;")
        | ("ensureCapacity", "(I)V")
        | ("trimToSize", "()V") => Change::None,
        _ => Change::Unknown,
    }
}

/// Whether a `StringBuilder` method returns its receiver (every `append`, `insert`, `delete`,
/// `replace` and `reverse`).
fn returns_receiver(method: &MethodRef) -> bool {
    method.class.internal() == BUILDER
        && method
            .parsed_descriptor()
            .is_ok_and(|d| matches!(&d.ret, Some(Type::Ref(class)) if class.internal() == BUILDER))
}

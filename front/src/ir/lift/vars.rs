//! The variables of a lifted body: which local slot or stack entry each stands for, its name
//! and its type.
//!
//! A local slot gives one variable per kind of value stored in it (a slot reused for an `int`
//! and later for a reference is two variables); a stack entry gives one variable per depth and
//! kind, and for references per exact type, so `$s0` holding a `StringBuilder` and `$s0`
//! holding an `Integer` elsewhere are different variables. Names come from the
//! LocalVariableTable when it names a slot consistently, otherwise they are made up (`this`,
//! `p0`, `l3`, `$s0`). Types come from the LocalVariableTable, else from the values assigned.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::decode::Kind;
use super::state::Abs;
use crate::classfile::LocalVariable;
use crate::ir::{Var, VarId, VarOrigin};
use membound_jvm::Type;

/// What a variable stands for in the bytecode.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Local(u16, Kind),
    /// Depth from the bottom and, for references, the exact type (else `None`).
    Stack(u16, Kind, Option<Type>),
}

struct Info {
    key: Key,
    origin: VarOrigin,
    /// Join of everything assigned (and the declared type of a parameter).
    assigned: Option<Abs>,
}

/// The variables created so far, found by what they stand for.
pub(super) struct Vars<'a> {
    local_variable_table: &'a [LocalVariable],
    infos: Vec<Info>,
    by_key: HashMap<Key, VarId>,
}

impl<'a> Vars<'a> {
    pub(super) fn new(local_variable_table: &'a [LocalVariable]) -> Self {
        Vars {
            local_variable_table,
            infos: Vec::new(),
            by_key: HashMap::new(),
        }
    }

    /// The variable of a parameter (or `this`) in its slot, typed as declared.
    pub(super) fn parameter(&mut self, slot: u16, value: &Abs, origin: VarOrigin) -> VarId {
        let kind = value.kind().unwrap_or(Kind::Ref);
        let id = self.get(Key::Local(slot, kind), origin);
        self.assigned(id, value);
        id
    }

    /// The variable of local slot `slot` holding a value of `kind`.
    pub(super) fn local(&mut self, slot: u16, kind: Kind) -> VarId {
        self.get(Key::Local(slot, kind), VarOrigin::Local(slot))
    }

    /// The variable of the stack entry at `depth` holding `value`.
    pub(super) fn stack(&mut self, depth: u16, value: &Abs) -> VarId {
        let kind = value.kind().unwrap_or(Kind::Ref);
        let exact = (kind == Kind::Ref).then(|| value.ir_type());
        self.get(Key::Stack(depth, kind, exact), VarOrigin::Stack(depth))
    }

    /// Records that `value` is assigned to `id`, widening its type.
    pub(super) fn assigned(&mut self, id: VarId, value: &Abs) {
        if let Some(info) = self.infos.get_mut(id.0 as usize) {
            info.assigned = match &info.assigned {
                None => Some(value.clone()),
                Some(previous) => Some(previous.join(value).unwrap_or_else(|| previous.clone())),
            };
        }
    }

    /// The stack depth a variable stands for, if it is a stack variable.
    pub(super) fn stack_depth(&self, id: VarId) -> Option<u16> {
        match self.infos.get(id.0 as usize)?.key {
            Key::Stack(depth, _, _) => Some(depth),
            Key::Local(..) => None,
        }
    }

    /// What has been assigned to a variable so far.
    pub(super) fn value(&self, id: VarId) -> Abs {
        match self.infos.get(id.0 as usize) {
            Some(info) => info
                .assigned
                .clone()
                .unwrap_or_else(|| Abs::of(&default_type(&info.key))),
            None => Abs::object(),
        }
    }

    fn get(&mut self, key: Key, origin: VarOrigin) -> VarId {
        if let Some(id) = self.by_key.get(&key) {
            return *id;
        }
        let id = VarId(self.infos.len() as u32);
        self.by_key.insert(key.clone(), id);
        self.infos.push(Info {
            key,
            origin,
            assigned: None,
        });
        id
    }

    /// The finished variables, named and typed, each name used once.
    pub(super) fn finish(self) -> Vec<Var> {
        let mut used = HashSet::new();
        let mut vars = Vec::with_capacity(self.infos.len());
        for info in &self.infos {
            let (name, declared) = match &info.key {
                Key::Local(slot, kind) => self.local_name_and_type(*slot, *kind, info.origin),
                Key::Stack(depth, _, exact) => (stack_name(*depth, &used), exact.clone()),
            };
            let ty = declared
                .or_else(|| info.assigned.as_ref().map(Abs::ir_type))
                .unwrap_or_else(|| default_type(&info.key));
            vars.push(Var {
                name: unique(name, &mut used),
                ty,
                origin: info.origin,
            });
        }
        vars
    }

    /// The name and type the LocalVariableTable gives the slot for values of this kind, when
    /// all its entries agree; otherwise a made-up name and no type.
    fn local_name_and_type(
        &self,
        slot: u16,
        kind: Kind,
        origin: VarOrigin,
    ) -> (String, Option<Type>) {
        let entries: Vec<(&Arc<str>, Type)> = self
            .local_variable_table
            .iter()
            .filter(|entry| entry.slot == slot)
            .filter_map(|entry| Some((&entry.name, Type::parse(&entry.descriptor).ok()?)))
            .filter(|(_, ty)| Abs::of(ty).kind() == Some(kind))
            .collect();
        let made_up = match origin {
            VarOrigin::This => "this".to_string(),
            VarOrigin::Param(index) => format!("p{index}"),
            _ => format!("l{slot}"),
        };
        let Some((first_name, first_type)) = entries.first() else {
            return (made_up, None);
        };
        let name = if entries.iter().all(|(name, _)| name == first_name) {
            first_name.to_string()
        } else {
            made_up
        };
        let ty = entries
            .iter()
            .all(|(_, ty)| ty == first_type)
            .then(|| first_type.clone());
        (name, ty)
    }
}

/// `$s0` for the first variable of stack depth 0, then `$s0_1`, `$s0_2`…
fn stack_name(depth: u16, used: &HashSet<String>) -> String {
    let base = format!("$s{depth}");
    if !used.contains(&base) {
        return base;
    }
    (1..)
        .map(|k| format!("$s{depth}_{k}"))
        .find(|name| !used.contains(name))
        .unwrap_or(base)
}

/// `name`, or `name#2`, `name#3`… when taken.
fn unique(name: String, used: &mut HashSet<String>) -> Arc<str> {
    let mut candidate = name.clone();
    let mut n = 2;
    while used.contains(&candidate) {
        candidate = format!("{name}#{n}");
        n += 1;
    }
    used.insert(candidate.clone());
    Arc::from(candidate)
}

fn default_type(key: &Key) -> Type {
    let kind = match key {
        Key::Local(_, kind) | Key::Stack(_, kind, _) => *kind,
    };
    match kind {
        Kind::Int => Type::Int,
        Kind::Long => Type::Long,
        Kind::Float => Type::Float,
        Kind::Double => Type::Double,
        Kind::Ref => Type::Ref(membound_jvm::ClassName::object()),
    }
}

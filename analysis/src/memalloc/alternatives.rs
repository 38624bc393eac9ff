//! Alternative targets of one call: a virtual call runs one of its possible targets per
//! execution, but a method's total sums the chains through every target, which counts each
//! execution once per target (six iterator classes for one `c.iterator()`).
//!
//! When every target allocates at most a constant per call (objects and bytes apart), each
//! execution allocates at most the largest constant, so the call contributes its number of
//! executions times that constant instead. With targets whose allocation depends on their
//! arguments no such bound is taken: the maximum of the per-target totals can be below what a
//! run allocates when different executions pick different targets (each execution's own
//! maximum would have to be summed), so those chains are summed as before.
//!
//! It changes totals only: per-site counts, regions and memRq stay per chain.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use membound_polyhedra::Rat;

use super::quantity::{Quantity, count_quantity, scaled_sum};
use super::{Amount, MethodBound, SiteBound};
use crate::lowering::Lowered;
use crate::sites::Sites;
use membound_jvm::MethodRef;

/// The objects and bytes a method allocates per call when they do not depend on anything.
pub fn constant_per_call(bound: &MethodBound) -> Option<(Rat, Rat)> {
    let constant = |quantity: &Quantity| {
        if !quantity.params().is_empty() || quantity.may_be_infinite() {
            return None;
        }
        match quantity.eval(&BTreeMap::new()).ok()? {
            membound_polyhedra::Value::Finite(value) => Some(value),
            membound_polyhedra::Value::Infinite => None,
        }
    };
    Some((
        constant(&bound.mem_alloc.objects)?,
        constant(&bound.mem_alloc.bytes)?,
    ))
}

/// `bound`'s total with each call whose several targets allocate constants per call counted
/// once per execution, at the largest constant; `per_call` holds the methods that allocate a
/// constant. The total is unchanged when no call qualifies or a call's executions cannot be
/// counted.
pub fn total(
    lowered: &Lowered,
    sites: &Sites,
    bound: &MethodBound,
    per_call: &HashMap<MethodRef, (Rat, Rat)>,
) -> Amount {
    let mut targets: BTreeMap<u32, BTreeSet<&MethodRef>> = BTreeMap::new();
    for site in &bound.sites {
        if let Some((pc, target)) = alternative(site) {
            targets.entry(pc).or_default().insert(target);
        }
    }
    let mut objects = Vec::new();
    let mut bytes = Vec::new();
    let mut grouped: BTreeSet<u32> = BTreeSet::new();
    for (pc, targets) in targets {
        let constants: Option<Vec<&(Rat, Rat)>> =
            targets.iter().map(|t| per_call.get(*t)).collect();
        let Some(constants) = constants.filter(|_| targets.len() >= 2) else {
            continue;
        };
        let Some(executions) = executions(lowered, sites, bound, pc) else {
            continue;
        };
        let largest = |pick: fn(&(Rat, Rat)) -> &Rat| {
            constants
                .iter()
                .map(|c| pick(c).clone())
                .max()
                .unwrap_or_else(Rat::zero)
        };
        objects.push((largest(|c| &c.0), executions.clone()));
        bytes.push((largest(|c| &c.1), executions));
        grouped.insert(pc);
    }
    if grouped.is_empty() {
        return bound.mem_alloc.clone();
    }
    for site in &bound.sites {
        if alternative(site).is_some_and(|(pc, _)| grouped.contains(&pc)) {
            continue;
        }
        objects.push((Rat::from(1), site.amount.objects.clone()));
        bytes.push((Rat::from(1), site.amount.bytes.clone()));
    }
    Amount {
        objects: scaled_sum(objects),
        bytes: scaled_sum(bytes),
    }
}

/// The call (its offset in the method) and the target a site's chain goes through, when the
/// chain leaves the method by a call that is not a class initialization (which runs besides the
/// called method, not instead of it).
fn alternative(site: &SiteBound) -> Option<(u32, &MethodRef)> {
    match site.chain.as_slice() {
        [call, next, ..] if next.method.name.as_ref() != "<clinit>" => {
            Some((call.pc, &next.method))
        }
        _ => None,
    }
}

/// How often the call at `pc` runs per call of the method, from the invariant at the call.
fn executions(lowered: &Lowered, sites: &Sites, bound: &MethodBound, pc: u32) -> Option<Quantity> {
    let site = bound
        .sites
        .iter()
        .find(|s| alternative(s).is_some_and(|(at, _)| at == pc))?;
    let full = &sites.sites[site.site];
    let from = full.chain.len() - site.chain.len();
    let invariant = lowered.call_invariant(full, from).ok()?;
    count_quantity(&invariant.to_set()).ok()
}

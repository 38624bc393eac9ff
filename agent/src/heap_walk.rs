//! What one heap walk records, and the tags that make objects recognisable across walks. This
//! is the part of heap mode that runs inside `FollowReferences`' callback, at a safepoint,
//! where no JVMTI or JNI function may be called: it only reads the callback's arguments and
//! sets tags.
//!
//! # Tags
//!
//! A class object's tag has the top bit set and the agent's class number below. An object's
//! tag packs, from the top: its serial number (31 bits, 0 until its first walk), its allocation
//! site + 1 (24 bits, 0 when unknown: set at allocation) and the number of the last walk that
//! saw it (8 bits). Serial and site together are the object's identity in the snapshot file:
//! JVMTI keeps tags on objects the collector moves, so an identity names the same object in
//! every snapshot of a run.

use crate::ffi;
use crate::jvmti::HeapReference;
use std::sync::atomic::{AtomicU64, Ordering};

const CLASS_BIT: i64 = i64::MIN;
const EPOCH_BITS: u32 = 8;
const SITE_BITS: u32 = 24;
/// Sites beyond this many are recorded as unknown.
pub const MAX_SITES: u32 = (1 << SITE_BITS) - 2;
/// Walks are numbered 1..=MAX_WALKS (a number is never reused, so "seen in this walk" is exact).
pub const MAX_WALKS: u32 = (1 << EPOCH_BITS) - 1;

/// The tag of the class numbered `class`.
pub fn class_tag(class: u32) -> i64 {
    CLASS_BIT | i64::from(class)
}

/// The class number of a class tag; None for an object's tag or no tag.
pub fn class_of_tag(tag: i64) -> Option<u32> {
    (tag < 0).then_some((tag & 0x7fff_ffff) as u32)
}

/// The tag given at allocation: the site, no serial, never walked.
pub fn allocation_tag(site: Option<u32>) -> i64 {
    let site = site.filter(|&s| s <= MAX_SITES).map_or(0, |s| s + 1);
    i64::from(site) << EPOCH_BITS
}

/// An object's identity in the file: its tag without the walk number.
pub fn identity(tag: i64) -> u64 {
    (tag as u64) >> EPOCH_BITS
}

/// The allocation site packed in an identity.
pub fn site_of(identity: u64) -> Option<u32> {
    let site = (identity & ((1 << SITE_BITS) - 1)) as u32;
    site.checked_sub(1)
}

fn serial_of(tag: i64) -> u64 {
    (tag as u64) >> (EPOCH_BITS + SITE_BITS)
}

fn walk_of(tag: i64) -> u32 {
    (tag as u64 & ((1 << EPOCH_BITS) - 1)) as u32
}

/// What holds a root, to be named after the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    Nothing,
    /// A frame of this method (a `jmethodID` address).
    Method(usize),
    /// A class (its number): its static field `index`, or (None) its loader, constants, ….
    Class(u32, Option<i32>),
}

/// An object seen by the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    pub identity: u64,
    /// None when the object's class was loaded after the walk's classes were numbered.
    pub class: Option<u32>,
    pub size: i64,
    /// An array's length.
    pub length: Option<i32>,
}

/// Everything one walk saw.
#[derive(Debug, Default)]
pub struct WalkRecord {
    pub objects: Vec<Seen>,
    /// (from, to, class of the referrer, JVMTI field index).
    pub fields: Vec<(u64, u64, u32, i32)>,
    /// (from, to, element index).
    pub elements: Vec<(u64, u64, i32)>,
    /// (root kind as the file names it, to, holder).
    pub roots: Vec<(&'static str, u64, Holder)>,
}

/// The visitor of one walk.
pub struct Walker<'a> {
    walk: u32,
    next_serial: &'a AtomicU64,
    pub record: WalkRecord,
}

impl<'a> Walker<'a> {
    /// The walk numbered `walk` (1..=MAX_WALKS); serial numbers come from `next_serial`.
    pub fn new(walk: u32, next_serial: &'a AtomicU64) -> Walker<'a> {
        Walker {
            walk,
            next_serial,
            record: WalkRecord::default(),
        }
    }

    /// Records one reference; returns the referee's new tag.
    pub fn visit(&mut self, reference: &HeapReference) -> Option<i64> {
        if class_of_tag(reference.tag).is_some() {
            // A class object: not an object of the snapshot. Its statics are reported as
            // references from it, and named then.
            return None;
        }
        let mut tag = reference.tag;
        if serial_of(tag) == 0 {
            let serial = self.next_serial.fetch_add(1, Ordering::Relaxed);
            tag |= (serial << (EPOCH_BITS + SITE_BITS)) as i64;
        }
        if walk_of(tag) != self.walk {
            tag = (tag & !((1 << EPOCH_BITS) - 1)) | i64::from(self.walk);
            self.record.objects.push(Seen {
                identity: identity(tag),
                class: class_of_tag(reference.class_tag),
                size: reference.size,
                length: (reference.length >= 0).then_some(reference.length),
            });
        }
        self.record_reference(reference, identity(tag));
        (tag != reference.tag).then_some(tag)
    }

    fn record_reference(&mut self, reference: &HeapReference, to: u64) {
        let from = reference.referrer_tag;
        let from_class = from.and_then(class_of_tag);
        let root = |kind| Some((kind, Holder::Nothing));
        let entry = match (reference.kind, from, from_class) {
            (ffi::REFERENCE_FIELD, Some(from), None) => {
                if let Some(class) = class_of_tag(reference.referrer_class_tag) {
                    let field = (identity(from), to, class, reference.index);
                    self.record.fields.push(field);
                }
                None
            }
            (ffi::REFERENCE_ARRAY_ELEMENT, Some(from), None) => {
                let element = (identity(from), to, reference.index);
                self.record.elements.push(element);
                None
            }
            (ffi::REFERENCE_STATIC_FIELD, _, Some(class)) => {
                Some(("static", Holder::Class(class, Some(reference.index))))
            }
            // Loader, signers, protection domain, constants of a class: held by the JVM.
            (_, _, Some(class)) => Some(("other", Holder::Class(class, None))),
            (ffi::REFERENCE_STACK_LOCAL, None, _) => {
                Some(("local", Holder::Method(reference.method as usize)))
            }
            (ffi::REFERENCE_JNI_LOCAL, None, _) => {
                Some(("jni-local", Holder::Method(reference.method as usize)))
            }
            (ffi::REFERENCE_JNI_GLOBAL, None, _) => root("jni-global"),
            (ffi::REFERENCE_THREAD, None, _) => root("thread"),
            (ffi::REFERENCE_MONITOR, None, _) => root("monitor"),
            (_, None, _) => root("other"),
            // A reference kind between objects the model has no label for.
            (_, Some(_), None) => None,
        };
        if let Some((kind, holder)) = entry {
            self.record.roots.push((kind, to, holder));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(kind: i32, tag: i64, referrer: Option<i64>) -> HeapReference {
        HeapReference {
            kind,
            index: 3,
            method: std::ptr::null_mut(),
            class_tag: class_tag(7),
            referrer_class_tag: class_tag(7),
            size: 24,
            tag,
            referrer_tag: referrer,
            length: -1,
            stack: Default::default(),
        }
    }

    #[test]
    fn identities_keep_the_site_and_survive_walks() {
        let serials = AtomicU64::new(1);
        let mut first = Walker::new(1, &serials);
        let allocated = allocation_tag(Some(41));
        let tagged = first
            .visit(&reference(ffi::REFERENCE_THREAD, allocated, None))
            .expect("a serial and the walk number");
        let seen = first.record.objects[0];
        assert_eq!(site_of(seen.identity), Some(41));
        assert_eq!(seen.class, Some(7));
        // Seen again in the same walk: no second object, no new tag.
        assert_eq!(
            first.visit(&reference(ffi::REFERENCE_FIELD, tagged, Some(tagged))),
            None
        );
        assert_eq!(first.record.objects.len(), 1);
        assert_eq!(first.record.fields[0].3, 3);
        // The next walk sees it again, under the same identity.
        let mut second = Walker::new(2, &serials);
        second.visit(&reference(ffi::REFERENCE_THREAD, tagged, None));
        assert_eq!(second.record.objects[0].identity, seen.identity);
    }

    /// `JVMTI_HEAP_REFERENCE_SYSTEM_CLASS`: a root naming a class object.
    const SYSTEM_CLASS: i32 = 22;

    #[test]
    fn class_objects_are_not_objects_and_their_statics_are_roots() {
        let serials = AtomicU64::new(1);
        let mut walker = Walker::new(1, &serials);
        let class = class_tag(5);
        assert_eq!(walker.visit(&reference(SYSTEM_CLASS, class, None)), None);
        assert!(walker.record.objects.is_empty());
        walker.visit(&reference(ffi::REFERENCE_STATIC_FIELD, 0, Some(class)));
        assert_eq!(walker.record.objects.len(), 1);
        assert_eq!(
            walker.record.roots[0].2,
            Holder::Class(5, Some(3)),
            "{:?}",
            walker.record.roots
        );
    }

    #[test]
    fn unknown_sites_stay_unknown() {
        assert_eq!(site_of(identity(allocation_tag(None))), None);
        assert_eq!(site_of(identity(allocation_tag(Some(MAX_SITES + 1)))), None);
        assert_eq!(class_of_tag(allocation_tag(Some(3))), None);
    }
}

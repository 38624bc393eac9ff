//! Watch mode's region check: at the exit of an activation, the heap is walked (JVMTI
//! `FollowReferences`) for the objects allocated since the activation began that are still
//! reachable. Program allocations carry their number in the stream as their tag; the returning
//! frame's local variables are not roots (its region dies with them), but its operand stack is:
//! the interpreter keeps a returned value there while the frame's pop is reported.

use crate::ffi::{self, JmethodId, Jthread};
use crate::jvmti::{HeapReference, Jvmti, JvmtiFailure, Visit};

/// The tag the returning thread's object wears during the walk, telling its stack apart; never
/// an allocation's number (those are positive).
const RETURNING_THREAD: ffi::Jlong = -1;

/// The numbers (tags) of the objects allocated since `first` (numbers `>= first`) that the heap
/// still reaches when the top frame of `thread`, of `method`, returns, from any root but that
/// frame's local variables, each with what held it when the walk first reached it
/// ([`holder`]); sorted, each once.
pub fn reachable_since(
    jvmti: &Jvmti,
    thread: Jthread,
    method: JmethodId,
    first: u64,
) -> Result<Vec<(u64, &'static str)>, JvmtiFailure> {
    let locals = jvmti.max_locals(method)?;
    let saved = jvmti.tag(thread)?;
    jvmti.set_tag(thread, RETURNING_THREAD)?;
    let mut reached = Vec::new();
    let walked =
        jvmti.follow_references(&mut |reference| visit(reference, locals, first, &mut reached));
    let restored = jvmti.set_tag(thread, saved);
    walked.and(restored)?;
    // Stable: the first reference to each object stays first.
    reached.sort_by_key(|&(number, _)| number);
    reached.dedup_by_key(|&mut (number, _)| number);
    Ok(reached)
}

/// What holds a reached object, as the `reached` line names it: `static` (a static field),
/// `returned` (the returning frame's operand stack: its returned value), `local` (a frame of a
/// caller or another thread), `object` (a field or element of an object), `other` (another
/// root: JNI, a monitor, a thread, the JVM).
fn holder(reference: &HeapReference) -> &'static str {
    match reference.kind {
        ffi::REFERENCE_STATIC_FIELD => "static",
        ffi::REFERENCE_STACK_LOCAL
            if reference.stack.thread_tag == RETURNING_THREAD && reference.stack.depth == 0 =>
        {
            "returned"
        }
        ffi::REFERENCE_STACK_LOCAL => "local",
        ffi::REFERENCE_FIELD | ffi::REFERENCE_ARRAY_ELEMENT => "object",
        _ => "other",
    }
}

/// One reference of the walk: a local variable of the returning frame is not followed; any
/// other reference to an object numbered `>= first` reaches it.
fn visit(
    reference: &HeapReference,
    locals: ffi::Jint,
    first: u64,
    reached: &mut Vec<(u64, &'static str)>,
) -> Visit {
    let stack = reference.stack;
    if reference.kind == ffi::REFERENCE_STACK_LOCAL
        && stack.thread_tag == RETURNING_THREAD
        && stack.depth == 0
        && stack.slot < locals
    {
        return Visit::Skip;
    }
    if let Ok(number) = u64::try_from(reference.tag)
        && number >= first
    {
        reached.push((number, holder(reference)));
    }
    Visit::Follow
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jvmti::StackSlot;

    fn local(
        tag: ffi::Jlong,
        thread_tag: ffi::Jlong,
        depth: ffi::Jint,
        slot: ffi::Jint,
    ) -> HeapReference {
        HeapReference {
            kind: ffi::REFERENCE_STACK_LOCAL,
            index: 0,
            method: std::ptr::null_mut(),
            class_tag: 0,
            referrer_class_tag: 0,
            size: 16,
            tag,
            referrer_tag: None,
            length: -1,
            stack: StackSlot {
                thread_tag,
                depth,
                slot,
            },
        }
    }

    #[test]
    fn the_returning_frames_locals_are_not_roots_but_its_operand_stack_is() {
        let mut reached = Vec::new();
        // A local of the returning frame (3 locals): not followed, not reached.
        let skipped = visit(&local(7, RETURNING_THREAD, 0, 2), 3, 5, &mut reached);
        assert_eq!(skipped, Visit::Skip);
        assert!(reached.is_empty());
        // Its operand stack (the returned value), the caller's frame, another thread.
        for (thread, depth, slot) in [
            (RETURNING_THREAD, 0, 3),
            (RETURNING_THREAD, 1, 0),
            (0, 0, 0),
        ] {
            let followed = visit(&local(7, thread, depth, slot), 3, 5, &mut reached);
            assert_eq!(followed, Visit::Follow);
        }
        assert_eq!(reached, [(7, "returned"), (7, "local"), (7, "local")]);
    }

    #[test]
    fn only_objects_allocated_since_the_activation_began_are_listed() {
        let mut reached = Vec::new();
        let mut field = local(4, 0, 0, 0);
        field.kind = ffi::REFERENCE_FIELD;
        visit(&field, 3, 5, &mut reached);
        field.tag = 0;
        visit(&field, 3, 5, &mut reached);
        field.tag = 5;
        visit(&field, 3, 5, &mut reached);
        assert_eq!(reached, [(5, "object")]);
    }
}

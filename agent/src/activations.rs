//! A per-thread shadow of the frames the agent tracks: activations of the watched method, and of
//! every method on a recorded allocation chain.
//!
//! A frame is identified by its height (distance from the bottom of the stack), which does not
//! change while it lives. Every tracked frame has a pending `NotifyFramePop` request, so its
//! FramePop event removes it before another frame can take its height: a tracked frame found
//! at the same height with the same method is the same activation. This lets the event stream
//! give each activation an id, and say when it ends, without MethodEntry/MethodExit events for
//! every method.

/// One tracked frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Activation {
    pub id: u64,
    pub height: i32,
    /// The frame's method, as the address of its `jmethodID`.
    pub method: usize,
    pub is_target: bool,
    /// The number in the stream of the first program allocation that can be its own.
    pub first_allocation: u64,
    /// Bit `i`: the static fields recorded after the `i`-th instruction the options name
    /// (`static=pkg.C.f@pc`) were written for this activation.
    pub recorded_after: u64,
}

/// The tracked frames of one thread, outermost first (increasing height).
#[derive(Debug, Default)]
pub struct ShadowStack {
    frames: Vec<Activation>,
}

impl ShadowStack {
    /// Whether a watched-method activation is live on this thread.
    pub fn inside_target(&self) -> bool {
        self.frames.iter().any(|a| a.is_target)
    }

    /// The tracked activation of `method` at `height`, if any.
    pub fn find(&self, height: i32, method: usize) -> Option<&Activation> {
        self.frames
            .iter()
            .find(|a| a.height == height && a.method == method)
    }

    /// The tracked activation of `method` at `height`, to update.
    pub fn find_mut(&mut self, height: i32, method: usize) -> Option<&mut Activation> {
        self.frames
            .iter_mut()
            .find(|a| a.height == height && a.method == method)
    }

    /// Removes the activations at `height` and above, innermost first: they have returned.
    pub fn pop_from(&mut self, height: i32) -> Vec<Activation> {
        let keep = self.frames.partition_point(|a| a.height < height);
        let mut popped = self.frames.split_off(keep);
        popped.reverse();
        popped
    }

    /// Adds a newly tracked frame. A tracked frame at the same height is gone (its FramePop was
    /// missed), and with it every tracked frame above; they are returned, innermost first, for
    /// their exits to be recorded. Tracked frames above an untracked height stay: they are live
    /// callees of the frame being added.
    pub fn push(&mut self, activation: Activation) -> Vec<Activation> {
        let taken = self.frames.iter().any(|a| a.height == activation.height);
        let gone = if taken {
            self.pop_from(activation.height)
        } else {
            Vec::new()
        };
        let at = self
            .frames
            .partition_point(|a| a.height < activation.height);
        self.frames.insert(at, activation);
        gone
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn activation(id: u64, height: i32, method: usize) -> Activation {
        Activation {
            id,
            height,
            method,
            is_target: method == 1,
            first_allocation: 1,
            recorded_after: 0,
        }
    }

    #[test]
    fn frames_are_found_by_height_and_method() {
        let mut stack = ShadowStack::default();
        assert!(stack.push(activation(1, 3, 1)).is_empty());
        assert!(stack.push(activation(2, 5, 7)).is_empty());
        assert_eq!(stack.find(5, 7).map(|a| a.id), Some(2));
        assert_eq!(stack.find(5, 8), None);
        assert!(stack.inside_target());
    }

    #[test]
    fn popping_a_frame_pops_everything_above_it_innermost_first() {
        let mut stack = ShadowStack::default();
        stack.push(activation(1, 3, 1));
        stack.push(activation(2, 5, 7));
        stack.push(activation(3, 6, 8));
        let popped: Vec<u64> = stack.pop_from(5).iter().map(|a| a.id).collect();
        assert_eq!(popped, vec![3, 2]);
        assert_eq!(stack.pop_from(3).len(), 1);
        assert!(!stack.inside_target());
    }

    #[test]
    fn pushing_at_a_taken_height_replaces_the_stale_frames() {
        let mut stack = ShadowStack::default();
        stack.push(activation(1, 3, 1));
        stack.push(activation(2, 4, 7));
        let gone: Vec<u64> = stack
            .push(activation(3, 4, 9))
            .iter()
            .map(|a| a.id)
            .collect();
        assert_eq!(gone, vec![2]);
        assert_eq!(stack.find(4, 9).map(|a| a.id), Some(3));
    }

    #[test]
    fn a_frame_tracked_late_goes_below_its_live_callees() {
        let mut stack = ShadowStack::default();
        stack.push(activation(1, 3, 1));
        stack.push(activation(2, 6, 7));
        assert!(stack.push(activation(3, 4, 8)).is_empty());
        let order: Vec<u64> = stack.pop_from(0).iter().map(|a| a.id).collect();
        assert_eq!(order, vec![2, 3, 1]);
    }
}

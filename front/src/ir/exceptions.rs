//! Which paths out of code that may throw an analysis follows: every one, or none under
//! `--assume no-exceptions`. The call graph and the lowering read the same choice, so a call
//! the lowering never runs is not looked up either.

use super::{Body, Terminator};

/// Which paths an analysis follows out of code that may throw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Exceptions {
    /// Into each handler, and through every block that ends in `throw`.
    #[default]
    Followed,
    /// None: no handler is entered and no block that ends in `throw` runs, so neither the
    /// exception it throws nor its stack trace is counted.
    Dropped,
}

impl Body {
    /// Per block, whether its statements may run under `exceptions`: every block when they
    /// are followed; without them, the blocks the entry reaches along normal edges, except
    /// those that end in `throw`.
    pub fn blocks_run(&self, exceptions: Exceptions) -> Vec<bool> {
        if exceptions == Exceptions::Followed {
            return vec![true; self.blocks.len()];
        }
        let mut reached = vec![false; self.blocks.len()];
        let mut work = vec![0_usize];
        while let Some(block) = work.pop() {
            if block >= reached.len() || reached[block] {
                continue;
            }
            reached[block] = true;
            let successors = self.blocks[block].terminator.successors();
            work.extend(successors.into_iter().map(|target| target.0 as usize));
        }
        reached
            .into_iter()
            .zip(&self.blocks)
            .map(|(reached, block)| reached && !matches!(block.terminator, Terminator::Throw(_)))
            .collect()
    }
}

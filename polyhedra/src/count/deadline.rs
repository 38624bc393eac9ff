//! A deadline for the counts of one thread: an analysis with a time limit sets it around its
//! counts, and the engine looks at it between the basic sets and cells it sums, so that one
//! long count (minutes of quasi-polynomial compositions) stops near the limit.

use std::cell::Cell;
use std::time::Instant;

use super::CountError;

thread_local! {
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Runs `f` with the counts it makes on this thread failing with [`CountError::TimeLimit`]
/// from `deadline` on (`None`: no deadline). The deadline in force before is restored after,
/// also when `f` panics.
pub fn with_deadline<T>(deadline: Option<Instant>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Instant>);
    impl Drop for Restore {
        fn drop(&mut self) {
            DEADLINE.set(self.0);
        }
    }
    let _restore = Restore(DEADLINE.replace(deadline));
    f()
}

/// `Err(TimeLimit)` once the thread's deadline has passed.
pub(super) fn check() -> Result<(), CountError> {
    match DEADLINE.get() {
        Some(deadline) if Instant::now() >= deadline => Err(CountError::TimeLimit),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::count;
    use crate::isl::parse_set;

    #[test]
    fn a_passed_deadline_fails_a_count_and_is_lifted_after() {
        let set = parse_set("[n] -> { [i, j] : 0 <= i < n and 0 <= j < i + 7 }").expect("a set");
        let passed = with_deadline(Some(Instant::now()), || count(&set));
        assert_eq!(passed, Err(CountError::TimeLimit));
        // Not cached: the same count without a deadline is exact.
        assert!(with_deadline(None, || count(&set)).is_ok());
        assert!(count(&set).is_ok());
    }
}

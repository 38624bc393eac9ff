//! How every command writes a call chain: its steps `pkg.C.m(I)V@16 (line 22)` (a method, the
//! bytecode offset of the call or allocation in it, and its source line when known), from the
//! outermost call to the allocation, joined by ` -> `.

use std::fmt::Display;

/// Between two steps of a chain.
pub const SEPARATOR: &str = " -> ";

/// One step: `method@offset (line l)`, or `method@offset` without a line.
pub fn step(method: &dyn Display, offset: impl Into<i64>, line: Option<u32>) -> String {
    let offset = offset.into();
    match line {
        Some(line) => format!("{method}@{offset} (line {line})"),
        None => format!("{method}@{offset}"),
    }
}

/// The steps joined by [`SEPARATOR`].
pub fn join(steps: impl IntoIterator<Item = String>) -> String {
    steps.into_iter().collect::<Vec<_>>().join(SEPARATOR)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_name_the_line_when_known_and_join_with_an_arrow() {
        let steps = [step(&"C.m(I)V", 16, Some(22)), step(&"C.n(I)V", 7, None)];
        assert_eq!(join(steps), "C.m(I)V@16 (line 22) -> C.n(I)V@7");
    }
}

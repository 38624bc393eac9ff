//! Method selection: turning what a user types into the one method of a program it names, with
//! an error listing the closest candidates when it names none or several. What a selector may
//! say is [`membound_jvm::selector`]'s.

use crate::program::Program;
use membound_jvm::MethodRef;
use membound_jvm::error::{Error, Result};
use membound_jvm::selector::Selector;

/// The one method of `program` that `text` names.
pub fn select_method(program: &Program, text: &str) -> Result<MethodRef> {
    let selector = Selector::parse(text)?;
    let names = selector.class_names();
    let class = names
        .iter()
        .find_map(|name| program.class(name).ok())
        .ok_or_else(|| {
            Error::MethodSelection(format!(
                "unknown method '{text}': class {} is not on the classpath",
                names[0]
            ))
        })?;
    let matching: Vec<MethodRef> = class
        .methods
        .iter()
        .filter(|m| *m.name == selector.name && selector.accepts(&m.descriptor))
        .map(|m| m.reference(&class.name))
        .collect();
    match matching.as_slice() {
        [one] => Ok(one.clone()),
        [] => {
            let candidates: Vec<MethodRef> = class
                .methods
                .iter()
                .map(|m| m.reference(&class.name))
                .collect();
            Err(Error::MethodSelection(format!(
                "unknown method '{text}'; did you mean {}? ({} declares {} methods)",
                closest(&selector.name, &candidates).join(" or "),
                class.name,
                candidates.len()
            )))
        }
        several => {
            let candidates: Vec<String> = several.iter().map(ToString::to_string).collect();
            Err(Error::MethodSelection(format!(
                "ambiguous method '{text}': add parameter types, one of: {}",
                candidates.join(", ")
            )))
        }
    }
}

/// The candidates whose names are closest to `name` (edit distance), at most three.
fn closest(name: &str, candidates: &[MethodRef]) -> Vec<String> {
    let mut scored: Vec<(usize, String)> = candidates
        .iter()
        .map(|m| (edit_distance(name, &m.name), m.to_string()))
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, m)| m).collect()
}

/// Levenshtein distance between two names, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_names_come_first() {
        assert_eq!(edit_distance("m1", "m2"), 1);
        assert_eq!(edit_distance("join", "joint"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}

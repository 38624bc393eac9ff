//! Method selection: turning what a user types (`pkg.Class.method`, optionally with a
//! descriptor, `pkg.Class.method(I)V`) into the one method it names, with an error listing the
//! candidates when it names none or several.

use crate::program::Program;
use membound_jvm::error::{Error, Result};
use membound_jvm::{ClassName, MethodRef};

/// A parsed method selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    pub class: ClassName,
    pub name: String,
    pub descriptor: Option<String>,
}

impl Selector {
    /// Parses `pkg.Class.method` or `pkg.Class.method(I)V` (nested classes as `Outer$Inner`;
    /// `/` is accepted in place of `.` in the class name).
    pub fn parse(text: &str) -> Result<Selector> {
        let (path, descriptor) = match text.find('(') {
            Some(open) => (&text[..open], Some(text[open..].to_string())),
            None => (text, None),
        };
        let path = path.replace('/', ".");
        let Some((class, name)) = path.rsplit_once('.') else {
            return Err(Error::MethodSelection(format!(
                "bad method '{text}': expected Class.method or pkg.Class.method(descriptor)"
            )));
        };
        if class.is_empty() || name.is_empty() {
            return Err(Error::MethodSelection(format!(
                "bad method '{text}': empty class or method name"
            )));
        }
        Ok(Selector {
            class: ClassName::from_source(class),
            name: name.to_string(),
            descriptor,
        })
    }
}

/// The one method of `program` that `text` names.
pub fn select_method(program: &Program, text: &str) -> Result<MethodRef> {
    let selector = Selector::parse(text)?;
    let class = program.class(&selector.class).map_err(|e| match e {
        Error::ClassNotFound(_) => Error::MethodSelection(format!(
            "unknown method '{text}': class {} is not on the classpath",
            selector.class
        )),
        other => other,
    })?;
    let matching: Vec<MethodRef> = class
        .methods
        .iter()
        .filter(|m| *m.name == selector.name)
        .filter(|m| {
            selector
                .descriptor
                .as_deref()
                .is_none_or(|d| *m.descriptor == *d)
        })
        .map(|m| m.reference(&class.name))
        .collect();
    match matching.as_slice() {
        [one] => Ok(one.clone()),
        [] => {
            let candidates: Vec<String> = class
                .methods
                .iter()
                .map(|m| m.reference(&class.name).to_string())
                .collect();
            Err(Error::MethodSelection(format!(
                "unknown method '{text}'; {} declares: {}",
                class.name,
                candidates.join(", ")
            )))
        }
        several => {
            let candidates: Vec<String> = several.iter().map(ToString::to_string).collect();
            Err(Error::MethodSelection(format!(
                "ambiguous method '{text}': add a descriptor, one of: {}",
                candidates.join(", ")
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_with_and_without_descriptors() {
        let plain = Selector::parse("pkg.Outer$Inner.run").unwrap();
        assert_eq!(plain.class.internal(), "pkg/Outer$Inner");
        assert_eq!(plain.name, "run");
        assert_eq!(plain.descriptor, None);
        let typed = Selector::parse("Main.main([Ljava/lang/String;)V").unwrap();
        assert_eq!(typed.class.internal(), "Main");
        assert_eq!(typed.descriptor.as_deref(), Some("([Ljava/lang/String;)V"));
    }

    #[test]
    fn rejects_names_without_a_class() {
        for bad in ["main", ".main", "Main.", "(I)V"] {
            assert!(Selector::parse(bad).is_err(), "{bad}");
        }
    }
}

//! Method selectors: what a user types to name a method, parsed, and whether it names a given
//! method. Accepted:
//!
//! - `pkg.Class.method`, any overload when there is one;
//! - with a JVM descriptor, `pkg.Class.method(I)V`;
//! - with Java parameter types, `pkg.Class.method(int, String[])` (a class type by its simple
//!   or its qualified name);
//! - a Soot signature, as `membound ir` prints it: `<pkg.Class: void method(int)>`;
//! - nested classes as `Outer$Inner` or `Outer.Inner`; `/` in place of `.` in the class name.
//!
//! Finding the method among loaded classes is the front end's (`membound_front::select`); a
//! certificate finds it among its entries by [`Selector::names_method`].

use crate::error::{Error, Result};
use crate::{ClassName, MethodDescriptor};

/// A parsed method selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    /// The class as typed, with `.` between every name (`Outer.Inner` may be `Outer$Inner`).
    pub class: String,
    pub name: String,
    pub params: Params,
}

/// What a selector says about the method's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Params {
    /// Nothing: any overload.
    Any,
    /// A JVM method descriptor, `(I)V`.
    Descriptor(String),
    /// Java type names, and the return type when a Soot signature gives it.
    Java {
        params: Vec<String>,
        returns: Option<String>,
    },
}

impl Selector {
    /// Parses a selector (see the module documentation).
    pub fn parse(text: &str) -> Result<Selector> {
        let text = text.trim();
        if let Some(inner) = text.strip_prefix('<').and_then(|t| t.strip_suffix('>')) {
            return soot_signature(text, inner);
        }
        let (path, params) = match text.find('(') {
            Some(open) => (&text[..open], parameters(text, &text[open..])?),
            None => (text, Params::Any),
        };
        let path = path.replace('/', ".");
        let Some((class, name)) = path.rsplit_once('.') else {
            return Err(bad(
                text,
                "expected Class.method, pkg.Class.method(int) or <pkg.Class: void method(int)>",
            ));
        };
        if class.is_empty() || name.is_empty() {
            return Err(bad(text, "empty class or method name"));
        }
        Ok(Selector {
            class: class.to_string(),
            name: name.to_string(),
            params,
        })
    }

    /// The class names the selector may mean, most likely first: as typed, then with its
    /// last names read as nested classes (`a.Outer.Inner` is also `a.Outer$Inner`).
    pub fn class_names(&self) -> Vec<ClassName> {
        let mut names = vec![ClassName::from_source(&self.class)];
        let mut text = self.class.clone();
        while let Some(dot) = text.rfind('.') {
            text.replace_range(dot..=dot, "$");
            names.push(ClassName::from_source(&text));
        }
        names
    }

    /// Whether a method with this descriptor is one the selector names (its name aside).
    pub fn accepts(&self, descriptor: &str) -> bool {
        match &self.params {
            Params::Any => true,
            Params::Descriptor(wanted) => wanted == descriptor,
            Params::Java { params, returns } => {
                let Ok(parsed) = MethodDescriptor::parse(descriptor) else {
                    return false;
                };
                let returned = parsed
                    .ret
                    .as_ref()
                    .map_or("void".to_string(), ToString::to_string);
                parsed.params.len() == params.len()
                    && parsed
                        .params
                        .iter()
                        .zip(params)
                        .all(|(ty, name)| names_type(name, &ty.to_string()))
                    && returns.as_ref().is_none_or(|r| names_type(r, &returned))
            }
        }
    }
    /// Whether the selector names `method`, written `pkg.Class.name(descriptor)` as
    /// certificates and call graphs write methods.
    pub fn names_method(&self, method: &str) -> bool {
        let Some(open) = method.find('(') else {
            return false;
        };
        let Some((class, name)) = method[..open].rsplit_once('.') else {
            return false;
        };
        let class = ClassName::from_source(class);
        name == self.name && self.class_names().contains(&class) && self.accepts(&method[open..])
    }
}

fn bad(text: &str, why: &str) -> Error {
    Error::MethodSelection(format!("bad method '{text}': {why}"))
}

/// `(…)…` after a method name: Java parameter types when it ends at its `)`, a JVM
/// descriptor otherwise (one that does not parse names no method).
fn parameters(text: &str, list: &str) -> Result<Params> {
    if MethodDescriptor::parse(list).is_ok() || !list.ends_with(')') {
        return Ok(Params::Descriptor(list.to_string()));
    }
    let Some(inner) = list.strip_prefix('(').and_then(|l| l.strip_suffix(')')) else {
        return Err(bad(
            text,
            "parameters are a descriptor `(I)V` or Java types `(int, String)`",
        ));
    };
    Ok(Params::Java {
        params: java_types(inner),
        returns: None,
    })
}

/// `pkg.Class: R name(T1,T2)`, the inside of a Soot signature.
fn soot_signature(text: &str, inner: &str) -> Result<Selector> {
    let malformed = || bad(text, "a Soot signature is <pkg.Class: void method(int)>");
    let (class, method) = inner.split_once(':').ok_or_else(malformed)?;
    let method = method.trim();
    let open = method.find('(').ok_or_else(malformed)?;
    let (returns, name) = method[..open]
        .trim()
        .rsplit_once(' ')
        .ok_or_else(malformed)?;
    let list = method[open..]
        .strip_prefix('(')
        .and_then(|l| l.strip_suffix(')'))
        .ok_or_else(malformed)?;
    if class.trim().is_empty() || name.is_empty() {
        return Err(malformed());
    }
    Ok(Selector {
        class: class.trim().replace('/', "."),
        name: name.to_string(),
        params: Params::Java {
            params: java_types(list),
            returns: Some(returns.trim().to_string()),
        },
    })
}

fn java_types(list: &str) -> Vec<String> {
    list.split(',')
        .map(|t| t.split_whitespace().collect::<String>())
        .filter(|t| !t.is_empty())
        .collect()
}

/// Whether the Java type name a user typed (`String[]`, `java.util.List`, `Map.Entry`, `int`)
/// names the type printed as `shown` (`java.lang.String[]`, `java.util.Map$Entry`).
fn names_type(typed: &str, shown: &str) -> bool {
    let typed = typed.replace('$', ".");
    let shown = shown.replace('$', ".");
    shown == typed || shown.ends_with(&format!(".{typed}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_with_and_without_descriptors() {
        let plain = Selector::parse("pkg.Outer$Inner.run").unwrap();
        assert_eq!(plain.class, "pkg.Outer$Inner");
        assert_eq!(plain.name, "run");
        assert_eq!(plain.params, Params::Any);
        let typed = Selector::parse("Main.main([Ljava/lang/String;)V").unwrap();
        assert_eq!(typed.class, "Main");
        assert!(typed.accepts("([Ljava/lang/String;)V"));
        assert!(!typed.accepts("([Ljava/lang/Object;)V"));
    }

    #[test]
    fn java_parameter_types_match_by_simple_or_qualified_name() {
        let java = Selector::parse("Main.main(String[])").unwrap();
        assert!(java.accepts("([Ljava/lang/String;)V"));
        let qualified = Selector::parse("a.B.m(int, java.util.Map.Entry)").unwrap();
        assert!(qualified.accepts("(ILjava/util/Map$Entry;)J"));
        assert!(!qualified.accepts("(JLjava/util/Map$Entry;)J"));
        let none = Selector::parse("a.B.m()").unwrap();
        assert!(none.accepts("()V"));
        assert!(!none.accepts("(I)V"));
    }

    #[test]
    fn soot_signatures_name_class_return_and_parameters() {
        let soot = Selector::parse("<pkg.Intro: void m1(int)>").unwrap();
        assert_eq!(
            (soot.class.as_str(), soot.name.as_str()),
            ("pkg.Intro", "m1")
        );
        assert!(soot.accepts("(I)V"));
        assert!(!soot.accepts("(I)I"));
    }

    #[test]
    fn nested_classes_may_be_written_with_dots() {
        let nested = Selector::parse("a.Outer.Inner.run").unwrap();
        let names: Vec<String> = nested
            .class_names()
            .iter()
            .map(|c| c.internal().to_string())
            .collect();
        assert_eq!(names, ["a/Outer/Inner", "a/Outer$Inner", "a$Outer$Inner"]);
    }

    #[test]
    fn rejects_names_without_a_class() {
        for bad in ["main", ".main", "Main.", "(I)V", "<Main: m()>"] {
            assert!(Selector::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_selector_names_a_method_as_certificates_write_it() {
        let method = "org.a.IteratorUtils.toList(Ljava/util/Iterator;)Ljava/util/List;";
        for named in [
            "org.a.IteratorUtils.toList",
            "org.a.IteratorUtils.toList(Iterator)",
            "org.a.IteratorUtils.toList(java.util.Iterator)",
            "org.a.IteratorUtils.toList(Ljava/util/Iterator;)Ljava/util/List;",
            "<org.a.IteratorUtils: java.util.List toList(java.util.Iterator)>",
        ] {
            assert!(
                Selector::parse(named).unwrap().names_method(method),
                "{named}"
            );
        }
        for other in [
            "org.a.IteratorUtils.toList(Iterator, int)",
            "org.a.IteratorUtils.toArray",
            "org.b.IteratorUtils.toList",
        ] {
            assert!(
                !Selector::parse(other).unwrap().names_method(method),
                "{other}"
            );
        }
        let nested = Selector::parse("p.Outer.Inner.run()").unwrap();
        assert!(nested.names_method("p.Outer$Inner.run()V"));
    }
}

use membound_polyhedra::Int;

use super::*;

fn parse(text: &str) -> Result<Specs> {
    let mut specs = Specs::none();
    specs.add_yaml(text, SpecSource::File("test.yaml".to_string()))?;
    Ok(specs)
}

fn error(text: &str) -> String {
    parse(text).expect_err("the spec is rejected").to_string()
}

fn method(text: &str) -> MethodRef {
    let (class, rest) = text.split_once('#').expect("class#name(desc)");
    let open = rest.find('(').expect("a descriptor");
    MethodRef::new(ClassName::from_source(class), &rest[..open], &rest[open..])
}

#[test]
fn the_bundled_specs_parse_and_cover_natives() {
    let specs = Specs::bundled();
    assert!(specs.len() > 30, "{} specs", specs.len());
    let arraycopy = method("java.lang.System#arraycopy(Ljava/lang/Object;ILjava/lang/Object;II)V");
    let spec = specs.find(&arraycopy).expect("arraycopy is spec'd");
    assert!(spec.allocations.is_empty());
    assert_eq!(
        spec.stores,
        Some(vec![Store {
            value: Arg::Param(0),
            into: Arg::Param(2)
        }])
    );
    // A spec without a descriptor covers every overload.
    assert!(
        specs
            .find(&method("java.lang.StrictMath#sqrt(D)D"))
            .is_some()
    );
    assert!(
        specs
            .find(&method("java.lang.StrictMath#nothing(D)D"))
            .is_none()
    );
}

#[test]
fn counts_and_lengths_are_affine_expressions_of_named_parameters() {
    let specs = parse(
        "membound_specs: 1\nspecs:\n  - method: p.C.m([III)V\n    params: [a, n, m]\n    allocates:\n      - { type: \"long[]\", length: \"2*n + a/2\", count: \"m - 1\" }\n      - { type: p.Node }\n",
    )
    .expect("valid");
    let spec = specs.find(&method("p.C#m([III)V")).expect("found");
    let array = &spec.allocations[0];
    assert_eq!(array.ty, Type::Long.array_of());
    let (terms, constant, factor) = array.length.as_ref().expect("a length").integer_form(3);
    assert_eq!(terms, vec![Int::from(1), Int::from(4), Int::from(0)]);
    assert_eq!((constant, factor), (Int::from(0), Int::from(2)));
    let (terms, constant, factor) = array.count.as_ref().expect("a count").integer_form(3);
    assert_eq!(terms, vec![Int::from(0), Int::from(0), Int::from(1)]);
    assert_eq!((constant, factor), (Int::from(-1), Int::from(1)));
    // The default count is one per call, and objects escape unless the spec says otherwise.
    let node = &spec.allocations[1];
    assert_eq!(
        node.count.as_ref().expect("a count").integer_form(3).1,
        Int::from(1)
    );
    assert_eq!(node.escapes, Holder::Global);
    assert!(spec.stores.is_none());
    assert_eq!(
        spec.assumption_text(),
        "p.C.m([III)V: allocates at most m - 1 × long[] of length 2*n + a/2, 1 × p.Node per call (spec from test.yaml)"
    );
}

#[test]
fn a_condition_is_a_disjunction_of_affine_comparisons() {
    let specs = parse(
        "membound_specs: 1\nspecs:\n  - method: p.C.box(I)Ljava/lang/Object;\n    params: [i]\n    allocates: [{ type: p.Box, when: \"i <= -129 or i >= 128\" }]\n",
    )
    .expect("valid");
    let spec = specs
        .find(&method("p.C#box(I)Ljava/lang/Object;"))
        .expect("found");
    let when = spec.allocations[0].when.as_ref().expect("a condition");
    let alternatives = when.integer_alternatives(1);
    assert_eq!(alternatives.len(), 2);
    let holds = |i: i64| {
        alternatives.iter().any(|constraints| {
            constraints.iter().all(|(terms, constant, relation)| {
                let value = &terms[0] * Int::from(i) + constant;
                match relation {
                    Relation::Eq => value == Int::from(0),
                    Relation::Ge => value >= Int::from(0),
                }
            })
        })
    };
    assert!(holds(-129) && holds(128) && holds(1000));
    assert!(!holds(-128) && !holds(0) && !holds(127));
    assert!(
        spec.assumption_text()
            .contains("1 × p.Box when i <= -129 or i >= 128 per call")
    );
    let bad = error(
        "membound_specs: 1\nspecs: [{ method: p.C.m(I)V, params: [n], allocates: [{ type: p.N, when: \"n % 2 = 0\" }] }]\n",
    );
    assert!(bad.contains("affine comparisons"), "{bad}");
    let bad = error(
        "membound_specs: 1\nspecs: [{ method: p.C.m(Ljava/lang/Object;)V, params: [s], allocates: [{ type: p.N, when: \"s >= 1\" }] }]\n",
    );
    assert!(bad.contains("no integer value"), "{bad}");
}

#[test]
fn a_string_parameter_stands_for_its_length() {
    let specs = parse(
        "membound_specs: 1\nspecs: [{ method: p.C.m(Ljava/lang/String;)V, params: [s], allocates: [{ type: \"byte[]\", length: 4, count: \"2*s + 1\", when: \"s >= 1\" }] }]\n",
    )
    .expect("a String's length is an integer");
    let spec = specs
        .find(&method("p.C#m(Ljava/lang/String;)V"))
        .expect("found");
    let (terms, constant, factor) = spec.allocations[0]
        .count
        .as_ref()
        .expect("a count")
        .integer_form(1);
    assert_eq!(terms, vec![Int::from(2)]);
    assert_eq!((constant, factor), (Int::from(1), Int::from(1)));
}

#[test]
fn a_string_methods_spec_names_its_receivers_length_this() {
    let specs = parse(
        "membound_specs: 1\nspecs: [{ method: java.lang.String.repeat(I)Ljava/lang/String;, params: [count], allocates: [{ type: \"byte[]\", length: this, count: count, when: \"this >= 2\" }] }]\n",
    )
    .expect("a String's receiver has a length");
    let spec = specs
        .find(&method("java.lang.String#repeat(I)Ljava/lang/String;"))
        .expect("found");
    assert!(spec.receiver_length);
    // `this` is the column after the declared parameters.
    let (terms, constant, _) = spec.allocations[0]
        .length
        .as_ref()
        .expect("a length")
        .integer_form(2);
    assert_eq!(terms, vec![Int::from(0), Int::from(1)]);
    assert_eq!(constant, Int::from(0));
    // A spec that does not name it has no receiver formal; another class's receiver has no
    // length.
    let plain = parse(
        "membound_specs: 1\nspecs: [{ method: java.lang.String.trim()Ljava/lang/String;, allocates: [{ type: java.lang.String }] }]\n",
    )
    .expect("parses");
    let trim = plain
        .find(&method("java.lang.String#trim()Ljava/lang/String;"))
        .expect("found");
    assert!(!trim.receiver_length);
    let bad = error(
        "membound_specs: 1\nspecs: [{ method: p.C.m()V, allocates: [{ type: p.N, count: this }] }]\n",
    );
    assert!(bad.contains("`this`"), "{bad}");
}

#[test]
fn an_unbounded_count_is_no_expression() {
    let specs = parse(
        "membound_specs: 1\nspecs:\n  - method: p.C.m()V\n    allocates: [{ type: p.Node, count: unbounded }]\n",
    )
    .expect("valid");
    let spec = specs.find(&method("p.C#m()V")).expect("found");
    assert!(spec.allocations[0].count.is_none());
    assert_eq!(
        spec.assumption_text(),
        "p.C.m()V: allocates at most unboundedly many × p.Node per call (spec from test.yaml)"
    );
}

#[test]
fn a_later_spec_of_the_same_method_replaces_the_earlier() {
    let mut specs = Specs::bundled();
    let before = specs.len();
    specs
        .add_yaml(
            "membound_specs: 1\nspecs:\n  - method: java.lang.System.nanoTime()J\n    allocates: [{ type: java.lang.Object, count: 2 }]\n",
            SpecSource::File("mine.yaml".to_string()),
        )
        .expect("valid");
    assert_eq!(specs.len(), before);
    let spec = specs
        .find(&method("java.lang.System#nanoTime()J"))
        .expect("found");
    assert_eq!(spec.source, SpecSource::File("mine.yaml".to_string()));
    assert_eq!(spec.allocations.len(), 1);
}

#[test]
fn an_interface_spec_lists_classes_and_is_found_by_name_and_descriptor() {
    let mut specs = Specs::bundled();
    let through_list = method("java.util.List#iterator()Ljava/util/Iterator;");
    let bundled = specs.interface_specs(&through_list);
    assert_eq!(bundled.len(), 1);
    assert_eq!(
        bundled[0].class,
        ClassName::from_source("java.util.Collection")
    );
    let covers = bundled[0].covers.as_ref().expect("an interface spec");
    assert!(covers.contains(&ClassName::from_source("java.util.ArrayList")));
    // Interface specs are not specs of a method's own code.
    assert!(specs.find(&through_list).is_none());
    specs
        .add_yaml(
            "membound_specs: 1\nspecs:\n  - method: java.util.Collection.iterator()Ljava/util/Iterator;\n    covers: [java.util.ArrayList]\n    assumption: only lists\n",
            SpecSource::File("mine.yaml".to_string()),
        )
        .expect("valid");
    let mine = specs.interface_specs(&through_list);
    assert_eq!(mine.len(), 1, "the file's entry replaces the bundled one");
    assert_eq!(
        mine[0].assumption_text(),
        "java.util.Collection.iterator()Ljava/util/Iterator;: a receiver created outside the \
         analyzed code is a java.util.ArrayList or an application class's object (interface \
         spec from mine.yaml; only lists)"
    );
}

#[test]
fn bad_specs_are_input_errors_naming_the_entry() {
    let cases = [
        ("membound_specs: 2\n", "format 2 is not supported"),
        (
            "membound_specs: 1\nspecs: [{ method: p.C.m()V, alocates: [] }]\n",
            "unknown field `alocates`",
        ),
        (
            "membound_specs: 1\nspecs: [{ method: p.C.m(I)V, allocates: [{ type: p.N, count: \"n\" }] }]\n",
            "spec of p.C.m(I)V: bad expression `n`",
        ),
        (
            "membound_specs: 1\nspecs: [{ method: p.C.m(I)V, allocates: [{ type: p.N, count: \"p0*p0\" }] }]\n",
            "p0*p0",
        ),
        (
            "membound_specs: 1\nspecs: [{ method: p.C.m(I)V, allocates: [{ type: \"int[]\" }] }]\n",
            "needs a `length`",
        ),
        (
            "membound_specs: 1\nspecs: [{ method: p.C.m(I)V, allocates: [{ type: p.N, length: 3 }] }]\n",
            "is not an array",
        ),
        (
            "membound_specs: 1\nspecs: [{ method: p.C.m(I)V, params: [a, b] }]\n",
            "names 2 parameters",
        ),
        (
            "membound_specs: 1\nspecs: [{ method: p.C.m(Ljava/util/List;)V, allocates: [{ type: p.N, count: p0 }] }]\n",
            "has no integer value",
        ),
        (
            "membound_specs: 1\nspecs: [{ method: p.C.m(I)V, stores: [{ value: p0, into: this }] }]\n",
            "not a reference",
        ),
        (
            "membound_specs: 1\nspecs: [{ method: p.C.m(I)V, allocates: [{ type: \"9x\" }] }]\n",
            "is not a type",
        ),
        (
            "membound_specs: 1\nspecs: [{ method: p.C.m(X)V }]\n",
            "bad descriptor",
        ),
        (
            "membound_specs: 1\nspecs: [{ method: p.I.m, covers: [p.A] }]\n",
            "needs a descriptor",
        ),
        (
            "membound_specs: 1\nspecs: [{ method: p.I.m()V, covers: [p.A], stores: [] }]\n",
            "states only the classes it covers",
        ),
        (
            "membound_specs: 1\nspecs: [{ method: p.I.m()V, covers: [\"int[]\"] }]\n",
            "is not one",
        ),
    ];
    for (text, expected) in cases {
        let message = error(text);
        assert!(message.contains(expected), "{message:?} lacks {expected:?}");
        assert!(message.starts_with("test.yaml: "), "{message}");
    }
}

#[test]
fn the_program_ends_at_exit_and_a_spec_that_ends_it_allocates_nothing() {
    let specs = Specs::bundled();
    for exit in [
        "java.lang.System#exit(I)V",
        "java.lang.Runtime#exit(I)V",
        "java.lang.Runtime#halt(I)V",
    ] {
        let spec = specs.find(&method(exit)).expect("the exits are spec'd");
        assert!(spec.ends_program, "{exit}");
        assert!(spec.assumption_text().contains(PROGRAM_END), "{exit}");
    }
    let message = error(
        "membound_specs: 1\nspecs:\n  - method: a.B.quit()V\n    ends_program: true\n    allocates: [{ type: a.B }]\n",
    );
    assert!(message.contains("ends_program"), "{message}");
}

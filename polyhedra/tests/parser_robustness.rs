//! The isl parsers never panic: random strings (over isl's alphabet and arbitrary characters)
//! give a value or a `ParseError` with a column inside the input.

use membound_polyhedra::{parse_piecewise, parse_set};
use proptest::prelude::*;

fn isl_like() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("["),
        Just("]"),
        Just("{"),
        Just("}"),
        Just("("),
        Just(")"),
        Just("->"),
        Just(":"),
        Just(";"),
        Just(","),
        Just("<="),
        Just("<"),
        Just(">="),
        Just("="),
        Just("+"),
        Just("-"),
        Just("*"),
        Just("/"),
        Just("^"),
        Just("and"),
        Just("or"),
        Just("not"),
        Just("mod"),
        Just("floor"),
        Just("exists"),
        Just("n"),
        Just("i"),
        Just("j"),
        Just("0"),
        Just("1"),
        Just("3"),
        Just(" "),
    ];
    proptest::collection::vec(token, 0..40).prop_map(|tokens| tokens.concat())
}

fn column_is_inside(text: &str, column: usize) -> bool {
    column >= 1 && column <= text.chars().count() + 1
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn token_soup_never_panics(text in isl_like()) {
        if let Err(error) = parse_set(&text) {
            prop_assert!(column_is_inside(&text, error.column), "{} for {:?}", error, text);
        }
        if let Err(error) = parse_piecewise(&text) {
            prop_assert!(column_is_inside(&text, error.column), "{} for {:?}", error, text);
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,60}") {
        let _ = parse_set(&text);
        let _ = parse_piecewise(&text);
    }
}

#[test]
fn errors_name_the_column() {
    let error = parse_set("[n] -> { [i] : (0 <= i <= n }").unwrap_err();
    assert_eq!(error.to_string(), "column 29: expected ')'");
    let error = parse_set("[n] -> { [i] : 0 <= q }").unwrap_err();
    assert_eq!(error.to_string(), "column 21: unknown variable 'q'");
    let deep = format!("[n] -> {{ [i] : {}i >= 0 }}", "(".repeat(10_000));
    assert!(parse_set(&deep).is_err());
}

//! Past the expansion's budgets (total degree, coefficients, vertex search), a chamber is
//! bounded by the largest coordinates of its vertices, or a box by each variable's own bounds:
//! never below the maximum found by enumeration, and said in a note.

use std::collections::BTreeMap;

use membound_bernstein::{Limits, bound_piecewise_within};
use membound_polyhedra::{Int, Rat, Value, parse_piecewise};

/// The bound, its notes, and the largest value over the integer points at each `n` in
/// `0..=4` (and `m` in `0..=3`), by enumeration of `i, j` in `-1..=12`.
fn check_against_enumeration(text: &str, limits: &Limits) -> Vec<String> {
    let pw = parse_piecewise(text).unwrap();
    let mut notes = Vec::new();
    let bound = bound_piecewise_within(&pw, limits, &mut notes).unwrap();
    let piece = &pw.pieces[0];
    for n in 0i64..=4 {
        for m in 0i64..=3 {
            let params: Vec<Int> = pw
                .space
                .params
                .iter()
                .map(|p| Int::from(if p == "n" { n } else { m }))
                .collect();
            let mut truth: Option<Rat> = None;
            for i in -1i64..=12 {
                for j in -1i64..=12 {
                    let dims = [Int::from(i), Int::from(j)];
                    if !piece.domain.contains(&params, &dims).unwrap() {
                        continue;
                    }
                    let value = piece.qp.eval(&|v: &str| match v {
                        "i" => Rat::from(i),
                        "j" => Rat::from(j),
                        "n" => Rat::from(n),
                        _ => Rat::from(m),
                    });
                    truth = Some(truth.map_or(value.clone(), |t| t.max(value)));
                }
            }
            let Some(truth) = truth else { continue };
            let point = BTreeMap::from([
                ("n".to_string(), Rat::from(n)),
                ("m".to_string(), Rat::from(m)),
            ]);
            let point: BTreeMap<String, Rat> = point
                .into_iter()
                .filter(|(k, _)| pw.space.params.contains(k))
                .collect();
            let sound = match bound.eval(&point).unwrap() {
                Value::Infinite => true,
                Value::Finite(v) => v >= truth,
            };
            assert!(
                sound,
                "{text}: {} below {truth} at n={n}, m={m}",
                bound.to_readable()
            );
        }
    }
    notes
}

#[test]
fn cheaper_bounds_are_never_below_the_maximum() {
    let texts = [
        "[n, m] -> { [i, j] -> i^7*j^6 - 3*i^4*j*n : 0 <= i <= n and 0 <= j <= i + m }",
        "[n, m] -> { [i, j] -> -i^7*j^6 + 5*i^2*m - 7 : 0 <= i <= n and -m <= j <= i }",
        "[n] -> { [i, j] -> (i - j)^13 + i*j*n : 0 <= i <= n and 0 <= j <= 2n - i }",
        "[n, m] -> { [i, j] -> i^4*j^3 - 2*i^2*j^5 : 0 <= i <= n and 0 <= j <= m }",
    ];
    // Tight budgets force the cheaper bound on every chamber.
    let tight = Limits {
        max_coefficients: 1,
        max_degree: 0,
    };
    for text in texts {
        let notes = check_against_enumeration(text, &tight);
        assert!(!notes.is_empty(), "{text}: no note");
        let _ = check_against_enumeration(text, &Limits::default());
    }
}

#[test]
fn a_box_in_many_variables_is_bounded_by_its_sides() {
    let names: Vec<String> = (0..16).map(|k| format!("x{k}")).collect();
    let constraints: Vec<String> = names.iter().map(|x| format!("-1 <= {x} <= n")).collect();
    let text = format!(
        "[n] -> {{ [{}] -> {} : {} }}",
        names.join(", "),
        names.join("*"),
        constraints.join(" and ")
    );
    let pw = parse_piecewise(&text).unwrap();
    let mut notes = Vec::new();
    let bound = bound_piecewise_within(&pw, &Limits::default(), &mut notes).unwrap();
    assert!(notes[0].contains("16 variables"), "{notes:?}");
    // |x_k| <= max(n, 1): at n = 0 the product of sixteen -1 is 1.
    for (n, expected) in [(0i64, 1i64), (1, 1), (2, 65536)] {
        let point = BTreeMap::from([("n".to_string(), Rat::from(n))]);
        assert_eq!(
            bound.eval(&point).unwrap(),
            Value::Finite(Rat::from(expected)),
            "{}",
            bound.to_readable()
        );
    }
}

//! Loop nests as javac compiles them (fixture `nests`): bounds computed into operand-stack slots
//! that later loops reuse. Oracles: the nest run by hand here (its objects, compared with `eval`
//! on a grid) and real runs under the agent (`validate` in the HotSpot model: every prediction,
//! objects and bytes, equal to the run).

use membound_tests::{eval_method, fixture_certificate, validated_exactly};
use serde_json::Value;

/// The objects `Temporaries.nest(a, b)` allocates, run by hand: `new long[r][c]` is one array
/// of arrays and r arrays.
fn nest_by_hand(a: i64, b: i64) -> i64 {
    let mut objects = 0;
    for i1 in 0..=1 + a {
        for i3 in i1..=2 * b {
            objects += 1 + i1;
            objects += (2 + 2 * i1 + 2 * i3 + 1) * 3;
        }
    }
    objects
}

/// The inner loop keeps the middle loop's bound `i3 <= 2*b` although its own bound reuses the
/// stack slots that held it (it was ∞: the widening at the inner head dropped the bound written
/// through a slot).
#[test]
fn a_nest_whose_bounds_share_stack_slots_is_exact() {
    let method = "nests.Temporaries.nest";
    let certificate = fixture_certificate("nests", method, "hotspot-coops");
    for a in -2..=4 {
        for b in -2..=4 {
            let alloc = &eval_method(&certificate, method, &format!("a={a},b={b}"))["mem_alloc"];
            assert_eq!(
                alloc["objects"],
                Value::from(nest_by_hand(a, b)),
                "a={a}, b={b}"
            );
        }
    }
    let args = ["1", "2", "3", "0", "4", "3", "-1", "0"];
    validated_exactly(&certificate, "nests.Temporaries", &args);
}

//! A call whose argument steps by two (`cells(a + 2*i)`, fixture `strided_calls`): the sum of
//! the callee's periodic bytes over the call's points holds on residue classes of `a`, which
//! the certificate writes exactly (it once widened them into a sum of maxima six times the
//! run); validated against runs with `a` even and odd.

use membound_tests::{
    analyze_into, compile_fixture, scratch_dir, total_objects, validated_exactly,
};

#[test]
fn a_strided_argument_sums_the_callees_periodic_bytes_exactly() {
    let classes = compile_fixture("strided_calls");
    let certificate = scratch_dir("strided_calls").join("everyOther.yaml");
    analyze_into(
        &classes,
        "Strided.everyOther",
        "hotspot-coops",
        &certificate,
    );
    for (a, b) in [("1", "2"), ("4", "3"), ("3", "0"), ("0", "0")] {
        let comparisons = validated_exactly(&certificate, "Strided", &[a, b]);
        let (observed, _) = total_objects(&comparisons);
        let a: i64 = a.parse().unwrap();
        let b: i64 = b.parse().unwrap();
        assert_eq!(observed, 1 + 2 * b + 2 * a);
    }
}

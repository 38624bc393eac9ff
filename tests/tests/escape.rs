//! `membound regions`: the region tree of Fig 1.4 (Example 1.6): every C object dies with the m2
//! that made it, so both m2 activations capture the C site.

use membound_tests::fixture_output;

#[test]
fn fig14_regions_capture_c_in_each_m2() {
    let text = fixture_output("regions", "thesis", "thesis.Fig14.m0", &[]);
    let captured_c = text
        .lines()
        .filter(|l| l.contains("captures thesis.C at m2@24"))
        .count();
    assert_eq!(captured_c, 2, "{text}");
    let dot = fixture_output("regions", "thesis", "thesis.Fig14.m0", &["--format", "dot"]);
    assert!(dot.trim_start().starts_with("digraph"), "{dot}");
}

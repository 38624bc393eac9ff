//! `membound regions`: the region tree of Fig 1.4 in the `count` model: each activation with
//! the sites its region captures (Example 1.6: every C object dies with the m2 that made it),
//! its size (Example 1.9's rSize) and memRq (Example 1.10: `mc^2 + 7mc`).

use membound_tests::fixture_output;

#[test]
fn fig14_region_tree_with_sizes() {
    let text = fixture_output(
        "regions",
        "thesis",
        "thesis.Fig14.m0",
        &["--object-model", "count"],
    );
    let expected = "\
regions from thesis.Fig14.m0(I)V (object model count)
thesis.Fig14.m0(I)V: region cases(mc >= 0 -> 2*mc + 1; mc + 1 <= 0 -> 1; otherwise -> 0) objects, cases(mc >= 0 -> 4*mc; otherwise -> 0) bytes; memRq cases(mc >= 0 -> 2*mc + 1; mc + 1 <= 0 -> 1; otherwise -> 0) + cases(mc >= 1 -> 1/2*mc^2 + 7/2*mc; otherwise -> 0) objects, cases(mc >= 0 -> 4*mc; otherwise -> 0) + cases(mc >= 1 -> mc^2 + 3*mc; otherwise -> 0) bytes
  captures thesis.B[] at m2@1 (line 27) via @9 (line 16)
  captures thesis.B at m2@16 (line 29) via @9 (line 16)
  @2 (line 15) thesis.Fig14.m1(I)V: region cases(mc >= 1 -> 1/2*mc^2 + 5/2*mc; otherwise -> 0) objects, cases(mc >= 1 -> mc^2 + 2*mc; otherwise -> 0) bytes; memRq cases(mc >= 1 -> 1/2*mc^2 + 7/2*mc; otherwise -> 0) objects, cases(mc >= 1 -> mc^2 + 3*mc; otherwise -> 0) bytes
    captures thesis.A at m1@7 (line 21)
    captures thesis.B[] at m2@1 (line 27) via @17 (line 22)
    captures thesis.B at m2@16 (line 29) via @17 (line 22)
    @17 (line 22) thesis.Fig14.m2(I)[Lthesis/B;: region cases(mc >= 1 -> mc; otherwise -> 0) objects, cases(mc >= 1 -> mc; otherwise -> 0) bytes; memRq cases(mc >= 1 -> mc; otherwise -> 0) objects, cases(mc >= 1 -> mc; otherwise -> 0) bytes
      captures thesis.C at m2@24 (line 30)
  @9 (line 16) thesis.Fig14.m2(I)[Lthesis/B;: region cases(mc >= 1 -> 2*mc; otherwise -> 0) objects, cases(mc >= 1 -> 2*mc; otherwise -> 0) bytes; memRq cases(mc >= 1 -> 2*mc; otherwise -> 0) objects, cases(mc >= 1 -> 2*mc; otherwise -> 0) bytes
    captures thesis.C at m2@24 (line 30)
escaping thesis.Fig14.m0(I)V (0 sites): 0 objects, 0 bytes
memRq: cases(mc >= 0 -> 2*mc + 1; mc + 1 <= 0 -> 1; otherwise -> 0) + cases(mc >= 1 -> 1/2*mc^2 + 7/2*mc; otherwise -> 0) objects, cases(mc >= 0 -> 4*mc; otherwise -> 0) + cases(mc >= 1 -> mc^2 + 3*mc; otherwise -> 0) bytes
";
    assert_eq!(text, expected);
    let dot = fixture_output(
        "regions",
        "thesis",
        "thesis.Fig14.m0",
        &["--format", "dot", "--object-model", "count"],
    );
    assert!(dot.starts_with("digraph regions {"), "{dot}");
    assert_eq!(
        dot.matches(" -> r").count(),
        3,
        "m0 to m1 to m2, and m0 to m2: {dot}"
    );
    assert_eq!(dot.matches("thesis.C at m2@24").count(), 2, "{dot}");
}

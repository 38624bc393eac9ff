//! A spec'd library method that calls back into the program (`Arrays.sort`'s comparisons)
//! where the program's method has integer formals (fixture `spec_callbacks`): the call's point
//! in the spec's procedure is followed by the call itself, so its call set is built and the
//! bound's reason is what the comparisons do, not an internal error. `validate` follows an
//! object the comparator makes through the library's frames back to the comparator's region.

use membound_tests::{analyze_into, compile_fixture, membound, scratch_dir, validate_json};

#[test]
fn a_comparator_with_formals_called_back_by_a_sort_has_its_call_set() {
    let classes = compile_fixture("spec_callbacks");
    let run = membound([
        "analyze".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        "Callbacks.sortWith".as_ref(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !run.stdout.contains("is not followed by a call"),
        "{}",
        run.stdout
    );
    // The comparator makes a prefix per comparison, and TimSort compares a number of times
    // no affine expression of the length bounds.
    assert!(
        run.stdout.contains(
            "the call at offset 4 of java.util.Arrays.sort([Ljava/lang/Object;Ljava/util/Comparator;)V \
             to Callbacks$Limited.compare(Ljava/lang/Object;Ljava/lang/Object;)I: it runs an \
             unbounded number of times"
        ),
        "{}",
        run.stdout
    );
    let certificate = scratch_dir("spec-callbacks").join("sortWith.json");
    analyze_into(
        &classes,
        "Callbacks.sortWith",
        "hotspot-coops",
        &certificate,
    );
    for n in ["5", "40"] {
        let (code, json) = validate_json(&certificate, "Callbacks", &[n]);
        assert_eq!(code, 0, "n = {n}: {json:#}");
        assert_eq!(json["broken"], 0, "n = {n}: {json:#}");
    }
    // Below 32 words TimSort makes nothing: the peak is one comparison's two prefixes (a
    // String and its byte[] each), freed as compare returns, exactly as memRq predicts.
    let (_, json) = validate_json(&certificate, "Callbacks", &["5"]);
    let peak = json["comparisons"]
        .as_array()
        .expect("comparisons")
        .iter()
        .find(|c| c["what"] == "memRq (entry 1)" && c["quantity"] == "objects")
        .unwrap_or_else(|| panic!("no memRq in {json:#}"))
        .clone();
    assert_eq!(
        (&peak["observed"], &peak["predicted"]),
        (&4.into(), &4.into()),
        "{peak}"
    );
}

//! String concatenation by `invokedynamic`: a concatenation of strings and primitives makes two
//! objects (the String and its byte[]), its bytes bounded by the longest text of its arguments,
//! a String's by its length; a float or a double is first made a String, as `String.valueOf`
//! makes it (JDK 17's FloatingDecimal: a bound read from its code); an object's text is not
//! analyzed: ∞ with its reason. Oracle: real runs under the agent (`membound validate`).

use membound_tests::{
    analyze_into, compile_fixture, eval_method, scratch_dir, total_objects, validate_json,
};

#[test]
fn concatenations_of_primitives_are_bounded_and_hold_on_a_run() {
    let classes = compile_fixture("concat");
    let dir = scratch_dir("concat");
    let certificate = dir.join("numbers.yaml");
    analyze_into(&classes, "Concat.numbers", "hotspot-coops", &certificate);
    let bound = eval_method(&certificate, "Concat.numbers", "n=30");
    assert_eq!(bound["mem_alloc"]["objects"], 60, "{bound:#}");
    // "i=" + int + ", big=" + boolean: at most 2 + 11 + 6 + 5 = 24 Latin-1 chars, a byte[24]
    // of 40 bytes, and the String's 24.
    assert_eq!(bound["mem_alloc"]["bytes"], 30 * 64, "{bound:#}");
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    assert!(text.contains("strings are compact"), "{text}");
    let (code, json) = validate_json(&certificate, "Concat", &["30"]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(
        total_objects(json["comparisons"].as_array().expect("comparisons")),
        (60.into(), 60.into())
    );
}

#[test]
fn strings_bound_the_bytes_by_their_length_and_floats_by_their_longest_text() {
    let classes = compile_fixture("concat");
    let dir = scratch_dir("concat-unbounded");
    let strings = dir.join("strings.yaml");
    analyze_into(&classes, "Concat.strings", "hotspot-coops", &strings);
    let bound = eval_method(&strings, "Concat.strings", "n=5,prefix_length=1");
    assert_eq!(bound["mem_alloc"]["objects"], 10, "{bound:#}");
    // prefix + int: at most 1 + 11 chars (4 more for a null prefix, written `null`), two
    // bytes each (the prefix may be UTF-16): a byte[32] of 48 bytes and the String's 24, five
    // times.
    assert_eq!(bound["mem_alloc"]["bytes"], 5 * 72, "{bound:#}");
    let (code, json) = validate_json(&strings, "Concat", &["30"]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(
        total_objects(json["comparisons"].as_array().expect("comparisons")),
        (60.into(), 60.into())
    );
    let floats = dir.join("floats.yaml");
    analyze_into(&classes, "Concat.floats", "hotspot-coops", &floats);
    let bound = eval_method(&floats, "Concat.floats", "n=5");
    // Per concatenation: its String and byte[2 + 26] (72 bytes), and the float's text: its
    // String and byte[26] (72), the thread's buffer with its two char arrays, its map, entry
    // and table (264), and dtoa's big integers, 26 FDBigIntegers and 48 int[34] (8128).
    assert_eq!(bound["mem_alloc"]["objects"], 5 * 84, "{bound:#}");
    assert_eq!(bound["mem_alloc"]["bytes"], 5 * 8576, "{bound:#}");
    let text = std::fs::read_to_string(&floats).expect("certificate");
    assert!(text.contains("JDK 17's FloatingDecimal"), "{text}");
    let (code, json) = validate_json(&floats, "Concat", &["30"]);
    assert_eq!(code, 0, "{json:#}");
    let (observed, predicted) = total_objects(json["comparisons"].as_array().expect("comparisons"));
    assert_eq!(predicted, 30 * 84, "{json:#}");
    // Four objects per concatenation, and the thread's buffer once.
    assert!(observed.as_u64().expect("a count") >= 4 * 30, "{json:#}");
}

#[test]
fn an_object_leaves_the_concatenation_unbounded_with_its_reason() {
    let classes = compile_fixture("concat");
    let dir = scratch_dir("concat-objects");
    let objects = dir.join("objects.yaml");
    analyze_into(&classes, "Concat.objects", "hotspot-coops", &objects);
    let bound = eval_method(&objects, "Concat.objects", "n=5");
    assert_eq!(bound["mem_alloc"]["objects"], "infty", "{bound:#}");
    let text = std::fs::read_to_string(&objects).expect("certificate");
    assert!(
        text.contains("the text its toString makes is not analyzed"),
        "{text}"
    );
}

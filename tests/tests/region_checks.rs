//! `membound validate --check-regions` (issue 24 item 5): the agent walks the heap at the
//! exits of the methods whose regions hold objects, and an object the certificate places in a
//! region that is still reachable once the region's activation has returned is a broken
//! region (exit 1, naming the site). On `tests/fixtures/region_checks`: temporaries and a
//! callee's scratch array really are unreachable (the check passes); a certificate edited to
//! call captured an object kept in a static field, or one returned to the caller, is caught.

use std::path::{Path, PathBuf};

use membound_tests::{compile_fixture, fixture_certificate, membound};
use serde_json::Value;

const MAIN: &str = "regions.Regions";

/// `validate --check-regions --format json` of `certificate` on a run at n = 3: exit code and
/// report.
fn check_regions(certificate: &Path) -> (i32, Value) {
    let classes = compile_fixture("region_checks");
    let run = membound([
        "validate".as_ref(),
        certificate.as_os_str(),
        "--input".as_ref(),
        classes.as_os_str(),
        "--main".as_ref(),
        MAIN.as_ref(),
        "--check-regions".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        "--".as_ref(),
        "3".as_ref(),
    ]);
    let report = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|_| panic!("validate prints JSON: {}\n{}", run.stdout, run.stderr));
    (run.code, report)
}

/// The broken regions of a report as (region method, site, objects, what held them).
fn broken_regions(report: &Value) -> Vec<(String, String, u64, Value)> {
    report["regions"]["broken"]
        .as_array()
        .expect("a region check")
        .iter()
        .map(|b| {
            let text = |key: &str| b[key].as_str().expect("a string").to_string();
            let objects = b["objects"].as_u64().expect("a count");
            (text("region"), text("site"), objects, b["held_by"].clone())
        })
        .collect()
}

/// The certificate of `watched` with the region of `owner`'s own `int[]` site (allocated in
/// `owner` itself, through no call), `escapes`, edited to `owner`: the edit claims the object
/// captured by `owner`.
fn edited_to_captured(watched: &str, owner: &str) -> PathBuf {
    let path = fixture_certificate("region_checks", watched, "count");
    let mut certificate: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("certificate")).expect("JSON");
    let entry = certificate["methods"]
        .as_array_mut()
        .expect("methods")
        .iter_mut()
        .find(|m| m["method"].as_str().is_some_and(|n| n.starts_with(owner)))
        .expect("the owner's entry");
    let name = entry["method"].as_str().expect("a name").to_string();
    let site = entry["sites"]
        .as_array_mut()
        .expect("sites")
        .iter_mut()
        .find(|s| s["via"].is_null() && s["type"] == "int[]" && s["region"] == "escapes")
        .unwrap_or_else(|| panic!("an escaping int[] of {owner} itself"));
    let file = format!(
        "{}-edited.json",
        name.replace(|c: char| !c.is_alphanumeric(), "_")
    );
    site["region"] = Value::String(name);
    let edited = path.with_file_name(file);
    std::fs::write(&edited, certificate.to_string()).expect("write");
    edited
}

#[test]
fn objects_of_captured_sites_are_unreachable_when_their_region_ends() {
    // `temporaries` captures its boxes, and `scratch` (its callee) its array.
    let certificate = fixture_certificate("region_checks", "regions.Regions.temporaries", "count");
    let (code, report) = check_regions(&certificate);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(broken_regions(&report), []);
    // Walked at each exit of both methods that allocated: k = 1..=3 from `main` and from
    // `keepsOne` (k = 0 allocates nothing in `temporaries` but calls `scratch`, which does).
    let walked = report["regions"]["exits_walked"].as_u64().expect("a count");
    assert!(walked >= 8, "{report:#}");
}

#[test]
fn an_object_kept_in_a_static_field_breaks_a_region_claiming_it() {
    let (code, report) = check_regions(&edited_to_captured(
        "regions.Regions.keepsOne",
        "regions.Regions.keepsOne",
    ));
    assert_eq!(code, 1, "{report:#}");
    let broken = broken_regions(&report);
    assert_eq!(broken.len(), 1, "{report:#}");
    let (region, site, objects, held_by) = &broken[0];
    assert_eq!(region, "regions.Regions.keepsOne(I)I");
    assert!(
        site.starts_with("int[] allocated at regions.Regions.keepsOne(I)I@")
            && site.ends_with("(line 32)"),
        "{site}"
    );
    // Every entry's array is still held by the static field when `keepsOne` returns.
    assert_eq!(*objects, 4);
    assert_eq!(*held_by, serde_json::json!(["a static field"]));
}

#[test]
fn an_object_returned_to_the_caller_breaks_a_region_claiming_it() {
    // At the exit the returned array sits on the returning frame's operand stack, which stays
    // a root while its local variables do not.
    let (code, report) = check_regions(&edited_to_captured(
        "regions.Regions.made",
        "regions.Regions.made",
    ));
    assert_eq!(code, 1, "{report:#}");
    let broken = broken_regions(&report);
    assert_eq!(broken.len(), 1, "{report:#}");
    assert!(
        broken[0]
            .1
            .contains("regions.Regions.made(I)Ljava/lang/Object;@"),
        "{broken:?}"
    );
    assert_eq!(broken[0].2, 4);
    assert_eq!(broken[0].3, serde_json::json!(["the returned value"]));
}

#[test]
fn an_object_a_callee_keeps_breaks_the_callees_region_claiming_it() {
    // Watching the caller, the heap is walked at the callee's exits too.
    let edited = edited_to_captured("regions.Regions.keepsInCallee", "regions.Regions.keep(");
    let (code, report) = check_regions(&edited);
    assert_eq!(code, 1, "{report:#}");
    let broken = broken_regions(&report);
    assert_eq!(broken.len(), 1, "{report:#}");
    let (region, site, objects, held_by) = &broken[0];
    assert_eq!(region, "regions.Regions.keep(I)V");
    assert!(
        site.starts_with("int[] allocated at regions.Regions.keep(I)V@"),
        "{site}"
    );
    assert_eq!(*objects, 4);
    assert_eq!(*held_by, serde_json::json!(["a static field"]));
}

#[test]
fn without_the_flag_validate_walks_no_heap() {
    let certificate = edited_to_captured("regions.Regions.keepsOne", "regions.Regions.keepsOne");
    let classes = compile_fixture("region_checks");
    let run = membound([
        "validate".as_ref(),
        certificate.as_os_str(),
        "--input".as_ref(),
        classes.as_os_str(),
        "--main".as_ref(),
        MAIN.as_ref(),
        "--".as_ref(),
        "3".as_ref(),
    ]);
    // The edit moves an object between places, not the counts: the bounds still hold.
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains("regions checked"), "{}", run.stdout);
}

#[test]
fn a_certificate_without_regions_has_nothing_to_check() {
    let path = fixture_certificate("region_checks", "regions.Regions.temporaries", "count");
    let mut certificate: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("certificate")).expect("JSON");
    for method in certificate["methods"].as_array_mut().expect("methods") {
        let entry = method.as_object_mut().expect("an entry");
        for key in ["mem_captured", "mem_escapes", "mem_rq"] {
            entry.remove(key);
        }
    }
    let stripped = path.with_file_name("temporaries-without-regions.json");
    std::fs::write(&stripped, certificate.to_string()).expect("write");
    let run = membound([
        "validate".as_ref(),
        stripped.as_os_str(),
        "--main".as_ref(),
        MAIN.as_ref(),
        "--check-regions".as_ref(),
        "--".as_ref(),
        "3".as_ref(),
    ]);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("has no regions") && run.stderr.contains("--check-regions"),
        "{}",
        run.stderr
    );
}

//! docs/certificate.schema.json against what `membound analyze` writes: the JSON certificate,
//! and the YAML one read by an independent YAML reader (PyYAML), both validate; a certificate
//! with a field the schema does not know, or without a required one, does not. The validator
//! is Python's `jsonschema` in the oracle venv (`scripts/ensure-oracle-venv.sh`).

use membound_tests::{
    analyze_into, compile_fixture, oracle_run, schema_violations, scratch_dir, workspace_root,
};
use serde_json::Value;

fn schema() -> std::path::PathBuf {
    workspace_root().join("docs/certificate.schema.json")
}

/// The certificate of `method` in `model`, written as `<name>.json` and `<name>.yaml`: their
/// texts.
fn certificates(method: &str, model: &str, name: &str) -> (String, String) {
    let classes = compile_fixture("thesis");
    let dir = scratch_dir(&format!("schema-{name}"));
    let read = |extension: &str| {
        let path = dir.join(format!("{name}.{extension}"));
        analyze_into(&classes, method, model, &path);
        std::fs::read_to_string(&path).expect("the certificate was written")
    };
    (read("json"), read("yaml"))
}

/// YAML text as JSON, read by PyYAML (a YAML 1.1 reader, stricter about plain scalars that look
/// like booleans or numbers than membound's own).
fn yaml_as_json(yaml: &str) -> String {
    oracle_run(
        "import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))",
        &[],
        yaml,
    )
}

#[test]
fn certificates_written_by_analyze_follow_the_schema() {
    let cases = [
        ("thesis.Fig21.m0", "hotspot-coops", "fig21"),
        ("thesis.Fig14.m0", "count", "fig14"),
        ("thesis.Concat.join", "hotspot-coops", "concat"),
    ];
    for (method, model, name) in cases {
        let (json, yaml) = certificates(method, model, name);
        assert_eq!(
            schema_violations(&schema(), &json),
            Vec::<String>::new(),
            "{name}.json"
        );
        let converted = yaml_as_json(&yaml);
        assert_eq!(
            schema_violations(&schema(), &converted),
            Vec::<String>::new(),
            "{name}.yaml"
        );
        // The YAML carries the same document as the JSON.
        let from_json: Value = serde_json::from_str(&json).expect("JSON");
        let from_yaml: Value = serde_json::from_str(&converted).expect("JSON");
        assert_eq!(from_json, from_yaml, "{name}");
    }
}

#[test]
fn the_schema_knows_the_optional_fields_and_rejects_others() {
    let (json, _) = certificates("thesis.Fig21.m0", "hotspot-coops", "fields");
    let certificate: Value = serde_json::from_str(&json).expect("JSON");
    // The region quantities and regions are optional: the schema accepts them absent.
    let mut without_regions = certificate.clone();
    for method in without_regions["methods"].as_array_mut().expect("methods") {
        let method = method.as_object_mut().expect("a method");
        for key in ["mem_captured", "mem_escapes", "mem_rq"] {
            method.remove(key);
        }
        for site in method["sites"].as_array_mut().expect("sites") {
            site.as_object_mut().expect("a site").remove("region");
        }
    }
    assert_eq!(
        schema_violations(&schema(), &without_regions.to_string()),
        Vec::<String>::new()
    );
    let broken = |edit: &dyn Fn(&mut Value)| {
        let mut copy = certificate.clone();
        edit(&mut copy);
        schema_violations(&schema(), &copy.to_string())
    };
    assert_eq!(
        broken(&|c| c["membound"] = 1.into()),
        ["membound: 2 was expected"]
    );
    let missing = broken(&|c| {
        c["methods"][0]
            .as_object_mut()
            .expect("a method")
            .remove("mem_alloc");
    });
    assert_eq!(missing, ["methods/0: 'mem_alloc' is a required property"]);
    let unknown = broken(&|c| c["methods"][0]["sites"][0]["weight"] = 1.into());
    assert_eq!(unknown.len(), 1, "{unknown:?}");
    assert!(unknown[0].starts_with("methods/0/sites/0: "), "{unknown:?}");
    let negative = broken(&|c| c["methods"][0]["sites"][0]["at"]["offset"] = (-1).into());
    assert_eq!(negative.len(), 1, "{negative:?}");
}

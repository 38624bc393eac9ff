//! `membound codegen --lang java`: the generated class, compiled with javac and run, gives at
//! every parameter point exactly `membound eval`'s value rounded up, for every quantity the
//! certificate has (memAlloc, and memRq when escape analysis ran), in bytes and in objects;
//! ∞ is `Long.MAX_VALUE`, and a value beyond a `long` throws instead of wrapping around. The
//! certificates are analyzed fixtures and one written by hand with the closed forms of
//! recursion (powers, products, ⌊log2⌋).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use membound_tests::{Run, analyze_into, compile_fixture, membound, scratch_dir};
use serde_json::Value;

/// Calls every `public static long` method of `gen.Bounds` at each point given as an argument
/// (`n=3,k=5`), matching its `p_<name>` parameters (compiled with `-parameters`) by name, and
/// prints `method point value` or `method point overflow`.
const DRIVER: &str = r#"
import java.lang.reflect.*;
import java.util.*;

public class Driver {
    public static void main(String[] args) throws Exception {
        Method[] methods = gen.Bounds.class.getDeclaredMethods();
        Arrays.sort(methods, Comparator.comparing(Method::getName));
        for (String point : args) {
            Map<String, Long> values = new HashMap<>();
            for (String pair : point.split(",")) {
                String[] nameValue = pair.split("=");
                values.put("p_" + nameValue[0], Long.parseLong(nameValue[1]));
            }
            for (Method method : methods) {
                int modifiers = method.getModifiers();
                if (!Modifier.isPublic(modifiers) || method.getReturnType() != long.class) {
                    continue;
                }
                Parameter[] parameters = method.getParameters();
                Object[] arguments = new Object[parameters.length];
                for (int i = 0; i < parameters.length; i++) {
                    arguments[i] = values.get(parameters[i].getName());
                }
                String result;
                try {
                    result = Long.toString((Long) method.invoke(null, arguments));
                } catch (InvocationTargetException e) {
                    if (!(e.getCause() instanceof ArithmeticException)) throw e;
                    result = "overflow";
                }
                System.out.println(method.getName() + " " + point + " " + result);
            }
        }
    }
}
"#;

/// What a generated method evaluates: (certificate method, eval's key, unit).
type Quantity = (String, String, String);

/// Reads the generated methods' doc comments, `/** memRq of {@code M} in bytes. */`.
fn generated_methods(source: &str) -> BTreeMap<String, Quantity> {
    let mut found = BTreeMap::new();
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        let Some(doc) = line.trim().strip_prefix("/** mem") else {
            continue;
        };
        let (quantity, rest) = doc.split_once(" of {@code ").expect("a quantity's comment");
        let (method, unit) = rest.split_once("} in ").expect("its method and unit");
        let unit = unit.strip_suffix(". */").expect("the comment's end");
        let declaration = lines.next().expect("the method after its comment");
        let name = declaration
            .trim()
            .strip_prefix("public static long ")
            .and_then(|d| d.split_once('('))
            .expect("a generated method")
            .0;
        let key = match quantity {
            "Alloc" => "mem_alloc",
            "Rq" => "mem_rq",
            other => panic!("unexpected quantity mem{other}"),
        };
        found.insert(
            name.to_string(),
            (method.to_string(), key.to_string(), unit.to_string()),
        );
    }
    found
}

/// The points: every parameter of the certificate set, small (including negative), and every
/// one set to `large`.
fn points(names: &BTreeSet<String>, large: i64) -> Vec<String> {
    let mut values: Vec<Vec<i64>> = (0..40)
        .map(|i| {
            (0..names.len() as i64)
                .map(|j| (i * (2 * j + 1) + 3 * j) % 47 - 4)
                .collect()
        })
        .collect();
    values.push(vec![large; names.len()]);
    values
        .iter()
        .map(|point| {
            names
                .iter()
                .zip(point)
                .map(|(name, value)| format!("{name}={value}"))
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect()
}

/// `value` rounded up, if it fits in an `i64` (eval prints an integer, `"p/q"` or `"infty"`).
fn ceiling(value: &Value) -> Option<i128> {
    if let Some(n) = value.as_i64() {
        return Some(i128::from(n));
    }
    let text = value.as_str().expect("a number or a string");
    let (p, q) = text.split_once('/').unwrap_or((text, "1"));
    let (p, q): (i128, i128) = (p.parse().ok()?, q.parse().expect("a denominator"));
    let ceiling = -(-p).div_euclid(q);
    (i128::from(i64::MIN)..=i128::from(i64::MAX))
        .contains(&ceiling)
        .then_some(ceiling)
}

fn run(command: &mut Command) -> String {
    let run: Run = command.output().expect("the command starts").into();
    assert_eq!(run.code, 0, "{command:?} failed: {}", run.stderr);
    run.stdout
}

/// Analyzes `method` in `model`, generates its class, runs it at many points (one large enough
/// for cubic bounds to leave a `long`) and compares it with `membound eval`; returns how many
/// values were ∞.
fn generated_class_agrees_with_eval(method: &str, model: &str) -> usize {
    let dir = scratch_dir(&format!("codegen-{}-{model}", method.replace('.', "_")));
    let certificate = dir.join("cert.yaml");
    analyze_into(&compile_fixture("thesis"), method, model, &certificate);
    class_agrees_with_eval(&dir, &certificate, 3_000_000_000)
}

/// Generates the class of `certificate` in `dir`, runs it at many points and compares it with
/// `membound eval`; returns how many values were ∞.
fn class_agrees_with_eval(dir: &Path, certificate: &Path, large: i64) -> usize {
    let generated = membound([
        "codegen".as_ref(),
        certificate.as_os_str(),
        "--lang".as_ref(),
        "java".as_ref(),
        "--package".as_ref(),
        "gen".as_ref(),
        "--class".as_ref(),
        "Bounds".as_ref(),
        "-o".as_ref(),
        dir.join("src").as_os_str(),
    ]);
    assert_eq!(generated.code, 0, "codegen failed: {}", generated.stderr);
    let source_path = dir.join("src/gen/Bounds.java");
    let source = std::fs::read_to_string(&source_path).expect("codegen wrote gen/Bounds.java");
    std::fs::write(dir.join("Driver.java"), DRIVER).expect("the driver");
    run(Command::new("javac")
        .args(["-parameters", "-encoding", "UTF-8", "-d"])
        .arg(dir.join("classes"))
        .arg(&source_path)
        .arg(dir.join("Driver.java")));

    let methods = generated_methods(&source);
    let cert: Value = serde_json::from_str(&run(Command::new(membound_tests::membound_bin())
        .args(["eval", "--format", "json"])
        .arg(certificate)))
    .expect("eval prints JSON");
    // Without values eval skips every method; the skipped list names each parameter.
    let names: BTreeSet<String> = cert["skipped"]
        .as_array()
        .expect("skipped methods")
        .iter()
        .flat_map(|m| m["missing_params"].as_array().expect("names").clone())
        .map(|n| n.as_str().expect("a name").to_string())
        .collect();
    let points = points(&names, large);
    let output = run(Command::new("java")
        .arg("-cp")
        .arg(dir.join("classes"))
        .arg("Driver")
        .args(&points));
    let java: BTreeMap<(&str, &str), &str> = output
        .lines()
        .map(|line| {
            let mut parts = line.split(' ');
            let (Some(method), Some(point), Some(value)) =
                (parts.next(), parts.next(), parts.next())
            else {
                panic!("bad driver line {line}");
            };
            ((method, point), value)
        })
        .collect();

    let mut infinite = 0;
    let mut compared = 0;
    for point in &points {
        let evaluation = eval_at(certificate, point);
        for entry in evaluation["methods"].as_array().expect("methods") {
            for key in ["mem_alloc", "mem_rq"] {
                if entry.get(key).is_none() {
                    continue;
                }
                for unit in ["bytes", "objects"] {
                    let quantity = (
                        entry["method"].as_str().expect("a method").to_string(),
                        key.to_string(),
                        unit.to_string(),
                    );
                    let name = methods
                        .iter()
                        .find(|(_, q)| **q == quantity)
                        .unwrap_or_else(|| panic!("no generated method for {quantity:?}"))
                        .0;
                    let got = java[&(name.as_str(), point.as_str())];
                    let expected = &entry[key][unit];
                    let context = format!("{name} at {point}: eval {expected}, java {got}");
                    if expected == "infty" {
                        assert_eq!(got, i64::MAX.to_string(), "{context}");
                        infinite += 1;
                    } else if let Some(exact) = ceiling(expected) {
                        // Exact fractions: no intermediate value can overflow.
                        assert_eq!(got, exact.to_string(), "{context}");
                    } else {
                        assert_eq!(got, "overflow", "{context}");
                    }
                    compared += 1;
                }
            }
        }
    }
    assert_eq!(
        compared,
        methods.len() * points.len(),
        "every method compared"
    );
    infinite
}

fn eval_at(certificate: &Path, point: &str) -> Value {
    let output = run(Command::new(membound_tests::membound_bin())
        .args(["eval", "--format", "json"])
        .arg(certificate)
        .args(["--param", point]));
    serde_json::from_str(&output).expect("eval prints JSON")
}

#[test]
fn fig14_class_agrees_with_eval_in_both_models() {
    for model in ["hotspot-coops", "count"] {
        assert_eq!(
            generated_class_agrees_with_eval("thesis.Fig14.m0", model),
            0
        );
    }
}

#[test]
fn fig21_class_agrees_with_eval_in_both_models() {
    for model in ["hotspot-coops", "count"] {
        assert_eq!(
            generated_class_agrees_with_eval("thesis.Fig21.m0", model),
            0
        );
    }
}

/// A certificate as the analysis of recursive methods writes it: powers, products, ⌊log2⌋.
const RECURSIVE: &str = r#"membound: 1
tool: { version: 0.1.0, object_model: hotspot-coops }
input: { path: rec.jar, sha256: 0000000000000000000000000000000000000000000000000000000000000000 }
entry: { method: "rec.Tree.build(I)Lrec/Tree;" }
assumptions: []
methods:
- method: "rec.Tree.build(I)Lrec/Tree;"
  params: [ { name: d, origin: parameter 0 (int d) } ]
  mem_alloc:
    objects: "cases(d >= 0 -> 2^(d) + (-1); otherwise -> (0))"
    bytes: "cases(d >= 0 -> (24)*2^(d) + (-24); otherwise -> (0))"
  mem_rq:
    objects: "cases(d >= 1 -> (d)*2^(d - 1); otherwise -> (0))"
    bytes: "max((16)*2^(1/2*d), (8/3)*4^(d) + (-8/3))"
  sites: []
- method: "rec.Halve.split(II)V"
  params: [ { name: n, origin: parameter 0 (int n) }, { name: m, origin: parameter 1 (int m) } ]
  mem_alloc:
    objects: "2^[floor_log2(n) + (1)] + (-1)"
    bytes: "(16)*2^[floor_log2(n*m + 1)] + (m^2)*floor_log2(n) + 2^(-m)"
  sites: []
"#;

#[test]
fn closed_forms_of_recursion_agree_with_eval() {
    let dir = scratch_dir("codegen-recursive");
    let certificate = dir.join("cert.yaml");
    std::fs::write(&certificate, RECURSIVE).expect("the certificate");
    // 4^70 and 2^70 are far beyond a long: eval gives the exact value, Java throws.
    assert_eq!(class_agrees_with_eval(&dir, &certificate, 70), 0);
}

#[test]
fn an_infinite_bound_is_long_max_value() {
    // Concat's string concatenation is ∞ in objects and bytes, at every point.
    let infinite = generated_class_agrees_with_eval("thesis.Concat.join", "hotspot-coops");
    assert!(infinite >= 2 * 41, "{infinite} infinite values");
}

#[test]
fn bad_options_exit_2() {
    let dir = scratch_dir("codegen-bad");
    let certificate = dir.join("cert.yaml");
    analyze_into(
        &compile_fixture("thesis"),
        "thesis.Concat.join",
        "count",
        &certificate,
    );
    for args in [
        vec!["--class", "class"],
        vec!["--package", "a..b"],
        vec!["--lang", "cobol"],
    ] {
        let run = membound(
            ["codegen", certificate.to_str().expect("a UTF-8 path")]
                .into_iter()
                .chain(args.iter().copied()),
        );
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
    }
    let missing = membound(["codegen", "no-such-certificate.yaml"]);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
}

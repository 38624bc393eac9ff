//! Per-method summaries on call trees whose chains explode: `m_i` runs a loop of `n` iterations
//! that allocates one object and calls `m_{i+1}` twice, twenty levels deep (2^20 chains through
//! 21 methods). The bound is exact, and the certificate lists each method's sites once per
//! statement that reaches them, not once per chain.

use std::fmt::Write;

use membound_tests::{analyze_into, compile_java_tree, eval_method, membound, scratch_dir};

const DEPTH: u32 = 20;

fn call_tree() -> String {
    let mut source = String::from("public class Tree {\n    static class Cell { int v; }\n");
    for level in 0..=DEPTH {
        let _ = writeln!(source, "    static void m{level}(int n) {{");
        source.push_str("        for (int i = 0; i < n; i++) {\n");
        source.push_str("            Cell c = new Cell();\n");
        if level < DEPTH {
            let _ = writeln!(
                source,
                "            m{}(n);\n            m{}(n);",
                level + 1,
                level + 1
            );
        }
        source.push_str("        }\n    }\n");
    }
    source.push_str(
        "    public static void main(String[] args) { m0(Integer.parseInt(args[0])); }\n}\n",
    );
    source
}

/// Objects allocated by a call of `m0(n)`: `T_20 = n`, `T_i = n + 2n·T_{i+1}`.
fn objects(n: u128) -> u128 {
    (0..DEPTH).fold(n, |below, _| n + 2 * n * below)
}

#[test]
fn a_call_tree_of_two_to_the_twenty_chains_is_exact() {
    let src = scratch_dir("summaries-call-tree");
    std::fs::write(src.join("Tree.java"), call_tree()).expect("source written");
    let classes = compile_java_tree("summaries-call-tree", &src);
    let certificate = src.join("tree.json");
    analyze_into(&classes, "Tree.m0", "count", &certificate);
    for n in 0..=3u128 {
        let m0 = eval_method(&certificate, "Tree.m0", &format!("n={n}"));
        let value = &m0["mem_alloc"]["objects"];
        let printed = value
            .as_i64()
            .map_or_else(|| value.to_string(), |v| v.to_string());
        assert_eq!(
            printed,
            objects(n).to_string(),
            "memAlloc of m0 at n={n}: {m0}"
        );
    }
    let text = std::fs::read_to_string(&certificate).expect("certificate");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let m0_sites = json["methods"][0]["sites"].as_array().expect("sites").len();
    // Its own allocation, then each of the 20 cells below through each of its two calls.
    assert_eq!(m0_sites, 1 + 2 * DEPTH as usize);
}

/// `d_i` calls `l_i` and `r_i`, which both call `d_{i+1}`: a call DAG with 2^20 paths. The text
/// report's call tree lists a shared callee's calls once and refers back to them after (it
/// expanded every path, and ran out of memory on a real library method).
#[test]
fn the_call_tree_of_a_diamond_lists_each_method_calls_once() {
    let mut source = String::from("public class Diamond {\n");
    for level in 0..=DEPTH {
        let _ = writeln!(source, "    static Object d{level}(int n) {{");
        if level < DEPTH {
            let _ = writeln!(source, "        l{level}(n);\n        r{level}(n);");
        }
        source.push_str("        return new int[n];\n    }\n");
        if level < DEPTH {
            for side in ["l", "r"] {
                let _ = writeln!(
                    source,
                    "    static Object {side}{level}(int n) {{ return d{}(n); }}",
                    level + 1
                );
            }
        }
    }
    source.push_str("}\n");
    let src = scratch_dir("summaries-diamond");
    std::fs::write(src.join("Diamond.java"), source).expect("source written");
    let classes = compile_java_tree("summaries-diamond", &src);
    let run = membound([
        "analyze".as_ref(),
        classes.as_os_str(),
        "--method".as_ref(),
        "Diamond.d0".as_ref(),
        "-q".as_ref(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tree: Vec<&str> = run
        .stdout
        .lines()
        .skip_while(|line| *line != "call tree:")
        .skip(1)
        .take_while(|line| !line.is_empty())
        .collect();
    // d0, then per level l_i, d_{i+1} (expanded), r_i, d_{i+1} (referring back).
    assert_eq!(tree.len(), 1 + 4 * DEPTH as usize, "{}", run.stdout);
    let referring = tree.iter().filter(|l| l.ends_with("(its calls as above)"));
    assert_eq!(referring.count(), DEPTH as usize - 1, "{}", run.stdout);
}

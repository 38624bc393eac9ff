//! Certificates are checked when read, the same for every command: the inputs of issue 23
//! (100000 nested lists under an unknown key, `1/0*k^2`, negative byte counts, a byte-order
//! mark) and the other checks of `check_read`, each finishing at once with a clear outcome;
//! then a deterministic mini-fuzz of mutated certificates, each read within a time limit.

use std::sync::mpsc;
use std::time::Duration;

use membound_certificate::Certificate;

/// A valid certificate (YAML) with `objects` and `bytes` as memAlloc of its one method `M.m`
/// with parameter `k`.
fn yaml(objects: &str, bytes: &str) -> String {
    format!(
        r#"membound: 1
tool: {{ version: 0.1.0, object_model: hotspot-coops }}
input: {{ path: app.jar, sha256: "{sha}" }}
entry: {{ method: "M.m(I)V" }}
assumptions: [ "integer arithmetic does not overflow" ]
methods:
- method: M.m(I)V
  params: [ {{ name: k, origin: parameter 0 (int k) }} ]
  mem_alloc: {{ objects: "{objects}", bytes: "{bytes}" }}
  sites:
  - chain: [ {{ method: M.m(I)V, offset: 3, line: 7 }} ]
    type: "M$A[]"
    count: "(k)"
    objects: "(k)"
    bytes: "(16*k)"
"#,
        sha = "ab".repeat(32)
    )
}

fn error(text: &str) -> String {
    match within(Duration::from_secs(10), text.to_string()) {
        Ok(_) => panic!(
            "read although it should not be:\n{}",
            &text[..text.len().min(400)]
        ),
        Err(e) => e,
    }
}

/// Parses `text` on a thread and fails the test when it takes longer than `limit`.
fn within(limit: Duration, text: String) -> Result<Certificate, String> {
    let (send, receive) = mpsc::channel();
    let shown = text[..text.len().min(200)].to_string();
    std::thread::spawn(move || {
        let _ = send.send(Certificate::parse(&text));
    });
    receive
        .recv_timeout(limit)
        .unwrap_or_else(|_| panic!("reading took more than {limit:?}: {shown}"))
}

#[test]
fn a_valid_certificate_reads() {
    let certificate = Certificate::parse(&yaml("(k + 1)", "(16*k + 16)")).unwrap();
    assert_eq!(certificate.methods[0].params[0].name, "k");
    // With a byte-order mark too, YAML and JSON.
    let with_bom = format!("\u{feff}{}", yaml("(k + 1)", "(16*k + 16)"));
    assert_eq!(Certificate::parse(&with_bom).unwrap(), certificate);
    let json = format!("\u{feff}{}", certificate.to_json());
    assert_eq!(Certificate::parse(&json).unwrap(), certificate);
}

#[test]
fn deeply_nested_input_is_refused_at_once() {
    let depth = 100_000;
    let flow = format!(
        "{}extra: {}{}\n",
        yaml("(k)", "(k)"),
        "[".repeat(depth),
        "]".repeat(depth)
    );
    assert!(error(&flow).contains("nested deeper than 64"));
    let block: String = (0..depth).map(|_| "- ").collect::<String>() + "x\n";
    let block = format!("{}extra:\n{block}", yaml("(k)", "(k)"));
    assert!(error(&block).contains("nested deeper than 256"));
    let indented: String = (0..2000)
        .map(|level| format!("{}a{level}:\n", " ".repeat(level)))
        .collect();
    assert!(error(&format!("{}extra:\n {indented}", yaml("(k)", "(k)"))).contains("nested deeper"));
    let json = format!("{{\"extra\": {}{}}}", "[".repeat(depth), "]".repeat(depth));
    assert!(error(&json).contains("nested deeper than 64"));
}

#[test]
fn brackets_inside_plain_and_quoted_text_are_text() {
    // Method descriptors with `[` in plain scalars, many times over: not nesting.
    let mut text = yaml("(k)", "(k)");
    text = text.replace(
        "assumptions: [ \"integer arithmetic does not overflow\" ]",
        "assumptions:",
    );
    for i in 0..300 {
        text.push_str(&format!(
            "- method: P.main{i}([Ljava/lang/String;)V\n  params: []\n  mem_alloc: {{ objects: \"(1)\", bytes: '[(16)]' }}\n  sites: []\n"
        ));
    }
    let assumptions: String = (0..300)
        .map(|i| format!("- an assumption [{i} with an open bracket and a {{ brace\n"))
        .collect();
    text = text.replace("assumptions:\n", &format!("assumptions:\n{assumptions}"));
    let certificate = Certificate::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(certificate.methods.len(), 301);
    assert_eq!(certificate.assumptions.len(), 300);
}

#[test]
fn meaning_is_checked_for_every_expression() {
    // Issue 23: `1/0*k^2` passed `check` when the budget looked at the other unit.
    let e = error(&yaml("(1/0*k^2)", "(16*k)"));
    assert!(
        e.contains("mem_alloc.objects") && e.contains("division"),
        "{e}"
    );
    let e = error(&yaml("(k)", "(-560)"));
    assert!(e.contains("negative amount -560"), "{e}");
    let e = error(&yaml("(k)", "cases(k >= 1 -> (16*k); otherwise -> (-1))"));
    assert!(e.contains("negative amount -1"), "{e}");
    // A negative term of a sum is not a negative amount.
    Certificate::parse(&yaml("2^(k) + (-1)", "(16)*2^(k) + (-16)")).unwrap();
    let e = error(&yaml("(k*n)", "(16*k)"));
    assert!(
        e.contains("uses `n`") && e.contains("parameters (k)"),
        "{e}"
    );
    let e = error(&yaml("(k)", "(16*k) +"));
    assert!(e.contains("mem_alloc.bytes"), "{e}");
    let site = yaml("(k)", "(k)").replace("count: \"(k)\"", "count: \"max((k), (j))\"");
    let e = error(&site);
    assert!(
        e.contains("sites[0].count") && e.contains("uses `j`"),
        "{e}"
    );
}

#[test]
fn the_schema_is_checked() {
    let e = error(&yaml("(k)", "(k)").replace("offset: 3", "offset: 3, color: red"));
    assert!(
        e.contains("unknown field `methods.0.sites.0.chain.0.color`"),
        "{e}"
    );
    let e = error(&format!("{}surprise: 1\n", yaml("(k)", "(k)")));
    assert!(e.contains("unknown field `surprise`"), "{e}");
    let e = error(&yaml("(k)", "(k)").replace(&"ab".repeat(32), "not-a-hash"));
    assert!(e.contains("input.sha256"), "{e}");
    let e = error(&yaml("(k)", "(k)").replace("- method: M.m(I)V", "- method: m"));
    assert!(e.contains("methods[0].method `m`"), "{e}");
    let e = error(&yaml("(k)", "(k)").replace("membound: 1", "membound: 99"));
    assert!(e.contains("format version 99"), "{e}");
    let e = error(&yaml("(k)", "(k)").replace(
        "params: [ { name: k, origin: parameter 0 (int k) } ]",
        "params: [ { name: k, origin: a }, { name: k, origin: b } ]",
    ));
    assert!(e.contains("`k` is listed twice"), "{e}");
}

#[test]
fn a_certificate_beyond_the_size_limit_is_refused() {
    let padding = "#".repeat(65 << 20);
    let e = error(&format!("{}{padding}\n", yaml("(k)", "(k)")));
    assert!(e.contains("bytes a certificate may have"), "{e}");
}

/// xorshift, as the other mini-fuzzes.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Characters that matter to YAML, JSON and expressions.
const ALPHABET: &[u8] = b"[]{}()-:,'\"# \n^*+/0123456789kn_xfloor_log2infty";

#[test]
fn mutated_certificates_are_read_or_refused_within_a_time_limit() {
    let seeds = [
        yaml(
            "cases(k >= 1 -> (k^2 + 7*k); otherwise -> (0)) + (1)",
            "(16)*2^[floor_log2(k) + (1)] + (-16)",
        ),
        Certificate::parse(&yaml("max((k), (2*k))", "(16*k)"))
            .unwrap()
            .to_json(),
    ];
    let mut random = Random(0x23);
    for round in 0..2000 {
        let mut bytes = seeds[round % seeds.len()].clone().into_bytes();
        for _ in 0..1 + random.below(4) {
            let at = random.below(bytes.len());
            match random.below(4) {
                0 => bytes[at] = ALPHABET[random.below(ALPHABET.len())],
                1 => {
                    bytes.remove(at);
                }
                2 => {
                    let end = (at + random.below(40)).min(bytes.len());
                    let copy = bytes[at..end].to_vec();
                    let times = 1 + random.below(200);
                    for _ in 0..times {
                        bytes.splice(at..at, copy.iter().copied());
                    }
                }
                _ => bytes.insert(at, ALPHABET[random.below(ALPHABET.len())]),
            }
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        // Either outcome is fine; a panic or a hang is not.
        let _ = within(Duration::from_secs(10), text);
    }
}

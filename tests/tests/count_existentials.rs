//! `membound count` on sets the counting once refused: existentials with non-unit coefficients
//! on both sides of their bounds or in an equality, and unions of more than 12 parts. Values
//! at points are compared with direct enumeration written out here.

use membound_tests::membound;

fn last_line(text: &str) -> &str {
    text.trim_end().lines().last().unwrap_or("")
}

/// The count `membound count SET --at n=N` prints, after checking the plain run prints a
/// piecewise quasi-polynomial.
fn count_at(set: &str, n: i64) -> String {
    let plain = membound(["count", set]);
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    assert!(plain.stdout.contains("[n] -> {"), "{}", plain.stdout);
    let run = membound(["count", set, "--at", &format!("n={n}")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    last_line(&run.stdout).to_string()
}

#[test]
fn non_unit_bounds_on_both_sides_of_an_existential() {
    let set = "[n] -> { [i] : exists t : 0 <= i <= n and 3t <= i + n <= 3t + 1 }";
    for n in [0, 4, 7] {
        // A multiple of 3 in [i + n - 1, i + n]: (i + n) mod 3 is 0 or 1.
        let expected = (0..=n).filter(|i| (i + n) % 3 != 2).count();
        assert_eq!(count_at(set, n), expected.to_string(), "n = {n}");
    }
}

#[test]
fn a_non_unit_equality_on_an_existential() {
    let set =
        "[n] -> { [i, j] : exists t : 2t = i + j and 3t >= j and 0 <= i <= n and 0 <= j <= n }";
    for n in [0, 3, 6] {
        // 3t >= j holds for every i, j >= 0: the points with i + j even.
        let expected = (0..=n)
            .flat_map(|i| (0..=n).map(move |j| (i + j) % 2))
            .filter(|parity| *parity == 0)
            .count();
        assert_eq!(count_at(set, n), expected.to_string(), "n = {n}");
    }
}

#[test]
fn a_union_of_fourteen_parts() {
    // Parts 3k <= i <= 3k + n for k = 0..13, overlapping when n >= 3.
    let parts: Vec<String> = (0..14)
        .map(|k| format!("({} <= i <= {} + n)", 3 * k, 3 * k))
        .collect();
    let set = format!("[n] -> {{ [i] : {} }}", parts.join(" or "));
    for n in [0, 2, 5] {
        let expected = (0..=39 + n)
            .filter(|i| (0..14).any(|k| 3 * k <= *i && *i <= 3 * k + n))
            .count();
        assert_eq!(count_at(&set, n), expected.to_string(), "n = {n}");
    }
}

//! Integer linear algebra for lattices: Hermite normal form of a set of generators (a
//! canonical basis) and a diagonalisation by unimodular column operations (Smith-like) that
//! turns a basis into congruences.

use membound_polyhedra::Int;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};

pub(crate) type Row = Vec<Int>;

/// The row-style Hermite normal form of the lattice spanned by `rows` (each of length
/// `width`): echelon rows with positive pivots and the entries above each pivot reduced into
/// `[0, pivot)`. Two generator sets span the same lattice exactly when their forms are equal.
pub(crate) fn hermite(mut rows: Vec<Row>, width: usize) -> Vec<Row> {
    let mut done = 0;
    for column in 0..width {
        if !gather_pivot(&mut rows, done, column) {
            continue;
        }
        if rows[done][column].is_negative() {
            rows[done] = negate(&rows[done]);
        }
        for above in 0..done {
            let factor = rows[above][column].div_floor(&rows[done][column]);
            if !factor.is_zero() {
                rows[above] = sub_scaled(&rows[above], &factor, &rows[done]);
            }
        }
        done += 1;
    }
    rows.truncate(done);
    rows
}

/// Euclid on `column` over rows `from..`: leaves the gcd in row `from` and zeros below.
/// Returns false when the column is zero there.
fn gather_pivot(rows: &mut [Row], from: usize, column: usize) -> bool {
    loop {
        let smallest = (from..rows.len())
            .filter(|&r| !rows[r][column].is_zero())
            .min_by(|&a, &b| rows[a][column].magnitude().cmp(rows[b][column].magnitude()));
        let Some(smallest) = smallest else {
            return false;
        };
        rows.swap(from, smallest);
        let mut all_zero = true;
        for r in from + 1..rows.len() {
            let factor = rows[r][column].div_floor(&rows[from][column]);
            // A zero factor leaves the row as it is: no new row of `width` big integers.
            if !factor.is_zero() {
                rows[r] = sub_scaled(&rows[r], &factor, &rows[from]);
            }
            all_zero &= rows[r][column].is_zero();
        }
        if all_zero {
            return true;
        }
    }
}

/// `a - factor * b`.
pub(crate) fn sub_scaled(a: &[Int], factor: &Int, b: &[Int]) -> Row {
    a.iter().zip(b).map(|(x, y)| x - factor * y).collect()
}

pub(crate) fn negate(a: &[Int]) -> Row {
    a.iter().map(|x| -x).collect()
}

pub(crate) fn dot(a: &[Int], b: &[Int]) -> Int {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// For a basis `rows` of a lattice Λ in Z^width, returns `(u_k, d_k)` for k in 0..width such
/// that `x ∈ Λ` iff `u_k · x ≡ 0 (mod d_k)` for every k, where `d_k = 0` means `u_k · x = 0`.
/// Found by diagonalising `rows` with row operations (which keep Λ) and unimodular column
/// operations (recorded: the `u_k` are the columns of their product).
pub(crate) fn congruences_of_basis(rows: &[Row], width: usize) -> Vec<(Row, Int)> {
    let mut matrix: Vec<Row> = rows.to_vec();
    let mut columns: Vec<Row> = (0..width).map(|k| unit(width, k)).collect();
    let mut diagonal = Vec::new();
    for t in 0..width {
        if t >= matrix.len() || !diagonalise_at(&mut matrix, &mut columns, t) {
            break;
        }
        diagonal.push(matrix[t][t].abs());
    }
    columns
        .into_iter()
        .enumerate()
        .map(|(k, u)| (u, diagonal.get(k).cloned().unwrap_or_default()))
        .collect()
}

/// Makes row `t` and column `t` of `matrix` zero except at `(t, t)`, choosing the smallest
/// entry of the lower-right block as pivot. False when that block is zero.
///
/// Zero factors are skipped: the bases met are mostly unit rows, where almost every factor
/// is zero and subtracting anyway would rebuild the whole matrix at every step.
fn diagonalise_at(matrix: &mut [Row], columns: &mut [Row], t: usize) -> bool {
    loop {
        let Some((r, c)) = smallest_entry(matrix, t) else {
            return false;
        };
        matrix.swap(t, r);
        swap_columns(matrix, columns, t, c);
        let pivot = matrix[t][t].clone();
        let mut clean = true;
        for r in t + 1..matrix.len() {
            let factor = matrix[r][t].div_floor(&pivot);
            if !factor.is_zero() {
                matrix[r] = sub_scaled(&matrix[r], &factor, &matrix[t]);
            }
            clean &= matrix[r][t].is_zero();
        }
        for c in t + 1..matrix[t].len() {
            let factor = matrix[t][c].div_floor(&pivot);
            if !factor.is_zero() {
                subtract_column(matrix, columns, c, &factor, t);
            }
            clean &= matrix[t][c].is_zero();
        }
        if clean {
            return true;
        }
    }
}

/// The position of a non-zero entry of least magnitude in the block below and right of
/// `(t, t)` (the first one met when several tie; a unit ends the search at once).
fn smallest_entry(matrix: &[Row], t: usize) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    for (r, row) in matrix.iter().enumerate().skip(t) {
        for (c, value) in row.iter().enumerate().skip(t) {
            if value.is_zero() {
                continue;
            }
            if best.is_none_or(|(br, bc)| value.magnitude() < matrix[br][bc].magnitude()) {
                best = Some((r, c));
                if value.magnitude().is_one() {
                    return best;
                }
            }
        }
    }
    best
}

fn swap_columns(matrix: &mut [Row], columns: &mut [Row], a: usize, b: usize) {
    for row in matrix.iter_mut() {
        row.swap(a, b);
    }
    columns.swap(a, b);
}

/// Column `target -= factor * column source`, in the matrix and in the recorded transform.
fn subtract_column(
    matrix: &mut [Row],
    columns: &mut [Row],
    target: usize,
    factor: &Int,
    source: usize,
) {
    for row in matrix.iter_mut() {
        let delta = factor * &row[source];
        row[target] -= delta;
    }
    columns[target] = sub_scaled(&columns[target], factor, &columns[source]);
}

pub(crate) fn unit(width: usize, index: usize) -> Row {
    (0..width)
        .map(|k| Int::from(i64::from(k == index)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(values: &[&[i64]]) -> Vec<Row> {
        values
            .iter()
            .map(|r| r.iter().map(|&v| Int::from(v)).collect())
            .collect()
    }

    #[test]
    fn hermite_form_is_canonical_for_the_lattice() {
        // (2,0),(0,3) and (2,3),(4,3) span the same lattice 2Z × 3Z.
        let a = hermite(rows(&[&[2, 0], &[0, 3]]), 2);
        let b = hermite(rows(&[&[2, 3], &[4, 3]]), 2);
        assert_eq!(a, b);
        assert_eq!(a, rows(&[&[2, 0], &[0, 3]]));
    }

    #[test]
    fn hermite_drops_dependent_generators() {
        let basis = hermite(rows(&[&[1, 1], &[2, 2], &[3, 3]]), 2);
        assert_eq!(basis, rows(&[&[1, 1]]));
    }

    #[test]
    fn congruences_describe_membership() {
        // Λ spanned by (1, 1) and (0, 3): x ∈ Λ iff x1 - x0 ≡ 0 mod 3.
        let basis = rows(&[&[1, 1], &[0, 3]]);
        let congruences = congruences_of_basis(&basis, 2);
        let member = |x: &[i64]| {
            let x: Row = x.iter().map(|&v| Int::from(v)).collect();
            congruences.iter().all(|(u, d)| {
                let value = dot(u, &x);
                if d.is_zero() {
                    value.is_zero()
                } else {
                    value.mod_floor(d).is_zero()
                }
            })
        };
        for a in -4..5 {
            for b in -4..5 {
                assert_eq!(member(&[a, b]), (b - a).rem_euclid(3) == 0, "({a}, {b})");
            }
        }
    }
}

//! Exact dense linear algebra over `Rat`: the unique solution of a square-ish system and a
//! nullspace basis.

use crate::scalar::Rat;

/// Row-reduces `rows` (each of length `cols`, possibly augmented) in place; returns the pivot
/// column of each non-zero row, in order.
fn row_reduce(rows: &mut Vec<Vec<Rat>>, cols: usize) -> Vec<usize> {
    let mut pivots = Vec::new();
    let mut next_row = 0;
    for col in 0..cols {
        let Some(found) = (next_row..rows.len()).find(|&r| !rows[r][col].is_zero()) else {
            continue;
        };
        rows.swap(next_row, found);
        let inverse = Rat::one() / &rows[next_row][col];
        rows[next_row] = rows[next_row].iter().map(|x| x * &inverse).collect();
        for r in 0..rows.len() {
            if r != next_row && !rows[r][col].is_zero() {
                let factor = rows[r][col].clone();
                let pivot_row = rows[next_row].clone();
                for (x, p) in rows[r].iter_mut().zip(&pivot_row) {
                    *x -= &factor * p;
                }
            }
        }
        pivots.push(col);
        next_row += 1;
    }
    rows.truncate(next_row);
    pivots
}

/// The unique `x` with `matrix · x = rhs`, or `None` if there is none or more than one.
pub(crate) fn solve_unique(matrix: &[Vec<Rat>], rhs: &[Rat], dim: usize) -> Option<Vec<Rat>> {
    let mut rows: Vec<Vec<Rat>> = matrix
        .iter()
        .zip(rhs)
        .map(|(row, b)| row.iter().cloned().chain([b.clone()]).collect())
        .collect();
    let all_rows = rows.clone();
    let pivots = row_reduce(&mut rows, dim);
    if pivots.len() != dim {
        return None;
    }
    let solution: Vec<Rat> = (0..dim).map(|i| rows[i][dim].clone()).collect();
    let consistent = all_rows.iter().all(|row| {
        row[..dim]
            .iter()
            .zip(&solution)
            .map(|(a, x)| a * x)
            .sum::<Rat>()
            == row[dim]
    });
    consistent.then_some(solution)
}

/// A basis of `{ x : matrix · x = 0 }`.
pub(crate) fn nullspace(matrix: &[Vec<Rat>], dim: usize) -> Vec<Vec<Rat>> {
    let mut rows: Vec<Vec<Rat>> = matrix.to_vec();
    let pivots = row_reduce(&mut rows, dim);
    (0..dim)
        .filter(|c| !pivots.contains(c))
        .map(|free| {
            let mut vector = vec![Rat::zero(); dim];
            vector[free] = Rat::one();
            for (row, &pivot) in pivots.iter().enumerate() {
                vector[pivot] = -rows[row][free].clone();
            }
            vector
        })
        .collect()
}

//! Integer points near the origin, with every division at its value: a point where a system of
//! constraints holds proves it feasible without a linear program (the divisions' defining
//! constraints hold there by construction, and a constraint tightened for integers holds at
//! every integer point where it held before). The redundancy test tries these first (the
//! emptiness tests of the engine were measured no faster with them: their cells have more
//! free columns, so coarser grids).

use crate::scalar::Rat;
use crate::set::{BasicSet, Div};

/// Most grid points tried: above a few dozen, evaluating them costs more than the linear
/// programs they save (measured on the bench corpora).
const MAX_POINTS: usize = 27;

/// Widest radius of the grid.
const MAX_RADIUS: usize = 6;

/// The points of `set` (over all its columns); none when a local is not a division.
pub(super) fn points_of(set: &BasicSet) -> Vec<Vec<Rat>> {
    let divs: Option<Vec<(usize, &Div)>> = (set.locals.iter().enumerate())
        .map(|(i, local)| Some((set.local_column(i), local.div.as_ref()?)))
        .collect();
    match divs {
        Some(divs) => {
            let free: Vec<usize> = (0..set.n_params() + set.n_dims()).collect();
            grid_points(&free, &divs, set.n_columns())
        }
        None => Vec::new(),
    }
}

/// The points of a grid around the origin over the `free` columns (the widest with at most
/// `MAX_POINTS` points), each division column then set to the floor of its definition (`divs`
/// in an order where a numerator only mentions earlier columns), as vectors of `width`
/// columns; none when even the smallest grid is too large.
fn grid_points(free: &[usize], divs: &[(usize, &Div)], width: usize) -> Vec<Vec<Rat>> {
    let count = |radius: usize| (2 * radius + 1).checked_pow(free.len() as u32);
    let Some(radius) = (1..=MAX_RADIUS)
        .rev()
        .find(|&r| count(r).is_some_and(|n| n <= MAX_POINTS))
    else {
        return Vec::new();
    };
    let side = 2 * radius + 1;
    (0..count(radius).unwrap_or(0))
        .map(|index| {
            let mut point = vec![Rat::zero(); width];
            let mut rest = index;
            for &column in free {
                point[column] = Rat::from((rest % side) as i64 - radius as i64);
                rest /= side;
            }
            for (column, div) in divs {
                let quotient = div.numerator.eval(&point) / Rat::from(div.denominator.clone());
                point[*column] = Rat::from(quotient.floor());
            }
            point
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isl::parse_set;

    #[test]
    fn points_carry_their_divisions_and_cover_the_grid() {
        let set = parse_set("[n] -> { [i] : i mod 3 = 1 and 0 <= i <= n }").unwrap();
        let part = &set.parts[0];
        let points = points_of(part);
        // Two free columns: a 5 × 5 grid.
        assert_eq!(points.len(), 25);
        let local = part.local_column(0);
        let div = part.locals[0].div.as_ref().unwrap();
        for point in &points {
            let value = div.numerator.eval(point) / Rat::from(div.denominator.clone());
            assert_eq!(point[local], Rat::from(value.floor()));
            assert!(point[..local].iter().all(|x| x.abs() <= Rat::from(2)));
        }
        let on_the_set = |p: &&Vec<Rat>| part.all_constraints().iter().all(|c| c.is_satisfied(p));
        assert!(points.iter().any(|p| on_the_set(&p)));
    }
}

//! The congruence component: an affine integer lattice `origin + span_Z(basis)` that contains
//! every reachable state (Granger's linear congruences, kept in generator form).
//!
//! This is what makes strided iteration spaces exact: after `i = a; … i += 3` the lattice
//! knows `i ≡ a_init (mod 3)`, which bounds alone cannot say. Joins add generators, affine
//! assignments map them, `mod` and equality guards intersect with a congruence. Strictly
//! increasing chains of lattices are finite, so no widening is needed.

use membound_polyhedra::Int;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};

use super::integer_matrix::{Row, congruences_of_basis, dot, hermite, negate, sub_scaled, unit};

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Lattice {
    dim: usize,
    /// Canonical: reduced modulo the basis (see [`Lattice::canonical`]).
    origin: Row,
    /// Hermite normal form.
    basis: Vec<Row>,
}

/// `coeffs · x ≡ residue (mod modulus)`, or `coeffs · x = residue` when `modulus` is 0.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Congruence {
    pub coeffs: Row,
    pub residue: Int,
    pub modulus: Int,
}

impl Lattice {
    /// All of Z^dim: the unit rows are their own Hermite normal form, and the origin 0 is
    /// reduced (built directly: the general reduction costs dim³ operations on big integers).
    pub fn universe(dim: usize) -> Lattice {
        Lattice {
            dim,
            origin: vec![Int::zero(); dim],
            basis: (0..dim).map(|k| unit(dim, k)).collect(),
        }
    }

    fn canonical(dim: usize, origin: Row, generators: Vec<Row>) -> Lattice {
        let basis = hermite(generators, dim);
        let mut origin = origin;
        for row in &basis {
            let Some(pivot) = row.iter().position(|v| !v.is_zero()) else {
                continue;
            };
            let factor = origin[pivot].div_floor(&row[pivot]);
            origin = sub_scaled(&origin, &factor, row);
        }
        Lattice { dim, origin, basis }
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The smallest lattice containing both.
    pub fn join(&self, other: &Lattice) -> Lattice {
        let mut generators = self.basis.clone();
        generators.extend(other.basis.iter().cloned());
        generators.push(sub_scaled(&other.origin, &Int::from(1), &self.origin));
        Lattice::canonical(self.dim, self.origin.clone(), generators)
    }

    pub fn includes(&self, other: &Lattice) -> bool {
        self.join(other) == *self
    }

    /// The image under `x_var := coeffs · x + constant`.
    pub fn assign(&self, var: usize, coeffs: &[Int], constant: &Int) -> Lattice {
        let image = |point: &Row, offset: &Int| {
            let mut moved = point.clone();
            moved[var] = dot(coeffs, point) + offset;
            moved
        };
        let origin = image(&self.origin, constant);
        let generators = self.basis.iter().map(|g| image(g, &Int::zero())).collect();
        Lattice::canonical(self.dim, origin, generators)
    }

    /// Forgets the value of `var`.
    pub fn havoc(&self, var: usize) -> Lattice {
        self.havoc_all(&[var])
    }

    /// Each of `vars` takes any value (one normal form for all of them). A variable already
    /// free has its unit vector in the basis (a reduced Hermite basis holds `e_v` exactly when
    /// the lattice does) and costs nothing.
    pub fn havoc_all(&self, vars: &[usize]) -> Lattice {
        let units: Vec<Row> = vars
            .iter()
            .map(|&var| unit(self.dim, var))
            .filter(|unit| !self.basis.contains(unit))
            .collect();
        if units.is_empty() {
            return self.clone();
        }
        let mut generators = self.basis.clone();
        generators.extend(units);
        Lattice::canonical(self.dim, self.origin.clone(), generators)
    }

    /// The points that also satisfy `congruence`; `None` when there is none.
    pub fn meet(&self, congruence: &Congruence) -> Option<Lattice> {
        // Points are origin + Σ λ_k g_k; the condition is Σ (a·g_k) λ_k ≡ residue - a·origin.
        // Unimodular changes of the λ (which keep the lattice) gather the gcd of the a·g_k on
        // one generator and zero on the others.
        let mut generators = self.basis.clone();
        let pivot = gather_gcd(&mut generators, &congruence.coeffs);
        let target = &congruence.residue - dot(&congruence.coeffs, &self.origin);
        let Some(pivot) = pivot else {
            return satisfied(&target, &congruence.modulus).then(|| self.clone());
        };
        let generator = generators.swap_remove(pivot);
        let step = dot(&congruence.coeffs, &generator);
        let (multiple, period) = solve_linear_congruence(&step, &target, &congruence.modulus)?;
        let origin = sub_scaled(&self.origin, &-multiple, &generator);
        if !period.is_zero() {
            generators.push(generator.iter().map(|v| v * &period).collect());
        }
        Some(Lattice::canonical(self.dim, origin, generators))
    }

    /// The lattice of the coordinates in `keep` (in that order).
    pub fn project_onto(&self, keep: &[usize]) -> Lattice {
        let pick = |row: &Row| keep.iter().map(|&k| row[k].clone()).collect::<Row>();
        Lattice::canonical(
            keep.len(),
            pick(&self.origin),
            self.basis.iter().map(pick).collect(),
        )
    }

    /// The lattice in a larger space: coordinate `k` moves to `position[k]`; the new
    /// coordinates are unconstrained.
    /// `self × other`: the points of `self` on the first columns with those of `other` on the
    /// next ones. The bases side by side are already in echelon form, so this costs far less
    /// than embedding both and meeting one's congruences with the other.
    pub fn product(&self, other: &Lattice) -> Lattice {
        let dim = self.dim + other.dim;
        let placed = |row: &Row, before: usize| {
            let mut out = vec![Int::zero(); before];
            out.extend(row.iter().cloned());
            out.resize(dim, Int::zero());
            out
        };
        let generators = self
            .basis
            .iter()
            .map(|row| placed(row, 0))
            .chain(other.basis.iter().map(|row| placed(row, self.dim)))
            .collect();
        let mut origin = self.origin.clone();
        origin.extend(other.origin.iter().cloned());
        Lattice::canonical(dim, origin, generators)
    }

    pub fn embed(&self, dim: usize, position: &[usize]) -> Lattice {
        let place = |row: &Row| {
            let mut out = vec![Int::zero(); dim];
            for (k, value) in row.iter().enumerate() {
                out[position[k]] = value.clone();
            }
            out
        };
        let mut generators: Vec<Row> = self.basis.iter().map(place).collect();
        generators.extend(
            (0..dim)
                .filter(|c| !position.contains(c))
                .map(|c| unit(dim, c)),
        );
        Lattice::canonical(dim, place(&self.origin), generators)
    }

    pub fn contains(&self, point: &[Int]) -> bool {
        self.congruences().iter().all(|c| {
            let value = dot(&c.coeffs, point) - &c.residue;
            satisfied(&value, &c.modulus)
        })
    }

    /// The lattice as equalities and congruences (trivial `mod 1` ones left out), each
    /// with small coefficients and its first non-zero coefficient positive.
    pub fn congruences(&self) -> Vec<Congruence> {
        congruences_of_basis(&self.basis, self.dim)
            .into_iter()
            .filter(|(_, modulus)| !modulus.is_one())
            .map(|(coeffs, modulus)| tidy(coeffs, modulus, &self.origin))
            .filter(|c| c.coeffs.iter().any(|v| !v.is_zero()))
            .collect()
    }

    /// The affine equalities every point satisfies.
    pub fn equalities(&self) -> Vec<Congruence> {
        self.congruences()
            .into_iter()
            .filter(|c| c.modulus.is_zero())
            .collect()
    }
}

/// True when `value ≡ 0 (mod modulus)` (`= 0` for modulus 0).
fn satisfied(value: &Int, modulus: &Int) -> bool {
    if modulus.is_zero() {
        value.is_zero()
    } else {
        value.mod_floor(modulus).is_zero()
    }
}

/// Unimodular operations on `generators` so that at most one has a non-zero `coeffs ·`
/// value; returns its index (None when all are zero).
fn gather_gcd(generators: &mut [Row], coeffs: &[Int]) -> Option<usize> {
    loop {
        let values: Vec<Int> = generators.iter().map(|g| dot(coeffs, g)).collect();
        let smallest = (0..generators.len())
            .filter(|&k| !values[k].is_zero())
            .min_by(|&a, &b| values[a].abs().cmp(&values[b].abs()))?;
        let mut alone = true;
        for k in 0..generators.len() {
            if k != smallest && !values[k].is_zero() {
                let factor = values[k].div_floor(&values[smallest]);
                generators[k] = sub_scaled(&generators[k], &factor, &generators[smallest]);
                alone &= (&values[k] - &factor * &values[smallest]).is_zero();
            }
        }
        if alone {
            return Some(smallest);
        }
    }
}

/// Solutions `t` of `step·t ≡ target (mod modulus)` (`=` for modulus 0, `step ≠ 0`) as
/// `multiple + period·Z` (period 0: a single solution); `None` when there is none.
fn solve_linear_congruence(step: &Int, target: &Int, modulus: &Int) -> Option<(Int, Int)> {
    if modulus.is_zero() {
        let (quotient, remainder) = target.div_mod_floor(step);
        return remainder.is_zero().then_some((quotient, Int::zero()));
    }
    let gcd = step.extended_gcd(modulus);
    if !target.mod_floor(&gcd.gcd).is_zero() {
        return None;
    }
    let period = modulus / &gcd.gcd;
    // step·x ≡ gcd (mod modulus), so step·x·(target/gcd) ≡ target.
    let multiple = (&gcd.x * (target / &gcd.gcd)).mod_floor(&period);
    Some((multiple, period))
}

/// `u · x ≡ u · origin (mod d)` with `u` reduced into a symmetric range modulo `d` and common
/// factors of `u` and `d` divided out.
fn tidy(coeffs: Row, modulus: Int, origin: &[Int]) -> Congruence {
    let mut coeffs = coeffs;
    if !modulus.is_zero() {
        let half = &modulus / Int::from(2);
        coeffs = coeffs
            .iter()
            .map(|c| {
                let reduced = c.mod_floor(&modulus);
                if reduced > half {
                    reduced - &modulus
                } else {
                    reduced
                }
            })
            .collect();
    }
    let common = coeffs.iter().fold(modulus.clone(), |acc, c| acc.gcd(c));
    let (coeffs, modulus) = if common.is_zero() || common == Int::from(1) {
        (coeffs, modulus)
    } else {
        (
            coeffs.iter().map(|c| c / &common).collect(),
            &modulus / &common,
        )
    };
    let coeffs = match coeffs.iter().find(|c| !c.is_zero()) {
        Some(first) if first.is_negative() => negate(&coeffs),
        _ => coeffs,
    };
    let value = dot(&coeffs, origin);
    let residue = if modulus.is_zero() {
        value
    } else {
        value.mod_floor(&modulus)
    };
    Congruence {
        coeffs,
        residue,
        modulus,
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_universe_is_already_canonical() {
        for dim in 0..12 {
            let direct = Lattice::universe(dim);
            let reduced = Lattice::canonical(
                dim,
                vec![Int::zero(); dim],
                (0..dim).map(|k| unit(dim, k)).collect(),
            );
            assert_eq!(direct, reduced, "dim {dim}");
        }
    }

    use super::*;

    fn ints(values: &[i64]) -> Row {
        values.iter().map(|&v| Int::from(v)).collect()
    }

    fn point(value: &[i64]) -> Lattice {
        let mut lattice = Lattice::universe(value.len());
        for (k, v) in value.iter().enumerate() {
            let mut coeffs = vec![Int::zero(); value.len()];
            coeffs[k] = Int::from(1);
            lattice = lattice
                .meet(&Congruence {
                    coeffs,
                    residue: Int::from(*v),
                    modulus: Int::zero(),
                })
                .unwrap();
        }
        lattice
    }

    #[test]
    fn join_of_strided_points_gives_the_stride() {
        // i = 0 and i = 3 (with n = 5 both times): i ≡ 0 mod 3, n = 5.
        let lattice = point(&[0, 5]).join(&point(&[3, 5]));
        for i in -6..7 {
            assert_eq!(lattice.contains(&ints(&[i, 5])), i % 3 == 0, "i = {i}");
        }
        assert!(!lattice.contains(&ints(&[0, 4])));
    }

    #[test]
    fn meet_with_a_congruence_intersects() {
        // i ≡ 1 mod 2 and i ≡ 0 mod 3 gives i ≡ 3 mod 6.
        let odd = Lattice::universe(1)
            .meet(&Congruence {
                coeffs: ints(&[1]),
                residue: Int::from(1),
                modulus: Int::from(2),
            })
            .unwrap();
        let both = odd
            .meet(&Congruence {
                coeffs: ints(&[1]),
                residue: Int::zero(),
                modulus: Int::from(3),
            })
            .unwrap();
        for i in -12..13 {
            assert_eq!(both.contains(&ints(&[i])), i.rem_euclid(6) == 3, "i = {i}");
        }
        let even = both.meet(&Congruence {
            coeffs: ints(&[1]),
            residue: Int::zero(),
            modulus: Int::from(2),
        });
        assert!(even.is_none());
    }

    #[test]
    fn assignment_maps_and_havoc_forgets() {
        // From i ≡ 0 mod 3: j := 2i + 1 gives j ≡ 1 mod 6 and j = 2i + 1.
        let strided = Lattice::universe(2)
            .meet(&Congruence {
                coeffs: ints(&[1, 0]),
                residue: Int::zero(),
                modulus: Int::from(3),
            })
            .unwrap();
        let mapped = strided.assign(1, &ints(&[2, 0]), &Int::from(1));
        assert!(mapped.contains(&ints(&[3, 7])));
        assert!(!mapped.contains(&ints(&[3, 8])));
        assert!(!mapped.contains(&ints(&[1, 3])));
        assert!(mapped.havoc(1).contains(&ints(&[3, 8])));
        assert!(strided.includes(&mapped.havoc(1)));
    }

    #[test]
    fn congruences_are_tidy() {
        let lattice = point(&[2, 0]).join(&point(&[5, 3]));
        let congruences = lattice.congruences();
        // i - j = 2 and i ≡ 2 mod 3 (or an equivalent pair) with small coefficients.
        assert!(
            congruences
                .iter()
                .all(|c| c.coeffs.iter().all(|v| v.abs() <= Int::from(3)))
        );
        for (i, j) in [(2, 0), (5, 3), (8, 6), (-1, -3)] {
            assert!(lattice.contains(&ints(&[i, j])));
        }
        assert!(!lattice.contains(&ints(&[3, 1])));
    }

    #[test]
    fn forgetting_a_free_variable_changes_nothing_and_several_at_once_equal_one_by_one() {
        // i ≡ j (mod 2), k = 3: forgetting k, then k again, then i and j together.
        let lattice = Lattice::universe(3)
            .meet(&Congruence {
                coeffs: ints(&[1, -1, 0]),
                residue: Int::zero(),
                modulus: Int::from(2),
            })
            .and_then(|l| {
                l.meet(&Congruence {
                    coeffs: ints(&[0, 0, 1]),
                    residue: Int::from(3),
                    modulus: Int::zero(),
                })
            })
            .unwrap();
        let without_k = lattice.havoc(2);
        assert!(without_k.basis.contains(&unit(3, 2)));
        assert_eq!(without_k.havoc(2), without_k);
        assert_eq!(lattice.havoc_all(&[0, 1]), lattice.havoc(0).havoc(1));
        assert!(
            lattice
                .havoc_all(&[0, 1, 2])
                .includes(&Lattice::universe(3))
        );
    }

    #[test]
    fn the_product_is_the_embedding_of_both_met() {
        // (i even, j = i + 1) × (k ≡ 1 mod 3): as a meet of the embedded lattices.
        let left = point(&[0, 1]).join(&point(&[2, 3]));
        let right = Lattice::universe(1)
            .meet(&Congruence {
                coeffs: ints(&[1]),
                residue: Int::from(1),
                modulus: Int::from(3),
            })
            .unwrap();
        let met = right
            .embed(3, &[2])
            .congruences()
            .iter()
            .try_fold(left.embed(3, &[0, 1]), |acc, c| acc.meet(c))
            .unwrap();
        assert_eq!(left.product(&right), met);
        assert!(met.contains(&ints(&[4, 5, 7])) && !met.contains(&ints(&[4, 5, 6])));
    }
}

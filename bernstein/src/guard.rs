//! Guards (conjunctions of linear constraints over named parameters) and parameter domains.
//!
//! Parameters are integers (isl's semantics), so the reasoning here is integer-aware: a
//! constraint `e >= 0` fails exactly where the primitive integer form of `e` is `<= -1`, and a
//! domain implies `e >= 0` when the rational polyhedron `domain ∧ e <= -1` is empty. Rational
//! emptiness implies integer emptiness, so every "implies" answered here is sound.

use std::cell::{OnceCell, RefCell};
use std::collections::BTreeMap;

use membound_polyhedra::generators::Generators;
use membound_polyhedra::isl::print::constraint_text;
use membound_polyhedra::{
    Affine, Constraint, Int, Monomial, Polyhedron, Polynomial, Rat, Relation,
};
use serde::{Deserialize, Serialize};

/// `expr >= 0` or `expr = 0` with `expr` affine in the parameters.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Atom {
    pub expr: Polynomial,
    pub rel: Relation,
}

impl Atom {
    /// `expr >= 0`.
    pub fn ge(expr: Polynomial) -> Atom {
        Atom {
            expr,
            rel: Relation::Ge,
        }
    }
    /// `expr = 0`.
    pub fn eq(expr: Polynomial) -> Atom {
        Atom {
            expr,
            rel: Relation::Eq,
        }
    }
    /// Exact truth value; `value` gives each parameter.
    pub fn holds(&self, value: &dyn Fn(&String) -> Rat) -> bool {
        let v = self.expr.eval(value);
        match self.rel {
            Relation::Ge => !v.is_negative(),
            Relation::Eq => v.is_zero(),
        }
    }
    /// isl text (`mc >= 7`, `n = 2m` style), with integer coefficients.
    pub fn to_isl(&self) -> String {
        let names = self.expr.variables();
        let Some(form) = linear_to_affine(&self.expr, &names) else {
            let relation = if self.rel == Relation::Eq { "=" } else { ">=" };
            return format!("{} {relation} 0", self.expr);
        };
        let text = constraint_text(
            &Constraint {
                expr: form,
                rel: self.rel,
            },
            &names,
        );
        // `6 >= mc` reads better as `mc <= 6`.
        match text.split_once(" >= ") {
            Some((left, right)) if left.parse::<Rat>().is_ok() => format!("{right} <= {left}"),
            _ => text,
        }
    }
}

/// A conjunction of atoms; the empty conjunction is `true`.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct Guard {
    pub atoms: Vec<Atom>,
}

impl Guard {
    pub fn always() -> Guard {
        Guard::default()
    }
    pub fn from_atoms(atoms: Vec<Atom>) -> Guard {
        Guard { atoms }
    }
    pub fn holds(&self, value: &dyn Fn(&String) -> Rat) -> bool {
        self.atoms.iter().all(|a| a.holds(value))
    }
    /// The conjunction with integer parameter `name` fixed to `value`.
    pub fn with_value(&self, name: &str, value: &Int) -> Guard {
        let constant = Polynomial::constant(Rat::from(value.clone()));
        let atoms = self
            .atoms
            .iter()
            .map(|atom| Atom {
                expr: atom.expr.substitute(&name.to_string(), &constant),
                rel: atom.rel,
            })
            .collect();
        Guard { atoms }
    }
    /// The same conjunction over renamed parameters.
    pub fn renamed(&self, rename: &dyn Fn(&str) -> String) -> Guard {
        let atoms = self
            .atoms
            .iter()
            .map(|atom| Atom {
                expr: atom.expr.map_vars(|v| rename(v)),
                rel: atom.rel,
            })
            .collect();
        Guard { atoms }
    }
    pub fn variables(&self) -> Vec<String> {
        let mut names: Vec<String> = self.atoms.iter().flat_map(|a| a.expr.variables()).collect();
        names.sort();
        names.dedup();
        names
    }
    /// isl text of the conjunction (`true` when empty).
    pub fn to_isl(&self) -> String {
        if self.atoms.is_empty() {
            return "true".to_string();
        }
        self.atoms
            .iter()
            .map(Atom::to_isl)
            .collect::<Vec<_>>()
            .join(" and ")
    }
}

/// The affine form of a polynomial of degree at most 1 over `names` (column `i` is `names[i]`);
/// `None` when it is not linear or mentions another name.
pub fn linear_to_affine(poly: &Polynomial, names: &[String]) -> Option<Affine> {
    let mut form = Affine::zero();
    for (monomial, coeff) in poly.terms() {
        match monomial.powers() {
            [] => form.constant = coeff.clone(),
            [(name, 1)] => {
                let index = names.iter().position(|n| n == name)?;
                form.set_coeff(index, coeff.clone());
            }
            _ => return None,
        }
    }
    Some(form)
}

/// The polynomial of an affine form over `names`.
pub fn affine_to_linear(form: &Affine, names: &[String]) -> Polynomial {
    let terms = form
        .support()
        .filter(|&i| i < names.len())
        .map(|i| (Monomial::var(names[i].clone()), form.coeff(i)))
        .chain(std::iter::once((Monomial::one(), form.constant.clone())));
    Polynomial::from_terms(terms)
}

/// Integer bounds of a parameter; `None` is unbounded on that side.
pub type IntegerInterval = (Option<Int>, Option<Int>);

/// A set of integer parameter values: a rational polyhedron over named parameters, read at
/// its integer points.
#[derive(Clone, Debug)]
pub struct ParamDomain {
    params: Vec<String>,
    poly: Polyhedron,
    // Caches: a domain is immutable once built (every "with" makes a new one).
    generators: OnceCell<Generators>,
    samples: OnceCell<Vec<BTreeMap<String, Rat>>>,
    intervals: RefCell<BTreeMap<String, IntegerInterval>>,
}

impl ParamDomain {
    pub fn universe(params: Vec<String>) -> ParamDomain {
        let dim = params.len();
        ParamDomain::from_polyhedron(params, Polyhedron::universe(dim))
    }
    /// Columns of `poly` are `params` in order.
    pub fn from_polyhedron(params: Vec<String>, poly: Polyhedron) -> ParamDomain {
        ParamDomain {
            params,
            poly,
            generators: OnceCell::new(),
            samples: OnceCell::new(),
            intervals: RefCell::default(),
        }
    }
    /// The domain of `guard`; atoms that are not linear in `params` are left out, which only
    /// enlarges the domain.
    pub fn from_guard(params: Vec<String>, guard: &Guard) -> ParamDomain {
        guard
            .atoms
            .iter()
            .fold(ParamDomain::universe(params), |d, a| d.with(a))
    }
    pub fn params(&self) -> &[String] {
        &self.params
    }
    pub fn polyhedron(&self) -> &Polyhedron {
        &self.poly
    }
    pub fn constraint_of(&self, atom: &Atom) -> Option<Constraint> {
        linear_to_affine(&atom.expr, &self.params).map(|expr| Constraint {
            expr,
            rel: atom.rel,
        })
    }
    pub fn with(&self, atom: &Atom) -> ParamDomain {
        match self.constraint_of(atom) {
            Some(c) => self.with_constraint(c),
            None => self.clone(),
        }
    }
    pub fn with_constraint(&self, constraint: Constraint) -> ParamDomain {
        let mut poly = self.poly.clone();
        poly.add_constraint(constraint.normalized_for_integers());
        ParamDomain::from_polyhedron(self.params.clone(), poly)
    }
    pub fn with_guard(&self, guard: &Guard) -> ParamDomain {
        guard.atoms.iter().fold(self.clone(), |d, a| d.with(a))
    }
    /// True when the domain has no rational (hence no integer) point.
    pub fn is_empty(&self) -> bool {
        self.poly.is_empty()
    }
    /// True when the atom holds at every integer point of the domain.
    pub fn implies(&self, atom: &Atom) -> bool {
        match self.constraint_of(atom) {
            Some(c) => self.implies_constraint(&c),
            None => false,
        }
    }
    pub fn implies_constraint(&self, constraint: &Constraint) -> bool {
        constraint
            .integer_complement()
            .into_iter()
            .all(|violation| self.with_constraint(violation).is_empty())
    }
    /// True when the atom holds at no integer point of the domain.
    pub fn excludes(&self, atom: &Atom) -> bool {
        match self.constraint_of(atom) {
            Some(c) => self.with_constraint(c).is_empty(),
            None => false,
        }
    }
    /// The two integer halves `e >= 0` and `e <= -1` of the domain for `constraint = (e >= 0)`.
    pub fn split(&self, constraint: &Constraint) -> (ParamDomain, ParamDomain) {
        let below = constraint.integer_complement();
        let inside = self.with_constraint(Constraint::ge(constraint.expr.clone()));
        let outside = below
            .into_iter()
            .fold(self.clone(), |d, c| d.with_constraint(c));
        (inside, outside)
    }
    /// Integer bounds of one parameter over the domain (`None` = unbounded on that side).
    pub fn integer_interval(&self, param: &str) -> IntegerInterval {
        if let Some(known) = self.intervals.borrow().get(param) {
            return known.clone();
        }
        let interval = self.compute_integer_interval(param);
        self.intervals
            .borrow_mut()
            .insert(param.to_string(), interval.clone());
        interval
    }
    fn compute_integer_interval(&self, param: &str) -> IntegerInterval {
        let Some(index) = self.params.iter().position(|p| p == param) else {
            return (None, None);
        };
        let line = self.poly.project_onto(&[index]);
        let (mut lower, mut upper): (Option<Int>, Option<Int>) = (None, None);
        for c in line.constraints() {
            let a = c.expr.coeff(0);
            if a.is_zero() {
                continue;
            }
            let root = -c.expr.constant.clone() / &a;
            let (is_lower, is_upper) = match c.rel {
                Relation::Eq => (true, true),
                Relation::Ge => (a.is_positive(), a.is_negative()),
            };
            if is_lower {
                let bound = root.ceil();
                lower = Some(lower.map_or(bound.clone(), |l: Int| l.max(bound)));
            }
            if is_upper {
                let bound = root.floor();
                upper = Some(upper.map_or(bound.clone(), |u: Int| u.min(bound)));
            }
        }
        (lower, upper)
    }
    fn generators(&self) -> &Generators {
        self.generators.get_or_init(|| self.poly.generators())
    }
    /// The vertices when the domain is a non-empty polytope.
    pub fn vertices_if_bounded(&self) -> Option<Vec<Vec<Rat>>> {
        let generators = self.generators();
        let bounded = generators.rays.is_empty() && generators.lines.is_empty();
        (bounded && !generators.vertices.is_empty()).then(|| generators.vertices.clone())
    }
    /// A few integer points of the domain (vertices rounded, and points far along its rays),
    /// used only to guide heuristic choices and to find quick counterexamples.
    pub fn sample_points(&self) -> &[BTreeMap<String, Rat>] {
        self.samples.get_or_init(|| self.compute_sample_points())
    }
    fn compute_sample_points(&self) -> Vec<BTreeMap<String, Rat>> {
        let generators = self.generators();
        let mut directions = generators.rays.clone();
        for line in &generators.lines {
            directions.push(line.clone());
            directions.push(line.iter().map(|x| -x).collect());
        }
        let mut points: Vec<Vec<Rat>> = Vec::new();
        for vertex in &generators.vertices {
            points.push(vertex.clone());
            for scale in [3, 10, 40] {
                let along_all = directions
                    .iter()
                    .fold(vertex.clone(), |p, d| add_scaled(&p, d, scale));
                points.push(along_all);
                points.extend(directions.iter().map(|d| add_scaled(vertex, d, scale)));
            }
        }
        let mut samples = Vec::new();
        for point in points {
            let rounded: Vec<Rat> = point
                .iter()
                .map(|x| Rat::from((x + Rat::new(1, 2).unwrap_or_default()).floor()))
                .collect();
            let candidate = if self.poly.contains(&rounded) {
                rounded
            } else {
                point.iter().map(|x| Rat::from(x.ceil())).collect()
            };
            if self.poly.contains(&candidate) && !samples.contains(&candidate) {
                samples.push(candidate);
            }
        }
        samples
            .into_iter()
            .map(|p| self.params.iter().cloned().zip(p).collect())
            .collect()
    }
    /// The domain as a guard (its minimized constraints).
    pub fn to_guard(&self) -> Guard {
        let atoms = self
            .poly
            .minimized()
            .constraints()
            .iter()
            .map(|c| Atom {
                expr: affine_to_linear(&c.expr, &self.params),
                rel: c.rel,
            })
            .collect();
        Guard { atoms }
    }
}

fn add_scaled(point: &[Rat], direction: &[Rat], scale: i64) -> Vec<Rat> {
    point
        .iter()
        .zip(direction)
        .map(|(p, d)| p + d * scale)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str) -> Polynomial {
        Polynomial::var(name.to_string())
    }

    #[test]
    fn implication_is_integer_aware() {
        // 2n >= 1 implies n >= 1 over the integers (not over the rationals).
        let params = vec!["n".to_string()];
        let domain = ParamDomain::universe(params)
            .with(&Atom::ge(var("n").scale(&Rat::from(2)) - Polynomial::one()));
        assert!(domain.implies(&Atom::ge(var("n") - Polynomial::one())));
        assert!(!domain.implies(&Atom::ge(var("n") - Polynomial::constant(2))));
        assert_eq!(domain.integer_interval("n"), (Some(Int::from(1)), None));
    }

    #[test]
    fn guards_print_in_isl_syntax() {
        let atom = Atom::ge(var("mc") - Polynomial::constant(7));
        assert_eq!(atom.to_isl(), "mc >= 7");
        assert!(atom.holds(&|_| Rat::from(7)));
        assert!(!atom.holds(&|_| Rat::from(6)));
    }
}

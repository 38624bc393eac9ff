//! The one exact scalar of the math crates: arbitrary-precision rationals ([`Rat`]) and integers
//! ([`Int`]). Every number that decides a result goes through these types; there are no floats.
//!
//! Almost every rational met while counting has a numerator and denominator that fit in 64
//! bits, so [`Rat`] keeps those inline and computes on them with 128-bit intermediates (no
//! allocation, no overflow possible); any result that does not fit falls back to a big
//! rational. The representation is canonical (a value that fits is always stored small), so
//! equality and hashing compare representations. The fast path never rounds: it either gives
//! the exact result or hands over to the big one.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::iter::{Product, Sum};
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};
use std::str::FromStr;

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use serde::{Deserialize, Serialize};

/// Arbitrary-precision integer.
pub type Int = BigInt;

/// Exact rational number, always in lowest terms with a positive denominator.
///
/// Serialised as a string (`"7"`, `"-7/2"`) so JSON never rounds it.
#[derive(Clone, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Rat(Repr);

/// The two representations; a value is `Small` whenever it can be.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    /// Numerator and denominator in lowest terms, denominator `>= 1`, numerator never
    /// `i64::MIN` (so negation and absolute value cannot overflow).
    Small(i64, i64),
    /// A value whose numerator or denominator does not fit the small form (boxed, so a `Rat`
    /// stays three words).
    Big(Box<BigRational>),
}

/// Greatest common divisor of two 64-bit magnitudes (binary method; `gcd(0, b) = b`).
fn gcd_u64(mut a: u64, mut b: u64) -> u64 {
    if a == 0 {
        return b;
    }
    if b == 0 {
        return a;
    }
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
    }
}

/// Greatest common divisor of two 128-bit magnitudes (Euclid's; rare, the 64-bit one is the
/// common case).
fn gcd_u128(mut a: u128, mut b: u128) -> u128 {
    if let (Ok(a), Ok(b)) = (u64::try_from(a), u64::try_from(b)) {
        return u128::from(gcd_u64(a, b));
    }
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Rat {
    /// The canonical value of `n / d` for 128-bit operands (`d != 0`, neither is `i128::MIN`:
    /// callers build them from products of two small values).
    fn from_i128(n: i128, d: i128) -> Rat {
        if let (Ok(n), Ok(d)) = (i64::try_from(n), i64::try_from(d)) {
            return Rat::from_i64s(n, d);
        }
        let (n, d) = if d < 0 { (-n, -d) } else { (n, d) };
        let g = gcd_u128(n.unsigned_abs(), d as u128) as i128;
        let (n, d) = if g > 1 { (n / g, d / g) } else { (n, d) };
        match (i64::try_from(n), i64::try_from(d)) {
            (Ok(n), Ok(d)) if n != i64::MIN => Rat(Repr::Small(n, d)),
            _ => Rat(Repr::Big(Box::new(BigRational::new_raw(
                n.into(),
                d.into(),
            )))),
        }
    }

    /// The value of `n / d` when they are already in lowest terms (`d >= 1`): no gcd.
    fn lowest_from_i128(n: i128, d: i64) -> Rat {
        match i64::try_from(n) {
            Ok(n) if n != i64::MIN => Rat(Repr::Small(n, d)),
            _ => Rat(Repr::Big(Box::new(BigRational::new_raw(
                n.into(),
                d.into(),
            )))),
        }
    }

    /// The canonical value of `n / d` for 64-bit operands (`d != 0`), in 64-bit arithmetic.
    fn from_i64s(n: i64, d: i64) -> Rat {
        if d == 1 && n != i64::MIN {
            return Rat(Repr::Small(n, 1));
        }
        let negative = (n < 0) != (d < 0);
        let (magnitude, denominator) = (n.unsigned_abs(), d.unsigned_abs());
        let g = gcd_u64(magnitude, denominator);
        let (magnitude, denominator) = (magnitude / g, denominator / g);
        match (i64::try_from(magnitude), i64::try_from(denominator)) {
            (Ok(m), Ok(k)) if negative => Rat(Repr::Small(-m, k)),
            (Ok(m), Ok(k)) => Rat(Repr::Small(m, k)),
            _ => {
                let numerator = BigInt::from(magnitude);
                let numerator = if negative { -numerator } else { numerator };
                Rat::from_big(BigRational::new_raw(numerator, denominator.into()))
            }
        }
    }

    /// The canonical value of a big rational in lowest terms.
    fn from_big(value: BigRational) -> Rat {
        match (value.numer().to_i64(), value.denom().to_i64()) {
            (Some(n), Some(d)) if n != i64::MIN => Rat(Repr::Small(n, d)),
            _ => Rat(Repr::Big(Box::new(value))),
        }
    }

    fn to_big(&self) -> BigRational {
        match &self.0 {
            Repr::Small(n, d) => BigRational::new_raw((*n).into(), (*d).into()),
            Repr::Big(b) => (**b).clone(),
        }
    }

    /// `numer / denom`; `None` when `denom` is zero.
    pub fn new(numer: impl Into<Int>, denom: impl Into<Int>) -> Option<Rat> {
        let (numer, denom) = (numer.into(), denom.into());
        if denom.is_zero() {
            return None;
        }
        Some(match (numer.to_i64(), denom.to_i64()) {
            (Some(n), Some(d)) => Rat::from_i128(n.into(), d.into()),
            _ => Rat::from_big(BigRational::new(numer, denom)),
        })
    }
    pub fn zero() -> Rat {
        Rat(Repr::Small(0, 1))
    }
    pub fn one() -> Rat {
        Rat(Repr::Small(1, 1))
    }
    pub fn from_int(value: Int) -> Rat {
        match value.to_i64() {
            Some(n) if n != i64::MIN => Rat(Repr::Small(n, 1)),
            _ => Rat(Repr::Big(Box::new(BigRational::from_integer(value)))),
        }
    }
    pub fn is_zero(&self) -> bool {
        matches!(self.0, Repr::Small(0, _))
    }
    pub fn is_one(&self) -> bool {
        matches!(self.0, Repr::Small(1, 1))
    }
    pub fn is_integer(&self) -> bool {
        match &self.0 {
            Repr::Small(_, d) => *d == 1,
            Repr::Big(b) => b.is_integer(),
        }
    }
    pub fn is_positive(&self) -> bool {
        match &self.0 {
            Repr::Small(n, _) => *n > 0,
            Repr::Big(b) => b.is_positive(),
        }
    }
    pub fn is_negative(&self) -> bool {
        match &self.0 {
            Repr::Small(n, _) => *n < 0,
            Repr::Big(b) => b.is_negative(),
        }
    }
    /// The numerator (in lowest terms, carrying the sign).
    pub fn numer(&self) -> Int {
        match &self.0 {
            Repr::Small(n, _) => Int::from(*n),
            Repr::Big(b) => b.numer().clone(),
        }
    }
    /// The denominator (in lowest terms, positive).
    pub fn denom(&self) -> Int {
        match &self.0 {
            Repr::Small(_, d) => Int::from(*d),
            Repr::Big(b) => b.denom().clone(),
        }
    }
    /// Largest integer not above `self`.
    pub fn floor(&self) -> Int {
        match &self.0 {
            Repr::Small(n, d) => Int::from(n.div_euclid(*d)),
            Repr::Big(b) => b.floor().to_integer(),
        }
    }
    /// Smallest integer not below `self`.
    pub fn ceil(&self) -> Int {
        match &self.0 {
            Repr::Small(n, d) => Int::from(-(-n).div_euclid(*d)),
            Repr::Big(b) => b.ceil().to_integer(),
        }
    }
    pub fn abs(&self) -> Rat {
        match &self.0 {
            Repr::Small(n, d) => Rat(Repr::Small(n.abs(), *d)),
            Repr::Big(b) => Rat(Repr::Big(Box::new(b.abs()))),
        }
    }
    /// -1, 0 or 1.
    pub fn signum(&self) -> i32 {
        if self.is_positive() {
            1
        } else if self.is_negative() {
            -1
        } else {
            0
        }
    }
    /// `1 / self`; `None` for zero.
    pub fn recip(&self) -> Option<Rat> {
        match &self.0 {
            Repr::Small(0, _) => None,
            Repr::Small(n, d) if *n < 0 => Some(Rat(Repr::Small(-d, -n))),
            Repr::Small(n, d) => Some(Rat(Repr::Small(*d, *n))),
            Repr::Big(b) => Some(Rat::from_big(b.recip())),
        }
    }
    pub fn pow(&self, exponent: u32) -> Rat {
        (0..exponent).fold(Rat::one(), |acc, _| acc * self)
    }
    /// The value as an integer when it is one.
    pub fn to_int(&self) -> Option<Int> {
        self.is_integer().then(|| self.numer())
    }
    /// The value as an `i64` when it is an integer in range.
    pub fn to_i64(&self) -> Option<i64> {
        match &self.0 {
            Repr::Small(n, 1) => Some(*n),
            Repr::Small(..) => None,
            Repr::Big(b) => b.to_integer().to_i64().filter(|_| b.is_integer()),
        }
    }
    /// Nearest `f64`; for display and heuristics only, never to decide a result.
    pub fn to_f64_lossy(&self) -> f64 {
        match &self.0 {
            Repr::Small(n, d) => *n as f64 / *d as f64,
            Repr::Big(b) => b.to_f64().unwrap_or(f64::NAN),
        }
    }

    fn add_ref(&self, other: &Rat) -> Rat {
        match (&self.0, &other.0) {
            (Repr::Small(a, 1), Repr::Small(c, 1)) => match a.checked_add(*c) {
                Some(s) if s != i64::MIN => Rat(Repr::Small(s, 1)),
                _ => Rat::from_i128(i128::from(*a) + i128::from(*c), 1),
            },
            (Repr::Small(0, _), _) => other.clone(),
            (_, Repr::Small(0, _)) => self.clone(),
            // An integer plus `c/d` in lowest terms is `(a*d + c)/d`, in lowest terms too.
            (Repr::Small(a, 1), Repr::Small(c, d)) | (Repr::Small(c, d), Repr::Small(a, 1)) => {
                Rat::lowest_from_i128(i128::from(*a) * i128::from(*d) + i128::from(*c), *d)
            }
            (Repr::Small(a, b), Repr::Small(c, d)) if b == d => {
                Rat::from_i128(i128::from(*a) + i128::from(*c), i128::from(*b))
            }
            (Repr::Small(a, b), Repr::Small(c, d)) => {
                let (a, b, c, d) = (
                    i128::from(*a),
                    i128::from(*b),
                    i128::from(*c),
                    i128::from(*d),
                );
                Rat::from_i128(a * d + c * b, b * d)
            }
            _ => Rat::from_big(self.to_big() + other.to_big()),
        }
    }

    fn mul_ref(&self, other: &Rat) -> Rat {
        match (&self.0, &other.0) {
            (Repr::Small(0, _), _) | (_, Repr::Small(0, _)) => Rat::zero(),
            (Repr::Small(a, 1), Repr::Small(c, 1)) => match a.checked_mul(*c) {
                Some(p) if p != i64::MIN => Rat(Repr::Small(p, 1)),
                _ => Rat::from_i128(i128::from(*a) * i128::from(*c), 1),
            },
            // An integer times `c/d` in lowest terms: only `a` and `d` can share a factor.
            (Repr::Small(a, 1), Repr::Small(c, d)) | (Repr::Small(c, d), Repr::Small(a, 1)) => {
                let g = gcd_u64(a.unsigned_abs(), d.unsigned_abs()) as i64;
                Rat::lowest_from_i128(i128::from(a / g) * i128::from(*c), d / g)
            }
            (Repr::Small(a, b), Repr::Small(c, d)) => Rat::from_i128(
                i128::from(*a) * i128::from(*c),
                i128::from(*b) * i128::from(*d),
            ),
            _ => Rat::from_big(self.to_big() * other.to_big()),
        }
    }

    fn neg_ref(&self) -> Rat {
        match &self.0 {
            Repr::Small(n, d) => Rat(Repr::Small(-n, *d)),
            Repr::Big(b) => Rat::from_big(-&**b),
        }
    }

    fn sub_ref(&self, other: &Rat) -> Rat {
        self.add_ref(&other.neg_ref())
    }

    /// Division; panics on a zero divisor like integer division (callers divide only by
    /// values they checked, or use [`Rat::recip`]).
    fn div_ref(&self, other: &Rat) -> Rat {
        // An integer by an integer that divides it: no gcd needed.
        if let (Repr::Small(a, 1), Repr::Small(b, 1)) = (&self.0, &other.0)
            && *b != 0
            && a % b == 0
        {
            return Rat(Repr::Small(a / b, 1));
        }
        match other.recip() {
            Some(inverse) => self.mul_ref(&inverse),
            None => panic!("division of a rational by zero"),
        }
    }
}

impl PartialEq for Rat {
    fn eq(&self, other: &Rat) -> bool {
        self.0 == other.0
    }
}
impl Eq for Rat {}
impl Hash for Rat {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}
impl Ord for Rat {
    fn cmp(&self, other: &Rat) -> Ordering {
        match (&self.0, &other.0) {
            (Repr::Small(a, b), Repr::Small(c, d)) => {
                (i128::from(*a) * i128::from(*d)).cmp(&(i128::from(*c) * i128::from(*b)))
            }
            _ => self.to_big().cmp(&other.to_big()),
        }
    }
}
impl PartialOrd for Rat {
    fn partial_cmp(&self, other: &Rat) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Default for Rat {
    fn default() -> Rat {
        Rat::zero()
    }
}

/// Least common multiple of the denominators of `values` (1 for none).
pub fn lcm_of_denominators<'a>(values: impl IntoIterator<Item = &'a Rat>) -> Int {
    let mut small: i64 = 1;
    let mut big: Option<Int> = None;
    for v in values {
        match (&v.0, &mut big) {
            (Repr::Small(_, 1), _) => {}
            (Repr::Small(_, d), None) => {
                let lcm =
                    i128::from(small / gcd_u64(small as u64, *d as u64) as i64) * i128::from(*d);
                match i64::try_from(lcm) {
                    Ok(lcm) => small = lcm,
                    Err(_) => big = Some(Int::from(lcm)),
                }
            }
            (_, acc) => {
                let current = acc.take().unwrap_or_else(|| Int::from(small));
                *acc = Some(current.lcm(&v.denom()));
            }
        }
    }
    big.unwrap_or_else(|| Int::from(small))
}

/// Greatest common divisor of the numerators of `values` (0 for none or all zero).
pub fn gcd_of_numerators<'a>(values: impl IntoIterator<Item = &'a Rat>) -> Int {
    let mut small: u64 = 0;
    let mut big: Option<Int> = None;
    for v in values {
        match (&v.0, &mut big) {
            (Repr::Small(n, _), None) => small = gcd_u64(small, n.unsigned_abs()),
            (_, acc) => {
                let current = acc.take().unwrap_or_else(|| Int::from(small));
                *acc = Some(current.gcd(&v.numer()));
            }
        }
    }
    big.unwrap_or_else(|| Int::from(small))
}

impl From<i64> for Rat {
    fn from(value: i64) -> Rat {
        if value == i64::MIN {
            Rat(Repr::Big(Box::new(BigRational::from_integer(value.into()))))
        } else {
            Rat(Repr::Small(value, 1))
        }
    }
}
impl From<i32> for Rat {
    fn from(value: i32) -> Rat {
        Rat::from(value as i64)
    }
}
impl From<Int> for Rat {
    fn from(value: Int) -> Rat {
        Rat::from_int(value)
    }
}
impl From<&Int> for Rat {
    fn from(value: &Int) -> Rat {
        Rat::from_int(value.clone())
    }
}
impl From<BigRational> for Rat {
    fn from(value: BigRational) -> Rat {
        // A `BigRational` made through its public constructors is already in lowest terms.
        Rat::from_big(value)
    }
}
impl From<Rat> for BigRational {
    fn from(value: Rat) -> BigRational {
        match value.0 {
            Repr::Big(b) => *b,
            Repr::Small(..) => value.to_big(),
        }
    }
}

/// Error for text that is not a rational number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a rational number: {0:?}")]
pub struct ParseRatError(pub String);

impl FromStr for Rat {
    type Err = ParseRatError;
    /// Accepts `7`, `-7`, `7/2`, `-7/2` (whitespace around `/` allowed).
    fn from_str(text: &str) -> Result<Rat, ParseRatError> {
        let error = || ParseRatError(text.to_string());
        let parse_int = |part: &str| part.trim().parse::<Int>().map_err(|_| error());
        match text.split_once('/') {
            None => Ok(Rat::from_int(parse_int(text)?)),
            Some((numer, denom)) => {
                Rat::new(parse_int(numer)?, parse_int(denom)?).ok_or_else(error)
            }
        }
    }
}

impl TryFrom<String> for Rat {
    type Error = ParseRatError;
    fn try_from(text: String) -> Result<Rat, ParseRatError> {
        text.parse()
    }
}
impl From<Rat> for String {
    fn from(value: Rat) -> String {
        value.to_string()
    }
}

impl fmt::Display for Rat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Small(n, 1) => write!(f, "{n}"),
            Repr::Small(n, d) => write!(f, "{n}/{d}"),
            Repr::Big(b) if b.is_integer() => write!(f, "{}", b.numer()),
            Repr::Big(b) => write!(f, "{}/{}", b.numer(), b.denom()),
        }
    }
}
impl fmt::Debug for Rat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

macro_rules! binary_op {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign_method:ident, $by_ref:ident) => {
        impl $trait<Rat> for Rat {
            type Output = Rat;
            fn $method(self, rhs: Rat) -> Rat {
                self.$by_ref(&rhs)
            }
        }
        impl $trait<&Rat> for Rat {
            type Output = Rat;
            fn $method(self, rhs: &Rat) -> Rat {
                self.$by_ref(rhs)
            }
        }
        impl $trait<Rat> for &Rat {
            type Output = Rat;
            fn $method(self, rhs: Rat) -> Rat {
                self.$by_ref(&rhs)
            }
        }
        impl $trait<&Rat> for &Rat {
            type Output = Rat;
            fn $method(self, rhs: &Rat) -> Rat {
                self.$by_ref(rhs)
            }
        }
        impl $trait<i64> for Rat {
            type Output = Rat;
            fn $method(self, rhs: i64) -> Rat {
                self.$by_ref(&Rat::from(rhs))
            }
        }
        impl $trait<i64> for &Rat {
            type Output = Rat;
            fn $method(self, rhs: i64) -> Rat {
                self.$by_ref(&Rat::from(rhs))
            }
        }
        impl $assign_trait<Rat> for Rat {
            fn $assign_method(&mut self, rhs: Rat) {
                *self = self.$by_ref(&rhs);
            }
        }
        impl $assign_trait<&Rat> for Rat {
            fn $assign_method(&mut self, rhs: &Rat) {
                *self = self.$by_ref(rhs);
            }
        }
    };
}

binary_op!(Add, add, AddAssign, add_assign, add_ref);
binary_op!(Sub, sub, SubAssign, sub_assign, sub_ref);
binary_op!(Mul, mul, MulAssign, mul_assign, mul_ref);
// Division by a zero `Rat` panics like integer division; callers divide only by values they
// checked (use `recip` to get an `Option`).
binary_op!(Div, div, DivAssign, div_assign, div_ref);

impl Neg for Rat {
    type Output = Rat;
    fn neg(self) -> Rat {
        self.neg_ref()
    }
}
impl Neg for &Rat {
    type Output = Rat;
    fn neg(self) -> Rat {
        self.neg_ref()
    }
}
impl Zero for Rat {
    fn zero() -> Rat {
        Rat::zero()
    }
    fn is_zero(&self) -> bool {
        Rat::is_zero(self)
    }
}
impl One for Rat {
    fn one() -> Rat {
        Rat::one()
    }
}
impl Sum for Rat {
    fn sum<I: Iterator<Item = Rat>>(iter: I) -> Rat {
        iter.fold(Rat::zero(), |acc, x| acc + x)
    }
}
impl<'a> Sum<&'a Rat> for Rat {
    fn sum<I: Iterator<Item = &'a Rat>>(iter: I) -> Rat {
        iter.fold(Rat::zero(), |acc, x| acc + x)
    }
}
impl Product for Rat {
    fn product<I: Iterator<Item = Rat>>(iter: I) -> Rat {
        iter.fold(Rat::one(), |acc, x| acc * x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_integers_and_fractions() {
        assert_eq!(Rat::from(7).to_string(), "7");
        assert_eq!(Rat::new(7, 2).unwrap().to_string(), "7/2");
        assert_eq!(Rat::new(-14, 4).unwrap().to_string(), "-7/2");
    }

    #[test]
    fn parses_what_it_prints() {
        for text in [
            "0",
            "-3",
            "7/2",
            "-7/2",
            "12345678901234567890123456789/1000",
        ] {
            assert_eq!(text.parse::<Rat>().unwrap().to_string(), text);
        }
        assert!("1/0".parse::<Rat>().is_err());
        assert!("x".parse::<Rat>().is_err());
    }

    #[test]
    fn floor_and_ceil_round_towards_the_right_side() {
        let minus_seven_halves = Rat::new(-7, 2).unwrap();
        assert_eq!(minus_seven_halves.floor(), Int::from(-4));
        assert_eq!(minus_seven_halves.ceil(), Int::from(-3));
        assert_eq!(Rat::from(3).floor(), Int::from(3));
    }

    #[test]
    fn arithmetic_by_value_and_reference_agree() {
        let a = Rat::new(1, 3).unwrap();
        let b = Rat::new(1, 6).unwrap();
        assert_eq!(&a + &b, Rat::new(1, 2).unwrap());
        assert_eq!(a.clone() - b.clone(), Rat::new(1, 6).unwrap());
        assert_eq!(&a * b.clone(), Rat::new(1, 18).unwrap());
        assert_eq!(a / &b, Rat::from(2));
    }

    /// Numbers near the edge of the small form, where the fast path must hand over.
    fn edge_value() -> impl proptest::strategy::Strategy<Value = BigRational> {
        use proptest::prelude::*;
        let component = prop_oneof![
            -20i64..20,
            Just(i64::MAX),
            Just(i64::MIN),
            Just(i64::MAX - 1),
            Just(i64::MIN + 1),
            Just(1i64 << 32),
            Just(3_037_000_499),
            any::<i64>(),
        ];
        let extra = prop_oneof![Just(1i64), Just(1 << 40), Just(-7)];
        (component.clone(), component, extra).prop_map(|(n, d, extra)| {
            let d = if d == 0 { 1 } else { d };
            BigRational::new(BigInt::from(n) * BigInt::from(extra), BigInt::from(d))
        })
    }

    proptest::proptest! {
        #[test]
        fn agrees_with_big_rationals(a in edge_value(), b in edge_value()) {
            let (x, y) = (Rat::from(a.clone()), Rat::from(b.clone()));
            proptest::prop_assert_eq!(BigRational::from(&x + &y), &a + &b);
            proptest::prop_assert_eq!(BigRational::from(&x - &y), &a - &b);
            proptest::prop_assert_eq!(BigRational::from(&x * &y), &a * &b);
            if !b.is_zero() {
                proptest::prop_assert_eq!(BigRational::from(&x / &y), &a / &b);
            }
            proptest::prop_assert_eq!(BigRational::from(-&x), -&a);
            proptest::prop_assert_eq!(x.cmp(&y), a.cmp(&b));
            proptest::prop_assert_eq!(x.floor(), a.floor().to_integer());
            proptest::prop_assert_eq!(x.ceil(), a.ceil().to_integer());
            proptest::prop_assert_eq!(x.numer(), a.numer().clone());
            proptest::prop_assert_eq!(x.denom(), a.denom().clone());
            // Canonical: the same value has one representation, so `==` and hashing agree.
            proptest::prop_assert_eq!(&x + &y - &y, x.clone());
            proptest::prop_assert_eq!(x.to_string(), a.to_string());
        }
    }

    #[test]
    fn overflowing_small_values_become_big_and_back() {
        let max = Rat::from(i64::MAX);
        let sum = &max + &max;
        assert_eq!(sum.to_string(), "18446744073709551614");
        assert_eq!(&sum - &max, max);
        assert_eq!(Rat::from(i64::MIN).to_string(), i64::MIN.to_string());
        assert_eq!(-Rat::from(i64::MIN), Rat::from(i64::MAX) + Rat::one());
        let tiny = Rat::new(1, i64::MAX).unwrap();
        assert_eq!((&tiny * &tiny).recip().unwrap(), &max * &max);
        assert_eq!(
            lcm_of_denominators(&[tiny.clone(), Rat::new(1, 2).unwrap()]),
            Int::from(i64::MAX) * 2
        );
        assert_eq!(
            gcd_of_numerators(&[&max * &max, Rat::from(6)]),
            Int::from(1)
        );
    }

    #[test]
    fn serde_round_trips_as_string() {
        let value = Rat::new(-7, 2).unwrap();
        let json = serde_json::to_string(&value).unwrap();
        assert_eq!(json, "\"-7/2\"");
        assert_eq!(serde_json::from_str::<Rat>(&json).unwrap(), value);
    }
}

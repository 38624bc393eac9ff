//! The one exact scalar of the math crates: arbitrary-precision rationals ([`Rat`]) and integers
//! ([`Int`]). Every number that decides a result goes through these types; there are no floats.

use std::fmt;
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
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Rat(BigRational);

impl Rat {
    /// `numer / denom`; `None` when `denom` is zero.
    pub fn new(numer: impl Into<Int>, denom: impl Into<Int>) -> Option<Rat> {
        let denom = denom.into();
        (!denom.is_zero()).then(|| Rat(BigRational::new(numer.into(), denom)))
    }
    pub fn zero() -> Rat {
        Rat(BigRational::zero())
    }
    pub fn one() -> Rat {
        Rat(BigRational::one())
    }
    pub fn from_int(value: Int) -> Rat {
        Rat(BigRational::from_integer(value))
    }
    pub fn is_zero(&self) -> bool {
        self.0.is_zero()
    }
    pub fn is_one(&self) -> bool {
        self.0.is_one()
    }
    pub fn is_integer(&self) -> bool {
        self.0.is_integer()
    }
    pub fn is_positive(&self) -> bool {
        self.0.is_positive()
    }
    pub fn is_negative(&self) -> bool {
        self.0.is_negative()
    }
    pub fn numer(&self) -> &Int {
        self.0.numer()
    }
    pub fn denom(&self) -> &Int {
        self.0.denom()
    }
    /// Largest integer not above `self`.
    pub fn floor(&self) -> Int {
        self.0.floor().to_integer()
    }
    /// Smallest integer not below `self`.
    pub fn ceil(&self) -> Int {
        self.0.ceil().to_integer()
    }
    pub fn abs(&self) -> Rat {
        Rat(self.0.abs())
    }
    /// -1, 0 or 1.
    pub fn signum(&self) -> i32 {
        if self.0.is_positive() {
            1
        } else if self.0.is_negative() {
            -1
        } else {
            0
        }
    }
    /// `1 / self`; `None` for zero.
    pub fn recip(&self) -> Option<Rat> {
        (!self.is_zero()).then(|| Rat(self.0.recip()))
    }
    pub fn pow(&self, exponent: u32) -> Rat {
        Rat(num_traits::pow(self.0.clone(), exponent as usize))
    }
    /// The value as an integer when it is one.
    pub fn to_int(&self) -> Option<Int> {
        self.is_integer().then(|| self.0.to_integer())
    }
    /// The value as an `i64` when it is an integer in range.
    pub fn to_i64(&self) -> Option<i64> {
        self.to_int().and_then(|i| i.to_i64())
    }
    /// Nearest `f64`; for display and heuristics only, never to decide a result.
    pub fn to_f64_lossy(&self) -> f64 {
        self.0.to_f64().unwrap_or(f64::NAN)
    }
}

/// Least common multiple of the denominators of `values` (1 for none).
pub fn lcm_of_denominators<'a>(values: impl IntoIterator<Item = &'a Rat>) -> Int {
    values
        .into_iter()
        .fold(Int::one(), |acc, v| acc.lcm(v.denom()))
}

/// Greatest common divisor of the numerators of `values` (0 for none or all zero).
pub fn gcd_of_numerators<'a>(values: impl IntoIterator<Item = &'a Rat>) -> Int {
    values
        .into_iter()
        .fold(Int::zero(), |acc, v| acc.gcd(v.numer()))
}

impl From<i64> for Rat {
    fn from(value: i64) -> Rat {
        Rat::from_int(Int::from(value))
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
        Rat(value)
    }
}
impl From<Rat> for BigRational {
    fn from(value: Rat) -> BigRational {
        value.0
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
        if self.0.is_integer() {
            write!(f, "{}", self.0.numer())
        } else {
            write!(f, "{}/{}", self.0.numer(), self.0.denom())
        }
    }
}
impl fmt::Debug for Rat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

macro_rules! binary_op {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign_method:ident) => {
        impl $trait<Rat> for Rat {
            type Output = Rat;
            fn $method(self, rhs: Rat) -> Rat {
                Rat(self.0.$method(rhs.0))
            }
        }
        impl $trait<&Rat> for Rat {
            type Output = Rat;
            fn $method(self, rhs: &Rat) -> Rat {
                Rat(self.0.$method(&rhs.0))
            }
        }
        impl $trait<Rat> for &Rat {
            type Output = Rat;
            fn $method(self, rhs: Rat) -> Rat {
                Rat((&self.0).$method(rhs.0))
            }
        }
        impl $trait<&Rat> for &Rat {
            type Output = Rat;
            fn $method(self, rhs: &Rat) -> Rat {
                Rat((&self.0).$method(&rhs.0))
            }
        }
        impl $trait<i64> for Rat {
            type Output = Rat;
            fn $method(self, rhs: i64) -> Rat {
                self.$method(Rat::from(rhs))
            }
        }
        impl $trait<i64> for &Rat {
            type Output = Rat;
            fn $method(self, rhs: i64) -> Rat {
                self.$method(Rat::from(rhs))
            }
        }
        impl $assign_trait<Rat> for Rat {
            fn $assign_method(&mut self, rhs: Rat) {
                self.0.$assign_method(rhs.0);
            }
        }
        impl $assign_trait<&Rat> for Rat {
            fn $assign_method(&mut self, rhs: &Rat) {
                self.0.$assign_method(&rhs.0);
            }
        }
    };
}

binary_op!(Add, add, AddAssign, add_assign);
binary_op!(Sub, sub, SubAssign, sub_assign);
binary_op!(Mul, mul, MulAssign, mul_assign);
// Division by a zero `Rat` panics like integer division; callers divide only by values they
// checked (use `recip` to get an `Option`).
binary_op!(Div, div, DivAssign, div_assign);

impl Neg for Rat {
    type Output = Rat;
    fn neg(self) -> Rat {
        Rat(-self.0)
    }
}
impl Neg for &Rat {
    type Output = Rat;
    fn neg(self) -> Rat {
        Rat(-&self.0)
    }
}
impl Zero for Rat {
    fn zero() -> Rat {
        Rat::zero()
    }
    fn is_zero(&self) -> bool {
        self.0.is_zero()
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

    #[test]
    fn serde_round_trips_as_string() {
        let value = Rat::new(-7, 2).unwrap();
        let json = serde_json::to_string(&value).unwrap();
        assert_eq!(json, "\"-7/2\"");
        assert_eq!(serde_json::from_str::<Rat>(&json).unwrap(), value);
    }
}

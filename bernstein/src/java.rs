//! Java code that evaluates a bound expression exactly (thesis Fig. 7.9 style).

use crate::expr::BoundExpr;

/// Placeholder replaced below.
pub fn to_java(_expr: &BoundExpr) -> String {
    String::new()
}

//! Tightness benchmark against isl (written below).
fn main() {}

#![allow(dead_code)] // each test binary uses a different subset of the helpers
pub mod brute;
pub mod corpus;
pub mod oracle;

//! Support for the end-to-end tests of the `membound` binary: finding the binary, compiling Java
//! fixtures with `javac` at test time, and running commands. The tests themselves live in
//! `tests/tests/`.

//! membound's run-time side: running a Java program under the JVMTI agent (`membound-agent`) and
//! checking a certificate against what the run allocated.
//!
//! [`measure`] launches the JVM with the agent, reads its event stream and counts allocations
//! per creation site; [`validate`] compares a certificate's predictions with a run. It depends
//! only on the certificate, never on the analysis: an edited or stale certificate is what gets
//! checked.
//!
//! # Map
//! - [`measure`]: launching, events, per-site counts, the method-region replay.
//! - [`validate`]: predictions against a run, per chain and in total, and memRq against the
//!   replayed peak.

pub mod measure;
pub mod validate;

//! One setting of one method: the program runs under the agent ([`membound_runtime::measure`]) and the
//! certificate is compared with the run ([`membound_runtime::validate`]), exactly as `membound
//! validate` does, at the parameter values the agent recorded at each entry of the method.
//!
//! It does not analyze and does not render.

use std::collections::BTreeMap;
use std::path::Path;

use membound_certificate::Certificate;
use membound_polyhedra::{Int, Rat, Value};
use membound_runtime::measure::MeasureOptions;
use membound_runtime::validate::{self, Comparison, Validation};

/// What one run of a program showed for the analyzed method.
pub struct Checked {
    pub validation: Validation,
}

impl Checked {
    /// The comparison of the method's total in `quantity` (`objects` or `bytes`).
    pub fn total(&self, quantity: &str) -> Option<&Comparison> {
        self.validation
            .comparisons
            .iter()
            .find(|c| c.what == "total" && c.quantity == quantity)
    }

    /// memRq in objects against the run's method-region peak, at the entry whose peak was
    /// largest (validate compares every entry); None without memRq in the certificate.
    pub fn mem_rq(&self) -> Option<&Comparison> {
        self.validation
            .comparisons
            .iter()
            .filter(|c| c.what.starts_with(MEM_RQ) && c.quantity == "objects")
            .max_by_key(|c| c.observed)
    }
}

/// How [`validate`] names its memRq comparisons (`memRq (entry 1)`).
const MEM_RQ: &str = "memRq";

/// Runs `main` with `args` under the agent at `agent`, watching the certificate's entry as
/// [`validate::measure_for`] does (recording the static fields its parameters come from and,
/// when the certificate has memRq, replaying the run into its regions), and validates the
/// certificate against the run.
pub fn check(
    certificate: &Certificate,
    classes: &Path,
    agent: &Path,
    main: &str,
    args: Vec<String>,
) -> Result<Checked, String> {
    let method = certificate.entry.method.clone();
    let entry = certificate.method(&method).map_err(|e| e.to_string())?;
    let options = MeasureOptions {
        input: classes.to_path_buf(),
        method: method.clone(),
        main: Some(main.to_string()),
        java: None,
        agent: Some(agent.to_path_buf()),
        jvm_args: Vec::new(),
        program_args: args,
    };
    let measurement =
        validate::measure_for(certificate, entry, &options, false).map_err(|e| e.to_string())?;
    if measurement.program_exit_code != Some(0) {
        return Err(measurement.warnings.join("; "));
    }
    let validation = validate::validate(certificate, &method, &measurement, &BTreeMap::new())
        .map_err(|e| e.to_string())?;
    Ok(Checked { validation })
}

/// The relative error of a sound prediction, `(predicted − observed) / predicted` in percent
/// (the thesis's `|#Obs − Estim| / Estim`); None when the prediction is ∞, or 0 with a nonzero
/// observation (which [`Comparison::is_broken`] reports).
pub fn error_percent(comparison: &Comparison) -> Option<Rat> {
    let Value::Finite(predicted) = &comparison.predicted else {
        return None;
    };
    if predicted.is_zero() {
        return (comparison.observed == 0).then(|| Rat::from(0));
    }
    let observed = Rat::from(Int::from(comparison.observed));
    Some((predicted - observed) / predicted * 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comparison(observed: u64, predicted: Value) -> Comparison {
        Comparison {
            what: "total".to_string(),
            quantity: "objects",
            observed,
            predicted,
        }
    }

    #[test]
    fn the_error_is_exact_and_relative_to_the_estimate() {
        // The thesis's mst row at nv = 10: 240 observed, 245 estimated, 100/49 % exactly.
        let row = comparison(240, Value::Finite(Rat::from(245)));
        assert_eq!(error_percent(&row), Some(Rat::from(100) / Rat::from(49)));
        assert_eq!(
            error_percent(&comparison(0, Value::Finite(Rat::from(0)))),
            Some(Rat::from(0))
        );
        assert_eq!(error_percent(&comparison(7, Value::Infinite)), None);
        // Below the observation: no error figure, the comparison is broken instead.
        let broken = comparison(5, Value::Finite(Rat::from(0)));
        assert_eq!(error_percent(&broken), None);
        assert!(broken.is_broken());
    }
}

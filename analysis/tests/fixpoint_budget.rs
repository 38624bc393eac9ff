//! The invariant fixpoint's budget and the analysis's deadline: a procedure whose fixpoint
//! gives up has no invariants, and components not summarized by the deadline no summaries;
//! every bound that needs them is ∞ with the limit as its reason, never a silent loss.

mod support;

use std::time::Instant;

use membound_invariants::Options;
use membound_tests::compile_fixture;
use support::summarized;

/// The summaries of `nests.Temporaries.nest` (fixture `nests`) lowered with `fixpoint` and
/// summarized by `deadline`: the entry's sites' reasons, each site asserted ∞.
fn reasons_of_infinite_sites(fixpoint: &Options, deadline: Option<Instant>) -> Vec<Vec<String>> {
    let classes = compile_fixture("nests");
    let summarized = summarized(&classes, "nests.Temporaries.nest", fixpoint, deadline);
    let summaries = summarized.summaries;
    let nest = summaries
        .in_order()
        .find(|s| s.method.name.as_ref() == "nest")
        .expect("the entry's summary");
    assert!(!nest.sites.is_empty());
    nest.sites
        .iter()
        .map(|site| {
            assert!(site.total(&nest.params).count.is_infinite(), "{site:?}");
            site.reasons.clone()
        })
        .collect()
}

#[test]
fn a_fixpoint_that_gives_up_makes_its_sites_infinite_with_the_budget_as_reason() {
    let tiny = Options {
        budget: 5,
        ..Options::default()
    };
    for reasons in reasons_of_infinite_sites(&tiny, None) {
        let budget = "the invariant fixpoint stopped at its budget of 20 edge transfers";
        assert!(reasons.iter().any(|r| r.contains(budget)), "{reasons:?}");
    }
}

#[test]
fn methods_not_summarized_by_the_deadline_are_infinite_with_the_time_limit_as_reason() {
    let past = Some(Instant::now());
    for reasons in reasons_of_infinite_sites(&Options::default(), past) {
        let limit = "the analysis reached its time limit before summarizing this method";
        assert_eq!(reasons, [limit]);
    }
}

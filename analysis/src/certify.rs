//! The certificate of an analysis: [`Bounds`] written in the certificate crate's format (every
//! quantity in its text form, chains as method and offset, regions by the capturing method).

use std::path::Path;

use membound_certificate::{
    AmountEntry, Certificate, ChainEntry, ESCAPES, MethodEntry, ParamEntry, SiteEntry,
};
use membound_jvm::error::Result;

use crate::escape::SiteRegion;
use crate::memalloc::{Amount, Bounds, MethodBound, SiteBound};
use crate::sites::ChainElement;

/// The certificate of `bounds`, computed from the program at `input`.
pub fn certificate(input: &Path, bounds: &Bounds) -> Result<Certificate> {
    Certificate::new(
        input,
        bounds.model.name(),
        bounds.assumptions.clone(),
        bounds.methods.iter().map(method_entry).collect(),
    )
}

fn method_entry(bound: &MethodBound) -> MethodEntry {
    MethodEntry {
        method: bound.method.to_string(),
        params: bound
            .params
            .iter()
            .map(|p| ParamEntry {
                name: p.name.clone(),
                origin: p.origin.clone(),
            })
            .collect(),
        mem_alloc: amount_entry(&bound.mem_alloc),
        mem_captured: bound
            .regions
            .as_ref()
            .map(|r| amount_entry(&r.mem_captured)),
        mem_escapes: bound.regions.as_ref().map(|r| amount_entry(&r.mem_escapes)),
        mem_rq: bound.regions.as_ref().map(|r| amount_entry(&r.mem_rq)),
        unbounded: bound.unbounded.clone(),
        region_reasons: bound
            .regions
            .as_ref()
            .map(|r| r.reasons.clone())
            .unwrap_or_default(),
        spec: bound.spec.clone(),
        sites: bound.sites.iter().map(site_entry).collect(),
    }
}

fn amount_entry(amount: &Amount) -> AmountEntry {
    AmountEntry {
        objects: amount.objects.to_text(),
        bytes: amount.bytes.to_text(),
    }
}

fn site_entry(site: &SiteBound) -> SiteEntry {
    SiteEntry {
        chain: site.chain.iter().map(chain_entry).collect(),
        ty: site.ty.to_string(),
        count: site.count.to_text(),
        objects: site.amount.objects.to_text(),
        bytes: site.amount.bytes.to_text(),
        region: site.region.map(|region| match region {
            SiteRegion::CapturedBy(index) => site.chain[index].method.to_string(),
            SiteRegion::EscapesEntry => ESCAPES.to_string(),
        }),
        reasons: site.reasons.clone(),
    }
}

fn chain_entry(element: &ChainElement) -> ChainEntry {
    ChainEntry {
        method: element.method.to_string(),
        offset: element.pc,
        line: element.line,
    }
}

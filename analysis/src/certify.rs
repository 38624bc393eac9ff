//! The certificate of an analysis: [`Bounds`] written in the certificate crate's format (every
//! quantity in its text form, chains as method and offset, regions by the capturing method).

use std::path::Path;

use membound_certificate::{
    AmountEntry, Certificate, ChainEntry, Input, MethodEntry, ParamEntry, Places, SiteEntry,
};
use membound_jvm::error::Result;

use crate::memalloc::{Amount, Bounds, MethodBound, SiteBound};
use crate::sites::ChainElement;
use membound_jvm::MethodRef;

/// The certificate of `bounds`, computed from the program at `input`.
pub fn certificate(input: &Path, bounds: &Bounds) -> Result<Certificate> {
    Ok(certificate_of(Input::of(input)?, bounds))
}

/// The certificate of `bounds`, computed from the program `input` (hashed once for many).
pub fn certificate_of(input: Input, bounds: &Bounds) -> Certificate {
    Certificate::of_input(
        input,
        bounds.model.name(),
        bounds.assumptions.clone(),
        bounds
            .methods
            .iter()
            .map(|method| method_entry(method, &bounds.callees))
            .collect(),
    )
}

fn method_entry(bound: &MethodBound, calls: &[(MethodRef, MethodRef)]) -> MethodEntry {
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
        callees: calls
            .iter()
            .filter(|(caller, _)| *caller == bound.method)
            .map(|(_, callee)| callee.to_string())
            .collect(),
        sites: bound
            .sites
            .iter()
            .map(|site| site_entry(&bound.method.to_string(), site))
            .collect(),
    }
}

fn amount_entry(amount: &Amount) -> AmountEntry {
    AmountEntry {
        objects: amount.objects.to_text(),
        bytes: amount.bytes.to_text(),
    }
}

fn site_entry(method: &str, site: &SiteBound) -> SiteEntry {
    SiteEntry {
        at: chain_entry(&site.at),
        via: site.via.as_ref().map(chain_entry),
        ty: site.ty.to_string(),
        count: site.count.to_text(),
        objects: site.amount.objects.to_text(),
        bytes: site.amount.bytes.to_text(),
        region: site
            .residence
            .map(|residence| {
                Places {
                    here: residence.here,
                    callees: residence.callees,
                    escapes: residence.escapes,
                }
                .text(method)
            })
            .filter(|text| !text.is_empty()),
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

//! Escape analysis and regions: for every creation site, the method on its chain whose region
//! captures the object. Filled in by the regions work.

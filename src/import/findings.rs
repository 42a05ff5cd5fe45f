//! Collects data-level findings during a load, one per (code, pointer): an accessor shared by
//! many samplers or primitives is reported once, not once per use.

use crate::rig::{Finding, Severity};
use std::collections::HashSet;

#[derive(Debug, Default)]
pub(crate) struct Findings {
    list: Vec<Finding>,
    seen: HashSet<(&'static str, String)>,
}

impl Findings {
    pub(crate) fn push(
        &mut self,
        code: &'static str,
        severity: Severity,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) {
        let pointer = pointer.into();
        if self.seen.insert((code, pointer.clone())) {
            self.list.push(Finding { code, severity, pointer, message: message.into() });
        }
    }

    pub(crate) fn into_vec(self) -> Vec<Finding> {
        self.list
    }
}

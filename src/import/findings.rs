//! Collects data-level findings during a load, one per (code, pointer) or, for rules the
//! validator reports element by element, per (code, pointer, element): an accessor shared by
//! many samplers or primitives is reported once, not once per use.

use crate::rig::{Finding, Severity};
use std::collections::HashSet;

#[derive(Debug, Default)]
pub(crate) struct Findings {
    list: Vec<Finding>,
    seen: HashSet<(&'static str, String, Option<usize>)>,
}

impl Findings {
    pub(crate) fn push(
        &mut self,
        code: &'static str,
        severity: Severity,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.push_at(code, severity, pointer.into(), None, message.into());
    }

    /// A finding about element `element` of what `pointer` names: one per element.
    pub(crate) fn push_element(
        &mut self,
        code: &'static str,
        severity: Severity,
        pointer: &str,
        element: usize,
        message: String,
    ) {
        self.push_at(code, severity, pointer.to_string(), Some(element), message);
    }

    fn push_at(
        &mut self,
        code: &'static str,
        severity: Severity,
        pointer: String,
        at: Option<usize>,
        message: String,
    ) {
        if self.seen.insert((code, pointer.clone(), at)) {
            self.list.push(Finding::new(code, severity, pointer, message));
        }
    }

    pub(crate) fn into_vec(self) -> Vec<Finding> {
        self.list
    }
}

//! What every resolution pass shares: the file's label for messages, the limits in force, and
//! the checks every name goes through.

use crate::scenario::ScenarioError;
use crate::scenario::limits::Limits;
use congsim_core::{FlowId, NodeId};
use std::collections::BTreeMap;

/// Finds a node by name; `Err` naming `path` when there is none.
pub(super) type Lookup<'a> = dyn Fn(String, &str) -> Result<NodeId, ScenarioError> + 'a;

/// The flow ids a name stands for: a flow's (or source's) own name, and the base name of an
/// entry with `count` > 1 for all of its flows.
pub(super) type FlowIds = BTreeMap<String, Vec<FlowId>>;

pub(super) struct Ctx<'a> {
    pub(super) file: &'a str,
    pub(super) limits: &'a Limits,
}

/// The longest name accepted, in characters.
const MAX_NAME_CHARS: usize = 256;

impl Ctx<'_> {
    /// A name (of the scenario, a node, a flow, a source or a class) must be printable text:
    /// names reach terminals, CSV files and file names, where control characters (escape
    /// sequences, NUL, line breaks) would do harm.
    pub(super) fn plain_name(&self, path: &str, name: &str) -> Result<(), ScenarioError> {
        if name.trim().is_empty() {
            return Err(self.err(path, "a name must not be empty"));
        }
        if let Some(c) = name.chars().find(|&c| crate::scenario::is_unsafe_char(c)) {
            return Err(self.err(
                path,
                format!(
                    "a name must not contain control or bidirectional formatting characters (found U+{:04X})",
                    u32::from(c)
                ),
            ));
        }
        if name.chars().count() > MAX_NAME_CHARS {
            return Err(self.err(
                path,
                format!("a name must be at most {MAX_NAME_CHARS} characters"),
            ));
        }
        Ok(())
    }

    pub(super) fn err(&self, path: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            file: self.file.to_string(),
            path: path.into(),
            message: message.into(),
        }
    }
}

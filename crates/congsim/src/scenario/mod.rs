//! Scenario files: parsing, validation with precise messages, and resolution into the
//! [`Scenario`] the simulator runs.
//!
//! Every mistake a user can make is reported as a [`ScenarioError`] naming the file, the field
//! path (`links[3].rate`) and what is allowed; nothing in here panics on user input.

pub mod schema;
pub mod units;

pub mod checks;
pub mod limits;
pub mod model;
pub mod network;
mod overrides;
mod resolve;
pub mod routes;
mod topology;

pub use limits::Limits;
pub use model::{
    QueueDiscipline, ResolvedCapture, ResolvedCbr, ResolvedFlow, ResolvedLink, Scenario,
    ScenarioWarning,
};
pub use network::TrafficPath;
pub use routes::Routes;
pub use schema::ScenarioFile;

use std::fmt;
use std::path::Path;

/// A problem with a scenario file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file (or a label such as `<string>`).
    pub file: String,
    /// Field path, e.g. `links[3].rate`; empty for file-level problems.
    pub path: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    /// One line of printable text: control characters and bidirectional overrides that a
    /// file's values bring into the message are escaped (`\x1b`), so that a message cannot act
    /// on a terminal or split a log line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (file, path, message) = (
            printable(&self.file),
            printable(&self.path),
            printable(&self.message),
        );
        if self.path.is_empty() {
            write!(f, "{file}: {message}")
        } else {
            write!(f, "{file}: {path}: {message}")
        }
    }
}

/// A character that acts on a terminal or reorders text: a control character or a
/// bidirectional override or isolate.
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with control characters and bidirectional formatting characters escaped as Python
/// writes them (`\x1b`, `\u202e`).
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = is_unsafe_char;
    if !text.chars().any(unsafe_char) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        let code = u32::from(c);
        if !unsafe_char(c) {
            out.push(c);
        } else if code < 0x100 {
            out += &format!("\\x{code:02x}");
        } else {
            out += &format!("\\u{code:04x}");
        }
    }
    out.into()
}

impl std::error::Error for ScenarioError {}

impl ScenarioError {
    /// The error with the line and column where `text` writes its field (or the nearest part of
    /// the field's path the file writes), unless it has them already.
    fn located_in(mut self, text: &str) -> Self {
        if !self.message.contains("(line ")
            && let Some(span) = span_of(text, &self.path)
        {
            let (line, col) = line_col(text, span.start);
            self.message = format!("{} (line {line}, column {col})", self.message);
        }
        self
    }
}

/// 1-based line and column of byte offset `at` in `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Parses scenario TOML `text`; `file` labels error messages.
pub fn parse_file(text: &str, file: &str) -> Result<ScenarioFile, ScenarioError> {
    Limits::from_env()?.check("file_bytes", text.len() as u64, file, "", || {
        format!("is {} bytes long", limits::grouped(text.len() as u64))
    })?;
    let located = |message: &str, span: Option<std::ops::Range<usize>>| match span {
        Some(span) => {
            let (line, col) = line_col(text, span.start);
            format!("{message} (line {line}, column {col})")
        }
        None => message.to_string(),
    };
    let deserializer = toml::Deserializer::parse(text).map_err(|e| ScenarioError {
        file: file.to_string(),
        path: String::new(),
        message: format!("not valid TOML: {}", located(e.message().trim(), e.span())),
    })?;
    serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let path = if path == "." { String::new() } else { path };
        let (path, message) = schema::split_nested(path, inner.message().trim());
        ScenarioError {
            file: file.to_string(),
            path,
            message: located(&message, inner.span()),
        }
    })
}

/// Parses and validates scenario TOML `text`.
pub fn from_toml_str(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
    let parsed = parse_file(text, file)?;
    Scenario::resolve(parsed, file).map_err(|e| e.located_in(text))
}

/// Where the deepest part of field `path` that `text` writes begins: `links[3].queue.limit_packets`
/// is the `limit_packets` value if the file gives it, else the `queue` table, else the link.
fn span_of(text: &str, path: &str) -> Option<std::ops::Range<usize>> {
    use toml::de::{DeTable, DeValue};
    let steps = overrides::parse_path(path)?;
    let root = DeTable::parse(text).ok()?;
    fn entry<'i>(table: &DeTable<'i>, key: &str) -> Option<toml::Spanned<DeValue<'i>>> {
        table
            .iter()
            .find(|(k, _)| k.get_ref().as_ref() == key)
            .map(|(_, v)| v.clone())
    }
    let mut span = None;
    let mut value: Option<toml::Spanned<DeValue<'_>>> = None;
    for step in steps {
        let next = match (&value, step) {
            (None, overrides::Step::Key(key)) => entry(root.get_ref(), key),
            (Some(v), overrides::Step::Key(key)) => match v.get_ref() {
                DeValue::Table(t) => entry(t, key),
                _ => None,
            },
            (Some(v), overrides::Step::Index(i)) => match v.get_ref() {
                DeValue::Array(items) => items.get(i).cloned(),
                _ => None,
            },
            _ => None,
        };
        let Some(next) = next else { break };
        span = Some(next.span());
        value = Some(next);
    }
    span
}

/// The scenario document after `overrides` (syntax errors keep their line and column).
fn overridden_document(
    text: &str,
    file: &str,
    overrides: &[(String, serde_json::Value)],
) -> Result<toml::Table, ScenarioError> {
    parse_file(text, file)?;
    let mut document: toml::Table = toml::from_str(text).map_err(|e| ScenarioError {
        file: file.to_string(),
        path: String::new(),
        message: format!("not valid TOML: {}", e.message().trim()),
    })?;
    for (path, value) in overrides {
        overrides::apply(&mut document, path, value, file)?;
    }
    Ok(document)
}

/// The scenario file that `text` with `overrides` stands for, as TOML text, once it is valid
/// (comments and layout are not kept).
pub fn effective_toml(
    text: &str,
    file: &str,
    overrides: &[(String, serde_json::Value)],
) -> Result<String, ScenarioError> {
    from_toml_str_with_overrides(text, file, overrides)?;
    if overrides.is_empty() {
        return Ok(text.to_string());
    }
    let document = overridden_document(text, file, overrides)?;
    toml::to_string(&document).map_err(|e| ScenarioError {
        file: file.to_string(),
        path: String::new(),
        message: format!("cannot write the scenario as TOML: {e}"),
    })
}

/// Parses scenario TOML `text`, applies `overrides` (field path, value) in order, and
/// validates the result. Messages name the overridden field's path.
pub fn from_toml_str_with_overrides(
    text: &str,
    file: &str,
    overrides: &[(String, serde_json::Value)],
) -> Result<Scenario, ScenarioError> {
    if overrides.is_empty() {
        return from_toml_str(text, file);
    }
    let document = overridden_document(text, file, overrides)?;
    let shadowed = shadowed_overrides(&document, overrides);
    let parsed: ScenarioFile = serde_path_to_error::deserialize(toml::Value::Table(document))
        .map_err(|e| {
            let (path, message) =
                schema::split_nested(e.path().to_string(), e.inner().message().trim());
            ScenarioError {
                file: file.to_string(),
                path,
                message,
            }
        })?;
    let mut scenario = Scenario::resolve(parsed, file).map_err(|e| {
        // A field an override set has no line in the file.
        let overridden = overrides.iter().any(|(path, _)| {
            e.path.starts_with(path.as_str()) || path.starts_with(e.path.as_str())
        });
        if overridden { e } else { e.located_in(text) }
    })?;
    scenario.warnings.extend(shadowed);
    Ok(scenario)
}

/// Overrides of a file-wide `[tcp]` field that every flow and transfer group of the file sets
/// for itself: they change nothing, which a sweep over them would not show.
fn shadowed_overrides(
    document: &toml::Table,
    overrides: &[(String, serde_json::Value)],
) -> Vec<model::ScenarioWarning> {
    let entries: Vec<&toml::Table> = ["flows", "transfers"]
        .iter()
        .filter_map(|key| document.get(*key).and_then(toml::Value::as_array))
        .flatten()
        .filter_map(toml::Value::as_table)
        .collect();
    let sets_its_own = |entry: &&toml::Table, field: &str| {
        (entry.get("tcp").and_then(toml::Value::as_table)).is_some_and(|t| t.contains_key(field))
    };
    overrides
        .iter()
        .filter_map(|(path, _)| {
            let field = path.strip_prefix("tcp.")?.split(['.', '[']).next()?;
            (!entries.is_empty() && entries.iter().all(|e| sets_its_own(e, field))).then(|| {
                model::ScenarioWarning {
                    path: path.clone(),
                    message: format!(
                        "changes nothing: every flow sets its own tcp.{field} (override flows[*].tcp.{field} instead)"
                    ),
                }
            })
        })
        .collect()
}

/// Reads, parses and validates the scenario file at `path`.
pub fn load_file(path: &Path) -> Result<Scenario, ScenarioError> {
    let label = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
        file: label.clone(),
        path: String::new(),
        message: format!("cannot read the file: {e}"),
    })?;
    from_toml_str(&text, &label)
}

/// The JSON Schema of the scenario format, for editors.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(ScenarioFile);
    serde_json::to_string_pretty(&schema).unwrap_or_default()
}

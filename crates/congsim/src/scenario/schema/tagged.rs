//! Sections whose `kind` picks what they are (`[topology]`, a link's `queue`): an enum with
//! one settings struct per kind. serde's own internally tagged enums buffer the section before
//! reading it, which loses the path of the field at fault and cannot give `kind` a default;
//! here the kind is taken out first and its struct read with the path kept.

use serde::de::{Deserialize, Deserializer, Error as _};

/// Separates a field's path inside the section from the message, in a deserializer error;
/// [`split_nested`] puts it back on the section's path.
const NESTED: char = '\u{1f}';

/// A kind's struct read from the section without its `kind`.
pub(super) type Variant<T> = Result<T, serde_path_to_error::Error<toml::de::Error>>;

/// Reads a section as the struct of its `kind` (`default_kind` when it has none; `kinds` are
/// the names allowed) by `variant`. A field that is not its kind's but another's is named as
/// "applies to kind = ... only".
pub(super) fn deserialize<'de, D: Deserializer<'de>, T>(
    deserializer: D,
    default_kind: Option<&str>,
    kinds: &[&str],
    variant: impl Fn(&str, toml::Value) -> Variant<T>,
) -> Result<T, D::Error> {
    let mut table = toml::Table::deserialize(deserializer)?;
    let kind = match table.remove("kind") {
        None => default_kind
            .ok_or_else(|| D::Error::missing_field("kind"))?
            .to_string(),
        Some(toml::Value::String(kind)) if kinds.contains(&kind.as_str()) => kind,
        Some(toml::Value::String(kind)) => {
            let allowed: Vec<String> = kinds.iter().map(|k| format!("`{k}`")).collect();
            return Err(nested(
                "kind",
                &format!(
                    "unknown variant `{kind}`, expected one of {}",
                    allowed.join(", ")
                ),
            ));
        }
        Some(other) => {
            return Err(nested(
                "kind",
                &format!("invalid type: {}, expected a string", other.type_str()),
            ));
        }
    };
    let fields = toml::Value::Table(table);
    variant(&kind, fields.clone()).map_err(|e| {
        let path = e.path().to_string();
        let message = e.inner().message().trim().to_string();
        let alone = unknown_field(&message).and_then(|_| only_the_field(&fields, &path));
        let owners: Vec<String> = alone.map_or_else(Vec::new, |alone| {
            kinds
                .iter()
                .filter(|&&other| other != kind && knows(&variant(other, alone.clone())))
                .map(|other| format!("\"{other}\""))
                .collect()
        });
        if owners.is_empty() {
            nested(&path, &message)
        } else {
            let owners = match owners.split_last() {
                Some((last, [])) => last.clone(),
                Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                None => unreachable!("owners is not empty"),
            };
            nested(&path, &format!("applies to kind = {owners} only"))
        }
    })
}

/// The field a serde "unknown field" message names.
fn unknown_field(message: &str) -> Option<&str> {
    message.strip_prefix("unknown field `")?.split('`').next()
}

/// `fields` with nothing but what leads to the field at `path` (`a.b[2].c`; an array keeps
/// just the element on the way).
fn only_the_field(fields: &toml::Value, path: &str) -> Option<toml::Value> {
    let Some((step, rest)) = next_step(path) else {
        return Some(fields.clone());
    };
    match (fields, step) {
        (toml::Value::Table(table), Step::Key(key)) => {
            let inner = only_the_field(table.get(key)?, rest)?;
            Some(toml::Value::Table(toml::Table::from_iter([(
                key.to_string(),
                inner,
            )])))
        }
        (toml::Value::Array(items), Step::Index(i)) => {
            Some(toml::Value::Array(vec![only_the_field(
                items.get(i)?,
                rest,
            )?]))
        }
        _ => None,
    }
}

enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The first step of a serde path (`key`, `.key` or `[index]`) and the rest.
fn next_step(path: &str) -> Option<(Step<'_>, &str)> {
    let path = path.strip_prefix('.').unwrap_or(path);
    if path.is_empty() {
        return None;
    }
    if let Some(rest) = path.strip_prefix('[') {
        let (index, rest) = rest.split_once(']')?;
        return Some((Step::Index(index.parse().ok()?), rest));
    }
    let end = path.find(['.', '[']).unwrap_or(path.len());
    Some((Step::Key(&path[..end]), &path[end..]))
}

/// Whether another kind read the lone field without finding a name it does not know (a
/// missing or mistyped field means it knows the way there).
fn knows<T>(read: &Variant<T>) -> bool {
    match read {
        Ok(_) => true,
        Err(e) => unknown_field(e.inner().message().trim()).is_none(),
    }
}

/// An error at `path` inside the section (its message may already carry a path from a section
/// inside this one).
fn nested<E: serde::de::Error>(path: &str, message: &str) -> E {
    match split_nested(path.to_string(), message) {
        (path, message) if path.is_empty() || path == "." => E::custom(message),
        (path, message) => E::custom(format!("{path}{NESTED}{message}")),
    }
}

/// The full path and the message of an error at `path` whose message may name a field inside
/// a tagged section.
pub fn split_nested(path: String, message: &str) -> (String, String) {
    match message.split_once(NESTED) {
        Some((inner, rest)) if path.is_empty() || path == "." => (inner.to_string(), rest.into()),
        Some((inner, rest)) => (format!("{path}.{inner}"), rest.to_string()),
        None => (path, message.to_string()),
    }
}

/// The JSON Schema of a tagged section: one of its kinds' structs, each with its `kind`
/// (optional for the default kind).
pub(super) fn json_schema(
    default_kind: Option<&str>,
    kinds: Vec<(&str, schemars::Schema)>,
) -> schemars::Schema {
    let one_of: Vec<serde_json::Value> = kinds
        .into_iter()
        .map(|(kind, mut schema)| {
            let object = schema.ensure_object();
            let properties = object
                .entry("properties")
                .or_insert_with(|| serde_json::json!({}));
            if let Some(properties) = properties.as_object_mut() {
                properties.insert("kind".into(), serde_json::json!({ "const": kind }));
            }
            if default_kind != Some(kind) {
                let required = object
                    .entry("required")
                    .or_insert_with(|| serde_json::json!([]));
                if let Some(required) = required.as_array_mut() {
                    required.insert(0, serde_json::json!("kind"));
                }
            }
            schema.to_value()
        })
        .collect();
    schemars::json_schema!({ "oneOf": one_of })
}

/// `Deserialize` and `JsonSchema` for an enum of kinds, each variant holding its struct:
/// `kind_tagged!(Spec, default "a", { "a" => A(ASpec), "b" => B(BSpec) })` (or `no default`).
macro_rules! kind_tagged {
    ($ty:ident, $(default $default:literal)? $(no default)?, { $($kind:literal => $variant:ident($spec:ty)),+ $(,)? }) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let default_kind: Option<&str> = None $(.or(Some($default)))?;
                super::tagged::deserialize(deserializer, default_kind, &[$($kind),+], |kind, fields| {
                    match kind {
                        $($kind => serde_path_to_error::deserialize::<_, $spec>(fields).map(Self::$variant),)+
                        _ => unreachable!("the kind was checked against the list"),
                    }
                })
            }
        }

        impl schemars::JsonSchema for $ty {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($ty).into()
            }

            fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let default_kind: Option<&str> = None $(.or(Some($default)))?;
                let kinds = vec![$(($kind, <$spec as schemars::JsonSchema>::json_schema(generator))),+];
                super::tagged::json_schema(default_kind, kinds)
            }
        }
    };
}

pub(crate) use kind_tagged;

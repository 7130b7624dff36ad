//! The schemas `tools/list` sends, cut to what a model and a client use (issue 38: the list was
//! 40,320 characters, 9,533 cl100k tokens, paid at every session start by each host that does
//! not defer MCP tools; docs/mcp.md has the numbers and the choice).
//!
//! - An **input schema** keeps every parameter, its type, description, bounds and closed set,
//!   and `additionalProperties: false`; it loses what only a code generator reads: `$schema`,
//!   `$defs` (each `$ref` inlined), the `null` of an optional parameter (absent already says
//!   it), the enum type's own doc comment, Rust's `format`s. A closed set becomes an `enum`,
//!   and its values are explained in the parameter's description: by the parameter's own words
//!   when they name every value, else by each variant's doc comment, one line per value.
//! - An **output schema** is the document's shape: its top-level keys, with the closed set of
//!   values of those that have one. No host megg supports shows an `outputSchema` to the model;
//!   clients validate against it (MCP 2025-06-18: a declared one binds the server, clients
//!   SHOULD validate). Anything the full schema accepts, the shape accepts, so every
//!   `structuredContent` still conforms.

use rmcp::model::JsonObject;
use serde_json::{Map, Value};

/// The `format`s JSON Schema defines (2020-12, §7.3); schemars adds Rust's own (`uint`,
/// `int64`, `double`…), which hosts' validators do not know and warn about at every start
/// (Gemini CLI: `unknown format "uint" ignored in schema`, SPEC §12). `minimum` already says
/// what `uint` meant.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords an input schema keeps; the rest (`$schema`, `$defs`, `title`, `$comment`…) is for
/// code generators, not for a model choosing arguments.
const INPUT_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "default",
    "format",
];

/// The input schema `tools/list` sends for a tool's parameters.
pub(super) fn input(schema: &JsonObject) -> JsonObject {
    let defs = schema.get("$defs").cloned().unwrap_or_default();
    let mut v = Value::Object(schema.clone());
    compact(&mut v, &defs);
    match v {
        Value::Object(map) => map,
        _ => schema.clone(),
    }
}

/// The output schema `tools/list` sends for a tool whose `structuredContent` has `schema`: the
/// document's top-level keys and closed sets.
pub(super) fn output(schema: &JsonObject) -> JsonObject {
    let defs = schema.get("$defs").cloned().unwrap_or_default();
    let mut shape = Map::new();
    shape.insert("type".into(), "object".into());
    if let Some(Value::Object(properties)) = schema.get("properties") {
        let fields = properties
            .iter()
            .map(|(name, schema)| (name.clone(), field(schema, &defs)))
            .collect();
        shape.insert("properties".into(), Value::Object(fields));
    }
    shape
}

/// A field of the shape: its closed set of values (`null` included when it may be null),
/// else any value. Its JSON type is left to the value itself: the keys and the closed sets are
/// what a client cannot see from one result.
fn field(schema: &Value, defs: &Value) -> Value {
    let (schema, nullable) = resolve(schema, defs);
    let mut out = Map::new();
    if let Some(set) = closed_set(&schema) {
        let mut values: Vec<Value> = set.into_iter().map(|(value, _)| value).collect();
        if nullable {
            values.push(Value::Null);
        }
        out.insert("enum".into(), Value::Array(values));
    }
    Value::Object(out)
}

/// `schema` with its `$ref` followed and an optional's `anyOf: [X, null]` taken apart: the
/// schema of the value, and whether it may also be `null`. The outer description wins.
fn resolve(schema: &Value, defs: &Value) -> (Value, bool) {
    let mut schema = schema.clone();
    let mut nullable = false;
    // Each step removes a `$ref` or an `anyOf`; a definition that names itself stops here.
    for _ in 0..8 {
        let Some(map) = schema.as_object() else { break };
        let inner = if let Some(target) = map.get("$ref").and_then(Value::as_str) {
            target
                .strip_prefix("#/$defs/")
                .and_then(|name| defs.get(name))
                .cloned()
        } else if let Some(Value::Array(choices)) = map.get("anyOf") {
            let (nulls, others): (Vec<&Value>, Vec<&Value>) = choices
                .iter()
                .partition(|c| c.get("type") == Some(&"null".into()));
            match others.as_slice() {
                [one] if !nulls.is_empty() => {
                    nullable = true;
                    Some((*one).clone())
                }
                _ => None,
            }
        } else {
            None
        };
        let Some(Value::Object(mut inner)) = inner else {
            break;
        };
        // The field's own words (and bounds) over the type's.
        for (key, value) in map {
            if key != "$ref" && key != "anyOf" && key != "description" {
                inner.insert(key.clone(), value.clone());
            }
        }
        inner.remove("description");
        if let Some(d) = map.get("description") {
            inner.insert("description".into(), d.clone());
        }
        schema = Value::Object(inner);
    }
    if let Some(Value::Array(types)) = schema.get("type") {
        let others: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        if let ([one], true) = (others.as_slice(), others.len() < types.len()) {
            let one = (*one).clone();
            nullable = true;
            if let Some(map) = schema.as_object_mut() {
                map.insert("type".into(), one);
            }
        }
    }
    (schema, nullable)
}

/// The values of a closed set and each one's meaning: a schemars `oneOf` of `const`s (each
/// with its variant's doc comment) or a plain `enum`.
fn closed_set(schema: &Value) -> Option<Vec<(Value, Option<String>)>> {
    if let Some(Value::Array(values)) = schema.get("enum") {
        return Some(values.iter().map(|v| (v.clone(), None)).collect());
    }
    let Some(Value::Array(choices)) = schema.get("oneOf") else {
        return None;
    };
    choices
        .iter()
        .map(|c| {
            let value = c.get("const")?.clone();
            let meaning = c.get("description").and_then(Value::as_str).map(one_line);
            Some((value, meaning))
        })
        .collect()
}

/// A doc comment as one line, without its full stop (it becomes part of a list).
fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    joined.strip_suffix('.').unwrap_or(&joined).to_string()
}

/// Whether `text` names `value` as a word of its own (`work-complete` does not name `work`).
fn names(text: &str, value: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    text.match_indices(value).any(|(at, _)| {
        let before = text.get(..at).and_then(|t| t.chars().next_back());
        let after = text.get(at + value.len()..).and_then(|t| t.chars().next());
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// `v` (an input schema node) compacted in place, see the module's doc.
fn compact(v: &mut Value, defs: &Value) {
    let (mut schema, _) = resolve(v, defs);
    if let Some(set) = closed_set(&schema) {
        let own = schema
            .get("description")
            .and_then(Value::as_str)
            .map(one_line)
            .unwrap_or_default();
        // A parameter whose own words go through every value keeps them; otherwise each
        // value's meaning is its variant's doc comment.
        let named = |value: &Value| value.as_str().is_some_and(|v| names(&own, v));
        let meanings: String = if set.iter().all(|(value, _)| named(value)) {
            String::new()
        } else {
            set.iter()
                .filter_map(|(value, meaning)| {
                    Some(format!("\n- {}: {}", value.as_str()?, meaning.as_ref()?))
                })
                .collect()
        };
        let values: Vec<Value> = set.into_iter().map(|(value, _)| value).collect();
        if let Some(map) = schema.as_object_mut() {
            map.remove("oneOf");
            if values.iter().all(Value::is_string) {
                map.insert("type".into(), "string".into());
            }
            map.insert("enum".into(), Value::Array(values));
            let description = own + &meanings;
            if !description.is_empty() {
                map.insert("description".into(), description.trim_start().into());
            }
        }
    } else if let Some(map) = schema.as_object_mut()
        && let Some(d) = map.get("description").and_then(Value::as_str)
    {
        let d = one_line(d);
        map.insert("description".into(), d.into());
    }
    if let Some(map) = schema.as_object_mut() {
        map.retain(|key, value| {
            INPUT_KEYWORDS.contains(&key.as_str())
                && !(key == "format"
                    && value
                        .as_str()
                        .is_none_or(|f| !STANDARD_FORMATS.contains(&f)))
        });
        if let Some(Value::Object(properties)) = map.get_mut("properties") {
            properties.values_mut().for_each(|p| compact(p, defs));
        }
        // An array of a closed set: its values are explained where a model reads, in the
        // parameter's description, by the same rule as a single value's.
        let own = map.get("description").cloned();
        if let Some(items) = map.get_mut("items") {
            let set = closed_set(&resolve(items, defs).0).is_some();
            if let (true, Some(own), Some(i)) = (set, own, items.as_object_mut()) {
                i.insert("description".into(), own);
            }
            compact(items, defs);
            let explained = items.as_object_mut().and_then(|i| i.remove("description"));
            if let (true, Some(d)) = (set, explained) {
                map.insert("description".into(), d);
            }
        }
    }
    *v = schema;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> JsonObject {
        match v {
            Value::Object(map) => map,
            _ => unreachable!("an object"),
        }
    }

    #[test]
    fn an_input_schema_inlines_its_closed_sets_with_their_meanings() {
        let schema = object(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": {"Choice": {
                "description": "A choice (`resume --choice`): the type's doc, for Rust readers.",
                "oneOf": [
                    {"description": "Delete the\ncheckpoint.", "type": "string", "const": "fresh"},
                    {"description": "Change nothing.", "type": "string", "const": "view"},
                ],
            }},
            "type": "object",
            "properties": {
                "choice": {"description": "The answer.", "anyOf": [{"$ref": "#/$defs/Choice"}, {"type": "null"}]},
                "named": {"description": "fresh or view", "anyOf": [{"$ref": "#/$defs/Choice"}, {"type": "null"}]},
                "limit": {"description": "Per page", "type": ["integer", "null"], "format": "uint", "minimum": 1},
                "in": {"description": "Kinds", "type": ["array", "null"], "items": {"$ref": "#/$defs/Choice"}},
            },
            "additionalProperties": false,
        }));
        assert_eq!(
            Value::Object(input(&schema)),
            json!({
                "type": "object",
                "properties": {
                    "choice": {
                        "type": "string",
                        "enum": ["fresh", "view"],
                        "description": "The answer\n- fresh: Delete the checkpoint\n- view: Change nothing",
                    },
                    // Its own words name every value: nothing added.
                    "named": {"type": "string", "enum": ["fresh", "view"], "description": "fresh or view"},
                    "limit": {"description": "Per page", "type": "integer", "minimum": 1},
                    "in": {
                        "description": "Kinds\n- fresh: Delete the checkpoint\n- view: Change nothing",
                        "type": "array",
                        "items": {"type": "string", "enum": ["fresh", "view"]},
                    },
                },
                "additionalProperties": false,
            })
        );
    }

    #[test]
    fn a_value_is_named_only_as_a_word_of_its_own() {
        assert!(names("plan-complete, work or review", "work"));
        assert!(!names("plan-complete, work-complete", "work"));
        assert!(!names("rework", "work"));
        assert!(names("work", "work"));
    }

    #[test]
    fn an_output_schema_is_the_documents_keys_and_closed_sets() {
        let schema = object(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": {
                "Status": {"oneOf": [{"const": "found"}, {"const": "none"}]},
                "Hit": {"type": "object", "properties": {"id": {"type": "string"}}},
            },
            "type": "object",
            "properties": {
                "status": {"$ref": "#/$defs/Status"},
                "action": {"anyOf": [{"$ref": "#/$defs/Status"}, {"type": "null"}]},
                "results": {"type": "array", "items": {"$ref": "#/$defs/Hit"}},
                "next_cursor": {"type": ["string", "null"]},
            },
            "required": ["status", "results"],
        }));
        assert_eq!(
            Value::Object(output(&schema)),
            json!({
                "type": "object",
                "properties": {
                    "status": {"enum": ["found", "none"]},
                    "action": {"enum": ["found", "none", null]},
                    "results": {},
                    "next_cursor": {},
                },
            })
        );
    }
}

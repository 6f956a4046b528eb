//! The JSON Schemas of the protocol, generated from its types.

use serde_json::{json, Value};

use crate::{Event, Op, SCHEMA_VERSION};

/// `k --json`'s schema: one [`Event`] per line, each with `"v"`.
pub fn event_schema() -> Value {
    let mut schema = schemars::schema_for!(Event).to_value();
    plain(&mut schema);
    // Every line carries the version beside its type.
    if let Some(branches) = schema.get_mut("oneOf").and_then(Value::as_array_mut) {
        for branch in branches {
            if let Some(props) = branch.get_mut("properties").and_then(Value::as_object_mut) {
                props.insert("v".into(), json!({ "const": SCHEMA_VERSION }));
            }
            if let Some(required) = branch.get_mut("required").and_then(Value::as_array_mut) {
                required.insert(0, json!("v"));
            }
        }
    }
    if let Some(root) = schema.as_object_mut() {
        root.insert(
            "$id".into(),
            json!(format!("koi/k-json-events/{SCHEMA_VERSION}")),
        );
        root.insert(
            "title".into(),
            json!(format!("k --json events, version {SCHEMA_VERSION}")),
        );
        root.insert(
            "description".into(),
            json!(
                "One object per line on stdout. Generated from koi_protocol::Event \
                 (protocol/src/lib.rs): adding a field or an event type keeps the \
                 version; renaming or removing one bumps it."
            ),
        );
    }
    schema
}

/// The schema of an [`Op`].
pub fn op_schema() -> Value {
    let mut schema = schemars::schema_for!(Op).to_value();
    plain(&mut schema);
    schema
}

/// Drops `format` (a Rust integer width, which says nothing a reader of
/// the JSON needs and which strict validators refuse as unknown).
fn plain(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("format").is_some_and(Value::is_string) {
                map.remove("format");
            }
            map.values_mut().for_each(plain);
        }
        Value::Array(items) => items.iter_mut().for_each(plain),
        _ => {}
    }
}

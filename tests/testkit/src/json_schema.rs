//! A small JSON Schema checker for tests: the subset of draft 2020-12
//! that koi's written schemas use, strictly. A keyword it does not know
//! fails the check instead of being skipped, so a schema can never ask
//! for more than is checked.
//!
//! Known: `type` (one name or a list), `properties`, `required`,
//! `additionalProperties` (a boolean), `items`, `enum`, `const`,
//! `minimum`, `minLength`, `oneOf`, `$ref` (to `#/$defs/…`), and the
//! annotations `$schema`, `$id`, `$defs`, `$comment`, `title`,
//! `description`.

use serde_json::Value;

/// Keywords that only annotate.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$defs",
    "$comment",
    "title",
    "description",
];

/// Checks `instance` against `schema` (the root, for `$ref`); returns one
/// line per violation, each naming where (a JSON pointer) and what.
pub fn check(schema: &Value, instance: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check_at(schema, schema, instance, "", &mut errors);
    errors
}

fn check_at(root: &Value, schema: &Value, v: &Value, at: &str, errors: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        if schema != &Value::Bool(true) {
            errors.push(format!("{at}: the schema {schema} is not an object"));
        }
        return;
    };
    for (key, want) in map {
        match key.as_str() {
            k if ANNOTATIONS.contains(&k) => {}
            "$ref" => match resolve(root, want) {
                Some(target) => check_at(root, target, v, at, errors),
                None => errors.push(format!("{at}: unresolved $ref {want}")),
            },
            "type" => {
                let names: Vec<&str> = match want {
                    Value::String(s) => vec![s.as_str()],
                    Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                    _ => vec![],
                };
                if !names.iter().any(|n| is_type(v, n)) {
                    errors.push(format!("{at}: {v} is not of type {want}"));
                }
            }
            "const" if v != want => errors.push(format!("{at}: {v} is not {want}")),
            "const" => {}
            "enum" => {
                let allowed = want.as_array().map(Vec::as_slice).unwrap_or_default();
                if !allowed.contains(v) {
                    errors.push(format!("{at}: {v} is not one of {want}"));
                }
            }
            "minimum" => {
                if let (Some(n), Some(min)) = (v.as_f64(), want.as_f64()) {
                    if n < min {
                        errors.push(format!("{at}: {v} is below {want}"));
                    }
                }
            }
            "minLength" => {
                if let (Some(s), Some(min)) = (v.as_str(), want.as_u64()) {
                    if (s.chars().count() as u64) < min {
                        errors.push(format!("{at}: {v} is shorter than {want}"));
                    }
                }
            }
            "required" => {
                if let Some(obj) = v.as_object() {
                    for name in want
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                    {
                        if !obj.contains_key(name) {
                            errors.push(format!("{at}: no field {name:?}"));
                        }
                    }
                }
            }
            "properties" => {
                if let (Some(obj), Some(props)) = (v.as_object(), want.as_object()) {
                    for (name, sub) in props {
                        if let Some(field) = obj.get(name) {
                            check_at(root, sub, field, &format!("{at}/{name}"), errors);
                        }
                    }
                }
            }
            "additionalProperties" => {
                let known = map.get("properties").and_then(Value::as_object);
                if let (Some(obj), Some(false)) = (v.as_object(), want.as_bool()) {
                    for name in obj.keys() {
                        if !known.is_some_and(|k| k.contains_key(name)) {
                            errors.push(format!("{at}: unexpected field {name:?}"));
                        }
                    }
                }
            }
            "items" => {
                for (i, item) in v.as_array().into_iter().flatten().enumerate() {
                    check_at(root, want, item, &format!("{at}/{i}"), errors);
                }
            }
            "oneOf" => one_of(root, want, v, at, errors),
            other => errors.push(format!("{at}: the checker does not know `{other}`")),
        }
    }
}

/// Exactly one branch must hold. When the branches are told apart by a
/// `type` field's `const` (as event schemas are), the errors reported are
/// those of the branch the instance names.
fn one_of(root: &Value, branches: &Value, v: &Value, at: &str, errors: &mut Vec<String>) {
    let branches = branches.as_array().map(Vec::as_slice).unwrap_or_default();
    let results: Vec<Vec<String>> = branches
        .iter()
        .map(|b| {
            let mut e = Vec::new();
            check_at(root, b, v, at, &mut e);
            e
        })
        .collect();
    match results.iter().filter(|e| e.is_empty()).count() {
        1 => {}
        0 => {
            let named = branches.iter().position(|b| {
                let b = resolve_all(root, b);
                b.pointer("/properties/type/const")
                    .is_some_and(|t| Some(t) == v.get("type"))
            });
            match named {
                Some(i) => errors.extend(results[i].iter().cloned()),
                None => errors.push(format!("{at}: {v} matches no branch of oneOf")),
            }
        }
        n => errors.push(format!("{at}: {v} matches {n} branches of oneOf")),
    }
}

fn resolve<'a>(root: &'a Value, reference: &Value) -> Option<&'a Value> {
    let pointer = reference.as_str()?.strip_prefix('#')?;
    root.pointer(pointer)
}

/// `schema`, following `$ref`s.
fn resolve_all<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..16 {
        match schema.get("$ref").and_then(|r| resolve(root, r)) {
            Some(next) => schema = next,
            None => break,
        }
    }
    schema
}

fn is_type(v: &Value, name: &str) -> bool {
    match name {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_u64() || v.is_i64(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "$defs": {
                "token": {
                    "type": "object",
                    "properties": {"type": {"const": "token"}, "text": {"type": "string"}},
                    "required": ["type", "text"],
                    "additionalProperties": false
                },
                "usage": {
                    "type": "object",
                    "properties": {"type": {"const": "usage"}, "n": {"type": "integer", "minimum": 0}},
                    "required": ["type", "n"],
                    "additionalProperties": false
                }
            },
            "oneOf": [{"$ref": "#/$defs/token"}, {"$ref": "#/$defs/usage"}]
        })
    }

    #[test]
    fn a_valid_line_passes_and_each_fault_is_named_by_field() {
        let s = schema();
        assert!(check(&s, &json!({"type": "token", "text": "hi"})).is_empty());
        assert_eq!(
            check(&s, &json!({"type": "token"})),
            vec![": no field \"text\""]
        );
        assert_eq!(
            check(&s, &json!({"type": "token", "text": 3})),
            vec!["/text: 3 is not of type \"string\""]
        );
        assert_eq!(
            check(&s, &json!({"type": "token", "text": "x", "extra": 1})),
            vec![": unexpected field \"extra\""]
        );
        assert_eq!(
            check(&s, &json!({"type": "usage", "n": -1})),
            vec!["/n: -1 is below 0"]
        );
        assert_eq!(
            check(&s, &json!({"type": "nope"})),
            vec![": {\"type\":\"nope\"} matches no branch of oneOf"]
        );
    }

    #[test]
    fn an_unknown_keyword_fails_instead_of_passing() {
        let s = json!({"type": "string", "pattern": "^a"});
        assert_eq!(
            check(&s, &json!("b")),
            vec![": the checker does not know `pattern`"]
        );
    }
}

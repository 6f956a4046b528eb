//! A call's arguments as shown to a person deciding about it: whole, but
//! with secrets masked (fields named like secrets, and the values of
//! secret environment variables wherever they appear).

use ai_tools::secrets::{is_secret_var, redact, secret_values};

/// Shown instead of a masked value.
const MASK: &str = "****";

/// The arguments, pretty-printed when they are JSON, secrets masked.
/// `extra` names configured key variables on top of the built-in ones.
pub fn mask_arguments(arguments: &str, extra: &[String]) -> String {
    let shown = match serde_json::from_str::<serde_json::Value>(arguments) {
        Ok(mut v) => {
            mask_fields(&mut v, extra);
            serde_json::to_string_pretty(&v).unwrap_or_else(|_| arguments.to_string())
        }
        Err(_) => arguments.to_string(),
    };
    redact(&shown, &secret_values(extra))
}

fn mask_fields(v: &mut serde_json::Value, extra: &[String]) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, val) in map.iter_mut() {
                if is_secret_var(k, extra) && !val.is_null() {
                    *val = serde_json::Value::String(MASK.to_string());
                } else {
                    mask_fields(val, extra);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|i| mask_fields(i, extra)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_fields_and_values_are_masked_the_rest_shown_whole() {
        let args = r#"{"command":"curl -H 'x: hunter2-secret-value' x","headers":{"api_token":"abc"},"path":"a.txt"}"#;
        let shown = mask_arguments(args, &[]);
        assert!(shown.contains("\"path\": \"a.txt\""), "{shown}");
        assert!(shown.contains("\"api_token\": \"****\""), "{shown}");
        assert!(!shown.contains("abc"), "{shown}");
        assert!(shown.contains("curl -H"), "{shown}");
        assert_eq!(mask_arguments("not json", &[]), "not json");
    }
}

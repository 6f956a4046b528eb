//! The provider's own words when something fails: one reader for every
//! shape an error arrives in, in a stream event or an HTTP error body.
//!
//! Shapes seen from the providers and the servers that copy them:
//! - nested, `{"error": {"type"|"code": …, "message": …}}` (OpenAI's HTTP
//!   bodies, Chat Completions chunks mid-stream, Responses `error` events
//!   as production servers send them, Anthropic `error` events and bodies);
//! - flat, `{"type": "error", "code": …, "message": …}` (the Responses
//!   `error` event as its reference documents it);
//! - `{"error": "text"}` (some local servers);
//! - `{"response": {"error": {…}}}` (Responses `response.failed`).

use serde_json::Value;

/// Longest provider error message kept: enough to read, not a page of HTML.
pub(crate) const MAX_ERROR_MESSAGE_CHARS: usize = 300;

/// What a provider said went wrong, when `v` carries an error in a known
/// shape: `code: message` (or whichever of the two is present), shortened.
pub(crate) fn provider_error(v: &Value) -> Option<String> {
    let obj = v.as_object()?;
    if let Some(inner) = obj.get("response").and_then(|r| r.get("error")) {
        if let Some(found) = described(inner) {
            return Some(found);
        }
    }
    if let Some(found) = obj.get("error").and_then(error_member) {
        return Some(found);
    }
    // The flat shape: the event itself carries the code and message.
    if obj.get("message").is_some() {
        return described(v);
    }
    None
}

/// What an `error` member says: its text, or its object's code and message.
pub(crate) fn error_member(e: &Value) -> Option<String> {
    match e {
        Value::String(s) if !s.trim().is_empty() => Some(shorten(s)),
        Value::Object(_) => described(e),
        _ => None,
    }
}

/// `code: message` from one error object.
fn described(e: &Value) -> Option<String> {
    let text = |k: &str| match e.get(k) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
        _ => None,
    };
    // A named code says most; then the error's type (`error` as a type is
    // only the event's own name); a bare HTTP-like number last.
    let code = text("code")
        .or_else(|| text("type").filter(|t| t != "error"))
        .or_else(|| e.get("code").and_then(Value::as_u64).map(|n| n.to_string()));
    let message = text("message");
    let joined = match (code, message) {
        (Some(c), Some(m)) if m.starts_with(&c) => m,
        (Some(c), Some(m)) => format!("{c}: {m}"),
        (None, Some(m)) => m,
        (Some(c), None) => c,
        (None, None) => return None,
    };
    Some(shorten(&joined))
}

/// At most [`MAX_ERROR_MESSAGE_CHARS`] characters, marked when cut.
pub(crate) fn shorten(s: &str) -> String {
    let s = s.trim();
    let mut out: String = s.chars().take(MAX_ERROR_MESSAGE_CHARS).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_shape_gives_the_providers_words() {
        let cases = [
            (
                json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}),
                "overloaded_error: Overloaded",
            ),
            (
                json!({"type":"error","error":{"code":"rate_limit_exceeded","message":"Slow down","param":null}}),
                "rate_limit_exceeded: Slow down",
            ),
            (
                json!({"type":"error","code":"ERR_SOMETHING","message":"Something went wrong","param":null,"sequence_number":1}),
                "ERR_SOMETHING: Something went wrong",
            ),
            (json!({"type":"error","message":"bare"}), "bare"),
            (
                json!({"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"The model failed"}}}),
                "server_error: The model failed",
            ),
            (
                json!({"error":{"message":"context too long","type":"invalid_request_error","code":400}}),
                "invalid_request_error: context too long",
            ),
            (
                json!({"error":{"object":"error","message":"no such model","code":404}}),
                "404: no such model",
            ),
            (json!({"error":"model not loaded"}), "model not loaded"),
            (json!({"error":{"message":"bad key"}}), "bad key"),
        ];
        for (v, want) in cases {
            assert_eq!(provider_error(&v).as_deref(), Some(want), "{v}");
        }
        assert_eq!(provider_error(&json!({"choices": []})), None);
        assert_eq!(provider_error(&json!({"error": null})), None);
        assert_eq!(provider_error(&json!([1])), None);
    }

    #[test]
    fn long_messages_are_shortened_on_a_char_boundary() {
        let long = "é".repeat(MAX_ERROR_MESSAGE_CHARS * 2);
        let got = provider_error(&json!({"error": {"message": long}})).unwrap();
        assert_eq!(got.chars().count(), MAX_ERROR_MESSAGE_CHARS + 1);
        assert!(got.ends_with('…'));
    }
}

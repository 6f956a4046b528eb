//! A `tools/call` result turned into what the model reads: text blocks as
//! they are, structured content as JSON (unless a text block already
//! carries it), images and other media described in one line, since tool
//! results reach the model as text.

use ai_tools::{ToolError, ToolOutput};
use serde_json::Value;

/// The output of one call, or the tool's own error (`isError`).
pub fn to_output(server: &str, tool: &str, result: &Value) -> Result<ToolOutput, ToolError> {
    let mut parts: Vec<String> = Vec::new();
    let mut texts: Vec<&str> = Vec::new();
    for block in result
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
        let part = match kind {
            "text" => {
                let t = block.get("text").and_then(Value::as_str).unwrap_or("");
                texts.push(t);
                t.to_string()
            }
            "image" | "audio" => media_line(kind, block),
            "resource_link" => format!(
                "[resource link: {} {}]",
                str_field(block, "name"),
                str_field(block, "uri")
            ),
            "resource" => {
                let r = block.get("resource").unwrap_or(&Value::Null);
                match r.get("text").and_then(Value::as_str) {
                    Some(t) => format!("[resource {}]\n{t}", str_field(r, "uri")),
                    None => format!(
                        "[binary resource {} ({}), not shown]",
                        str_field(r, "uri"),
                        str_field(r, "mimeType")
                    ),
                }
            }
            other => format!("[a {other:?} content block, not shown]"),
        };
        parts.push(part);
    }
    if let Some(structured) = result.get("structuredContent") {
        // Servers are asked to repeat structured content as text; do not
        // send it twice.
        let repeated = texts
            .iter()
            .any(|t| serde_json::from_str::<Value>(t).ok().as_ref() == Some(structured));
        if !repeated {
            parts.push(format!("structured content: {structured}"));
        }
    }
    let text = parts.join("\n");
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return Err(ToolError::Failed(format!(
            "the MCP tool {tool} of server {server} reported an error: {text}"
        )));
    }
    let preview = format!("MCP {server} › {tool} → {} lines", text.lines().count());
    Ok(ToolOutput {
        for_model: text.clone(),
        full: text,
        preview,
        diff: None,
    })
}

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("?")
}

fn media_line(kind: &str, block: &Value) -> String {
    let bytes = block
        .get("data")
        .and_then(Value::as_str)
        .map(|d| d.len() / 4 * 3)
        .unwrap_or(0);
    format!(
        "[{kind} {}, about {bytes} bytes: tool results reach the model as text, so it is not shown]",
        str_field(block, "mimeType")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_structured_and_media() {
        let r = json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"}
            ],
            "structuredContent": {"temp": 21}
        });
        let out = to_output("s", "t", &r).unwrap();
        assert_eq!(
            out.for_model,
            "hello\n[image image/png, about 3 bytes: tool results reach the model as text, so it is not shown]\nstructured content: {\"temp\":21}"
        );
        let repeated = json!({
            "content": [{"type": "text", "text": "{\"temp\": 21}"}],
            "structuredContent": {"temp": 21}
        });
        assert_eq!(
            to_output("s", "t", &repeated).unwrap().for_model,
            "{\"temp\": 21}"
        );
    }

    #[test]
    fn tool_errors_are_errors() {
        let r = json!({"content": [{"type": "text", "text": "no such city"}], "isError": true});
        let err = to_output("weather", "now", &r).unwrap_err().to_string();
        assert_eq!(
            err,
            "the MCP tool now of server weather reported an error: no such city"
        );
    }
}

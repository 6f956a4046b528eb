//! What a request body says, read the same way for every dialect: the raw
//! system prompt and tools, and the history as a flat list of items.

use serde_json::Value;

use crate::json_span;

/// The request dialects the fake provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// OpenAI Chat Completions (`POST …/chat/completions`).
    OpenAiChat,
    /// OpenAI Responses (`POST …/responses`).
    OpenAiResponses,
    /// Anthropic Messages (`POST …/messages`).
    Anthropic,
}

impl Dialect {
    /// The path every request of this dialect ends with.
    pub fn path_suffix(self) -> &'static str {
        match self {
            Dialect::OpenAiChat => "/chat/completions",
            Dialect::OpenAiResponses => "/responses",
            Dialect::Anthropic => "/messages",
        }
    }

    /// The dialect whose endpoint this path is, if any.
    pub fn from_path(path: &str) -> Option<Dialect> {
        let path = path.split('?').next().unwrap_or(path);
        [
            Dialect::OpenAiChat,
            Dialect::OpenAiResponses,
            Dialect::Anthropic,
        ]
        .into_iter()
        .find(|d| path.ends_with(d.path_suffix()))
    }

    /// The body's member that holds the history.
    pub(crate) fn history_key(self) -> &'static str {
        match self {
            Dialect::OpenAiResponses => "input",
            _ => "messages",
        }
    }

    /// The header that carries the key, and the prefix before the key.
    pub(crate) fn auth_header(self) -> (&'static str, &'static str) {
        match self {
            Dialect::Anthropic => ("x-api-key", ""),
            _ => ("authorization", "Bearer "),
        }
    }
}

/// Who an item of history speaks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    User,
    Assistant,
    /// A tool result (Chat's `tool` role; a block of a user message elsewhere).
    Tool,
}

/// What an item of history is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
    Text(String),
    /// A tool call with its id.
    Call(String),
    /// A tool result answering this call id.
    Result(String),
}

/// One item of history.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Item {
    pub role: Role,
    pub part: Part,
    /// Which assistant step (message) a call belongs to: calls of one step
    /// are answered together.
    pub step: usize,
    /// The item's JSON with cache markers removed, compared to tell whether
    /// one request continues another.
    pub canon: Value,
}

/// A request body read in its dialect.
#[derive(Debug, Clone)]
pub(crate) struct View {
    /// The system prompt exactly as sent.
    pub system_raw: String,
    /// The system prompt's text (for telling side requests apart).
    pub system_text: String,
    /// `tools` exactly as sent (empty when absent).
    pub tools_raw: String,
    /// The history array (`messages`, or `input`) as sent, cache markers
    /// removed: a continued request must start with these bytes.
    pub history_raw: String,
    pub items: Vec<Item>,
    /// Message-level roles in order, as the provider receives them.
    pub message_roles: Vec<String>,
    /// The last message is an assistant turn the provider paused in its
    /// own tools (Anthropic's `pause_turn`): sent back last, as the API
    /// asks, for it to carry on.
    pub ends_paused: bool,
    /// Problems of shape found while reading (missing fields, empty text).
    pub shape_errors: Vec<String>,
}

/// Removes `cache_control` markers at any depth: they move every request by
/// design and are not part of the conversation.
fn strip_cache(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| *k != "cache_control")
                .map(|(k, v)| (k.clone(), strip_cache(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip_cache).collect()),
        other => other.clone(),
    }
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

/// Chat Completions carries the system prompt as its first message, which
/// the system check compares on its own: the history's bytes start after it.
fn history_after_system<'a>(dialect: Dialect, json: &Value, raw: &'a str) -> &'a str {
    let first_role = json["messages"][0]["role"].as_str();
    if dialect != Dialect::OpenAiChat || !matches!(first_role, Some("system" | "developer")) {
        return raw;
    }
    let Some(first) = json_span::element(raw, 0) else {
        return raw;
    };
    // `first` lies inside `raw`: the rest of the array starts after it.
    let after = first.as_ptr() as usize - raw.as_ptr() as usize + first.len();
    raw.get(after..).unwrap_or(raw)
}

/// Reads `body` as a request of `dialect`; `Err` says why it is not one.
pub(crate) fn read(dialect: Dialect, body: &[u8]) -> Result<View, String> {
    let text = std::str::from_utf8(body).map_err(|e| format!("body is not UTF-8: {e}"))?;
    let json: Value = serde_json::from_str(text).map_err(|e| format!("body is not JSON: {e}"))?;
    if !json.is_object() {
        return Err("body is not a JSON object".into());
    }
    let mut view = View {
        system_raw: String::new(),
        system_text: String::new(),
        tools_raw: json_span::member(text, "tools").unwrap_or("").to_string(),
        history_raw: json_span::member(text, dialect.history_key())
            .map(|h| {
                json_span::without_key(history_after_system(dialect, &json, h), "cache_control")
            })
            .unwrap_or_default(),
        items: Vec::new(),
        message_roles: Vec::new(),
        ends_paused: false,
        shape_errors: Vec::new(),
    };
    if json["model"].as_str().is_none_or(str::is_empty) {
        view.shape_errors.push("no model named".into());
    }
    match dialect {
        Dialect::OpenAiChat => read_chat(text, &json, &mut view)?,
        Dialect::OpenAiResponses => read_responses(text, &json, &mut view)?,
        Dialect::Anthropic => read_anthropic(text, &json, &mut view)?,
    }
    Ok(view)
}

fn read_chat(text: &str, json: &Value, view: &mut View) -> Result<(), String> {
    let messages = json["messages"].as_array().ok_or("no messages array")?;
    let first = messages.first().ok_or("messages is empty")?;
    if first["role"] != "system" {
        view.shape_errors
            .push("the first message is not the system prompt".into());
    }
    let raw_messages = json_span::member(text, "messages").unwrap_or("");
    view.system_raw = json_span::element(raw_messages, 0)
        .unwrap_or("")
        .to_string();
    view.system_text = text_of(&first["content"]);
    for (step, m) in messages.iter().enumerate().skip(1) {
        let role = m["role"].as_str().unwrap_or("");
        view.message_roles.push(role.to_string());
        let canon = strip_cache(m);
        if role == "user" {
            check_user_parts(step, &m["content"], "image_url", view);
        }
        match role {
            "user" => view.items.push(Item {
                role: Role::User,
                part: Part::Text(text_of(&m["content"])),
                step,
                canon,
            }),
            "assistant" => {
                let content = text_of(&m["content"]);
                let calls = m["tool_calls"].as_array().cloned().unwrap_or_default();
                if !content.is_empty() || calls.is_empty() {
                    view.items.push(Item {
                        role: Role::Assistant,
                        part: Part::Text(content),
                        step,
                        canon: canon.clone(),
                    });
                }
                for c in calls {
                    view.items.push(Item {
                        role: Role::Assistant,
                        part: Part::Call(c["id"].as_str().unwrap_or("").to_string()),
                        step,
                        canon: strip_cache(&c),
                    });
                }
            }
            "tool" => view.items.push(Item {
                role: Role::Tool,
                part: Part::Result(m["tool_call_id"].as_str().unwrap_or("").to_string()),
                step,
                canon,
            }),
            "system" => view
                .shape_errors
                .push(format!("a second system message at {step}")),
            other => view
                .shape_errors
                .push(format!("message {step} has an unknown role {other:?}")),
        }
    }
    Ok(())
}

fn read_responses(text: &str, json: &Value, view: &mut View) -> Result<(), String> {
    let input = json["input"].as_array().ok_or("no input array")?;
    view.system_raw = json_span::member(text, "instructions")
        .unwrap_or("")
        .to_string();
    view.system_text = json["instructions"].as_str().unwrap_or("").to_string();
    let mut step = 0;
    let mut last_was_call = false;
    for it in input {
        let canon = strip_cache(it);
        let kind = it["type"].as_str().unwrap_or("message");
        // Consecutive calls, and the reasoning before them, belong to one
        // step of the model.
        let is_call = kind == "function_call" || kind == "reasoning";
        if !(is_call && last_was_call) {
            step += 1;
        }
        last_was_call = is_call;
        let item = match kind {
            "message" => {
                let role = it["role"].as_str().unwrap_or("");
                view.message_roles.push(role.to_string());
                if role == "user" {
                    check_user_parts(step, &it["content"], "input_image", view);
                }
                let role = match role {
                    "user" | "developer" => Role::User,
                    "assistant" => Role::Assistant,
                    other => {
                        view.shape_errors
                            .push(format!("an input message has the role {other:?}"));
                        Role::User
                    }
                };
                Item {
                    role,
                    part: Part::Text(text_of(&it["content"])),
                    step,
                    canon,
                }
            }
            "function_call" => Item {
                role: Role::Assistant,
                part: Part::Call(it["call_id"].as_str().unwrap_or("").to_string()),
                step,
                canon,
            },
            "function_call_output" => Item {
                role: Role::Tool,
                part: Part::Result(it["call_id"].as_str().unwrap_or("").to_string()),
                step,
                canon,
            },
            "reasoning" => {
                // Stateless (`store:false`): the server keeps nothing, so
                // a reasoning item is only usable with its encrypted
                // content, and an id would name an item that does not exist.
                if json["store"] == false {
                    if it["encrypted_content"].as_str().is_none_or(str::is_empty) {
                        view.shape_errors
                            .push("a reasoning item without encrypted_content".into());
                    }
                    if it.get("id").is_some() {
                        view.shape_errors
                            .push("a reasoning item names an id with store:false".into());
                    }
                }
                if !it["summary"].is_array() {
                    view.shape_errors
                        .push("a reasoning item without a summary array".into());
                }
                continue;
            }
            other => {
                view.shape_errors
                    .push(format!("an input item of unknown type {other:?}"));
                continue;
            }
        };
        view.items.push(item);
    }
    Ok(())
}

/// The most blocks a request may mark with `cache_control` (the API
/// refuses a fifth).
const MAX_CACHE_BREAKPOINTS: usize = 4;

fn count_cache_markers(v: &Value) -> usize {
    match v {
        Value::Object(m) => {
            usize::from(m.contains_key("cache_control"))
                + m.values().map(count_cache_markers).sum::<usize>()
        }
        Value::Array(a) => a.iter().map(count_cache_markers).sum(),
        _ => 0,
    }
}

/// Anthropic's thinking parameters, and what they require of the history:
/// with thinking on, the assistant turn that tool results answer must
/// open with its thinking.
fn check_anthropic_thinking(json: &Value, messages: &[Value], view: &mut View) {
    let max_tokens = json["max_tokens"].as_u64().unwrap_or(0);
    let on = match json["thinking"]["type"].as_str() {
        None if json.get("thinking").is_none() => false,
        Some("disabled") => false,
        Some("enabled") => {
            match json["thinking"]["budget_tokens"].as_u64() {
                Some(b) if (1024..max_tokens).contains(&b) => {}
                other => view.shape_errors.push(format!(
                    "thinking.budget_tokens {other:?} must be at least 1024 and below max_tokens {max_tokens}"
                )),
            }
            true
        }
        Some("adaptive") => {
            if json["thinking"].get("budget_tokens").is_some() {
                view.shape_errors
                    .push("adaptive thinking takes no budget_tokens".into());
            }
            true
        }
        other => {
            view.shape_errors.push(format!(
                "thinking.type {other:?} is not enabled, adaptive or disabled"
            ));
            false
        }
    };
    if let Some(effort) = json.get("output_config").map(|c| &c["effort"]) {
        if !matches!(effort.as_str(), Some("low" | "medium" | "high" | "max")) {
            view.shape_errors
                .push(format!("output_config.effort {effort} is not a level"));
        }
    }
    let answers_tools = messages.last().is_some_and(|m| {
        m["content"]
            .as_array()
            .is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result"))
    });
    if on && answers_tools && messages.len() >= 2 {
        let opener = &messages[messages.len() - 2]["content"][0]["type"];
        if !(opener == "thinking" || opener == "redacted_thinking") {
            view.shape_errors.push(format!(
                "thinking is on and the assistant turn the tool results answer opens with {opener}, not its thinking"
            ));
        }
    }
}

fn read_anthropic(text: &str, json: &Value, view: &mut View) -> Result<(), String> {
    let messages = json["messages"].as_array().ok_or("no messages array")?;
    if !json["max_tokens"].is_u64() {
        view.shape_errors.push("max_tokens is required".into());
    }
    check_anthropic_thinking(json, messages, view);
    let markers = count_cache_markers(json);
    if markers > MAX_CACHE_BREAKPOINTS {
        view.shape_errors.push(format!(
            "{markers} cache_control breakpoints, more than the {MAX_CACHE_BREAKPOINTS} allowed"
        ));
    }
    view.system_raw = json_span::member(text, "system").unwrap_or("").to_string();
    view.system_text = text_of(&json["system"]);
    for (step, m) in messages.iter().enumerate() {
        let role = m["role"].as_str().unwrap_or("");
        view.message_roles.push(role.to_string());
        let blocks = match &m["content"] {
            Value::String(s) => vec![serde_json::json!({"type": "text", "text": s})],
            Value::Array(a) => a.clone(),
            _ => Vec::new(),
        };
        view.ends_paused =
            role == "assistant" && blocks.iter().any(|b| b["type"] == "server_tool_use");
        if blocks.is_empty() {
            view.shape_errors
                .push(format!("message {step} has no content"));
        }
        for b in blocks {
            let canon = strip_cache(&b);
            let (role, part) = match (role, b["type"].as_str().unwrap_or("")) {
                ("assistant", "tool_use") => (
                    Role::Assistant,
                    Part::Call(b["id"].as_str().unwrap_or("").to_string()),
                ),
                ("user", "tool_result") => (
                    Role::Tool,
                    Part::Result(b["tool_use_id"].as_str().unwrap_or("").to_string()),
                ),
                (_, "text") => {
                    let t = b["text"].as_str().unwrap_or("");
                    if t.is_empty() {
                        view.shape_errors
                            .push(format!("message {step} has an empty text block"));
                    }
                    let r = if role == "assistant" {
                        Role::Assistant
                    } else {
                        Role::User
                    };
                    (r, Part::Text(t.to_string()))
                }
                ("assistant", "thinking") => {
                    if b["thinking"].as_str().is_none()
                        || b["signature"].as_str().is_none_or(str::is_empty)
                    {
                        view.shape_errors.push(format!(
                            "message {step}: a thinking block without its thinking or signature"
                        ));
                    }
                    if b.get("cache_control").is_some() {
                        view.shape_errors
                            .push(format!("message {step}: cache_control on a thinking block"));
                    }
                    continue;
                }
                ("user", "image") => {
                    if let Some(why) = anthropic_image_error(&b["source"]) {
                        view.shape_errors
                            .push(format!("message {step}: image block {why}"));
                    }
                    continue;
                }
                ("assistant", "redacted_thinking") => {
                    if b["data"].as_str().is_none_or(str::is_empty) {
                        view.shape_errors
                            .push(format!("message {step}: redacted_thinking without data"));
                    }
                    continue;
                }
                // The provider's own tools, in a paused turn sent back.
                ("assistant", "server_tool_use") => {
                    if b["id"].as_str().is_none_or(str::is_empty) || !b["input"].is_object() {
                        view.shape_errors.push(format!(
                            "message {step}: a server_tool_use without its id or input"
                        ));
                    }
                    continue;
                }
                ("assistant", t) if t.ends_with("_tool_result") => continue,
                (r, t) => {
                    view.shape_errors
                        .push(format!("message {step} ({r}) has a {t:?} block"));
                    continue;
                }
            };
            view.items.push(Item {
                role,
                part,
                step,
                canon,
            });
        }
    }
    Ok(())
}

/// The media types every dialect takes for images.
const IMAGE_MEDIA_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// What is wrong with an Anthropic image `source`, if anything: it must
/// be inline base64 of a supported media type.
fn anthropic_image_error(source: &Value) -> Option<String> {
    if source["type"] != "base64" {
        return Some(format!("source type is {}, not base64", source["type"]));
    }
    let media = source["media_type"].as_str().unwrap_or("");
    if !IMAGE_MEDIA_TYPES.contains(&media) {
        return Some(format!("has media_type {media:?}"));
    }
    base64_error(source["data"].as_str().unwrap_or(""))
}

/// Checks the parts of an OpenAI-style user message: text parts, and
/// images of the dialect's `image_kind` carrying a valid data URL.
fn check_user_parts(step: usize, content: &Value, image_kind: &str, view: &mut View) {
    let Value::Array(parts) = content else {
        return;
    };
    for p in parts {
        let kind = p["type"].as_str().unwrap_or("");
        if kind == image_kind {
            // Chat nests the URL in an object; Responses gives it bare.
            let url = p["image_url"]["url"]
                .as_str()
                .or_else(|| p["image_url"].as_str())
                .unwrap_or("");
            if let Some(why) = data_url_error(url) {
                view.shape_errors.push(format!("message {step}: {why}"));
            }
        } else if kind != "text" && kind != "input_text" {
            view.shape_errors
                .push(format!("message {step} has a {kind:?} user part"));
        }
    }
}

/// What is wrong with an OpenAI-style image URL: koi sends data URLs only.
fn data_url_error(url: &str) -> Option<String> {
    let Some((head, data)) = url.strip_prefix("data:").and_then(|u| u.split_once(',')) else {
        return Some(format!("image URL is not a data URL: {:.40}", url));
    };
    let Some(media) = head.strip_suffix(";base64") else {
        return Some(format!("data URL {head:?} is not base64"));
    };
    if !IMAGE_MEDIA_TYPES.contains(&media) {
        return Some(format!("data URL has media type {media:?}"));
    }
    base64_error(data)
}

fn base64_error(data: &str) -> Option<String> {
    let alphabet = |c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=');
    if data.is_empty() || !data.len().is_multiple_of(4) || !data.chars().all(alphabet) {
        return Some("data is not standard base64".to_string());
    }
    None
}

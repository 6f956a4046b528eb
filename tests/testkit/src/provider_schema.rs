//! Every request body checked against the provider's own published
//! definition of it, not against the testkit's model of the API
//! (`wire.rs`): where the two disagree, the provider wins.
//!
//! The definitions are vendored under `tests/testkit/schemas/` by its
//! `vendor.py`, each noting its source: OpenAI's OpenAPI document
//! (`CreateChatCompletionRequest`, `CreateResponse`) and the `anthropic`
//! Python package's `MessageCreateParams` as pydantic writes its JSON
//! Schema. A JSON Schema validator crate checks them.

use std::io::Write;
use std::sync::OnceLock;

use jsonschema::Validator;
use serde_json::Value;

use crate::wire::Dialect;

/// Names a file that gets one line per body checked: the dialect and how
/// many errors it had (for counting what the suite validated).
pub const TALLY_VAR: &str = "KOI_SCHEMA_TALLY";

/// Most errors reported for one body: the first few say what is wrong.
const MAX_ERRORS: usize = 5;

/// Most errors reported for one place in a body: a union's branches each
/// have one, and other places deserve a line too.
const MAX_ERRORS_PER_PLACE: usize = 2;

/// Longest error line: a failed `oneOf` quotes the whole value.
const MAX_ERROR_CHARS: usize = 400;

const CHAT: &str = include_str!("../schemas/openai_chat_request.json");
const RESPONSES: &str = include_str!("../schemas/openai_responses_request.json");
const ANTHROPIC: &str = include_str!("../schemas/anthropic_messages_request.json");
const CHAT_EVENT: &str = include_str!("../schemas/openai_chat_stream_event.json");
const RESPONSES_EVENT: &str = include_str!("../schemas/openai_responses_stream_event.json");
const ANTHROPIC_EVENT: &str = include_str!("../schemas/anthropic_stream_event.json");

/// The definitions a body can be checked against: Anthropic's is a union
/// of the streaming and the non-streaming request, told apart by `stream`,
/// so each half is checked on its own (a union's failure says only "no
/// branch fits").
#[derive(Clone, Copy)]
enum Definition {
    Chat,
    Responses,
    AnthropicStreaming,
    AnthropicNonStreaming,
    ChatEvent,
    ResponsesEvent,
    AnthropicEvent,
}

fn definition(dialect: Dialect, body: &Value) -> Definition {
    match dialect {
        Dialect::OpenAiChat => Definition::Chat,
        Dialect::OpenAiResponses => Definition::Responses,
        Dialect::Anthropic if body["stream"] == Value::Bool(true) => Definition::AnthropicStreaming,
        Dialect::Anthropic => Definition::AnthropicNonStreaming,
    }
}

fn validator(which: Definition) -> &'static Validator {
    static CELLS: [OnceLock<Validator>; 7] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    let (cell, text, root) = match which {
        Definition::Chat => (&CELLS[0], CHAT, None),
        Definition::Responses => (&CELLS[1], RESPONSES, None),
        Definition::AnthropicStreaming => {
            (&CELLS[2], ANTHROPIC, Some("MessageCreateParamsStreaming"))
        }
        Definition::AnthropicNonStreaming => (
            &CELLS[3],
            ANTHROPIC,
            Some("MessageCreateParamsNonStreaming"),
        ),
        Definition::ChatEvent => (&CELLS[4], CHAT_EVENT, None),
        Definition::ResponsesEvent => (&CELLS[5], RESPONSES_EVENT, None),
        Definition::AnthropicEvent => (&CELLS[6], ANTHROPIC_EVENT, None),
    };
    cell.get_or_init(|| {
        // The vendored files are the testkit's own data: one that does not
        // load is a broken testkit, whatever the test.
        let mut schema: Value = serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("a vendored provider schema is not JSON: {e}"));
        if let (Some(root), Some(doc)) = (root, schema.as_object_mut()) {
            doc.remove("anyOf");
            doc.insert("$ref".into(), Value::String(format!("#/$defs/{root}")));
        }
        // The API streams `finish_reason: null` until the last chunk (every
        // recorded stream under ai_chat_engine/tests/engine/fixtures does),
        // where the OpenAPI document allows only a reason: the behaviour
        // wins, and null is allowed there.
        if matches!(which, Definition::ChatEvent) {
            let at = "/$defs/CreateChatCompletionStreamResponse/properties/choices/items/properties/finish_reason";
            if let Some(reason) = schema.pointer_mut(at) {
                let reason_only = reason.take();
                *reason = serde_json::json!({"anyOf": [reason_only, {"type": "null"}]});
            }
        }
        jsonschema::draft202012::new(&schema)
            .unwrap_or_else(|e| panic!("a vendored provider schema does not compile: {e}"))
    })
}

/// Where `body` departs from the provider's definition of a request of
/// `dialect`, one line each: the deepest places first (a union that fails
/// says more where its branches failed than where it stands).
pub(crate) fn check(dialect: Dialect, body: &Value) -> Vec<String> {
    let body = &as_the_definition_reads(dialect, body);
    let errors = errors(definition(dialect, body), body);
    tally(dialect, errors.len());
    errors
}

/// Where `event` (the JSON of one SSE event's data) departs from the
/// provider's definition of an event of its stream: what the dialect
/// builders ([`crate::openai_chat`] …) make is checked with it, so the
/// streams tests script are ones the provider could send.
pub fn check_stream_event(dialect: Dialect, event: &Value) -> Vec<String> {
    let which = match dialect {
        Dialect::OpenAiChat => Definition::ChatEvent,
        Dialect::OpenAiResponses => Definition::ResponsesEvent,
        Dialect::Anthropic => Definition::AnthropicEvent,
    };
    errors(which, event)
}

fn errors(which: Definition, body: &Value) -> Vec<String> {
    let evaluation = validator(which).evaluate(body);
    let mut found: Vec<Found> = evaluation
        .iter_errors()
        .map(|e| {
            let at = e.instance_location.as_str().to_string();
            Found {
                depth: at.matches('/').count(),
                at: at.clone(),
                branch: branch_of(e.schema_location).to_string(),
                refused_by_tag: is_tag(e.schema_location),
                line: format!(
                    "{}: {} (at {})",
                    if at.is_empty() { "/" } else { &at },
                    e.error,
                    e.schema_location
                ),
            }
        })
        .collect();
    // A union's branch that a tag (`type`, `role`) turned away says only
    // that the value is not of its kind: where another branch at the same
    // place got past its tag, that branch's errors are the ones that
    // matter; where none did, the tags say what the value could have been.
    let refused: Vec<(String, String)> = found
        .iter()
        .filter(|f| f.refused_by_tag)
        .map(|f| (f.branch.clone(), parent(&f.at).to_string()))
        .collect();
    let refused_at = |f: &Found, place: &str| {
        refused
            .iter()
            .any(|(b, l)| l == place && *b == f.branch && f.at.starts_with(l.as_str()))
    };
    let places: Vec<&String> = refused.iter().map(|(_, l)| l).collect();
    let settled: Vec<String> = places
        .iter()
        .filter(|l| {
            found
                .iter()
                .any(|f| f.at.starts_with(l.as_str()) && !refused_at(f, l))
        })
        .map(|l| l.to_string())
        .collect();
    found.retain(|f| !settled.iter().any(|l| refused_at(f, l)));
    found.sort_by_key(|f| std::cmp::Reverse(f.depth));
    found.dedup_by(|a, b| a.line == b.line);
    let mut per_place: Vec<(String, usize)> = Vec::new();
    found.retain(|f| match per_place.iter_mut().find(|(at, _)| *at == f.at) {
        Some((_, n)) => {
            *n += 1;
            *n <= MAX_ERRORS_PER_PLACE
        }
        None => {
            per_place.push((f.at.clone(), 1));
            true
        }
    });
    found
        .into_iter()
        .take(MAX_ERRORS)
        .map(|f| match f.line.char_indices().nth(MAX_ERROR_CHARS) {
            Some((cut, _)) => format!("{}…", &f.line[..cut]),
            None => f.line,
        })
        .collect()
}

/// Where the published definition and the provider's own behaviour part,
/// the behaviour wins, and the body is checked as the definition would
/// have it. OpenAPI's ReasoningItem requires an `id`, but with `store:
/// false` the API refuses a reasoning item that carries one ("Item with id
/// 'rs_…' not found. Items are not persisted when `store` is set to
/// false"), and OpenAI's own clients leave it out (openai-agents-python
/// pull request 2068; Codex): a stateless request sends the item with its
/// `encrypted_content` and no id, and is checked with a stand-in id.
fn as_the_definition_reads(dialect: Dialect, body: &Value) -> Value {
    let mut body = body.clone();
    if dialect == Dialect::OpenAiResponses && body["store"] == Value::Bool(false) {
        if let Some(items) = body["input"].as_array_mut() {
            for item in items.iter_mut().filter(|i| i["type"] == "reasoning") {
                if let Some(fields) = item.as_object_mut() {
                    fields
                        .entry("id")
                        .or_insert_with(|| Value::String("rs_left_out_when_stateless".into()));
                }
            }
        }
    }
    body
}

/// One error of a body.
struct Found {
    depth: usize,
    /// The instance location.
    at: String,
    /// The definition whose test failed (a union's branch).
    branch: String,
    /// That definition refused the value by its tag.
    refused_by_tag: bool,
    line: String,
}

/// The location of the value a location is a member of.
fn parent(at: &str) -> &str {
    at.rsplit_once('/').map_or("", |(p, _)| p)
}

/// The innermost definition (`…/$defs/NAME`) a schema location is in.
fn branch_of(schema_location: &str) -> &str {
    let Some(at) = schema_location.rfind("/$defs/") else {
        return "";
    };
    let name_end = schema_location[at + 7..]
        .find('/')
        .map_or(schema_location.len(), |n| at + 7 + n);
    &schema_location[..name_end]
}

/// Whether a schema location is a tag's test: a `type` or `role` that must
/// be one value, perhaps or null (how the providers' unions tell their
/// branches apart).
fn is_tag(schema_location: &str) -> bool {
    ["/properties/type/", "/properties/role/"]
        .iter()
        .any(|tag| {
            schema_location.rsplit_once(tag).is_some_and(|(_, rest)| {
                let rest = rest
                    .strip_prefix("anyOf/")
                    .and_then(|r| r.split_once('/'))
                    .map_or(rest, |(_, r)| r);
                matches!(rest, "const" | "enum" | "type")
            })
        })
}

fn tally(dialect: Dialect, errors: usize) {
    let Some(path) = std::env::var_os(TALLY_VAR) else {
        return;
    };
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = f.write_all(format!("{dialect:?}\t{errors}\n").as_bytes());
    }
}

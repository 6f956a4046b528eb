//! Every error shape each provider documents or sends reaches the user in
//! the provider's own words: mid-stream events (nested and flat), a failed
//! response with its error object, typed Anthropic errors, Chat
//! Completions error chunks, and HTTP error bodies.

use ai_chat_engine::{EngineError, ProviderKind};
use koi_testkit::anthropic::MessagesStream;
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::openai_responses::ResponsesStream;
use koi_testkit::{sse_event, FakeProvider, Reply};

use crate::common::*;

/// One scripted failure and the words the user must see.
struct Case {
    provider: ProviderKind,
    reply: Reply,
    /// The exact error the turn ends with.
    want: EngineError,
}

fn stream(said: &str) -> EngineError {
    EngineError::Stream(format!("the provider reported: {said}"))
}

fn cases() -> Vec<Case> {
    use ProviderKind::*;
    vec![
        Case {
            provider: OpenAiResponses,
            reply: ResponsesStream::new()
                .error_nested("rate_limit_exceeded", "Rate limit reached for gpt-x")
                .reply(),
            want: stream("rate_limit_exceeded: Rate limit reached for gpt-x"),
        },
        Case {
            provider: OpenAiResponses,
            reply: ResponsesStream::new()
                .text("so far")
                .error_flat("ERR_SOMETHING", "Something went wrong")
                .reply(),
            want: stream("ERR_SOMETHING: Something went wrong"),
        },
        Case {
            provider: OpenAiResponses,
            reply: ResponsesStream::new().failed("The model crashed").reply(),
            want: stream("server_error: The model crashed"),
        },
        Case {
            provider: Anthropic,
            reply: MessagesStream::new(5, 0, 0)
                .text("Starting")
                .error("overloaded_error", "Overloaded")
                .reply(),
            want: stream("overloaded_error: Overloaded"),
        },
        Case {
            provider: Anthropic,
            reply: MessagesStream::new(5, 0, 0)
                .error("api_error", "Internal server error")
                .reply(),
            want: stream("api_error: Internal server error"),
        },
        Case {
            provider: OpenAi,
            reply: ChatStream::new()
                .text("Partly")
                .error("server_error", "The server had an error while processing")
                .reply(),
            want: stream("server_error: The server had an error while processing"),
        },
        Case {
            // llama.cpp and friends: a bare string.
            provider: OpenAi,
            reply: Reply::sse([sse_event(None, r#"{"error":"model is loading"}"#)]),
            want: stream("model is loading"),
        },
        Case {
            provider: Anthropic,
            reply: Reply::status(
                400,
                r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages: text content blocks must be non-empty"}}"#,
            ),
            want: EngineError::Rejected {
                status: 400,
                message: "invalid_request_error: messages: text content blocks must be non-empty"
                    .into(),
            },
        },
        Case {
            provider: OpenAiResponses,
            reply: Reply::status(
                404,
                r#"{"error":{"message":"The model `x` does not exist","type":"invalid_request_error","param":null,"code":"model_not_found"}}"#,
            ),
            want: EngineError::Rejected {
                status: 404,
                message: "model_not_found: The model `x` does not exist".into(),
            },
        },
    ]
}

#[test]
fn every_error_shape_reaches_the_user_verbatim() {
    for (n, case) in cases().into_iter().enumerate() {
        let server = FakeProvider::start([case.reply]);
        let h = harness_with(&server, case.provider, |_| {});
        let conv = h.engine.new_conversation();
        let msgs = run(&h.engine, &conv, "go");
        assert_eq!(error_of(&msgs), &case.want.to_event(), "case {n}: {msgs:?}");
        assert_eq!(server.request_count(), 1, "case {n}: not retried");
    }
}

#[test]
fn a_long_provider_message_is_shortened() {
    let long = format!("boom {}", "x".repeat(5000));
    let server = FakeProvider::start([ResponsesStream::new()
        .error_nested("server_error", &long)
        .reply()]);
    let h = harness_with(&server, ProviderKind::OpenAiResponses, |_| {});
    let conv = h.engine.new_conversation();
    let msgs = run(&h.engine, &conv, "go");
    let shown = message_of(&msgs).to_string();
    assert!(shown.contains("server_error: boom xxx"), "{shown}");
    assert!(shown.ends_with('…'), "{shown}");
    assert!(shown.len() < 500, "{} bytes", shown.len());
}

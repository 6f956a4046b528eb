//! Images on user messages: each dialect's image content, and the
//! same-turn degradation when a provider rejects them (older images
//! first, then all), which later rounds keep.

use ai_chat_engine::{Event, Image, MediaLevel, ProviderKind, UserInput};
use koi_testkit::anthropic::MessagesStream;
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::openai_responses::ResponsesStream;
use koi_testkit::{FakeProvider, Reply};
use serde_json::Value;

use crate::common::*;

/// A PNG signature and a few bytes: enough for the magic-byte check.
fn png(tag: &str) -> Image {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend_from_slice(tag.as_bytes());
    Image::from_bytes(&format!("{tag}.png"), &bytes).unwrap()
}

fn ask(
    h: &Harness,
    conv: &ai_chat_engine::Conversation,
    text: &str,
    image: Option<Image>,
) -> Vec<Event> {
    let mut input = UserInput::text(text);
    if let Some(im) = image {
        input = input.with_image(im);
    }
    let (rx, _cancel) = h.engine.submit(conv, input);
    collect(&rx)
}

fn notices(msgs: &[Event]) -> Vec<String> {
    msgs.iter()
        .filter_map(|m| match m {
            Event::Notice { text: t } => Some(t.clone()),
            _ => None,
        })
        .collect()
}

/// The Anthropic user messages' image data and texts, in order.
fn anthropic_user_parts(body: &Value) -> (Vec<String>, Vec<String>) {
    let mut images = Vec::new();
    let mut texts = Vec::new();
    for m in body["messages"].as_array().unwrap() {
        if m["role"] != "user" {
            continue;
        }
        for b in m["content"].as_array().unwrap() {
            match b["type"].as_str().unwrap() {
                "image" => images.push(b["source"]["data"].as_str().unwrap().to_string()),
                "text" => texts.push(b["text"].as_str().unwrap().to_string()),
                _ => {}
            }
        }
    }
    (images, texts)
}

#[test]
fn each_dialect_sends_the_image_as_its_own_content() {
    let image = png("shot");
    let cases = [
        (
            ProviderKind::Anthropic,
            MessagesStream::new(5, 0, 0)
                .text("A cat.")
                .stop("end_turn", 2)
                .reply(),
        ),
        (
            ProviderKind::OpenAi,
            ChatStream::new().text("A cat.").stop().reply(),
        ),
        (
            ProviderKind::OpenAiResponses,
            ResponsesStream::new()
                .text("A cat.")
                .completed(5, 0, 2)
                .reply(),
        ),
    ];
    for (provider, reply) in cases {
        let server = FakeProvider::start([reply]);
        let h = harness_with(&server, provider, |_| {});
        let conv = h.engine.new_conversation();
        let msgs = ask(&h, &conv, "what is this?", Some(image.clone()));
        assert!(is_done(&msgs), "{provider:?}: {msgs:?}");
        let body = server.requests()[0].json();
        let (user, content) = match provider {
            ProviderKind::Anthropic => {
                let m = body["messages"].as_array().unwrap();
                (m[m.len() - 1].clone(), "content")
            }
            ProviderKind::OpenAi => {
                let m = body["messages"].as_array().unwrap();
                (m[m.len() - 1].clone(), "content")
            }
            _ => {
                let m = body["input"].as_array().unwrap();
                (m[m.len() - 1].clone(), "content")
            }
        };
        let parts = user[content].as_array().unwrap();
        let image_part = parts
            .iter()
            .find(|p| p["type"] != "text" && p["type"] != "input_text")
            .unwrap();
        let url = format!("data:image/png;base64,{}", image.data);
        match provider {
            ProviderKind::Anthropic => {
                assert_eq!(image_part["type"], "image");
                assert_eq!(image_part["source"]["type"], "base64");
                assert_eq!(image_part["source"]["media_type"], "image/png");
                assert_eq!(image_part["source"]["data"], image.data.as_str());
            }
            ProviderKind::OpenAi => {
                assert_eq!(image_part["type"], "image_url");
                assert_eq!(image_part["image_url"]["url"], url.as_str());
            }
            _ => {
                assert_eq!(image_part["type"], "input_image");
                assert_eq!(image_part["image_url"], url.as_str());
            }
        }
        // The question still travels as text, after the image.
        let last = parts.last().unwrap();
        assert!(last["text"].as_str().unwrap().ends_with("what is this?"));
        server.finish();
    }
}

#[test]
fn a_rejected_image_is_degraded_then_stripped_within_the_turn_and_stays_so() {
    let too_large = || {
        Reply::status(
            413,
            r#"{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}"#,
        )
    };
    let ok = |t: &str| {
        MessagesStream::new(5, 0, 0)
            .text(t)
            .stop("end_turn", 2)
            .reply()
    };
    let server = FakeProvider::start([
        ok("First."),
        too_large(),
        too_large(),
        ok("Second."),
        ok("Third."),
    ]);
    let h = harness_with(&server, ProviderKind::Anthropic, |_| {});
    let conv = h.engine.new_conversation();
    let (old, new) = (png("old"), png("new"));
    let first = ask(&h, &conv, "look", Some(old.clone()));
    assert!(is_done(&first) && notices(&first).is_empty());
    let second = ask(&h, &conv, "and this", Some(new.clone()));
    assert!(is_done(&second), "{second:?}");
    assert_eq!(tokens(&second), "Second.");
    assert_eq!(
        notices(&second),
        [
            MediaLevel::Degraded.notice().to_string(),
            MediaLevel::Stripped.notice().to_string()
        ]
    );
    let reqs: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
    assert_eq!(reqs.len(), 4);
    // The rejected request carried both images.
    assert_eq!(
        anthropic_user_parts(&reqs[1]).0,
        [old.data.clone(), new.data.clone()]
    );
    // Degraded: the old image is a marker, the newest is kept.
    let (images, texts) = anthropic_user_parts(&reqs[2]);
    assert_eq!(images, vec![new.data.clone()]);
    assert!(texts
        .iter()
        .any(|t| t.starts_with(&old.marker()) && t.ends_with("look")));
    assert!(!texts.iter().any(|t| t.contains(&new.marker())));
    // Stripped: no image at all, both markers.
    let (images, texts) = anthropic_user_parts(&reqs[3]);
    assert!(images.is_empty());
    assert!(texts.iter().any(|t| t.starts_with(&old.marker())));
    assert!(texts
        .iter()
        .any(|t| t.starts_with(&new.marker()) && t.ends_with("and this")));
    // The next turn starts from the stripped projection.
    let third = ask(&h, &conv, "thanks", None);
    assert!(is_done(&third) && notices(&third).is_empty());
    let reqs: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
    assert!(anthropic_user_parts(&reqs[4]).0.is_empty());
    // The history itself keeps both images.
    let kept = conv
        .messages()
        .iter()
        .filter(|m| matches!(m, ai_chat_engine::Message::User { images, .. } if !images.is_empty()))
        .count();
    assert_eq!(kept, 2);
    server.finish();
}

#[test]
fn a_rejection_that_is_not_about_images_is_not_retried() {
    let server = FakeProvider::start([Reply::status(
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}"#,
    )]);
    let h = harness_with(&server, ProviderKind::Anthropic, |_| {});
    let conv = h.engine.new_conversation();
    let msgs = ask(&h, &conv, "look", Some(png("a")));
    assert_eq!(kind_of(&msgs), ErrorKind::Rejected);
    assert!(message_of(&msgs).contains("HTTP 400"), "{msgs:?}");
    assert!(notices(&msgs).is_empty());
    assert_eq!(server.request_count(), 1);
    server.finish();
}

#[test]
fn images_and_the_media_level_survive_a_resume() {
    let ok = |t: &str| {
        MessagesStream::new(5, 0, 0)
            .text(t)
            .stop("end_turn", 2)
            .reply()
    };
    let server = FakeProvider::start([
        ok("One."),
        Reply::status(
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"Image format not supported"}}"#,
        ),
        ok("Two."),
        ok("Three."),
    ]);
    let h = harness_with(&server, ProviderKind::Anthropic, |_| {});
    let conv = h.engine.new_conversation();
    let (a, b) = (png("a"), png("b"));
    assert!(is_done(&ask(&h, &conv, "one", Some(a.clone()))));
    let two = ask(&h, &conv, "two", Some(b.clone()));
    assert!(is_done(&two));
    assert_eq!(notices(&two), [MediaLevel::Degraded.notice().to_string()]);
    let id = conv.id();
    drop(conv);
    let reopened = load_when_free(&h.engine, &id);
    let users: Vec<_> = reopened
        .messages()
        .into_iter()
        .filter_map(|m| match m {
            ai_chat_engine::Message::User { images, .. } => Some(images),
            _ => None,
        })
        .collect();
    assert_eq!(users, [vec![a], vec![b.clone()]]);
    assert!(is_done(&ask(&h, &reopened, "three", None)));
    // Still degraded after the resume: only the newest image goes.
    let last = server.requests().last().unwrap().json();
    assert_eq!(anthropic_user_parts(&last).0, vec![b.data]);
    server.finish();
}

#[test]
fn a_single_image_skips_the_step_that_would_change_nothing() {
    let server = FakeProvider::start([
        Reply::status(
            413,
            r#"{"type":"error","error":{"type":"request_too_large","message":"too large"}}"#,
        ),
        MessagesStream::new(5, 0, 0)
            .text("Ok.")
            .stop("end_turn", 2)
            .reply(),
    ]);
    let h = harness_with(&server, ProviderKind::Anthropic, |_| {});
    let conv = h.engine.new_conversation();
    let msgs = ask(&h, &conv, "look", Some(png("only")));
    assert!(is_done(&msgs));
    assert_eq!(notices(&msgs), [MediaLevel::Stripped.notice().to_string()]);
    assert!(anthropic_user_parts(&server.requests()[1].json())
        .0
        .is_empty());
    server.finish();
}

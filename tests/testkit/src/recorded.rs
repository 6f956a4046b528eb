//! A request as the fake server recorded it, and the lock that guards the
//! record.

use std::sync::{Mutex, MutexGuard};

use crate::checks::RequestKind;

/// One request as the server received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedRequest {
    /// `GET`, `POST`, …
    pub method: String,
    /// Path and query, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Header names lower-cased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The raw body bytes.
    pub body: Vec<u8>,
    /// What the request asks for (a turn when the body is unreadable).
    pub kind: RequestKind,
    /// How long the fake provider spent checking the request (its wire
    /// format, the provider's schema, the history) before answering: time
    /// a benchmark of the engine takes off what it measures.
    pub checked_in: std::time::Duration,
}

impl RecordedRequest {
    /// The first header with this (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as text (lossy for non-UTF-8 bytes).
    pub fn body_str(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body parsed as JSON, or `Value::Null` when it is not JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// Locks `m`, even when a test thread panicked while holding it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking test thread must not hide the recorded requests.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

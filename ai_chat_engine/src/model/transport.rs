//! One model round over HTTP: send with retries, stream SSE through the
//! dialect's decoder, honour cancel at every await.

use std::time::Duration;

use ai_tools::CancelToken;
use futures_util::StreamExt;

use crate::budgets::{
    CANCEL_POLL, CONNECT_TIMEOUT, MAX_ATTEMPTS, MAX_RETRY_AFTER, REQUEST_TOTAL_TIMEOUT,
    RETRY_BASE_DELAY, STREAM_IDLE_TIMEOUT,
};
use crate::config::{ApiKey, ProviderKind};
use crate::model::providers::error::{provider_error, shorten, MAX_ERROR_MESSAGE_CHARS};
use crate::model::providers::{
    auth_header, decoder, DecodeError, Delta, HttpRequest, StepOutput, Usage,
};
use crate::model::sse::SseParser;
use crate::stream::EngineError;

/// What one round produced: the step or why it failed, and any usage the
/// provider reported before the end.
pub(crate) struct StepResult {
    pub outcome: Result<StepOutput, EngineError>,
    pub usage: Option<Usage>,
}

impl StepResult {
    /// A round that failed before the provider reported any usage.
    pub fn failed(e: EngineError) -> Self {
        StepResult {
            outcome: Err(e),
            usage: None,
        }
    }
}

/// The HTTP side of the engine: a runtime for async I/O and one client
/// (connection pool) shared by every turn.
pub(crate) struct Transport {
    /// Always `Some` until drop.
    runtime: Option<tokio::runtime::Runtime>,
    client: reqwest::Client,
}

impl Drop for Transport {
    fn drop(&mut self) {
        // Non-blocking, so dropping an engine is safe even inside some
        // other async runtime.
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

impl Transport {
    pub fn new() -> Result<Transport, EngineError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("koi-engine-io")
            .enable_all()
            .build()
            .map_err(|e| EngineError::Config(format!("cannot start the I/O runtime: {e}")))?;
        let client = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(REQUEST_TOTAL_TIMEOUT)
            .build()
            .map_err(|e| EngineError::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Transport {
            runtime: Some(runtime),
            client,
        })
    }

    /// Runs one round on the calling thread (blocking it).
    pub fn step(
        &self,
        kind: ProviderKind,
        key: Option<&ApiKey>,
        req: &HttpRequest,
        cancel: &CancelToken,
        on_delta: &mut dyn FnMut(Delta) -> Result<(), EngineError>,
    ) -> StepResult {
        let Some(rt) = &self.runtime else {
            return StepResult::failed(EngineError::Config("the engine is shutting down".into()));
        };
        rt.block_on(async {
            let resp = match self.send_with_retries(kind, key, req, cancel).await {
                Ok(r) => r,
                Err(e) => return StepResult::failed(e),
            };
            let mut decoder = decoder(kind);
            let outcome = pump(resp, decoder.as_mut(), cancel, on_delta).await;
            let usage = decoder.usage();
            let outcome = match outcome {
                Ok(()) => decoder.finish().map_err(decode_error),
                Err(e) => Err(e),
            };
            StepResult { outcome, usage }
        })
    }

    async fn send_with_retries(
        &self,
        kind: ProviderKind,
        key: Option<&ApiKey>,
        req: &HttpRequest,
        cancel: &CancelToken,
    ) -> Result<reqwest::Response, EngineError> {
        let mut last = String::new();
        for attempt in 1..=MAX_ATTEMPTS {
            let mut rb = self.client.post(&req.url).body(req.body.clone());
            for (name, value) in &req.headers {
                rb = rb.header(*name, value);
            }
            if let Some(key) = key {
                let (name, value) = auth_header(kind, key);
                rb = rb.header(name, value);
            }
            let sent = tokio::select! {
                r = rb.send() => r,
                () = cancelled(cancel) => return Err(EngineError::Cancelled),
            };
            let delay = match sent {
                Ok(resp) if resp.status().is_success() => return Ok(resp),
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let retry_after = parse_retry_after(resp.headers());
                    let message = tokio::select! {
                        m = error_message(resp) => m,
                        () = cancelled(cancel) => return Err(EngineError::Cancelled),
                    };
                    if status != 429 && status < 500 {
                        return Err(EngineError::Rejected { status, message });
                    }
                    last = format!("HTTP {status}: {message}");
                    match retry_after {
                        Some(d) if d > MAX_RETRY_AFTER => {
                            return Err(EngineError::RetriesExhausted {
                                attempts: attempt,
                                last: format!("{last} (asked to retry after {}s)", d.as_secs()),
                            })
                        }
                        Some(d) => d,
                        None => backoff(attempt),
                    }
                }
                Err(e) => {
                    // reqwest's Display names the URL, never headers.
                    last = format!("network: {e}");
                    backoff(attempt)
                }
            };
            if attempt < MAX_ATTEMPTS {
                tokio::select! {
                    () = tokio::time::sleep(delay) => {}
                    () = cancelled(cancel) => return Err(EngineError::Cancelled),
                }
            }
        }
        Err(EngineError::RetriesExhausted {
            attempts: MAX_ATTEMPTS,
            last,
        })
    }
}

fn backoff(attempt: usize) -> Duration {
    RETRY_BASE_DELAY * 2u32.saturating_pow(attempt.saturating_sub(1) as u32)
}

fn parse_retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let v = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    let secs: f64 = v.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)))
}

async fn error_message(resp: reqwest::Response) -> String {
    let body = tokio::time::timeout(Duration::from_secs(5), resp.text())
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let from_json = serde_json::from_str::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| provider_error(&v));
    let msg = from_json.unwrap_or_else(|| shorten(&body));
    if msg.is_empty() {
        return "(no message)".into();
    }
    msg
}

/// Resolves once `cancel` is set (checked every [`CANCEL_POLL`]).
pub(crate) async fn cancelled(cancel: &CancelToken) {
    while !cancel.is_cancelled() {
        tokio::time::sleep(CANCEL_POLL).await;
    }
}

fn decode_error(e: DecodeError) -> EngineError {
    match e {
        DecodeError::Malformed(m) => EngineError::Stream(m),
        DecodeError::Provider(m) => EngineError::Stream(format!("the provider reported: {m}")),
        DecodeError::Limit(m) => EngineError::StreamLimit(m),
    }
}

async fn pump(
    resp: reqwest::Response,
    decoder: &mut dyn crate::model::providers::Decoder,
    cancel: &CancelToken,
    on_delta: &mut dyn FnMut(Delta) -> Result<(), EngineError>,
) -> Result<(), EngineError> {
    let mut stream = resp.bytes_stream();
    let mut parser = SseParser::new();
    let mut events = Vec::new();
    let mut deltas = Vec::new();
    let mut ended = false;
    let mut seen_events = 0usize;
    // The start of the body, to explain a reply that is not an event stream.
    let mut head = Vec::new();
    while !decoder.is_complete() {
        let next = tokio::select! {
            n = tokio::time::timeout(STREAM_IDLE_TIMEOUT, stream.next()) => n,
            () = cancelled(cancel) => return Err(EngineError::Cancelled),
        };
        match next {
            Err(_) => {
                return Err(EngineError::Network(format!(
                    "no data from the provider for {}s",
                    STREAM_IDLE_TIMEOUT.as_secs()
                )))
            }
            Ok(None) => {
                parser
                    .finish(&mut events)
                    .map_err(|e| EngineError::StreamLimit(e.to_string()))?;
                ended = true;
            }
            Ok(Some(Err(e))) => {
                return Err(EngineError::Stream(format!(
                    "the connection broke mid-response ({e})"
                )))
            }
            Ok(Some(Ok(bytes))) => {
                if head.len() < MAX_ERROR_MESSAGE_CHARS {
                    head.extend(bytes.iter().take(MAX_ERROR_MESSAGE_CHARS - head.len()));
                }
                parser
                    .feed(&bytes, &mut events)
                    .map_err(|e| EngineError::StreamLimit(e.to_string()))?;
            }
        }
        seen_events += events.len();
        if ended && seen_events == 0 {
            let shown = String::from_utf8_lossy(&head);
            return Err(EngineError::Stream(format!(
                "the provider did not send an event stream; its reply began: {}",
                shown.trim()
            )));
        }
        for ev in events.drain(..) {
            decoder.on_event(&ev, &mut deltas).map_err(decode_error)?;
            for d in deltas.drain(..) {
                on_delta(d)?;
            }
        }
        if ended {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_and_backoff() {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert(reqwest::header::RETRY_AFTER, "2".parse().unwrap());
        assert_eq!(parse_retry_after(&h), Some(Duration::from_secs(2)));
        h.insert(
            reqwest::header::RETRY_AFTER,
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(parse_retry_after(&h), None);
        assert_eq!(backoff(1), RETRY_BASE_DELAY);
        assert_eq!(backoff(3), RETRY_BASE_DELAY * 4);
    }
}

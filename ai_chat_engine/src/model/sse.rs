//! An incremental Server-Sent Events parser with hard limits.
//!
//! Bytes go in as they arrive (chunk boundaries anywhere, even inside a
//! UTF-8 sequence or a CRLF); whole events come out. Limits bound memory and
//! time against a broken or runaway server.

use crate::budgets::{MAX_SSE_EVENTS, MAX_SSE_LINE_BYTES, MAX_SSE_STREAM_BYTES};

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, if any.
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// A limit the stream broke.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    /// One line passed [`MAX_SSE_LINE_BYTES`].
    #[error("an SSE line passed {0} bytes")]
    LineTooLong(usize),
    /// The stream passed [`MAX_SSE_STREAM_BYTES`].
    #[error("the stream passed {0} bytes")]
    StreamTooLarge(usize),
    /// The stream passed [`MAX_SSE_EVENTS`] events.
    #[error("the stream passed {0} events")]
    TooManyEvents(usize),
}

/// The parser state. See the module docs.
#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    data: String,
    has_data: bool,
    event: Option<String>,
    total: usize,
    events: usize,
    after_cr: bool,
    limits: Limits,
}

#[derive(Debug, Clone, Copy)]
struct Limits {
    line: usize,
    stream: usize,
    events: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            line: MAX_SSE_LINE_BYTES,
            stream: MAX_SSE_STREAM_BYTES,
            events: MAX_SSE_EVENTS,
        }
    }
}

impl SseParser {
    /// A parser with the standard limits.
    pub fn new() -> Self {
        Self::default()
    }

    /// A parser with custom limits (tests).
    pub fn with_limits(line: usize, stream: usize, events: usize) -> Self {
        SseParser {
            limits: Limits {
                line,
                stream,
                events,
            },
            ..Self::default()
        }
    }

    /// Feeds bytes, appending every completed event to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        self.total += bytes.len();
        if self.total > self.limits.stream {
            return Err(SseError::StreamTooLarge(self.limits.stream));
        }
        for &b in bytes {
            match b {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    self.end_line(out)?;
                }
                _ => {
                    self.after_cr = false;
                    if self.line.len() >= self.limits.line {
                        return Err(SseError::LineTooLong(self.limits.line));
                    }
                    self.line.push(b);
                }
            }
        }
        Ok(())
    }

    /// At the clean end of a body: dispatches the event still open, its
    /// last line included when no line end followed it. Servers and SDK
    /// recordings end `data: {"type":"message_stop"}` without one; a line
    /// that was really cut is then a partial payload the dialect rejects.
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if !self.line.is_empty() {
            self.end_line(out)?;
        }
        self.dispatch(out)
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if self.line.is_empty() {
            return self.dispatch(out);
        }
        let line = String::from_utf8_lossy(&self.line).into_owned();
        self.line.clear();
        if line.starts_with(':') {
            return Ok(()); // comment / keep-alive
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line.as_str(), ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_string()),
            _ => {} // id, retry and unknown fields do not matter here
        }
        Ok(())
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if !self.has_data {
            self.event = None;
            return Ok(());
        }
        self.events += 1;
        if self.events > self.limits.events {
            return Err(SseError::TooManyEvents(self.limits.events));
        }
        out.push(SseEvent {
            event: self.event.take(),
            data: std::mem::take(&mut self.data),
        });
        self.has_data = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        for c in chunks {
            p.feed(c, &mut out).unwrap();
        }
        p.finish(&mut out).unwrap();
        out
    }

    #[test]
    fn splits_anywhere_and_handles_crlf() {
        let whole =
            b"event: a\r\ndata: x\r\ndata: y\r\n\r\n: ping\n\ndata: {\"k\":\"\xc3\xa9\"}\n\n";
        let expected = parse_all(&[whole]);
        assert_eq!(expected.len(), 2);
        assert_eq!(expected[0].event.as_deref(), Some("a"));
        assert_eq!(expected[0].data, "x\ny");
        assert_eq!(expected[1].data, "{\"k\":\"é\"}");
        for split in 0..whole.len() {
            let (a, b) = whole.split_at(split);
            assert_eq!(parse_all(&[a, b]), expected, "split at {split}");
        }
    }

    #[test]
    fn an_unterminated_last_line_still_counts() {
        let out = parse_all(&[b"data: one\n\ndata: {\"type\":\"message_stop\"}"]);
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].data, "{\"type\":\"message_stop\"}");
        let out = parse_all(&[b"data: two\n"]);
        assert_eq!(out[0].data, "two");
        let out = parse_all(&[b"data: three\r"]);
        assert_eq!(out[0].data, "three");
        assert!(parse_all(&[b": comment"]).is_empty());
    }

    #[test]
    fn limits_trip() {
        let mut p = SseParser::with_limits(8, 1000, 2);
        let mut out = Vec::new();
        assert_eq!(
            p.feed(b"data: 0123456789\n", &mut out),
            Err(SseError::LineTooLong(8))
        );
        let mut p = SseParser::with_limits(100, 1000, 2);
        assert_eq!(
            p.feed(b"data: a\n\ndata: b\n\ndata: c\n\n", &mut out),
            Err(SseError::TooManyEvents(2))
        );
        let mut p = SseParser::with_limits(100, 10, 2);
        assert_eq!(
            p.feed(b"data: abcdefghijkl", &mut out),
            Err(SseError::StreamTooLarge(10))
        );
    }
}

//! JSON-RPC 2.0 as ACP carries it over stdio: one message per line, in
//! both directions. Reading a line gives an [`Incoming`] or the error to
//! answer it with; a [`Peer`] writes responses, notifications and
//! requests of our own, and routes the client's responses back to the
//! request that waits for them.

use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crossbeam_channel::{bounded, Receiver, Sender};
use serde::Serialize;
use serde_json::{json, Map, Value};

/// The line was not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// The JSON was not a JSON-RPC 2.0 message.
pub const INVALID_REQUEST: i64 = -32600;
/// No such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// The method's params do not fit it.
pub const INVALID_PARAMS: i64 = -32602;
/// Something failed on our side.
pub const INTERNAL_ERROR: i64 = -32603;
/// ACP's "resource not found": a session id nobody knows.
pub const RESOURCE_NOT_FOUND: i64 = -32002;
/// The session is busy (a prompt runs) or held by another process: the
/// first code of JSON-RPC's range for server errors.
pub const SERVER_BUSY: i64 = -32000;

/// The longest line read: a prompt with embedded files fits with room to
/// spare, and a client that never sends a newline cannot make `k` hold
/// unbounded memory.
pub const MAX_LINE_BYTES: usize = 32 * 1024 * 1024;

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcError {
    /// The code (one of the constants above, or the client's).
    pub code: i64,
    /// One line for people.
    pub message: String,
}

impl RpcError {
    /// An error with `code` and `message`.
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
        }
    }

    /// `-32602` for params that do not fit.
    pub fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError::new(INVALID_PARAMS, message)
    }

    fn to_value(&self) -> Value {
        json!({"code": self.code, "message": self.message})
    }
}

/// One message from the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A request: it gets exactly one response.
    Request {
        /// Its id (a number or a string), echoed in the response.
        id: Value,
        /// The method.
        method: String,
        /// Its params (`null` when absent).
        params: Value,
    },
    /// A notification: no response.
    Notification {
        /// The method.
        method: String,
        /// Its params.
        params: Value,
    },
    /// The client's answer to one of our requests.
    Response {
        /// The id we gave.
        id: Value,
        /// The result, or the client's error.
        outcome: Result<Value, RpcError>,
    },
}

/// Why a line is not a message, and the id to answer with (`null` when
/// none could be read).
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    /// The request's id, or `null`.
    pub id: Value,
    /// What to answer.
    pub error: RpcError,
}

/// Reads one line of the stream as a message.
pub fn parse(line: &[u8]) -> Result<Incoming, Rejected> {
    let reject = |id: Value, code: i64, message: String| Rejected {
        id,
        error: RpcError::new(code, message),
    };
    let value: Value = serde_json::from_slice(line)
        .map_err(|e| reject(Value::Null, PARSE_ERROR, format!("parse error: {e}")))?;
    let Value::Object(mut object) = value else {
        return Err(reject(
            Value::Null,
            INVALID_REQUEST,
            "a message must be one JSON object (ACP sends no batches)".into(),
        ));
    };
    let id = object.remove("id");
    let id_ok = |id: &Value| matches!(id, Value::Number(_) | Value::String(_));
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        let id = id.filter(id_ok).unwrap_or(Value::Null);
        return Err(reject(
            id,
            INVALID_REQUEST,
            "\"jsonrpc\" must be \"2.0\"".into(),
        ));
    }
    if let Some(method) = object.remove("method") {
        let Value::String(method) = method else {
            let id = id.filter(id_ok).unwrap_or(Value::Null);
            return Err(reject(
                id,
                INVALID_REQUEST,
                "\"method\" must be a string".into(),
            ));
        };
        let params = object.remove("params").unwrap_or(Value::Null);
        return match id {
            None => Ok(Incoming::Notification { method, params }),
            Some(id) if id_ok(&id) => Ok(Incoming::Request { id, method, params }),
            Some(_) => Err(reject(
                Value::Null,
                INVALID_REQUEST,
                "\"id\" must be a number or a string".into(),
            )),
        };
    }
    let Some(id) = id.filter(id_ok) else {
        return Err(reject(
            Value::Null,
            INVALID_REQUEST,
            "neither a request nor a response".into(),
        ));
    };
    let outcome = match (object.remove("result"), object.remove("error")) {
        (Some(result), None) => Ok(result),
        (None, Some(error)) => Err(RpcError::new(
            error.get("code").and_then(Value::as_i64).unwrap_or(0),
            error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("(no message)"),
        )),
        _ => {
            return Err(reject(
                Value::Null,
                INVALID_REQUEST,
                "a response has exactly one of \"result\" and \"error\"".into(),
            ))
        }
    };
    Ok(Incoming::Response { id, outcome })
}

/// One line read from the stream.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// The bytes of a line, newline removed.
    Text(Vec<u8>),
    /// A line over [`MAX_LINE_BYTES`]; its bytes were skipped.
    TooLong,
    /// The stream ended.
    End,
}

/// Reads the next line, holding at most [`MAX_LINE_BYTES`] of it.
pub fn read_line(input: &mut impl BufRead) -> io::Result<Line> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(match (too_long, line.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::End,
                (false, false) => Line::Text(line),
            });
        }
        let (chunk, found) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !too_long && line.len() + chunk.len() <= MAX_LINE_BYTES {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line = Vec::new();
        }
        let used = found.unwrap_or(buf.len());
        input.consume(used);
        if found.is_some() {
            return Ok(if too_long {
                Line::TooLong
            } else {
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                Line::Text(line)
            });
        }
    }
}

/// The answer a request of ours waits for.
pub type Answer = Result<Value, RpcError>;

/// Our end of the connection: writes whole lines (one writer at a time)
/// and matches the client's responses to our requests.
pub struct Peer {
    out: Mutex<Box<dyn Write + Send>>,
    next_id: AtomicU64,
    pending: Mutex<HashMap<u64, Sender<Answer>>>,
}

impl Peer {
    /// A peer writing to `out`.
    pub fn new(out: Box<dyn Write + Send>) -> Peer {
        Peer {
            out: Mutex::new(out),
            next_id: AtomicU64::new(0),
            pending: Mutex::new(HashMap::new()),
        }
    }

    /// Writes one message as one line. A closed stdout is the client gone:
    /// the error is returned, and the reader sees the end of stdin soon.
    fn send(&self, message: &Value) -> io::Result<()> {
        let mut text = serde_json::to_string(message).map_err(io::Error::other)?;
        text.push('\n');
        let mut out = self.out.lock().unwrap_or_else(|p| p.into_inner());
        out.write_all(text.as_bytes())?;
        out.flush()
    }

    /// Answers request `id`.
    pub fn respond(&self, id: &Value, answer: Answer) -> io::Result<()> {
        let message = match answer {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": e.to_value()}),
        };
        self.send(&message)
    }

    /// Answers request `id` with a typed result.
    pub fn respond_with<T: Serialize>(&self, id: &Value, result: &T) -> io::Result<()> {
        let answer = serde_json::to_value(result)
            .map_err(|e| RpcError::new(INTERNAL_ERROR, format!("cannot write the result: {e}")));
        self.respond(id, answer)
    }

    /// Sends a notification.
    pub fn notify<T: Serialize>(&self, method: &str, params: &T) -> io::Result<()> {
        let params = serde_json::to_value(params).map_err(io::Error::other)?;
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// Sends a request; its answer arrives on the returned channel (which
    /// closes without one when the connection ends first).
    pub fn request<T: Serialize>(&self, method: &str, params: &T) -> Receiver<Answer> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = bounded(1);
        let params = match serde_json::to_value(params) {
            Ok(p) => p,
            Err(e) => {
                let _ = tx.send(Err(RpcError::new(INTERNAL_ERROR, e.to_string())));
                return rx;
            }
        };
        self.pending_map().insert(id, tx);
        let sent =
            self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        if sent.is_err() {
            self.pending_map().remove(&id);
        }
        rx
    }

    /// Hands the client's response to the request that waits for it;
    /// false when no request of ours has that id.
    pub fn resolve(&self, id: &Value, outcome: Answer) -> bool {
        let Some(id) = id.as_u64() else {
            return false;
        };
        match self.pending_map().remove(&id) {
            Some(tx) => {
                let _ = tx.send(outcome);
                true
            }
            None => false,
        }
    }

    /// Ends every wait for an answer (the client is gone).
    pub fn drop_pending(&self) {
        self.pending_map().clear();
    }

    fn pending_map(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Sender<Answer>>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `params` as `T`, or the `-32602` error that says why not.
pub fn params<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    let params = if params.is_null() {
        Value::Object(Map::new())
    } else {
        params
    };
    serde_json::from_value(params).map_err(|e| RpcError::invalid_params(format!("params: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_kind_of_message() {
        let r = parse(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#);
        assert!(matches!(r, Ok(Incoming::Request { ref method, .. }) if method == "initialize"));
        let n = parse(br#"{"jsonrpc":"2.0","method":"session/cancel","params":{}}"#);
        assert!(matches!(n, Ok(Incoming::Notification { .. })));
        let a = parse(br#"{"jsonrpc":"2.0","id":3,"result":{"x":1}}"#);
        assert!(matches!(a, Ok(Incoming::Response { outcome: Ok(_), .. })));
        let e = parse(br#"{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}"#);
        assert!(matches!(
            e,
            Ok(Incoming::Response {
                outcome: Err(RpcError { code: -1, .. }),
                ..
            })
        ));
    }

    #[test]
    fn bad_lines_get_the_right_codes() {
        let code = |line: &[u8]| parse(line).err().map(|r| r.error.code);
        assert_eq!(code(b"{not json"), Some(PARSE_ERROR));
        assert_eq!(code(b"\xff\xfe"), Some(PARSE_ERROR));
        assert_eq!(code(b"[1,2]"), Some(INVALID_REQUEST));
        assert_eq!(code(br#"{"id":1,"method":"x"}"#), Some(INVALID_REQUEST));
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":1,"method":7}"#),
            Some(INVALID_REQUEST)
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":{"a":1},"method":"x"}"#),
            Some(INVALID_REQUEST)
        );
        let r = parse(br#"{"jsonrpc":"1.0","id":9,"method":"x"}"#).err();
        assert_eq!(r.map(|r| r.id), Some(json!(9)), "the id is echoed");
    }

    #[test]
    fn lines_are_bounded_and_split_on_newlines() {
        let mut input = io::Cursor::new(b"one\r\ntwo\nthree".to_vec());
        assert_eq!(
            read_line(&mut input).ok(),
            Some(Line::Text(b"one".to_vec()))
        );
        assert_eq!(
            read_line(&mut input).ok(),
            Some(Line::Text(b"two".to_vec()))
        );
        assert_eq!(
            read_line(&mut input).ok(),
            Some(Line::Text(b"three".to_vec()))
        );
        assert_eq!(read_line(&mut input).ok(), Some(Line::End));
        let mut big = vec![b'x'; MAX_LINE_BYTES + 10];
        big.extend_from_slice(b"\nafter\n");
        let mut input = io::BufReader::new(io::Cursor::new(big));
        assert_eq!(read_line(&mut input).ok(), Some(Line::TooLong));
        assert_eq!(
            read_line(&mut input).ok(),
            Some(Line::Text(b"after".to_vec()))
        );
    }
}

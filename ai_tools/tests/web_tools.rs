//! Web tools against a real loopback HTTP server started in the test.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a failed unwrap is a failed test.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ai_tools::{CancelToken, Decision, Mode, Registry, RegistryConfig, ToolError, Workspace};
use serde_json::json;

const PAGE: &str =
    "<!doctype html><html><head><title>Koi docs</title><style>body{color:red}</style></head>\
<body><h1>Hello koi</h1><p>First <b>para</b> with <a href=\"/x\">a link</a>.</p>\
<ul><li>one</li><li>two</li></ul><script>alert('x')</script></body></html>";

/// How many `/hang` requests have reached the server: the cancel test
/// cancels once its fetch is in flight, not after a guessed pause.
static HANGING: AtomicUsize = AtomicUsize::new(0);

fn handle(mut stream: TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let mut content_length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            content_length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; content_length];
    let _ = reader.read_exact(&mut body);
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let respond = |stream: &mut TcpStream, status: &str, ctype: &str, body: &[u8], extra: &str| {
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n",
            body.len()
        );
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(body);
    };
    match path.as_str() {
        "/page" => respond(
            &mut stream,
            "200 OK",
            "text/html; charset=utf-8",
            PAGE.as_bytes(),
            "",
        ),
        "/echo" => {
            let text = format!("method={method} body={}", String::from_utf8_lossy(&body));
            respond(
                &mut stream,
                "201 Created",
                "text/plain",
                text.as_bytes(),
                "X-Test: yes\r\n",
            );
        }
        "/redirect" => respond(
            &mut stream,
            "302 Found",
            "text/plain",
            b"",
            "Location: /page\r\n",
        ),
        "/big" => respond(
            &mut stream,
            "200 OK",
            "text/plain",
            &vec![b'a'; 6 * 1024 * 1024],
            "",
        ),
        "/hang" => {
            HANGING.fetch_add(1, Ordering::SeqCst);
            // Then hang up without an answer: a fetch that ignored cancel
            // would end with a network error, not `Cancelled`.
            std::thread::sleep(Duration::from_secs(30));
        }
        _ => respond(&mut stream, "404 Not Found", "text/plain", b"nope", ""),
    }
}

fn server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || handle(stream));
        }
    });
    format!("http://{addr}")
}

fn registry() -> (tempfile::TempDir, Registry) {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::new(dir.path()).unwrap();
    (dir, Registry::standard(RegistryConfig::new(ws)))
}

#[test]
fn fetch_converts_html_to_text() {
    let base = server();
    let (_dir, reg) = registry();
    let out = reg
        .run(
            "web_fetch",
            &json!({"url": format!("{base}/page")}),
            &CancelToken::new(),
        )
        .unwrap();
    assert!(out.for_model.contains("Hello koi"), "{}", out.for_model);
    assert!(out.for_model.contains("para"));
    assert!(out.for_model.contains("one") && out.for_model.contains("two"));
    assert!(
        !out.for_model.contains("<h1>") && !out.for_model.contains("<p>"),
        "{}",
        out.for_model
    );
    assert!(out.for_model.contains("HTTP 200"));
    assert!(out.preview.contains("200"));
    // Redirects are followed.
    let out = reg
        .run(
            "web_fetch",
            &json!({"url": format!("{base}/redirect")}),
            &CancelToken::new(),
        )
        .unwrap();
    assert!(out.for_model.contains("Hello koi"));
}

#[test]
fn fetch_is_size_limited() {
    let base = server();
    let (_dir, reg) = registry();
    let out = reg
        .run(
            "web_fetch",
            &json!({"url": format!("{base}/big")}),
            &CancelToken::new(),
        )
        .unwrap();
    assert!(out.for_model.contains("longer than the download limit"));
    assert!(out.for_model.contains("cut from the middle"));
    assert!(out.for_model.chars().count() < 21_000);
}

#[test]
fn fetch_ends_on_cancel_while_the_server_hangs() {
    let base = server();
    let (_dir, reg) = registry();
    let cancel = CancelToken::new();
    std::thread::scope(|s| {
        let h = s.spawn(|| {
            reg.run(
                "web_fetch",
                &json!({"url": format!("{base}/hang")}),
                &cancel,
            )
        });
        while HANGING.load(Ordering::SeqCst) == 0 {
            assert!(!h.is_finished(), "the fetch ended before the server saw it");
            std::thread::sleep(Duration::from_millis(10));
        }
        cancel.cancel();
        // The server never answers, so ending with `Cancelled` is cancel's
        // doing (no threshold on how fast: a loaded machine would trip it).
        let r = h.join().unwrap();
        assert!(matches!(r, Err(ToolError::Cancelled)), "{r:?}");
    });
}

#[test]
fn http_request_sends_method_headers_body() {
    let base = server();
    let (_dir, reg) = registry();
    let args = json!({"method": "post", "url": format!("{base}/echo"), "headers": {"X-A": "1"}, "body": "{\"k\":1}"});
    assert!(matches!(
        reg.decide("http_request", &args, Mode::Default),
        Decision::Ask { .. }
    ));
    let out = reg.run("http_request", &args, &CancelToken::new()).unwrap();
    assert!(out.for_model.contains("HTTP 201"), "{}", out.for_model);
    assert!(out.for_model.contains("x-test: yes"));
    assert!(out.for_model.contains("method=POST body={\"k\":1}"));
    let out = reg
        .run(
            "http_request",
            &json!({"method": "GET", "url": format!("{base}/missing")}),
            &CancelToken::new(),
        )
        .unwrap();
    assert!(out.for_model.contains("HTTP 404"));
}

#[test]
fn bad_urls_are_rejected() {
    let (_dir, reg) = registry();
    let err = reg
        .run(
            "web_fetch",
            &json!({"url": "file:///etc/passwd"}),
            &CancelToken::new(),
        )
        .unwrap_err();
    assert!(err.to_string().contains("only http and https"), "{err}");
    let err = reg
        .run(
            "web_fetch",
            &json!({"url": "not a url"}),
            &CancelToken::new(),
        )
        .unwrap_err();
    assert!(err.to_string().contains("bad url"), "{err}");
    let err = reg
        .run(
            "web_fetch",
            &json!({"url": "http://127.0.0.1:1/"}),
            &CancelToken::new(),
        )
        .unwrap_err();
    assert!(err.to_string().contains("request failed"), "{err}");
}

/// What each mode decides for a call, in [`Mode::ALL`]'s order, as
/// `allow`, `ask` or `deny`.
fn decisions(reg: &Registry, args: &serde_json::Value) -> Vec<&'static str> {
    Mode::ALL
        .iter()
        .map(|m| match reg.decide("http_request", args, *m) {
            Decision::Allow => "allow",
            Decision::Ask { .. } => "ask",
            Decision::Deny { .. } => "deny",
        })
        .collect()
}

#[test]
fn a_get_with_a_body_or_a_method_override_is_not_a_read() {
    let (_dir, reg) = registry();
    // A public URL, so that only the method decides (a local one asks anyway).
    let url = "https://api.example.com/items/7";
    // Mode::ALL: default, accept-edits, plan, dont-ask, bypass.
    let read = ["allow", "allow", "allow", "allow", "allow"];
    let write = ["ask", "ask", "deny", "deny", "allow"];
    for method in ["GET", "get", "HEAD"] {
        let plain =
            json!({"method": method, "url": url, "headers": {"Accept": "application/json"}});
        assert_eq!(decisions(&reg, &plain), read, "{plain}");
        assert_eq!(
            decisions(&reg, &json!({"method": method, "url": url, "body": ""})),
            read
        );
        let with_body = json!({"method": method, "url": url, "body": "{\"delete\":true}"});
        assert_eq!(decisions(&reg, &with_body), write, "{with_body}");
        for header in [
            "X-HTTP-Method-Override",
            "x-http-method-override",
            "X-HTTP-METHOD",
            "x-method-override",
            " X-Method-Override ",
        ] {
            let args = json!({"method": method, "url": url, "headers": {header: "DELETE"}});
            assert_eq!(decisions(&reg, &args), write, "{args}");
        }
    }
    // The prompt names what the request would really do.
    let args =
        json!({"method": "GET", "url": url, "headers": {"X-HTTP-Method-Override": "delete"}});
    match reg.decide("http_request", &args, Mode::Default) {
        Decision::Ask { summary, .. } => assert!(
            summary.contains("DELETE (a GET with X-HTTP-Method-Override: delete)"),
            "{summary}"
        ),
        other => panic!("{other:?}"),
    }
    match reg.decide("http_request", &args, Mode::Plan) {
        Decision::Deny { reason } => assert!(reason.contains("DELETE"), "{reason}"),
        other => panic!("{other:?}"),
    }
    // Other methods were writes already.
    let post = json!({"method": "POST", "url": url});
    assert_eq!(decisions(&reg, &post), write);
}

//! One writer per conversation between real `k` processes, `--fork`, and
//! a session log the kernel will not let grow.

use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

use ai_chat_engine::store::session_log::{read_log, Entry};
use koi_testkit::openai_chat::ChatStream;
use koi_testkit::FakeProvider;

use crate::common::{Home, PtyRun, K};

/// The model asks to run a command (which needs approval), then answers,
/// for `requests` requests.
fn ask_to_run(command: &str, requests: usize) -> FakeProvider {
    let command = command.to_string();
    FakeProvider::start_with(requests, move |req, _| {
        if req.body_str().contains("\"role\":\"tool\"") {
            ChatStream::new().text("Finished.").stop().reply()
        } else {
            ChatStream::new()
                .text("Running it.")
                .tool_call(
                    "c1",
                    "shell_exec",
                    &serde_json::json!({ "command": command, "escalate": true, "reason": "it writes" })
                        .to_string(),
                )
                .tool_calls()
                .reply()
        }
    })
}

#[test]
fn a_second_k_is_refused_by_name_and_fork_continues_a_copy() {
    let server = ask_to_run("touch approved", 6);
    let home = Home::new(Some(&server));
    let mut first = PtyRun::start(&home, &["run it"], &[]);
    first.wait_for("[y/N]", Duration::from_secs(30));
    let id = home.session_files()[0]
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let holder = first.child.process_id().unwrap();

    // Naming it: refused, with the holder and the way out.
    let second = home.run(&["--resume", &id, "hello"], None);
    assert_ne!(second.code, 0);
    assert!(
        second.stderr.contains(&format!("open in k, pid {holder}")),
        "{}",
        second.stderr
    );
    assert!(second.stderr.contains("--fork"), "{}", second.stderr);

    // By default: a note, and a new conversation instead.
    let auto = home.run(&["hello"], None);
    assert_eq!(auto.code, 0, "{}", auto.stderr);
    assert!(
        auto.stderr
            .contains(&format!("({id}) is open in k, pid {holder}")),
        "{}",
        auto.stderr
    );
    assert_eq!(home.session_files().len(), 2);

    // Fork: a copy under a new id, its log saying where it came from.
    let fork = home.run(&["--fork", &id, "--json", "carry on"], None);
    assert_eq!(fork.code, 0, "{}", fork.stderr);
    let session = &fork.events()[0];
    let new_id = session["id"].as_str().unwrap().to_string();
    assert_ne!(new_id, id);
    let log = read_log(&home.sessions_dir().join(format!("{new_id}.jsonl"))).unwrap();
    assert!(matches!(
        &log.records[0].entry,
        Entry::Meta { forked_from: Some(o), .. } if o.session == id
    ));
    // The call the original is asking about is not run in the copy.
    assert!(!home.ws().join("approved").exists());

    first.answer("y");
    assert_eq!(
        first.wait_exit(Duration::from_secs(30)),
        0,
        "{}",
        first.text()
    );
    assert!(home.ws().join("approved").exists());
    // Once the first is gone, the conversation opens again.
    let again = home.run(&["--resume", &id, "thanks"], None);
    assert_eq!(again.code, 0, "{}", again.stderr);
}

/// Whether this kernel lets us make a user and mount namespace.
fn namespaces_work() -> bool {
    Command::new("unshare")
        .args(["-rm", "true"])
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn a_log_on_a_full_filesystem_refuses_the_next_tool_call() {
    if !namespaces_work() {
        // Recorded: this host cannot run the test, it did not pass.
        koi_testkit::skip::skip(
            koi_testkit::skip::USERNS,
            "a_log_on_a_full_filesystem_refuses_the_next_tool_call",
            "`unshare -rm` (user + mount namespace) is not available here",
        );
        return;
    }
    // The start record of this call is longer than a page, so it needs a
    // new block on the (by then full) filesystem.
    let padding = "x".repeat(6000);
    let server = ask_to_run(&format!("touch ran # {padding}"), 1);
    let home = Home::new(Some(&server));
    let sessions = home.sessions_dir();
    std::fs::create_dir_all(&sessions).unwrap();
    let marker = home.root().join("pause.mark");
    // A small tmpfs over the sessions directory, in namespaces of k's own.
    let script = r#"mount -t tmpfs -o size=256k tmpfs "$1" && shift && exec "$@""#;
    let mut cmd = Command::new("unshare");
    cmd.args(["-rm", "sh", "-c", script, "sh"])
        .arg(&sessions)
        .arg(K)
        .args(["--mode", "bypass", "--no-stdin", "run it"])
        .current_dir(home.ws())
        .env_clear()
        .envs(home.env())
        .env("KOI_TEST_PAUSE_AT", "committed#1")
        .env("KOI_TEST_PAUSE_FILE", &marker)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !marker.exists() {
        assert!(Instant::now() < deadline, "k never reached the commit");
        assert!(child.try_wait().unwrap().is_none(), "k ended early");
        std::thread::sleep(Duration::from_millis(10));
    }
    // Fill k's tmpfs, seen through k's own root.
    let inside = format!("/proc/{}/root{}", child.id(), sessions.display());
    let mut filler = std::fs::File::create(format!("{inside}/filler")).unwrap();
    let block = vec![0u8; 4096];
    let full = loop {
        if let Err(e) = filler.write_all(&block) {
            break e;
        }
    };
    assert_eq!(full.raw_os_error(), Some(libc::ENOSPC), "{full}");
    drop(filler);
    std::fs::remove_file(&marker).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("session log") && stderr.contains("No space left"),
        "a clear error: {stderr}"
    );
    assert!(!home.ws().join("ran").exists(), "the tool ran anyway");
    assert_eq!(server.requests().len(), 1, "the turn stopped at the start");
}

//! `k fix`: inside a real koi session (koi's `koi_terminal::Session`: a PTY, its
//! reader thread, the shell integration, the per-session token) it gets
//! the last command block from koi; outside it says there is no record;
//! piped, it asks about the pipe. Nothing is run again.

use std::time::{Duration, Instant};

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::{FakeProvider, Reply};

use crate::common::{koi_session, message_texts, screen, wait_until, Home, PtyRun};

const WAIT: Duration = Duration::from_secs(60);

fn fix_answer() -> Reply {
    ChatStream::new()
        .text(
            "The path does not exist. Create it first:\n\n```sh\nmkdir -p /tmp/made-by-fix\n```\n",
        )
        .stop()
        .reply()
}

/// The user message of the one request, which must be the fix question.
fn fix_request(server: &FakeProvider) -> String {
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1, "one request");
    let users = message_texts(&reqs[0].json(), "user");
    let last = users.last().unwrap().clone();
    assert!(
        last.starts_with("<untrusted-data kind=\"command-output\" label=\"failed command\">"),
        "{last}"
    );
    assert!(last.contains("What is the cause"), "{last}");
    last
}

#[test]
fn outside_koi_k_fix_says_there_is_no_record_and_how_to_pipe() {
    let home = Home::new(None);
    let mut run = PtyRun::start(&home, &["fix"], &[]);
    assert_eq!(run.wait_exit(WAIT), 2);
    let text = run.text();
    assert!(text.contains("no record of the last command"), "{text}");
    assert!(text.contains("cmd 2>&1 | k fix"), "{text}");
}

#[test]
fn piped_output_is_what_k_fix_asks_about() {
    let server = FakeProvider::start([fix_answer()]);
    let home = Home::new(Some(&server));
    let output = "mkdir: cannot create directory '/x/y': No such file or directory\n";
    let run = home.run(&["fix"], Some(output));
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert!(
        run.stdout.contains("mkdir -p /tmp/made-by-fix"),
        "{}",
        run.stdout
    );
    let user = fix_request(&server);
    assert!(
        user.contains("[exit status unknown]\nmkdir: cannot create directory"),
        "{user}"
    );
    assert!(!user.contains("\n$ "), "no command line was piped: {user}");

    let home = Home::new(None);
    let run = home.run(&["fix"], Some(""));
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("piped input is empty"),
        "{}",
        run.stderr
    );
}

#[test]
fn inside_koi_k_fix_gets_the_last_block_through_the_token_channel() {
    let server = FakeProvider::start([fix_answer()]);
    let home = Home::new(Some(&server));
    let s = koi_session(&home);
    s.write("ls /nonexistent\n");
    let deadline = Instant::now() + WAIT;
    while s
        .last_command()
        .is_none_or(|l| l.command != "ls /nonexistent")
    {
        assert!(
            Instant::now() < deadline,
            "no block; screen:\n{}",
            screen(&s)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Quoted apart, so the typed line is not taken for the output.
    s.write("k fix; echo \"k-exit\"=$?\n");
    let text = wait_until(&s, "k's exit", |t| t.contains("k-exit="));
    assert!(text.contains("k-exit=0"), "{text}");
    assert!(text.contains("mkdir -p /tmp/made-by-fix"), "{text}");
    assert_eq!(
        text.matches("cannot access").count(),
        1,
        "the command ran once, never again: {text}"
    );
    let user = fix_request(&server);
    assert!(
        user.contains("$ ls /nonexistent\n[exit status 2]\n"),
        "{user}"
    );
    assert!(user.contains("No such file or directory"), "{user}");
    // koi's reply was read by k, never typed at the prompt.
    assert!(!text.contains("7717"), "{text}");
    s.write("exit\n");
    s.wait_exit(Some(WAIT)).unwrap();
}

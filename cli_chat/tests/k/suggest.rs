//! `k --suggest "words"`: one command on stdout, nothing saved, nothing
//! run; and koi's bash integration using it where koi is not the
//! terminal (here tmux), with `#` at the prompt.

use std::path::Path;
use std::time::{Duration, Instant};

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::FakeProvider;

use crate::common::{Home, Tmux, K};

#[test]
fn suggest_prints_one_command_and_saves_nothing() {
    let server = FakeProvider::start([ChatStream::new()
        .text("```sh\nfind . -size +100M -mtime -7\n```")
        .stop()
        .reply()]);
    let home = Home::new(Some(&server));
    let run = home.run(&["--suggest", "big files this week"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "find . -size +100M -mtime -7\n");
    run.assert_no_secret();
    let body = String::from_utf8_lossy(&server.requests()[0].body).into_owned();
    assert!(body.contains("request: big files this week"), "{body}");
    assert!(
        home.session_files().is_empty(),
        "a suggestion saves no session"
    );
}

#[test]
fn suggest_without_words_is_a_usage_error() {
    let home = Home::new(None);
    let run = home.run(&["--suggest", " "], None);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stdout, "");
}

fn wait(t: &Tmux, what: &str, f: impl Fn(&str) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !f(&t.screen()) {
        assert!(
            Instant::now() < deadline,
            "never saw {what}; screen:\n{}",
            t.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn hash_at_a_bash_prompt_under_tmux_uses_k_suggest() {
    let server = FakeProvider::start([ChatStream::new().text("touch SENTINEL").stop().reply()]);
    let home = Home::new(Some(&server));
    let k_dir = Path::new(K).parent().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/shell/koi.bash");
    let rc = home.root().join("bashrc");
    // The manual snippet for shells koi did not start.
    std::fs::write(
        &rc,
        format!(
            "PS1='$ '\nPATH='{}':\"$PATH\"\nsource '{}'\n",
            k_dir.display(),
            script.display()
        ),
    )
    .unwrap();
    let t = Tmux::start_cmd(&home, &format!("bash --rcfile '{}' -i", rc.display()));
    wait(&t, "the prompt", |s| s.lines().any(|l| l.trim_end() == "$"));
    t.type_line("# make a sentinel file");
    wait(&t, "the suggestion", |s| {
        s.lines().any(|l| l.trim_end() == "$ touch SENTINEL")
    });
    std::thread::sleep(Duration::from_millis(300));
    let sentinel = home.ws().join("SENTINEL");
    assert!(!sentinel.exists(), "the suggestion ran before Enter");
    t.keys(&["Enter"]);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !sentinel.exists() {
        assert!(
            Instant::now() < deadline,
            "Enter did not run it:\n{}",
            t.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

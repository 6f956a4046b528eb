//! `k --suggest "words"`: one command on stdout, nothing saved, nothing
//! run; and koi's bash integration using it where koi is not the
//! terminal (here tmux), with `#` at the prompt.

use std::path::Path;
use std::time::{Duration, Instant};

use koi_testkit::openai_chat::ChatStream;
use koi_testkit::shells::Shell;
use koi_testkit::FakeProvider;

use koi_testkit::tmux::Tmux;

use crate::common::{tmux_cmd, Home, K};

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

/// A model that starts on a command, then stalls with the stream open.
fn stalling_model() -> FakeProvider {
    FakeProvider::start([ChatStream::new()
        .text("touch PARTIAL")
        .text("_AND_MORE")
        .stop()
        .reply()
        .hang_after(2)])
}

/// Starting one of koi's shells in tmux the manual way (koi did not
/// start it), with its snippet sourced.
trait InTmux {
    fn start(self, home: &Home) -> Tmux;
}

impl InTmux for Shell {
    /// The shell in tmux with koi's snippet in its rc file and `k` on
    /// its PATH, at its prompt.
    fn start(self, home: &Home) -> Tmux {
        let k_dir = Path::new(K).parent().unwrap().display().to_string();
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../assets/shell")
            .join(format!("koi.{}", self.program()));
        let script = script.display();
        let (rc, text, command) = match self {
            Shell::Bash => {
                let rc = home.root().join("bashrc");
                let command = format!("bash --rcfile '{}' -i", rc.display());
                let text = format!("PS1='$ '\nPATH='{k_dir}':\"$PATH\"\nsource '{script}'\n");
                (rc, text, command)
            }
            Shell::Zsh => (
                home.root().join(".zshrc"),
                format!("PS1='%% '\nPATH='{k_dir}':\"$PATH\"\nsource '{script}'\n"),
                "zsh -i".to_owned(),
            ),
            Shell::Fish => (
                home.root().join("config/fish/config.fish"),
                format!(
                    "function fish_prompt; printf '> '; end\nfunction fish_greeting; end\n\
                     set PATH '{k_dir}' $PATH\nsource '{script}'\n"
                ),
                "fish".to_owned(),
            ),
        };
        std::fs::create_dir_all(rc.parent().unwrap()).unwrap();
        std::fs::write(&rc, text).unwrap();
        let t = tmux_cmd(home, &command);
        wait(&t, "the prompt", |s| {
            s.lines().any(|l| l.trim_end() == self.prompt().trim_end())
        });
        t
    }
}

/// Waits for the model's first request, then a little for its first
/// chunks to reach `k`.
fn wait_mid_stream(server: &FakeProvider, t: &Tmux) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while server.request_count() == 0 {
        assert!(Instant::now() < deadline, "no request:\n{}", t.screen());
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
}

#[test]
fn hash_at_a_bash_prompt_under_tmux_uses_k_suggest() {
    let server = FakeProvider::start([ChatStream::new().text("touch SENTINEL").stop().reply()]);
    let home = Home::new(Some(&server));
    let t = Shell::Bash.start(&home);
    t.type_line("# make a sentinel file");
    wait(&t, "the suggestion", |s| {
        s.lines().any(|l| l.trim_end() == "$ touch SENTINEL")
    });
    // Not run before Enter, proven by an event rather than a pause: a word
    // typed now joins the same line, still the last one on the screen (a
    // line that ran would have a fresh prompt after it), and Enter then
    // runs the one command that makes both files.
    t.keys(&["-l", " HELD"]);
    wait(&t, "the typed word on the suggested line", |s| {
        s.lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(str::trim_end)
            == Some("$ touch SENTINEL HELD")
    });
    let sentinel = home.ws().join("SENTINEL");
    let held = home.ws().join("HELD");
    assert!(
        !sentinel.exists() && !held.exists(),
        "the suggestion ran before Enter"
    );
    t.keys(&["Enter"]);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !(sentinel.exists() && held.exists()) {
        assert!(
            Instant::now() < deadline,
            "Enter did not run it:\n{}",
            t.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Longest Ctrl+C may take to end `k --suggest`: the model stalls for a
/// minute, so an exit inside this is the cancel's doing.
const CANCEL_WAIT: Duration = Duration::from_secs(10);

#[test]
fn ctrl_c_under_tmux_cancels_a_suggestion_mid_stream() {
    let server = stalling_model();
    let home = Home::new(Some(&server));
    let t = tmux_cmd(&home, "bash --norc --noprofile -i");
    // Quotes split the words waited for, so the typed line is not taken
    // for the output.
    t.type_line("PS1='$ '; stty -g > tty.before");
    wait(&t, "the prompt", |s| s.lines().any(|l| l.trim_end() == "$"));
    let out = home.ws().join("suggest.out");
    t.type_line(&format!(
        "'{K}' --suggest 'make a file' > suggest.out; echo \"k-exit\"=\"$?\"; \
         stty -g | cmp -s - tty.before && echo tty''-same"
    ));
    wait_mid_stream(&server, &t);
    let pressed = Instant::now();
    t.keys(&["C-c"]);
    wait(&t, "k's exit status", |s| s.contains("k-exit="));
    let took = pressed.elapsed();
    assert!(took < CANCEL_WAIT, "k took {took:?} to stop");
    let screen = t.screen();
    assert!(screen.contains("k-exit=130"), "{screen}");
    assert!(!screen.contains("PARTIAL"), "a partial command: {screen}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "", "stdout");
    // The terminal as the shell left it, and the prompt back for the
    // next command.
    wait(&t, "the tty unchanged", |s| s.contains("tty-same"));
    t.type_line("echo after''wards");
    wait(&t, "the shell taking commands", |s| {
        s.lines().any(|l| l.trim_end() == "afterwards")
    });
}

#[test]
fn ctrl_c_on_a_hash_line_under_tmux_gives_the_line_back() {
    for shell in Shell::ALL {
        if !shell.runs_for("ctrl_c_on_a_hash_line_under_tmux_gives_the_line_back") {
            continue;
        }
        ctrl_c_gives_the_line_back(shell);
    }
}

fn ctrl_c_gives_the_line_back(shell: Shell) {
    let server = stalling_model();
    let home = Home::new(Some(&server));
    let t = shell.start(&home);
    t.type_line("# make a file");
    wait_mid_stream(&server, &t);
    let pressed = Instant::now();
    t.keys(&["C-c"]);
    // The line back in the shell's buffer, editable: a key typed on it.
    t.keys(&["-l", "X"]);
    let line = format!("{}# make a fileX", shell.prompt());
    wait(&t, "the line back", |s| {
        s.lines().any(|l| l.trim_end() == line)
    });
    let took = pressed.elapsed();
    assert!(
        took < CANCEL_WAIT,
        "{shell:?} took {took:?} to give it back"
    );
    assert!(!t.screen().contains("PARTIAL"), "{shell:?}: {}", t.screen());
    // Nothing ran, and the shell still runs what it is given.
    t.keys(&["C-u"]);
    t.type_line("echo after''wards");
    wait(&t, "the shell taking commands", |s| {
        s.lines().any(|l| l.trim_end() == "afterwards")
    });
}

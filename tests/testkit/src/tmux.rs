//! A program on a real terminal that tmux emulates: typed keys in, the
//! screen out, as a person at that terminal sees it. Each driver runs its
//! own tmux server (a socket of its own), killed when it is dropped, so
//! tests side by side never see each other's panes.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The one session each server runs.
const SESSION: &str = "k";
/// How long [`Tmux::wait_for`] waits: a model turn on a loaded machine.
const WAIT: Duration = Duration::from_secs(60);
/// How much scrollback [`Tmux::screen`] includes.
const HISTORY_LINES: &str = "-200";

/// A tmux server on its own socket running one command in one pane.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Runs the shell command line (or script) `command` in `dir` with
    /// `env` exported,
    /// on a `cols`×`rows` terminal. `TERM` is tmux's own, whatever `env`
    /// says. Fails the test when tmux is missing.
    pub fn start(
        dir: &Path,
        env: &[(String, String)],
        command: &str,
        cols: u16,
        rows: u16,
    ) -> Tmux {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let socket = format!(
            "koi-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let assignments: Vec<String> = env
            .iter()
            .filter(|(k, _)| k != "TERM")
            .map(|(k, v)| format!("{k}='{v}'"))
            .collect();
        // tmux runs the line with its shell: `command` may be a script.
        let exports = if assignments.is_empty() {
            String::new()
        } else {
            format!("export {} && ", assignments.join(" "))
        };
        let line = format!("cd '{}' && {exports}{command}", dir.display());
        let (cols, rows) = (cols.to_string(), rows.to_string());
        let started = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", &cols, "-y", &rows, "-s", SESSION, &line])
            .status()
            .expect("tmux runs (apt-get install tmux; scripts/deps installs it)");
        assert!(started.success(), "tmux new-session failed");
        Tmux { socket }
    }

    /// Runs tmux `args` against this server.
    pub fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    /// The pane's text with some scrollback above it.
    pub fn screen(&self) -> String {
        let out = self.tmux(&["capture-pane", "-p", "-t", SESSION, "-S", HISTORY_LINES]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The visible pane only; with `escapes`, its colours and attributes
    /// as SGR sequences.
    pub fn pane(&self, escapes: bool) -> String {
        let mut args = vec!["capture-pane", "-p", "-t", SESSION];
        if escapes {
            args.push("-e");
        }
        String::from_utf8_lossy(&self.tmux(&args).stdout).into_owned()
    }

    /// Sends `keys` as tmux `send-keys` words (`C-c`, `Enter`, or `-l`
    /// followed by literal text).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", SESSION];
        args.extend(keys);
        assert!(self.tmux(&args).status.success(), "tmux send-keys {keys:?}");
    }

    /// Types `text` literally, then Enter.
    pub fn type_line(&self, text: &str) {
        self.keys(&["-l", text]);
        self.keys(&["Enter"]);
    }

    /// Waits until `needle` shows `count` times on the screen.
    pub fn wait_for(&self, needle: &str, count: usize) {
        crate::poll::until(&format!("{needle:?} x{count}"), WAIT, || {
            let screen = self.screen();
            if screen.matches(needle).count() >= count {
                Ok(())
            } else {
                Err(format!("screen:\n{screen}"))
            }
        });
    }

    /// Whether the command still runs (its session is there).
    pub fn alive(&self) -> bool {
        self.tmux(&["has-session", "-t", SESSION]).status.success()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

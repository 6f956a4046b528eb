//! koi with its assistant pointed at a [`FakeProvider`]: the config, the
//! panel's live text (`--dump-on-exit`'s PATH.overlay, kept current while
//! koi runs) and the session logs, so tests wait for what happened instead
//! of sleeping.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{Koi, TestConfig, Xvfb};
use crate::poll::eventually;
use crate::FakeProvider;

/// How long a test waits for the engine, the model or the panel.
pub const MODEL_WAIT: Duration = Duration::from_secs(30);

/// How long koi gets to exit once its shell has.
pub const EXIT_WAIT: Duration = Duration::from_secs(30);
/// How long the pixels may take to show what the dump already says: a
/// frame or two, and tesseract's own second on a loaded machine.
const OCR_WAIT: Duration = Duration::from_secs(15);

/// Writes a 100×30 [`TestConfig`] with its assistant on `server` where
/// koi and `k` both read it when started with the harness's environment:
/// `dir/xdg/koi/koi.toml`.
pub fn write_ai_config(dir: &Path, server: &FakeProvider) -> PathBuf {
    let path = config_path(dir);
    TestConfig::new(100, 30).ai(server).write(&path);
    path
}

/// Where koi and `k` read the harness's config: `dir/xdg/koi/koi.toml`.
fn config_path(dir: &Path) -> PathBuf {
    dir.join("xdg/koi/koi.toml")
}

/// Where the harness's koi (and a `k` given [`Scene::k_env`]) keep their
/// session logs.
pub fn sessions_dir(dir: &Path) -> PathBuf {
    dir.join("xdg-data/koi/sessions")
}

/// Every session log's text (not the `.lock` sidecars), by file name.
pub fn session_logs(dir: &Path) -> Vec<(String, String)> {
    crate::session_logs::texts(&sessions_dir(dir))
}

/// How many entries of `kind` (`turn_end`, `approval_asked`, …) all logs hold.
pub fn log_count(dir: &Path, kind: &str) -> usize {
    crate::session_logs::count(&sessions_dir(dir), kind)
}

/// Every logged entry of `kind`, parsed.
pub fn log_entries(dir: &Path, kind: &str) -> Vec<serde_json::Value> {
    crate::session_logs::entries(&sessions_dir(dir), kind)
}

/// The panel as koi last wrote it: `overlay: open|closed`, then its text.
pub fn read_overlay(dump: &Path) -> String {
    let mut path = dump.as_os_str().to_owned();
    path.push(".overlay");
    std::fs::read_to_string(Path::new(&path)).unwrap_or_default()
}

/// Whether the panel is open and idle: no turn running (its title says
/// "working" while one does).
pub fn panel_idle(overlay: &str) -> bool {
    let mut lines = overlay.lines();
    lines.next() == Some("overlay: open") && lines.next().is_some_and(|t| !t.contains(" working"))
}

/// koi under Xvfb with a shell, configured to talk to `server`. Fields
/// drop in order: koi before its X server.
pub struct Scene {
    pub koi: Koi,
    pub x: Xvfb,
    pub dir: tempfile::TempDir,
    pub server: FakeProvider,
}

impl Scene {
    /// koi with a shell in a fresh directory, talking to `server`; `extra`
    /// are more koi arguments, `env` more environment for koi and its shell.
    pub fn start(server: FakeProvider, extra: &[&str], env: &[(&str, String)]) -> Scene {
        let config = TestConfig::new(100, 30).ai(&server);
        Scene::start_configured(server, config, extra, env)
    }

    /// [`Scene::start`] with `config` (made with [`TestConfig::ai`] on
    /// `server`) instead of the default one.
    pub fn start_configured(
        server: FakeProvider,
        config: TestConfig,
        extra: &[&str],
        env: &[(&str, String)],
    ) -> Scene {
        let x = Xvfb::start();
        let dir = tempfile::tempdir().expect("a temporary directory");
        let config = {
            let path = config_path(dir.path());
            config.write(&path);
            path
        };
        let koi = Koi::start_with_env(&x, dir.path(), &config, extra, env);
        Scene {
            koi,
            x,
            dir,
            server,
        }
    }

    /// The panel's text now.
    pub fn overlay(&self) -> String {
        read_overlay(&self.koi.dump)
    }

    /// Waits until the panel's text satisfies `f`; a failure shows it.
    pub fn wait_for_panel(&self, what: &str, f: impl Fn(&str) -> bool) {
        crate::poll::until(what, MODEL_WAIT, || {
            let text = self.overlay();
            if f(&text) {
                Ok(())
            } else {
                Err(format!("the panel:\n{text}"))
            }
        });
    }

    /// Waits until the window's pixels, read by OCR ([`super::ocr`]), show
    /// each of `texts` (words in order; case and punctuation aside). A
    /// machine without tesseract records a skip for `test` instead.
    pub fn assert_reads(&self, test: &str, texts: &[&str]) {
        crate::poll::until(&format!("{texts:?} on the screen"), OCR_WAIT, || {
            let shot = self.x.screenshot(&self.koi.window);
            match super::ocr::read(&shot, test) {
                None => Ok(()), // no tesseract: the skip is recorded
                Some(read) if texts.iter().all(|t| super::ocr::shows(&read, t)) => Ok(()),
                Some(read) => Err(format!("tesseract read:\n{read}")),
            }
        });
    }

    /// Opens the panel and asks `question`; returns once the model has it.
    pub fn ask(&self, question: &str) {
        let before = self.server.request_count();
        self.koi.keys(&self.x, "ctrl+shift+l");
        self.koi.type_text(&self.x, question);
        self.koi.keys(&self.x, "Return");
        assert!(
            self.server.wait_for_requests(before + 1, MODEL_WAIT),
            "the engine never asked the model"
        );
    }

    /// Waits until `n` turns have ended (the engine logs each end before
    /// the panel hears of it) and the panel shows it: keys sent after this
    /// reach an idle panel.
    pub fn wait_for_turns(&self, n: usize) {
        eventually(&format!("{n} finished turns"), MODEL_WAIT, || {
            log_count(self.dir.path(), "turn_end") >= n
        });
        self.wait_for_panel("the panel to show the turn ended", panel_idle);
    }

    /// Closes the panel (the turn has ended) and leaves the shell; returns
    /// the panel's text as koi last drew it, and the model (for its
    /// requests).
    pub fn close_and_exit(self) -> (String, FakeProvider) {
        self.koi.keys(&self.x, "Escape");
        // The shell gets the keys once the panel is gone.
        self.wait_for_panel("the panel to close", |o| o.starts_with("overlay: closed"));
        self.koi.type_line(&self.x, "exit 0");
        let (code, stderr, dump) = self.koi.wait(EXIT_WAIT);
        assert_eq!(code, Some(0), "{stderr}");
        (read_overlay(&dump), self.server)
    }
}

//! `#` at the prompt, koi's side: a request from a pane's shell
//! ([`koi_terminal::prompt_suggest`]) starts one engine call in the `suggest`
//! profile on a thread of its own; the pane's last row says "thinking…",
//! then the policy's verdict on the command. While the shell waits for
//! the answer it reads no keys of its own (bash runs a `bind -x` handler,
//! zsh and fish a widget), so koi holds the pane's keys back: Esc or
//! Ctrl+C cancels, answers "cancelled", and the shell keeps its line.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ai_chat_engine::suggest::{self, SuggestContext};
use ai_chat_engine::{CancelHandle, Engine, Front};
use ai_tools::Mode;
use crossbeam_channel::{Receiver, Sender};
use parking_lot::Mutex;
use render::{Color, OverlayLayer, OverlayRect, Part, Span, StyledLine};

use super::assistant::{engine_builder, SharedAiTables};
use super::layout::PaneId;
use koi_terminal::input::{Key, KeyAction};
use koi_terminal::prompt_suggest::{Outcome, SuggestRequest};

/// A suggestion slower than this is not worth waiting for at a prompt;
/// the shell gets its line back.
const SUGGEST_TIMEOUT: Duration = Duration::from_secs(120);

/// With this set to a file, koi appends a line per answered suggestion:
/// `NONCE STATUS TOTAL_MS MODEL_MS`, from the request reaching koi to the
/// answer written back, and the engine call's share of it (benchmarks
/// and tests: the shell's redraw is not otherwise visible).
pub const TRACE_ENV: &str = "KOI_SUGGEST_TRACE";

/// What a pane's status bar says about its suggestion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Thinking,
    /// The command is at the prompt; the policy's verdict on it.
    Suggested {
        verdict: String,
    },
    Failed(String),
    Cancelled,
}

impl Status {
    /// The bar's one line.
    pub fn text(&self) -> String {
        match self {
            Status::Thinking => "# thinking… (Esc cancels)".to_owned(),
            Status::Suggested { verdict } => format!("# suggested: {verdict}"),
            Status::Failed(why) => format!("# no suggestion: {why}"),
            Status::Cancelled => "# cancelled".to_owned(),
        }
    }
}

/// A cancel that may come before the engine call has started.
#[derive(Default)]
struct CancelSlot {
    cancelled: bool,
    handle: Option<CancelHandle>,
}

struct Pending {
    request: SuggestRequest,
    slot: Arc<Mutex<CancelSlot>>,
    started: Instant,
}

/// What a suggestion thread sends back.
struct Finished {
    pane: PaneId,
    nonce: String,
    result: Result<(String, String), String>,
    /// How long the engine call took.
    model: Duration,
}

/// The engine of the last suggestion, kept for the next one
/// in the same directory (building them reads the prompt files).
type Cached = Option<(PathBuf, Arc<Engine>)>;

pub struct Suggester {
    config_path: Option<PathBuf>,
    /// The app's parsed `[ai]` (`None`: read `config_path`).
    tables: Option<SharedAiTables>,
    wake: Arc<dyn Fn() + Send + Sync>,
    pending: HashMap<PaneId, Pending>,
    status: HashMap<PaneId, Status>,
    done_tx: Sender<Finished>,
    done_rx: Receiver<Finished>,
    cached: Arc<Mutex<Cached>>,
    trace: Option<PathBuf>,
}

impl Suggester {
    /// Builds engines from the app's parsed config instead of the file.
    pub fn with_tables(mut self, tables: SharedAiTables) -> Self {
        self.tables = Some(tables);
        self
    }

    pub fn new(config_path: Option<PathBuf>, wake: Arc<dyn Fn() + Send + Sync>) -> Self {
        let (done_tx, done_rx) = crossbeam_channel::unbounded();
        Self {
            config_path,
            tables: None,
            wake,
            pending: HashMap::new(),
            status: HashMap::new(),
            done_tx,
            done_rx,
            cached: Arc::new(Mutex::new(None)),
            trace: std::env::var_os(TRACE_ENV).map(PathBuf::from),
        }
    }

    fn trace(&self, pending: &Pending, status: &str, model: Duration) {
        use std::io::Write as _;
        let Some(path) = &self.trace else { return };
        let line = format!(
            "{} {status} {:.1} {:.1}\n",
            pending.request.nonce,
            pending.started.elapsed().as_secs_f64() * 1000.0,
            model.as_secs_f64() * 1000.0
        );
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = written {
            log::warn!("cannot write {}: {e}", path.display());
        }
    }

    pub fn status(&self, pane: PaneId) -> Option<&Status> {
        self.status.get(&pane)
    }

    #[cfg(test)]
    fn is_pending(&self, pane: PaneId) -> bool {
        self.pending.contains_key(&pane)
    }

    /// Starts the suggestion `request` from `pane` asked for.
    pub fn start(
        &mut self,
        pane: PaneId,
        request: SuggestRequest,
        ctx: SuggestContext,
        workspace: PathBuf,
    ) -> Option<Vec<u8>> {
        let replaced = self.cancel(pane);
        let slot = Arc::new(Mutex::new(CancelSlot::default()));
        let job = Job {
            config_path: self.config_path.clone(),
            tables: self.tables.clone(),
            cached: self.cached.clone(),
            workspace,
            words: request.words.clone(),
            ctx,
            slot: slot.clone(),
        };
        let (tx, wake, nonce) = (
            self.done_tx.clone(),
            self.wake.clone(),
            request.nonce.clone(),
        );
        let spawned = std::thread::Builder::new()
            .name("koi-suggest".into())
            .spawn(move || {
                let started = Instant::now();
                let result = job.run();
                let _ = tx.send(Finished {
                    pane,
                    nonce,
                    result,
                    model: started.elapsed(),
                });
                wake();
            });
        if let Err(e) = spawned {
            let why = format!("cannot start a thread: {e}");
            self.status.insert(pane, Status::Failed(why.clone()));
            return Some(koi_terminal::prompt_suggest::reply(
                &request,
                &Outcome::Failed(why),
            ));
        }
        self.pending.insert(
            pane,
            Pending {
                request,
                slot,
                started: Instant::now(),
            },
        );
        self.status.insert(pane, Status::Thinking);
        replaced
    }

    /// Cancels `pane`'s suggestion; the answer the shell waits for.
    pub fn cancel(&mut self, pane: PaneId) -> Option<Vec<u8>> {
        let pending = self.pending.remove(&pane)?;
        let mut slot = pending.slot.lock();
        slot.cancelled = true;
        if let Some(handle) = &slot.handle {
            handle.cancel();
        }
        drop(slot);
        self.status.insert(pane, Status::Cancelled);
        self.trace(&pending, "cancelled", Duration::ZERO);
        Some(koi_terminal::prompt_suggest::reply(
            &pending.request,
            &Outcome::Cancelled,
        ))
    }

    /// A key for `pane`: while it waits on a suggestion, Esc and Ctrl+C
    /// cancel it and every key is held back (`Some`: the answer to write,
    /// if any). Otherwise a key press clears the bar and goes on (`None`).
    pub fn key(
        &mut self,
        pane: PaneId,
        key: Option<&koi_terminal::input::KeyEvent>,
    ) -> Option<Vec<u8>> {
        if !self.pending.contains_key(&pane) {
            if key.is_none_or(|k| k.action != KeyAction::Release) {
                self.status.remove(&pane);
            }
            return None;
        }
        let cancels = key.is_some_and(|k| {
            k.action != KeyAction::Release
                && match k.key {
                    Key::Escape => true,
                    Key::Char('c' | 'C') => k.mods.ctrl && !k.mods.alt && !k.mods.logo,
                    _ => false,
                }
        });
        if cancels {
            return self.cancel(pane).or(Some(Vec::new()));
        }
        Some(Vec::new())
    }

    /// The answers of finished suggestions, by pane, to write to their shells.
    pub fn finished(&mut self) -> Vec<(PaneId, Vec<u8>)> {
        let mut out = Vec::new();
        for done in self.done_rx.try_iter() {
            let current = self
                .pending
                .get(&done.pane)
                .is_some_and(|p| p.request.nonce == done.nonce);
            if !current {
                // Cancelled (answered already) or replaced.
                continue;
            }
            let Some(pending) = self.pending.remove(&done.pane) else {
                continue;
            };
            let (status, outcome) = match done.result {
                Ok((command, verdict)) => {
                    (Status::Suggested { verdict }, Outcome::Command(command))
                }
                Err(why) => (Status::Failed(why.clone()), Outcome::Failed(why)),
            };
            let word = match &outcome {
                Outcome::Command(_) => "ok",
                _ => "error",
            };
            self.trace(&pending, word, done.model);
            self.status.insert(done.pane, status);
            out.push((
                done.pane,
                koi_terminal::prompt_suggest::reply(&pending.request, &outcome),
            ));
        }
        out
    }

    /// Forgets a pane that closed.
    pub fn forget(&mut self, pane: PaneId) {
        let _ = self.cancel(pane);
        self.status.remove(&pane);
    }
}

/// One suggestion's work, off the UI thread.
struct Job {
    config_path: Option<PathBuf>,
    tables: Option<SharedAiTables>,
    cached: Arc<Mutex<Cached>>,
    workspace: PathBuf,
    words: String,
    ctx: SuggestContext,
    slot: Arc<Mutex<CancelSlot>>,
}

impl Job {
    fn engine(&self) -> Result<Arc<Engine>, String> {
        let mut cached = self.cached.lock();
        if let Some((dir, engine)) = cached.as_ref() {
            if *dir == self.workspace {
                return Ok(engine.clone());
            }
        }
        let engine = engine_builder(
            self.config_path.as_deref(),
            self.tables.as_ref(),
            Front::Suggest,
        )?
        .workspace(&self.workspace)
        .build()
        .map_err(|e| e.to_string())?;
        let engine = Arc::new(engine);
        *cached = Some((self.workspace.clone(), engine.clone()));
        Ok(engine)
    }

    /// The command and the policy's verdict on it, or why not.
    fn run(&self) -> Result<(String, String), String> {
        let engine = self.engine()?;
        if engine.is_demo() {
            return Err("no model configured ([ai] in koi.toml)".into());
        }
        let (rx, cancel) = suggest::start(&engine, &self.words, &self.ctx);
        {
            let mut slot = self.slot.lock();
            if slot.cancelled {
                cancel.cancel();
            }
            slot.handle = Some(cancel.clone());
        }
        let command = suggest::finish(&rx, &cancel, SUGGEST_TIMEOUT).map_err(|e| e.to_string())?;
        // The default mode allows only what the policy proves read-only.
        let verdict = ai_tools::verdict::judge_command(engine.registry(), &command, Mode::Default);
        Ok((command, verdict.one_line()))
    }
}

impl super::App {
    /// A key (or typed text, `None` in the key's place) for the focused
    /// pane, while its shell may wait on a suggestion: whether it was
    /// taken.
    pub(super) fn suggest_key(&mut self, translated: &super::keyboard::Translated) -> bool {
        let Some(t) = &self.terminal else {
            return false;
        };
        let pane = t.workspace.focused_id();
        let key = match translated {
            super::keyboard::Translated::Key(key) => Some(key),
            super::keyboard::Translated::Text(_) => None,
        };
        let had_status = self.suggest.status(pane).is_some();
        let taken = self.suggest.key(pane, key);
        if let Some(bytes) = &taken {
            t.session().write(bytes.clone());
        }
        if taken.is_some() || had_status != self.suggest.status(pane).is_some() {
            t.workspace.focused().touch();
            t.display.window.request_redraw();
        }
        taken.is_some()
    }

    /// `pane`'s shell asked for a suggestion.
    pub(super) fn start_suggestion(&mut self, pane: PaneId, request: SuggestRequest) {
        let Some(t) = &self.terminal else { return };
        let Some(p) = t.workspace.panes.get(&pane) else {
            return;
        };
        let ctx = context(&p.session, &request.shell);
        let dir = workspace(&p.session);
        if let Some(bytes) = self.suggest.start(pane, request, ctx, dir) {
            p.session.write(bytes);
        }
        p.touch();
        t.display.window.request_redraw();
    }

    /// Answers the shells whose suggestions finished.
    pub(super) fn suggestions_finished(&mut self) {
        let Some(t) = &self.terminal else { return };
        for (pane, bytes) in self.suggest.finished() {
            if let Some(p) = t.workspace.panes.get(&pane) {
                p.session.write(bytes);
                p.touch();
            }
        }
        t.display.window.request_redraw();
    }
}

/// What the suggestion may know about where it runs.
pub fn context(session: &koi_terminal::Session, shell: &str) -> SuggestContext {
    let last = session.last_command();
    SuggestContext {
        cwd: session.cwd(),
        shell: shell.to_owned(),
        os: std::env::consts::OS.to_owned(),
        last_command: last.as_ref().map(|c| c.command.clone()),
        last_exit: last.and_then(|c| c.exit_code),
    }
}

/// The directory the suggestion's read-only tools look in.
pub fn workspace(session: &koi_terminal::Session) -> PathBuf {
    session
        .current_dir()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| Path::new("/").to_owned())
}

/// The bar on the last row of the pane at `rect`.
pub fn bar_layer(
    status: &Status,
    rect: render::CellRect,
    chrome: &render::ChromeColors,
) -> OverlayLayer {
    let color = match status {
        Status::Failed(_) => Color::Rgb(chrome.error),
        _ => Color::Rgb(chrome.strip_foreground),
    };
    OverlayLayer {
        rect: OverlayRect::Cells {
            col: rect.col,
            row: rect.row + rect.rows.saturating_sub(1),
            cols: rect.cols.max(1),
            rows: 1,
        },
        background: Color::Rgb(chrome.suggest_background),
        border: None,
        padding_px: 0,
        lines: vec![StyledLine::new(
            std::iter::once(Span::new(" ", color))
                .chain(super::fixed_text::spans(
                    &[(Part::new(&status.text(), 1), color)],
                    "",
                    rect.cols.saturating_sub(1),
                ))
                .collect(),
        )],
        pictures: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use koi_terminal::input::{KeyEvent, Mods};

    fn request() -> SuggestRequest {
        SuggestRequest {
            nonce: "7".into(),
            shell: "bash".into(),
            words: "big files".into(),
        }
    }

    #[test]
    fn keys_are_held_back_while_thinking_and_esc_answers_cancelled() {
        let mut s = Suggester::new(None, Arc::new(|| {}));
        s.pending.insert(
            1,
            Pending {
                request: request(),
                slot: Arc::default(),
                started: Instant::now(),
            },
        );
        let press = |key| KeyEvent {
            key,
            mods: Mods::default(),
            action: KeyAction::Press,
        };
        assert_eq!(s.key(1, Some(&press(Key::Char('x')))), Some(Vec::new()));
        assert!(s.is_pending(1));
        let reply = s.key(1, Some(&press(Key::Escape))).unwrap();
        assert_eq!(reply, b"koi-suggest:7:cancelled:\x07");
        assert!(!s.is_pending(1));
        assert_eq!(s.status(1), Some(&Status::Cancelled));
        // Not waiting: the key goes on and the bar goes away.
        assert_eq!(s.key(1, Some(&press(Key::Char('x')))), None);
        assert_eq!(s.status(1), None);
    }

    #[test]
    fn a_late_answer_to_a_cancelled_request_is_dropped() {
        let mut s = Suggester::new(None, Arc::new(|| {}));
        s.done_tx
            .send(Finished {
                pane: 1,
                nonce: "7".into(),
                result: Ok(("ls".into(), "read-only".into())),
                model: Duration::ZERO,
            })
            .unwrap();
        assert!(s.finished().is_empty());
    }
}

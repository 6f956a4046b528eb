//! The koi window: a winit event loop driving a PTY session and the
//! renderer. Event-driven: it wakes on PTY output, input, resize, config
//! changes or a cursor-blink timer, and otherwise sleeps. Output after a
//! quiet moment (a key's echo) is drawn at once; frames under a flood are
//! spaced so the parser keeps its CPU (`pacing`).

mod appearance_glue;
mod assistant;
mod bar;
mod clipboard;
#[cfg(all(unix, not(target_os = "macos")))]
mod clipboard_image;
mod display;
mod dump;
mod fix_glue;
mod fixed_text;
mod handler;
mod keyboard;
mod layout;
mod link_glue;
mod links;
mod mouse;
mod overlay_glue;
mod pacing;
mod panel_mouse;
mod panes;
#[cfg(all(unix, not(target_os = "macos")))]
mod pointer_focus;
mod scene;
pub mod search;
mod search_bar;
mod startup;
mod suggest;
mod tab_assistant;
mod timers;
#[cfg(all(unix, not(target_os = "macos")))]
mod wayland_log;
mod workspace;
#[cfg(all(unix, not(target_os = "macos")))]
mod x11_present;

pub use layout::Direction;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use alacritty_terminal::grid::Scroll;
use parking_lot::Mutex;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, Ime, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop, EventLoopProxy};
use winit::keyboard::ModifiersState;
use winit::window::WindowId;

use crate::config::{Action, Config, ConfigError, Loaded};
use crate::overlay::{Overlay, OverlayConfig};
use crate::theme::Appearance;
use assistant::Assistant;
use clipboard::{Clipboard, Kind};
use display::Display;
use keyboard::Translated;
use koi_terminal::input::{encode_key, KeyAction, Mods};
use koi_terminal::session::{ExitStatus, Session};
use koi_terminal::trace::bursts;
use koi_terminal::trace::latency::{self, Hop};
use mouse::Mouse;
use overlay_glue::Captured;

/// What wakes the event loop from other threads.
#[derive(Debug)]
pub enum UserEvent {
    /// The PTY produced output or an event.
    Wakeup,
    /// The config file changed.
    Config(Box<Result<Loaded, ConfigError>>),
    /// The assistant engine sent something.
    Assistant,
    /// A suggestion for `#` at the prompt finished.
    Suggestion,
    /// The system's light or dark preference (the desktop portal's).
    Appearance(Appearance),
}

/// How the window starts.
pub struct AppOptions {
    pub loaded: Loaded,
    pub config_path: Option<PathBuf>,
    pub command: Option<Vec<String>>,
    pub working_directory: Option<PathBuf>,
    /// Initial grid size; the config's window.columns/lines when `None`.
    pub cols: Option<u16>,
    pub rows: Option<u16>,
    /// Where to write the final grid text (and `PATH.png`) on exit.
    pub dump_on_exit: Option<PathBuf>,
}

/// Open the window and run until the shell exits or the window closes.
/// Returns the shell's exit status (`None` when the window was closed).
pub fn run(options: AppOptions) -> anyhow::Result<Option<ExitStatus>> {
    let event_loop = EventLoop::<UserEvent>::with_user_event().build()?;
    let proxy = event_loop.create_proxy();
    let _watcher = options.config_path.clone().and_then(|path| {
        let proxy = proxy.clone();
        crate::config::watch::ConfigWatcher::start(path, move |result| {
            let _ = proxy.send_event(UserEvent::Config(Box::new(result)));
        })
        .map_err(|e| log::info!("not watching the config for changes: {e}"))
        .ok()
    });
    let mut app = App::new(options, proxy);
    if app.config().base_theme.follows_appearance() {
        // Before the window opens, so its first frame has the right colours.
        app.follow_appearance(true);
    }
    event_loop.run_app(&mut app)?;
    if let Some(err) = app.fatal.take() {
        return Err(err);
    }
    Ok(app.exit_status.take())
}

/// The window and the shells it shows.
struct Terminal {
    display: Display,
    workspace: workspace::Workspace,
}

impl Terminal {
    /// The focused pane's session: what keys, paste and the assistant go to.
    fn session(&self) -> &Session {
        &self.workspace.focused().session
    }

    /// Where the focused pane sits, for mapping the pointer into it.
    fn geometry(&self) -> mouse::Geometry {
        self.display.geometry(self.workspace.focused().rect)
    }
}

struct App {
    options: AppOptions,
    proxy: EventLoopProxy<UserEvent>,
    terminal: Option<Terminal>,
    clipboard: Clipboard,
    modifiers: ModifiersState,
    mouse: Mouse,
    overlay: Overlay,
    assistant: Assistant,
    /// `#` at the prompt: suggestions in flight and their status bars.
    suggest: suggest::Suggester,
    captured: Captured,
    /// Hidden tabs' panels and assistants: one conversation per tab.
    per_tab: tab_assistant::PerTab,
    /// The config's `[ai]` and `[mcp]`, handed to every engine's builder
    /// (kept current by [`App::reload`]).
    ai_tables: assistant::SharedAiTables,
    next_blink: Option<Instant>,
    next_tick: Option<Instant>,
    /// When a drag held past the panel's edge scrolls next.
    next_edge_scroll: Option<Instant>,
    /// Spaces frames while output streams in (see `pacing`).
    pacer: pacing::FramePacer,
    /// When the frame for output that arrived too soon after the last one
    /// starts.
    next_frame: Option<Instant>,
    /// Keyboard focus on an X server with no window manager.
    #[cfg(all(unix, not(target_os = "macos")))]
    pointer_focus: Option<pointer_focus::PointerFocus>,
    /// Hints mode, while its labels are shown.
    hints: Option<link_glue::Hints>,
    /// The divider being dragged, while the left button holds it.
    divider_drag: Option<layout::SplitPath>,
    /// The panes whose close waits on the user's yes (a job runs in one
    /// of them); empty when nothing is asked.
    pending_close: Vec<layout::PaneId>,
    /// When panes of hidden tabs may wake the loop again.
    next_hidden_rearm: Option<Instant>,
    /// When the app started, for `KOI_REPORT_FIRST_FRAME` (benchmarks).
    started: Instant,
    first_frame_reported: bool,
    exit_status: Option<ExitStatus>,
    /// The last pane closed: the loop ends once the current event is done.
    closing: bool,
    /// The dump is written and the loop told to end.
    exited: bool,
    fatal: Option<anyhow::Error>,
    /// The desktop portal reports the system's appearance.
    follows_portal: bool,
}

impl App {
    fn new(options: AppOptions, proxy: EventLoopProxy<UserEvent>) -> Self {
        let (overlay_config, warnings) =
            OverlayConfig::from_table(options.loaded.config.overlay.as_ref());
        for warning in warnings {
            eprintln!("koi: warning: {warning}");
        }
        let waker = {
            let proxy = Mutex::new(proxy.clone());
            Arc::new(move || {
                let _ = proxy.lock().send_event(UserEvent::Assistant);
            })
        };
        let ai_tables = Arc::new(parking_lot::RwLock::new(assistant::AiTables::of(
            &options.loaded.config,
        )));
        let per_tab = tab_assistant::PerTab::new(
            overlay_config,
            options.config_path.clone(),
            ai_tables.clone(),
            waker,
        );
        let suggest_waker = {
            let proxy = Mutex::new(proxy.clone());
            Arc::new(move || {
                let _ = proxy.lock().send_event(UserEvent::Suggestion);
            })
        };
        let suggest = suggest::Suggester::new(options.config_path.clone(), suggest_waker)
            .with_tables(ai_tables.clone());
        let (overlay, assistant) = per_tab.fresh();
        Self {
            overlay,
            assistant,
            suggest,
            captured: Captured::default(),
            per_tab,
            ai_tables,
            next_tick: None,
            next_edge_scroll: None,
            pacer: pacing::FramePacer::new(pacing::DEFAULT_REFRESH, false),
            next_frame: None,
            hints: None,
            divider_drag: None,
            pending_close: Vec::new(),
            next_hidden_rearm: None,
            #[cfg(all(unix, not(target_os = "macos")))]
            pointer_focus: None,
            options,
            proxy,
            terminal: None,
            clipboard: Clipboard::new(),
            modifiers: ModifiersState::empty(),
            mouse: Mouse::default(),
            next_blink: None,
            started: Instant::now(),
            first_frame_reported: false,
            exit_status: None,
            closing: false,
            exited: false,
            fatal: None,
            follows_portal: false,
        }
    }

    fn config(&self) -> &Config {
        &self.options.loaded.config
    }

    fn mods(&self) -> Mods {
        keyboard::mods(self.modifiers)
    }

    fn redraw(&self) {
        if let Some(t) = &self.terminal {
            t.display.window.request_redraw();
        }
    }

    /// A frame for new PTY output: now, unless frames are coming back to
    /// back (a flood), when it waits its turn so the parser keeps the CPU.
    fn schedule_frame(&mut self) {
        let now = Instant::now();
        let at = self.pacer.earliest_start(now);
        if at <= now {
            self.redraw();
        } else {
            self.next_frame = Some(self.next_frame.map_or(at, |t| t.min(at)));
        }
    }

    fn draw(&mut self) {
        let Some(t) = &mut self.terminal else { return };
        // The window closes once its last shell has ended (the exit events
        // close it): a frame of that shell's last output would only hold
        // the exit back, by a whole frame of a software rasteriser.
        if self.closing || t.workspace.every_shell_ended() {
            if t.workspace.rearm_all() {
                let _ = self.proxy.send_event(UserEvent::Wakeup);
            }
            return;
        }
        let started = Instant::now();
        // This frame shows everything up to now.
        self.next_frame = None;
        latency::hop(Hop::Draw);
        // Events that came while a wake-up was still armed (a frame held
        // back under a flood, say) called nobody: handle them as if they had.
        let (pending, scanning) = t.compose(&self.suggest);
        let snapshot = started.elapsed();
        if pending {
            let _ = self.proxy.send_event(UserEvent::Wakeup);
        }
        latency::hop(Hop::Snapshot);
        let mut hints = self.hint_layers();
        hints.extend(self.fix_hint_layer());
        let Some(t) = &mut self.terminal else { return };
        t.display.hints = hints;
        t.display.assistant = if self.overlay.is_open() {
            let rect = t.workspace.focused().rect;
            let (cols, rows) = (rect.cols.max(1), rect.rows.max(1));
            let cell_px = t.display.renderer.cell_size();
            self.overlay.set_cell_px(cell_px);
            let mut layers = self.overlay.layers(cols, rows, t.display.renderer.theme());
            for layer in &mut layers {
                render::place_in_pane(layer, rect, cell_px);
            }
            let cursor = self
                .overlay
                .cursor_cell(cols, rows)
                .map(|(c, r)| (c + rect.col, r + rect.row));
            Some((layers, cursor))
        } else {
            None
        };
        t.display.present();
        if let Some(path) = &self.options.dump_on_exit {
            dump::write_screen(path, &t.workspace.focused().session);
        }
        if scanning {
            // The scan goes on a slice per frame.
            t.display.window.request_redraw();
        }
        // Pace by what the frame cost until the rasteriser was done with it.
        let done = t.display.renderer.wait_for_gpu();
        self.pacer.frame_done(started, done);
        let timings = t.display.renderer.last_timings();
        latency::frame_presented(&timings);
        bursts::frame(snapshot, &timings, done);
        if !self.first_frame_reported {
            self.first_frame_reported = true;
            if std::env::var_os("KOI_REPORT_FIRST_FRAME").is_some() {
                eprintln!(
                    "koi: first frame after {:.1} ms",
                    self.started.elapsed().as_secs_f64() * 1e3
                );
            }
        }
    }

    fn resize_grid(&mut self, grid: koi_terminal::GridSize) {
        if let Some(t) = &mut self.terminal {
            t.workspace.relayout(grid);
            t.display.window.request_redraw();
        }
    }

    fn perform(&mut self, action: Action) {
        if self.perform_pane_action(action) {
            self.redraw();
            return;
        }
        let Some(t) = &mut self.terminal else { return };
        let config = &self.options.loaded.config;
        let scroll = |t: &Terminal, s: Scroll| {
            t.session().terminal().lock().scroll_display(s);
            t.workspace.focused().touch();
        };
        match action {
            Action::Copy if self.overlay.is_open() => {
                if let Some(text) = self.overlay.copy_text() {
                    self.clipboard.store(Kind::Clipboard, text);
                }
            }
            Action::Copy => {
                if let Some(text) = t.session().terminal().lock().selection_to_string() {
                    self.clipboard.store(Kind::Clipboard, text);
                }
            }
            Action::Paste if self.overlay.is_open() => match clipboard_png() {
                // A screenshot on the clipboard goes with the next message.
                Some(png) => match self.assistant.attach_png(&png) {
                    Ok(line) => self.overlay.notice(line),
                    Err(e) => self.overlay.error(e),
                },
                None => self.overlay.paste(&self.clipboard.load(Kind::Clipboard)),
            },
            Action::Paste => mouse::paste(t.session(), &self.clipboard.load(Kind::Clipboard)),
            Action::PasteSelection if self.overlay.is_open() => {
                self.overlay.paste(&self.clipboard.load(Kind::Primary))
            }
            Action::PasteSelection => {
                mouse::paste(t.session(), &self.clipboard.load(Kind::Primary))
            }
            Action::IncreaseFontSize | Action::DecreaseFontSize | Action::ResetFontSize => {
                let steps = match action {
                    Action::IncreaseFontSize => 1,
                    Action::DecreaseFontSize => -1,
                    _ => 0,
                };
                let grid = t.display.zoom(config, steps);
                self.resize_grid(grid);
            }
            Action::ScrollPageUp => scroll(t, Scroll::PageUp),
            Action::ScrollPageDown => scroll(t, Scroll::PageDown),
            Action::ScrollLineUp => scroll(t, Scroll::Delta(1)),
            Action::ScrollLineDown => scroll(t, Scroll::Delta(-1)),
            Action::ScrollToTop => scroll(t, Scroll::Top),
            Action::ScrollToBottom => scroll(t, Scroll::Bottom),
            Action::ToggleAssistant => self.toggle_overlay(),
            Action::Search => self.open_search(),
            Action::Hints => self.open_hints(),
            Action::FixLastCommand => self.fix_last_command(),
            // Tabs and panes were handled above.
            _ => {}
        }
        self.redraw();
    }

    fn key(&mut self, event: winit::event::KeyEvent) {
        let mods = self.mods();
        let Some(translated) = keyboard::translate(&event, mods) else {
            return;
        };
        if self.answer_question(&translated) {
            return;
        }
        if let Translated::Key(key) = &translated {
            if key.action != KeyAction::Release {
                if let Some(action) = self.options.loaded.bindings.action_for(mods, &key.key) {
                    self.perform(action);
                    return;
                }
            }
        }
        if self.hints_key(&translated)
            || self.search_key(&translated)
            || self.fix_hint_key(&translated)
        {
            return;
        }
        if !self.overlay.is_open() && self.suggest_key(&translated) {
            return;
        }
        let Some(t) = &self.terminal else { return };
        match translated {
            Translated::Key(key) => {
                if self.overlay.is_open() {
                    if key.action != KeyAction::Release {
                        let text = event.text.as_ref().map(|t| t.to_string());
                        self.with_overlay(|ctx| ctx.key(&key, text.as_deref()));
                    }
                    return;
                }
                let (bytes, view_changed) = {
                    let mut term = t.session().terminal().lock();
                    let bytes = encode_key(&key, *term.mode());
                    let changed = !bytes.is_empty() && show_live_screen(&mut term, true);
                    (bytes, changed)
                };
                if !bytes.is_empty() {
                    latency::key();
                    self.pacer.typed();
                }
                t.session().write(bytes);
                if view_changed {
                    t.workspace.focused().touch();
                    t.display.window.request_redraw();
                }
            }
            Translated::Text(text) if self.overlay.is_open() => {
                self.overlay.paste(&text);
                self.redraw();
            }
            Translated::Text(text) => {
                latency::key();
                self.pacer.typed();
                let view_changed = show_live_screen(&mut t.session().terminal().lock(), false);
                t.session().write(text.into_bytes());
                if view_changed {
                    t.workspace.focused().touch();
                    t.display.window.request_redraw();
                }
            }
        }
        self.reset_blink();
    }

    /// Open the panel (capturing what is on screen) or close it.
    fn toggle_overlay(&mut self) {
        let Some(t) = &self.terminal else { return };
        if self.overlay.is_open() {
            self.overlay.close();
        } else {
            self.captured = Captured::take(t.session());
            self.overlay.set_attachments(self.captured.chips());
            self.overlay.open();
            let workspace = self.assistant.workspace_for(&self.pane_dir());
            self.assistant.warm_up(&workspace);
            if assistant::is_broad(&workspace) {
                self.overlay.notice(format!(
                    "working in {}: too broad to change anything, so writes and commands                      not proven read-only are refused (reads work) · /cd DIR names a directory",
                    workspace.display()
                ));
            }
        }
        self.note_overlay();
        self.redraw();
    }

    /// The directory of the pane the panel was opened over: what its shell
    /// reported (OSC 7), else what the kernel says, else koi's own.
    fn pane_dir(&self) -> PathBuf {
        self.captured
            .cwd
            .clone()
            .or_else(|| self.options.working_directory.clone())
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("."))
    }

    /// Run `f` with everything an overlay action may touch, then redraw.
    fn with_overlay(&mut self, f: impl FnOnce(&mut overlay_glue::Ctx<'_>)) {
        let Some(t) = &self.terminal else { return };
        let workspace = self.assistant.workspace_for(&self.pane_dir());
        let mut ctx = overlay_glue::Ctx {
            overlay: &mut self.overlay,
            assistant: &mut self.assistant,
            captured: &self.captured,
            session: t.session(),
            clipboard: &mut self.clipboard,
            workspace,
        };
        f(&mut ctx);
        t.display.window.request_redraw();
        self.note_overlay();
    }

    /// Keeps `--dump-on-exit`'s PATH.overlay current (tests wait on it).
    fn note_overlay(&mut self) {
        if let Some(path) = &self.options.dump_on_exit {
            dump::write_overlay(path, &mut self.overlay);
        }
    }

    fn reload(&mut self, result: Result<Loaded, ConfigError>) {
        match result {
            Ok(mut loaded) => {
                for warning in &loaded.warnings {
                    eprintln!("koi: warning: {warning}");
                }
                // The system's appearance is not in the file: it carries over.
                loaded.config.appearance = self.options.loaded.config.appearance;
                let starts_following = loaded.config.base_theme.follows_appearance()
                    && !self.options.loaded.config.base_theme.follows_appearance();
                self.options.loaded = loaded;
                if starts_following {
                    self.follow_appearance(false);
                }
                let config = self.options.loaded.config.clone();
                *self.ai_tables.write() = assistant::AiTables::of(&config);
                self.apply_theme();
                if let Some(t) = &mut self.terminal {
                    t.display.banner = None;
                    t.workspace.set_bar(&config.tabs);
                    let grid = t.display.reconfigure(&config);
                    self.resize_grid(grid);
                }
                self.reset_blink();
            }
            Err(err) => {
                let message = format!("config not applied: {}", err.one_line());
                eprintln!("koi: {message}");
                if let Some(t) = &mut self.terminal {
                    t.display.banner = Some(message);
                }
            }
        }
        self.redraw();
    }

    fn mouse_context<'a>(
        t: &'a Terminal,
        clipboard: &'a mut Clipboard,
        mods: Mods,
        config: &Config,
    ) -> mouse::Context<'a> {
        mouse::Context {
            session: t.session(),
            clipboard,
            mods,
            geometry: t.geometry(),
            scroll_multiplier: config.scrolling.multiplier,
        }
    }
}

/// Before input reaches the application: back to the live screen, and
/// with `clear_selection`, drop the selection. Returns whether the view
/// changed. Nothing is touched when nothing would change: the terminal
/// reports every scroll as a wake-up, and a frame drawn for a key press
/// that changed nothing is one more frame the key's echo waits behind.
fn show_live_screen(term: &mut koi_terminal::session::Terminal, clear_selection: bool) -> bool {
    let mut changed = false;
    if term.grid().display_offset() != 0 {
        term.scroll_display(Scroll::Bottom);
        changed = true;
    }
    if clear_selection && term.selection.take().is_some() {
        changed = true;
    }
    changed
}

/// The PNG on the clipboard, where koi can read one (X11).
fn clipboard_png() -> Option<Vec<u8>> {
    #[cfg(all(unix, not(target_os = "macos")))]
    return clipboard_image::clipboard_png();
    #[cfg(not(all(unix, not(target_os = "macos"))))]
    None
}

//! What the app does with tabs and panes: the actions bound to keys, the
//! question before closing a busy pane, each pane's session events (title,
//! bell, exit), and the pointer on the tab bar and on dividers.

use std::time::{Duration, Instant};

use winit::dpi::PhysicalPosition;
use winit::event::{ElementState, MouseButton};
use winit::event_loop::ActiveEventLoop;

use super::clipboard::Kind;
use super::keyboard::Translated;
use super::layout::{Axis, PaneId};
use super::{dump, App, UserEvent};
use crate::config::Action;
use koi_terminal::input::{Key, KeyAction};
use koi_terminal::session::SessionEvent;

/// How often panes of hidden tabs may wake the event loop: often enough
/// that a tab's bell or exit shows within a moment, rarely enough that a
/// flood there costs nothing worth measuring.
const HIDDEN_REARM: Duration = Duration::from_millis(250);

/// Cells a resize key moves a divider by.
const RESIZE_STEP: usize = 2;

/// What the question bar asks before closing a pane with a job in it.
const CLOSE_PANE_QUESTION: &str =
    "A job is running in this pane. Close it? (y = close, any other key = keep)";

/// What it asks before closing a tab of several panes, one of them busy:
/// the yes closes them all.
const CLOSE_TAB_QUESTION: &str =
    "A job is running in this tab. Close all its panes? (y = close, any other key = keep)";

impl App {
    /// Run a tab or pane action; false when `action` is not one.
    pub(super) fn perform_pane_action(&mut self, action: Action) -> bool {
        let config = self.options.loaded.config.clone();
        let Some(t) = &mut self.terminal else {
            return false;
        };
        let ws = &mut t.workspace;
        let result = match action {
            Action::NewTab => ws.new_tab(&config),
            Action::SplitRight => ws.split(&config, Axis::Columns),
            Action::SplitDown => ws.split(&config, Axis::Rows),
            Action::NextTab => {
                ws.cycle(1);
                Ok(())
            }
            Action::PreviousTab => {
                ws.cycle(-1);
                Ok(())
            }
            Action::SelectTab(n) => {
                ws.select(usize::from(n.max(1)) - 1);
                Ok(())
            }
            Action::MoveTabLeft => {
                ws.move_tab(-1);
                Ok(())
            }
            Action::MoveTabRight => {
                ws.move_tab(1);
                Ok(())
            }
            Action::Focus(direction) => {
                let before = ws.focused_id();
                ws.focus_direction(direction);
                self.focus_moved(before);
                Ok(())
            }
            Action::Resize(direction) => {
                ws.resize_focused(direction, RESIZE_STEP);
                Ok(())
            }
            Action::ZoomPane => {
                ws.toggle_zoom();
                Ok(())
            }
            Action::ClosePane => {
                let id = ws.focused_id();
                self.ask_or_close(&[id]);
                Ok(())
            }
            Action::CloseTab => {
                let panes = ws.tab().layout.panes();
                self.ask_or_close(&panes);
                Ok(())
            }
            _ => return false,
        };
        if let Err(e) = result {
            eprintln!("koi: could not open a pane: {e}");
            if let Some(t) = &mut self.terminal {
                t.display.banner = Some(format!("could not open a pane: {e}"));
            }
        }
        self.sync_title();
        self.follow_tab();
        true
    }

    /// Close `panes`, asking first when a job runs in one of them; a yes
    /// then closes every one of them, not just the busy one.
    fn ask_or_close(&mut self, panes: &[PaneId]) {
        let Some(t) = &mut self.terminal else { return };
        let busy = panes.iter().any(|id| {
            t.workspace
                .panes
                .get(id)
                .is_some_and(|p| p.session.has_foreground_job())
        });
        if busy {
            let question = if panes.len() > 1 {
                CLOSE_TAB_QUESTION
            } else {
                CLOSE_PANE_QUESTION
            };
            self.pending_close = panes.to_vec();
            t.display.question = Some(question.to_owned());
        } else {
            self.close_panes(panes);
        }
    }

    /// Close each of `panes` that is still open (one may have exited
    /// while the question waited).
    fn close_panes(&mut self, panes: &[PaneId]) {
        for id in panes {
            let open = self
                .terminal
                .as_ref()
                .is_some_and(|t| t.workspace.panes.contains_key(id));
            if open && !self.closing {
                self.close_pane(*id, None);
            }
        }
    }

    /// The key answering the close question, if one is asked. Returns
    /// whether the key was taken.
    pub(super) fn answer_question(&mut self, key: &Translated) -> bool {
        if self.pending_close.is_empty() {
            return false;
        }
        let Translated::Key(key) = key else {
            return true;
        };
        if key.action == KeyAction::Release {
            return true;
        }
        let panes = std::mem::take(&mut self.pending_close);
        if let Some(t) = &mut self.terminal {
            t.display.question = None;
        }
        if matches!(key.key, Key::Char('y') | Key::Char('Y')) {
            self.close_panes(&panes);
            self.follow_tab();
        }
        self.redraw();
        true
    }

    /// Take pane `id` away (its session hangs up and reaps its child).
    /// When it was the last one the window ends, with `status` when the
    /// pane's shell exited by itself.
    fn close_pane(&mut self, id: PaneId, status: Option<koi_terminal::ExitStatus>) {
        let Some(t) = &mut self.terminal else { return };
        if let (Some(path), Some(pane)) = (&self.options.dump_on_exit, t.workspace.panes.get(&id)) {
            dump::append_pane(path, id, &pane.session);
        }
        let last = t.workspace.panes.len() == 1;
        if last {
            self.exit_status = status;
            self.closing = true;
            return;
        }
        self.suggest.forget(id);
        t.workspace.close(id);
        self.sync_title();
        self.redraw();
    }

    /// After the focus moved from `before`: tell both applications that
    /// asked for focus reports.
    fn focus_moved(&self, before: PaneId) {
        let Some(t) = &self.terminal else { return };
        let after = t.workspace.focused_id();
        if before == after {
            return;
        }
        for (id, report) in [(before, &b"\x1b[O"[..]), (after, &b"\x1b[I"[..])] {
            if let Some(pane) = t.workspace.panes.get(&id) {
                let mode = *pane.session.terminal().lock().mode();
                if mode.contains(alacritty_terminal::term::TermMode::FOCUS_IN_OUT) {
                    pane.session.write(report);
                }
            }
        }
    }

    /// The window's title is the focused pane's.
    pub(super) fn sync_title(&self) {
        if let Some(t) = &self.terminal {
            let title = t.workspace.focused().title.as_deref().unwrap_or("koi");
            t.display.window.set_title(title);
        }
    }

    /// Drain every pane's events.
    pub(super) fn handle_session_events(&mut self) {
        let Some(t) = &mut self.terminal else { return };
        let focused = t.workspace.focused_id();
        let mut ids: Vec<PaneId> = t.workspace.panes.keys().copied().collect();
        ids.sort_unstable();
        let mut exited = Vec::new();
        let mut open_overlay = false;
        let mut title_changed = false;
        let mut suggest = Vec::new();
        for id in ids {
            let visible = t.workspace.is_visible(id);
            let tab = t.workspace.tab_of(id);
            let Some(pane) = t.workspace.panes.get_mut(&id) else {
                continue;
            };
            let events: Vec<SessionEvent> = pane.session.events().try_iter().collect();
            for event in events {
                match event {
                    SessionEvent::Title(title) => {
                        if let Some(pane) = t.workspace.panes.get_mut(&id) {
                            pane.title = Some(title);
                        }
                        title_changed = true;
                    }
                    SessionEvent::ResetTitle => {
                        if let Some(pane) = t.workspace.panes.get_mut(&id) {
                            pane.title = None;
                        }
                        title_changed = true;
                    }
                    SessionEvent::Bell => {
                        t.display.window.request_user_attention(Some(
                            winit::window::UserAttentionType::Informational,
                        ));
                        if !visible {
                            if let Some(tab) = tab.and_then(|i| t.workspace.tabs.get_mut(i)) {
                                tab.bell = true;
                            }
                        }
                    }
                    SessionEvent::ClipboardStore { primary, text } => {
                        let kind = if primary {
                            Kind::Primary
                        } else {
                            Kind::Clipboard
                        };
                        self.clipboard.store(kind, text);
                    }
                    SessionEvent::CursorBlinkingChange => {}
                    SessionEvent::OpenOverlay => open_overlay |= id == focused,
                    SessionEvent::Suggest(request) => suggest.push((id, request)),
                    SessionEvent::Exited(status) => exited.push((id, status)),
                }
            }
        }
        for (id, request) in suggest {
            self.start_suggestion(id, request);
        }
        let Some(t) = &mut self.terminal else { return };
        if t.workspace.mark_hidden_activity() || title_changed {
            t.display.window.request_redraw();
        }
        if t.workspace.tabs.len() > 1 && self.next_hidden_rearm.is_none() {
            self.next_hidden_rearm = Some(Instant::now() + HIDDEN_REARM);
        }
        if title_changed {
            self.sync_title();
        }
        for (id, status) in exited {
            if !status.success()
                && self
                    .terminal
                    .as_ref()
                    .is_some_and(|t| t.workspace.panes.len() == 1)
            {
                eprintln!("koi: the shell ended: {status}");
            }
            self.close_pane(id, Some(status));
        }
        if self.closing {
            return;
        }
        self.follow_tab();
        if open_overlay && !self.overlay.is_open() {
            self.toggle_overlay();
        }
    }

    /// Let hidden panes wake the loop again, when it is time.
    pub(super) fn rearm_hidden(&mut self) -> Option<Instant> {
        let at = self.next_hidden_rearm?;
        if Instant::now() < at {
            return Some(at);
        }
        self.next_hidden_rearm = None;
        if self
            .terminal
            .as_ref()
            .is_some_and(|t| t.workspace.rearm_hidden())
        {
            let _ = self.proxy.send_event(UserEvent::Wakeup);
        }
        None
    }

    /// Write the dump files and leave the event loop.
    pub(super) fn exit(&mut self, event_loop: &ActiveEventLoop) {
        if std::mem::replace(&mut self.exited, true) {
            return;
        }
        if let (Some(_), Some(t)) = (std::env::var_os(super::pacing::REPORT_ENV), &self.terminal) {
            eprintln!("{}", self.pacer.report(&t.display.presenter()));
        }
        if let (Some(path), Some(t)) = (&self.options.dump_on_exit, &mut self.terminal) {
            let _ = t.compose(&self.suggest);
            if !self.closing {
                // The last pane was appended when it closed; here the
                // window closes with every pane still open.
                let mut ids: Vec<_> = t.workspace.panes.keys().copied().collect();
                ids.sort_unstable();
                for id in ids {
                    if let Some(pane) = t.workspace.panes.get(&id) {
                        dump::append_pane(path, id, &pane.session);
                    }
                }
            }
            let session = &t.workspace.focused().session;
            dump::write_all(path, session, &mut t.display, &mut self.overlay);
            let status = self.suggest.status(t.workspace.focused_id());
            dump::write_suggest(path, status.map(|s| s.text()).as_deref());
        }
        event_loop.exit();
    }

    /// A left press on the tab bar or a divider; returns whether it was
    /// taken (it then reaches neither the application nor the selection).
    pub(super) fn chrome_button(&mut self, state: ElementState, button: MouseButton) -> bool {
        if button != MouseButton::Left {
            return false;
        }
        if state == ElementState::Released {
            return self.divider_drag.take().is_some();
        }
        let Some(t) = &mut self.terminal else {
            return false;
        };
        let Some((col, row)) = t.display.window_cell(self.mouse.position) else {
            return false;
        };
        let cols = usize::from(t.display.grid_size().cols);
        let ws = &mut t.workspace;
        if ws.bar_row() == Some(row) {
            if let Some(index) = render::tab_at(col, cols, ws.tabs.len()) {
                ws.select(index);
                self.sync_title();
                self.follow_tab();
                self.redraw();
            }
            return true;
        }
        let area = ws.area();
        if let Some(path) = ws.tab().layout.divider_at(col, row, area) {
            self.divider_drag = Some(path);
            return true;
        }
        if let Some(id) = ws.pane_at(col, row) {
            let before = ws.focused_id();
            ws.set_focus(id);
            self.focus_moved(before);
            self.sync_title();
        }
        false
    }

    /// The pointer moved while a divider is held: move it along.
    pub(super) fn drag_divider(&mut self, position: PhysicalPosition<f64>) -> bool {
        let Some(path) = self.divider_drag.clone() else {
            return false;
        };
        let Some(t) = &mut self.terminal else {
            return false;
        };
        if let Some((col, row)) = t.display.window_cell(position) {
            if t.workspace.drag_divider(&path, col, row) {
                t.display.window.request_redraw();
            }
        }
        true
    }
}

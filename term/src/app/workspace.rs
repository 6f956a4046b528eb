//! The window's tabs and panes: each pane a [`Session`] of its own (PTY,
//! size, title, scrollback, selection) with its own frame builder; each tab
//! a [`Layout`] of panes with one focused.
//!
//! Drawing cost follows what is seen: a pane's frame is rebuilt only when
//! its session woke it (or it has the cursor); panes of hidden tabs are
//! never built, and their wake-ups are only re-armed now and then, so a
//! flood in a hidden tab costs the UI thread a few wake-ups a second.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use render::CellRect;
use winit::event_loop::EventLoopProxy;

use super::bar::BarPlace;
use super::layout::{Axis, Direction, Layout, PaneId};
use super::UserEvent;
use crate::config::{Config, TabsConfig};
use crate::frame::FrameBuilder;
use koi_terminal::palette::Palette;
use koi_terminal::session::{Session, SessionError, SessionOptions};
use koi_terminal::GridSize;

/// One terminal in the window.
pub struct Pane {
    pub session: Session,
    pub builder: FrameBuilder,
    /// Set by the session's wake-up: there is output not yet drawn.
    woke: Arc<AtomicBool>,
    /// Where the pane sits in the window's grid now.
    pub rect: CellRect,
    /// What the application called itself (OSC 0/2).
    pub title: Option<String>,
    /// The pane has its own frame built at least once since it was shown.
    pub built: bool,
    /// Its search bar, while open.
    pub search: Option<super::search::Search>,
    /// The link under the pointer, underlined while the modifier is held.
    pub hover: Option<super::link_glue::Hover>,
}

impl Pane {
    /// Take the "woke" flag: whether output arrived since the last call.
    pub fn take_woke(&self) -> bool {
        self.woke.swap(false, Ordering::AcqRel)
    }

    /// Mark the pane as needing a rebuild (input changed its view).
    pub fn touch(&self) {
        self.woke.store(true, Ordering::Release);
    }

    /// The label for its tab.
    pub fn label(&self) -> String {
        if let Some(title) = self.title.as_ref().filter(|t| !t.is_empty()) {
            return title.clone();
        }
        self.session
            .current_dir()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "shell".to_owned())
    }
}

/// A layout of panes with one focused, and the marks its label shows.
pub struct Tab {
    /// Unique in the window (from the same counter as pane ids).
    pub id: u64,
    pub layout: Layout,
    pub focus: PaneId,
    /// A pane printed while the tab was hidden.
    pub activity: bool,
    /// A pane rang the bell while the tab was hidden.
    pub bell: bool,
    /// While hidden: since when, and the output its panes had read by
    /// the end of [`ACTIVITY_GRACE`].
    hidden: Option<(Instant, u64)>,
}

/// Output that follows a tab's hiding this closely is the shell redrawing
/// for the resize the bar caused, not something new to look at.
const ACTIVITY_GRACE: Duration = Duration::from_millis(500);

/// Every pane of the window and the tabs they are arranged in.
pub struct Workspace {
    pub panes: HashMap<PaneId, Pane>,
    pub tabs: Vec<Tab>,
    pub active: usize,
    next_id: PaneId,
    proxy: Mutex<EventLoopProxy<UserEvent>>,
    /// The window's grid (cells and cell pixels) at the last layout.
    grid: GridSize,
    bar: BarPlace,
}

/// What a pane's new session is made of, besides its size.
pub struct Spawn<'a> {
    pub config: &'a Config,
    pub command: Option<Vec<String>>,
    pub working_directory: Option<PathBuf>,
}

impl Workspace {
    /// One tab with one pane running `spawn`, sized to `grid`.
    pub fn open(
        spawn: Spawn<'_>,
        grid: GridSize,
        proxy: EventLoopProxy<UserEvent>,
    ) -> Result<Self, SessionError> {
        let mut workspace = Self {
            panes: HashMap::new(),
            tabs: Vec::new(),
            active: 0,
            next_id: 1,
            proxy: Mutex::new(proxy),
            grid,
            bar: BarPlace::from(&spawn.config.tabs),
        };
        let id = workspace.spawn(spawn, grid)?;
        workspace.tabs.push(Tab {
            id: 0,
            layout: Layout::new(id),
            focus: id,
            activity: false,
            bell: false,
            hidden: None,
        });
        workspace.relayout(grid);
        Ok(workspace)
    }

    fn spawn(&mut self, spawn: Spawn<'_>, size: GridSize) -> Result<PaneId, SessionError> {
        let id = self.next_id;
        self.next_id += 1;
        let woke = Arc::new(AtomicBool::new(true));
        let proxy = Mutex::new(self.proxy.lock().clone());
        let config = spawn.config;
        let session = Session::spawn(
            SessionOptions {
                command: spawn.command,
                shell: config.shell_argv(),
                size,
                working_directory: spawn.working_directory,
                // The integration reads the prefix; [env] may still set it.
                env: std::iter::once((
                    koi_terminal::shell_integration::PREFIX_ENV.to_owned(),
                    config.shell.suggest_prefix.clone(),
                ))
                .chain(config.env.clone())
                .collect(),
                scrollback_lines: config.scrolling.history,
                palette: Palette::from_theme(&config.theme()),
                osc52_store: config.terminal.osc52_copy,
                overlay_token: Some(koi_terminal::overlay_token::new_token()),
                shell_integration: config.shell.integration,
                picture_budget: (config.terminal.picture_memory_mb as usize) << 20,
            },
            {
                let woke = woke.clone();
                move || {
                    woke.store(true, Ordering::Release);
                    let _ = proxy.lock().send_event(UserEvent::Wakeup);
                }
            },
        )?;
        self.panes.insert(
            id,
            Pane {
                session,
                builder: FrameBuilder::default(),
                woke,
                rect: CellRect::default(),
                title: None,
                built: false,
                search: None,
                hover: None,
            },
        );
        Ok(id)
    }

    pub fn tab(&self) -> &Tab {
        // `tabs` is never empty while the workspace exists: closing the
        // last pane ends the window instead.
        &self.tabs[self.active.min(self.tabs.len() - 1)]
    }

    fn tab_mut(&mut self) -> &mut Tab {
        let index = self.active.min(self.tabs.len() - 1);
        &mut self.tabs[index]
    }

    /// Whether every pane's shell has ended and its output is parsed:
    /// the window is about to close.
    pub fn every_shell_ended(&self) -> bool {
        self.panes
            .values()
            .all(|pane| pane.session.exit_status().is_some())
    }

    pub fn focused_id(&self) -> PaneId {
        self.tab().focus
    }

    pub fn focused(&self) -> &Pane {
        // The focused id always names a live pane: panes leave the map
        // only through `close`, which moves the focus first.
        &self.panes[&self.focused_id()]
    }

    #[allow(
        clippy::expect_used,
        reason = "as in `focused`: the focused id always names a live pane"
    )]
    pub fn focused_mut(&mut self) -> &mut Pane {
        let id = self.focused_id();
        self.panes.get_mut(&id).expect("the focused pane is live")
    }

    /// The tab holding `id`.
    pub fn tab_of(&self, id: PaneId) -> Option<usize> {
        self.tabs
            .iter()
            .position(|t| t.layout.panes().contains(&id))
    }

    /// Whether the tab bar takes a row now.
    pub fn bar_shown(&self) -> bool {
        self.bar.shown(self.tabs.len())
    }

    /// The window's row the tab bar takes now, if it is shown.
    pub fn bar_row(&self) -> Option<usize> {
        self.bar.row(self.bar_shown(), usize::from(self.grid.rows))
    }

    /// The cells the panes share: the window's grid less the bar.
    pub fn area(&self) -> CellRect {
        self.area_with_bar(self.bar_shown())
    }

    fn area_with_bar(&self, shown: bool) -> CellRect {
        let (cols, rows) = (usize::from(self.grid.cols), usize::from(self.grid.rows));
        self.bar.area(shown, cols, rows)
    }

    /// The tab bar's settings changed (a config reload): lay out again.
    pub fn set_bar(&mut self, tabs: &TabsConfig) {
        self.bar = BarPlace::from(tabs);
        self.relayout(self.grid);
    }

    /// Lay every tab out in `grid` and resize each pane's PTY to its cells.
    pub fn relayout(&mut self, grid: GridSize) {
        self.grid = grid;
        let area = self.area();
        for tab in &self.tabs {
            for (id, rect) in tab.layout.place(area).0 {
                let Some(pane) = self.panes.get_mut(&id) else {
                    continue;
                };
                if rect.cols == 0 || rect.rows == 0 {
                    continue;
                }
                if pane.rect != rect {
                    pane.rect = rect;
                    pane.touch();
                }
                let clamp = |v: usize| u16::try_from(v).unwrap_or(u16::MAX);
                pane.session.resize(
                    GridSize::new(clamp(rect.cols), clamp(rect.rows))
                        .with_cell_px(grid.cell_width, grid.cell_height),
                );
            }
        }
    }

    /// The pane size a new split of the focused pane would get, so its
    /// shell starts at the size it keeps.
    fn size_for(&self, rect: CellRect) -> GridSize {
        let clamp = |v: usize| u16::try_from(v.max(1)).unwrap_or(u16::MAX);
        GridSize::new(clamp(rect.cols), clamp(rect.rows))
            .with_cell_px(self.grid.cell_width, self.grid.cell_height)
    }

    /// A new tab after the current one, in the focused pane's directory.
    pub fn new_tab(&mut self, config: &Config) -> Result<(), SessionError> {
        let cwd = self.focused().session.current_dir();
        // With the new tab the bar shows, unless it never does.
        let area = self.area_with_bar(self.bar.shown(self.tabs.len() + 1));
        let id = self.spawn(
            Spawn {
                config,
                command: None,
                working_directory: cwd,
            },
            self.size_for(area),
        )?;
        let index = (self.active + 1).min(self.tabs.len());
        let tab_id = self.next_id;
        self.next_id += 1;
        self.tabs.insert(
            index,
            Tab {
                id: tab_id,
                layout: Layout::new(id),
                focus: id,
                activity: false,
                bell: false,
                hidden: None,
            },
        );
        self.select(index);
        self.relayout(self.grid);
        Ok(())
    }

    /// Split the focused pane; the new one takes the focus.
    pub fn split(&mut self, config: &Config, axis: Axis) -> Result<(), SessionError> {
        let focused = self.focused_id();
        let cwd = self.focused().session.current_dir();
        let mut probe = self.tab().layout.clone();
        probe.split(focused, PaneId::MAX, axis);
        let rect = probe
            .place(self.area())
            .0
            .into_iter()
            .find(|(id, _)| *id == PaneId::MAX)
            .map_or(self.area(), |(_, r)| r);
        let id = self.spawn(
            Spawn {
                config,
                command: None,
                working_directory: cwd,
            },
            self.size_for(rect),
        )?;
        let tab = self.tab_mut();
        tab.layout.split(focused, id, axis);
        self.set_focus(id);
        self.relayout(self.grid);
        Ok(())
    }

    /// Take pane `id` out and drop its session (hanging up and reaping its
    /// child). Returns false when it was the last pane of the window.
    pub fn close(&mut self, id: PaneId) -> bool {
        let Some(index) = self.tab_of(id) else {
            return true;
        };
        if self.tabs[index].layout.panes().len() == 1 {
            if self.tabs.len() == 1 {
                return false;
            }
            self.tabs.remove(index);
            if self.active > index || self.active >= self.tabs.len() {
                self.active = self.active.saturating_sub(1);
            }
            self.select(self.active);
        } else {
            let tab = &mut self.tabs[index];
            let order = tab.layout.panes();
            tab.layout.remove(id);
            if tab.focus == id {
                let at = order.iter().position(|p| *p == id).unwrap_or(0);
                let remaining = tab.layout.panes();
                tab.focus = remaining[at.saturating_sub(1).min(remaining.len() - 1)];
            }
        }
        self.panes.remove(&id);
        self.relayout(self.grid);
        self.touch_visible();
        true
    }

    /// Show tab `index` (clamped); its marks clear.
    pub fn select(&mut self, index: usize) {
        let before = self.active;
        self.active = index.min(self.tabs.len().saturating_sub(1));
        if before != self.active && before < self.tabs.len() {
            let bytes = self.bytes_of(before);
            self.tabs[before].hidden = Some((Instant::now(), bytes));
        }
        let tab = self.tab_mut();
        tab.activity = false;
        tab.bell = false;
        tab.hidden = None;
        let panes = tab.layout.panes();
        for id in panes {
            if let Some(pane) = self.panes.get_mut(&id) {
                pane.built = false;
                pane.touch();
                // It may have been left un-armed while hidden.
                pane.session.rearm_wakeup();
            }
        }
    }

    /// Cycle through tabs by `step` (±1).
    pub fn cycle(&mut self, step: isize) {
        let n = self.tabs.len() as isize;
        let index = (self.active as isize + step).rem_euclid(n.max(1));
        self.select(index as usize);
    }

    /// Move the current tab by `step` places.
    pub fn move_tab(&mut self, step: isize) {
        let n = self.tabs.len() as isize;
        let to = (self.active as isize + step).clamp(0, n - 1) as usize;
        let tab = self.tabs.remove(self.active);
        self.tabs.insert(to, tab);
        self.active = to;
    }

    /// Focus `id` (in the current tab).
    pub fn set_focus(&mut self, id: PaneId) {
        let old = self.focused_id();
        if old == id || !self.tab().layout.panes().contains(&id) {
            return;
        }
        self.tab_mut().focus = id;
        for pane in [old, id] {
            if let Some(pane) = self.panes.get(&pane) {
                pane.touch();
            }
        }
    }

    /// Focus the pane across the divider in `direction`.
    pub fn focus_direction(&mut self, direction: Direction) -> bool {
        let from = self.focused_id();
        match self.tab().layout.neighbour(from, direction, self.area()) {
            Some(id) => {
                self.set_focus(id);
                true
            }
            None => false,
        }
    }

    /// Move the focused pane's nearest divider.
    pub fn resize_focused(&mut self, direction: Direction, cells: usize) {
        let (id, area) = (self.focused_id(), self.area());
        if self.tab_mut().layout.resize(id, direction, cells, area) {
            self.relayout(self.grid);
        }
    }

    /// Move the divider of the split at `path` under window cell
    /// (`col`, `row`).
    pub fn drag_divider(&mut self, path: &[bool], col: usize, row: usize) -> bool {
        let area = self.area();
        if self.tab_mut().layout.drag(path, (col, row), area) {
            self.relayout(self.grid);
            return true;
        }
        false
    }

    pub fn toggle_zoom(&mut self) {
        let id = self.focused_id();
        self.tab_mut().layout.toggle_zoom(id);
        self.relayout(self.grid);
        self.touch_visible();
    }

    /// Rebuild every pane of the tab shown (only those: a touched hidden
    /// pane would look like activity).
    fn touch_visible(&self) {
        for id in self.tab().layout.panes() {
            if let Some(pane) = self.panes.get(&id) {
                pane.touch();
            }
        }
    }

    /// The visible pane under window cell (`col`, `row`).
    pub fn pane_at(&self, col: usize, row: usize) -> Option<PaneId> {
        self.tab()
            .layout
            .place(self.area())
            .0
            .into_iter()
            .find(|(_, r)| r.contains(col, row))
            .map(|(id, _)| id)
    }

    /// Panes shown now, with where they go.
    pub fn visible(&self) -> Vec<(PaneId, CellRect)> {
        self.tab().layout.place(self.area()).0
    }

    /// Whether pane `id` is in the tab shown now.
    pub fn is_visible(&self, id: PaneId) -> bool {
        self.tab_of(id) == Some(self.active)
    }

    /// Output read by tab `index`'s panes, all told.
    fn bytes_of(&self, index: usize) -> u64 {
        self.tabs[index]
            .layout
            .panes()
            .iter()
            .filter_map(|id| self.panes.get(id))
            .map(|p| p.session.bytes_read())
            .sum()
    }

    /// Hidden tabs whose panes printed since they were hidden get the
    /// activity mark. Returns whether any mark changed.
    pub fn mark_hidden_activity(&mut self) -> bool {
        let mut changed = false;
        for index in 0..self.tabs.len() {
            if index == self.active || self.tabs[index].activity {
                continue;
            }
            let bytes = self.bytes_of(index);
            let tab = &mut self.tabs[index];
            let Some((since, seen)) = tab.hidden.as_mut() else {
                continue;
            };
            if since.elapsed() < ACTIVITY_GRACE {
                *seen = bytes;
            } else if bytes > *seen {
                tab.activity = true;
                changed = true;
            }
        }
        changed
    }

    /// Re-arm the wake-ups of hidden panes, so their exits and bells are
    /// seen (throttled by the caller); whether one holds events already.
    pub fn rearm_hidden(&self) -> bool {
        self.rearm_tabs(|index| index != self.active)
    }

    /// Re-arm every pane's wake-up without a frame; whether one holds
    /// events already.
    pub fn rearm_all(&self) -> bool {
        self.rearm_tabs(|_| true)
    }

    /// Re-arms the panes of the tabs `pick` takes. Events that came while
    /// a pane was still armed woke nobody: `true` asks the caller to
    /// handle them.
    fn rearm_tabs(&self, pick: impl Fn(usize) -> bool) -> bool {
        let mut pending = false;
        for (_, tab) in self.tabs.iter().enumerate().filter(|(i, _)| pick(*i)) {
            for id in tab.layout.panes() {
                if let Some(pane) = self.panes.get(&id) {
                    pane.session.rearm_wakeup();
                    pending |= !pane.session.events().is_empty();
                }
            }
        }
        pending
    }

    /// The labels for the tab bar.
    pub fn labels(&self) -> Vec<render::TabLabel> {
        self.tabs
            .iter()
            .enumerate()
            .map(|(index, tab)| {
                let failed = tab.layout.panes().iter().any(|id| {
                    self.panes
                        .get(id)
                        .and_then(|p| p.session.last_exit_code())
                        .is_some_and(|code| code != 0)
                });
                render::TabLabel {
                    title: self
                        .panes
                        .get(&tab.focus)
                        .map(Pane::label)
                        .unwrap_or_default(),
                    active: index == self.active,
                    activity: tab.activity,
                    bell: tab.bell,
                    failed,
                }
            })
            .collect()
    }
}

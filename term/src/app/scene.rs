//! One frame of the window: rebuild the frames of the panes shown that
//! changed, then hand them, the dividers and the tab bar to render's
//! composer. Panes of hidden tabs are not touched at all.

use render::{PaneView, Scene, TabBar};

use super::Terminal;
use crate::frame::CursorOptions;

impl Terminal {
    /// Build the window's frame. Returns whether some pane already has
    /// events queued that no wake-up reported, and whether a search scan
    /// wants another frame.
    pub(super) fn compose(&mut self, suggest: &super::suggest::Suggester) -> (bool, bool) {
        let workspace = &mut self.workspace;
        let focused = workspace.focused_id();
        let visible = workspace.visible();
        let mut pending = false;
        let mut changed = Vec::with_capacity(visible.len());
        let mut highlights = Vec::with_capacity(visible.len());
        let mut scanning = false;
        for (id, _) in &visible {
            let Some(pane) = workspace.panes.get_mut(id) else {
                changed.push(false);
                highlights.push(Vec::new());
                continue;
            };
            // Re-armed before the snapshot, so no update slips between.
            pane.session.rearm_wakeup();
            pending |= !pane.session.events().is_empty();
            let rebuild = pane.take_woke() | (*id == focused) | !pane.built;
            if rebuild {
                let cursor = if *id == focused {
                    self.display.cursor
                } else {
                    CursorOptions {
                        focused: false,
                        blinked_off: false,
                    }
                };
                let mut term = pane.session.terminal().lock();
                if let Some(search) = pane.search.as_mut() {
                    let output = pane.session.bytes_read();
                    scanning |= super::search_bar::scan(search, &mut term, output);
                }
                pane.builder.build(&mut term, cursor);
                pane.builder.frame_mut().pictures = pane.session.graphics().lock().tiles(&term);
                pane.built = true;
                if let Some(hover) = &pane.hover {
                    super::link_glue::underline(pane.builder.frame_mut(), hover);
                }
            }
            changed.push(rebuild);
            highlights.push(match &pane.search {
                Some(search) => search.highlights(&pane.session.terminal().lock()),
                None => Vec::new(),
            });
        }
        let labels = workspace.bar_shown().then(|| workspace.labels());
        let dividers = workspace
            .tab()
            .layout
            .place(workspace.area())
            .1
            .into_iter()
            .map(|d| d.divider)
            .collect();
        let panes = visible
            .iter()
            .zip(changed)
            .zip(&highlights)
            .filter_map(|(((id, rect), changed), highlights)| {
                let pane = workspace.panes.get(id)?;
                Some(PaneView {
                    id: *id,
                    frame: pane.builder.frame(),
                    rect: *rect,
                    changed,
                    focused: *id == focused,
                    highlights,
                })
            })
            .collect();
        let grid = self.display.grid_size();
        self.display.compose(&Scene {
            cols: usize::from(grid.cols),
            rows: usize::from(grid.rows),
            tab_bar: labels
                .as_deref()
                .zip(workspace.bar_row())
                .map(|(labels, row)| TabBar { labels, row }),
            panes,
            dividers,
            colors: self.display.chrome,
        });
        let focused = workspace.focused();
        self.display.bar = match (&focused.search, suggest.status(workspace.focused_id())) {
            (Some(s), _) => Some(super::search_bar::bar_layer(
                s,
                focused.rect,
                &self.display.chrome,
            )),
            (None, Some(status)) => Some(super::suggest::bar_layer(
                status,
                focused.rect,
                &self.display.chrome,
            )),
            (None, None) => None,
        };
        (pending, scanning)
    }
}

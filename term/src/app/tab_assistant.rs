//! One conversation per tab: each tab keeps its own panel (transcript,
//! input, attachments) and its own assistant (engine, conversation,
//! pending approval). The app works with the shown tab's; switching tabs
//! puts them away and takes the other tab's out, or fresh ones.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::assistant::{Assistant, SharedAiTables};
use super::overlay_glue::Captured;
use super::App;
use crate::overlay::{Overlay, OverlayConfig};

/// A hidden tab's panel and assistant.
struct Stashed {
    overlay: Overlay,
    assistant: Assistant,
    captured: Captured,
}

/// The panels of hidden tabs, and what a new tab's is made from.
pub struct PerTab {
    stash: HashMap<u64, Stashed>,
    /// The tab whose panel the app holds now.
    shown: u64,
    config: OverlayConfig,
    config_path: Option<PathBuf>,
    tables: SharedAiTables,
    waker: Arc<dyn Fn() + Send + Sync>,
}

impl PerTab {
    pub fn new(
        config: OverlayConfig,
        config_path: Option<PathBuf>,
        tables: SharedAiTables,
        waker: Arc<dyn Fn() + Send + Sync>,
    ) -> Self {
        Self {
            stash: HashMap::new(),
            shown: 0,
            config,
            config_path,
            tables,
            waker,
        }
    }

    /// A fresh panel and assistant.
    pub fn fresh(&self) -> (Overlay, Assistant) {
        (
            Overlay::new(self.config),
            Assistant::new(self.config_path.clone(), self.waker.clone())
                .with_tables(self.tables.clone()),
        )
    }
}

impl App {
    /// After the shown tab may have changed: swap the panel and assistant
    /// for that tab's own. A closed tab's are dropped (its turn cancelled).
    pub(super) fn follow_tab(&mut self) {
        let Some(t) = &self.terminal else { return };
        let id = t.workspace.tab().id;
        let old = self.per_tab.shown;
        if id == old {
            return;
        }
        let still_open = t.workspace.tabs.iter().any(|tab| tab.id == old);
        let next = self.per_tab.stash.remove(&id).unwrap_or_else(|| {
            let (overlay, assistant) = self.per_tab.fresh();
            Stashed {
                overlay,
                assistant,
                captured: Captured::default(),
            }
        });
        let previous = Stashed {
            overlay: std::mem::replace(&mut self.overlay, next.overlay),
            assistant: std::mem::replace(&mut self.assistant, next.assistant),
            captured: std::mem::replace(&mut self.captured, next.captured),
        };
        if still_open {
            self.per_tab.stash.insert(old, previous);
        }
        self.per_tab.shown = id;
        self.redraw();
    }
}

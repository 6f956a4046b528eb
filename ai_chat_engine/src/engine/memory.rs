//! The engine's memory methods: where the memory lives, handing a
//! conversation to the curator, and the curator's reports.

use crossbeam_channel::Receiver;

use super::Engine;
use crate::conversation::Conversation;
use crate::memory::worker::MemoryOutcome;
use crate::memory::MemoryPaths;

impl Engine {
    /// Whether the memory curator runs in this engine (`[ai] memory`, a
    /// configured model, sessions saved).
    pub fn memory_enabled(&self) -> bool {
        self.memory.is_some()
    }

    /// Where the memory for this engine's workspace lives (`None`: memory
    /// is off), for `/memory` and `/memory edit`.
    pub fn memory_paths(&self) -> Option<MemoryPaths> {
        Some(self.memory.as_ref()?.paths(self.workspace()))
    }

    /// The front end is done with `conversation` (`/new`, switching,
    /// exit): the curator reads what it has not read yet now, in the
    /// background. The receiver gets the outcome; `None` when memory is
    /// off. A conversation with no turn in this engine changes nothing.
    pub fn close_conversation(
        &self,
        conversation: &Conversation,
    ) -> Option<Receiver<MemoryOutcome>> {
        Some(self.memory.as_ref()?.close(conversation))
    }

    /// Every curation's outcome (idle and closed), for a front end that
    /// shows "memory updated"; `None` when memory is off.
    pub fn memory_reports(&self) -> Option<Receiver<MemoryOutcome>> {
        Some(self.memory.as_ref()?.reports())
    }
}

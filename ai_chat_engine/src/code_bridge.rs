//! The engine's end of a `run_code` program's bridge: each call the
//! program makes travels from the tool's thread to the engine thread,
//! which services it through the same gate as a direct call (see
//! `tool_exec`), and the answer travels back.

use ai_tools::{Bridge, BridgeAnswer};
use crossbeam_channel::{bounded, Sender};

/// What a program's call is told when the turn stopped servicing calls
/// (cancelled, or the program outlived its step).
pub const UNSERVICED: &str =
    "error: the turn ended before this call could be answered; nothing was run.";

/// One call a program made, waiting for the engine thread.
pub(crate) struct CodeCall {
    /// The index, in its step, of the `run_code` call that runs the program.
    pub parent: usize,
    /// The tool it calls.
    pub tool: String,
    /// Its arguments.
    pub args: serde_json::Value,
    /// Where the answer goes.
    pub reply: Sender<BridgeAnswer>,
}

/// Hands a program's calls to the engine thread and waits for the answer.
pub(crate) struct ChannelBridge {
    names: Vec<String>,
    parent: usize,
    calls: Sender<CodeCall>,
}

impl ChannelBridge {
    /// A bridge offering `names` to the program of call `parent`, whose
    /// calls go to `calls`.
    pub fn new(names: Vec<String>, parent: usize, calls: Sender<CodeCall>) -> Self {
        ChannelBridge {
            names,
            parent,
            calls,
        }
    }
}

impl Bridge for ChannelBridge {
    fn names(&self) -> Vec<String> {
        self.names.clone()
    }

    fn call(&self, tool: &str, args: serde_json::Value) -> BridgeAnswer {
        let (reply, answer) = bounded(1);
        let call = CodeCall {
            parent: self.parent,
            tool: tool.to_string(),
            args,
            reply,
        };
        if self.calls.send(call).is_err() {
            return BridgeAnswer::refused(UNSERVICED);
        }
        answer
            .recv()
            .unwrap_or_else(|_| BridgeAnswer::refused(UNSERVICED))
    }
}

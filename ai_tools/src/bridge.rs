//! The way back from a running program to the engine: a `run_code`
//! program calls koi's tools, and each call is handed to whoever ran the
//! program (the engine), which judges, asks, runs and records it exactly
//! as it does a call the model made directly.

use std::sync::Arc;

/// What a program's call came back with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeAnswer {
    /// The text the program gets: the tool's output, or the refusal or
    /// error as the model would have read it.
    pub text: String,
    /// The call was refused, failed or did not run.
    pub is_error: bool,
}

impl BridgeAnswer {
    /// A call that did not run, with the reason.
    pub fn refused(text: impl Into<String>) -> Self {
        BridgeAnswer {
            text: text.into(),
            is_error: true,
        }
    }
}

/// Services the calls of a running program.
pub trait Bridge: Send + Sync {
    /// The tools a program may call, by name, in the order they are
    /// declared.
    fn names(&self) -> Vec<String>;
    /// Handles one call and blocks until it is settled (judged, asked
    /// about when it must be, run or refused, recorded).
    fn call(&self, tool: &str, args: serde_json::Value) -> BridgeAnswer;
}

/// The bridge a call runs with: none for every tool but `run_code`, and
/// for `run_code` when nobody services calls (then each is refused).
#[derive(Clone, Default)]
pub struct CallBridge(Option<Arc<dyn Bridge>>);

/// What a program's call is told when no engine services calls.
pub const NO_BRIDGE: &str = "error: tool calls are not available here; nothing was run.";

impl CallBridge {
    /// A bridge that hands each call to `bridge`.
    pub fn new(bridge: Arc<dyn Bridge>) -> Self {
        CallBridge(Some(bridge))
    }

    /// The tools a program may call (none without a bridge).
    pub fn names(&self) -> Vec<String> {
        self.0.as_ref().map(|b| b.names()).unwrap_or_default()
    }

    /// Hands one call over, or refuses it when nobody listens.
    pub fn call(&self, tool: &str, args: serde_json::Value) -> BridgeAnswer {
        match &self.0 {
            Some(b) => b.call(tool, args),
            None => BridgeAnswer::refused(NO_BRIDGE),
        }
    }
}

impl std::fmt::Debug for CallBridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "CallBridge(serviced)"
        } else {
            "CallBridge(none)"
        })
    }
}

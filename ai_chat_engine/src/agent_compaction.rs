//! The agent's side of compaction: how the compactor sizes and asks the
//! model, and `/compact`. A child of `agent_loop`, so requests are still
//! built in one place.

use ai_tools::{CancelToken, Effect};

use super::Agent;
use crate::compaction::{looks_like_tests, Activity, Compactor, ContextWindow, SummaryModel};
use crate::conversation::Conversation;
use crate::emitter::Emitter;
use crate::message::{Message, ToolCall};
use crate::stream_msg::{EngineError, StreamMsg};

impl SummaryModel for Agent {
    fn request_bytes(&self, messages: &[Message]) -> usize {
        Agent::request_bytes(self, messages)
    }

    fn summarise(
        &self,
        messages: &[Message],
        in_band: bool,
        cancel: &CancelToken,
    ) -> Result<String, EngineError> {
        let main = self.client.model();
        let model = if in_band {
            main.as_str()
        } else {
            self.client.fast_model()
        };
        let req = self.request(model, &self.system_prompt, messages, true);
        self.client.side_request(&req, cancel)
    }

    fn classify(&self, call: &ToolCall) -> Activity {
        let args = serde_json::from_str(&call.arguments).unwrap_or(serde_json::Value::Null);
        match self.runner.registry().effect(&call.name, &args) {
            Ok(Effect::Read(_) | Effect::NetworkRead { .. }) => Activity::Read,
            Ok(Effect::Write(_)) => Activity::Edit,
            Ok(Effect::Shell { command, .. }) if looks_like_tests(&command) => Activity::Test,
            _ => Activity::Other,
        }
    }

    fn window(&self) -> ContextWindow {
        self.client
            .config()
            .compaction
            .window_for(&self.client.model())
    }
}

impl Agent {
    /// The compactor for this agent's settings.
    pub(crate) fn compactor(&self) -> Compactor<'_> {
        Compactor {
            model: self,
            policy: self.settings.compaction,
            settings: &self.client.config().compaction,
        }
    }

    /// `/compact`: one forced compaction, then the stream's end. A
    /// conversation mid-way through a round (calls not yet answered) is
    /// left alone: its history is not a valid request yet.
    pub(crate) fn compact_now(&self, conv: &Conversation, em: &Emitter, cancel: &CancelToken) {
        let result = if conv.plan() != crate::recovery::Step::Idle {
            Err(EngineError::Session(
                "this conversation has an unfinished turn; continue it before compacting".into(),
            ))
        } else {
            self.compactor().run(conv, true, em, cancel).map(|_| ())
        };
        conv.end();
        em.send(match result {
            Ok(()) => StreamMsg::Done,
            Err(e) => StreamMsg::Err(e),
        });
    }
}

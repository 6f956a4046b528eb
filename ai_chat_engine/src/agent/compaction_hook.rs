//! The agent's side of compaction: how the compactor sizes and asks the
//! model, and `/compact`. A child of the agent loop (`agent`), so requests are still
//! built in one place.

use ai_tools::{CancelToken, Effect};

use super::Agent;
use crate::compaction::{looks_like_tests, Activity, Compactor, ContextWindow, SummaryModel};
use crate::conversation::Conversation;
use crate::message::{project_media, Message, ToolCall};
use crate::model::providers::Request;
use crate::stream::emitter::Emitter;
use crate::stream::{EngineError, Event};

/// The model as one conversation sees it: its tool list (fixed at its
/// first request, MCP tools included) and its media level, so a summary
/// request shares the conversation's prefix and never re-sends images
/// the provider rejected.
pub(crate) struct ConversationModel<'a> {
    pub agent: &'a Agent,
    pub conv: &'a Conversation,
}

impl ConversationModel<'_> {
    /// The conversation's request for `model` with `messages`.
    fn with_request<T>(
        &self,
        model: &str,
        messages: &[Message],
        f: impl FnOnce(&Request<'_>) -> T,
    ) -> T {
        let agent = self.agent;
        let tools = crate::mcp_tools::conversation_specs(&agent.specs, &self.conv.context());
        let level = self.conv.lock().media;
        let projected = project_media(messages, level);
        let req = Request {
            tools: &tools,
            ..agent.request(model, &agent.system_prompt, &projected, true)
        };
        f(&req)
    }
}

impl SummaryModel for ConversationModel<'_> {
    fn request_bytes(&self, messages: &[Message]) -> usize {
        let model = self.agent.client.model();
        self.with_request(&model, messages, |req| self.agent.client.body_bytes(req))
    }

    fn summarise(
        &self,
        messages: &[Message],
        in_band: bool,
        cancel: &CancelToken,
    ) -> Result<String, EngineError> {
        let client = &self.agent.client;
        let main = client.model();
        let model = if in_band {
            main.as_str()
        } else {
            client.fast_model()
        };
        self.with_request(model, messages, |req| client.side_request(req, cancel))
    }

    fn classify(&self, call: &ToolCall) -> Activity {
        let args = serde_json::from_str(&call.arguments).unwrap_or(serde_json::Value::Null);
        match self.agent.runner.registry().effect(&call.name, &args) {
            Ok(Effect::Read(_) | Effect::NetworkRead { .. }) => Activity::Read,
            Ok(Effect::Write(_)) => Activity::Edit,
            Ok(Effect::Shell { command, .. }) if looks_like_tests(&command) => Activity::Test,
            _ => Activity::Other,
        }
    }

    fn window(&self) -> ContextWindow {
        let client = &self.agent.client;
        client.config().compaction.window_for(&client.model())
    }
}

impl Agent {
    /// The compactor for this agent's settings, asking `model`.
    pub(crate) fn compactor<'a>(&'a self, model: &'a ConversationModel<'a>) -> Compactor<'a> {
        Compactor {
            model,
            policy: self.settings.compaction,
            settings: &self.client.config().compaction,
        }
    }

    /// `/compact`: one forced compaction, then the stream's end. A
    /// conversation mid-way through a round (calls not yet answered) is
    /// left alone: its history is not a valid request yet.
    pub(crate) fn compact_now(&self, conv: &Conversation, em: &Emitter, cancel: &CancelToken) {
        let result = if conv.plan() != crate::store::recovery::Step::Idle {
            Err(EngineError::Session(
                "this conversation has an unfinished turn; continue it before compacting".into(),
            ))
        } else {
            let model = ConversationModel { agent: self, conv };
            self.compactor(&model)
                .run(conv, true, em, cancel)
                .map(|_| ())
        };
        conv.end();
        em.send(match result {
            Ok(()) => Event::Done,
            Err(e) => Event::from(e),
        });
    }
}

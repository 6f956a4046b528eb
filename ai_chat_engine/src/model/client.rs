//! Talking to the model: one request at a time, over HTTP or from the demo
//! script, with the model in use switchable between turns.

use std::sync::Mutex;
use std::time::Duration;

use ai_tools::CancelToken;

use crate::config::{ProviderKind, ResolvedConfig};
use crate::message::Message;
use crate::model::providers::{self, demo, Delta, FinishKind, Request};
use crate::model::thinking::{
    names_thinking_mode, AnthropicMode, ModeMemory, Thinking, ThinkingLevel,
};
use crate::model::transport::{StepResult, Transport};
use crate::stream::EngineError;

/// The provider, its endpoint and key, and the model in use.
pub(crate) struct ModelClient {
    cfg: ResolvedConfig,
    transport: Transport,
    /// The model in use; starts as `cfg.model`, changed by `set_model`.
    model: Mutex<String>,
    /// Pause between the demo provider's words.
    demo_word_delay: Duration,
    /// The thinking mode each Anthropic model was found to take.
    anthropic_modes: ModeMemory,
}

impl ModelClient {
    pub fn new(
        cfg: ResolvedConfig,
        demo_word_delay: Duration,
        anthropic_modes: ModeMemory,
    ) -> Result<ModelClient, EngineError> {
        Ok(ModelClient {
            transport: Transport::new()?,
            model: Mutex::new(cfg.model.clone()),
            cfg,
            demo_word_delay,
            anthropic_modes,
        })
    }

    pub fn config(&self) -> &ResolvedConfig {
        &self.cfg
    }

    pub fn is_demo(&self) -> bool {
        self.cfg.provider == ProviderKind::Demo
    }

    pub fn model(&self) -> String {
        self.model.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn set_model(&self, model: &str) {
        *self.model.lock().unwrap_or_else(|p| p.into_inner()) = model.to_string();
    }

    pub fn fast_model(&self) -> &str {
        &self.cfg.fast_model
    }

    /// The serialized body of a request, as the provider would see it.
    pub fn body_bytes(&self, req: &Request<'_>) -> usize {
        providers::prepare(
            self.cfg.provider,
            &self.cfg.base_url,
            req,
            self.thinking_for(req),
        )
        .body
        .len()
    }

    /// What `req` asks for in thinking: the configured level for a
    /// request to the model in use that offers tools (a round, or a
    /// summary made in-band with the round's prefix, where a changed
    /// thinking parameter would break the cache); a title, without tools,
    /// or a request to another (fast) model, which may not think at all,
    /// asks for nothing.
    fn thinking_for(&self, req: &Request<'_>) -> Option<Thinking> {
        let level = self.cfg.thinking;
        if level == ThinkingLevel::Off || req.tools.is_empty() || req.model != self.model() {
            return None;
        }
        let known = self.anthropic_modes.get(req.model);
        Some(Thinking {
            level,
            mode: known.unwrap_or_else(|| AnthropicMode::guess(req.model)),
        })
    }

    /// One model request.
    pub fn step(
        &self,
        req: &Request<'_>,
        cancel: &CancelToken,
        on_delta: &mut dyn FnMut(Delta) -> Result<(), EngineError>,
    ) -> StepResult {
        if self.is_demo() {
            return self.demo_step(req.messages, cancel, on_delta);
        }
        let thinking = self.thinking_for(req);
        let result = self.send(req, thinking, cancel, on_delta);
        // An Anthropic model that refuses the thinking mode koi guessed
        // gets the other one, in the same turn, and keeps it. A refusal
        // comes before any streamed byte, so nothing was shown twice.
        match thinking {
            Some(t) if refuses_mode(&result) && self.cfg.provider == ProviderKind::Anthropic => {
                let other = Thinking {
                    mode: t.mode.other(),
                    ..t
                };
                let retried = self.send(req, Some(other), cancel, on_delta);
                if !refuses_mode(&retried) {
                    self.anthropic_modes.remember(req.model, other.mode);
                }
                retried
            }
            _ => result,
        }
    }

    fn send(
        &self,
        req: &Request<'_>,
        thinking: Option<Thinking>,
        cancel: &CancelToken,
        on_delta: &mut dyn FnMut(Delta) -> Result<(), EngineError>,
    ) -> StepResult {
        let http = providers::prepare(self.cfg.provider, &self.cfg.base_url, req, thinking);
        self.transport.step(
            self.cfg.provider,
            self.cfg.api_key.as_ref(),
            &http,
            cancel,
            on_delta,
        )
    }

    fn demo_step(
        &self,
        messages: &[Message],
        cancel: &CancelToken,
        on_delta: &mut dyn FnMut(Delta) -> Result<(), EngineError>,
    ) -> StepResult {
        let script = demo::step(messages);
        for d in script.deltas {
            if cancel.sleep(self.demo_word_delay) {
                return StepResult::failed(EngineError::Cancelled);
            }
            if let Err(e) = on_delta(d) {
                return StepResult::failed(e);
            }
        }
        StepResult {
            outcome: Ok(script.output),
            usage: None,
        }
    }

    /// Asks for text only (no UI output); for summaries and titles.
    pub fn side_request(
        &self,
        req: &Request<'_>,
        cancel: &CancelToken,
    ) -> Result<String, EngineError> {
        if self.is_demo() {
            return Err(EngineError::Config(
                "the demo provider cannot summarise".into(),
            ));
        }
        let mut text = String::new();
        let mut collect = |d: Delta| {
            if let Delta::Text(t) = d {
                text.push_str(&t);
            }
            Ok(())
        };
        let step = self.step(req, cancel, &mut collect).outcome?;
        if step.finish.kind != FinishKind::Stop || !step.tool_calls.is_empty() {
            return Err(EngineError::Incomplete {
                reason: step.finish.raw,
            });
        }
        Ok(text)
    }
}

/// A 400 whose message is about the thinking mode asked for.
fn refuses_mode(result: &StepResult) -> bool {
    matches!(
        &result.outcome,
        Err(EngineError::Rejected { status: 400, message }) if names_thinking_mode(message)
    )
}

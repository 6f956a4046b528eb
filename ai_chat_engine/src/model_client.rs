//! Talking to the model: one request at a time, over HTTP or from the demo
//! script, with the model in use switchable between turns.

use std::sync::Mutex;
use std::time::Duration;

use ai_tools::CancelToken;

use crate::config::{ProviderKind, ResolvedConfig};
use crate::message::Message;
use crate::providers::{self, demo, Delta, FinishKind, Request};
use crate::stream_msg::EngineError;
use crate::transport::{StepResult, Transport};

/// The provider, its endpoint and key, and the model in use.
pub(crate) struct ModelClient {
    cfg: ResolvedConfig,
    transport: Transport,
    /// The model in use; starts as `cfg.model`, changed by `set_model`.
    model: Mutex<String>,
    /// Pause between the demo provider's words.
    demo_word_delay: Duration,
}

impl ModelClient {
    pub fn new(cfg: ResolvedConfig, demo_word_delay: Duration) -> Result<ModelClient, EngineError> {
        Ok(ModelClient {
            transport: Transport::new()?,
            model: Mutex::new(cfg.model.clone()),
            cfg,
            demo_word_delay,
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
        providers::prepare(self.cfg.provider, &self.cfg.base_url, req)
            .body
            .len()
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
        let http = providers::prepare(self.cfg.provider, &self.cfg.base_url, req);
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

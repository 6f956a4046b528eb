//! Cache-aware compaction. It owns the decision (when to compact) and the
//! act (summarise in-band, trim, or as a last resort drop), and records
//! every compaction in the session log, which stays the truth: the
//! history the model sees is a projection of it.
//!
//! The cached prefix is the economics of a long session: an append-only
//! history is read back at the cached price, so the engine keeps it
//! append-only for as long as the window allows (Kiso's lesson, see
//! DESIGN.md). Summaries happen rarely, at phase boundaries, in-band (the
//! same model, system prompt, tools and history, the instruction appended
//! at the end) and keep a generous raw tail.
//!
//! A failed summary never loses history: the full history stays, the
//! failure is recorded and shown, and the summary is retried after a
//! cooldown. Only near the window's limit is old history dropped, and
//! then the drop is recorded, shown, and marked for the model.

pub(crate) mod history;
mod phase;
pub(crate) mod policy;
pub(crate) mod report;
pub(crate) mod window;

use ai_tools::CancelToken;

pub use history::{apply_summary, apply_trim, drop_marker, trimmed_result, SUMMARY_INSTRUCTION};
pub use phase::{looks_like_tests, Activity, Boundary};
pub use policy::{
    decide, trim_pays, CompactionPolicy, Decision, Thresholds, Trigger, TrimEstimate,
    SUMMARY_RETRY_COOLDOWN_ROUNDS,
};
pub use report::{CompactionReport, CompactionState};
pub use window::{
    CompactionSettings, CompactionToml, ContextWindow, WindowSource, BYTES_PER_TOKEN,
    FALLBACK_WINDOW_TOKENS,
};

use crate::conversation::Conversation;
use crate::message::{Message, ToolCall};
use crate::store::session_log::{CompactionMethod, Entry};
use crate::stream::emitter::Emitter;
use crate::stream::EngineError;

/// Price of a cached input token over an uncached one that the trim
/// estimate assumes: hosted providers charge about a tenth.
pub const CACHED_PRICE_RATIO: f64 = 0.1;

/// What the compactor needs from the agent: the one place requests are
/// built stays the agent's.
pub(crate) trait SummaryModel {
    /// Serialized size of the next request with `messages`.
    fn request_bytes(&self, messages: &[Message]) -> usize;
    /// Asks for text only with `messages` (the instruction already
    /// appended): `in_band` with the conversation's own model, system
    /// prompt and tools; otherwise the fast model.
    fn summarise(
        &self,
        messages: &[Message],
        in_band: bool,
        cancel: &CancelToken,
    ) -> Result<String, EngineError>;
    /// What a call does, for phase boundaries.
    fn classify(&self, call: &ToolCall) -> Activity;
    /// The window of the model in use.
    fn window(&self) -> ContextWindow;
}

/// One compaction check, before a model round (or when the user asks).
pub(crate) struct Compactor<'a> {
    pub model: &'a dyn SummaryModel,
    pub policy: CompactionPolicy,
    pub settings: &'a CompactionSettings,
}

impl Compactor<'_> {
    fn thresholds(&self) -> Thresholds {
        match self.policy {
            CompactionPolicy::Adaptive => {
                Thresholds::for_window(self.model.window(), self.settings)
            }
            CompactionPolicy::FixedBudget { budget_bytes } => Thresholds::fixed(budget_bytes),
        }
    }

    /// Compacts `conv` if the policy says so (always when `forced`).
    /// Only cancel is an error; a failed summary is reported and kept.
    pub fn run(
        &self,
        conv: &Conversation,
        forced: bool,
        em: &Emitter,
        cancel: &CancelToken,
    ) -> Result<Option<CompactionReport>, EngineError> {
        let messages = conv.messages();
        let size = self.model.request_bytes(&messages);
        let t = self.thresholds();
        let cooldown = conv.lock().compaction.cooldown;
        let boundary = match self.policy {
            CompactionPolicy::Adaptive => phase::boundary(&messages, &|c| self.model.classify(c)),
            CompactionPolicy::FixedBudget { .. } => None,
        };
        let decision = match self.policy {
            CompactionPolicy::FixedBudget { budget_bytes } if !forced => {
                if size > budget_bytes {
                    Decision::Summarise(Trigger::FixedBudget)
                } else {
                    Decision::Keep
                }
            }
            _ => decide(size, &t, boundary, cooldown, forced),
        };
        let report = match decision {
            Decision::Keep => {
                let mut st = conv.lock();
                st.compaction.cooldown = st.compaction.cooldown.saturating_sub(1);
                drop(st);
                self.maybe_trim(conv, &messages, size, &t)
            }
            Decision::Summarise(trigger) => {
                Some(self.summarise(conv, &messages, size, &t, trigger, cancel)?)
            }
        };
        if let Some(r) = &report {
            em.send(r.to_event());
        }
        Ok(report)
    }

    fn size_of(&self) -> impl Fn(&Message) -> usize + '_ {
        let base = self.model.request_bytes(&[]);
        move |m: &Message| {
            self.model
                .request_bytes(std::slice::from_ref(m))
                .saturating_sub(base)
        }
    }

    fn summarise(
        &self,
        conv: &Conversation,
        messages: &[Message],
        size: usize,
        t: &Thresholds,
        trigger: Trigger,
        cancel: &CancelToken,
    ) -> Result<CompactionReport, EngineError> {
        let size_of = self.size_of();
        // A user who asks wants a smaller context now, whatever the window:
        // at most half of the history stays verbatim.
        let tail = match trigger {
            Trigger::User => {
                let history = size.saturating_sub(self.model.request_bytes(&[]));
                t.tail.min(history / 2)
            }
            _ => t.tail,
        };
        let Some(keep_from) = history::choose_keep_from(messages, &size_of, tail) else {
            return Ok(CompactionReport::NothingToCompact);
        };
        let mut asking = messages.to_vec();
        asking.push(Message::Notice(SUMMARY_INSTRUCTION.to_string()));
        let in_band = self.policy == CompactionPolicy::Adaptive;
        let error = match self.model.summarise(&asking, in_band, cancel) {
            Ok(text) if !text.trim().is_empty() => {
                let after = apply_summary(messages, text.trim(), keep_from);
                let bytes_after = self.model.request_bytes(&after);
                let folded = messages.len() - after.len() + 1;
                conv.lock().compact(
                    text.trim().to_string(),
                    keep_from,
                    CompactionMethod::Summary,
                    trigger,
                    (size, bytes_after),
                );
                return Ok(CompactionReport::Summarised {
                    trigger,
                    bytes_before: size,
                    bytes_after,
                    messages_folded: folded,
                });
            }
            Err(EngineError::Cancelled) => return Err(EngineError::Cancelled),
            Ok(_) => "the model answered with no text".to_string(),
            Err(EngineError::Incomplete { reason }) => {
                format!("the model did not answer with text only ({reason})")
            }
            Err(e) => e.to_string(),
        };
        conv.lock().record(Entry::CompactionFailed {
            trigger,
            error: error.clone(),
            bytes: size,
        });
        if size < t.limit {
            conv.lock().compaction.cooldown = SUMMARY_RETRY_COOLDOWN_ROUNDS;
            return Ok(CompactionReport::Failed {
                trigger,
                error,
                retry_in_rounds: SUMMARY_RETRY_COOLDOWN_ROUNDS,
            });
        }
        // The next request would not fit: drop, and say what was dropped.
        let start = crate::project_instructions::leading_context(messages);
        let dropped = &messages[start..keep_from];
        let dropped_bytes: usize = dropped.iter().map(&size_of).sum();
        let marker = drop_marker(dropped, dropped_bytes, &error);
        // Sized before the lock is taken: the model reads the
        // conversation's tools and media level.
        let bytes_after = self
            .model
            .request_bytes(&apply_summary(messages, &marker, keep_from));
        let mut st = conv.lock();
        st.compaction.cooldown = 0;
        st.compact(
            marker,
            keep_from,
            CompactionMethod::Dropped,
            trigger,
            (size, bytes_after),
        );
        Ok(CompactionReport::Dropped {
            trigger,
            bytes_before: size,
            bytes_after,
            messages_dropped: dropped.len(),
            error,
        })
    }

    /// Past the soft threshold with no boundary yet: trims large old tool
    /// results only when the estimate says the broken prefix pays for
    /// itself before the next summary. Otherwise (nearly always) nothing.
    fn maybe_trim(
        &self,
        conv: &Conversation,
        messages: &[Message],
        size: usize,
        t: &Thresholds,
    ) -> Option<CompactionReport> {
        if self.policy != CompactionPolicy::Adaptive || size < t.soft {
            return None;
        }
        let size_of = self.size_of();
        let keep_from = history::choose_keep_from(messages, &size_of, t.tail)?;
        let (ids, first) = history::trim_candidates(messages, keep_from);
        let first = first?;
        let mut trimmed = messages.to_vec();
        apply_trim(&mut trimmed, &ids);
        let bytes_after = self.model.request_bytes(&trimmed);
        let saved = size.saturating_sub(bytes_after);
        let before_cut: usize = messages[..first].iter().map(&size_of).sum();
        // Bytes a round adds: what followed the first answer, per answer.
        let first_answer = messages
            .iter()
            .position(|m| matches!(m, Message::Assistant { .. }))?;
        let rounds = messages[first_answer..]
            .iter()
            .filter(|m| matches!(m, Message::Assistant { .. }))
            .count()
            .max(1);
        let grown: usize = messages[first_answer..].iter().map(&size_of).sum();
        let growth = (grown / rounds).max(1);
        let estimate = TrimEstimate {
            saved,
            kept_after_cut: bytes_after.saturating_sub(before_cut),
            // The trim serves until the history grows back to the soft
            // threshold: from there a summary comes at the next boundary.
            // Left above it, the trim buys nothing a summary would not.
            remaining_rounds: t.soft.saturating_sub(bytes_after) / growth,
        };
        if !trim_pays(estimate, CACHED_PRICE_RATIO) {
            return None;
        }
        conv.lock().trim(ids.clone(), (size, bytes_after));
        Some(CompactionReport::Trimmed {
            results: ids.len(),
            bytes_before: size,
            bytes_after,
        })
    }
}

#[cfg(test)]
mod tests;

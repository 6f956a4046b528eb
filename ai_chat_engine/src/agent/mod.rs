//! The agent loop. It does not keep its own idea of where a turn is: after
//! every step it asks the recovery planner what the log says comes next
//! (discard a draft, settle or run calls, call the model, stop), so a live
//! turn and a turn resumed after a crash follow the same rules. It owns
//! the rounds: budgets, streaming, committing, compaction and titles.

use std::path::PathBuf;

use ai_tools::{CancelToken, ToolSpec};

use crate::agent::tool_exec::ToolRunner;
use crate::budgets::{MAX_ROUNDS, MAX_STREAMED_OUTPUT_BYTES, WRAP_UP_ROUND};
use crate::conversation::Conversation;
use crate::message::{has_images, project_media, Message, ReasoningBlock, ToolCall, UserInput};
use crate::model::client::ModelClient;
use crate::model::providers::{history_calls, Delta, FinishKind, Request, StepOutput};
use crate::model::transport::StepResult;
use crate::prompt::EnvironmentFacts;
use crate::store::recovery::{PendingCall, Step};
use crate::store::session_log::Entry;
use crate::stream::emitter::Emitter;
use crate::stream::{EngineError, Event};
use crate::test_hook::{pause, Point};

mod compaction_hook;
mod memory_hook;
pub(crate) mod parallel;
pub(crate) mod tool_exec;
pub(crate) use memory_hook::Snapshot;

/// Told to the model before round [`WRAP_UP_ROUND`].
pub const WRAP_UP_NOTICE: &str = "This turn has used 19 of its 25 model rounds; 5 remain. \
Wrap up now: finish or safely stop the current step, then answer with what is done, what is \
not, and what the user should do next. Do not start new work.";

/// The result given for calls the final round asked for.
const ROUND_LIMIT_RESULT: &str = "not run: this turn reached its 25-round limit. Tell the user \
what remains; they can ask you to continue.";

/// System prompt of the title request (a separate, tiny request).
const TITLE_SYSTEM: &str = "You name conversations. Reply with a title of at most six words \
for the user's message below: no quotes, no trailing punctuation, nothing else.";

/// Longest title kept.
const MAX_TITLE_CHARS: usize = 80;

/// Paused rounds one turn carries on from (each a further request with
/// the paused content last). The API pauses after its own loop of
/// server tool calls; a few continuations finish any real search, and
/// the bound keeps a provider that always pauses from looping.
const MAX_PAUSE_CONTINUATIONS: usize = 3;

/// How many assistant rounds at the end of `messages` were paused.
fn paused_rounds(messages: &[Message]) -> usize {
    messages
        .iter()
        .rev()
        .take_while(|m| {
            matches!(m, Message::Assistant { reasoning_blocks, .. }
                if reasoning_blocks.iter().any(|b| matches!(b, ReasoningBlock::PausedContent { .. })))
        })
        .count()
}

/// What the loop needs besides the model and the tools.
pub(crate) struct LoopSettings {
    /// Where SOUL/STYLE/SKILL.md are read.
    pub config_dir: Option<PathBuf>,
    /// Ask for a title after a conversation's first turn.
    pub generate_titles: bool,
    /// When older history is compacted.
    pub compaction: crate::compaction::CompactionPolicy,
    /// koi's data dir when memory is on: the memory files under it go in
    /// the environment message.
    pub memory_dir: Option<PathBuf>,
}

/// The model, the tools and the static prompt a turn runs with.
pub(crate) struct Agent {
    /// Shared with the explore tool, whose children ask the same model.
    pub client: std::sync::Arc<ModelClient>,
    pub runner: ToolRunner,
    pub system_prompt: String,
    pub specs: Vec<ToolSpec>,
    /// MCP servers (their tools are fixed per conversation; see mcp_tools).
    pub mcp: Option<std::sync::Arc<ai_mcp::Hub>>,
    pub settings: LoopSettings,
}

impl Agent {
    /// Runs one turn to its single terminal message: `input` is the
    /// user's new message, or `None` to continue what the log left
    /// unfinished. Returns whether a title should be generated now (the
    /// conversation is then left in its titling phase; otherwise it is
    /// idle again before the terminal message is sent).
    pub fn run_turn(
        &self,
        conv: &Conversation,
        input: Option<UserInput>,
        em: &Emitter,
        cancel: &CancelToken,
    ) -> bool {
        let result = self.turn_recorded(conv, input, em, cancel);
        // Once per conversation, after its first successful turn.
        let want_title = result.is_ok() && self.settings.generate_titles && {
            let mut st = conv.lock();
            let want = st.title.is_none() && !st.title_attempted && !st.messages.is_empty();
            st.title_attempted = true;
            want
        };
        if want_title {
            conv.set_titling();
        } else {
            conv.end();
        }
        em.send(match result {
            Ok(()) => Event::Done,
            Err(e) => Event::from(e),
        });
        want_title
    }

    /// Runs one turn and records its end, leaving the terminal message
    /// and the conversation's phase to the caller (a goal runs several).
    pub(crate) fn turn_recorded(
        &self,
        conv: &Conversation,
        input: Option<UserInput>,
        em: &Emitter,
        cancel: &CancelToken,
    ) -> Result<(), EngineError> {
        // A continuation with nothing to continue is no turn at all.
        let nothing = input.is_none() && conv.plan() == Step::Idle;
        let result = self.turn(conv, input, em, cancel);
        let outcome = match &result {
            Ok(()) => "done".to_string(),
            Err(e) => e.to_string(),
        };
        // A turn refused before it began (calls still undecided) leaves
        // the log as it was.
        if !nothing && !matches!(result, Err(EngineError::Uncertain { .. })) {
            conv.record(Entry::TurnEnd { outcome });
        }
        result
    }

    /// Follows the planner until it says idle.
    fn turn(
        &self,
        conv: &Conversation,
        mut input: Option<UserInput>,
        em: &Emitter,
        cancel: &CancelToken,
    ) -> Result<(), EngineError> {
        let mut round = 0usize;
        let mut shown = 0usize;
        loop {
            if cancel.is_cancelled() {
                return Err(EngineError::Cancelled);
            }
            match conv.plan() {
                Step::DiscardDraft => conv.record(Entry::DraftDiscarded),
                Step::Close { call, reason } => self.runner.close(conv, &call, reason, em),
                Step::ResolveUncertain(calls) => {
                    return Err(EngineError::Uncertain { calls: calls.len() })
                }
                Step::AskAgain(call) => {
                    let again = PendingCall {
                        call,
                        approved: false,
                        rerun: false,
                    };
                    self.runner.run(conv, &[again], em, cancel)?;
                }
                Step::RunCalls(pending) => self.runner.run(conv, &pending, em, cancel)?,
                Step::CallModel | Step::Idle if input.is_some() => {
                    if let Some(input) = input.take() {
                        self.start_turn(conv, input);
                    }
                }
                Step::CallModel => {
                    round += 1;
                    if round > MAX_ROUNDS {
                        return Err(EngineError::RoundLimit { rounds: MAX_ROUNDS });
                    }
                    self.round(conv, round, &mut shown, em, cancel)?;
                }
                Step::Idle => return Ok(()),
            }
        }
    }

    /// One model round: stream, then commit. The calls it asks for are
    /// the planner's to run next, except in the last round.
    fn round(
        &self,
        conv: &Conversation,
        round: usize,
        shown: &mut usize,
        em: &Emitter,
        cancel: &CancelToken,
    ) -> Result<(), EngineError> {
        if round == WRAP_UP_ROUND {
            push_notice(conv, WRAP_UP_NOTICE);
        }
        crate::mcp_tools::announce(self.mcp.as_ref(), conv);
        let model = compaction_hook::ConversationModel { agent: self, conv };
        self.compactor(&model).run(conv, false, em, cancel)?;
        let messages = conv.messages();
        let tools = crate::mcp_tools::conversation_specs(&self.specs, &conv.context());
        let model = self.client.model();
        let mut text = String::new();
        let mut reasoning = String::new();
        conv.record(Entry::Draft { round });
        let result = {
            let mut started = false;
            let mut on_delta = |d: Delta| -> Result<(), EngineError> {
                if !started {
                    started = true;
                    em.send(Event::AssistantStart);
                    pause(Point::Streaming);
                }
                let (Delta::Text(s) | Delta::Reasoning(s)) = &d;
                *shown += s.len();
                if *shown > MAX_STREAMED_OUTPUT_BYTES {
                    return Err(EngineError::OutputCap {
                        limit_bytes: MAX_STREAMED_OUTPUT_BYTES,
                    });
                }
                match d {
                    Delta::Text(t) => {
                        text.push_str(&t);
                        em.send(Event::Token { text: t });
                    }
                    Delta::Reasoning(r) => {
                        reasoning.push_str(&r);
                        em.send(Event::Reasoning { text: r });
                    }
                }
                Ok(())
            };
            let req = Request {
                tools: &tools,
                ..self.request(&model, &self.system_prompt, &messages, true)
            };
            self.step_degrading(conv, &req, em, cancel, &mut on_delta)
        };
        if let Some(u) = result.usage {
            em.send(Event::Usage {
                input: u.input,
                cached_input: u.cached_input,
                output: u.output,
                reasoning: u.reasoning,
            });
            conv.record(Entry::Usage {
                model,
                input: u.input,
                cached_input: u.cached_input,
                output: u.output,
                reasoning: u.reasoning,
            });
        }
        let step = match result.outcome {
            Ok(step) => step,
            Err(e) => {
                // Keep what the user saw, so the next turn's history matches it.
                if text.is_empty() {
                    conv.record(Entry::DraftDiscarded);
                } else {
                    let shown = Shown { text, reasoning };
                    commit_assistant(conv, shown, Vec::new(), Vec::new(), "partial");
                }
                return Err(e);
            }
        };
        let StepOutput {
            text: answer,
            tool_calls,
            reasoning_blocks: blocks,
            finish,
            ..
        } = step;
        let shown = Shown {
            text: answer,
            reasoning,
        };
        // Opaque reasoning travels with a complete round only: a partial
        // answer's is no use to the provider and must not be replayed.
        match finish.kind {
            FinishKind::Stop => {
                commit_assistant(conv, shown, Vec::new(), blocks, &finish.raw);
                Ok(())
            }
            FinishKind::ToolCalls if !tool_calls.is_empty() => {
                commit_assistant(conv, shown, tool_calls.clone(), blocks, &finish.raw);
                pause(Point::Committed);
                if round == MAX_ROUNDS {
                    self.runner
                        .refuse_all(conv, &tool_calls, ROUND_LIMIT_RESULT, em);
                    return Err(EngineError::RoundLimit { rounds: MAX_ROUNDS });
                }
                Ok(())
            }
            FinishKind::ToolCalls => {
                commit_assistant(conv, shown, Vec::new(), blocks, &finish.raw);
                Ok(())
            }
            // The planner calls the model again: a paused round waits
            // for it, its content last in the next request.
            FinishKind::Pause if paused_rounds(&messages) < MAX_PAUSE_CONTINUATIONS => {
                commit_assistant(conv, shown, Vec::new(), blocks, &finish.raw);
                Ok(())
            }
            FinishKind::Refusal => {
                commit_assistant(conv, shown, Vec::new(), Vec::new(), &finish.raw);
                Err(EngineError::Refused {
                    explanation: finish.detail,
                })
            }
            FinishKind::Length
            | FinishKind::ContentFilter
            | FinishKind::Pause
            | FinishKind::Other => {
                commit_assistant(conv, shown, Vec::new(), Vec::new(), &finish.raw);
                Err(EngineError::Incomplete { reason: finish.raw })
            }
        }
    }

    /// Sends a round built from the history at the conversation's media
    /// level. A rejection that names the images (a 413, or a 400 about
    /// the image or its format) comes before any streamed byte, so the
    /// round is sent again in the same turn one level down, older images
    /// first, then all; the level is recorded, so later rounds and
    /// turns are built the same way and do not meet the rejection again.
    fn step_degrading(
        &self,
        conv: &Conversation,
        req: &Request<'_>,
        em: &Emitter,
        cancel: &CancelToken,
        on_delta: &mut dyn FnMut(Delta) -> Result<(), EngineError>,
    ) -> StepResult {
        let mut level = conv.lock().media;
        let mut projected = project_media(req.messages, level);
        loop {
            let result = self.client.step(
                &Request {
                    messages: &projected,
                    ..*req
                },
                cancel,
                &mut *on_delta,
            );
            if !rejects_media(&result) || !has_images(&projected) {
                return result;
            }
            // The next level that changes the request (with one image,
            // keeping the newest keeps them all).
            let mut next = level.next();
            let mut lower = Vec::new();
            while let Some(l) = next {
                lower = project_media(req.messages, l);
                if lower != projected {
                    break;
                }
                next = l.next();
            }
            let Some(next) = next else {
                return result;
            };
            projected = lower;
            level = next;
            conv.lock().media = level;
            conv.record(Entry::Media { level });
            em.send(Event::Notice {
                text: level.notice().to_string(),
            });
        }
    }

    /// Adds the environment message (first turn) or a change note, then
    /// the user's message.
    fn start_turn(&self, conv: &Conversation, input: UserInput) {
        let config_dir = self.settings.config_dir.as_deref();
        let cwd = conv.cwd();
        let mut now = EnvironmentFacts::gather(&cwd, input.terminal_size);
        if let Some(data) = &self.settings.memory_dir {
            now.read_memory(&crate::memory::MemoryPaths::new(data, &cwd));
        }
        let (is_new, note) = {
            let st = conv.lock();
            if now.terminal.is_none() {
                // Unknown now is not a change: keep what the model was told.
                now.terminal = st.env_facts.as_ref().and_then(|f| f.terminal);
            }
            let note = st
                .env_facts
                .as_ref()
                .and_then(|before| now.changes_since(before));
            (st.messages.is_empty(), note)
        };
        if is_new {
            // The instructions first: the same in every conversation of
            // this repository, so they extend the cached prefix; the
            // environment (date, size) differs and comes after.
            if let Some((text, _)) = crate::project_instructions::block(&cwd, config_dir) {
                conv.push(Message::Notice(text.clone()), Entry::Notice { text });
            }
            let text = now.message();
            conv.push(
                Message::Environment(text.clone()),
                Entry::Environment { text },
            );
        } else if let Some(note) = note {
            push_notice(conv, &note);
        }
        conv.lock().env_facts = Some(now);
        conv.push(
            Message::User {
                text: input.text.clone(),
                attachments: input.attachments.clone(),
                images: input.images.clone(),
            },
            Entry::User {
                text: input.text,
                attachments: input.attachments,
                images: input.images,
            },
        );
    }

    /// The request for one model round: `tools` only when `with_tools`.
    fn request<'a>(
        &'a self,
        model: &'a str,
        system: &'a str,
        messages: &'a [Message],
        with_tools: bool,
    ) -> Request<'a> {
        Request {
            model,
            system,
            messages,
            tools: if with_tools { &self.specs } else { &[] },
            native_search: with_tools && self.client.config().native_web_search,
        }
    }

    /// The serialized size of the next request, as the provider would see it.
    pub fn request_bytes(&self, messages: &[Message]) -> usize {
        let model = self.client.model();
        let req = self.request(&model, &self.system_prompt, messages, true);
        self.client.body_bytes(&req)
    }

    pub fn make_title(&self, conv: &Conversation) {
        let first_text = conv
            .lock()
            .messages
            .iter()
            .find_map(|m| match m {
                Message::User { text, .. } => Some(text.clone()),
                _ => None,
            })
            .unwrap_or_default();
        let title = if self.client.is_demo() {
            Some("koi demo".to_string())
        } else {
            let snippet: String = first_text.chars().take(2000).collect();
            let messages = [Message::User {
                text: snippet,
                attachments: Vec::new(),
                images: Vec::new(),
            }];
            let req = self.request(self.client.fast_model(), TITLE_SYSTEM, &messages, false);
            self.client
                .side_request(&req, &CancelToken::new())
                .ok()
                .map(|t| clean_title(&t))
                .filter(|t| !t.is_empty())
        };
        if let Some(title) = title {
            let mut st = conv.lock();
            st.title = Some(title.clone());
            st.record(Entry::Title { text: title });
        }
    }
}

/// A rejection worth retrying with fewer images: the request was too
/// large, or the provider refused an image or its format.
fn rejects_media(result: &StepResult) -> bool {
    match &result.outcome {
        Err(EngineError::Rejected { status: 413, .. }) => true,
        Err(EngineError::Rejected {
            status: 400,
            message,
        }) => {
            let m = message.to_ascii_lowercase();
            m.contains("image") || m.contains("media type") || m.contains("media_type")
        }
        _ => false,
    }
}

fn push_notice(conv: &Conversation, text: &str) {
    conv.push(
        Message::Notice(text.to_string()),
        Entry::Notice {
            text: text.to_string(),
        },
    );
}

/// What a round showed the user: its answer and its reasoning text.
struct Shown {
    text: String,
    reasoning: String,
}

/// Commits a round: the log keeps the calls exactly as the model made
/// them (the gate judges those); the history sent back carries arguments
/// the provider accepts, and the opaque reasoning the provider needs back.
fn commit_assistant(
    conv: &Conversation,
    shown: Shown,
    calls: Vec<ToolCall>,
    blocks: Vec<ReasoningBlock>,
    finish: &str,
) {
    conv.push(
        Message::Assistant {
            text: shown.text.clone(),
            tool_calls: history_calls(&calls),
            reasoning_blocks: blocks.clone(),
        },
        Entry::Assistant {
            text: shown.text,
            reasoning: shown.reasoning,
            tool_calls: calls,
            finish: finish.to_string(),
            reasoning_blocks: blocks,
        },
    );
}

fn clean_title(raw: &str) -> String {
    let line = raw.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let t = line
        .trim()
        .trim_matches(|c: char| c == '"' || c == '\'' || c == '*' || c == '#' || c == '`')
        .trim_end_matches(['.', '!', ':'])
        .trim();
    t.chars().take(MAX_TITLE_CHARS).collect()
}

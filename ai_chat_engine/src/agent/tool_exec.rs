//! The tool runner: the gate in front of every committed call (validation,
//! the policy, the approval handshake, the uncertain-repeat guard), the
//! durable start, and the run itself: read-only calls in parallel,
//! everything else alone and in order. It owns the approval mode.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ai_tools::run_tag::RunTag;
use ai_tools::tools::run_code::RUN_CODE;
use ai_tools::{
    Approved, CallBridge, CancelToken, Decision, Judged, Mode, ProgressSink, Proof, Registry,
    ToolError, ToolOutput, ToolRef,
};
use crossbeam_channel::RecvTimeoutError;
use koi_protocol::Op;

use crate::agent::parallel::{Next, Parallel};
use crate::budgets::{CANCEL_POLL, EXPLORE_CANCEL_GRACE};
use crate::code_bridge::{ChannelBridge, CodeCall};
use crate::context::{tool_error_view, tool_result_view};
use crate::conversation::{Conversation, ABANDONED_RESULT};
use crate::explore::{ExploreTool, SubagentStep, EXPLORE};
use crate::message::ToolCall;
use crate::store::recovery::{CloseReason, PendingCall};
use crate::store::session_log::{Decider, Entry, StartProof};
use crate::stream::emitter::Emitter;
use crate::stream::preview::{call_summary, preview};
use crate::stream::{ApprovalReply, EngineError, Event};
use crate::test_hook::{pause, Point};

mod code_calls;

/// What the model is told when it repeats a call whose effect is unknown.
pub const REPEAT_UNCERTAIN_RESULT: &str = "refused: an identical call (same tool, same \
arguments) was interrupted earlier and its effect is unknown, and the user has not decided \
whether to run it again, so koi will not repeat it. Check the current state, or ask the user \
to decide (rerun or abandon).";

/// What the model is told about calls a cancelled turn left unsettled.
const CANCELLED_RESULT: &str = "cancelled by the user; if it had started, it may have partly run.";

/// What the model is told about a call the user declined.
const DECLINED_RESULT: &str = "denied: the user declined this call; nothing was run. Do not \
retry it unchanged: ask the user, or find another way.";

/// A call's settled result: what the model sees, the full text, error flag.
struct Settled {
    content: String,
    full: String,
    is_error: bool,
}

impl Settled {
    /// A failed call's result: `content` is what the model is told.
    fn failed(content: String) -> Self {
        Settled {
            content,
            full: String::new(),
            is_error: true,
        }
    }
}

enum Gate {
    /// Answer without running (unknown tool, bad args, policy denial).
    Refuse(String),
    /// Run as judged: at once beside other reads when the judgement
    /// allows it and it only reads; otherwise alone, asking first when the
    /// judgement says so (unless the user already decided).
    Run {
        args: serde_json::Value,
        judged: Box<Judged>,
        ask: Option<(String, String)>,
    },
}

impl Gate {
    /// Whether an allowed call only reads and may join a parallel batch.
    fn parallel(judged: &Judged, ask: &Option<(String, String)>) -> bool {
        ask.is_none() && judged.allowed().is_some() && judged.footprint.is_read_only()
    }
}

/// The registry, the engine's own tool (`explore`), the approval mode
/// and how long an approval may wait.
pub(crate) struct ToolRunner {
    registry: Arc<Registry>,
    explore: Option<Arc<ExploreTool>>,
    mode: Mutex<Mode>,
    approval_timeout: Duration,
}

impl ToolRunner {
    pub fn new(
        registry: Arc<Registry>,
        explore: Option<Arc<ExploreTool>>,
        mode: Mode,
        approval_timeout: Duration,
    ) -> ToolRunner {
        ToolRunner {
            registry,
            explore,
            mode: Mutex::new(mode),
            approval_timeout,
        }
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The tool behind `name`: the engine's `explore`, or the registry's.
    fn tool(&self, name: &str) -> Option<ToolRef<'_>> {
        match &self.explore {
            Some(explore) if name == EXPLORE => Some(ToolRef::Own(explore.as_ref())),
            _ => self.registry.get(name),
        }
    }

    /// The explore tool, when `name` is it.
    fn explore_for(&self, name: &str) -> Option<&Arc<ExploreTool>> {
        self.explore.as_ref().filter(|_| name == EXPLORE)
    }

    /// The tools a `run_code` program may call: the registry's, but not
    /// `run_code` itself (the engine's own tools are not offered either).
    fn code_names(&self) -> Vec<String> {
        let mut names = self.registry.names();
        names.retain(|n| n != RUN_CODE);
        names
    }

    fn names(&self) -> Vec<String> {
        let mut names = self.registry.names();
        if self.explore.is_some() {
            names.push(EXPLORE.to_string());
        }
        names
    }

    pub fn mode(&self) -> Mode {
        *self.mode.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn set_mode(&self, mode: Mode) {
        *self.mode.lock().unwrap_or_else(|p| p.into_inner()) = mode;
    }

    /// Runs the planner's pending calls; every call gets exactly one
    /// result in history, in call order, whatever happens (so the next
    /// request stays valid).
    pub fn run(
        &self,
        conv: &Conversation,
        pending: &[PendingCall],
        em: &Emitter,
        cancel: &CancelToken,
    ) -> Result<(), EngineError> {
        let mut step = Step {
            runner: self,
            conv,
            pending,
            em,
            cancel,
            results: pending.iter().map(|_| None).collect(),
            announced: vec![false; pending.len()],
            committed: 0,
        };
        let outcome = step.run_all();
        if let Err(e) = &outcome {
            let fill = match e {
                EngineError::Cancelled => CANCELLED_RESULT.to_string(),
                other => format!("not run: {other}"),
            };
            for (i, r) in step.results.iter_mut().enumerate() {
                if r.is_none() {
                    if step.announced[i] {
                        em.send(Event::ToolFailed {
                            id: pending[i].call.id.clone(),
                            error: fill.clone(),
                        });
                    }
                    *r = Some(Settled::failed(fill.clone()));
                }
            }
        }
        step.commit_ready();
        outcome
    }

    /// Writes the result of a call whose fate was decided before a crash
    /// cut it off from its result.
    pub fn close(&self, conv: &Conversation, call: &ToolCall, reason: CloseReason, em: &Emitter) {
        let text = match reason {
            CloseReason::Abandoned => ABANDONED_RESULT,
            CloseReason::Denied => DECLINED_RESULT,
        };
        em.send(Event::ToolFailed {
            id: call.id.clone(),
            error: text.to_string(),
        });
        conv.push_result(call, text.to_string(), String::new(), true);
    }

    /// Gives every call the same refusal without running any.
    pub fn refuse_all(&self, conv: &Conversation, calls: &[ToolCall], why: &str, em: &Emitter) {
        for c in calls {
            em.send(Event::ToolStart {
                id: c.id.clone(),
                name: c.name.clone(),
                args_preview: preview(&c.arguments),
                summary: call_summary(&c.arguments),
            });
            conv.push_result(c, why.to_string(), String::new(), true);
            em.send(Event::ToolFailed {
                id: c.id.clone(),
                error: why.to_string(),
            });
        }
    }

    fn gate(&self, conv: &Conversation, p: &PendingCall) -> Gate {
        let registry = &self.registry;
        let call = &p.call;
        let Some(tool) = self.tool(&call.name) else {
            return Gate::Refuse(format!(
                "error: there is no tool named `{}`. Available tools: {}. Nothing was run.",
                call.name,
                self.names().join(", ")
            ));
        };
        let raw = if call.arguments.trim().is_empty() {
            "{}"
        } else {
            call.arguments.as_str()
        };
        let args: serde_json::Value = match serde_json::from_str(raw) {
            Ok(v @ serde_json::Value::Object(_)) => v,
            Ok(_) => {
                return Gate::Refuse(
                    "error: the arguments must be a JSON object; nothing was run.".to_string(),
                )
            }
            Err(e) => {
                return Gate::Refuse(format!(
                    "error: the arguments were not valid JSON ({e}); nothing was run. Call the \
                     tool again with a JSON object that matches its schema."
                ))
            }
        };
        let judged = match registry.judge_for(&*tool, &args, self.mode()) {
            Ok(judged) => judged,
            // Arguments that do not fit the tool's schema: the model's
            // mistake to fix, not a policy decision.
            Err(e) => return Gate::Refuse(format!("error: {e}. Nothing was run.")),
        };
        if !p.rerun && conv.repeats_uncertain(call).is_some() {
            return Gate::Refuse(REPEAT_UNCERTAIN_RESULT.to_string());
        }
        let ask = match &judged.decision {
            Decision::Deny { reason } => {
                return Gate::Refuse(format!("denied: {reason}. Nothing was run."))
            }
            Decision::Ask { .. } if p.approved => None,
            Decision::Ask { summary, detail } => Some((summary.clone(), detail.clone())),
            Decision::Allow => None,
        };
        Gate::Run {
            args,
            judged: Box::new(judged),
            ask,
        }
    }
}

/// The clearance a call earned: the policy's allow, or the user's yes
/// (asked now, or before a crash).
fn clearance(judged: &Judged) -> Option<Approved> {
    judged.allowed().or_else(|| judged.approve())
}

/// The durable start of `call`, written before it runs: after a crash, a
/// start without a result marks the call uncertain (unless proven
/// read-only), and `tag` finds what it left running.
fn start_entry(call: &ToolCall, approved: &Approved, tag: &RunTag) -> Entry {
    Entry::ToolStart {
        call_id: call.id.clone(),
        name: call.name.clone(),
        arguments: call.arguments.clone(),
        proof: match approved.proof() {
            Proof::ReadOnly => StartProof::ReadOnly,
            Proof::Unproven => StartProof::Unproven,
        },
        run_tag: Some(tag.value().to_string()),
    }
}

/// A call cleared to run: its index in the step, its arguments and its
/// clearance.
type Cleared = (usize, serde_json::Value, Approved);

/// One step's calls and what has become of each so far.
struct Step<'a> {
    runner: &'a ToolRunner,
    conv: &'a Conversation,
    pending: &'a [PendingCall],
    em: &'a Emitter,
    cancel: &'a CancelToken,
    /// Settled results not yet committed to history, by call index.
    results: Vec<Option<Settled>>,
    /// Whether each call's `ToolStart` was sent.
    announced: Vec<bool>,
    /// Calls whose results are in history (always a prefix).
    committed: usize,
}

impl Step<'_> {
    /// Gates and runs every call: read-only ones gather into a parallel
    /// batch; anything else waits for the batch and runs alone.
    fn run_all(&mut self) -> Result<(), EngineError> {
        let pending = self.pending;
        let mut batch: Vec<Cleared> = Vec::new();
        for (i, p) in pending.iter().enumerate() {
            if self.cancel.is_cancelled() {
                return Err(EngineError::Cancelled);
            }
            match self.runner.gate(self.conv, p) {
                Gate::Refuse(msg) => self.refuse(i, msg),
                Gate::Run { args, judged, ask } => {
                    // A program's calls are serviced while it runs: it
                    // runs alone, so a write it makes meets no read.
                    let parallel = Gate::parallel(&judged, &ask) && p.call.name != RUN_CODE;
                    let Some(approved) = clearance(&judged) else {
                        self.refuse(i, "denied by the policy; nothing was run.".into());
                        continue;
                    };
                    if parallel {
                        batch.push((i, args, approved));
                        continue;
                    }
                    self.run_batch(std::mem::take(&mut batch))?;
                    self.commit_ready();
                    if let Some((summary, detail)) = ask {
                        self.announce(i);
                        if let Some(refusal) = self.approve(&p.call.id, summary, detail)? {
                            self.refuse(i, refusal);
                            self.commit_ready();
                            continue;
                        }
                    }
                    self.run_batch(vec![(i, args, approved)])?;
                }
            }
            self.commit_ready();
        }
        self.run_batch(batch)
    }

    /// Sends `ToolStart` for call `i` once.
    fn announce(&mut self, i: usize) {
        if !self.announced[i] {
            self.announced[i] = true;
            let call = &self.pending[i].call;
            self.em.send(Event::ToolStart {
                id: call.id.clone(),
                name: call.name.clone(),
                args_preview: preview(&call.arguments),
                summary: call_summary(&call.arguments),
            });
        }
    }

    /// Settles call `i` as not run, telling the UI and the model `msg`.
    fn refuse(&mut self, i: usize, msg: String) {
        self.announce(i);
        self.em.send(Event::ToolFailed {
            id: self.pending[i].call.id.clone(),
            error: msg.clone(),
        });
        self.results[i] = Some(Settled::failed(msg));
    }

    /// Moves the settled results at the front of the queue into history.
    fn commit_ready(&mut self) {
        while self.committed < self.pending.len() {
            let Some(s) = self.results[self.committed].take() else {
                return;
            };
            let call = &self.pending[self.committed].call;
            self.conv.push_result(call, s.content, s.full, s.is_error);
            pause(Point::Recorded);
            self.committed += 1;
        }
    }

    /// Runs calls on their own threads (all at once) and waits, watching
    /// cancel. Each call's start is durable before it runs; a start that
    /// cannot be written stops the batch (calls already running are
    /// waited for) and ends the turn with the error.
    fn run_batch(&mut self, batch: Vec<Cleared>) -> Result<(), EngineError> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut running = Parallel::new();
        // Progress and subagent steps from the tool threads, sent on from
        // this thread so the emitter stays here.
        let (ptx, prx) = crossbeam_channel::unbounded::<(usize, String)>();
        let (stx, srx) = crossbeam_channel::unbounded::<(usize, SubagentStep)>();
        // Calls of a `run_code` program, serviced on this thread.
        let (ctx, crx) = crossbeam_channel::unbounded::<CodeCall>();
        let mut code_calls = 0usize;
        // Explore calls still running: a cancel waits for them to stop.
        let mut children: Vec<usize> = Vec::new();
        let mut failure = None;
        let pending = self.pending;
        for (i, args, approved) in batch {
            let call = &pending[i].call;
            let tag = RunTag::new();
            // Persist before effect: after a crash, a start without a
            // result marks this call as uncertain (unless proven read-only).
            let start = start_entry(call, &approved, &tag);
            if let Err(e) = self.conv.record_durable(start) {
                self.refuse(i, format!("not run: {e}"));
                failure = Some(e);
                break;
            }
            pause(Point::Started);
            self.announce(i);
            let registry = Arc::clone(&self.runner.registry);
            let explore = self.runner.explore_for(&call.name).cloned();
            let is_child = explore.is_some();
            let name = call.name.clone();
            let token = self.cancel.clone();
            let (ptx, stx) = (ptx.clone(), stx.clone());
            let progress = ProgressSink::new(move |text| {
                let _ = ptx.send((i, text));
            });
            let bridge = if name == RUN_CODE {
                let names = self.runner.code_names();
                CallBridge::new(Arc::new(ChannelBridge::new(names, i, ctx.clone())))
            } else {
                CallBridge::default()
            };
            let started = running.start(i, format!("koi-tool-{name}"), move || match explore {
                Some(explore) => explore.run_with(&args, &token, &|step| {
                    let _ = stx.send((i, step));
                }),
                None => {
                    registry.run_bridged(&name, &args, &approved, &token, tag, progress, bridge)
                }
            });
            match started {
                Ok(()) if is_child => children.push(i),
                Ok(()) => {}
                Err(why) => self.settle(i, Err(ToolError::Failed(why))),
            }
        }
        let forward = |em: &Emitter| {
            for (i, text) in prx.try_iter() {
                em.send(Event::ToolProgress {
                    id: pending[i].call.id.clone(),
                    text: preview(&text),
                });
            }
            for (i, step) in srx.try_iter() {
                em.send(Event::Subagent {
                    parent: pending[i].call.id.clone(),
                    step,
                });
            }
        };
        while running.running() > 0 {
            forward(self.em);
            for call in crx.try_iter() {
                code_calls += 1;
                let answer = self.serve_code_call(code_calls, &call);
                let _ = call.reply.send(answer);
            }
            let cancelled = match running.next_or_ready(CANCEL_POLL, &crx) {
                Next::Finished(i, r) => {
                    // Progress sent before the result is shown before it.
                    forward(self.em);
                    children.retain(|&c| c != i);
                    pause(Point::Ran);
                    let cancelled = matches!(r, Err(ToolError::Cancelled));
                    if !cancelled {
                        self.settle(i, r);
                    }
                    cancelled
                }
                // The tools saw the same token; stop waiting for them.
                Next::Waiting => self.cancel.is_cancelled(),
                Next::Idle => break,
            };
            if cancelled {
                stop_children(&mut running, &mut children, || forward(self.em));
                return Err(EngineError::Cancelled);
            }
        }
        failure.map_or(Ok(()), Err)
    }

    /// Records call `i`'s outcome and tells the UI.
    fn settle(&mut self, i: usize, r: Result<ToolOutput, ToolError>) {
        let call = &self.pending[i].call;
        self.results[i] = Some(match r {
            Ok(out) => {
                self.em.send(Event::ToolDone {
                    id: call.id.clone(),
                    preview: preview(&out.preview),
                });
                Settled {
                    content: tool_result_view(&call.name, &out.for_model),
                    full: out.full,
                    is_error: false,
                }
            }
            Err(e) => {
                let msg = e.to_string();
                self.em.send(Event::ToolFailed {
                    id: call.id.clone(),
                    error: msg.clone(),
                });
                Settled::failed(tool_error_view(&call.name, &msg))
            }
        });
    }

    /// Asks the user, recording the request and the answer. `Ok(None)`
    /// means approved; `Ok(Some(why))` is the refusal the model is told.
    fn approve(
        &self,
        id: &str,
        summary: String,
        detail: String,
    ) -> Result<Option<String>, EngineError> {
        self.conv.record(Entry::ApprovalAsked {
            call_id: id.to_string(),
            summary: summary.clone(),
        });
        pause(Point::Approval);
        self.em.send(Event::ApprovalAsked {
            id: Some(id.to_string()),
            summary,
            detail,
        });
        let timeout = self.runner.approval_timeout;
        let deadline = Instant::now() + timeout;
        let decided = |approved: bool, by: Decider| {
            self.conv.record(Entry::ApprovalDecided {
                call_id: id.to_string(),
                approved,
                by,
            });
        };
        loop {
            match self.em.ops().recv_timeout(CANCEL_POLL) {
                Ok(Op::Approve { call_id, decision }) if call_id == id => {
                    let approved = decision == ApprovalReply::Approve;
                    decided(approved, Decider::User);
                    return Ok((!approved).then(|| DECLINED_RESULT.into()));
                }
                Ok(Op::Cancel) => self.cancel.cancel(),
                // An answer to another call (a stale one), or an op that
                // is not the turn's business.
                Ok(_) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    decided(false, Decider::Dismissed);
                    return Ok(Some(
                        "denied: the approval request was dismissed without an answer; nothing \
                         was run."
                            .into(),
                    ));
                }
                Err(RecvTimeoutError::Timeout) => {
                    if self.cancel.is_cancelled() {
                        return Err(EngineError::Cancelled);
                    }
                    if Instant::now() >= deadline {
                        decided(false, Decider::Timeout);
                        return Ok(Some(format!(
                            "denied: nobody answered the approval request within {}s; nothing \
                             was run. Say what you wanted to do and let the user decide.",
                            timeout.as_secs_f32().round()
                        )));
                    }
                }
            }
        }
    }
}

/// After a cancel, waits (within [`EXPLORE_CANCEL_GRACE`]) for the
/// explore calls still running to stop, forwarding their last steps, so
/// the front ends see each subagent end before the turn does. Other
/// tools are not waited for: they saw the same token.
fn stop_children(running: &mut Parallel, children: &mut Vec<usize>, forward: impl Fn()) {
    let deadline = Instant::now() + EXPLORE_CANCEL_GRACE;
    while !children.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        match running.next(left.min(CANCEL_POLL)) {
            Next::Finished(i, _) => children.retain(|&c| c != i),
            Next::Waiting => {}
            Next::Idle => break,
        }
    }
    forward();
}

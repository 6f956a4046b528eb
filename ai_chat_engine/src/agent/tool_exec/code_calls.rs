//! The calls of a running `run_code` program, serviced on the engine
//! thread by the gate a direct call passes (see the parent module).

use ai_tools::run_tag::RunTag;
use ai_tools::tools::run_code::RUN_CODE;
use ai_tools::{BridgeAnswer, ProgressSink};

use super::{clearance, start_entry, Gate, Step, CANCELLED_RESULT};
use crate::code_bridge::CodeCall;
use crate::message::ToolCall;
use crate::store::recovery::PendingCall;
use crate::store::session_log::Entry;
use crate::stream::preview::{call_summary, preview};
use crate::stream::Event;

impl Step<'_> {
    /// Services call number `n` of a `run_code` program on this thread,
    /// through the gate a direct call passes: the policy, the approval
    /// (asked through the same dialog), the durable start, the run at the
    /// level its clearance earned, and the log. Its result goes back to
    /// the program, never into the history.
    pub(super) fn serve_code_call(&mut self, n: usize, code: &CodeCall) -> BridgeAnswer {
        let parent = &self.pending[code.parent].call;
        let call = ToolCall {
            id: format!("{}.{n}", parent.id),
            name: code.tool.clone(),
            arguments: code.args.to_string(),
        };
        self.em.send(Event::ToolStart {
            id: call.id.clone(),
            name: call.name.clone(),
            args_preview: preview(&call.arguments),
            summary: call_summary(&call.arguments),
        });
        let answer = self.code_call_answer(&call);
        self.em.send(if answer.is_error {
            Event::ToolFailed {
                id: call.id.clone(),
                error: answer.text.clone(),
            }
        } else {
            Event::ToolDone {
                id: call.id.clone(),
                preview: preview(&answer.text),
            }
        });
        self.conv.record(Entry::CodeCallResult {
            parent: parent.id.clone(),
            call_id: call.id.clone(),
            name: call.name.clone(),
            is_error: answer.is_error,
            for_model: answer.text.clone(),
        });
        answer
    }

    /// What a program's call comes back with (see [`Step::serve_code_call`]).
    fn code_call_answer(&mut self, call: &ToolCall) -> BridgeAnswer {
        if call.name == RUN_CODE || self.runner.explore_for(&call.name).is_some() {
            return BridgeAnswer::refused(format!(
                "error: a program cannot call `{}`; nothing was run.",
                call.name
            ));
        }
        let pending = PendingCall {
            call: call.clone(),
            approved: false,
            rerun: false,
        };
        let (args, judged, ask) = match self.runner.gate(self.conv, &pending) {
            Gate::Refuse(msg) => return BridgeAnswer::refused(msg),
            Gate::Run { args, judged, ask } => (args, judged, ask),
        };
        let Some(approved) = clearance(&judged) else {
            return BridgeAnswer::refused("denied by the policy; nothing was run.");
        };
        if let Some((summary, detail)) = ask {
            match self.approve(&call.id, summary, detail) {
                Ok(None) => {}
                Ok(Some(refusal)) => return BridgeAnswer::refused(refusal),
                Err(_) => return BridgeAnswer::refused(CANCELLED_RESULT),
            }
        }
        let tag = RunTag::new();
        let start = start_entry(call, &approved, &tag);
        if let Err(e) = self.conv.record_durable(start) {
            return BridgeAnswer::refused(format!("not run: {e}"));
        }
        let registry = &self.runner.registry;
        let ran = registry.run_approved(
            &call.name,
            &args,
            &approved,
            self.cancel,
            tag,
            ProgressSink::default(),
        );
        match ran {
            Ok(out) => BridgeAnswer {
                text: out.for_model,
                is_error: false,
            },
            Err(e) => BridgeAnswer::refused(format!("error: {e}")),
        }
    }
}

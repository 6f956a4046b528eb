//! Every limit the engine enforces, in one place. Each number says why it is
//! what it is; none of them limits a normal long answer.

use std::time::Duration;

/// Model rounds (request → response) in one user turn. Enough for a long
/// investigate-edit-test loop; a loop that runs past it is almost always
/// stuck, and the user can simply ask it to continue.
pub const MAX_ROUNDS: usize = 25;

/// Longest model name `Engine::set_model` accepts: real names are short;
/// anything longer is a paste gone wrong, not a model.
pub const MAX_MODEL_NAME: usize = 200;

/// The round before which the model is told to wrap up, leaving it five
/// rounds to finish the current step and summarise instead of being cut off
/// mid-task.
pub const WRAP_UP_ROUND: usize = 20;

/// Text + reasoning streamed to the user in one turn. 480 KB is ~120k
/// tokens, far beyond any useful answer; past it the model is looping, so the
/// turn ends with an error saying the answer is partial.
pub const MAX_STREAMED_OUTPUT_BYTES: usize = 480 * 1024;

/// One SSE line. Real events are a few KB; a megabyte line is a broken or
/// hostile server, and bounding it bounds our buffer.
pub const MAX_SSE_LINE_BYTES: usize = 1024 * 1024;

/// One response stream. 16 MiB is ~30x the output cap plus JSON framing
/// overhead; past it the stream is runaway.
pub const MAX_SSE_STREAM_BYTES: usize = 16 * 1024 * 1024;

/// Events in one response stream. A token per event for a 64k-token answer
/// fits; a server that sends more is looping.
pub const MAX_SSE_EVENTS: usize = 65_536;

/// Tool calls in one model response. Models batch a handful; 32 leaves
/// room for wide parallel reads while stopping a degenerate loop.
pub const MAX_TOOL_CALLS_PER_RESPONSE: usize = 32;

/// Arguments of one tool call. File writes carry whole files; 64 KiB is a
/// ~1,500-line source file, and anything larger should be written in pieces.
pub const MAX_TOOL_ARGS_BYTES: usize = 64 * 1024;

/// Establishing a TCP/TLS connection. A healthy endpoint answers in well
/// under a second; local servers in milliseconds.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Silence allowed between two chunks of a response (including the wait
/// for the first byte). Large local models can think for a minute before
/// their first token; longer than this, the server is stuck.
pub const STREAM_IDLE_TIMEOUT: Duration = Duration::from_secs(180);

/// Whole request, headers to last byte. Bounds a server that trickles
/// keep-alives forever.
pub const REQUEST_TOTAL_TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// Attempts per model request for retryable failures (network errors, 429,
/// 5xx): one try plus two retries rides out a blip without making the user
/// wait long on a real outage.
pub const MAX_ATTEMPTS: usize = 3;

/// First retry delay; doubled each retry. Short, because most blips clear
/// within a second.
pub const RETRY_BASE_DELAY: Duration = Duration::from_millis(250);

/// Longest `Retry-After` we honour. Beyond it waiting silently is worse
/// than telling the user the provider is rate-limiting.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// How often blocking waits (approval, running tools, streams) look at the
/// cancel flag: cancel must take effect within 100 ms.
pub const CANCEL_POLL: Duration = Duration::from_millis(20);

/// A tool result larger than this is shown to the model as head + tail
/// (the session log keeps it whole).
pub const TOOL_RESULT_MODEL_BYTES: usize = 16 * 1024;

/// Length of `args_preview` / `preview` in UI events: one status
/// line's worth.
pub const PREVIEW_CHARS: usize = 160;

/// Probe timeout per local port when nothing is configured: loopback
/// answers in microseconds, so a short wait keeps startup snappy.
pub const LOCAL_PROBE_TIMEOUT: Duration = Duration::from_millis(250);

/// Output tokens requested from providers that require a limit (Anthropic).
pub const MAX_OUTPUT_TOKENS: u32 = 16_384;

/// Model rounds of one `explore` subagent. Listing, searching and reading
/// a dozen files in batches takes a handful; a task that needs more is
/// the parent's to split, and the last round is told to answer.
pub const EXPLORE_MAX_ROUNDS: usize = 12;

/// Tool-result bytes an `explore` subagent may gather into its own
/// history (~64k tokens): room for a few dozen files, while its requests
/// stay well inside any model's window. Past it the child is told to
/// answer with what it has.
pub const EXPLORE_MAX_HISTORY_BYTES: usize = 256 * 1024;

/// Text and reasoning one `explore` subagent may stream (never shown,
/// only its final answer is): as for a turn, past it the model is looping.
pub const EXPLORE_MAX_STREAMED_BYTES: usize = 128 * 1024;

/// Wall time of one `explore` subagent. Reading and searching a project
/// takes seconds to a minute on a responsive model; five minutes bounds a
/// stuck one without cutting off a slow local model mid-thought too often.
pub const EXPLORE_MAX_WALL: Duration = Duration::from_secs(5 * 60);

/// Characters of an `explore` answer the parent sees (~4,000 tokens): a
/// summary with paths and line numbers, not the files themselves, which
/// is the point of exploring in a child.
pub const EXPLORE_ANSWER_CHARS: usize = 16_000;

/// How long a cancelled turn waits for its `explore` children to stop
/// and report: they look at the cancel flag every [`CANCEL_POLL`], so
/// this only bounds a bug, and a cancel still ends within a second.
pub const EXPLORE_CANCEL_GRACE: Duration = Duration::from_millis(500);

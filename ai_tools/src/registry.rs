//! The tool registry: the typed set of tools one engine offers, the policy
//! entry point and the background-process owner.

use std::path::PathBuf;
use std::sync::Arc;

use crate::access::{Access, Footprint};
use crate::bridge::CallBridge;
use crate::cancel::CancelToken;
use crate::effect::Effect;
use crate::error::ToolError;
use crate::judged::{Approved, Clearance, Judged};
use crate::mode::{Decision, Mode};
use crate::output::ToolOutput;
use crate::policy;
use crate::policy::Proof;
use crate::process::BackgroundTable;
use crate::run_tag::RunTag;
use crate::sandbox::secret_scan::SecretIndex;
use crate::sandbox::{self, Level, RunSandbox, SandboxConfig, SandboxMode, SandboxStatus, Support};
use crate::source::{ToolRef, ToolSource};
use crate::tool::{MemoryFiles, ProgressSink, Tool, ToolContext, ToolSpec};
use crate::workspace::Workspace;

/// What a registry is built from.
#[derive(Debug, Clone)]
pub struct RegistryConfig {
    /// The directory the chat started in.
    pub workspace: Workspace,
    /// Configured API-key variable names, scrubbed from subprocesses on top
    /// of the built-in patterns (`*_API_KEY`, `*TOKEN*`, …).
    pub secret_env_vars: Vec<String>,
    /// The memory files `memory_read` shows (`None`: memory is off).
    pub memory: Option<MemoryFiles>,
    /// How shell commands are sandboxed (`[ai] sandbox`, `sandbox_writable`).
    pub sandbox: SandboxConfig,
    /// The search service behind `web_search` (`[ai.web_search]`); no
    /// such tool without one.
    pub web_search: Option<crate::tools::web_search::WebSearchConfig>,
    /// The editor whose buffers the file tools read and write (`k acp`);
    /// `None`: the disk.
    pub editor: crate::editor::Editor,
    /// The runtimes behind `run_code` (see
    /// [`crate::tools::run_code::runtime::Runtimes::detect`]); no such
    /// tool without them.
    pub code_runtimes: Option<crate::tools::run_code::runtime::Runtimes>,
}

impl RegistryConfig {
    /// A config with no extra secrets and no memory.
    pub fn new(workspace: Workspace) -> Self {
        RegistryConfig {
            workspace,
            secret_env_vars: Vec::new(),
            memory: None,
            sandbox: SandboxConfig::default(),
            web_search: None,
            editor: None,
            code_runtimes: None,
        }
    }
}

/// The tools one engine offers. Dropping it kills background processes.
pub struct Registry {
    tools: Vec<Box<dyn Tool>>,
    workspace: Workspace,
    secret_env_vars: Arc<Vec<String>>,
    memory: Option<MemoryFiles>,
    /// The editor the file tools go through (`k acp`).
    editor: crate::editor::Editor,
    background: BackgroundTable,
    sandbox: SandboxConfig,
    /// `sandbox.writable`, shared with every run's plan.
    writable: Arc<Vec<PathBuf>>,
    /// What the kernel offers (probed once per process unless pinned).
    support: Support,
    /// What confined runs must not see.
    secrets: Arc<SecretIndex>,
    /// Tools known only at run time (MCP servers).
    source: Option<Arc<dyn ToolSource>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field(
                "tools",
                &self.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
            )
            .field("workspace", &self.workspace)
            .finish_non_exhaustive()
    }
}

impl Registry {
    /// Every standard tool for this workspace.
    pub fn standard(config: RegistryConfig) -> Self {
        let mut tools = crate::tools::standard();
        if let Some(search) = &config.web_search {
            tools.push(Box::new(crate::tools::web_search::WebSearch::new(
                search.clone(),
            )));
        }
        if let Some(runtimes) = &config.code_runtimes {
            tools.push(Box::new(crate::tools::run_code::RunCode::new(
                runtimes.clone(),
            )));
        }
        Self::with_tools(config, tools)
    }

    /// A registry with exactly these tools (tests, restricted front ends).
    pub fn with_tools(config: RegistryConfig, tools: Vec<Box<dyn Tool>>) -> Self {
        // The workspace's protected paths (the config file `--config`
        // named) are hidden like the user's own `sandbox_hidden`.
        let hidden: Vec<PathBuf> = config
            .sandbox
            .hidden
            .iter()
            .chain(config.workspace.protected())
            .cloned()
            .collect();
        let secrets = Arc::new(SecretIndex::new(config.workspace.root(), &hidden));
        Registry {
            tools,
            workspace: config.workspace,
            secret_env_vars: Arc::new(config.secret_env_vars),
            memory: config.memory,
            editor: config.editor,
            background: BackgroundTable::new(),
            writable: Arc::new(config.sandbox.writable.clone()),
            secrets,
            sandbox: config.sandbox,
            support: sandbox::support().clone(),
            source: None,
        }
    }

    /// Adds tools known only at run time (MCP servers). Its names never
    /// shadow a built-in tool's.
    pub fn with_source(mut self, source: Arc<dyn ToolSource>) -> Self {
        self.source = Some(source);
        self
    }

    /// Pins what the kernel is taken to offer, instead of the probe's
    /// answer: for tests of the unavailable path on a kernel that has it.
    pub fn with_sandbox_support(mut self, support: Support) -> Self {
        self.support = support;
        self
    }

    /// The workspace this registry works in.
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// Specs of every built-in tool, for advertising to the model (a
    /// source's tools are declared by whoever owns the source).
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(|t| t.spec()).collect()
    }

    /// Specs of the built-in tools a read-only agent is offered
    /// ([`Tool::offered_read_only`]), in the same order.
    pub fn read_only_specs(&self) -> Vec<ToolSpec> {
        self.tools
            .iter()
            .filter(|t| t.offered_read_only())
            .map(|t| t.spec())
            .collect()
    }

    /// Names of every tool, a source's included.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.tools.iter().map(|t| t.name().to_string()).collect();
        if let Some(source) = &self.source {
            names.extend(source.names());
        }
        names
    }

    /// The tool with this name.
    pub fn get(&self, name: &str) -> Option<ToolRef<'_>> {
        if let Some(own) = self.tools.iter().find(|t| t.name() == name) {
            return Some(ToolRef::Own(own.as_ref()));
        }
        self.source.as_ref()?.tool(name).map(ToolRef::Shared)
    }

    /// What a call would do, or why its arguments are unusable.
    pub fn effect(&self, name: &str, args: &serde_json::Value) -> Result<Effect, ToolError> {
        let tool = self
            .get(name)
            .ok_or_else(|| ToolError::UnknownTool(name.to_string()))?;
        tool.effect(args, &self.workspace)
    }

    /// The approval policy for one call in `mode` (pure: runs nothing).
    /// Unknown tools and bad arguments are denied with a reason the model
    /// can read. See [`Registry::judge_for`].
    pub fn decide(&self, name: &str, args: &serde_json::Value, mode: Mode) -> Decision {
        match self.get(name) {
            Some(tool) => self.decide_for(&*tool, args, mode),
            None => Decision::Deny {
                reason: ToolError::UnknownTool(name.to_string()).to_string(),
            },
        }
    }

    /// [`Registry::decide`] for a tool that is not the registry's (one the
    /// engine owns, such as `explore`): the same policy, in this workspace.
    pub fn decide_for(&self, tool: &dyn Tool, args: &serde_json::Value, mode: Mode) -> Decision {
        match self.judge_for(tool, args, mode) {
            Ok(judged) => judged.decision,
            Err(e) => Decision::Deny {
                reason: e.to_string(),
            },
        }
    }

    /// Judges one call in `mode`, once: its effect, the policy's decision
    /// and proof, its footprint and why it may run. Pure: runs nothing.
    pub fn judge(
        &self,
        name: &str,
        args: &serde_json::Value,
        mode: Mode,
    ) -> Result<Judged, ToolError> {
        let tool = self
            .get(name)
            .ok_or_else(|| ToolError::UnknownTool(name.to_string()))?;
        self.judge_for(&*tool, args, mode)
    }

    /// [`Registry::judge`] for a tool that is not the registry's.
    ///
    /// With the sandbox active, a shell command the policy cannot prove
    /// read-only but whose floor is clear runs contained (read-only,
    /// confidential) without asking in default, accept-edits and dont-ask
    /// mode, unless the model asked for more (`escalate`); plan mode keeps
    /// to what is proven. With `sandbox = "require"` on a kernel that
    /// cannot sandbox, a shell command the policy would allow asks.
    pub fn judge_for(
        &self,
        tool: &dyn Tool,
        args: &serde_json::Value,
        mode: Mode,
    ) -> Result<Judged, ToolError> {
        let effect = tool.effect(args, &self.workspace)?;
        let policy::Judgement {
            decision,
            proof,
            floor_clear,
        } = policy::judge(&effect, mode, &self.workspace);
        let decision = self.require_sandbox(&effect, decision, mode);
        let escalation = tool.escalation(args);
        let contain = matches!(effect, Effect::Shell { .. })
            && proof == Proof::Unproven
            && floor_clear
            && escalation.is_none()
            && self.sandbox_status().is_active()
            && matches!(mode, Mode::Default | Mode::AcceptEdits | Mode::DontAsk)
            && !decision.is_allow();
        let (decision, clearance) = if contain {
            (Decision::Allow, Some(Clearance::Contained))
        } else {
            let clearance = decision.is_allow().then_some(Clearance::Policy);
            (decision, clearance)
        };
        let decision = match decision {
            Decision::Ask { summary, detail } => {
                let mut detail = detail;
                if let Some(reason) = &escalation {
                    detail.push_str(&format!(
                        "\nthe assistant asks to run it with write and network access: {reason}"
                    ));
                }
                if let Some(p) = tool.approval_preview(args, &self.workspace) {
                    detail.push('\n');
                    detail.push_str(&p);
                }
                Decision::Ask { summary, detail }
            }
            other => other,
        };
        let footprint = footprint_of(&effect, proof, clearance);
        Ok(Judged {
            effect,
            decision,
            proof,
            footprint,
            clearance,
        })
    }

    /// An Allow of a shell command that cannot be sandboxed, under
    /// `sandbox = "require"`, becomes what the mode does with an Ask.
    fn require_sandbox(&self, effect: &Effect, decision: Decision, mode: Mode) -> Decision {
        let Effect::Shell { command, .. } = effect else {
            return decision;
        };
        let SandboxStatus::Unavailable { why, .. } = self.sandbox_status() else {
            return decision;
        };
        if self.sandbox.mode != SandboxMode::Require || !decision.is_allow() {
            return decision;
        }
        let detail = format!("the sandbox is required but unavailable ({why})");
        match mode {
            Mode::Plan | Mode::DontAsk => Decision::Deny {
                reason: format!(
                    "{detail}, and {mode} mode cannot ask; set [ai] sandbox = \"auto\" to run it unsandboxed"
                ),
            },
            _ => Decision::Ask {
                summary: policy::unicode::visible(command),
                detail,
            },
        }
    }

    /// What the sandbox does in this registry, for status lines.
    pub fn sandbox_status(&self) -> SandboxStatus {
        SandboxStatus::with_support(self.sandbox.mode, &self.support)
    }

    /// How a call would be sandboxed if it ran now, approved: `None` for
    /// a call that starts no process (or whose arguments are unusable).
    pub fn sandbox_for(&self, name: &str, args: &serde_json::Value) -> Option<RunSandbox> {
        let judged = self.judge(name, args, Mode::Bypass).ok()?;
        self.sandbox_at(&judged, judged.approve()?.level())
    }

    /// How a judged call would be sandboxed at `level` if it ran now:
    /// `None` for a call that starts no process.
    pub fn sandbox_at(&self, judged: &Judged, level: Level) -> Option<RunSandbox> {
        matches!(judged.effect, Effect::Shell { .. }).then(|| self.plan_at(level))
    }

    /// The plan for a run at `level`; what it hides is found when a
    /// process starts.
    fn plan_at(&self, level: Level) -> RunSandbox {
        let hidden = sandbox::Hidden(Arc::clone(&self.secrets));
        RunSandbox::plan(self.sandbox_status(), &self.writable, hidden, level)
    }

    /// What a call touches, for running independent calls in parallel.
    pub fn footprint(&self, name: &str, args: &serde_json::Value) -> Footprint {
        match self.judge(name, args, Mode::Default) {
            Ok(judged) => judged.footprint,
            Err(_) => Footprint::Exclusive,
        }
    }

    /// The context a call runs with (a fresh run tag). Any process it
    /// starts runs read-only; [`Registry::run_tagged`] sets the level each
    /// call earns.
    pub fn context(&self, cancel: CancelToken) -> ToolContext {
        self.context_tagged(cancel, RunTag::new())
    }

    /// The context a call runs with, its processes tagged `run_tag`.
    pub fn context_tagged(&self, cancel: CancelToken, run_tag: RunTag) -> ToolContext {
        ToolContext {
            run_tag,
            workspace: self.workspace.clone(),
            cancel,
            secret_env_vars: Arc::clone(&self.secret_env_vars),
            background: self.background.clone(),
            memory: self.memory.clone(),
            editor: self.editor.clone(),
            sandbox: self.plan_at(Level::ReadOnly),
            progress: ProgressSink::default(),
            bridge: CallBridge::default(),
        }
    }

    /// Run a call as the user approved it: judged now (the floor still
    /// refuses what it refuses in every mode), at the level an approval
    /// earns (proven read-only runs read-only, anything else
    /// workspace-write).
    pub fn run(
        &self,
        name: &str,
        args: &serde_json::Value,
        cancel: &CancelToken,
    ) -> Result<ToolOutput, ToolError> {
        self.run_tagged(name, args, cancel, RunTag::new())
    }

    /// [`Registry::run`] with a tag the caller chose (and recorded).
    pub fn run_tagged(
        &self,
        name: &str,
        args: &serde_json::Value,
        cancel: &CancelToken,
        run_tag: RunTag,
    ) -> Result<ToolOutput, ToolError> {
        let judged = self.judge(name, args, Mode::Bypass)?;
        let approved = match (&judged.decision, judged.approve()) {
            (Decision::Deny { reason }, _) => return Err(ToolError::Refused(reason.clone())),
            (_, Some(approved)) => approved,
            (_, None) => return Err(ToolError::Refused("not approved".into())),
        };
        self.run_approved(
            name,
            args,
            &approved,
            cancel,
            run_tag,
            ProgressSink::default(),
        )
    }

    /// Run a call that was judged and cleared ([`Judged::allowed`] or
    /// [`Judged::approve`]), at the level its clearance earned.
    pub fn run_approved(
        &self,
        name: &str,
        args: &serde_json::Value,
        approved: &Approved,
        cancel: &CancelToken,
        run_tag: RunTag,
        progress: ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        self.run_bridged(
            name,
            args,
            approved,
            cancel,
            run_tag,
            progress,
            CallBridge::default(),
        )
    }

    /// [`Registry::run_approved`] for a call whose program calls tools
    /// (`run_code`): each of its calls goes to `bridge`.
    #[allow(clippy::too_many_arguments)]
    pub fn run_bridged(
        &self,
        name: &str,
        args: &serde_json::Value,
        approved: &Approved,
        cancel: &CancelToken,
        run_tag: RunTag,
        progress: ProgressSink,
        bridge: CallBridge,
    ) -> Result<ToolOutput, ToolError> {
        let tool = self
            .get(name)
            .ok_or_else(|| ToolError::UnknownTool(name.to_string()))?;
        let mut ctx = self.context_tagged(cancel.clone(), run_tag);
        ctx.sandbox = ctx.sandbox.at(approved.level());
        ctx.progress = progress;
        ctx.bridge = bridge;
        // A bug in one tool fails that call, not the turn or the process.
        // Tools hold no state across calls that a panic could leave torn.
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tool.run(args, &ctx)));
        let mut out = ran.map_err(|payload| ToolError::Panicked(panic_message(&*payload)))??;
        let budget = tool.output_budget();
        if out.for_model.chars().count() > budget {
            out.for_model = crate::output::head_tail(&out.for_model, budget);
        }
        Ok(out)
    }

    /// Kill every background process. Also done on drop.
    pub fn shutdown(&self) {
        self.background.kill_all();
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The text a panic carried (`panic!("…")` gives a `&str` or a `String`).
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "no message".to_string()
    }
}

/// What a call touches, from its effect and how it was judged: a shell
/// command that is proven or contained only reads (anywhere it likes, so
/// it waits for every write); any other runs alone.
pub fn footprint_of(effect: &Effect, proof: Proof, clearance: Option<Clearance>) -> Footprint {
    match effect {
        Effect::Read(paths) => Footprint::Accesses(
            paths
                .iter()
                .map(|p| Access::Read(crate::workspace::canonicalize_lenient(p)))
                .collect(),
        ),
        Effect::Write(paths) => Footprint::Accesses(
            paths
                .iter()
                .map(|p| Access::Write(crate::workspace::canonicalize_lenient(p)))
                .collect(),
        ),
        Effect::Shell { .. } => {
            let reads = proof == Proof::ReadOnly || clearance == Some(Clearance::Contained);
            if reads {
                Footprint::Accesses(vec![Access::Read(PathBuf::from("/"))])
            } else {
                Footprint::Exclusive
            }
        }
        Effect::NetworkRead { .. } | Effect::WebSearch { .. } => {
            Footprint::Accesses(vec![Access::Network { mutating: false }])
        }
        Effect::NetworkWrite { .. } => {
            Footprint::Accesses(vec![Access::Network { mutating: true }])
        }
        Effect::OwnProcess => Footprint::Accesses(vec![Access::Process]),
        // A tool that is trusted to only read may run beside other reads;
        // anything else on a server koi cannot see into runs alone.
        Effect::Mcp(call) if call.trusted_read_only() => {
            Footprint::Accesses(vec![Access::Network { mutating: false }])
        }
        Effect::Mcp(_) => Footprint::Exclusive,
    }
}

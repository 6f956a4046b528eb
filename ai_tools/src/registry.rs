//! The tool registry: the typed set of tools one engine offers, the policy
//! entry point and the background-process owner.

use std::path::PathBuf;
use std::sync::Arc;

use crate::access::{Access, Footprint};
use crate::cancel::CancelToken;
use crate::error::ToolError;
use crate::mode::{Decision, Mode};
use crate::output::ToolOutput;
use crate::policy;
use crate::process::BackgroundTable;
use crate::run_tag::RunTag;
use crate::tool::{Effect, Tool, ToolContext, ToolSpec};
use crate::workspace::Workspace;

/// What a registry is built from.
#[derive(Debug, Clone)]
pub struct RegistryConfig {
    /// The directory the chat started in.
    pub workspace: Workspace,
    /// Configured API-key variable names, scrubbed from subprocesses on top
    /// of the built-in patterns (`*_API_KEY`, `*TOKEN*`, …).
    pub secret_env_vars: Vec<String>,
    /// The user's MEMORY.md for `memory_read`, if any.
    pub memory_path: Option<PathBuf>,
}

impl RegistryConfig {
    /// A config with no extra secrets and no memory file.
    pub fn new(workspace: Workspace) -> Self {
        RegistryConfig {
            workspace,
            secret_env_vars: Vec::new(),
            memory_path: None,
        }
    }
}

/// The tools one engine offers. Dropping it kills background processes.
pub struct Registry {
    tools: Vec<Box<dyn Tool>>,
    workspace: Workspace,
    secret_env_vars: Arc<Vec<String>>,
    memory_path: Option<PathBuf>,
    background: BackgroundTable,
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
        Self::with_tools(config, crate::tools::standard())
    }

    /// A registry with exactly these tools (tests, restricted front ends).
    pub fn with_tools(config: RegistryConfig, tools: Vec<Box<dyn Tool>>) -> Self {
        Registry {
            tools,
            workspace: config.workspace,
            secret_env_vars: Arc::new(config.secret_env_vars),
            memory_path: config.memory_path,
            background: BackgroundTable::new(),
        }
    }

    /// The workspace this registry works in.
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// Specs of every tool, for advertising to the model.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(|t| t.spec()).collect()
    }

    /// Names of every tool.
    pub fn names(&self) -> Vec<&'static str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// The tool with this name.
    pub fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.tools
            .iter()
            .find(|t| t.name() == name)
            .map(|t| t.as_ref())
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
    /// can read.
    pub fn decide(&self, name: &str, args: &serde_json::Value, mode: Mode) -> Decision {
        let decision = match self.effect(name, args) {
            Ok(effect) => policy::decide(&effect, mode, &self.workspace),
            Err(e) => Decision::Deny {
                reason: e.to_string(),
            },
        };
        match decision {
            Decision::Ask { summary, detail } => {
                let preview = self
                    .get(name)
                    .and_then(|t| t.approval_preview(args, &self.workspace));
                let detail = match preview {
                    Some(p) => format!("{detail}\n{p}"),
                    None => detail,
                };
                Decision::Ask { summary, detail }
            }
            other => other,
        }
    }

    /// What a call touches, for running independent calls in parallel.
    pub fn footprint(&self, name: &str, args: &serde_json::Value) -> Footprint {
        match self.effect(name, args) {
            Ok(effect) => footprint_of(&effect, &self.workspace),
            Err(_) => Footprint::Exclusive,
        }
    }

    /// The context a call runs with (a fresh run tag).
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
            memory_path: self.memory_path.clone(),
        }
    }

    /// Run a call (after approval). The floor is checked again here, so a
    /// call the floor denies never runs whatever the caller decided.
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
        let tool = self
            .get(name)
            .ok_or_else(|| ToolError::UnknownTool(name.to_string()))?;
        let effect = tool.effect(args, &self.workspace)?;
        if let Decision::Deny { reason } = policy::decide(&effect, Mode::Bypass, &self.workspace) {
            return Err(ToolError::Refused(reason));
        }
        let mut out = tool.run(args, &self.context_tagged(cancel.clone(), run_tag))?;
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

/// Derive what a call touches from its effect.
pub fn footprint_of(effect: &Effect, ws: &Workspace) -> Footprint {
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
        Effect::Shell { command, .. } => {
            if policy::check_command_in(command, Mode::Plan, ws).is_allow() {
                Footprint::Accesses(vec![Access::Read(ws.root().to_path_buf())])
            } else {
                Footprint::Exclusive
            }
        }
        Effect::NetworkRead { .. } => {
            Footprint::Accesses(vec![Access::Network { mutating: false }])
        }
        Effect::NetworkWrite { .. } => {
            Footprint::Accesses(vec![Access::Network { mutating: true }])
        }
        Effect::OwnProcess => Footprint::Accesses(vec![Access::Process]),
    }
}

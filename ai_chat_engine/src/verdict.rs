//! What the approval policy would say about a call of any tool the engine
//! offers: the registry's, and the engine's own (`explore`). `k policy
//! check` asks here, so it knows every tool a conversation can call.

use ai_tools::verdict::{self, Verdict};
use ai_tools::{Mode, Registry, Tool};

use crate::explore::ExploreDeclaration;

/// The engine's own tools, as the policy sees them.
fn own_tools() -> [&'static dyn Tool; 1] {
    [&ExploreDeclaration]
}

/// Judges `name(args)` in `mode`, as the engine's runner would.
pub fn judge(registry: &Registry, name: &str, args: &serde_json::Value, mode: Mode) -> Verdict {
    match own_tools().into_iter().find(|tool| tool.name() == name) {
        Some(tool) => verdict::judge_tool(registry, tool, args, mode),
        None => verdict::judge(registry, name, args, mode),
    }
}

/// Every tool name the engine offers with `registry` (without MCP tools,
/// which come and go with their servers).
pub fn tool_names(registry: &Registry) -> Vec<String> {
    let mut names = registry.names();
    names.extend(own_tools().iter().map(|tool| tool.name().to_string()));
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use ai_tools::{RegistryConfig, Workspace};
    use serde_json::json;

    fn registry(dir: &std::path::Path) -> Registry {
        Registry::standard(RegistryConfig::new(Workspace::new(dir).unwrap()))
    }

    #[test]
    fn explore_is_judged_by_its_own_effect_in_every_mode() {
        let dir = tempfile::tempdir().unwrap();
        let registry = registry(dir.path());
        let task = json!({"task": "where is main?"});
        for mode in Mode::ALL {
            let v = judge(&registry, "explore", &task, mode);
            assert_eq!(v.decision, "allow", "{mode}: {v:?}");
            assert_eq!(v.sandbox, None, "{mode}");
        }
        let empty = judge(&registry, "explore", &json!({"task": " "}), Mode::Default);
        assert_eq!(empty.decision, "deny");
        assert!(empty.reason.contains("`task` is empty"), "{empty:?}");
        // The registry's tools and unknown names are judged as before.
        let read = judge(&registry, "fs_read", &json!({"path": "a"}), Mode::Default);
        assert_eq!(
            read,
            verdict::judge(&registry, "fs_read", &json!({"path": "a"}), Mode::Default)
        );
        let unknown = judge(&registry, "explorer", &task, Mode::Default);
        assert_eq!(unknown.decision, "deny");
        assert!(unknown.reason.contains("unknown tool"), "{unknown:?}");
    }

    #[test]
    fn every_tool_the_engine_declares_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let registry = registry(dir.path());
        let names = tool_names(&registry);
        assert!(names.iter().any(|n| n == "explore"), "{names:?}");
        for spec in registry.specs() {
            assert!(names.contains(&spec.name), "{} missing", spec.name);
        }
        // Each name is judged by a tool, never "unknown".
        for name in &names {
            let v = judge(&registry, name, &json!({}), Mode::Default);
            assert!(!v.reason.contains("unknown tool"), "{name}: {v:?}");
        }
    }
}

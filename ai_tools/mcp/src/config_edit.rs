//! `k mcp add` and `k mcp remove` as edits of koi.toml's text: a new
//! server is appended as its own table, a removed one loses exactly its
//! tables, and every other line (comments included) stays as it was. The
//! result is parsed before it is written, so a bad edit never lands.

use std::collections::BTreeMap;

use ai_tools::McpTrust;

use crate::config::McpConfig;
use crate::error::McpError;
use crate::naming::valid_server_name;

/// What `k mcp add` was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewServer {
    /// `k mcp add NAME -- CMD ARGS…`
    Stdio {
        /// The program and its arguments.
        argv: Vec<String>,
        /// `--env KEY=VALUE`s.
        env: BTreeMap<String, String>,
    },
    /// `k mcp add NAME --url URL`
    Http {
        /// The endpoint.
        url: String,
        /// `--header NAME=VALUE`s.
        headers: BTreeMap<String, String>,
        /// `--bearer-token-env-var VAR`.
        bearer_token_env_var: Option<String>,
    },
}

fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn inline_table(map: &BTreeMap<String, String>) -> String {
    let items: Vec<String> = map
        .iter()
        .map(|(k, v)| format!("{} = {}", toml_str(k), toml_str(v)))
        .collect();
    format!("{{ {} }}", items.join(", "))
}

fn header(name: &str) -> String {
    format!("[mcp.servers.{name}]")
}

/// `text` with server `name` appended.
pub fn add_server(
    text: &str,
    name: &str,
    server: &NewServer,
    trust: McpTrust,
) -> Result<String, McpError> {
    if !valid_server_name(name) {
        return Err(McpError::Config(format!(
            "{name:?}: a server name is 1 to 32 letters, digits, '-' or single '_'"
        )));
    }
    let existing = McpConfig::from_toml_str(text)?;
    if existing.servers.contains_key(name) {
        return Err(McpError::Config(format!(
            "a server named {name} is already configured; `k mcp remove {name}` first"
        )));
    }
    let mut block = format!("\n{}\n", header(name));
    match server {
        NewServer::Stdio { argv, env } => {
            let Some((command, args)) = argv.split_first() else {
                return Err(McpError::Config(
                    "give the server's command after `--`".into(),
                ));
            };
            block.push_str(&format!("command = {}\n", toml_str(command)));
            if !args.is_empty() {
                let args: Vec<String> = args.iter().map(|a| toml_str(a)).collect();
                block.push_str(&format!("args = [{}]\n", args.join(", ")));
            }
            if !env.is_empty() {
                block.push_str(&format!("env = {}\n", inline_table(env)));
            }
        }
        NewServer::Http {
            url,
            headers,
            bearer_token_env_var,
        } => {
            block.push_str(&format!("url = {}\n", toml_str(url)));
            if !headers.is_empty() {
                block.push_str(&format!("headers = {}\n", inline_table(headers)));
            }
            if let Some(var) = bearer_token_env_var {
                block.push_str(&format!("bearer_token_env_var = {}\n", toml_str(var)));
            }
        }
    }
    if trust != McpTrust::None {
        block.push_str(&format!("trust = {}\n", toml_str(trust.as_str())));
    }
    let mut out = text.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&block);
    McpConfig::from_toml_str(&out)?;
    Ok(out)
}

/// `text` without server `name`: its `[mcp.servers.NAME]` table and any
/// `[mcp.servers.NAME.…]` sub-tables.
pub fn remove_server(text: &str, name: &str) -> Result<String, McpError> {
    let before = McpConfig::from_toml_str(text)?;
    if !before.servers.contains_key(name) {
        return Err(McpError::Config(format!(
            "no server named {name} is configured"
        )));
    }
    let own = header(name);
    let own_sub = format!("[mcp.servers.{name}.");
    let mut out = String::new();
    let mut skipping = false;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t.starts_with('[') {
            skipping = t == own || t.starts_with(&own_sub);
        }
        if !skipping {
            out.push_str(line);
        }
    }
    let after = McpConfig::from_toml_str(&out)?;
    if after.servers.contains_key(name) {
        return Err(McpError::Config(format!(
            "{name} is written in a form `k mcp remove` does not edit (an inline table?); remove it by hand"
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "# my settings\n[ai]\nmodel = \"m\" # keep me\n";

    #[test]
    fn add_then_remove_round_trips_the_text() {
        let stdio = NewServer::Stdio {
            argv: vec!["npx".into(), "-y".into(), "pkg \"quoted\"".into()],
            env: BTreeMap::from([("A".into(), "1".into())]),
        };
        let added = add_server(BASE, "fs", &stdio, McpTrust::Annotations).unwrap();
        assert!(added.starts_with(BASE), "{added}");
        let cfg = McpConfig::from_toml_str(&added).unwrap();
        let fs = &cfg.servers["fs"];
        assert_eq!(fs.target(), "npx -y pkg \"quoted\"");
        assert_eq!(fs.trust, McpTrust::Annotations);
        let http = NewServer::Http {
            url: "https://h.test/mcp".into(),
            headers: BTreeMap::new(),
            bearer_token_env_var: Some("TOK".into()),
        };
        let both = add_server(&added, "remote", &http, McpTrust::None).unwrap();
        assert!(add_server(&both, "fs", &http, McpTrust::None).is_err());
        let removed = remove_server(&both, "fs").unwrap();
        assert!(!removed.contains("[mcp.servers.fs]"));
        assert!(removed.contains("[mcp.servers.remote]"));
        assert_eq!(
            remove_server(&removed, "remote").unwrap().trim_end(),
            BASE.trim_end()
        );
        assert!(remove_server(BASE, "nope").is_err());
    }

    #[test]
    fn sub_tables_go_with_their_server_and_inline_forms_are_refused() {
        let text = "[mcp.servers.a]\ncommand = \"x\"\n[mcp.servers.a.env]\nK = \"v\"\n[mcp.servers.b]\ncommand = \"y\"\n";
        let out = remove_server(text, "a").unwrap();
        assert_eq!(out, "[mcp.servers.b]\ncommand = \"y\"\n");
        let inline = "[mcp]\nservers = { a = { command = \"x\" } }\n";
        let err = remove_server(inline, "a").unwrap_err().to_string();
        assert!(err.contains("by hand"), "{err}");
    }
}

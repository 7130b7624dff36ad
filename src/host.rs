//! The agent hosts megg serves (SPEC §12), each described once, as data: what its
//! SessionStart hook must print for the model to receive megg's context, and how much of it
//! arrives whole. The hook, and later setup and doctor, read these descriptions instead of
//! each matching on the host.

use clap::ValueEnum;

/// An agent CLI megg runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    /// Claude Code (`@anthropic-ai/claude-code`)
    #[default]
    Claude,
    /// OpenAI Codex CLI (`@openai/codex`)
    Codex,
    /// Google Gemini CLI (`@google/gemini-cli`)
    Gemini,
    /// GitHub Copilot CLI (`@github/copilot`)
    Copilot,
}

/// The shape of a host's SessionStart hook document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Document {
    /// `{"systemMessage", "hookSpecificOutput": {"hookEventName", "additionalContext"}}`.
    SystemMessageAndContext,
    /// Only `{"hookSpecificOutput": {"hookEventName", "additionalContext"}}`: Codex fails a
    /// hook whose JSON has any key outside its schema; Gemini injects only this field.
    ContextOnly,
    /// Only a top-level `{"additionalContext"}`: Copilot ignores `hookSpecificOutput`.
    TopLevelContext,
}

/// What megg knows of one host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Host {
    pub agent: Agent,
    /// How people call it.
    pub name: &'static str,
    pub document: Document,
    /// Most UTF-8 bytes of context that arrive whole: Codex turns hook output over about
    /// 2,500 tokens (≈ 10,000 bytes) into a head-and-tail preview.
    pub max_bytes: Option<usize>,
}

const HOSTS: [Host; 4] = [
    Host {
        agent: Agent::Claude,
        name: "Claude Code",
        document: Document::SystemMessageAndContext,
        max_bytes: None,
    },
    Host {
        agent: Agent::Codex,
        name: "Codex CLI",
        document: Document::ContextOnly,
        max_bytes: Some(9_500),
    },
    Host {
        agent: Agent::Gemini,
        name: "Gemini CLI",
        document: Document::ContextOnly,
        max_bytes: None,
    },
    Host {
        agent: Agent::Copilot,
        name: "Copilot CLI",
        document: Document::TopLevelContext,
        max_bytes: None,
    },
];

impl Agent {
    pub fn host(self) -> &'static Host {
        HOSTS.iter().find(|h| h.agent == self).unwrap_or(&HOSTS[0])
    }

    /// The agent a command line names (`--agent X` / `--agent=X`), read before clap so a
    /// hook that fails to parse still answers in its host's shape.
    pub fn from_args(args: &[String]) -> Self {
        let named = args.iter().enumerate().find_map(|(i, a)| {
            a.strip_prefix("--agent=")
                .map(str::to_string)
                .or_else(|| (a == "--agent").then(|| args.get(i + 1).cloned()).flatten())
        });
        named
            .and_then(|n| Self::from_str(&n, true).ok())
            .unwrap_or_default()
    }
}

/// The hook document `host` reads: the context the model receives and, where the host shows
/// one, the message for the user.
pub fn hook_document(host: &Host, system_message: &str, context: &str) -> String {
    let inner = serde_json::json!({
        "hookEventName": "SessionStart",
        "additionalContext": context,
    });
    match host.document {
        Document::SystemMessageAndContext => serde_json::json!({
            "systemMessage": system_message,
            "hookSpecificOutput": inner,
        }),
        Document::ContextOnly => serde_json::json!({ "hookSpecificOutput": inner }),
        Document::TopLevelContext => serde_json::json!({ "additionalContext": context }),
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(doc: &str) -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(doc).unwrap();
        v.as_object().unwrap().keys().cloned().collect()
    }

    #[test]
    fn each_host_gets_its_own_document() {
        let doc = |a: Agent| hook_document(a.host(), "msg", "ctx");
        assert_eq!(
            keys(&doc(Agent::Claude)),
            ["systemMessage", "hookSpecificOutput"]
        );
        for a in [Agent::Codex, Agent::Gemini] {
            let d = doc(a);
            assert_eq!(keys(&d), ["hookSpecificOutput"], "{a:?}");
            let v: serde_json::Value = serde_json::from_str(&d).unwrap();
            let inner = v["hookSpecificOutput"].as_object().unwrap();
            assert_eq!(inner.len(), 2);
            assert_eq!(inner["additionalContext"], "ctx");
            assert_eq!(inner["hookEventName"], "SessionStart");
        }
        let d = doc(Agent::Copilot);
        assert_eq!(keys(&d), ["additionalContext"]);
        assert!(d.contains("\"ctx\""));
    }

    #[test]
    fn the_agent_is_read_before_clap() {
        let args = |s: &[&str]| s.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        assert_eq!(
            Agent::from_args(&args(&["context", "--agent", "codex"])),
            Agent::Codex
        );
        assert_eq!(
            Agent::from_args(&args(&["context", "--agent=Copilot"])),
            Agent::Copilot
        );
        assert_eq!(
            Agent::from_args(&args(&["context", "--agent"])),
            Agent::Claude
        );
        assert_eq!(
            Agent::from_args(&args(&["context", "--agent", "vim"])),
            Agent::Claude
        );
    }

    #[test]
    fn only_codex_has_a_byte_limit() {
        assert_eq!(Agent::Codex.host().max_bytes, Some(9_500));
        for a in [Agent::Claude, Agent::Gemini, Agent::Copilot] {
            assert_eq!(a.host().max_bytes, None);
        }
    }
}

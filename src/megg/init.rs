//! The `info.md` `megg init` writes (SPEC §6): a template prefilled with what the project
//! says about itself.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::fsx;
use crate::megg::project::Project;
use crate::megg::setup::{Scope, shared};

/// Most bytes of an `info.md` kept as a backup.
const MAX_INFO_BYTES: u64 = 1024 * 1024;

/// Keeps the `info.md` at `path` (inside `b`) that `init --force` is about to replace, the way
/// `megg setup` keeps what it changes (SPEC §1: user data is never destroyed by surprise):
/// in the project's backup directory (`.git/megg/backups/` in a repository, else megg's
/// cache), named by its path under the project with `/` as `__`, then `.<stamp>`, never
/// replacing another backup. Returns where it went; `None` when there was no file.
pub fn backup(
    project: &Project,
    b: &fsx::Boundary,
    path: &Path,
    stamp: &str,
) -> Result<Option<PathBuf>> {
    let Some(bytes) = fsx::read_bytes(b, path, MAX_INFO_BYTES)? else {
        return Ok(None);
    };
    let Some((bb, dir)) = shared::backups(project, Scope::Project, &project.root) else {
        return Err(Error::user(format!(
            "nowhere to keep a backup of {}; nothing replaced",
            path.display()
        ))
        .with_hint("set MEGG_CACHE_DIR (or HOME) to a directory megg can write, or copy the file aside and remove it before `megg init`"));
    };
    let rel = path.strip_prefix(&project.root).unwrap_or(path);
    let base = rel
        .to_string_lossy()
        .trim_start_matches('/')
        .replace('/', "__");
    fsx::create_unique(&bb, &dir, &format!("{base}.{stamp}"), &bytes).map(Some)
}

/// What could be detected about a project.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Detected {
    pub name: Option<String>,
    pub description: Option<String>,
    /// Where it came from, e.g. `Cargo.toml`.
    pub source: Option<&'static str>,
    pub remote: Option<String>,
}

/// Name and description from a manifest's text, by file name.
pub fn from_manifest(file: &'static str, text: &str) -> Option<(Option<String>, Option<String>)> {
    let (name, description) = match file {
        "package.json" => {
            let v: serde_json::Value = serde_json::from_str(text).ok()?;
            let get = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
            (get("name"), get("description"))
        }
        "Cargo.toml" => (
            toml_key(text, &["package"], "name"),
            toml_key(text, &["package"], "description"),
        ),
        "pyproject.toml" => {
            let tables = ["project", "tool.poetry"];
            (
                toml_key(text, &tables, "name"),
                toml_key(text, &tables, "description"),
            )
        }
        _ => return None,
    };
    let clean = |s: Option<String>| s.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    let (name, description) = (clean(name), clean(description));
    (name.is_some() || description.is_some()).then_some((name, description))
}

/// A `key = "value"` string in one of `tables` of a TOML file. Two keys with basic strings
/// are all init needs; a full TOML parser would be a dependency for nothing.
fn toml_key(text: &str, tables: &[&str], key: &str) -> Option<String> {
    let mut in_table = false;
    for line in text.lines() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            let name = header.trim_end_matches(']').trim();
            in_table = tables.contains(&name);
            continue;
        }
        if !in_table {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        if k.trim() != key {
            continue;
        }
        let v = v.trim();
        let mut chars = v.chars();
        let quote = chars.next().filter(|c| *c == '"' || *c == '\'')?;
        let mut out = String::new();
        while let Some(c) = chars.next() {
            match c {
                // Basic strings ("…") have escapes; literal strings ('…') do not.
                '\\' if quote == '"' => out.push(chars.next()?),
                c if c == quote => return Some(out),
                c => out.push(c),
            }
        }
        return None;
    }
    None
}

/// A remote URL without credentials: `https://user:token@host/x` → `https://host/x`, and
/// without secret-looking query parameters (`?private_token=…`, `access_token`, `key`…; SPEC
/// §9). An ssh user (`git@host:x`, `ssh://git@host/x`) is not a secret and stays.
pub fn strip_credentials(url: &str) -> String {
    let (url, fragment) = match url.split_once('#') {
        Some((u, f)) => (u, Some(f)),
        None => (url, None),
    };
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let mut out = strip_userinfo(base);
    if let Some(q) = query {
        let kept: Vec<&str> = q
            .split('&')
            .filter(|p| !p.is_empty() && !is_secret_param(p.split('=').next().unwrap_or("")))
            .collect();
        if !kept.is_empty() {
            out.push('?');
            out.push_str(&kept.join("&"));
        }
    }
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// Query parameter names that carry credentials.
fn is_secret_param(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    const EXACT: [&str; 12] = [
        "token",
        "private_token",
        "access_token",
        "auth",
        "auth_token",
        "key",
        "api_key",
        "apikey",
        "password",
        "passwd",
        "secret",
        "sig",
    ];
    EXACT.contains(&n.as_str())
        || ["_token", "-token", "_key", "-key", "_secret", "password"]
            .iter()
            .any(|s| n.ends_with(s))
}

fn strip_userinfo(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let Some((userinfo, host)) = authority.rsplit_once('@') else {
        return url.to_string();
    };
    let keep_user = scheme.starts_with("ssh") && !userinfo.contains(':');
    if keep_user {
        return url.to_string();
    }
    format!("{scheme}://{host}{path}")
}

/// The body of a new `info.md`: `--info` text, or the template.
pub fn body(dir_name: &str, info: Option<&str>, d: &Detected) -> String {
    let name = d.name.as_deref().unwrap_or(dir_name);
    if let Some(text) = info {
        let text = text.trim();
        return if text.starts_with("# ") {
            format!("{text}\n")
        } else {
            format!("# {name}\n\n{text}\n")
        };
    }
    let mut context = match (&d.description, d.source) {
        (Some(desc), Some(src)) => format!("{desc} (from {src})\n"),
        (Some(desc), None) => format!("{desc}\n"),
        _ => "What this project is, who it is for, and how it is built.\n".to_string(),
    };
    if let Some(remote) = &d.remote {
        context.push_str(&format!("Repository: {remote}\n"));
    }
    crate::templates::fill(
        crate::templates::INFO_BODY,
        &[("name", name), ("context", &context)],
    )
}

/// The whole `info.md`.
pub fn render(now: &str, body: &str) -> String {
    crate::templates::fill(crate::templates::INFO, &[("now", now), ("body", body)])
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;

    #[test]
    fn manifests() {
        let cargo = "[workspace]\nname = \"no\"\n[package]\nname = \"megg\"\nversion = \"1.1.0\"\ndescription = \"Continuity \\\"for\\\" agents\"\n[dependencies]\nname = \"dep\"\n";
        assert_eq!(
            from_manifest("Cargo.toml", cargo),
            Some((
                Some("megg".into()),
                Some("Continuity \"for\" agents".into())
            ))
        );
        let pkg = r#"{"name": "@acme/shop", "description": "Storefront"}"#;
        assert_eq!(
            from_manifest("package.json", pkg),
            Some((Some("@acme/shop".into()), Some("Storefront".into())))
        );
        let py = "[tool.poetry]\nname = 'svc'\n";
        assert_eq!(
            from_manifest("pyproject.toml", py),
            Some((Some("svc".into()), None))
        );
        assert_eq!(from_manifest("package.json", "{not json"), None);
        assert_eq!(
            from_manifest("Cargo.toml", "[package]\nversion = \"1\"\n"),
            None
        );
    }

    #[test]
    fn credentials_are_stripped() {
        assert_eq!(
            strip_credentials("https://user:ghp_secret@github.com/a/b.git"),
            "https://github.com/a/b.git"
        );
        assert_eq!(
            strip_credentials("https://ghp_token@github.com/a/b"),
            "https://github.com/a/b"
        );
        assert_eq!(
            strip_credentials("https://github.com/a/b"),
            "https://github.com/a/b"
        );
        assert_eq!(
            strip_credentials("git@github.com:a/b.git"),
            "git@github.com:a/b.git"
        );
        assert_eq!(strip_credentials("ssh://git@host/x"), "ssh://git@host/x");
        assert_eq!(strip_credentials("ssh://git:pw@host/x"), "ssh://host/x");
    }

    #[test]
    fn init_records_no_private_token_from_the_remote_url() {
        assert_eq!(
            strip_credentials("https://gitlab.example.com/a/b.git?private_token=glpat-xyz"),
            "https://gitlab.example.com/a/b.git"
        );
        assert_eq!(
            strip_credentials("https://u:p@h/x?ref=main&Access_Token=t&x-api-key=k&b=1#frag"),
            "https://h/x?ref=main&b=1#frag"
        );
        assert_eq!(strip_credentials("https://h/x?key=v"), "https://h/x");
    }

    #[test]
    fn template_and_info_text() {
        let d = Detected {
            name: Some("shop".into()),
            description: Some("Storefront".into()),
            source: Some("package.json"),
            remote: Some("https://github.com/a/shop".into()),
        };
        let b = body("dir", None, &d);
        for part in [
            "# shop\n",
            "## Context\nStorefront (from package.json)\nRepository: https://github.com/a/shop\n",
            "## Rules\n",
            "## Learning\n",
            "## Files\n",
        ] {
            assert!(b.contains(part), "{part} in {b}");
        }
        assert_eq!(
            body("dir", Some("Just text"), &Detected::default()),
            "# dir\n\nJust text\n"
        );
        assert_eq!(
            body("dir", Some("# Own\nx"), &Detected::default()),
            "# Own\nx\n"
        );
    }
}

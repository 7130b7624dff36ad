//! `cargo xtask gitleaks-rules <keyspoor-0.1.4.crate>`: writes megg's copy of gitleaks' default
//! rule set (SPEC §12) from a package crates.io serves, never from the network at run time.
//!
//! The rules come from the crate `keyspoor` 0.1.4, whose `src/builtin_rules.json` is gitleaks
//! v8.30.1's `config/gitleaks.toml` (MIT, its notice in the crate's `THIRD_PARTY_NOTICES`)
//! rewritten for Rust's `regex`. The crate file is checked against the SHA-256 crates.io's index
//! records for it before anything is read; the output is Rust source (no parsing at run time)
//! and the notice beside it.

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// The crate and version the rules come from, and the checksum crates.io's index gives for it.
const CRATE: &str = "keyspoor-0.1.4";
const CRATE_SHA256: &str = "7c92c859990034fc8ded273dc681b600c5c2e04e9374d0a4e8b4776081f46cf7";
const RULES_FILE: &str = "src/builtin_rules.json";
const NOTICE_FILE: &str = "THIRD_PARTY_NOTICES";

/// Changes megg makes to a rule, each with its reason; the generator fails if one no longer
/// applies.
const ADJUSTMENTS: &[(&str, &str, &str, &str)] = &[(
    "generic-api-key",
    r"(?:[ \t]{0,20})",
    r"(?:[ \t\w.-]{0,20})",
    "as gitleaks has it since 8.30.1: a key word may be followed by more of the name \
     (`credentials`, `api_token_123`) before its value",
)];

/// Where the generated files go, from the workspace root.
const OUT_RULES: &str = "src/megg/secrets/gitleaks.rs";
pub const OUT_NOTICE: &str = "src/megg/secrets/LICENSE-gitleaks";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The `.crate` file: `curl -sLO https://static.crates.io/crates/keyspoor/keyspoor-0.1.4.crate`
    pub crate_file: PathBuf,
}

pub fn run(args: &Args) -> Result<()> {
    let bytes = std::fs::read(&args.crate_file)
        .with_context(|| format!("cannot read {}", args.crate_file.display()))?;
    let sum = hex(&Sha256::digest(&bytes));
    if sum != CRATE_SHA256 {
        bail!(
            "{} has SHA-256 {sum}, not {CRATE_SHA256} ({CRATE} as crates.io serves it)",
            args.crate_file.display()
        );
    }
    let (rules, notice) = unpack(&bytes)?;
    let root = crate::project::Project::load()?.root;
    let source = render(&serde_json::from_slice(&rules).context("the rules are not JSON")?)?;
    write(&root.join(OUT_RULES), source.as_bytes())?;
    write(&root.join(OUT_NOTICE), &notice)?;
    println!("wrote {OUT_RULES} and {OUT_NOTICE} from {CRATE}");
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The rules file and the notice, out of the crate's gzipped tarball.
fn unpack(bytes: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
    let (mut rules, mut notice) = (None, None);
    for entry in archive.entries()? {
        let mut entry = entry?;
        let path = entry.path()?.to_string_lossy().into_owned();
        let slot = if path == format!("{CRATE}/{RULES_FILE}") {
            &mut rules
        } else if path == format!("{CRATE}/{NOTICE_FILE}") {
            &mut notice
        } else {
            continue;
        };
        let mut data = Vec::new();
        entry.read_to_end(&mut data)?;
        *slot = Some(data);
    }
    match (rules, notice) {
        (Some(r), Some(n)) => Ok((r, n)),
        _ => bail!("{CRATE} lacks {RULES_FILE} or {NOTICE_FILE}"),
    }
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("{s:?}")).collect();
    format!("&[{}]", quoted.join(", "))
}

/// One allowlist as Rust, or `None` when it can never pass on text without a file name
/// (every criterion must hold and one of them is a path).
fn allowlist(a: &Value) -> Result<Option<String>> {
    let and = match a.get("condition").and_then(Value::as_str) {
        Some("or") | None => false,
        Some("and") => true,
        Some(other) => bail!("unknown allowlist condition {other}"),
    };
    let target = match a.get("target").and_then(Value::as_str) {
        Some("secret") | None => "Secret",
        Some("match") => "Match",
        Some("line") => "Line",
        Some(other) => bail!("unknown allowlist target {other}"),
    };
    let (regexes, stopwords) = (strings(a, "regexes"), strings(a, "stopwords"));
    let paths = !strings(a, "paths").is_empty();
    if (and && paths) || (regexes.is_empty() && stopwords.is_empty()) {
        return Ok(None);
    }
    let condition = if and { "And" } else { "Or" };
    Ok(Some(format!(
        "Allowlist {{ condition: Condition::{condition}, target: Target::{target}, regexes: {}, stopwords: {} }}",
        list(&regexes),
        list(&stopwords)
    )))
}

/// The Rust source of the rules: the allowlist every rule shares once, then each rule that
/// applies to text without a file name with its own allowlists.
fn render(doc: &Value) -> Result<String> {
    let rules = doc
        .get("rules")
        .and_then(Value::as_array)
        .context("no rules")?;
    let first = |r: &Value| r.get("allowlist").and_then(|a| a.get(0)).cloned();
    let global = rules
        .first()
        .and_then(first)
        .context("no global allowlist")?;
    if rules.iter().any(|r| first(r).as_ref() != Some(&global)) {
        bail!("the rules do not share their first allowlist");
    }
    let mut out = String::new();
    out.push_str(&format!(
        "// @generated by `cargo xtask gitleaks-rules` from {CRATE} (crates.io, SHA-256 {CRATE_SHA256}):\n\
         // gitleaks' default rules, MIT-licensed — the notice is LICENSE-gitleaks beside this file.\n\
         // Do not edit; rules that need a file name, and allowlists that need one, are left out.\n\n\
         use super::rule::{{Allowlist, Condition, Rule, Target}};\n\n"
    ));
    let global = allowlist(&global)?.context("the global allowlist is empty")?;
    out.push_str(&format!(
        "/// The allowlist gitleaks applies to every rule.\npub static GLOBAL: Allowlist = {global};\n\n"
    ));
    let mut skipped = Vec::new();
    out.push_str("/// Every rule that applies to text without a file name.\npub static RULES: &[Rule] = &[\n");
    for r in rules {
        let id = r
            .get("id")
            .and_then(Value::as_str)
            .context("a rule without id")?;
        let regex = r.get("pattern").and_then(Value::as_str);
        let path = r.get("path").is_some_and(|p| !p.is_null());
        let Some(regex) = regex.filter(|_| !path) else {
            skipped.push(id.to_string());
            continue;
        };
        let mut regex = regex.to_string();
        for (_, from, to, why) in ADJUSTMENTS.iter().filter(|a| a.0 == id) {
            if !regex.contains(from) {
                bail!("{id}: the adjustment ({why}) no longer applies");
            }
            regex = regex.replacen(from, to, 1);
        }
        let description = r.get("name").and_then(Value::as_str).unwrap_or(id);
        let group = r.get("secret_group").and_then(Value::as_u64).unwrap_or(0);
        let entropy = r.get("min_entropy").and_then(Value::as_f64).unwrap_or(0.0);
        let mut own = Vec::new();
        for a in r
            .get("allowlist")
            .and_then(Value::as_array)
            .map(|a| a.iter().skip(1).collect::<Vec<_>>())
            .unwrap_or_default()
        {
            own.extend(allowlist(a)?);
        }
        out.push_str(&format!(
            "    Rule {{\n        id: {id:?},\n        description: {description:?},\n        regex: {regex:?},\n        \
             secret_group: {group},\n        entropy: {entropy:?},\n        keywords: {},\n        allowlists: &[{}],\n    }},\n",
            list(&strings(r, "keywords")),
            own.join(", ")
        ));
    }
    out.push_str("];\n\n");
    out.push_str(&format!(
        "/// The rules left out because they need a file name.\npub static NEED_A_PATH: &[&str] = {};\n",
        list(&skipped)
    ));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(id: &str, pattern: &str, path: Option<&str>, own: Value) -> Value {
        let global = serde_json::json!({"condition": "or", "target": "secret", "regexes": ["^x$"], "paths": ["p"], "stopwords": ["s"]});
        let mut lists = vec![global];
        lists.extend(own.as_array().cloned().unwrap_or_default());
        serde_json::json!({"id": id, "name": format!("{id} found"), "pattern": pattern, "secret_group": null,
            "keywords": ["k"], "min_entropy": 3.5, "path": path, "allowlist": lists})
    }

    #[test]
    fn rules_needing_a_path_and_allowlists_that_cannot_pass_are_left_out() {
        let doc = serde_json::json!({"rules": [
            rule("a", "k[0-9]+", None, serde_json::json!([
                {"condition": "and", "target": "line", "regexes": ["r"], "paths": ["\\.bb$"], "stopwords": []},
                {"condition": "or", "target": "match", "regexes": ["m"], "paths": [], "stopwords": ["w"]}
            ])),
            rule("b", "k", Some("\\.php$"), serde_json::json!([])),
        ]});
        let out = render(&doc).unwrap();
        assert!(out.starts_with("// @generated"), "{out}");
        assert!(out.contains("id: \"a\""), "{out}");
        assert!(!out.contains("id: \"b\""), "{out}");
        assert!(out.contains("NEED_A_PATH: &[&str] = &[\"b\"]"), "{out}");
        assert!(!out.contains("Condition::And"), "{out}");
        assert!(
            out.contains("Target::Match, regexes: &[\"m\"], stopwords: &[\"w\"]"),
            "{out}"
        );
        assert_eq!(out.matches("regexes: &[\"^x$\"]").count(), 1, "{out}");
    }

    #[test]
    fn rules_that_do_not_share_the_global_allowlist_are_refused() {
        let mut doc = serde_json::json!({"rules": [rule("a", "k", None, serde_json::json!([]))]});
        doc["rules"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"id": "b", "pattern": "k", "allowlist": []}));
        assert!(render(&doc).is_err());
    }

    #[test]
    fn an_adjustment_that_no_longer_applies_is_an_error() {
        let doc = serde_json::json!({"rules": [rule("generic-api-key", "(?i)no longer the same", None, serde_json::json!([]))]});
        let e = render(&doc).unwrap_err().to_string();
        assert!(e.contains("no longer applies"), "{e}");
        let (_, from, to, _) = ADJUSTMENTS[0];
        let doc = serde_json::json!({"rules": [rule("generic-api-key", &format!("a{from}b"), None, serde_json::json!([]))]});
        let out = render(&doc).unwrap();
        assert!(out.contains(&format!("{:?}", format!("a{to}b"))), "{out}");
    }

    #[test]
    fn a_crate_with_another_checksum_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("keyspoor-0.1.4.crate");
        std::fs::write(&file, b"not the crate").unwrap();
        let e = run(&Args { crate_file: file }).unwrap_err().to_string();
        assert!(e.contains("not 7c92c859"), "{e}");
    }
}

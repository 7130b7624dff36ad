//! gitleaks' own true and false positives (`../shared/secrets/gitleaks-samples.json`, read
//! where it is, never copied into the project) and the corpus of files people wrote
//! (`../shared/corpus/`), for the SPEC §12 tests: what a rule counts as caught, in one place.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The directory beside the project that holds the samples and the corpus.
pub fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared")
}

/// Whether the samples and the corpus are beside the project. They are in this workplace's
/// checkouts; a lone clone elsewhere lacks them, and the SPEC §12 tests then say so and pass
/// without checking anything (they read the samples where they are, never a copy).
#[allow(clippy::print_stderr)] // a skip is said where the test runner shows it
pub fn present() -> bool {
    let dir = shared();
    let there = dir.join("secrets/gitleaks-samples.json").is_file() && dir.join("corpus").is_dir();
    if !there {
        eprintln!(
            "skipped: SPEC §12's samples are not at {} (secrets/gitleaks-samples.json, corpus/)",
            dir.display()
        );
    }
    there
}

/// One sample: the rule it belongs to, its text, and the parts of its secret that must not
/// survive (any 12 consecutive characters of one of them).
#[derive(Debug, Clone)]
pub struct Sample {
    pub rule: String,
    pub text: String,
    pub cores: Vec<String>,
    /// For a false positive: whether megg's own `k=v` rules name it on purpose.
    pub spec12: bool,
}

fn load() -> Value {
    let path = shared().join("secrets/gitleaks-samples.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn samples(key: &str) -> Vec<Sample> {
    load()[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| Sample {
            rule: t["rule"].as_str().unwrap().to_string(),
            text: t["text"].as_str().unwrap().to_string(),
            cores: t["core"]
                .as_array()
                .map(|c| c.iter().map(|s| s.as_str().unwrap().to_string()).collect())
                .unwrap_or_default(),
            spec12: t["spec12"].as_bool().unwrap_or(false),
        })
        .collect()
}

/// The true positives as people paste them (samples, draws, `NAME_KEY=value`, in a sentence).
pub fn true_positives() -> Vec<Sample> {
    samples("tps")
}

/// The true positives JSON-escaped and across lines.
pub fn shapes() -> Vec<Sample> {
    samples("shapes")
}

/// gitleaks' false positives.
pub fn false_positives() -> Vec<Sample> {
    samples("fps")
}

/// Every rule with a true positive.
pub fn rules() -> std::collections::BTreeSet<String> {
    true_positives().into_iter().map(|s| s.rule).collect()
}

/// The 12-character piece of one of `cores` that survives in `out`, if any.
pub fn survivor(out: &str, cores: &[String]) -> Option<String> {
    cores.iter().find_map(|core| {
        let chars: Vec<char> = core.chars().collect();
        chars
            .windows(12)
            .map(|w| w.iter().collect::<String>())
            .find(|piece| out.contains(piece.as_str()))
    })
}

/// Every file of the corpus people wrote, with its text.
pub fn corpus() -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&shared().join("corpus"), &mut files);
    files.sort();
    files
        .into_iter()
        .filter_map(|p| std::fs::read_to_string(&p).ok().map(|t| (p, t)))
        .collect()
}

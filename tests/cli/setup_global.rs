//! Setup against a global git config it cannot write (`GIT_CONFIG_GLOBAL=/dev/null`, a
//! directory, a link out, a read-only file): the merge driver's registration is skipped with one
//! warning, every host the user asked for is installed, and the dry run promised exactly that.
//! And for every environment, the dry run's lines are the real run's.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::{Git, Project};

/// The hosts, as `megg setup` names them (Claude Code is the default).
const HOSTS: [&[&str]; 4] = [
    &[],
    &["--agent", "codex"],
    &["--agent", "gemini"],
    &["--agent", "copilot"],
];

/// What `GIT_CONFIG_GLOBAL` points at.
#[derive(Clone, Copy, Debug)]
enum Global {
    /// Unset: `~/.gitconfig`, not there yet.
    Default,
    /// `~/.gitconfig` with the user's own settings in it.
    Existing,
    DevNull,
    Directory,
    /// A link from the home to `/dev/null`: out of the config's directory.
    LinkOut,
    /// A link to nothing.
    Dangling,
}

const UNWRITABLE: [Global; 4] = [
    Global::DevNull,
    Global::Directory,
    Global::LinkOut,
    Global::Dangling,
];

struct Env {
    p: Project,
    global: Option<PathBuf>,
}

impl Env {
    fn new(global: Global, git: bool) -> Self {
        let p = Project::new();
        if git {
            let g = Git::init(p.root(), "main");
            p.write("README.md", "# project\n");
            let mut index = g.repo.index().unwrap();
            index.add_path(Path::new("README.md")).unwrap();
            index.write().unwrap();
            g.commit("main", 1_000_000, "init");
        }
        let home = p.cache.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let at = home.join(".gitconfig");
        let global = match global {
            Global::Default => None,
            Global::Existing => {
                std::fs::write(&at, "[user]\n\tname = Someone\n").unwrap();
                Some(at)
            }
            Global::DevNull => Some(PathBuf::from("/dev/null")),
            Global::Directory => {
                std::fs::create_dir(&at).unwrap();
                Some(at)
            }
            Global::LinkOut => {
                std::os::unix::fs::symlink("/dev/null", &at).unwrap();
                Some(at)
            }
            Global::Dangling => {
                std::os::unix::fs::symlink(home.join("nowhere/config"), &at).unwrap();
                Some(at)
            }
        };
        Self { p, global }
    }

    fn home(&self) -> PathBuf {
        self.p.cache.path().join("home")
    }

    fn command(&self, args: &[&str]) -> assert_cmd::Command {
        let mut cmd = self.p.megg("");
        cmd.env("HOME", self.home())
            .env("PATH", "/usr/bin:/bin")
            .env_remove("CODEX_HOME")
            .env_remove("COPILOT_HOME")
            .env_remove("GEMINI_CLI_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .arg("setup")
            .args(args);
        if let Some(global) = &self.global {
            cmd.env("GIT_CONFIG_GLOBAL", global);
        }
        cmd
    }

    fn setup(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// The dry run's JSON and the real run's, both of which must succeed.
    fn dry_then_run(&self, args: &[&str]) -> (Value, Value) {
        let json = |extra: &[&str]| {
            let mut all = args.to_vec();
            all.push("--json");
            all.extend(extra);
            let out = self.setup(&all);
            assert!(
                out.status.success(),
                "megg setup {all:?} exited {:?}: {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            );
            crate::stdout_json(&out)
        };
        (json(&["--dry-run"]), json(&[]))
    }
}

/// The lines a run reports: each change and each warning.
fn lines(v: &Value) -> (Value, Value) {
    (v["changes"].clone(), v["warnings"].clone())
}

fn merge_change(v: &Value) -> Option<&Value> {
    v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["what"].as_str().unwrap_or("").contains("merge driver"))
}

/// The failing case of the issue: user scope for each host with each unwritable global config
/// exits 0, installs the host's files, warns once (why, and how to register the driver per
/// repository), and the dry run said the same.
#[test]
fn user_scope_setup_skips_a_global_git_config_it_cannot_write() {
    for host in HOSTS {
        for global in UNWRITABLE {
            let e = Env::new(global, false);
            let mut args = host.to_vec();
            args.extend(["--scope", "user"]);
            let (dry, run) = e.dry_then_run(&args);
            let case = format!("{host:?} with {global:?}");
            assert_eq!(
                lines(&dry),
                lines(&run),
                "{case}: the plan and the run differ"
            );
            let skip = merge_change(&run).unwrap_or_else(|| panic!("{case}: no merge line: {run}"));
            assert_eq!(skip["action"], "skipped", "{case}: {run}");
            let warnings = run["warnings"].as_array().unwrap();
            assert_eq!(warnings.len(), 1, "{case}: one warning: {run}");
            let w = warnings[0].as_str().unwrap();
            assert!(
                w.contains("merge driver") && w.contains("`megg setup`") && w.contains("project"),
                "{case}: the warning says why and what to do: {w}"
            );
            // Every other piece is installed.
            let installed: Vec<&Value> = run["changes"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["action"] != "skipped" && c["action"] != "unchanged")
                .collect();
            assert!(!installed.is_empty(), "{case}: nothing installed: {run}");
            for c in installed {
                let path = Path::new(c["path"].as_str().unwrap());
                assert!(path.is_file(), "{case}: {} not written", path.display());
            }
            // The unwritable thing is untouched.
            match global {
                Global::Directory => assert!(e.home().join(".gitconfig").is_dir()),
                Global::LinkOut | Global::Dangling => assert!(
                    e.home().join(".gitconfig").is_symlink(),
                    "{case}: the link was replaced"
                ),
                _ => {}
            }
        }
    }
}

/// Without `--json` the warning reaches stderr once, as `warning:`, and the text shows the
/// skip line in both the dry run and the run.
#[test]
fn the_skip_is_one_warning_and_the_same_line_in_the_dry_run() {
    let e = Env::new(Global::DevNull, false);
    let dry = e.setup(&["--agent", "codex", "--scope", "user", "--dry-run"]);
    let run = e.setup(&["--agent", "codex", "--scope", "user"]);
    assert_eq!(dry.status.code(), Some(0));
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let skip = |out: &Output| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find(|l| l.contains("/dev/null"))
            .map(|l| {
                let words: Vec<&str> = l.split_whitespace().collect();
                words.join(" ").trim_start_matches("would ").to_string()
            })
    };
    let line = skip(&run).expect("a line for /dev/null");
    assert!(line.starts_with("skipped /dev/null"), "{line}");
    assert!(line.contains("not a regular file"), "{line}");
    assert_eq!(skip(&dry).as_deref(), Some(line.as_str()));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(stderr.matches("warning:").count(), 1, "{stderr}");
    assert!(stderr.contains("megg setup"), "{stderr}");
}

/// The plan is the run: for a table of environments, the dry run's changes and warnings are
/// exactly those of the real run that follows it, installing and uninstalling.
#[test]
fn the_dry_run_lines_equal_the_real_run_lines() {
    let all: &[&str] = &[
        "--agent", "claude", "--agent", "codex", "--agent", "gemini", "--agent", "copilot",
    ];
    let globals = [
        Global::Default,
        Global::Existing,
        Global::DevNull,
        Global::Directory,
        Global::LinkOut,
        Global::Dangling,
    ];
    for global in globals {
        for (git, scope) in [(false, "user"), (true, "project"), (false, "project")] {
            let e = Env::new(global, git);
            let mut args = all.to_vec();
            args.extend(["--scope", scope]);
            let case = format!("{global:?}, {scope} scope, git: {git}");
            let (dry, run) = e.dry_then_run(&args);
            assert_eq!(lines(&dry), lines(&run), "{case}: install");
            args.push("--uninstall");
            let (dry, run) = e.dry_then_run(&args);
            assert_eq!(lines(&dry), lines(&run), "{case}: uninstall");
        }
    }
}

/// Doctor in a repository whose user could not register the driver globally names the reason
/// and the fix.
#[test]
fn doctor_says_why_the_merge_driver_is_not_in_effect() {
    let e = Env::new(Global::DevNull, true);
    e.p.write(".megg/knowledge.md", "# Knowledge\n");
    let out = e.setup(&["--scope", "user"]);
    assert!(out.status.success());
    let mut cmd = e.p.megg("");
    cmd.env("HOME", e.home())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args(["doctor", "--json"]);
    let v = crate::stdout_json(&cmd.output().unwrap());
    let merge = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "merge")
        .unwrap_or_else(|| panic!("no merge check: {v}"));
    let detail = merge["detail"].as_str().unwrap();
    assert!(detail.contains("/dev/null"), "{detail}");
    assert!(
        detail.contains("run `megg setup` in this repository"),
        "{detail}"
    );
}

/// A global config this user may not write (its directory read-only, as root cannot be made to
/// see): setpriv runs megg as `nobody` against a home it owns and a config it does not.
#[test]
fn a_read_only_global_config_is_skipped_too() {
    use std::os::unix::fs::MetadataExt;
    let is_root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    if !is_root {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let config_dir = tmp.path().join("etc");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&config_dir).unwrap();
    let config = config_dir.join("gitconfig");
    std::fs::write(&config, "[user]\n\tname = Someone\n").unwrap();
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::chown(&home, Some(65534), Some(65534)).unwrap();
    let run = |extra: &[&str]| {
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(assert_cmd::cargo::cargo_bin("megg"))
            .args(["setup", "--agent", "codex", "--scope", "user", "--json"])
            .args(extra)
            .current_dir(&home)
            .env_clear()
            .env("HOME", &home)
            .env("PATH", "/usr/bin:/bin")
            .env("GIT_CONFIG_GLOBAL", &config)
            .env("MEGG_NOW", crate::NOW)
            .env("MEGG_CEILING_DIRS", tmp.path())
            .output()
            .unwrap()
    };
    let dry = run(&["--dry-run"]);
    let out = run(&[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (dry, out) = (crate::stdout_json(&dry), crate::stdout_json(&out));
    assert_eq!(lines(&dry), lines(&out));
    let skip = merge_change(&out).unwrap();
    assert_eq!(skip["action"], "skipped", "{out}");
    assert!(
        skip["what"].as_str().unwrap().contains("read-only"),
        "{out}"
    );
    assert!(home.join(".codex/hooks.json").is_file());
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "[user]\n\tname = Someone\n"
    );
}

/// A shared piece that fails after the plan said it could be written (the global config
/// changed under the run) is a warning and a `skipped` line: the hosts already written stay, and
/// the run exits 0.
#[test]
fn a_shared_piece_failing_late_never_fails_the_hosts() {
    let e = Env::new(Global::Default, false);
    let out = e
        .command(&["--agent", "codex", "--scope", "user", "--json"])
        .env("MEGG_FAILPOINTS", "fail=git-config-write")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = crate::stdout_json(&out);
    assert_eq!(merge_change(&v).unwrap()["action"], "skipped", "{v}");
    let warnings = v["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("test-only failure")),
        "{v}"
    );
    assert!(e.home().join(".codex/hooks.json").is_file());
    assert!(!e.home().join(".gitconfig").exists());
}

/// A private global git config (`0600`: it may hold credentials) keeps its mode when setup
/// registers the merge driver in it and when `--uninstall` takes it out again, as git keeps
/// it; libgit2 alone gives the rewritten file its default mode.
#[test]
fn a_private_global_config_stays_private() {
    use std::os::unix::fs::PermissionsExt;
    let e = Env::new(Global::Existing, false);
    let at = e.home().join(".gitconfig");
    std::fs::set_permissions(&at, std::fs::Permissions::from_mode(0o600)).unwrap();
    let mode = || std::fs::metadata(&at).unwrap().permissions().mode() & 0o7777;
    let out = e.setup(&["--scope", "user"]);
    assert!(out.status.success(), "{out:?}");
    assert!(std::fs::read_to_string(&at).unwrap().contains("megg"));
    assert_eq!(mode(), 0o600, "after setup");
    let out = e.setup(&["--scope", "user", "--uninstall"]);
    assert!(out.status.success(), "{out:?}");
    assert!(!std::fs::read_to_string(&at).unwrap().contains("megg"));
    assert_eq!(mode(), 0o600, "after --uninstall");
}

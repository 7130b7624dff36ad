//! `megg setup` works out its plan once and the run carries out exactly that plan (issue 27):
//! every file the plan would write or remove, and the lock it is changed under, is checked
//! before anything is written. A host's file this user cannot write refuses the whole run up
//! front — the dry run refuses the same way, and nothing is written; a shared piece it cannot
//! write (`.gitignore`, `.mcp.json`, the merge driver) is a skipped line and a warning in both.
//! Root may write anything, so these run megg as `nobody` through setpriv, and only when the
//! tests run as root.

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::{Git, megg_command};

/// The user megg runs as.
const NOBODY: u32 = 65534;

/// Whether megg can be run as another user (the tests run as root in CI); otherwise the test
/// says it could not be exercised.
#[allow(clippy::print_stderr)] // a skipped test says why
fn as_root() -> bool {
    if rustix::process::geteuid().is_root() {
        return true;
    }
    eprintln!("SKIPPED: setup's refusals need root to run megg as another user");
    false
}

/// What the environment holds before setup runs.
#[derive(Clone, Copy, Debug)]
enum Hostile {
    /// Nothing unusual: every directory a host needs is created.
    None,
    /// A directory (a host's, in the project or the home, or megg's own) that root owns with
    /// all it holds: `nobody` cannot write in it.
    RootDir(&'static str),
    /// The project's `.gitignore` (megg's block in it, after an install), owned by root:
    /// read-only for `nobody`, in a directory `nobody` may write.
    RootGitignore,
    /// A file of `nobody`'s (created with the bytes given when it is not there), mode 0444.
    ReadOnly(&'static str, &'static str),
    /// A regular file where setup needs a directory.
    FileForDir(&'static str),
    /// A directory root owns, writable by all with the sticky bit (like `/tmp`), holding
    /// root's file (`{}`, mode 0666): only root may replace or remove it.
    Sticky(&'static str, &'static str),
    /// The project's directory is root's; the hosts' directories and `.git` in it are
    /// `nobody`'s.
    RootProject(&'static [&'static str]),
}

/// What the run is to do.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// Exit 0, nothing skipped.
    Ok,
    /// Exit 1 naming the place (relative to the tree's root) and why, nothing written.
    Refused(&'static str, &'static str),
    /// Exit 0 with these files (relative to the tree's root) skipped and a warning naming
    /// each.
    Skipped(&'static [&'static str]),
}

/// Which runs a case makes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Runs {
    /// Installing into the hostile environment, and uninstalling from it after a clean install.
    Both,
    /// Only installing.
    Install,
    /// Only uninstalling, after a clean install.
    Uninstall,
}

/// A tree `nobody` owns: `home/` and a git repository at `project/`.
struct Env {
    tmp: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let e = Self { tmp };
        std::fs::create_dir_all(e.home()).unwrap();
        std::fs::create_dir_all(e.project()).unwrap();
        let g = Git::init(&e.project(), "main");
        std::fs::write(e.project().join("README.md"), "# project\n").unwrap();
        let mut index = g.repo.index().unwrap();
        index.add_path(Path::new("README.md")).unwrap();
        index.write().unwrap();
        g.commit("main", 1_000_000, "init");
        std::fs::set_permissions(e.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
        chown_all(&e.home(), NOBODY);
        chown_all(&e.project(), NOBODY);
        e
    }

    fn root(&self) -> &Path {
        self.tmp.path()
    }

    fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    fn project(&self) -> PathBuf {
        self.root().join("project")
    }

    /// Makes the environment hostile (as root).
    fn apply(&self, hostile: Hostile) {
        match hostile {
            Hostile::None => {}
            Hostile::RootDir(rel) => {
                let dir = self.root().join(rel);
                std::fs::create_dir_all(&dir).unwrap();
                chown_all(&dir, 0);
                std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
            Hostile::RootGitignore => {
                let file = self.project().join(".gitignore");
                if !file.exists() {
                    std::fs::write(&file, "target/\n").unwrap();
                }
                std::os::unix::fs::chown(&file, Some(0), Some(0)).unwrap();
                std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
            }
            Hostile::ReadOnly(rel, bytes) => {
                let file = self.root().join(rel);
                if !file.exists() {
                    let dir = file.parent().unwrap();
                    std::fs::create_dir_all(dir).unwrap();
                    std::fs::write(&file, bytes).unwrap();
                    chown_all(dir, NOBODY);
                }
                std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
            }
            Hostile::FileForDir(rel) => {
                let path = self.root().join(rel);
                if path.is_dir() {
                    std::fs::remove_dir_all(&path).unwrap();
                }
                let parent = path.parent().unwrap();
                std::fs::create_dir_all(parent).unwrap();
                std::fs::write(&path, "").unwrap();
                chown_all(parent, NOBODY);
            }
            Hostile::Sticky(rel, name) => {
                let dir = self.root().join(rel);
                std::fs::create_dir_all(&dir).unwrap();
                let file = dir.join(name);
                if !file.exists() {
                    std::fs::write(&file, "{}\n").unwrap();
                }
                chown_all(&dir, 0);
                std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
                std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o1777)).unwrap();
            }
            Hostile::RootProject(dirs) => {
                for dir in dirs {
                    std::fs::create_dir_all(self.project().join(dir)).unwrap();
                    chown_all(&self.project().join(dir), NOBODY);
                }
                std::os::unix::fs::chown(self.project(), Some(0), Some(0)).unwrap();
            }
        }
    }

    /// `megg setup ARGS` as `nobody`, in the project.
    fn setup(&self, args: &[&str]) -> Output {
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(assert_cmd::cargo::cargo_bin("megg"))
            .arg("setup")
            .args(args)
            .current_dir(self.project())
            .env_clear()
            .env("HOME", self.home())
            .env("PATH", "/usr/bin:/bin")
            .env("MEGG_NOW", crate::NOW)
            .env("NO_COLOR", "1")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("MEGG_CEILING_DIRS", self.root())
            .output()
            .unwrap()
    }

    /// Every entry under the tree: its kind, mode, owner and bytes (a link's target).
    fn snapshot(&self) -> BTreeMap<PathBuf, (u32, u32, Vec<u8>)> {
        let mut out = BTreeMap::new();
        let mut stack = vec![self.root().to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let meta = std::fs::symlink_metadata(&path).unwrap();
                let bytes = if meta.is_dir() {
                    stack.push(path.clone());
                    Vec::new()
                } else if meta.is_symlink() {
                    std::fs::read_link(&path)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes()
                } else {
                    std::fs::read(&path).unwrap()
                };
                out.insert(path, (meta.mode(), meta.uid(), bytes));
            }
        }
        out
    }
}

/// The paths two snapshots disagree on.
fn changed(
    a: &BTreeMap<PathBuf, (u32, u32, Vec<u8>)>,
    b: &BTreeMap<PathBuf, (u32, u32, Vec<u8>)>,
) -> Vec<PathBuf> {
    a.keys()
        .chain(b.keys())
        .filter(|k| a.get(*k) != b.get(*k))
        .cloned()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Gives `path` and all under it to `uid`.
fn chown_all(path: &Path, uid: u32) {
    std::os::unix::fs::lchown(path, Some(uid), Some(uid)).unwrap();
    if std::fs::symlink_metadata(path).unwrap().is_dir() {
        for entry in std::fs::read_dir(path).unwrap() {
            chown_all(&entry.unwrap().path(), uid);
        }
    }
}

/// The lines a run reports: each change and each warning.
fn lines(v: &Value) -> (Value, Value) {
    (v["changes"].clone(), v["warnings"].clone())
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn with<'a>(base: &[&'a str], extra: &'a str) -> Vec<&'a str> {
    let mut all = base.to_vec();
    all.push(extra);
    all
}

/// Runs the dry run, then the real run, in JSON and in text, and checks they are one plan: the
/// same lines and exit; on a refusal the same error, and the tree as it was.
fn check(e: &Env, args: &[&str], expect: Expect, case: &str) {
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let before = e.snapshot();
    let dry_text = e.setup(&with(args, "--dry-run"));
    let dry = e.setup(&with(&json_args, "--dry-run"));
    let after = e.snapshot();
    assert_eq!(
        changed(&before, &after),
        [] as [PathBuf; 0],
        "{case}: the dry run wrote"
    );
    match expect {
        Expect::Refused(rel, why) => {
            let run_text = e.setup(args);
            let run = e.setup(&json_args);
            let after = e.snapshot();
            assert_eq!(
                changed(&before, &after),
                [] as [PathBuf; 0],
                "{case}: a refusal wrote"
            );
            let path = e.root().join(rel);
            let path = path.display().to_string();
            for (dry, run) in [(&dry_text, &run_text), (&dry, &run)] {
                assert_eq!(dry.status.code(), Some(1), "{case}: {}", text(&dry.stderr));
                assert_eq!(run.status.code(), Some(1), "{case}: {}", text(&run.stderr));
                assert_eq!(text(&dry.stdout), text(&run.stdout), "{case}: stdout");
                assert_eq!(text(&dry.stderr), text(&run.stderr), "{case}: stderr");
            }
            let err = text(&run_text.stderr);
            assert!(
                err.starts_with("error: ") && err.contains(&path) && err.contains(why),
                "{case}: the error names {path} and why ({why}): {err}"
            );
            assert!(err.contains("\nhint: "), "{case}: a hint: {err}");
        }
        Expect::Ok | Expect::Skipped(_) => {
            assert_eq!(dry.status.code(), Some(0), "{case}: {}", text(&dry.stderr));
            let run = e.setup(&json_args);
            assert_eq!(run.status.code(), Some(0), "{case}: {}", text(&run.stderr));
            let (dry, run) = (crate::stdout_json(&dry), crate::stdout_json(&run));
            assert_eq!(
                lines(&dry),
                lines(&run),
                "{case}: the plan and the run differ"
            );
            let changes = run["changes"].as_array().unwrap();
            let skipped: Vec<&str> = changes
                .iter()
                .filter(|c| c["action"] == "skipped")
                .map(|c| c["path"].as_str().unwrap())
                .collect();
            match expect {
                Expect::Skipped(rels) => {
                    let paths: Vec<String> = rels
                        .iter()
                        .map(|rel| e.root().join(rel).display().to_string())
                        .collect();
                    assert_eq!(skipped, paths, "{case}: {run}");
                    for (rel, path) in rels.iter().zip(&paths) {
                        let warned = run["warnings"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .any(|w| w.as_str().unwrap().contains(path.as_str()));
                        assert!(warned, "{case}: a warning names {path}: {run}");
                        assert_eq!(
                            e.snapshot().get(&e.root().join(rel)),
                            before.get(&e.root().join(rel)),
                            "{case}: the skipped file was changed"
                        );
                    }
                }
                _ => assert!(skipped.is_empty(), "{case}: {run}"),
            }
            // Every other change was made.
            for c in changes
                .iter()
                .filter(|c| c["action"] == "create" || c["action"] == "update")
            {
                let p = Path::new(c["path"].as_str().unwrap());
                if !c["what"].as_str().unwrap().contains("merge driver") {
                    assert!(p.is_file(), "{case}: {} not written: {run}", p.display());
                }
            }
        }
    }
}

/// The table: for project and user scope, an unwritable host directory, an unwritable
/// `.gitignore` and a read-only `.mcp.json`, installing and uninstalling — the dry run's lines
/// and exit are the real run's, and a refusal writes nothing at all. Then the review's rows:
/// where the locks go (a cache directory root owns, a file where `.git/megg/locks` belongs)
/// is checked while planning like the files themselves; a removal needs only a directory it
/// may write, and so does a write (it renames a new file over the old: a read-only file is
/// replaced, keeping its mode), but not in a sticky directory of another user's file.
#[test]
fn the_plan_checks_every_file_before_the_run_writes_one() {
    if !as_root() {
        return;
    }
    let all: &[&str] = &[
        "--agent", "claude", "--agent", "codex", "--agent", "gemini", "--agent", "copilot",
    ];
    let claude: &[&str] = &[];
    let claude_codex: &[&str] = &["--agent", "claude", "--agent", "codex"];
    let claude_copilot: &[&str] = &["--agent", "claude", "--agent", "copilot"];
    let claude_gemini: &[&str] = &["--agent", "claude", "--agent", "gemini"];
    let read_only = "read-only";
    let skill = "home/.claude/skills/megg-state/SKILL.md";
    let cases: &[(&str, &[&str], Hostile, Expect, Runs)] = &[
        ("project", all, Hostile::None, Expect::Ok, Runs::Install),
        (
            "project",
            claude_codex,
            Hostile::RootDir("project/.codex"),
            Expect::Refused("project/.codex/hooks.json", read_only),
            Runs::Both,
        ),
        (
            "project",
            claude_gemini,
            Hostile::RootDir("project/.claude"),
            Expect::Refused("project/.claude/settings.json", read_only),
            Runs::Both,
        ),
        // A file root owns in a directory `nobody` may write is replaced, as it would be.
        (
            "project",
            claude_codex,
            Hostile::RootGitignore,
            Expect::Ok,
            Runs::Both,
        ),
        (
            "project",
            claude_copilot,
            Hostile::ReadOnly("project/.mcp.json", "{\"mcpServers\": {}}\n"),
            Expect::Ok,
            Runs::Both,
        ),
        (
            "project",
            claude,
            Hostile::ReadOnly("project/.claude/settings.json", "{}\n"),
            Expect::Ok,
            Runs::Both,
        ),
        // The shared pieces in a project directory `nobody` may not write are skipped (git
        // does not open a repository whose work tree is another user's: no merge driver).
        (
            "project",
            claude,
            Hostile::RootProject(&[".claude"]),
            Expect::Skipped(&["project/.mcp.json", "project/.gitignore"]),
            Runs::Install,
        ),
        (
            "project",
            claude,
            Hostile::FileForDir("project/.git/megg/locks"),
            Expect::Refused("project/.git/megg/locks", "directory"),
            Runs::Both,
        ),
        ("user", all, Hostile::None, Expect::Ok, Runs::Install),
        (
            "user",
            claude_codex,
            Hostile::RootDir("home/.codex"),
            Expect::Refused("home/.codex/hooks.json", read_only),
            Runs::Both,
        ),
        (
            "user",
            claude_gemini,
            Hostile::RootDir("home/.gemini"),
            Expect::Refused("home/.gemini/settings.json", read_only),
            Runs::Both,
        ),
        (
            "user",
            claude_codex,
            Hostile::RootDir("home/.config"),
            Expect::Refused("home/.config/megg/setup/hosts", read_only),
            Runs::Both,
        ),
        (
            "user",
            claude,
            Hostile::RootDir("home/.cache/megg"),
            Expect::Refused("home/.cache/megg/locks", read_only),
            Runs::Both,
        ),
        (
            "user",
            claude,
            Hostile::ReadOnly(skill, ""),
            Expect::Ok,
            Runs::Uninstall,
        ),
        (
            "user",
            claude,
            Hostile::Sticky("home/.claude", "settings.json"),
            Expect::Refused("home/.claude/settings.json", "sticky"),
            Runs::Both,
        ),
    ];
    // Every row runs, and the failing ones are named together.
    let mut failed = Vec::new();
    for (scope, agents, hostile, expect, runs) in cases {
        let row = std::panic::AssertUnwindSafe(|| row(scope, agents, *hostile, *expect, *runs));
        if std::panic::catch_unwind(row).is_err() {
            failed.push(format!("{scope} scope, {hostile:?}, {agents:?}"));
        }
    }
    assert!(failed.is_empty(), "failed: {failed:#?}");
}

/// One row of the table: `agents` at `scope`, in the `hostile` environment.
fn row(scope: &str, agents: &[&str], hostile: Hostile, expect: Expect, runs: Runs) {
    let mut args = agents.to_vec();
    args.extend(["--scope", scope]);
    let case = format!("{scope} scope, {hostile:?}, {agents:?}");
    // Installing into the hostile environment.
    if runs != Runs::Uninstall {
        let e = Env::new();
        e.apply(hostile);
        check(&e, &args, expect, &case);
    }
    // Uninstalling from it, after a clean install.
    if runs == Runs::Install {
        return;
    }
    let e = Env::new();
    let installed = e.setup(&args);
    assert!(
        installed.status.success(),
        "{case}: {}",
        text(&installed.stderr)
    );
    e.apply(hostile);
    args.push("--uninstall");
    check(&e, &args, expect, &format!("{case}, uninstall"));
}

/// The reviewer's repro, as they ran it: Claude Code and Codex at user scope with `~/.codex`
/// root's. The dry run promised `would create …/.codex/hooks.json`; the run then failed after
/// writing all of Claude Code's files.
#[test]
fn an_unwritable_codex_home_refuses_before_claude_codes_files_are_written() {
    if !as_root() {
        return;
    }
    let e = Env::new();
    e.apply(Hostile::RootDir("home/.codex"));
    let args = ["--agent", "claude", "--agent", "codex", "--scope", "user"];
    let mut dry_args = args.to_vec();
    dry_args.push("--dry-run");
    let dry = e.setup(&dry_args);
    assert_eq!(dry.status.code(), Some(1), "{}", text(&dry.stdout));
    assert!(!text(&dry.stdout).contains("would create"));
    let run = e.setup(&args);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        !e.home().join(".claude").exists(),
        "Claude Code's files were written"
    );
    let err = text(&run.stderr);
    assert!(!err.contains("temporary file"), "{err}");
    assert!(err.contains(".codex/hooks.json"), "{err}");
}

/// A refusal's hint says what can be done: make the place writable, or — installing — name
/// other hosts or the other scope; never "leave Claude Code out (no --agent claude)" when
/// Claude Code is the default, nor another scope when uninstalling.
#[test]
fn a_refusal_hints_what_the_user_can_do() {
    if !as_root() {
        return;
    }
    let hint = |e: &Env, args: &[&str]| {
        let out = e.setup(args);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        let err = text(&out.stderr);
        let hint = err
            .lines()
            .find_map(|l| l.strip_prefix("hint: "))
            .unwrap_or_else(|| panic!("no hint: {err}"))
            .to_string();
        assert!(hint.contains("writable for you"), "{hint}");
        assert!(!hint.contains("no --agent"), "{hint}");
        hint
    };
    // Claude Code, the default host, in a project whose `.claude` is root's.
    let e = Env::new();
    e.apply(Hostile::RootDir("project/.claude"));
    let h = hint(&e, &[]);
    for other in [
        "--agent codex",
        "--agent gemini",
        "--agent copilot",
        "--scope user",
    ] {
        assert!(h.contains(other), "{other}: {h}");
    }
    // Uninstalling it: only the place can be fixed.
    let e = Env::new();
    assert!(e.setup(&[]).status.success());
    e.apply(Hostile::RootDir("project/.claude"));
    let h = hint(&e, &["--uninstall"]);
    assert!(h.contains("megg setup --uninstall again"), "{h}");
    assert!(!h.contains("--agent") && !h.contains("--scope"), "{h}");
    // Two hosts named, one refused: the other alone, or the other scope.
    let e = Env::new();
    e.apply(Hostile::RootDir("home/.codex"));
    let h = hint(
        &e,
        &["--agent", "claude", "--agent", "codex", "--scope", "user"],
    );
    assert!(h.contains("--agent claude only"), "{h}");
    assert!(h.contains("--scope project"), "{h}");
}

/// `--scope` is described for every host, not in Claude Code's terms alone.
#[test]
fn setup_help_describes_both_scopes_for_every_host() {
    let out = megg_command().args(["setup", "--help"]).output().unwrap();
    assert!(out.status.success());
    let help = text(&out.stdout);
    let value = |name: &str| {
        help.lines()
            .find(|l| l.trim_start().starts_with(&format!("- {name}:")))
            .unwrap_or_else(|| panic!("no scope {name} in {help}"))
            .to_string()
    };
    let (project, user) = (value("project"), value("user"));
    for host in ["Claude Code", "Codex", "Gemini CLI", "Copilot CLI"] {
        assert!(help.contains(host), "{host} missing from {help}");
    }
    for dir in ["~/.claude", "$CODEX_HOME", "~/.gemini", "~/.copilot"] {
        assert!(user.contains(dir), "the user scope misses {dir}: {user}");
    }
    assert!(project.contains("each host's"), "{project}");
    assert!(user.contains("each host's"), "{user}");
    // Neither scope is Claude Code's alone.
    for line in [&project, &user] {
        assert!(!line.contains("claude mcp add"), "{line}");
        assert!(!line.contains(": .claude/"), "{line}");
        assert!(!line.contains(": ~/.claude/"), "{line}");
    }
}

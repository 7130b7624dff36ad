//! SPEC §11 "Registration" and the doctor part of "Seen, not hidden": `megg setup` registers the
//! merge driver (the `.gitattributes` block and both `merge.megg.*` keys), `--uninstall` takes
//! exactly that out again, `megg init` only hints, and `megg doctor` checks the driver git would
//! really run. Checked with the `git` CLI itself, in temp repositories whose global config is a
//! private HOME's and whose system config is off.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::{Git, Project};

const BLOCK: &str = "# megg: merge knowledge entry by entry (megg merge-driver)\n**/.megg/knowledge.md merge=megg\n**/.megg/archive/*.md merge=megg\n";
const NAME: &str = "megg knowledge entries";

/// The driver command setup registers for this test binary's megg.
fn driver() -> String {
    format!(
        "'{}' merge-driver --marker-size %L %O %A %B %P",
        bin().display()
    )
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("megg")
}

/// A git repository with a private HOME (`home/`, ignored by nothing: tests that check
/// `git status` commit a `.gitignore` for it or build the repository in `repo/`).
fn repo() -> Project {
    let p = Project::new();
    Git::init(&p.path("repo"), "main");
    p.mkdir("home");
    p
}

/// megg in `repo/` with the private HOME and no megg on PATH.
fn megg(p: &Project, args: &[&str]) -> Output {
    megg_env(p, args, &[])
}

fn megg_env(p: &Project, args: &[&str], env: &[(&str, &str)]) -> Output {
    p.megg("repo")
        .env("HOME", p.path("home"))
        .env("PATH", "/usr/bin:/bin")
        .envs(env.iter().copied())
        .args(args)
        .output()
        .unwrap()
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(out: Output) -> Value {
    serde_json::from_str(&ok(out)).unwrap()
}

/// The `git` CLI in `repo/`, seeing only the private HOME's global config.
fn git(p: &Project, args: &[&str]) -> Output {
    crate::git_cli(&p.path("repo"), &p.path("home"))
        .args(args)
        .output()
        .unwrap()
}

/// `git config --get KEY` (with `--global` in `extra` for the user's file); `None` when unset.
fn config(p: &Project, extra: &[&str], key: &str) -> Option<String> {
    let mut args = vec!["config"];
    args.extend(extra);
    args.extend(["--get", key]);
    let out = git(p, &args);
    out.status.success().then(|| {
        String::from_utf8(out.stdout)
            .unwrap()
            .trim_end()
            .to_string()
    })
}

/// What `git check-attr merge` says for `rel`.
fn merge_attr(p: &Project, rel: &str) -> String {
    let out = git(p, &["check-attr", "merge", "--", rel]);
    assert!(out.status.success());
    let line = String::from_utf8(out.stdout).unwrap();
    line.trim_end()
        .rsplit(": ")
        .next()
        .unwrap_or_default()
        .to_string()
}

fn status(p: &Project) -> String {
    ok(git(p, &["status", "--porcelain", "--untracked-files=all"]))
}

fn commit_all(p: &Project, msg: &str) {
    ok(git(p, &["add", "-A"]));
    ok(git(p, &["commit", "-q", "-m", msg]));
}

fn change<'v>(report: &'v Value, file_name: &str) -> &'v Value {
    report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"].as_str().unwrap().ends_with(file_name))
        .unwrap_or_else(|| panic!("no change for {file_name}: {report}"))
}

fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// Every file under `dir` (the git directory included) with its bytes.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path(), std::fs::read(e.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn backups(p: &Project, dir: &str, base: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(p.path(dir))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(&format!("{base}.")))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn setup_registers_the_merge_driver_in_the_repository() {
    let p = repo();
    let v = json(megg(&p, &["setup", "--json"]));
    assert_eq!(change(&v, "/.gitattributes")["action"], "create", "{v}");
    let keys = change(&v, "/.git/config");
    assert_eq!(keys["action"], "update", "{v}");
    assert_eq!(
        keys["what"],
        "merge driver `megg`: merge.megg.name, merge.megg.driver"
    );

    assert_eq!(read(p.path("repo/.gitattributes")), BLOCK);
    assert_eq!(config(&p, &[], "merge.megg.name").as_deref(), Some(NAME));
    assert_eq!(config(&p, &[], "merge.megg.driver"), Some(driver()));
    // In the repository's own config, not the user's.
    assert_eq!(
        config(&p, &["--local"], "merge.megg.driver"),
        Some(driver())
    );
    assert!(!p.path("home/.gitconfig").exists());
    for rel in [
        ".megg/knowledge.md",
        "api/.megg/knowledge.md",
        ".megg/archive/2025.md",
    ] {
        assert_eq!(merge_attr(&p, rel), "megg", "{rel}");
    }
    assert_eq!(merge_attr(&p, ".megg/info.md"), "unspecified");
    // The config file was backed up before it changed (SPEC §7), under .git/megg/backups/.
    let saved = backups(&p, "repo/.git/megg/backups", "git-config");
    assert_eq!(saved, ["git-config.20261122T120000Z"], "{saved:?}");
    let backup = read(p.path("repo/.git/megg/backups").join(&saved[0]));
    assert!(
        backup.contains("[core]") && !backup.contains("megg"),
        "{backup}"
    );

    // A second run changes nothing, the git directory included.
    let before = tree(&p.path("repo"));
    let v = json(megg(&p, &["setup", "--json"]));
    assert_eq!(change(&v, "/.gitattributes")["action"], "unchanged");
    assert_eq!(change(&v, "/.git/config")["action"], "unchanged");
    assert_eq!(tree(&p.path("repo")), before);
}

#[test]
fn dry_run_lists_the_registration_and_writes_nothing() {
    let p = repo();
    let before = tree(p.root());
    let text = ok(megg(&p, &["setup", "--dry-run"]));
    let line = |file: &str| {
        text.lines()
            .find(|l| l.contains(file))
            .unwrap_or_else(|| panic!("{file} not in the plan:\n{text}"))
            .to_string()
    };
    assert!(line("/.gitattributes").contains("would create"), "{text}");
    let keys = line("/.git/config");
    assert!(
        keys.contains("would update") && keys.contains("merge.megg.driver"),
        "{text}"
    );
    let v = json(megg(&p, &["setup", "--dry-run", "--json"]));
    assert_eq!(change(&v, "/.git/config")["action"], "update");
    assert_eq!(tree(p.root()), before, "nothing written anywhere");
    assert_eq!(config(&p, &[], "merge.megg.driver"), None);
}

/// Attribute lines that were there before stay, through setup and uninstall; uninstall gives
/// `.gitattributes` and `.git/config` back byte for byte and `git status` is clean.
#[test]
fn uninstall_removes_exactly_what_setup_added() {
    let p = repo();
    let own = "*.png binary\r\n**/.megg/knowledge.md merge=megg";
    p.write("repo/.gitattributes", own);
    p.write("repo/README.md", "# project\n");
    commit_all(&p, "init");
    let config_before = read(p.path("repo/.git/config"));

    let v = json(megg(&p, &["setup", "--json"]));
    assert_eq!(change(&v, "/.gitattributes")["action"], "update");
    assert_eq!(
        read(p.path("repo/.gitattributes")),
        "*.png binary\r\n**/.megg/knowledge.md merge=megg\r\n# megg: merge knowledge entry by entry (megg merge-driver)\r\n**/.megg/archive/*.md merge=megg\r\n",
        "only the missing lines, the file's own line ends"
    );
    assert_eq!(merge_attr(&p, "x/.megg/archive/2024.md"), "megg");

    let v = json(megg(&p, &["setup", "--uninstall", "--json"]));
    assert_eq!(change(&v, "/.git/config")["action"], "update");
    assert_eq!(read(p.path("repo/.gitattributes")), own);
    assert_eq!(config(&p, &[], "merge.megg.name"), None);
    assert_eq!(config(&p, &[], "merge.megg.driver"), None);
    let config_after = read(p.path("repo/.git/config"));
    assert!(!config_after.contains("megg"), "{config_after}");
    assert_eq!(config_after, config_before);
    assert_eq!(status(&p), "");
    // A second uninstall has nothing to do.
    let v = json(megg(&p, &["setup", "--uninstall", "--json"]));
    assert_eq!(change(&v, "/.git/config")["action"], "unchanged");
}

/// SPEC §7/§11: setup then `setup --uninstall` in a clean repository leaves
/// `git status --porcelain --untracked-files=all` empty: the `.gitattributes` setup created is
/// deleted, the keys are gone and the backups live under `.git/`.
#[test]
fn setup_then_uninstall_leaves_git_status_clean() {
    let p = repo();
    p.write("repo/README.md", "# project\n");
    commit_all(&p, "init");
    let config_before = read(p.path("repo/.git/config"));
    ok(megg(&p, &["setup"]));
    assert!(status(&p).contains(".gitattributes"), "{}", status(&p));
    ok(megg(&p, &["setup"]));
    ok(megg(&p, &["setup", "--uninstall"]));
    assert_eq!(status(&p), "");
    assert!(!p.path("repo/.gitattributes").exists());
    assert_eq!(read(p.path("repo/.git/config")), config_before);
}

/// An empty `.gitattributes` that was committed before setup is not deleted by uninstall
/// (setup did not create it): `git status` stays clean.
#[test]
fn uninstall_keeps_an_empty_gitattributes_it_did_not_create() {
    let p = repo();
    p.write("repo/.gitattributes", "");
    commit_all(&p, "init");
    ok(megg(&p, &["setup"]));
    assert_eq!(read(p.path("repo/.gitattributes")), BLOCK);
    ok(megg(&p, &["setup", "--uninstall"]));
    assert_eq!(read(p.path("repo/.gitattributes")), "");
    assert_eq!(status(&p), "");
}

#[test]
fn an_old_driver_is_replaced_with_a_backup_and_the_plan_says_so() {
    let p = repo();
    let old = "'/old/place/megg' merge-driver --marker-size %L %O %A %B %P";
    ok(git(&p, &["config", "merge.megg.name", NAME]));
    ok(git(&p, &["config", "merge.megg.driver", old]));
    let plan = ok(megg(&p, &["setup", "--dry-run"]));
    assert!(
        plan.contains(&format!("replaces `{old}`")),
        "the plan names the old driver:\n{plan}"
    );
    assert_eq!(config(&p, &[], "merge.megg.driver").as_deref(), Some(old));
    ok(megg(&p, &["setup"]));
    assert_eq!(config(&p, &[], "merge.megg.driver"), Some(driver()));
    let saved = backups(&p, "repo/.git/megg/backups", "git-config");
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert!(read(p.path("repo/.git/megg/backups").join(&saved[0])).contains("/old/place/megg"));
    // Only one value of each key, in one section.
    let text = read(p.path("repo/.git/config"));
    assert_eq!(text.matches("[merge \"megg\"]").count(), 1, "{text}");
    assert_eq!(text.matches("driver =").count(), 1, "{text}");
}

/// `--scope user` sets both keys in the user's global git config (a private HOME here), with a
/// backup when it changes an existing file, and nothing in the project; uninstall restores it.
#[test]
fn user_scope_registers_the_driver_in_the_global_config() {
    let p = repo();
    let own = "[user]\n\tname = Someone\n";
    p.write("home/.gitconfig", own);
    let project_before = tree(&p.path("repo"));
    let v = json(megg(&p, &["setup", "--scope", "user", "--json"]));
    assert_eq!(change(&v, "/home/.gitconfig")["action"], "update", "{v}");
    assert_eq!(
        config(&p, &["--global"], "merge.megg.name").as_deref(),
        Some(NAME)
    );
    assert_eq!(
        config(&p, &["--global"], "merge.megg.driver"),
        Some(driver())
    );
    assert!(read(p.path("home/.gitconfig")).starts_with(own));
    assert_eq!(
        tree(&p.path("repo")),
        project_before,
        "nothing in the project"
    );
    let saved = backups(&p, "home/.claude/.megg-backups", ".gitconfig");
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert_eq!(
        read(p.path("home/.claude/.megg-backups").join(&saved[0])),
        own
    );

    json(megg(
        &p,
        &["setup", "--scope", "user", "--uninstall", "--json"],
    ));
    assert_eq!(read(p.path("home/.gitconfig")), own);

    // A global config setup created is deleted again when nothing else is in it.
    std::fs::remove_file(p.path("home/.gitconfig")).unwrap();
    let v = json(megg(&p, &["setup", "--scope", "user", "--json"]));
    assert_eq!(change(&v, "/home/.gitconfig")["action"], "create", "{v}");
    let v = json(megg(
        &p,
        &["setup", "--scope", "user", "--uninstall", "--json"],
    ));
    assert_eq!(change(&v, "/home/.gitconfig")["action"], "remove", "{v}");
    assert!(!p.path("home/.gitconfig").exists());
}

/// Like git, setup writes the global config where `GIT_CONFIG_GLOBAL` says (libgit2 alone
/// would use ~/.gitconfig).
#[test]
fn user_scope_honours_git_config_global() {
    let p = repo();
    let custom = p.path("home/custom-gitconfig");
    let custom_s = custom.display().to_string();
    json(megg_env(
        &p,
        &["setup", "--scope", "user", "--json"],
        &[("GIT_CONFIG_GLOBAL", &custom_s)],
    ));
    assert!(read(&custom).contains("merge-driver"));
    assert!(!p.path("home/.gitconfig").exists());
}

#[test]
fn outside_git_project_setup_skips_the_registration_with_a_note() {
    let p = Project::new();
    p.mkdir("repo");
    p.mkdir("home");
    let v = json(megg(&p, &["setup", "--json"]));
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("merge driver is not registered"), "{v}");
    assert!(!p.path("repo/.gitattributes").exists());
    assert!(v["changes"].to_string().find("config").is_none(), "{v}");
}

/// `megg init` registers nothing; inside git it hints at `megg setup` until the driver is in
/// effect, and outside git it says nothing of it.
#[test]
fn init_hints_at_setup_inside_git_only() {
    let p = repo();
    let hint = "hint: run `megg setup`";
    let out = ok(megg(&p, &["init"]));
    assert!(out.contains(hint), "{out}");
    assert_eq!(out.lines().count(), 2, "one line of hint: {out}");
    assert!(
        !p.path("repo/.gitattributes").exists(),
        "init registers nothing"
    );
    assert_eq!(config(&p, &[], "merge.megg.driver"), None);

    ok(megg(&p, &["setup"]));
    p.mkdir("repo/api");
    let out = ok(megg(&p, &["init", "api"]));
    assert!(!out.contains("hint"), "{out}");

    // The attribute alone (a teammate's fresh clone) is not the driver in effect.
    ok(git(&p, &["config", "--unset", "merge.megg.driver"]));
    let out = ok(megg(&p, &["init", "api", "--force"]));
    assert!(out.contains(hint), "{out}");

    let outside = Project::new();
    let out = outside.ok("", &["init"]);
    assert!(!out.contains("hint"), "{out}");
}

// ---------------------------------------------------------------------------------------------
// doctor

/// `megg doctor --json` in `repo/`, with megg's directory on PATH.
fn doctor(p: &Project) -> (i32, Value) {
    let out = p
        .megg("repo")
        .env("HOME", p.path("home"))
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", bin().parent().unwrap().display()),
        )
        .args(["doctor", "--json"])
        .output()
        .unwrap();
    (out.status.code().unwrap(), crate::stdout_json(&out))
}

fn merge_check(p: &Project) -> (i32, Value) {
    let (code, v) = doctor(p);
    let c = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "merge")
        .unwrap_or_else(|| panic!("no merge check: {v}"))
        .clone();
    (code, c)
}

/// A teammate's clone: the committed attributes and knowledge, no driver configured.
fn clone_without_driver() -> Project {
    let p = repo();
    p.write("repo/.gitattributes", BLOCK);
    p.write("repo/.megg/info.md", "# P\n");
    p.write("repo/.megg/knowledge.md", "# Knowledge\n");
    p
}

fn assert_fails(c: &Value, detail: &str, fix: &str) {
    assert_eq!(c["ok"], false, "{c}");
    assert!(
        c["detail"].as_str().unwrap().contains(detail),
        "{detail:?} not in {c}"
    );
    assert_eq!(c["fix"], fix, "{c}");
}

#[test]
fn doctor_fails_when_the_attribute_names_megg_and_no_driver_is_configured() {
    let p = clone_without_driver();
    let (code, c) = merge_check(&p);
    assert_eq!(code, 1);
    assert_fails(&c, "no merge driver `megg` is configured", "megg setup");
    assert!(c["detail"].as_str().unwrap().contains(".megg/knowledge.md"));
}

#[test]
fn doctor_fails_on_a_driver_with_only_one_of_its_keys() {
    let p = clone_without_driver();
    ok(git(&p, &["config", "merge.megg.name", NAME]));
    let (code, c) = merge_check(&p);
    assert_eq!(code, 1);
    assert_fails(
        &c,
        "merge.megg.name is set without merge.megg.driver",
        "megg setup",
    );

    ok(git(&p, &["config", "--unset", "merge.megg.name"]));
    ok(git(&p, &["config", "merge.megg.driver", &driver()]));
    let (_, c) = merge_check(&p);
    assert_fails(
        &c,
        "merge.megg.driver is set without merge.megg.name",
        "megg setup",
    );

    // Broken in the user's global config: the fix is the user-scope setup.
    ok(git(&p, &["config", "--unset", "merge.megg.driver"]));
    ok(git(&p, &["config", "--global", "merge.megg.name", NAME]));
    let (_, c) = merge_check(&p);
    assert_fails(&c, "without merge.megg.driver", "megg setup --scope user");
}

#[test]
fn doctor_fails_on_a_driver_that_is_not_megg() {
    let p = clone_without_driver();
    ok(git(&p, &["config", "merge.megg.name", NAME]));
    let set = |program: &str| {
        let command = format!("'{program}' merge-driver --marker-size %L %O %A %B %P");
        ok(git(&p, &["config", "merge.megg.driver", &command]));
    };
    set("/bin/true");
    assert_fails(
        &merge_check(&p).1,
        "`/bin/true`, which is not megg",
        "megg setup",
    );

    set("/nowhere/megg");
    assert_fails(
        &merge_check(&p).1,
        "`/nowhere/megg`, which is not there",
        "megg setup",
    );

    // Programs called megg that are not a megg with merge-driver: run, and found out.
    let fake = |name: &str, script: &str| {
        let path = p.write(
            &format!("fakes/{name}/megg"),
            format!("#!/bin/sh\n{script}\n"),
        );
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    };
    set(&fake("silent", "exit 0"));
    assert_fails(
        &merge_check(&p).1,
        "not a megg with merge-driver",
        "megg setup",
    );
    set(&fake("failing", "echo 'megg merge-driver'; exit 2"));
    assert_fails(&merge_check(&p).1, "failed", "megg setup");
    // One that never answers is given up on in bounded time.
    set(&fake("stuck", "exec sleep 30"));
    let started = Instant::now();
    assert_fails(
        &merge_check(&p).1,
        "did not finish within 2 s",
        "megg setup",
    );
    assert!(started.elapsed() < Duration::from_secs(10));

    // Arguments megg does not take are not megg's driver either.
    ok(git(
        &p,
        &["config", "merge.megg.driver", "megg merge-driver %O %A %B"],
    ));
    assert_fails(
        &merge_check(&p).1,
        "does not pass megg's arguments",
        "megg setup",
    );

    // A program that answers like megg's driver passes: the check runs what git would run.
    set(&fake(
        "answers",
        "[ \"$1 $2\" = 'merge-driver --help' ] && echo 'Usage: megg merge-driver [OPTIONS] <BASE> <OURS> <THEIRS> <PATH>'",
    ));
    let (_, c) = merge_check(&p);
    assert_eq!(c["ok"], true, "{c}");
}

/// The attribute is evaluated as git applies it, from every source: `.git/info/attributes` and
/// `core.attributesFile` count as much as `.gitattributes`.
#[test]
fn doctor_reads_every_attribute_source() {
    let p = repo();
    p.write("repo/.megg/knowledge.md", "# Knowledge\n");
    p.write("repo/.git/info/attributes", BLOCK);
    assert_fails(&merge_check(&p).1, "no merge driver", "megg setup");

    std::fs::remove_file(p.path("repo/.git/info/attributes")).unwrap();
    let attributes = p.write("home/attributes", BLOCK);
    ok(git(
        &p,
        &[
            "config",
            "core.attributesFile",
            &attributes.display().to_string(),
        ],
    ));
    assert_fails(&merge_check(&p).1, "no merge driver", "megg setup");

    // A later rule that takes it away wins, as in git.
    p.write("repo/.gitattributes", "**/.megg/knowledge.md merge=union\n");
    let (_, c) = merge_check(&p);
    assert_eq!(c["ok"], true, "{c}");
    assert_eq!(c["fix"], "megg setup", "a hint: {c}");
}

/// Knowledge files that git would merge line by line are a hint, not a failure.
#[test]
fn doctor_hints_when_knowledge_has_no_merge_attribute() {
    let p = repo();
    p.write("repo/.megg/info.md", "# P\n");
    let (_, c) = merge_check(&p);
    assert_eq!(c["ok"], true, "{c}");
    assert!(c["fix"].is_null(), "no knowledge yet: nothing to say: {c}");

    p.write("repo/.megg/knowledge.md", "# Knowledge\n");
    p.write("repo/sub/.megg/archive/2025.md", "# Archive\n");
    commit_all(&p, "knowledge");
    let (_, c) = merge_check(&p);
    assert_eq!(c["ok"], true, "{c}");
    assert_eq!(c["fix"], "megg setup");
    let detail = c["detail"].as_str().unwrap();
    assert!(
        detail.contains(".megg/knowledge.md") && detail.contains("sub/.megg/archive/2025.md"),
        "{detail}"
    );
}

/// Needs `megg merge-driver` (SPEC §11), which this branch does not have yet: doctor runs
/// the registered megg as `megg merge-driver --help` and passes with setup's registration.
#[test]
fn doctor_passes_with_setups_registration() {
    let p = clone_without_driver();
    ok(megg(&p, &["setup"]));
    let (_, c) = merge_check(&p);
    assert_eq!(c["ok"], true, "{c}");
    assert!(c["fix"].is_null(), "{c}");
    assert!(
        c["detail"].as_str().unwrap().contains("entry by entry"),
        "{c}"
    );
}

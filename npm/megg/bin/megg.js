#!/usr/bin/env node
// The `megg` command of the npm package `megg`: finds the native binary that npm installed
// from this platform's optional dependency (`megg-<platform>-<arch>`, Codex's layout: no
// install scripts; `bin/megg.exe` on Windows) and runs it with the same arguments, stdio and
// exit status.
//
// A template: `cargo xtask dist` fills the "@…@" strings from Cargo.toml's `repository`.
"use strict";

const { spawn } = require("child_process");
const os = require("os");
const path = require("path");

const INSTALL_SH_URL = "@INSTALL_SH_URL@";
const INSTALL_PS1_URL = "@INSTALL_PS1_URL@";
const BREW_FORMULA = "@BREW_FORMULA@";
const SUPPORTED = [
  "linux-x64",
  "linux-arm64",
  "darwin-x64",
  "darwin-arm64",
  "win32-x64",
  "win32-arm64",
];

const windows = process.platform === "win32";
const platform = `${process.platform}-${process.arch}`;

// The binary's path, or null when this platform has no package installed.
function binaryPath() {
  if (!SUPPORTED.includes(platform)) {
    return null;
  }
  try {
    const manifest = require.resolve(`megg-${platform}/package.json`);
    return path.join(path.dirname(manifest), "bin", windows ? "megg.exe" : "megg");
  } catch {
    return null;
  }
}

function noBinary() {
  const lines = [`error: megg has no prebuilt binary installed for ${platform}`];
  if (SUPPORTED.includes(platform)) {
    lines.push(
      `hint: npm installs megg-${platform} as an optional dependency: if megg was installed ` +
        "with --omit=optional (or --no-optional), reinstall it without that option"
    );
    if (windows) {
      lines.push(
        "hint: or install megg another way, in PowerShell:",
        `  irm ${INSTALL_PS1_URL} | iex`
      );
    } else {
      lines.push(
        "hint: or install megg another way:",
        `  curl -fsSL ${INSTALL_SH_URL} | sh`,
        `  brew install ${BREW_FORMULA}`,
        "  cargo binstall megg"
      );
    }
  } else {
    lines.push(
      `hint: prebuilt binaries exist for ${SUPPORTED.join(", ")}; elsewhere, build it from ` +
        "source: cargo install --locked megg"
    );
  }
  process.stderr.write(lines.join("\n") + "\n");
  process.exit(1);
}

function run(binary) {
  const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
  // Windows has no signals to forward: Ctrl+C and Ctrl+Break reach every program on the
  // console, megg.exe included, and `child.kill` there would end it at once. The launcher
  // only outlives them, so megg.exe's exit code is the one reported.
  const forwarded = windows ? [] : ["SIGINT", "SIGTERM", "SIGHUP"];
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
    }
  };
  for (const signal of forwarded) {
    process.on(signal, forward);
  }
  if (windows) {
    for (const signal of ["SIGINT", "SIGBREAK"]) {
      process.on(signal, () => {});
    }
  }
  child.on("error", (err) => {
    process.stderr.write(`error: cannot run ${binary}: ${err.message}\n`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    if (signal) {
      // Die the way the child died, so a shell sees the same status; our handlers would
      // catch the signal, so they go first.
      for (const name of forwarded) {
        process.removeListener(name, forward);
      }
      process.kill(process.pid, signal);
      // Still here: a signal node ignores (SIGPIPE); exit as a shell reports it.
      process.exit(128 + (os.constants.signals[signal] || 0));
    }
    process.exit(code === null ? 1 : code);
  });
}

const binary = binaryPath();
if (binary === null) {
  noBinary();
} else {
  run(binary);
}

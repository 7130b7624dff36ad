# megg installer for Windows: downloads the prebuilt megg.exe for this machine from a release,
# checks the archive's SHA-256 sum before unpacking it, and installs megg.exe into
# %LOCALAPPDATA%\Programs\megg, on the user's PATH (SPEC 15.1). Never asks for elevation.
#
#   irm https://github.com/megg-dev/megg/releases/latest/download/install.ps1 | iex
#
# Settings (environment):
#   MEGG_INSTALL_DIR     where megg.exe goes (default: %LOCALAPPDATA%\Programs\megg)
#   MEGG_VERSION         a release to install, e.g. 1.2.3 (default: the latest)
#   MEGG_INSTALL_BASE    the URL holding SHA256SUMS and the archives (default: the release;
#                        a mirror holding several versions gets MEGG_VERSION's, else the first)
#   MEGG_NO_MODIFY_PATH  1: leave the user's PATH alone
#
# Running it again upgrades in place, also while megg.exe runs (an agent's MCP server lives
# for the session): Windows lets a running program's file be renamed but not replaced, so the
# old megg.exe is renamed aside, the new one takes its name, and the old file is deleted once
# nothing runs it (now, or by the next run). A checksum mismatch, a failed download or a
# machine with no build stops it with an `error:` and a `hint:`, and nothing is installed.
#
# Windows PowerShell 5.1 runs it as well as PowerShell 7: no `&&`, `||`, `??` or ternaries, and
# ASCII only (xtask/tests/install_ps1.rs lints it). Everything is one script block invoked by
# its last line, so a download cut short runs nothing and nothing is left in the caller's
# session but PATH.

& {
    $ErrorActionPreference = 'Stop'
    # Invoke-WebRequest's progress bar slows Windows PowerShell's downloads many times over.
    $ProgressPreference = 'SilentlyContinue'

    # The one place the release is named (Cargo.toml's `repository`).
    $RepoUrl = 'https://github.com/megg-dev/megg'

    # Stops the installer; the handler at the bottom prints `error: MESSAGE` and `hint: HINT`.
    function Fail([string]$Message, [string]$Hint) {
        $err = New-Object System.Exception $Message
        $err.Data['hint'] = $Hint
        throw $err
    }

    # The machine's architecture, not this process's: an x64 PowerShell emulated on an ARM64
    # machine gets the native arm64 build (as install.sh prefers it under Rosetta).
    function Get-MachineArch {
        $arch = $null
        try {
            $key = 'HKLM:\SYSTEM\CurrentControlSet\Control\Session Manager\Environment'
            $arch = (Get-ItemProperty -LiteralPath $key -Name PROCESSOR_ARCHITECTURE).PROCESSOR_ARCHITECTURE
        } catch {
            $arch = $null
        }
        if (-not $arch) {
            $arch = $env:PROCESSOR_ARCHITEW6432
        }
        if (-not $arch) {
            $arch = $env:PROCESSOR_ARCHITECTURE
        }
        return [string]$arch
    }

    # The release targets to look for in SHA256SUMS, the preferred first: the MSVC build, then
    # the mingw-w64 one that a mirror built on Linux holds (megg's own tests).
    function Get-Targets([string]$Arch) {
        switch ($Arch.ToUpperInvariant()) {
            'AMD64' { return @('x86_64-pc-windows-msvc', 'x86_64-pc-windows-gnu') }
            'ARM64' { return @('aarch64-pc-windows-msvc') }
        }
        Fail "megg has no prebuilt binary for Windows on $Arch" 'build it from source with Rust (https://rustup.rs): cargo install --locked megg'
    }

    # Where SHA256SUMS and the archives are: MEGG_INSTALL_BASE, else MEGG_VERSION's release,
    # else the latest.
    function Get-Base {
        if ($env:MEGG_INSTALL_BASE) {
            $base = $env:MEGG_INSTALL_BASE
        } elseif ($env:MEGG_VERSION) {
            $base = $RepoUrl + '/releases/download/v' + $env:MEGG_VERSION.TrimStart('v')
        } else {
            $base = $RepoUrl + '/releases/latest/download'
        }
        $base = $base.TrimEnd('/')
        # Plain http only to this machine (a local mirror, the tests).
        if ($base -notmatch '^(https://|http://(127\.0\.0\.1|localhost|\[::1\])([:/]|$))') {
            Fail "MEGG_INSTALL_BASE must be an https:// URL, not $base" 'plain http is accepted only for 127.0.0.1 and localhost'
        }
        return $base
    }

    function Get-File([string]$Url, [string]$Path) {
        try {
            Invoke-WebRequest -Uri $Url -OutFile $Path -UseBasicParsing
        } catch {
            Fail "could not download $Url ($($_.Exception.Message))" 'check the network and that the release exists; MEGG_VERSION=x.y.z picks a release, MEGG_INSTALL_BASE another server'
        }
    }

    # The line of SHA256SUMS naming this machine's zip, as (name, lowercase hex, target): the
    # first of $Targets that has one. The version is in the name, so the script needs not know
    # it.
    function Find-Archive([string]$Sums, [string[]]$Targets, [string]$Base) {
        $version = '[^/\\]+'
        if ($env:MEGG_VERSION) {
            $version = [regex]::Escape($env:MEGG_VERSION.TrimStart('v'))
        }
        $lines = @(Get-Content -LiteralPath $Sums)
        foreach ($target in $Targets) {
            $pattern = '^megg-' + $version + '-' + [regex]::Escape($target) + '\.zip$'
            foreach ($line in $lines) {
                if ($line -match '^([0-9A-Fa-f]{64}) [ *](.+?)\s*$') {
                    $hex = $Matches[1].ToLowerInvariant()
                    $name = $Matches[2]
                    if (($name -match $pattern) -and ($name -notmatch '\.\.')) {
                        return @($name, $hex, $target)
                    }
                }
            }
        }
        Fail "the release at $Base has no megg archive for $($Targets[0])" "see $RepoUrl/releases for the platforms it supports; elsewhere: cargo install --locked megg"
    }

    # `megg --version`'s version, or $null when the binary does not run here.
    function Get-MeggVersion([string]$Exe) {
        $ErrorActionPreference = 'Continue'
        try {
            $out = & $Exe --version 2>$null
        } catch {
            return $null
        }
        if ($LASTEXITCODE -ne 0) {
            return $null
        }
        return (([string]$out).Trim() -replace '^megg ', '')
    }

    # Deletes the megg.exe files earlier upgrades moved aside; one still running stays for a
    # later run.
    function Remove-Aside([string]$Dir) {
        Get-ChildItem -LiteralPath $Dir -Filter 'megg.exe.*.old' -Force -ErrorAction SilentlyContinue |
            Remove-Item -Force -ErrorAction SilentlyContinue
    }

    # Puts $New at $Dir\megg.exe and returns its version. A copy is made beside the old binary
    # and run (named .exe: PowerShell runs no other file as a program); then a running megg.exe
    # (which cannot be overwritten or deleted, but can be renamed) goes aside, and the copy
    # takes its name.
    function Install-Binary([string]$New, [string]$Dir, [string]$Target) {
        $exe = Join-Path $Dir 'megg.exe'
        if (Test-Path -LiteralPath $exe -PathType Container) {
            Fail "$exe is a directory" 'remove it, or set MEGG_INSTALL_DIR to another directory'
        }
        try {
            New-Item -ItemType Directory -Force -Path $Dir | Out-Null
        } catch {
            Fail "could not create $Dir" 'set MEGG_INSTALL_DIR to a directory you can write to (this installer never asks for elevation)'
        }
        Remove-Aside $Dir
        $staged = Join-Path $Dir ('.megg-new-' + $PID + '.exe')
        try {
            Copy-Item -LiteralPath $New -Destination $staged -Force
        } catch {
            Remove-Item -LiteralPath $staged -Force -ErrorAction SilentlyContinue
            Fail "could not write to $Dir" 'set MEGG_INSTALL_DIR to a directory you can write to (this installer never asks for elevation)'
        }
        $version = Get-MeggVersion $staged
        if (-not $version) {
            Remove-Item -LiteralPath $staged -Force -ErrorAction SilentlyContinue
            Fail "the downloaded megg.exe does not run on this machine ($Target)" "please report it at $RepoUrl/issues; meanwhile: cargo install --locked megg"
        }
        $aside = $null
        if (Test-Path -LiteralPath $exe -PathType Leaf) {
            $aside = Join-Path $Dir ('megg.exe.' + [guid]::NewGuid().ToString('N') + '.old')
            try {
                [IO.File]::Move($exe, $aside)
            } catch {
                Remove-Item -LiteralPath $staged -Force -ErrorAction SilentlyContinue
                Fail "could not move the old $exe aside ($($_.Exception.Message))" "check the permissions of $Dir"
            }
        }
        try {
            [IO.File]::Move($staged, $exe)
        } catch {
            $why = $_.Exception.Message
            if ($aside) {
                [IO.File]::Move($aside, $exe)
            }
            Remove-Item -LiteralPath $staged -Force -ErrorAction SilentlyContinue
            Fail "could not replace $exe ($why)" "check the permissions of $Dir"
        }
        Remove-Aside $Dir
        return $version
    }

    # Adds $Dir to the user's PATH (HKCU\Environment: no elevation) with its other entries'
    # %VARIABLES% kept unexpanded, and to this session's. Returns whether it was missing.
    function Add-UserPath([string]$Dir) {
        $key = [Microsoft.Win32.Registry]::CurrentUser.CreateSubKey('Environment')
        try {
            $old = [string]$key.GetValue('Path', '', [Microsoft.Win32.RegistryValueOptions]::DoNotExpandEnvironmentNames)
            $entries = @($old -split ';' | Where-Object { $_ })
            foreach ($entry in $entries) {
                if ([Environment]::ExpandEnvironmentVariables($entry).TrimEnd('\') -eq $Dir.TrimEnd('\')) {
                    return $false
                }
            }
            $key.SetValue('Path', (($entries + $Dir) -join ';'), [Microsoft.Win32.RegistryValueKind]::ExpandString)
        } finally {
            $key.Close()
        }
        # Programs started from now on read the new PATH once Windows says it changed: setting
        # a user variable through .NET makes it say so.
        [Environment]::SetEnvironmentVariable('MEGG_INSTALL_PATH_CHANGED', '1', 'User')
        [Environment]::SetEnvironmentVariable('MEGG_INSTALL_PATH_CHANGED', $null, 'User')
        if (-not (@($env:Path -split ';') -contains $Dir)) {
            $env:Path = $env:Path.TrimEnd(';') + ';' + $Dir
        }
        return $true
    }

    function Install-Megg {
        $arch = Get-MachineArch
        $targets = @(Get-Targets $arch)
        $base = Get-Base
        if ($env:MEGG_INSTALL_DIR) {
            $dir = $env:MEGG_INSTALL_DIR
        } elseif ($env:LOCALAPPDATA) {
            $dir = Join-Path $env:LOCALAPPDATA 'Programs\megg'
        } else {
            Fail 'LOCALAPPDATA is not set, so there is no %LOCALAPPDATA%\Programs\megg to install into' 'set MEGG_INSTALL_DIR to the directory megg.exe should go into'
        }
        # Windows PowerShell on an older Windows offers TLS 1.0 only; GitHub wants 1.2.
        [Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12

        $tmp = Join-Path ([IO.Path]::GetTempPath()) ('megg-install-' + [guid]::NewGuid().ToString('N'))
        New-Item -ItemType Directory -Path $tmp | Out-Null
        try {
            $sums = Join-Path $tmp 'SHA256SUMS'
            Get-File "$base/SHA256SUMS" $sums
            $found = Find-Archive $sums $targets $base
            $archive = $found[0]
            $expected = $found[1]
            $target = $found[2]
            $zip = Join-Path $tmp $archive
            Get-File "$base/$archive" $zip

            # Verified before anything is unpacked or installed.
            $actual = (Get-FileHash -LiteralPath $zip -Algorithm SHA256).Hash.ToLowerInvariant()
            if ($actual -ne $expected) {
                Fail "checksum mismatch for ${archive}: SHA256SUMS says $expected, the download is $actual" "the download was corrupted or tampered with; nothing was installed. Try again, and report it at $RepoUrl/issues if it persists"
            }

            $unpacked = Join-Path $tmp 'x'
            try {
                Expand-Archive -LiteralPath $zip -DestinationPath $unpacked
            } catch {
                Fail "could not extract $archive ($($_.Exception.Message))" "check that $tmp's drive has room"
            }
            $stem = $archive.Substring(0, $archive.Length - 4)
            $new = Join-Path (Join-Path $unpacked $stem) 'megg.exe'
            if (-not (Test-Path -LiteralPath $new -PathType Leaf)) {
                Fail "$archive does not hold $stem\megg.exe" "the release looks broken; please report it at $RepoUrl/issues"
            }
            $version = Install-Binary $new $dir $target
        } finally {
            Remove-Item -LiteralPath $tmp -Recurse -Force -ErrorAction SilentlyContinue
        }

        $exe = Join-Path $dir 'megg.exe'
        Write-Host "megg $version installed to $exe"
        if ($env:MEGG_NO_MODIFY_PATH -eq '1') {
            if (-not (@($env:Path -split ';') -contains $dir)) {
                Write-Host "$dir is not on PATH; add it to your user's Path in the editor this opens:"
                Write-Host '  rundll32 sysdm.cpl,EditEnvironmentVariables'
            }
        } elseif (Add-UserPath $dir) {
            Write-Host "added $dir to your user PATH (terminals opened from now on see it; this one already does)"
        }
        $first = Get-Command megg -CommandType 'Application, ExternalScript' -ErrorAction SilentlyContinue | Select-Object -First 1
        if ($first -and ($first.Path -ne $exe)) {
            Write-Host "note: $($first.Path) comes first on PATH; remove it or move $dir ahead of it"
        }
    }

    try {
        Install-Megg
    } catch {
        $err = $_.Exception
        $Host.UI.WriteErrorLine('error: ' + $err.Message)
        if ($err.Data['hint']) {
            $Host.UI.WriteErrorLine('hint: ' + $err.Data['hint'])
        }
        # Run as a file (powershell -File install.ps1), its exit code says it failed; under
        # `irm | iex` exit would close the user's window.
        if ($PSCommandPath) {
            exit 1
        }
    }
}

/* with-env.exe [NAME=VALUE | -NAME]... -- PROGRAM [ARG]...: runs PROGRAM with those variables
 * set (or, for -NAME, removed) and returns its exit code. wine builds a program's environment
 * from the registry over the Unix one (USERPROFILE, APPDATA and LOCALAPPDATA always point into
 * the prefix), so tests/windows.rs sets a Windows user's variables through this launcher: a
 * Windows child inherits its parent's environment as it is. stdin, stdout and stderr are
 * passed through. */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

/* Appends `arg` to `out` quoted as CommandLineToArgvW and the C runtime read it back. */
static wchar_t *quote(wchar_t *out, const wchar_t *arg) {
    if (*arg && !wcspbrk(arg, L" \t\n\v\"")) {
        wcscpy(out, arg);
        return out + wcslen(arg);
    }
    *out++ = L'"';
    for (const wchar_t *p = arg;; p++) {
        size_t slashes = 0;
        while (*p == L'\\') {
            p++;
            slashes++;
        }
        if (!*p) {
            for (size_t i = 0; i < slashes * 2; i++) *out++ = L'\\';
            break;
        }
        if (*p == L'"') {
            for (size_t i = 0; i < slashes * 2 + 1; i++) *out++ = L'\\';
        } else {
            for (size_t i = 0; i < slashes; i++) *out++ = L'\\';
        }
        *out++ = *p;
    }
    *out++ = L'"';
    return out;
}

static void inheritable(DWORD which) {
    HANDLE h = GetStdHandle(which);
    if (h && h != INVALID_HANDLE_VALUE) SetHandleInformation(h, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
}

int wmain(int argc, wchar_t **argv) {
    int i = 1;
    for (; i < argc && wcscmp(argv[i], L"--") != 0; i++) {
        wchar_t *eq = wcschr(argv[i], L'=');
        if (argv[i][0] == L'-') {
            SetEnvironmentVariableW(argv[i] + 1, NULL);
        } else if (eq) {
            *eq = 0;
            SetEnvironmentVariableW(argv[i], eq + 1);
        }
    }
    if (i + 1 >= argc) {
        fputws(L"usage: with-env [NAME=VALUE | -NAME]... -- PROGRAM [ARG]...\n", stderr);
        return 2;
    }
    size_t len = 1;
    for (int j = i + 1; j < argc; j++) len += wcslen(argv[j]) * 2 + 3;
    wchar_t *line = calloc(len, sizeof *line);
    wchar_t *end = line;
    for (int j = i + 1; j < argc; j++) {
        if (j > i + 1) *end++ = L' ';
        end = quote(end, argv[j]);
    }
    *end = 0;

    inheritable(STD_INPUT_HANDLE);
    inheritable(STD_OUTPUT_HANDLE);
    inheritable(STD_ERROR_HANDLE);
    STARTUPINFOW si = {sizeof si};
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    si.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
    si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
    PROCESS_INFORMATION pi;
    if (!CreateProcessW(argv[i + 1], line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) {
        fwprintf(stderr, L"with-env: cannot start %ls: error %lu\n", argv[i + 1], GetLastError());
        return 127;
    }
    WaitForSingleObject(pi.hProcess, INFINITE);
    DWORD code = 1;
    GetExitCodeProcess(pi.hProcess, &code);
    return (int)code;
}

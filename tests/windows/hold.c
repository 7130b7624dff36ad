/* hold.exe FILE [read]: opens FILE the way an editor, an indexer or antivirus can — sharing
 * nothing (share mode 0), or with `read` sharing only reading, so that others read it but cannot
 * replace it — prints "held" once it has it, and keeps it open until a line (or end of input)
 * arrives on stdin. tests/windows.rs uses it to hold a megg file open against megg.exe. */
#include <stdio.h>
#include <wchar.h>
#include <windows.h>

int wmain(int argc, wchar_t **argv) {
    if (argc < 2 || argc > 3 || (argc == 3 && wcscmp(argv[2], L"read") != 0)) {
        fputs("usage: hold FILE [read]\n", stderr);
        return 2;
    }
    DWORD share = argc == 3 ? FILE_SHARE_READ : 0;
    HANDLE h = CreateFileW(argv[1], GENERIC_READ | GENERIC_WRITE, share, NULL, OPEN_EXISTING,
                           FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        fprintf(stderr, "hold: cannot open: error %lu\n", GetLastError());
        return 1;
    }
    fputs("held\n", stdout);
    fflush(stdout);
    char line[16];
    fgets(line, sizeof line, stdin);
    CloseHandle(h);
    return 0;
}

/* A stand-in bcryptprimitives.dll for wine 8, which has none: Rust's standard library calls
 * ProcessPrng at start, so without it no Rust program starts under wine 8. Built with mingw-w64
 * by tests/windows.rs into the tests' own wine prefix; never shipped.
 * ProcessPrng fills the buffer and always returns TRUE (it cannot fail on Windows); here it
 * draws from RtlGenRandom (advapi32's SystemFunction036), in chunks its ULONG length allows. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}

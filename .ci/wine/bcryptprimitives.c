/*
 * A stand-in for Windows' bcryptprimitives.dll, for running godwit's
 * Windows build under wine 8.0 in CI. Go 1.22+ Windows programs load the
 * DLL at start for ProcessPrng, which wine 8.0 does not have; this one
 * fills the buffer from RtlGenRandom (advapi32's SystemFunction036).
 * Test use only: it is never shipped.
 *
 *   x86_64-w64-mingw32-gcc -shared -O2 -o bcryptprimitives.dll bcryptprimitives.c
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size)
{
	while (size > 0) {
		ULONG n = size > 0x40000000 ? 0x40000000 : (ULONG)size;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		size -= n;
	}
	return TRUE;
}

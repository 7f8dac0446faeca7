// nofp: a call chain main -> funcA -> funcB -> funcC -> funcD to unwind,
// built with -O2 -fomit-frame-pointer, so that only its CFI can walk it.
// With an argument, funcD writes what a dw_ustack sample holds: its ip,
// sp and bp, then the stack from sp to the top of the [stack] mapping
// (8 KiB at most), to the file named by the argument, and the process's
// maps to the same name with ".maps" appended. Without one, it calls the
// chain every half millisecond until killed, for the dw_ustack tests that
// trace it.
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *dump;
volatile int sink;

static void write_sample(uint64_t ip, uint64_t sp, uint64_t bp)
{
	char line[512], path[4096];
	uint64_t lo, hi, end = sp;
	FILE *maps = fopen("/proc/self/maps", "r");
	snprintf(path, sizeof path, "%s.maps", dump);
	FILE *copy = fopen(path, "w");
	while (fgets(line, sizeof line, maps)) {
		fputs(line, copy);
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && sp >= lo && sp < hi)
			end = hi;
	}
	fclose(maps);
	fclose(copy);
	uint64_t n = end - sp > 8192 ? 8192 : end - sp;
	FILE *f = fopen(dump, "w");
	fwrite(&ip, 8, 1, f);
	fwrite(&sp, 8, 1, f);
	fwrite(&bp, 8, 1, f);
	fwrite(&n, 8, 1, f);
	fwrite((void *)sp, 1, n, f);
	fclose(f);
}

__attribute__((noipa)) int funcD(int x)
{
	if (dump) {
		uint64_t ip, sp, bp;
		__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
				 : "=r"(ip), "=r"(sp), "=r"(bp));
		write_sample(ip, sp, bp);
	}
	sink += x;
	return x * 3;
}

__attribute__((noipa)) int funcC(int x)
{
	int r = funcD(x + 1);
	sink += r;
	return r + 1;
}

__attribute__((noipa)) int funcB(int x)
{
	int r = funcC(x * 2);
	sink += r;
	return r + 2;
}

__attribute__((noipa)) int funcA(int x)
{
	int r = funcB(x - 1);
	sink += r;
	return r + 3;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		for (;;) {
			sink += funcA(argc);
			usleep(500);
		}
	}
	dump = argv[1];
	int r = funcA(argc);
	sink += r;
	return 0;
}

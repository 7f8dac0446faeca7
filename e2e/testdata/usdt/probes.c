/*
 * probes.c: a program with USDT probes (gtsdt.h), traced by
 * e2e/usdt_test.go.
 *
 * Usage: probes N (N iterations), probes 0 (forever, one every 50 ms).
 */
#include <stdlib.h>
#include <unistd.h>

#include "gtsdt.h"

/* The semaphore of gt:tick: a tracer attached to it makes it non-zero. */
volatile unsigned short gt_tick_semaphore __attribute__((section(".probes")));

static const char hello[] = "hello";

__attribute__((noinline)) static void fire(int i)
{
	int neg = -i;
	long big = 0x123456789abcdefL * i;
	short s = (short)(-1000 * i);
	unsigned char c = (unsigned char)(200 + i);
	const char *str = hello;
	long hundred = -100L * i;
	/* Touch the string, so that its page is present when the probe
	 * reads it (BPF programs cannot fault pages in). */
	volatile char first = str[0];

	(void)first;

	/* A register, memory, a register (16 bits), memory (8 bits), a
	 * pointer in a register and a constant. */
	GT_PROBE(gt, args, "0", "-4@%0 8@%1 -2@%2 1@%3 8@%4 -4@%5",
		 "r"(neg), "m"(big), "r"(s), "m"(c), "r"(str), "n"(-7));
	/* One probe, two locations with different arguments. */
	GT_PROBE(gt, twice, "0", "-4@%0", "r"(i));
	GT_PROBE(gt, twice, "0", "-8@%0", "m"(hundred));
	/* A probe with a semaphore: it only fires while traced. */
	if (gt_tick_semaphore)
		GT_PROBE(gt, tick, "gt_tick_semaphore", "2@%0", "r"(gt_tick_semaphore));
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	for (int i = 1; n == 0 || i <= n; i++) {
		fire(i);
		if (n == 0)
			usleep(50000);
	}
	return 0;
}

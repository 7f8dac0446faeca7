/*
 * notes.c: the source of notes, a static program (never run) whose USDT
 * probes the tests read: twelve arguments of every kind and a semaphore.
 * Rebuild: gcc -O0 -nostdlib -static -no-pie -fno-pie -Wl,--build-id=none -Wl,-N -s -o notes notes.c
 */
#include "../../../e2e/testdata/usdt/gtsdt.h"

volatile unsigned short notes_semaphore __attribute__((section(".probes")));

long vals[4];

void _start(void)
{
	long a = 1, b = 2;
	int c = -3;
	GT_PROBE(notes, twelve, "0", "8@%0 -4@%1 8@%2 8@%3 8@%4 8@%5 8@%6 8@%7 8@%8 8@%9 8@%10 8@%11",
		 "r"(a), "r"(c), "m"(b), "n"(4), "n"(5), "n"(6), "n"(7), "n"(8), "n"(9), "n"(10), "n"(11), "n"(12));
	if (notes_semaphore)
		GT_PROBE(notes, sema, "notes_semaphore", "");
	for (;;)
		;
}

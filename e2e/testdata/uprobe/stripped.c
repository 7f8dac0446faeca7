/* A traced program that the test strips of its symbol table, keeping the
 * symbols and DWARF in a separate debug file: traced() stays in the dynamic
 * symbols (-rdynamic), the static hidden() is only in the debug file. */
#include <unistd.h>

__attribute__((noinline)) void traced(void)
{
	__asm__ volatile("");
}

static __attribute__((noinline)) void hidden(void)
{
	traced();
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	hidden();
	if (argc > 1)
		sleep(1); /* stay alive for user symbol lookups */
	return 0;
}

/* A traced program for the uprobe tests: calls add() N times, then
 * optionally sleeps. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) int add(int a, int b)
{
	__asm__ volatile("");
	return a + b;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	long sum = 0;
	for (int i = 0; i < n; i++)
		sum += add(i, 1);
	printf("%ld\n", sum);
	fflush(stdout);
	if (argc > 2)
		sleep(atoi(argv[2])); /* stay alive for user symbol lookups */
	return 0;
}

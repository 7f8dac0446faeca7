/* A traced program for the uprobe tests: calls add() N times. */
#include <stdio.h>
#include <stdlib.h>

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
	return 0;
}

/* A traced program for the inlined-frames test: leaf() is called from
 * inner(), which is inlined into outer(). */
#include <unistd.h>

__attribute__((noinline)) int leaf(int x)
{
	__asm__ volatile("");
	return x + 1;
}

__attribute__((always_inline)) static inline int inner(int x)
{
	return leaf(x) * 2;
}

__attribute__((noinline)) int outer(int x)
{
	return inner(x) + 3;
}

int main(void)
{
	int s = outer(1);
	sleep(5); /* stay alive for user symbol lookups */
	return s == 7 ? 0 : 1;
}

/* A traced program for uaddr(): globals of several sizes read in a probe
 * on probe_me, in the executable, and (built with -DLIB) in a shared
 * library whose lib_fn main calls. */
#include <stdio.h>

#ifdef LIB
int LIB_G = 0x2a2a2a2a;

__attribute__((noinline)) int lib_fn(int x)
{
	__asm__ volatile("");
	return x + LIB_G;
}
#else
int GLOBAL_A = 0x55555555;
int GLOBAL_B = 0x88888888;
int GLOBAL_C = 0x33333333;
char GLOBAL_D = 8;

#ifdef WITH_LIB
int lib_fn(int x);
#else
static int lib_fn(int x) { return x; }
#endif

__attribute__((noinline)) int probe_me(int x)
{
	__asm__ volatile("");
	return x + GLOBAL_D;
}

int main(int argc, char **argv)
{
	printf("%d %d\n", probe_me(argc), lib_fn(argc) > 0);
	return 0;
}
#endif

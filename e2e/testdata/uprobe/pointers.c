/* A traced program for the user pointer tests: functions that take
 * pointers into the program's own memory (a struct, a struct holding arrays,
 * an int array, an array of pointers). */
#include <unistd.h>

struct point {
	int x;
	int y[3];
	struct point *next;
};

__attribute__((noinline)) int take_struct(struct point *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
	return p->x;
}

struct box {
	int n;
	struct point pts[2];
	int grid[2][3];
	int tail[];
};

__attribute__((noinline)) int take_box(struct box *b)
{
	__asm__ volatile("" : : "r"(b) : "memory");
	return b->n;
}

__attribute__((noinline)) int take_array(int *a)
{
	__asm__ volatile("" : : "r"(a) : "memory");
	return a[0];
}

__attribute__((noinline)) int take_ptrs(int **pp)
{
	__asm__ volatile("" : : "r"(pp) : "memory");
	return *pp[0];
}

int main(void)
{
	struct point second = { 7, { 70, 71, 72 }, 0 };
	struct point first = { 5, { 50, 51, 52 }, &second };
	int arr[4] = { 11, 22, 33, 44 };
	int one = 100, two = 200;
	int *ptrs[2] = { &one, &two };
	static struct box box = { 3, { { 1, { 10, 11, 12 }, 0 }, { 2, { 20, 21, 22 }, 0 } },
				  { { 0, 1, 2 }, { 3, 4, 5 } }, { 99, 98 } };
	int r = take_struct(&first) + take_box(&box) + take_array(arr) + take_ptrs(ptrs);
	sleep(2); /* the tracer exits first, on exit() */
	return r != 119;
}

/* A small program whose DWARF the debuginfo tests and the e2e tests read. */
#include <stdint.h>
#include <unistd.h>

typedef unsigned long ulong_t;

enum color { RED = 1, GREEN = 2, BLUE = 4 };

struct point {
	int x;
	int y;
};

struct shape {
	int16_t id;
	char name[8];
	struct point corners[2];
	struct point *origin;
	unsigned flags : 3;
	unsigned kind : 5;
};

union word {
	uint32_t u;
	uint8_t bytes[4];
};

__attribute__((noinline)) int draw(struct shape *s, int8_t dx, uint64_t scale,
				   const char *label, enum color c, ulong_t n)
{
	return s->id + dx + (int)scale + label[0] + c + (int)n;
}

__attribute__((noinline)) double mix(double ratio, struct point p, long k)
{
	return ratio * p.x + k;
}

__attribute__((noinline)) int tally(union word *w)
{
	return w->u;
}

int main(void)
{
	struct point o = { 7, 9 };
	struct shape s = { .id = 42, .name = "square", .corners = { { 1, 2 }, { 3, 4 } },
			   .origin = &o, .flags = 5, .kind = 17 };
	union word w = { .u = 0x01020304 };
	char label[4] = "hi"; /* on the stack: paged in when draw is first traced */
	for (;;) {
		draw(&s, -3, 1000, label, GREEN, 6);
		mix(0.5, o, 2);
		tally(&w);
		usleep(20000);
	}
	return 0;
}

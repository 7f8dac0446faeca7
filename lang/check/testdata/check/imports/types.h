#ifndef TYPES_H
#define TYPES_H
/* A struct, a typedef, an enum and constants for scripts. */
#define ANSWER 42
#define IS_INIT (pid == 1)
#define LONG_SUM (ANSWER + \
	5)
struct point {
	int x;
	int y; // the second coordinate
};
typedef struct point point_t;
enum color { RED, GREEN = 5 };
/* Left out: functions, function types, variables, forward declarations. */
int point_sum(struct point *p);
static inline int twice(int v) { if (v) { return 2 * v; } return 0; }
typedef int (*visit_fn)(struct point *p);
extern int counter;
struct opaque;
#endif

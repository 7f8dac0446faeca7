// Imported by examples/imports.bt: a C struct and a constant.
#define ORIGIN 0

struct point {
	int x;
	int y;
};

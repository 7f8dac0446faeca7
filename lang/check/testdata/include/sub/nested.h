#define NESTED \
	21

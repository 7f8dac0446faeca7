#define FORCED 0xf00

#define BROKEN 1
#ifdef BROKEN
#error broken header
#endif

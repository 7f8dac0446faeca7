/* A traced program for the watchpoint tests: maps a page at 0x10000000 and
 * writes its first byte every 50 ms for 10 s. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void)
{
	volatile uint8_t *p = mmap((void *)0x10000000, 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (int i = 0; i < 200; i++) {
		*p = (uint8_t)i;
		usleep(50 * 1000);
	}
	return 0;
}

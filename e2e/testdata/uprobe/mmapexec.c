/* Runs a flat binary: maps the file named by argv[1] executable and calls
 * its first byte (the uprobe flat binary test). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	int fd = open(argv[1], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		return 1;
	void (*code)(void) = (void (*)(void))mmap(NULL, st.st_size, PROT_EXEC, MAP_PRIVATE, fd, 0);
	if ((void *)code == MAP_FAILED)
		return 1;
	code();
	return 0;
}

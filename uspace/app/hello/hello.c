/* The first user program: greets and prints its task id. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

int main(int argc, char **argv)
{
	if (argc > 1) {
		bool help = !strcmp(argv[1], "-h");
		fprintf(help ? stdout : stderr, "usage: hello [-h]\n"
			"  print a greeting and the task id\n");
		return help ? 0 : 2;
	}
	printf("hello from user space (task %lu)\n",
	       (unsigned long)sys_task_id());
	return 0;
}

/* The first user program: greets and prints its task id. */
#include <stdio.h>
#include <vernier.h>

int main(void)
{
	printf("hello from user space (task %lu)\n",
	       (unsigned long)sys_task_id());
	return 0;
}

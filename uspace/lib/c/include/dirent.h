/*
 * Reading directories of the file service (see <fcntl.h>).
 */
#ifndef _DIRENT_H
#define _DIRENT_H

#include <stdint.h>
#include <sys/types.h>

#define DT_UNKNOWN 0
#define DT_FIFO 1
#define DT_DIR 4
#define DT_REG 8

struct dirent {
	uint64_t d_ino;
	unsigned char d_type;      /* DT_REG, DT_DIR or DT_FIFO */
	char d_name[64];
};

typedef struct _DIR DIR;

/* Open directory path; NULL with errno on failure. */
DIR *opendir(const char *path);
/*
 * The next entry (valid until the next call on dir), or NULL at the end
 * (errno unchanged) or on error (errno set). No "." or ".." entries.
 */
struct dirent *readdir(DIR *dir);
/* Start again from the first entry. */
void rewinddir(DIR *dir);
/* Close dir; 0, or -1 with errno. */
int closedir(DIR *dir);

/*
 * Read every entry of directory path for which filter returns nonzero
 * (NULL: all) into a new array of new entries at *list, sorted with
 * compar (NULL: as read). Returns the count, or -1 with errno; the
 * caller frees each entry and the array.
 */
int scandir(const char *path, struct dirent ***list,
	    int (*filter)(const struct dirent *),
	    int (*compar)(const struct dirent **, const struct dirent **));
/* scandir's compar for names in byte order. */
int alphasort(const struct dirent **a, const struct dirent **b);

#endif

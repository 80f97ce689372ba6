/*
 * Intrusive circular doubly-linked lists (header-only, freestanding).
 * A list_t head is a node whose next/prev point to itself when empty.
 */
#ifndef LIB_LIST_H
#define LIB_LIST_H

#include <stdbool.h>
#include <stddef.h>

typedef struct list_node {
	struct list_node *next, *prev;
} list_node_t, list_t;

#define LIST_INIT(name) { &(name), &(name) }
#define list_entry(node, type, member) \
	((type *)((char *)(node) - offsetof(type, member)))
#define list_foreach(head, it) \
	for (list_node_t *it = (head)->next; it != (head); it = it->next)
/* Safe against removal of it. */
#define list_foreach_safe(head, it, tmp) \
	for (list_node_t *it = (head)->next, *tmp = it->next; it != (head); \
	     it = tmp, tmp = it->next)

static inline void list_init(list_t *l)
{
	l->next = l->prev = l;
}

static inline bool list_empty(const list_t *l)
{
	return l->next == l;
}

/* True if n is linked into some list (nodes are re-initialised on removal). */
static inline bool list_linked(const list_node_t *n)
{
	return n->next != n && n->next != NULL;
}

static inline void list_insert_after(list_node_t *pos, list_node_t *n)
{
	n->prev = pos;
	n->next = pos->next;
	pos->next->prev = n;
	pos->next = n;
}

static inline void list_append(list_t *l, list_node_t *n)
{
	list_insert_after(l->prev, n);
}

static inline void list_prepend(list_t *l, list_node_t *n)
{
	list_insert_after(l, n);
}

static inline void list_remove(list_node_t *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

static inline list_node_t *list_first(const list_t *l)
{
	return list_empty(l) ? NULL : l->next;
}

static inline size_t list_count(const list_t *l)
{
	size_t n = 0;
	list_foreach(l, it)
		n++;
	return n;
}

#endif

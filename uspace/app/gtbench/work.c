/*
 * The hot functions of gtbench, each a different shape of code: a state
 * machine (gt_fsm), a linked-list walk (gt_walk), a bitwise CRC
 * (gt_crc32), an integer matrix multiply (gt_matmul), the set-up that
 * fills their inputs (gt_init, gt_rand) and a small leaf that needs no
 * stack (gt_mix, called from gt_fsm and gt_walk: GCC builds it without a
 * frame). Every round does the same work on the same data, so the share
 * of each function is the same for any number of rounds. No call leaves
 * this file: the host build (test/gtcallgrind.t) runs these very
 * instructions under callgrind.
 */
#include "gtbench.h"

#define GT_NOINLINE __attribute__((noinline, noclone))

#define GT_TEXT 3072            /* bytes of text for the FSM and the CRC */
#define GT_NODES 1024           /* list nodes */
#define GT_WALKS 8              /* walks of the list per round */
#define GT_MAT 28               /* matrix side */

typedef struct gt_node {
	struct gt_node *next;
	uint32_t val;
} gt_node_t;

uint8_t gt_text[GT_TEXT];
gt_node_t gt_nodes[GT_NODES];
gt_node_t *gt_head;
uint32_t gt_ma[GT_MAT][GT_MAT], gt_mb[GT_MAT][GT_MAT], gt_mc[GT_MAT][GT_MAT];
uint32_t gt_state;

uint32_t gt_rand(void);
uint32_t gt_mix(uint32_t h, uint32_t v);
void gt_init(void);
uint32_t gt_fsm(const uint8_t *s, uint32_t n);
uint32_t gt_crc32(const uint8_t *s, uint32_t n);
uint32_t gt_walk(const gt_node_t *head, uint32_t walks);
uint32_t gt_matmul(void);
uint32_t gt_round(void);

/* xorshift32 over gt_state. */
GT_NOINLINE uint32_t gt_rand(void)
{
	uint32_t x = gt_state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	gt_state = x;
	return x;
}

/* Mix v into the hash h (a leaf that needs no stack). */
GT_NOINLINE uint32_t gt_mix(uint32_t h, uint32_t v)
{
	h ^= v * 0x9e3779b1u;
	h = (h << 13) | (h >> 19);
	h *= 0x85ebca6bu;
	h ^= h >> 16;
	return h;
}

/* Text of words, numbers and punctuation; a list in shuffled order; matrices. */
GT_NOINLINE void gt_init(void)
{
	static const char alphabet[] = "etaoin shrdlu 0123456789 ,.;()+-";
	uint32_t order[GT_NODES];

	gt_state = 2463534242u;
	for (uint32_t i = 0; i < GT_TEXT; i++)
		gt_text[i] = (uint8_t)alphabet[gt_rand() % (sizeof(alphabet) - 1)];
	for (uint32_t i = 0; i < GT_NODES; i++)
		order[i] = i;
	for (uint32_t i = GT_NODES - 1; i > 0; i--) {
		uint32_t j = gt_rand() % (i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (uint32_t i = 0; i < GT_NODES; i++) {
		gt_nodes[order[i]].val = order[i] * 7u + 1u;
		gt_nodes[order[i]].next = i + 1 < GT_NODES ? &gt_nodes[order[i + 1]] : 0;
	}
	gt_head = &gt_nodes[order[0]];
	for (uint32_t i = 0; i < GT_MAT; i++)
		for (uint32_t j = 0; j < GT_MAT; j++) {
			gt_ma[i][j] = (i * 31u + j * 17u) & 0xff;
			gt_mb[i][j] = (i * 13u + j * 7u + 3u) & 0xff;
		}
}

enum { GT_SPACE, GT_WORD, GT_NUMBER, GT_PUNCT };

/* A tokenizer: words, numbers and punctuation runs; a hash of the tokens. */
GT_NOINLINE uint32_t gt_fsm(const uint8_t *s, uint32_t n)
{
	uint32_t state = GT_SPACE, len = 0, h = 0, tokens = 0;

	for (uint32_t i = 0; i <= n; i++) {
		uint32_t c = i < n ? s[i] : ' ';
		uint32_t next = c == ' ' ? GT_SPACE :
				c >= '0' && c <= '9' ? GT_NUMBER :
				c >= 'a' && c <= 'z' ? GT_WORD : GT_PUNCT;
		switch (state) {
		case GT_NUMBER:
			if (next == GT_WORD)
				next = GT_NUMBER;       /* 12ab is one token */
			/* fall through */
		case GT_WORD:
		case GT_PUNCT:
			if (next == state) {
				len++;
				continue;
			}
			h = gt_mix(h, len * 4 + state);
			tokens++;
			break;
		default:
			break;
		}
		state = next;
		len = 1;
	}
	return h + tokens;
}

/* CRC-32 (IEEE, reflected), a bit at a time. */
GT_NOINLINE uint32_t gt_crc32(const uint8_t *s, uint32_t n)
{
	uint32_t crc = 0xffffffffu;

	for (uint32_t i = 0; i < n; i++) {
		crc ^= s[i];
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

/* Walk the list walks times, mixing every odd value into a hash. */
GT_NOINLINE uint32_t gt_walk(const gt_node_t *head, uint32_t walks)
{
	uint32_t h = 0, sum = 0;

	for (uint32_t w = 0; w < walks; w++)
		for (const gt_node_t *p = head; p; p = p->next) {
			sum += p->val;
			if (p->val & 1)
				h = gt_mix(h, p->val);
		}
	return h ^ sum;
}

/* gt_mc = gt_ma x gt_mb; the trace. */
GT_NOINLINE uint32_t gt_matmul(void)
{
	uint32_t trace = 0;

	for (uint32_t i = 0; i < GT_MAT; i++)
		for (uint32_t j = 0; j < GT_MAT; j++) {
			uint32_t sum = 0;
			for (uint32_t k = 0; k < GT_MAT; k++)
				sum += gt_ma[i][k] * gt_mb[k][j];
			gt_mc[i][j] = sum;
		}
	for (uint32_t i = 0; i < GT_MAT; i++)
		trace += gt_mc[i][i];
	return trace;
}

/* One round: the same inputs, the same work. */
GT_NOINLINE uint32_t gt_round(void)
{
	uint32_t h;

	gt_init();
	h = gt_fsm(gt_text, GT_TEXT);
	h ^= gt_crc32(gt_text, GT_TEXT / 3);
	h ^= gt_walk(gt_head, GT_WALKS);
	h ^= gt_matmul();
	return h;
}

uint32_t gt_run(uint32_t rounds)
{
	uint32_t sum = 0;

	for (uint32_t r = 0; r < rounds; r++)
		sum = sum * 31u + gt_round();
	return sum;
}

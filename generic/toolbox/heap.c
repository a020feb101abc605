/*
 * heap.c --
 *
 *	Binary min-heaps of (key, value) pairs: the smallest key is at
 *	items[0].
 */

#include <stdlib.h>
#include "toolbox/toolbox.h"

/*
 * RbHeapPush --
 *	Adds (key, value).
 * Side effects: may grow the heap.
 */
void
RbHeapPush(Rb_Heap *h, int64_t key, int64_t value)
{
    size_t i = h->n++, parent;

    if (h->n > h->cap) {
	h->cap = h->cap ? h->cap * 2 : 64;
	h->items = Rb_ReallocArray(h->items, h->cap, sizeof(Rb_HeapItem));
    }
    for (; i > 0 && h->items[parent = (i - 1) / 2].key > key; i = parent) {
	h->items[i] = h->items[parent];
    }
    h->items[i].key = key;
    h->items[i].value = value;
}

/*
 * RbHeapPop --
 *	Removes and returns the item with the smallest key (h->n > 0).
 */
Rb_HeapItem
RbHeapPop(Rb_Heap *h)
{
    Rb_HeapItem top = h->items[0], last = h->items[--h->n];
    size_t i = 0, child;

    while ((child = 2 * i + 1) < h->n) {
	if (child + 1 < h->n && h->items[child + 1].key < h->items[child].key) {
	    child++;
	}
	if (h->items[child].key >= last.key) {
	    break;
	}
	h->items[i] = h->items[child];
	i = child;
    }
    if (h->n > 0) {
	h->items[i] = last;
    }
    return top;
}

/*
 * RbHeapFree --
 *	Frees the heap's items; the heap is empty afterwards.
 */
void
RbHeapFree(Rb_Heap *h)
{
    free(h->items);
    h->items = NULL;
    h->n = h->cap = 0;
}

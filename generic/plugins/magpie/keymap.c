/*
 * keymap.c --
 *
 *	MgKeyMap: a map from three 64-bit words (machine, domain, value) to
 *	a pointer-sized value, for the request parser's open intervals and
 *	running threads, which it looks up several times per event.  Open
 *	addressing with linear probing, at most half full; deletion shifts
 *	the entries after the hole back, so there are no tombstones and a
 *	map holds only what is in it (its table doubles as it fills and is
 *	never shrunk, like a Tcl hash table).
 */

#include <stdlib.h>
#include "plugins/magpie/magpie.h"

/*
 * Home --
 *	The slot where a key's probe starts.
 */
static size_t
Home(const MgKeyMap *m, int64_t machine, int64_t domain, int64_t value)
{
    uint64_t h = (uint64_t)value * 0x9E3779B97F4A7C15ull
	    ^ (uint64_t)domain * 0xC2B2AE3D27D4EB4Full
	    ^ (uint64_t)machine * 0x165667B19E3779F9ull;

    h ^= h >> 31;
    return (size_t)(h * 0x9E3779B97F4A7C15ull >> 20) & m->mask;
}

/*
 * MgKeyMapFind --
 *	The slot holding the key, or NULL.
 */
MgKeySlot *
MgKeyMapFind(const MgKeyMap *m, int64_t machine, int64_t domain,
	int64_t value)
{
    size_t i;

    if (m->slots == NULL) {
	return NULL;
    }
    for (i = Home(m, machine, domain, value); m->slots[i].used;
	    i = (i + 1) & m->mask) {
	MgKeySlot *e = &m->slots[i];

	if (e->value == value && e->domain == domain
		&& e->machine == machine) {
	    return e;
	}
    }
    return NULL;
}

/*
 * Grow --
 *	Doubles the table (or makes the first) and puts every entry back.
 */
static void
Grow(MgKeyMap *m)
{
    MgKeySlot *old = m->slots;
    size_t n = old ? m->mask + 1 : 0, i;

    m->mask = n ? 2 * n - 1 : 63;
    m->slots = (MgKeySlot *)Rb_AllocArray(m->mask + 1, sizeof(MgKeySlot));
    memset(m->slots, 0, (m->mask + 1) * sizeof(MgKeySlot));
    for (i = 0; i < n; i++) {
	if (old[i].used) {
	    size_t j = Home(m, old[i].machine, old[i].domain, old[i].value);

	    while (m->slots[j].used) {
		j = (j + 1) & m->mask;
	    }
	    m->slots[j] = old[i];
	}
    }
    if (old != NULL) {
	free(old);
    }
}

/*
 * MgKeyMapPut --
 *	The slot of the key, added (its value 0) if it was not there.
 * Results: the slot, valid until the next Put or Delete; *isNew says
 *	whether it was added.
 */
MgKeySlot *
MgKeyMapPut(MgKeyMap *m, int64_t machine, int64_t domain, int64_t value,
	int *isNew)
{
    MgKeySlot *e = MgKeyMapFind(m, machine, domain, value);
    size_t i;

    *isNew = e == NULL;
    if (e != NULL) {
	return e;
    }
    if (m->slots == NULL || 2 * (m->count + 1) > m->mask + 1) {
	Grow(m);
    }
    for (i = Home(m, machine, domain, value); m->slots[i].used;
	    i = (i + 1) & m->mask) {
    }
    e = &m->slots[i];
    e->machine = machine;
    e->domain = domain;
    e->value = value;
    e->data = 0;
    e->used = 1;
    m->count++;
    return e;
}

/*
 * MgKeyMapDelete --
 *	Removes the entry in slot e (from Find or Put): the entries after it
 *	in its probe run that may not skip the hole are moved back into it.
 */
void
MgKeyMapDelete(MgKeyMap *m, MgKeySlot *e)
{
    size_t hole = (size_t)(e - m->slots), j = hole;

    for (;;) {
	size_t home;

	j = (j + 1) & m->mask;
	if (!m->slots[j].used) {
	    break;
	}
	home = Home(m, m->slots[j].machine, m->slots[j].domain,
		m->slots[j].value);
	/* Entry j may stay unless its home is cyclically outside
	 * (hole, j], i.e. its probe passed through the hole. */
	if (hole <= j ? (home <= hole || home > j)
		: (home <= hole && home > j)) {
	    m->slots[hole] = m->slots[j];
	    hole = j;
	}
    }
    m->slots[hole].used = 0;
    m->count--;
}

/*
 * MgKeyMapFree --
 *	Frees the table; the map is empty and usable again.
 */
void
MgKeyMapFree(MgKeyMap *m)
{
    if (m->slots != NULL) {
	free(m->slots);
    }
    memset(m, 0, sizeof(*m));
}

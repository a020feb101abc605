/*
 * blocks.c --
 *
 *	The blocks an I/O touches, as keys that are unique across the
 *	devices of a Flow, for the analyzers of footprint, reuse and
 *	overwrites.
 */

#include <string.h>
#include "toolbox/toolbox.h"

#define BLOCK_BITS 48
#define MAX_DEVICES ((int64_t)1 << 15)

/*
 * RbBlockMapStart --
 *	Checks -block, resolves the device and offset fields, and forgets the
 *	devices of a previous run.
 * Results: TCL_OK, or TCL_ERROR with an analyzer error.
 */
int
RbBlockMapStart(Rb_Analyzer *a, Rb_BlockMap *m, const Rb_RunInfo *run)
{
    if (m->block <= 0) {
	return RbKitOptionError(a, NULL,
		"-block must be a positive number of bytes");
    }
    if (RbKitIntegerField(a, run, m->deviceField, &m->deviceIndex)
	    != TCL_OK
	    || RbKitIntegerField(a, run, m->offsetField, &m->offsetIndex)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    m->blockShift = (m->block & (m->block - 1)) == 0
	    ? __builtin_ctzll((uint64_t)m->block) + 1 : 0;
    RbBlockMapClear(m);
    return TCL_OK;
}

/*
 * RbBlockMapClear --
 *	Forgets the devices (and the ones found lately) and the skipped
 *	count.
 */
void
RbBlockMapClear(Rb_BlockMap *m)
{
    if (m->devices.valSize == 0) {
	Rb_KeyTableInit(&m->devices, sizeof(int64_t));
    }
    Rb_KeyTableClear(&m->devices);
    memset(m->recentId, 0, sizeof(m->recentId));
    m->skipped = 0;
}

/*
 * RbBlockKeysStart --
 *	RbBlockMapStart for a class whose keys are blocks unless an option
 *	(fieldOption, named in the message) gives a field: also checks that
 *	the records have the I/O schema's size, where RbBlockRange reads it.
 * Results: TCL_OK, or TCL_ERROR with an analyzer error.
 */
int
RbBlockKeysStart(Rb_Analyzer *a, Rb_BlockMap *m, const Rb_RunInfo *run,
	const char *fieldOption)
{
    int sizeIndex;

    if (RbBlockMapStart(a, m, run) != TCL_OK
	    || RbKitIntegerField(a, run, "size", &sizeIndex) != TCL_OK) {
	return TCL_ERROR;
    }
    if (sizeIndex != RB_IO_SIZE) {
	return RbKitOptionError(a, NULL, "block keys need the I/O schema's "
		"size field (give %s for other records)", fieldOption);
    }
    return TCL_OK;
}

/*
 * RbBlockRange --
 *	The blocks touched by record i of b: *first is the key of the first,
 *	the others follow it consecutively, *count of them.
 * Results: 1, or 0 when the I/O lacks a device, offset or size, has a
 *	negative one, or cannot be keyed (counted in m->skipped).
 */
int
RbBlockRange(Rb_BlockMap *m, const Rb_Batch *b, int i, int64_t *first,
	int64_t *count)
{
    int64_t dev = b->col[m->deviceIndex][i];
    int64_t offset = b->col[m->offsetIndex][i];
    int64_t reqSize = b->col[RB_IO_SIZE][i];
    int64_t lo, hi, last;

    if (dev == RB_ABSENT || offset == RB_ABSENT || reqSize == RB_ABSENT
	    || offset < 0 || reqSize < 0 || __builtin_add_overflow(offset,
	    reqSize > 0 ? reqSize - 1 : 0, &last)) {
	m->skipped++;
	return 0;
    }
    lo = RbBlockOf(m, offset);
    hi = RbBlockOf(m, last);
    if (hi >= ((int64_t)1 << BLOCK_BITS) || !RbBlockKey(m, dev, lo, first)) {
	m->skipped++;
	return 0;
    }
    *count = hi - lo + 1;
    if (*count > RB_MAX_IO_BLOCKS) {
	*count = RB_MAX_IO_BLOCKS;
    }
    return 1;
}

/*
 * RbBlockBytes --
 *	The bytes of an I/O of size bytes at offset (a record RbBlockRange
 *	accepted) that fall in its k-th block (0 for a zero-size I/O).
 */
int64_t
RbBlockBytes(const Rb_BlockMap *m, int64_t offset, int64_t size, int64_t k)
{
    int64_t start = (RbBlockOf(m, offset) + k) * m->block;
    int64_t lo = start > offset ? start : offset;
    int64_t hi = start + m->block < offset + size
	    ? start + m->block : offset + size;

    return hi > lo ? hi - lo : 0;
}

/*
 * RecentSlot --
 *	The slot of device dev in m->recentDev and m->recentId.
 */
static inline unsigned
RecentSlot(int64_t dev)
{
    return (unsigned)(((uint64_t)dev * 0x9E3779B97F4A7C15ULL) >> 56);
}

/*
 * RbBlockKey --
 *	The key of block number blockNo (>= 0) of device dev, the device
 *	given the next dense id if it is new.
 * Results: 1 with *key set, or 0 when the block number or the number of
 *	devices is too large for a key.
 */
int
RbBlockKey(Rb_BlockMap *m, int64_t dev, int64_t blockNo, int64_t *key)
{
    unsigned r = RecentSlot(dev);
    int64_t id;

    if (m->recentId[r] != 0 && m->recentDev[r] == dev) {
	id = m->recentId[r];
    } else {
	int64_t *slot = Rb_KeyTableFind(&m->devices, dev, 1);

	if (*slot == 0) {
	    *slot = (int64_t)m->devices.count;
	}
	id = *slot;
	m->recentDev[r] = dev;
	m->recentId[r] = id;
    }
    if (blockNo >= ((int64_t)1 << BLOCK_BITS) || id > MAX_DEVICES) {
	return 0;
    }
    *key = ((id - 1) << BLOCK_BITS) | blockNo;
    return 1;
}

/*
 * RbBlockPrefetch --
 *	Prefetches in t what looking up the blocks of records sel[from],
 *	..., sel[to - 1] of b reads first (RbKeyTablePrefetch), for those
 *	blocks whose key hashes (the upper 32 bits of Rb_HashKey) below
 *	threshold: the ones a sampled block analyzer will look up next.  At
 *	most PREFETCH_BLOCKS blocks a record.  Only devices found lately
 *	(m->recentDev) are keyed: a new one is numbered by RbBlockRange in
 *	its turn, so that ids stay in the order devices are first seen.
 *	It changes nothing but what is in the cache.
 */
#define PREFETCH_BLOCKS 4

void
RbBlockPrefetch(const Rb_BlockMap *m, const Rb_Batch *b,
	const uint32_t *sel, int from, int to, const Rb_KeyTable *t,
	uint64_t threshold)
{
    int j;

    for (j = from; j < to; j++) {
	int i = (int)sel[j];
	int64_t dev = b->col[m->deviceIndex][i];
	int64_t offset = b->col[m->offsetIndex][i];
	int64_t size = b->col[RB_IO_SIZE][i], lo, hi, k;
	unsigned r = RecentSlot(dev);

	if (dev == RB_ABSENT || offset == RB_ABSENT || size == RB_ABSENT
		|| offset < 0 || size < 0 || size > INT64_MAX - offset
		|| m->recentId[r] == 0 || m->recentDev[r] != dev
		|| m->recentId[r] > MAX_DEVICES) {
	    continue;
	}
	lo = RbBlockOf(m, offset);
	hi = RbBlockOf(m, size > 0 ? offset + size - 1 : offset);
	if (hi >= ((int64_t)1 << BLOCK_BITS)) {
	    continue;
	}
	if (hi - lo >= PREFETCH_BLOCKS) {
	    hi = lo + PREFETCH_BLOCKS - 1;
	}
	for (k = lo; k <= hi; k++) {
	    int64_t key = ((m->recentId[r] - 1) << BLOCK_BITS) | k;

	    if ((Rb_HashKey(key) >> 32) < threshold) {
		RbKeyTablePrefetch(t, key);
	    }
	}
    }
}

/*
 * RbBlockOfKey --
 *	The device and block number a key stands for.  devices is the
 *	array RbBlockMapDevices made of the map that made the key.
 */
void
RbBlockOfKey(const int64_t *devices, int64_t key, int64_t *dev,
	int64_t *blockNo)
{
    *dev = devices[key >> BLOCK_BITS];
    *blockNo = key & (((int64_t)1 << BLOCK_BITS) - 1);
}

/*
 * RbBlockMapDevices --
 *	The devices of the map by dense id: element id - 1 is the device
 *	whose keys carry id.
 * Results: a malloc'd array the caller frees.
 */
int64_t *
RbBlockMapDevices(const Rb_BlockMap *m)
{
    int64_t *devices = Rb_AllocArray(m->devices.count + 1, sizeof(int64_t));
    uint64_t i;

    for (i = 0; i < m->devices.cap; i++) {
	if (m->devices.used[i]) {
	    int64_t id = *(const int64_t *)Rb_KeyTableValue(&m->devices, i);

	    devices[id - 1] = m->devices.keys[i];
	}
    }
    return devices;
}

/*
 * RbBlockMapFree --
 *	Frees the device table.
 */
void
RbBlockMapFree(Rb_BlockMap *m)
{
    Rb_KeyTableFree(&m->devices);
    memset(m->recentId, 0, sizeof(m->recentId));
}

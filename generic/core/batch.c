/*
 * batch.c --
 *
 *	Columnar record batches.  A batch owns one int64 column per schema
 *	field; readers append, nodes pass a selection vector alongside.  A
 *	batch of a schema narrower than the I/O one also owns one column of
 *	RB_ABSENT that every I/O slot past the schema's fields points at,
 *	so that a class reading I/O fields by index without declaring them
 *	(fields mask 0) reads absent values instead of a NULL column.
 */

#include <string.h>
#include "rbInt.h"

/*
 * Rb_BatchCreate --
 *	Makes an empty batch of capacity cap (RB_BATCH_SIZE if cap <= 0)
 *	for records of schema.  Slots schema->nfields up to RB_IO_NFIELDS
 *	share one column of cap RB_ABSENT values, filled here once: nothing
 *	writes it, so it costs nothing per record.
 * Results: the batch, with n = 0; Rb_BatchFree frees it.
 * Side effects: allocates a column per field; takes a reference to
 *	schema.
 */
Rb_Batch *
Rb_BatchCreate(Rb_Schema *schema, int cap)
{
    Rb_Batch *b = Rb_Alloc(sizeof(*b));
    int f, i;

    b->schema = schema;
    Rb_SchemaRetain(schema);
    b->cap = cap > 0 ? cap : RB_BATCH_SIZE;
    for (f = 0; f < schema->nfields; f++) {
	b->col[f] = Rb_AllocArray(b->cap, sizeof(int64_t));
    }
    if (schema->nfields < RB_IO_NFIELDS) {
	int64_t *absent = Rb_AllocArray(b->cap, sizeof(int64_t));

	for (i = 0; i < b->cap; i++) {
	    absent[i] = RB_ABSENT;
	}
	for (f = schema->nfields; f < RB_IO_NFIELDS; f++) {
	    b->col[f] = absent;
	}
    }
    return b;
}

/*
 * Rb_BatchFree --
 *	Frees a batch made by Rb_BatchCreate (NULL: nothing).
 * Results: none.
 * Side effects: frees its columns and b; releases its reference to the
 *	schema.
 */
void
Rb_BatchFree(Rb_Batch *b)
{
    int f;

    if (b == NULL) {
	return;
    }
    /* The slots past the schema's fields share one column (or none). */
    for (f = 0; f < RB_MAX_FIELDS; f++) {
	if (f == 0 || b->col[f] != b->col[f - 1]) {
	    free(b->col[f]);
	}
    }
    Rb_SchemaRelease(b->schema);
    free(b);
}

/*
 * Rb_BatchClear --
 *	Empties a batch for reuse, keeping its columns and schema.
 * Results: none.
 * Side effects: sets b->n to 0 (the columns keep their old values).
 */
void
Rb_BatchClear(Rb_Batch *b)
{
    b->n = 0;
}

/*
 * Rb_BatchAppend --
 *	Adds a record with every field absent.
 * Results: its index, or -1 if the batch is full.
 * Side effects: increments b->n and sets each of the schema's fields
 *	of the new record to RB_ABSENT; nothing when full.
 */
int
Rb_BatchAppend(Rb_Batch *b)
{
    int f, i;

    if (b->n >= b->cap) {
	return -1;
    }
    i = b->n++;
    for (f = 0; f < b->schema->nfields; f++) {
	b->col[f][i] = RB_ABSENT;
    }
    return i;
}

/*
 * Rb_BatchCopyRecord --
 *	Appends a copy of record i of src to dst; both must be of the same
 *	schema (src's field count is copied, string ids unchanged).
 * Results: the new index, or -1 if dst is full.
 * Side effects: increments dst->n and writes the record's slots.
 */
int
Rb_BatchCopyRecord(Rb_Batch *dst, const Rb_Batch *src, int i)
{
    int f, j;

    if (dst->n >= dst->cap) {
	return -1;
    }
    j = dst->n++;
    for (f = 0; f < src->schema->nfields; f++) {
	dst->col[f][j] = src->col[f][i];
    }
    return j;
}

/*
 * Rb_FieldAsDouble --
 *	Reads field f of record i as a double: a double field as stored, an
 *	integer converted (a string field gives its id converted).
 * Results: the value, or NaN when it is RB_ABSENT.
 * Side effects: none.
 */
double
Rb_FieldAsDouble(const Rb_Batch *b, int f, int i)
{
    int64_t v = b->col[f][i];

    if (v == RB_ABSENT) {
	return NAN;
    }
    if (b->schema->fields[f].type == RB_FT_DOUBLE) {
	return Rb_GetDouble(b, f, i);
    }
    return (double)v;
}

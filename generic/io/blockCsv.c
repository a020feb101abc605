/*
 * blockCsv.c --
 *
 *	What the readers of the cloud block traces published as CSV of five
 *	fields (alibaba, tencent) share: the comma-separated lines, the
 *	epoch from the first line's timestamp, and the device, offset, size
 *	and timestamp fields with their checks.  Each reader adds its
 *	operation field and the time's unit.
 */

#include "io/text.h"

/*
 * RbBlockCsvOpen --
 *	A reader's open hook's part: makes tx read comma-separated lines
 *	(# starts a comment) and reads the first line's timestamp.
 * Results: TCL_OK with *found set when the first line holds a whole
 *	timestamp within c->timeRange (its value in *time); TCL_ERROR with
 *	err set when the input cannot be read.  A first line that cannot be
 *	read is left for the next hook to report like any other bad line.
 */
int
RbBlockCsvOpen(Rb_Reader *r, Rb_Text *tx, const Rb_BlockCsv *c,
	int64_t *time, int *found, Rb_Error *err)
{
    char head[256], *p = head;
    long n;
    int k;

    tx->delim = ',';
    tx->comment = '#';
    *found = 0;
    n = Rb_InputPeek(r->in, head, sizeof(head) - 1, err);
    if (n < 0) {
	return TCL_ERROR;
    }
    head[n] = '\0';
    head[strcspn(head, "\r\n")] = '\0';
    for (k = 0; k < c->time && (p = strchr(p, ',')) != NULL; k++) {
	p++;
    }
    if (p != NULL) {
	p[strcspn(p, ",")] = '\0';
	*found = RbParseInt(p, time) && *time >= -c->timeRange
		&& *time <= c->timeRange;
    }
    return TCL_OK;
}

/*
 * RbBlockCsvParse --
 *	A reader's parse proc's part: checks that line has five fields and
 *	reads the device, the offset and size (times c->unit bytes, neither
 *	negative) into record i of b, and the timestamp (whole, within
 *	c->timeRange) into *time.
 * Results: NULL, or the malformed kind with why naming the field as the
 *	publisher names it.
 */
const char *
RbBlockCsvParse(const Rb_BlockCsv *c, Rb_TextLine *l, Rb_Batch *b, int i,
	int64_t *time, char *why, size_t whyLen)
{
    const char *kind;
    int64_t *offset = &b->col[RB_IO_OFFSET][i], *size = &b->col[RB_IO_SIZE][i];

    if ((kind = RbTextFields(l, 5, 5, why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, c->device, c->deviceName, 1, 1,
		&b->col[RB_IO_DEVICE][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, c->offset, c->offsetName, c->unit, 1,
		offset, why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, c->size, c->sizeName, c->unit, 1,
		size, why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, c->time, c->timeName, 1, 1, time, why,
		whyLen)) != NULL) {
	return kind;
    }
    if (*offset < 0 || *size < 0) {
	snprintf(why, whyLen, "%s is negative", *size < 0 ? c->sizeName
		: c->offsetName);
	return "bad-field";
    }
    if (*time < -c->timeRange || *time > c->timeRange) {
	snprintf(why, whyLen, "%s %lld is not a time between 1824 and 2115",
		c->timeName, (long long)*time);
	return "bad-field";
    }
    return NULL;
}

/*
 * blktracer.c --
 *
 *	Reader of the text of the kernel's ftrace "blk" tracer, what a
 *	Linux machine gives when blktrace's debugfs interface is locked
 *	down (tracefs current_tracer=blk, /sys/block/DEV/trace/enable=1):
 *
 *	    fio-24862 [000] d..1. 12998.438229:   7,0    Q   R 24704 + 128 [fio]
 *
 *	After the ftrace line head (ftrace.c) come blkparse's device,
 *	action, RWBS and arguments, parsed as blkparse.c does, and the
 *	events are paired by blkpair.c.  See doc/blktracer.n.
 */

#include "io/ftrace.h"
#include "io/readers.h"

/*
 * Tail --
 *	"MAJ,MIN ACTION RWBS ..." from field a on.
 */
static const char *
Tail(Rb_Reader *r, const Rb_TextLine *l, int a, Rb_BlkEvent *ev, char *why,
	size_t whyLen)
{
    if (a + 2 > l->nfields) {
	snprintf(why, whyLen, "no device and action after the time");
	return "short-line";
    }
    if (!RbBlkParseDev(l->field[a], &ev->dev)) {
	snprintf(why, whyLen, "field %d \"%.20s\" is not a major,minor device",
		a + 1, l->field[a]);
	return "bad-field";
    }
    return RbBlkParseAction(l, a + 1, ev, why, whyLen);
}

/*
 * LineOk --
 *	A sniffed line: an ftrace head, a device and a one-letter action.
 */
static int
LineOk(char **f, int nf)
{
    int64_t t;
    uint32_t pid, dev;
    int a = RbFtraceHead(f, nf, &t, &pid, NULL, 0);

    return a >= 0 && a + 2 <= nf && RbBlkParseDev(f[a], &dev)
	    && strlen(f[a + 1]) == 1;
}

/*
 * BlktracerSniff --
 *	Above the generic ftrace event reader of the magpie plugin, which
 *	takes any file starting "# tracer:".
 */
static int
BlktracerSniff(const unsigned char *head, size_t n)
{
    return RbTextSniff(head, n, 0, LineOk) * 95 / 100;
}

/*
 * BlktracerOpen --
 *	Sets up the shared ftrace reading (ftrace.c) with this format's
 *	parse of what follows the line head.
 * Results: TCL_OK.
 */
static int
BlktracerOpen(Rb_Reader *r, Rb_Error *err)
{
    return RbFtraceOpen(r, Tail);
}

const Rb_ReaderClass Rb_BlktracerReaderClass = {
    "blktracer",
    "Linux ftrace blk tracer text, Q/D/C paired into one record per I/O",
    sizeof(RbFtraceState),
    BlktracerSniff,
    BlktracerOpen,
    RbFtraceNext,
    RbFtraceClose,
};

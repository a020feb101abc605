/*
 * test_transformers.c --
 *
 *	Unit tests of the built-in Transformer kit (generic/transformers).
 *	Each test builds a few I/O records by hand, runs them through one
 *	transformer with the engine's C interface, and checks the records
 *	that come out against answers worked out in the comments.
 */

#include "rbtest.h"
#include "core/rbInt.h"
#include "transformers/transformers.h"

#define SEC 1000000000LL
#define MS 1000000LL
#define KIB 1024LL
#define MIB (1024LL * 1024LL)

/*
 * AddIo --
 *	Appends an I/O record: enqueue time, op, size, device and offset;
 *	every other field absent.
 * Results: the record's index.
 */
static int
AddIo(Rb_Batch *b, int64_t timeNs, int op, int64_t reqSize, int64_t dev,
	int64_t offset)
{
    int i = Rb_BatchAppend(b);

    ck_assert_int_ge(i, 0);
    b->col[RB_IO_TIME][i] = timeNs;
    b->col[RB_IO_OP][i] = op;
    b->col[RB_IO_SIZE][i] = reqSize;
    b->col[RB_IO_DEVICE][i] = dev;
    b->col[RB_IO_OFFSET][i] = offset;
    return i;
}

/*
 * NewXf --
 *	A transformer of cls made with the options in the Tcl list opts.
 * Results: the transformer, or NULL with an error in the interpreter.
 */
static Rb_Transformer *
NewXf(const Rb_TransformerClass *cls, const char *opts)
{
    Tcl_Interp *interp = rbtest_interp();
    Tcl_Obj *list = Tcl_NewStringObj(opts, -1);
    Tcl_Obj **objv;
    int objc;
    Rb_Transformer *t;

    Tcl_IncrRefCount(list);
    ck_assert_int_eq(Tcl_ListObjGetElements(interp, list, &objc, &objv),
	    TCL_OK);
    t = RbTransformerCreate(interp, cls, objc, objv);
    Tcl_DecrRefCount(list);
    return t;
}

/*
 * MustXf --
 *	NewXf that fails the test on an error.
 */
static Rb_Transformer *
MustXf(const Rb_TransformerClass *cls, const char *opts)
{
    Rb_Transformer *t = NewXf(cls, opts);

    ck_assert_msg(t != NULL, "create %s %s: %s", cls->name, opts,
	    Tcl_GetStringResult(rbtest_interp()));
    return t;
}

/*
 * Transform --
 *	Starts t, pushes every record of in through it (in batches of
 *	chunk records), and flushes it, as the engine does.
 * Results: a new batch with what came out (caller frees), or NULL when
 *	a hook failed (t->err says why).
 */
static Rb_Batch *
TransformChunks(Rb_Transformer *t, const Rb_Batch *in, int chunk)
{
    Tcl_Interp *interp = rbtest_interp();
    int cap = (in->n + 1) * t->cls->maxExpand + 8;
    Rb_Batch *out = Rb_BatchCreate(in->schema, cap);
    Rb_Batch *part = Rb_BatchCreate(in->schema, chunk);
    uint32_t *sel = malloc(sizeof(uint32_t) * (chunk + 1));
    Rb_RunInfo run;
    int i, k, ok = 1;

    RbRunInfoInit(&run, interp, in->schema);
    ok = t->cls->start == NULL || t->cls->start(t, &run) == TCL_OK;
    for (i = 0; ok && i < in->n; i += chunk) {
	Rb_BatchClear(part);
	for (k = i; k < in->n && k < i + chunk; k++) {
	    sel[k - i] = Rb_BatchCopyRecord(part, in, k);
	}
	/* The output batch of a real node is empty before each push and
	 * sized for that push; here it accumulates, so room is checked. */
	ck_assert_int_le(out->n + part->n * t->cls->maxExpand, out->cap);
	{
	    Rb_Batch view = *out;

	    view.cap = out->n + part->n * t->cls->maxExpand;
	    ok = t->cls->transform(t, part, sel, part->n, &view) == TCL_OK;
	    out->n = view.n;
	}
    }
    if (ok && t->cls->flush) {
	ok = t->cls->flush(t, out) == TCL_OK;
    }
    RbRunInfoFree(&run);
    Rb_BatchFree(part);
    free(sel);
    if (!ok) {
	Rb_BatchFree(out);
	return NULL;
    }
    return out;
}

static Rb_Batch *
Transform(Rb_Transformer *t, const Rb_Batch *in)
{
    Rb_Batch *out = TransformChunks(t, in, in->n ? in->n : 1);

    ck_assert_msg(out != NULL, "%s: %s", t->cls->name, t->err.msg);
    return out;
}

static Rb_Batch *
NewBatch(int n)
{
    return Rb_BatchCreate(Rb_IoSchema(), n);
}

/*
 * VOLUMES --
 *	Volume 1 is linear in two segments: its first MiB at byte 4096 of
 *	device 10, its second MiB at byte 0 of device 11.  Volume 2 is
 *	striped over devices 20 (from byte 0) and 21 (from byte 1 MiB) in
 *	64 KiB chunks, 512 KiB long: 256 KiB on each device.
 */
#define VOLUMES "-map {" \
    "{lv 1 name vg/lin segments {" \
	"{start 0 length 1048576 devices {{10 4096}}}" \
	" {start 1048576 length 1048576 devices {{11 0}}}}}" \
    " {lv 2 name vg/str segments {" \
	"{start 0 length 524288 stripeSize 65536 devices {{20 0} {21 1048576}}}}}}"

START_TEST(volume_map_linear_segments)
{
    Rb_Transformer *t = MustXf(&Rb_VolumeMapTransformerClass, VOLUMES);
    Rb_Batch *in = NewBatch(8), *out;

    AddIo(in, 0, RB_OP_READ, 512, 10, 4096 + 500);	/* seg 1: 500 */
    AddIo(in, 1, RB_OP_READ, 512, 11, 2000);		/* seg 2: 1M+2000 */
    AddIo(in, 2, RB_OP_READ, 512, 10, 100);		/* before seg 1 */
    AddIo(in, 3, RB_OP_READ, 512, 10, 4096 + MIB);	/* just after it */
    out = Transform(t, in);
    ck_assert_int_eq(out->n, 4);
    ck_assert_int_eq(out->col[RB_IO_LVNO][0], 1);
    ck_assert_int_eq(out->col[RB_IO_LVOFFSET][0], 500);
    ck_assert_int_eq(out->col[RB_IO_LVNO][1], 1);
    ck_assert_int_eq(out->col[RB_IO_LVOFFSET][1], MIB + 2000);
    ck_assert(out->col[RB_IO_LVNO][2] == RB_ABSENT);
    ck_assert(out->col[RB_IO_LVNO][3] == RB_ABSENT);
    ck_assert_int_eq(out->col[RB_IO_OFFSET][1], 2000);
    Rb_BatchFree(in);
    Rb_BatchFree(out);
    RbTransformerDelete(t);
}
END_TEST

START_TEST(volume_map_striped_chunks)
{
    Rb_Transformer *t = MustXf(&Rb_VolumeMapTransformerClass, VOLUMES);
    Rb_Batch *in = NewBatch(8), *out;

    /* Chunk c of stripe k is chunk 2c + k of the volume. */
    AddIo(in, 0, RB_OP_READ, 512, 20, 0);		/* c0 k0: 0 */
    AddIo(in, 1, RB_OP_READ, 512, 21, MIB);		/* c0 k1: 64K */
    AddIo(in, 2, RB_OP_READ, 512, 20, 64 * KIB + 10);	/* c1 k0: 128K+10 */
    AddIo(in, 3, RB_OP_READ, 512, 21, MIB + 192 * KIB + 5); /* c3 k1 */
    AddIo(in, 4, RB_OP_READ, 512, 21, MIB + 256 * KIB);	/* past the end */
    out = Transform(t, in);
    ck_assert_int_eq(out->n, 5);
    ck_assert_int_eq(out->col[RB_IO_LVNO][0], 2);
    ck_assert_int_eq(out->col[RB_IO_LVOFFSET][0], 0);
    ck_assert_int_eq(out->col[RB_IO_LVOFFSET][1], 64 * KIB);
    ck_assert_int_eq(out->col[RB_IO_LVOFFSET][2], 128 * KIB + 10);
    /* (3 * 2 + 1) * 64K + 5 */
    ck_assert_int_eq(out->col[RB_IO_LVOFFSET][3], 7 * 64 * KIB + 5);
    ck_assert(out->col[RB_IO_LVNO][4] == RB_ABSENT);
    Rb_BatchFree(in);
    Rb_BatchFree(out);
    RbTransformerDelete(t);
}
END_TEST

START_TEST(volume_map_drops_unmapped_when_asked)
{
    Rb_Transformer *t = MustXf(&Rb_VolumeMapTransformerClass,
	    VOLUMES " -unmapped drop");
    Rb_Batch *in = NewBatch(4), *out;

    AddIo(in, 0, RB_OP_READ, 512, 99, 0);
    AddIo(in, 1, RB_OP_READ, 512, 20, 0);
    AddIo(in, 2, RB_OP_READ, 512, 20, RB_ABSENT);
    out = Transform(t, in);
    ck_assert_int_eq(out->n, 1);
    ck_assert_int_eq(out->col[RB_IO_DEVICE][0], 20);
    Rb_BatchFree(in);
    Rb_BatchFree(out);
    RbTransformerDelete(t);
}
END_TEST

START_TEST(volume_map_rejects_bad_tables)
{
    Tcl_Interp *interp = rbtest_interp();

    /* Two volumes on the same bytes of device 5. */
    ck_assert_ptr_null(NewXf(&Rb_VolumeMapTransformerClass,
	    "-map {{lv 1 segments {{start 0 length 100 devices {{5 0}}}}}"
	    " {lv 2 segments {{start 0 length 100 devices {{5 50}}}}}}"));
    ck_assert_ptr_nonnull(strstr(Tcl_GetStringResult(interp), "overlap"));
    /* 3 chunks of 64 KiB do not fill rows of 2 stripes. */
    ck_assert_ptr_null(NewXf(&Rb_VolumeMapTransformerClass,
	    "-map {{lv 1 segments {{start 0 length 196608 stripeSize 65536"
	    " devices {{5 0} {6 0}}}}}}"));
    ck_assert_ptr_nonnull(strstr(Tcl_GetStringResult(interp),
	    "whole number"));
    ck_assert_ptr_null(NewXf(&Rb_VolumeMapTransformerClass,
	    "-map {{lv 1 segments {{start 0 length 100 devices {5}}}}}"));
    ck_assert_ptr_null(NewXf(&Rb_VolumeMapTransformerClass,
	    "-map {{segments {}}}"));
    ck_assert_ptr_null(NewXf(&Rb_VolumeMapTransformerClass,
	    "-unmapped keep"));
}
END_TEST

START_TEST(coalesce_merges_sequential_reads_in_window)
{
    Rb_Transformer *t = MustXf(&Rb_CoalesceTransformerClass, "-window 0.01");
    Rb_Batch *in = NewBatch(8), *out;
    int i;

    /* Three adjacent reads 1 ms apart, and a write on the same device in
     * between that is an I/O of its own. */
    i = AddIo(in, 0, RB_OP_READ, 4096, 1, 0);
    in->col[RB_IO_START][i] = 1 * MS;
    in->col[RB_IO_FINISH][i] = 5 * MS;
    i = AddIo(in, 1 * MS, RB_OP_READ, 4096, 1, 4096);
    in->col[RB_IO_FINISH][i] = 6 * MS;
    i = AddIo(in, 1 * MS, RB_OP_WRITE, 512, 1, 8192);
    in->col[RB_IO_FINISH][i] = 3 * MS;
    i = AddIo(in, 2 * MS, RB_OP_READ, 8192, 1, 8192);
    in->col[RB_IO_FINISH][i] = 9 * MS;
    out = Transform(t, in);
    ck_assert_int_eq(out->n, 2);
    /* Emitted oldest first at the flush: the merged read, then the write. */
    ck_assert_int_eq(out->col[RB_IO_OP][0], RB_OP_READ);
    ck_assert_int_eq(out->col[RB_IO_SIZE][0], 16384);
    ck_assert_int_eq(out->col[RB_IO_TIME][0], 0);
    ck_assert_int_eq(out->col[RB_IO_START][0], 1 * MS);
    ck_assert_int_eq(out->col[RB_IO_FINISH][0], 9 * MS);
    ck_assert_int_eq(out->col[RB_IO_OFFSET][0], 0);
    ck_assert_int_eq(out->col[RB_IO_OP][1], RB_OP_WRITE);
    ck_assert_int_eq(out->col[RB_IO_SIZE][1], 512);
    Rb_BatchFree(in);
    Rb_BatchFree(out);
    RbTransformerDelete(t);
}
END_TEST

START_TEST(coalesce_keeps_gaps_jumps_and_devices_apart)
{
    Rb_Transformer *t = MustXf(&Rb_CoalesceTransformerClass,
	    "-window 0.01 -maxsize 8192");
    Rb_Batch *in = NewBatch(8), *out;

    AddIo(in, 0, RB_OP_READ, 4096, 1, 0);
    AddIo(in, 20 * MS, RB_OP_READ, 4096, 1, 4096);	/* 20 ms later */
    AddIo(in, 21 * MS, RB_OP_READ, 4096, 1, 100000);	/* not adjacent */
    AddIo(in, 22 * MS, RB_OP_READ, 4096, 2, 104096);	/* other device */
    AddIo(in, 23 * MS, RB_OP_READ, 4096, 2, 108192);	/* merges: 8192 */
    AddIo(in, 24 * MS, RB_OP_READ, 4096, 2, 112288);	/* over -maxsize */
    out = Transform(t, in);
    ck_assert_int_eq(out->n, 5);
    ck_assert_int_eq(out->col[RB_IO_TIME][0], 0);
    ck_assert_int_eq(out->col[RB_IO_SIZE][0], 4096);
    ck_assert_int_eq(out->col[RB_IO_TIME][1], 20 * MS);
    ck_assert_int_eq(out->col[RB_IO_SIZE][1], 4096);
    /* Held I/Os leave as they close: device 2's merged pair when the
     * 24 ms I/O would pass -maxsize, the rest at the flush, oldest first. */
    ck_assert_int_eq(out->col[RB_IO_TIME][2], 22 * MS);
    ck_assert_int_eq(out->col[RB_IO_SIZE][2], 8192);
    ck_assert_int_eq(out->col[RB_IO_TIME][3], 21 * MS);
    ck_assert_int_eq(out->col[RB_IO_TIME][4], 24 * MS);
    Rb_BatchFree(in);
    Rb_BatchFree(out);
    RbTransformerDelete(t);
}
END_TEST

START_TEST(coalesce_lets_go_when_the_window_passes)
{
    Rb_Transformer *t = MustXf(&Rb_CoalesceTransformerClass, "-window 0.01");
    Rb_Batch *in = NewBatch(8), *out;

    /* Pushed one record at a time: device 1's I/O must leave during the
     * push of device 2's record 1 s later, not wait for the flush. */
    AddIo(in, 0, RB_OP_READ, 4096, 1, 0);
    AddIo(in, 1 * SEC, RB_OP_READ, 4096, 2, 0);
    AddIo(in, 1 * SEC + 1 * MS, RB_OP_READ, 4096, 2, 4096);
    out = TransformChunks(t, in, 1);
    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(out->n, 2);
    ck_assert_int_eq(out->col[RB_IO_DEVICE][0], 1);
    ck_assert_int_eq(out->col[RB_IO_DEVICE][1], 2);
    ck_assert_int_eq(out->col[RB_IO_SIZE][1], 8192);
    Rb_BatchFree(in);
    Rb_BatchFree(out);
    RbTransformerDelete(t);
}
END_TEST

START_TEST(device_map_renumbers_and_drops)
{
    Rb_Transformer *t = MustXf(&Rb_DeviceMapTransformerClass,
	    "-map {1 100 2 200}");
    Rb_Transformer *d = MustXf(&Rb_DeviceMapTransformerClass,
	    "-map {1 100 2 200} -unmapped drop");
    Rb_Batch *in = NewBatch(4), *out;

    AddIo(in, 0, RB_OP_READ, 512, 2, 0);
    AddIo(in, 1, RB_OP_READ, 512, 3, 0);
    AddIo(in, 2, RB_OP_READ, 512, 1, 0);
    out = Transform(t, in);
    ck_assert_int_eq(out->n, 3);
    ck_assert_int_eq(out->col[RB_IO_DEVICE][0], 200);
    ck_assert_int_eq(out->col[RB_IO_DEVICE][1], 3);
    ck_assert_int_eq(out->col[RB_IO_DEVICE][2], 100);
    Rb_BatchFree(out);
    out = Transform(d, in);
    ck_assert_int_eq(out->n, 2);
    ck_assert_int_eq(out->col[RB_IO_DEVICE][1], 100);
    ck_assert_ptr_null(NewXf(&Rb_DeviceMapTransformerClass, "-map {1}"));
    ck_assert_ptr_null(NewXf(&Rb_DeviceMapTransformerClass,
	    "-map {1 2 1 3}"));
    Rb_BatchFree(in);
    Rb_BatchFree(out);
    RbTransformerDelete(t);
    RbTransformerDelete(d);
}
END_TEST

START_TEST(time_scales_then_shifts_every_time)
{
    Rb_Transformer *t = MustXf(&Rb_TimeTransformerClass,
	    "-scale 2 -shift 1.5");
    Rb_Batch *in = NewBatch(4), *out;
    int i = AddIo(in, 1 * SEC, RB_OP_READ, 512, 1, 0);

    in->col[RB_IO_START][i] = 2 * SEC;
    /* finishTime absent: stays absent. */
    out = Transform(t, in);
    ck_assert_int_eq(out->col[RB_IO_TIME][0], 3 * SEC + SEC / 2);
    ck_assert_int_eq(out->col[RB_IO_START][0], 5 * SEC + SEC / 2);
    ck_assert(out->col[RB_IO_FINISH][0] == RB_ABSENT);
    Rb_BatchFree(out);
    RbTransformerDelete(t);

    /* A shift past the 64-bit range is a run error, not a wrap. */
    t = MustXf(&Rb_TimeTransformerClass, "-shift 9e9");
    in->col[RB_IO_TIME][0] = INT64_MAX - 10;
    ck_assert_ptr_null(TransformChunks(t, in, 1));
    ck_assert_str_eq(t->err.code, "RUBICON TRANSFORMER RANGE");
    RbTransformerDelete(t);
    ck_assert_ptr_null(NewXf(&Rb_TimeTransformerClass, "-scale 0"));
    Rb_BatchFree(in);
}
END_TEST

START_TEST(sample_every_nth_record)
{
    Rb_Transformer *t = MustXf(&Rb_SampleTransformerClass, "-every 3");
    Rb_Batch *in = NewBatch(16), *out;
    int i;

    for (i = 0; i < 9; i++) {
	AddIo(in, i, RB_OP_READ, 512, 1, i);
    }
    out = Transform(t, in);
    ck_assert_int_eq(out->n, 3);
    ck_assert_int_eq(out->col[RB_IO_TIME][0], 0);
    ck_assert_int_eq(out->col[RB_IO_TIME][1], 3);
    ck_assert_int_eq(out->col[RB_IO_TIME][2], 6);
    ck_assert_ptr_null(NewXf(&Rb_SampleTransformerClass, "-every 0"));
    Rb_BatchFree(in);
    Rb_BatchFree(out);
    RbTransformerDelete(t);
}
END_TEST

START_TEST(sample_by_key_keeps_whole_keys)
{
    Rb_Transformer *a = MustXf(&Rb_SampleTransformerClass,
	    "-every 4 -key pid");
    Rb_Transformer *b = MustXf(&Rb_SampleTransformerClass,
	    "-every 4 -key pid");
    Rb_Batch *in = NewBatch(2000), *outA, *outB;
    int kept[500] = {0}, i, keys = 0;

    /* 500 pids, 4 records each, interleaved. */
    for (i = 0; i < 2000; i++) {
	int r = AddIo(in, i, RB_OP_READ, 512, 1, i);

	in->col[RB_IO_PID][r] = i % 500;
    }
    outA = Transform(a, in);
    outB = Transform(b, in);
    ck_assert_int_eq(outA->n, outB->n);
    for (i = 0; i < outA->n; i++) {
	ck_assert_int_eq(outA->col[RB_IO_TIME][i], outB->col[RB_IO_TIME][i]);
	kept[outA->col[RB_IO_PID][i]]++;
    }
    for (i = 0; i < 500; i++) {
	ck_assert(kept[i] == 0 || kept[i] == 4);
	keys += kept[i] == 4;
    }
    /* About 125 of 500 keys; a fair hash is well inside 80..170. */
    ck_assert_int_gt(keys, 80);
    ck_assert_int_lt(keys, 170);
    Rb_BatchFree(in);
    Rb_BatchFree(outA);
    Rb_BatchFree(outB);
    RbTransformerDelete(a);
    RbTransformerDelete(b);
}
END_TEST

START_TEST(split_large_io_into_pieces)
{
    Rb_Transformer *t = MustXf(&Rb_SplitTransformerClass, "-max 4096");
    Rb_Batch *in = NewBatch(4), *out;
    int i = AddIo(in, 7, RB_OP_WRITE, 10000, 1, 1000);

    in->col[RB_IO_LVOFFSET][i] = 50;
    AddIo(in, 8, RB_OP_WRITE, 4096, 1, 0);	/* not larger: unchanged */
    out = Transform(t, in);
    /* 4096 + 4096 + 1808 at 1000, 5096, 9192 (volume 50, 4146, 8242). */
    ck_assert_int_eq(out->n, 4);
    ck_assert_int_eq(out->col[RB_IO_SIZE][0], 4096);
    ck_assert_int_eq(out->col[RB_IO_SIZE][1], 4096);
    ck_assert_int_eq(out->col[RB_IO_SIZE][2], 1808);
    ck_assert_int_eq(out->col[RB_IO_OFFSET][1], 5096);
    ck_assert_int_eq(out->col[RB_IO_OFFSET][2], 9192);
    ck_assert_int_eq(out->col[RB_IO_LVOFFSET][2], 8242);
    ck_assert_int_eq(out->col[RB_IO_TIME][2], 7);
    ck_assert_int_eq(out->col[RB_IO_SIZE][3], 4096);
    Rb_BatchFree(in);
    Rb_BatchFree(out);
    RbTransformerDelete(t);
}
END_TEST

START_TEST(split_caps_pieces_and_keeps_bytes)
{
    Rb_Transformer *t = MustXf(&Rb_SplitTransformerClass, "-max 1");
    Rb_Batch *in = NewBatch(2), *out;
    int64_t total = 0;
    int i;

    AddIo(in, 0, RB_OP_READ, 100, 1, 0);
    out = Transform(t, in);
    ck_assert_int_eq(out->n, RB_SPLIT_MAX_PIECES);
    for (i = 0; i < out->n; i++) {
	total += out->col[RB_IO_SIZE][i];
    }
    ck_assert_int_eq(total, 100);
    ck_assert_int_eq(out->col[RB_IO_SIZE][out->n - 1], 100 - 63);
    ck_assert_int_eq(out->col[RB_IO_OFFSET][out->n - 1], 63);
    Rb_BatchFree(in);
    Rb_BatchFree(out);
    RbTransformerDelete(t);
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("transformers");
    TCase *tc;

    tc = tcase_create("volumemap");
    tcase_add_test(tc, volume_map_linear_segments);
    tcase_add_test(tc, volume_map_striped_chunks);
    tcase_add_test(tc, volume_map_drops_unmapped_when_asked);
    tcase_add_test(tc, volume_map_rejects_bad_tables);
    suite_add_tcase(s, tc);

    tc = tcase_create("coalesce");
    tcase_add_test(tc, coalesce_merges_sequential_reads_in_window);
    tcase_add_test(tc, coalesce_keeps_gaps_jumps_and_devices_apart);
    tcase_add_test(tc, coalesce_lets_go_when_the_window_passes);
    suite_add_tcase(s, tc);

    tc = tcase_create("rewrite");
    tcase_add_test(tc, device_map_renumbers_and_drops);
    tcase_add_test(tc, time_scales_then_shifts_every_time);
    tcase_add_test(tc, sample_every_nth_record);
    tcase_add_test(tc, sample_by_key_keeps_whole_keys);
    tcase_add_test(tc, split_large_io_into_pieces);
    tcase_add_test(tc, split_caps_pieces_and_keeps_bytes);
    suite_add_tcase(s, tc);
    return s;
}

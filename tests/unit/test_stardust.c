/*
 * test_stardust.c --
 *
 *	Unit tests of the Stardust plugin's request graph (the roll-up of
 *	sub-requests and equal splitting of coalesced work) and of its
 *	binary reader, with answers worked out in the comments.
 */

#include <math.h>
#include <unistd.h>
#include "rbtest.h"
#include "plugins/stardust/stardust.h"

#define BC(client, n) ((int64_t)((uint64_t)(client) << 56 | (n)))

/*
 * Weight --
 *	The share of node bc's work that root bears (0 if none).
 */
static double
Weight(SdGraph *g, int64_t bc, int64_t root)
{
    int n, k;
    const SdShare *sh = Sd_GraphRoots(g, Sd_GraphNode(g, bc), &n);

    for (k = 0; k < n; k++) {
	if (sh[k].root == root) {
	    return sh[k].weight;
	}
    }
    return 0;
}

START_TEST(graph_root_is_its_own_root)
{
    SdGraph g;

    Sd_GraphInit(&g);
    ck_assert_double_eq(Weight(&g, BC(1, 1), BC(1, 1)), 1.0);
    Sd_GraphFree(&g);
}
END_TEST

START_TEST(graph_split_rolls_up_whole)
{
    SdGraph g;

    /* A fans out to a1 and a2, a1 to a11: each bears all of A's. */
    Sd_GraphInit(&g);
    Sd_GraphStitch(&g, BC(1, 1), BC(1, 2));
    Sd_GraphStitch(&g, BC(1, 1), BC(1, 3));
    Sd_GraphStitch(&g, BC(1, 2), BC(1, 4));
    ck_assert_double_eq(Weight(&g, BC(1, 2), BC(1, 1)), 1.0);
    ck_assert_double_eq(Weight(&g, BC(1, 3), BC(1, 1)), 1.0);
    ck_assert_double_eq(Weight(&g, BC(1, 4), BC(1, 1)), 1.0);
    Sd_GraphFree(&g);
}
END_TEST

START_TEST(graph_coalesced_splits_equally_through_levels)
{
    SdGraph g;
    int64_t a = BC(1, 1), a1 = BC(1, 2), b = BC(2, 1), c = BC(3, 1);
    int64_t m = BC(127, 1), f = BC(127, 2);

    /* M coalesces a1 (child of A) and B: 1/2 each.  F coalesces M and
     * C: 1/2 each, so A and B bear 1/4 of F and C 1/2. */
    Sd_GraphInit(&g);
    Sd_GraphStitch(&g, a, a1);
    Sd_GraphStitch(&g, a1, m);
    Sd_GraphStitch(&g, b, m);
    Sd_GraphStitch(&g, m, f);
    Sd_GraphStitch(&g, c, f);
    Sd_GraphStitch(&g, c, f);	/* a repeated stitch counts once */
    ck_assert_double_eq_tol(Weight(&g, m, a), 0.5, 1e-12);
    ck_assert_double_eq_tol(Weight(&g, m, b), 0.5, 1e-12);
    ck_assert_double_eq_tol(Weight(&g, f, a), 0.25, 1e-12);
    ck_assert_double_eq_tol(Weight(&g, f, b), 0.25, 1e-12);
    ck_assert_double_eq_tol(Weight(&g, f, c), 0.5, 1e-12);
    Sd_GraphFree(&g);
}
END_TEST

START_TEST(graph_cycle_is_refused)
{
    SdGraph g;
    int n;

    /* X -> Y, then Y -> X would close a cycle: refused, so X stays the
     * root and bears all of Y.  Z -> X is fine (X gains a parent). */
    Sd_GraphInit(&g);
    ck_assert_int_eq(Sd_GraphStitch(&g, BC(1, 1), BC(1, 2)), SD_STITCH_OK);
    ck_assert_int_eq(Sd_GraphStitch(&g, BC(1, 2), BC(1, 1)),
	    SD_STITCH_CYCLE);
    Sd_GraphRoots(&g, Sd_GraphNode(&g, BC(1, 2)), &n);
    ck_assert_int_eq(n, 1);
    ck_assert_double_eq(Weight(&g, BC(1, 2), BC(1, 1)), 1.0);
    Sd_GraphForgetRoots(&g);
    ck_assert_int_eq(Sd_GraphStitch(&g, BC(1, 3), BC(1, 1)), SD_STITCH_OK);
    ck_assert_double_eq(Weight(&g, BC(1, 2), BC(1, 3)), 1.0);
    Sd_GraphFree(&g);
}
END_TEST

START_TEST(graph_chain_deeper_than_the_limit_is_refused)
{
    SdGraph g;
    int k;

    /* A chain of SD_MAX_STITCH_DEPTH stitches is allowed, one more is
     * refused; so is a stitch above the chain's root that would make
     * it too deep from above. */
    Sd_GraphInit(&g);
    for (k = 0; k < SD_MAX_STITCH_DEPTH; k++) {
	ck_assert_int_eq(Sd_GraphStitch(&g, BC(1, k), BC(1, k + 1)),
		SD_STITCH_OK);
    }
    ck_assert_int_eq(Sd_GraphStitch(&g, BC(1, SD_MAX_STITCH_DEPTH),
	    BC(1, 1000)), SD_STITCH_DEEP);
    ck_assert_int_eq(Sd_GraphStitch(&g, BC(2, 1), BC(1, 0)), SD_STITCH_DEEP);
    ck_assert_int_eq(Sd_GraphNode(&g, BC(1, SD_MAX_STITCH_DEPTH))->depth,
	    SD_MAX_STITCH_DEPTH);
    ck_assert_double_eq(Weight(&g, BC(1, SD_MAX_STITCH_DEPTH), BC(1, 0)),
	    1.0);
    Sd_GraphFree(&g);
}
END_TEST

START_TEST(graph_retired_parent_passes_on_its_roll_up)
{
    SdGraph g;
    SdShare retired[2] = {{BC(1, 1), 0.5}, {BC(2, 1), 0.5}};

    /* M has a live parent A (client 3) and a retired one whose roll-up
     * was half client 1, half client 2: A bears 1/2, the others 1/4. */
    Sd_GraphInit(&g);
    Sd_GraphStitch(&g, BC(3, 1), BC(127, 1));
    Sd_GraphInherit(Sd_GraphNode(&g, BC(127, 1)), retired, 2);
    ck_assert_double_eq_tol(Weight(&g, BC(127, 1), BC(3, 1)), 0.5, 1e-12);
    ck_assert_double_eq_tol(Weight(&g, BC(127, 1), BC(1, 1)), 0.25, 1e-12);
    ck_assert_double_eq_tol(Weight(&g, BC(127, 1), BC(2, 1)), 0.25, 1e-12);
    Sd_GraphRemove(&g, Sd_GraphNode(&g, BC(127, 1)));
    ck_assert_int_eq(Sd_GraphNode(&g, BC(3, 1))->nchildren, 0);
    Sd_GraphFree(&g);
}
END_TEST

/*
 * WriteFile --
 *	Writes n bytes to a fresh temporary file; returns its path.
 */
static const char *
WriteFile(const unsigned char *data, size_t n)
{
    static char path[64];
    int fd;

    strcpy(path, "/tmp/test_stardust_XXXXXX");
    fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, n), (ssize_t)n);
    close(fd);
    return path;
}

static size_t
PutLe(unsigned char *p, uint64_t v, int width)
{
    int k;

    for (k = 0; k < width; k++) {
	p[k] = (unsigned char)(v >> (8 * k));
    }
    return (size_t)width;
}

START_TEST(binary_header_and_signed_payload)
{
    unsigned char buf[128];
    size_t n = 0;
    Rb_Error err;
    Rb_Reader *r;
    Rb_Batch *b;
    const char *path;
    int fBytes, fDst;

    /* 4 GHz cycle counter; a NetworkTransmit (id 9) at 6e9 cycles =
     * 1.5 s, breadcrumb of client 200, dst -3 (sign-extended int). */
    memcpy(buf, "STARDUST", 8);
    n = 8 + PutLe(buf + 8, 4000000000u, 8);
    n += PutLe(buf + n, 6000000000u, 8);
    n += PutLe(buf + n, (uint64_t)200 << 56 | 77, 8);
    n += PutLe(buf + n, 41, 4);
    n += PutLe(buf + n, 42, 4);
    n += PutLe(buf + n, 9, 2);
    n += PutLe(buf + n, 12, 2);
    n += PutLe(buf + n, 1, 4);
    n += PutLe(buf + n, (uint32_t)-3, 4);
    n += PutLe(buf + n, 65536, 4);
    memset(&err, 0, sizeof(err));
    path = WriteFile(buf, n);
    r = Rb_ReaderOpen(path, NULL, RB_ONERROR_STOP, NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(r->cls->name, "stardust");
    b = Rb_BatchCreate(r->schema, 16);
    ck_assert_int_eq(Rb_ReaderNext(r, b, &err), 1);
    ck_assert_int_eq(Rb_ReaderNext(r, b, &err), 0);
    fBytes = Rb_SchemaFieldIndex(r->schema, "bytes");
    fDst = Rb_SchemaFieldIndex(r->schema, "dst");
    ck_assert_int_eq(b->col[SD_F_TIME][0], 1500000000);
    ck_assert_int_eq(b->col[SD_F_CLIENT][0], 200);
    ck_assert_int_eq(b->col[SD_F_PID][0], 41);
    ck_assert_int_eq(b->col[SD_F_TID][0], 42);
    ck_assert_int_eq(b->col[fDst][0], -3);
    ck_assert_int_eq(b->col[fBytes][0], 65536);
    ck_assert_str_eq(Rb_SchemaString(r->schema, b->col[SD_F_TYPE][0]),
	    "NetworkTransmit");
    Rb_BatchFree(b);
    Rb_ReaderClose(r);
    unlink(path);
}
END_TEST

START_TEST(type_sets_share_one_schema_until_redeclared)
{
    SdTypeSet *s1 = Sd_TypeSetGet("unit-a"), *s2 = Sd_TypeSetGet("unit-a");

    /* Files read with one set share a schema (the engine requires it);
     * a declaration makes a new set without disturbing holders. */
    ck_assert_ptr_eq(s1, s2);
    ck_assert_ptr_eq(s1->schema, s2->schema);
    ck_assert_int_eq(Tcl_Eval(rbtest_interp(),
	    "stardust::declare -set unit-a Extra {k int}"), TCL_OK);
    s2 = Sd_TypeSetGet("unit-a");
    ck_assert_ptr_ne(s1, s2);
    ck_assert_ptr_nonnull(Sd_TypeByName(s2, "Extra"));
    ck_assert_ptr_null(Sd_TypeByName(s1, "Extra"));
    Sd_TypeSetRelease(s1);
    Sd_TypeSetRelease(s1);
    Sd_TypeSetRelease(s2);
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("stardust");
    TCase *tc = tcase_create("stardust");

    tcase_add_test(tc, graph_root_is_its_own_root);
    tcase_add_test(tc, graph_split_rolls_up_whole);
    tcase_add_test(tc, graph_coalesced_splits_equally_through_levels);
    tcase_add_test(tc, graph_cycle_is_refused);
    tcase_add_test(tc, graph_chain_deeper_than_the_limit_is_refused);
    tcase_add_test(tc, graph_retired_parent_passes_on_its_roll_up);
    tcase_add_test(tc, binary_header_and_signed_payload);
    tcase_add_test(tc, type_sets_share_one_schema_until_redeclared);
    suite_add_tcase(s, tc);
    return s;
}

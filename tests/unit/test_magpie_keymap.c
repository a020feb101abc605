/*
 * test_magpie_keymap.c --
 *
 *	Unit tests of the Magpie parser's key map (generic/plugins/magpie/
 *	keymap.c) against a second, simple implementation kept here: an
 *	array searched from end to end.  Random puts and deletes over few
 *	distinct keys make long probe runs, wrap-around at the table's end
 *	and growth; after every step both must hold the same entries.
 */

#include "rbtest.h"
#include "plugins/magpie/magpie.h"

#define MAXREF 4096

typedef struct Ref {
    int64_t key[3];
    intptr_t data;
} Ref;

static Ref ref[MAXREF];
static int nref;

/* RefFind -- index of the key in the reference, or -1. */
static int
RefFind(int64_t a, int64_t b, int64_t c)
{
    int i;

    for (i = 0; i < nref; i++) {
	if (ref[i].key[0] == a && ref[i].key[1] == b && ref[i].key[2] == c) {
	    return i;
	}
    }
    return -1;
}

START_TEST(keymap_matches_a_plain_array_under_random_puts_and_deletes)
{
    MgKeyMap m = {0};
    unsigned seed = 12345;
    int step, i;

    rbtest_interp();
    nref = 0;
    for (step = 0; step < 200000; step++) {
	/* Keys from a small space, so that entries collide often; the
	 * space widens with the step so the table grows. */
	int64_t a = rand_r(&seed) % 3, b = rand_r(&seed) % 2;
	int64_t c = rand_r(&seed) % (50 + step / 200) - 20;
	int op = rand_r(&seed) % 3, r = RefFind(a, b, c);
	MgKeySlot *e;
	int isNew;

	if (op < 2) {
	    e = MgKeyMapPut(&m, a, b, c, &isNew);
	    ck_assert_int_eq(isNew, r < 0);
	    if (r >= 0) {
		ck_assert_int_eq(e->data, ref[r].data);
	    } else {
		ck_assert_int_lt(nref, MAXREF);
		r = nref++;
		ref[r].key[0] = a;
		ref[r].key[1] = b;
		ref[r].key[2] = c;
	    }
	    e->data = ref[r].data = step;
	} else {
	    e = MgKeyMapFind(&m, a, b, c);
	    ck_assert_int_eq(e != NULL, r >= 0);
	    if (e != NULL) {
		ck_assert_int_eq(e->data, ref[r].data);
		MgKeyMapDelete(&m, e);
		ref[r] = ref[--nref];
	    }
	}
	ck_assert_uint_eq(m.count, (size_t)nref);
	if (step % 1000 == 0) {
	    for (i = 0; i < nref; i++) {
		e = MgKeyMapFind(&m, ref[i].key[0], ref[i].key[1],
			ref[i].key[2]);
		ck_assert_ptr_nonnull(e);
		ck_assert_int_eq(e->data, ref[i].data);
	    }
	}
    }
    /* Every entry once, found; then every one deleted, the map empty. */
    for (i = nref - 1; i >= 0; i--) {
	MgKeySlot *e = MgKeyMapFind(&m, ref[i].key[0], ref[i].key[1],
		ref[i].key[2]);

	ck_assert_ptr_nonnull(e);
	MgKeyMapDelete(&m, e);
	ck_assert_ptr_null(MgKeyMapFind(&m, ref[i].key[0], ref[i].key[1],
		ref[i].key[2]));
    }
    ck_assert_uint_eq(m.count, 0);
    for (i = 0; i <= (int)m.mask; i++) {
	ck_assert_int_eq(m.slots[i].used, 0);
    }
    MgKeyMapFree(&m);
    ck_assert_ptr_null(MgKeyMapFind(&m, 0, 0, 0));
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("magpie_keymap");
    TCase *tc = tcase_create("keymap");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, keymap_matches_a_plain_array_under_random_puts_and_deletes);
    suite_add_tcase(s, tc);
    return s;
}

/*
 * test_alloc.c --
 *
 *	Unit tests of the one allocator of the core and the plugins
 *	(Rb_Alloc, Rb_Realloc, Rb_AllocArray, Rb_ReallocArray, Rb_Strdup,
 *	generic/core/error.c): memory comes zeroed and of the size asked,
 *	also above 4 GiB (Magpie's former allocator, Tcl_Alloc, takes an
 *	unsigned int and cut such sizes short), and a count * size that
 *	overflows ends the process with a message instead of allocating a
 *	small block.  RbAllocHuge's large arrays are advised as huge pages.
 *	The tests that end or load the process run only when check forks
 *	(not under valgrind, which runs with CK_FORK=no).
 */

#include <inttypes.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include "rbtest.h"
#include "toolbox/toolbox.h"

START_TEST(array_is_zeroed_and_grows_keeping_its_contents)
{
    int64_t *a = Rb_AllocArray(1000, sizeof(int64_t));
    int i;

    for (i = 0; i < 1000; i++) {
	ck_assert_int_eq(a[i], 0);
	a[i] = i * 3;
    }
    a = Rb_ReallocArray(a, 3000, sizeof(int64_t));
    for (i = 0; i < 1000; i++) {
	ck_assert_int_eq(a[i], i * 3);
    }
    a[2999] = 7;
    free(a);
}
END_TEST

START_TEST(zero_sizes_and_null_strings_give_usable_memory)
{
    char *p = Rb_Alloc(0), *s = Rb_Strdup(NULL), *t = Rb_Strdup("abc");

    ck_assert_ptr_nonnull(p);
    ck_assert_str_eq(s, "");
    ck_assert_str_eq(t, "abc");
    p = Rb_ReallocArray(p, 0, 8);
    ck_assert_ptr_nonnull(p);
    free(p);
    free(s);
    free(t);
}
END_TEST

/* SIZE_MAX / 2 + 1 items of 2 bytes is SIZE_MAX + 1: wraps to 0. */
START_TEST(an_overflowing_array_size_aborts)
{
    (void)Rb_AllocArray(SIZE_MAX / 2 + 1, 2);
}
END_TEST

START_TEST(an_overflowing_array_growth_aborts)
{
    void *p = Rb_AllocArray(4, 8);

    p = Rb_ReallocArray(p, SIZE_MAX / 8 + 2, 8);
    free(p);
}
END_TEST

/* 4 GiB + 64 bytes: a 32-bit size would have been 64. */
START_TEST(a_size_above_4_GiB_is_not_cut_short)
{
    size_t n = ((size_t)1 << 32) + 64;
    unsigned char *p = Rb_AllocArray(n, 1);

    ck_assert_uint_ge(malloc_usable_size(p), n);
    p[n - 1] = 1;
    ck_assert_uint_eq(p[n - 2], 0);
    free(p);
}
END_TEST

/*
 * HugeAdvised --
 *	Whether the mapping holding p has the huge-page advice
 *	(MADV_HUGEPAGE: "hg" among its VmFlags in /proc/self/smaps); -1
 *	when that cannot be told.
 */
static int
HugeAdvised(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int inside = 0, found = -1;

    if (f == NULL) {
	return -1;
    }
    while (fgets(line, sizeof line, f) != NULL) {
	uintptr_t lo, hi;

	if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2
		&& strchr(line, '-') < strchr(line, ' ')) {
	    inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
	} else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
	    found = strstr(line, " hg") != NULL;
	    break;
	}
    }
    fclose(f);
    return found;
}

/*
 * RbAllocHuge (keyTable.c): an array of 3 MiB comes aligned to 2 MiB, in
 * a mapping advised as huge pages where the kernel has them (the
 * transparent_hugepage directory in sysfs); one of 800 bytes is plain
 * heap memory.  Both are writable to their last byte.
 */
START_TEST(a_large_table_array_is_advised_as_huge_pages)
{
    size_t n = (size_t)3 << 20;
    unsigned char *big = RbAllocHuge(n / 8, 8), *small = RbAllocHuge(100, 8);

    ck_assert_uint_eq((uintptr_t)big % ((uintptr_t)2 << 20), 0);
    memset(big, 1, n);
    memset(small, 1, 800);
    if (access("/sys/kernel/mm/transparent_hugepage", F_OK) == 0) {
	ck_assert_int_eq(HugeAdvised(big), 1);
	ck_assert_int_eq(HugeAdvised(small), 0);
    }
    free(big);
    free(small);
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("alloc");
    TCase *tc = tcase_create("alloc");
    const char *fork = getenv("CK_FORK");

    /* Mapping 4 GiB takes seconds under AddressSanitizer. */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, array_is_zeroed_and_grows_keeping_its_contents);
    tcase_add_test(tc, zero_sizes_and_null_strings_give_usable_memory);
    if (fork == NULL || strcmp(fork, "no") != 0) {
	tcase_add_test_raise_signal(tc, an_overflowing_array_size_aborts,
		SIGABRT);
	tcase_add_test_raise_signal(tc, an_overflowing_array_growth_aborts,
		SIGABRT);
	tcase_add_test(tc, a_size_above_4_GiB_is_not_cut_short);
	/* Not under valgrind, whose own allocator places the memory. */
	tcase_add_test(tc, a_large_table_array_is_advised_as_huge_pages);
    }
    suite_add_tcase(s, tc);
    return s;
}

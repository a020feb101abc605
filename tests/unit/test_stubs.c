/*
 * test_stubs.c --
 *
 *	The stubs table's compatibility check (Rb_StubsMismatch in
 *	rubiconDecls.h): the library's own table agrees with the header it
 *	was built from, and a table from another layout is refused with the
 *	difference named.  Each doctored table is the real one with one hand-
 *	made change, such as the 8 bytes Rb_AnalyzerClass grew when classes
 *	began declaring the fields they read.
 */

#include <string.h>
#include "rbtest.h"
#include "core/rbInt.h"

static Rb_Stubs *
CopyOfTable(void)
{
    Rb_Stubs *t = malloc(sizeof(Rb_Stubs));

    ck_assert_ptr_nonnull(t);
    memcpy(t, RbStubsTable(), sizeof(Rb_Stubs));
    return t;
}

START_TEST(the_library_table_agrees_with_its_header)
{
    const Rb_Stubs *t = RbStubsTable();

    ck_assert_ptr_null(Rb_StubsMismatch(t));
    ck_assert_int_eq(t->magic, 0x52624232);
    ck_assert_int_eq(t->analyzerClassSize, sizeof(Rb_AnalyzerClass));
    ck_assert_ptr_eq(t->Rb_RegisterAnalyzer_p, Rb_RegisterAnalyzer);
    ck_assert_ptr_eq(t->Rb_RegisterSchema_p, Rb_RegisterSchema);
}
END_TEST

START_TEST(an_older_shorter_analyzer_class_is_refused)
{
    Rb_Stubs *t = CopyOfTable();

    t->analyzerClassSize -= 8;
    ck_assert_str_eq(Rb_StubsMismatch(t), "the size of Rb_AnalyzerClass");
    free(t);
}
END_TEST

START_TEST(each_class_size_is_compared)
{
    Rb_Stubs *t = CopyOfTable();

    t->readerClassSize += 8;
    ck_assert_str_eq(Rb_StubsMismatch(t), "the size of Rb_ReaderClass");
    t->readerClassSize -= 8;
    t->reporterClassSize += 8;
    ck_assert_str_eq(Rb_StubsMismatch(t), "the size of Rb_ReporterClass");
    t->reporterClassSize -= 8;
    t->transformerClassSize -= 8;
    ck_assert_str_eq(Rb_StubsMismatch(t),
	    "the size of Rb_TransformerClass");
    t->transformerClassSize += 8;
    t->optionSize += 8;
    ck_assert_str_eq(Rb_StubsMismatch(t), "the size of Rb_Option");
    t->optionSize -= 8;
    ck_assert_ptr_null(Rb_StubsMismatch(t));
    free(t);
}
END_TEST

START_TEST(a_library_with_fewer_functions_is_refused)
{
    Rb_Stubs *t = CopyOfTable();

    t->count -= 1;
    ck_assert_str_eq(Rb_StubsMismatch(t),
	    "the number of API functions (the library is older)");
    free(t);
}
END_TEST

START_TEST(the_first_table_layout_is_refused)
{
    Rb_Stubs *t = CopyOfTable();

    t->magic = 0x52624231;	/* "RbB1": no class sizes in the table */
    ck_assert_str_eq(Rb_StubsMismatch(t), "the stubs table's layout");
    ck_assert_str_eq(Rb_StubsMismatch(NULL), "the stubs table's layout");
    free(t);
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("stubs");
    TCase *tc = tcase_create("compatibility");

    tcase_add_test(tc, the_library_table_agrees_with_its_header);
    tcase_add_test(tc, an_older_shorter_analyzer_class_is_refused);
    tcase_add_test(tc, each_class_size_is_compared);
    tcase_add_test(tc, a_library_with_fewer_functions_is_refused);
    tcase_add_test(tc, the_first_table_layout_is_refused);
    suite_add_tcase(s, tc);
    return s;
}

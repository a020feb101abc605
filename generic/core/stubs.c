/*
 * stubs.c --
 *
 *	The table of public API functions handed to plugins through
 *	"package require rubicon" (see rubiconDecls.h).
 */

#include "rbInt.h"

#define RB_STUB_INIT(fn) fn,
static const Rb_Stubs rbStubs = {
    RUBICON_STUBS_MAGIC,
#define RB_STUB_COUNT(fn) + 1
    0 RB_STUB_FUNCTIONS(RB_STUB_COUNT),
#undef RB_STUB_COUNT
    RB_STUBS_LAYOUT,
    RB_STUB_FUNCTIONS(RB_STUB_INIT)
};

const Rb_Stubs *
RbStubsTable(void)
{
    return &rbStubs;
}

/*
 * kit.c --
 *
 *	Registers the built-in trace formats.
 */

#include "core/rbInt.h"
#include "io/srt.h"
#include "io/native.h"
#include "io/readers.h"

/*
 * RbReaderKitInit --
 *	Registers every built-in reader.  Safe to call more than once: a
 *	format registered again replaces itself.
 */
void
RbReaderKitInit(void)
{
    Rb_RegisterReader(&Rb_SrtReaderClass);
    Rb_RegisterReader(&Rb_NativeReaderClass);
    Rb_RegisterReader(&Rb_MsrReaderClass);
    Rb_RegisterReader(&Rb_SpcReaderClass);
    Rb_RegisterReader(&Rb_DiskSimReaderClass);
    Rb_RegisterReader(&Rb_CsvReaderClass);
    Rb_RegisterReader(&Rb_BlkparseReaderClass);
    Rb_RegisterReader(&Rb_BlktraceReaderClass);
    Rb_RegisterReader(&Rb_BlktracerReaderClass);
    Rb_RegisterReader(&Rb_BlockeventsReaderClass);
    Rb_RegisterReader(&Rb_AlibabaReaderClass);
    Rb_RegisterReader(&Rb_TencentReaderClass);
    Rb_RegisterReader(&Rb_OracleGeneralReaderClass);
    Rb_RegisterReader(&Rb_VscsiReaderClass);
    Rb_RegisterReader(&Rb_TwitterReaderClass);
}

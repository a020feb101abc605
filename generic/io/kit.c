/*
 * kit.c --
 *
 *	Registers the built-in trace formats.
 */

#include "core/rbInt.h"
#include "io/srt.h"
#include "io/native.h"

/*
 * Rb_ReaderKitInit --
 *	Registers every built-in reader.  Safe to call more than once: a
 *	format registered again replaces itself.
 */
void
Rb_ReaderKitInit(void)
{
    Rb_RegisterReader(&Rb_SrtReaderClass);
    Rb_RegisterReader(&Rb_NativeReaderClass);
}

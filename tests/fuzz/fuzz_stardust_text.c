/*
 * fuzz_stardust_text.c --
 *
 *	libFuzzer harness for the text Stardust activity-record reader
 *	("stardust-text": the ticks header, tokens, quoted strings with
 *	escapes, decimal and hex numbers).  Built like fuzz_stardust.c.
 */

#include "plugins/stardust/stardust.h"

#define FUZZ_FORMAT "stardust-text"
#include "fuzz_reader.h"

__attribute__((constructor)) static void
RegisterStardustTextReader(void)
{
    Rb_RegisterReader(&Sd_TextReaderClass);
}

/*
 * fuzz_twitter.c --
 *
 *	libFuzzer harness for the twitter reader (Twemcache CSV) with a namespace option.
 *	Built and run by tests/fuzz/run.sh (see fuzz_srt.c for the build
 *	line; the io sources are those of run.sh).
 */

#define FUZZ_FORMAT "twitter"
#define FUZZ_OPTIONS "namespace {:_ 2}"

#include "fuzz_reader.h"

/*
 * fuzz_vscsi.c --
 *
 *	libFuzzer harness for the vscsi reader (CloudPhysics vSCSI binary records, both versions).
 *	Built and run by tests/fuzz/run.sh (see fuzz_srt.c for the build
 *	line; the io sources are those of run.sh).
 */

#define FUZZ_FORMAT "vscsi"

#include "fuzz_reader.h"

/*
 * fuzz_magpieparser.c --
 *
 *	libFuzzer harness for the Magpie request parser: each input is an
 *	event log run under one small fixed schema that uses every kind of
 *	statement (context switches, interrupt contexts, disk and network
 *	bytes, start, stop and basic joins, a sync and a stitch) into a
 *	MagpieParserAnalyzer, and its listed requests are drawn and
 *	compared (see fuzz_magpiedrive.h).  Built by tests/fuzz/run.sh.
 */

#include "fuzz_magpiedrive.h"

static const char fixedSchema[] =
    "magpie::schema fz {\n"
    "    attribute Bytes int\n"
    "    foreach id {Conn Task Irp Cpu Thread Old New Rpc Seq} {\n"
    "        attribute $id int\n"
    "    }\n"
    "    attribute Url string\n"
    "    domain Thread {Thread Old New}\n"
    "    event K/CSwitch -cswitch {Cpu Old New}\n"
    "    event H/Request -begin -join {Conn start Thread start}\n"
    "    event H/Response -end -join {Conn stop Thread stop} -net Bytes\n"
    "    event W/Post -join {Thread basic Task start}\n"
    "    event W/Start -join {Task basic Thread start}\n"
    "    event W/Done -join {Task basic Thread stop}\n"
    "    event W/Join -join {Thread basic Task stop}\n"
    "    event D/Read -join {Thread basic Irp start} -disk Bytes\n"
    "    event D/Dpc -intrbegin Cpu -join {Irp stop}\n"
    "    event D/DpcEnd -intrend Cpu\n"
    "    event R/Call -join {Thread basic}\n"
    "    event R/Serve -join {Thread start}\n"
    "    sync W/Post Task W/Start\n"
    "    stitch R/Call R/Serve {Rpc Seq}\n"
    "}\n";

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    FuzzDriveInit(fixedSchema);
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzDriveLog("fz", data, size);
    return 0;
}
